"""Numbered statements: Theorem, Lemma, … callouts get "Theorem 2" and an optional `{#id}`.

    > [!THEOREM] Universal approximation {#thm-ua}    ->  <div class="callout … callout-statement"
    > Body                                                  id="thm-ua" …>
                                                            … <strong …>Theorem 2 (Universal
                                                            approximation)</strong> …

The callout rules (callouts.py, admonitions.py) cut the `{#id}` off the first line with
`take_id` and mark the callout of a numbered kind. The `statements` core rule runs before
`inline`, on the block tokens in source order (nested callouts, those in lists and in
footnote definitions included), so it can rewrite each title's Markdown before it is parsed.
One counter is shared by every numbered type, or one per title (`statements.counters`); a
Quarto page counts each type on its own, as Quarto does ("Theorem 1", "Lemma 1").
"""

from __future__ import annotations

import re

from markdown_it import MarkdownIt
from markdown_it.rules_core import StateCore
from markdown_it.token import Token

from blogbuild.markdown.env import Env, report
from blogbuild.quarto import QuartoPage

__all__ = ["ID", "markdown_text", "split_id", "statements_plugin", "take_id"]

#: An id an author may give: a letter, then letters, digits, `-`, `_`, `.` or `:`.
ID = re.compile(r"[^\W\d_][\w.:-]*")
_TRAILING_ID = re.compile(r"(?:^|[ \t]+)\{#([^{}]*)\}$")
_MD_PUNCTUATION = re.compile(r"([!-/:-@\[-`{-~])")


def markdown_text(text: str) -> str:
    """`text` as Markdown that reads as itself (its punctuation escaped): a title's words."""
    return _MD_PUNCTUATION.sub(r"\\\1", text)


def split_id(text: str) -> tuple[str, str] | None:
    """(`text` without a trailing `{#…}`, what the braces hold), or None: no such ending."""
    match = _TRAILING_ID.search(text)
    if match is None:
        return None
    return text[: match.start()].rstrip(), match.group(1).strip()


def take_id(env: Env, line: int, title: str, what: str = "callout",
            ) -> tuple[str, str | None]:
    """(`title` without a trailing `{#id}`, the id or None); a malformed id is reported
    (`what` gets no id)."""
    found = split_id(title)
    if found is None:
        return title, None
    rest, ident = found
    if not ID.fullmatch(ident):
        report(env, line, f"{{#{ident}}} is not a usable id: an id starts with a letter and "
               f"holds letters, digits, '-', '_', '.' or ':' (the {what} gets no id)")
        return rest, None
    return rest, ident


def _counter_key(meta: dict[str, object], per_type: bool) -> str:
    return str(meta.get("label", "")) if per_type else ""


def _title_inline(tokens: list[Token], index: int) -> Token | None:
    """The inline token of the title row of the callout opened at `index`, if it has one."""
    if index + 2 < len(tokens) and tokens[index + 1].type == "callout_title_open":
        found = tokens[index + 2]
        return found if found.type == "inline" else None
    return None


def make_statements_rule(per_type: bool):  # type: ignore[no-untyped-def]
    def statements(state: StateCore) -> None:
        counters: dict[str, int] = {}
        each = per_type or isinstance(state.env.get("quarto"), QuartoPage)
        tokens = state.tokens
        for index, token in enumerate(tokens):
            meta = token.meta
            if token.type != "callout_open" or not meta or not meta.get("numbered"):
                continue
            key = _counter_key(meta, each)
            counters[key] = counters.get(key, 0) + 1
            number = f"{meta['label']} {counters[key]}"
            meta["number"] = number
            token.attrSet("class", f"{token.attrGet('class')} callout-statement")
            inline = _title_inline(tokens, index)
            if inline is None:
                continue
            own = str(meta.get("title") or "")
            label = markdown_text(number)
            inline.content = f"{label} ({own})" if own else label

    return statements


def statements_plugin(md: MarkdownIt, *, per_type: bool = False) -> None:
    """Number the statements of a post; needs callouts_plugin (its tokens and meta)."""
    md.core.ruler.before("inline", "statements", make_statements_rule(per_type))
