"""Pandoc's table captions on a Quarto page: a paragraph `: Caption {#tbl-x}` (or
`Table: Caption`) right before or right after a pipe table.

The core rule runs before `inline`: the paragraph becomes the table's `<caption>` (its
Markdown parsed as usual), the id goes to the table, and blogbuild.markdown.quarto.labels
numbers a `#tbl-` table ("Table 1: Caption", `meta["caption_label"]`, shared by the
table's and the caption's tokens).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.common.utils import escapeHtml
from markdown_it.rules_core import StateCore
from markdown_it.token import Token
from markdown_it.utils import OptionsDict

from blogbuild.markdown.env import Env, is_quarto, report, token_line
from blogbuild.markdown.statements import ID

__all__ = ["tables_plugin"]

_CAPTION = re.compile(r"(?:Table)?:[ \t]+(?=\S)")
#: The attributes after a caption: `{#tbl-x}`, maybe with others (`tbl-colwidths=…`).
_ATTRS = re.compile(r"[ \t]*\{#([^{}\s]*)([^{}]*)\}[ \t]*$")


def _table_of(tokens: list[Token], index: int) -> int:
    """The index of the `table_open` the caption paragraph at `index` belongs to, or -1:
    the table right before it (its `table_close` just above), else the one right after;
    a table that has its caption takes no other."""
    level = tokens[index].level
    if index > 0 and tokens[index - 1].type == "table_close" \
            and tokens[index - 1].level == level:
        before = next(j for j in range(index - 1, -1, -1)
                      if tokens[j].type == "table_open" and tokens[j].level == level)
        if "caption" not in (tokens[before].meta or {}):
            return before
    after = index + 3
    if after < len(tokens) and tokens[after].type == "table_open" \
            and tokens[after].level == level and "caption" not in (tokens[after].meta or {}):
        return after
    return -1


def _split(env: Env, line: int, text: str) -> tuple[str, str | None]:
    """(the caption without its attributes, the id or None); a bad id is reported."""
    match = _ATTRS.search(text)
    if match is None:
        return text, None
    ident, rest = match.group(1), match.group(2).strip()
    if rest:
        report(env, line, f"the table caption's attributes '{rest}' are not used (blogbuild "
               "keeps only its id); remove them, or write the table in HTML")
    if not ID.fullmatch(ident):
        report(env, line, f"{{#{ident}}} is not a usable id: an id starts with a letter and "
               "holds letters, digits, '-', '_', '.' or ':' (the table gets no id)")
        return text[:match.start()].rstrip(), None
    return text[:match.start()].rstrip(), ident


def _move(tokens: list[Token], index: int, table: int, caption: str,
          ident: str | None) -> None:
    """The caption paragraph at `index` becomes the caption of the table at `table`."""
    opening, inline = tokens[table], tokens[index + 1]
    inline.content = caption
    meta = opening.meta = {**(opening.meta or {}), "caption": caption}
    if ident is not None:
        opening.attrSet("id", ident)
    start = Token("table_caption_open", "caption", 1)
    end = Token("table_caption_close", "caption", -1)
    start.meta = end.meta = meta
    start.block = end.block = True
    start.map, start.level, end.level = inline.map, opening.level + 1, opening.level + 1
    inline.level = opening.level + 2
    del tokens[index:index + 3]
    at = table + 1 if table < index else table - 2
    tokens[at:at] = [start, inline, end]


def table_captions(state: StateCore) -> None:
    if not is_quarto(state.env):
        return
    tokens = state.tokens
    index = 0
    while index < len(tokens) - 2:
        token = tokens[index]
        inline = tokens[index + 1]
        found = _CAPTION.match(inline.content) if token.type == "paragraph_open" \
            and inline.type == "inline" else None
        table = _table_of(tokens, index) if found is not None else -1
        if found is None or table < 0:
            index += 1
            continue
        caption, ident = _split(state.env, token_line(state.env, token),
                                inline.content[found.end():])
        _move(tokens, index, table, caption, ident)  # `index` now holds what came next


def _caption_open(self: Any, tokens: Sequence[Token], idx: int, options: OptionsDict,
                  env: Env) -> str:
    label = tokens[idx].meta.get("caption_label")
    number = f'<span class="table-number">{escapeHtml(label)}</span> ' if label else ""
    return f"<caption>{number}"


def tables_plugin(md: MarkdownIt) -> None:
    md.core.ruler.before("inline", "quarto_table_captions", table_captions)
    md.add_render_rule("table_caption_open", _caption_open)
