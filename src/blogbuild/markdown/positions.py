"""The source line of each link, image and inline footnote, not only of its paragraph.

markdown-it gives block tokens a `map` of lines and inline tokens none, so a message about
a link on the third line of a paragraph (or of a list item, a quote, a footnote) would name
the paragraph's first line. The inline rules that make links, images and inline footnotes
are wrapped here to note where each one starts in the text of its inline token
(`meta["offset"]`, as the wiki link and citation rules note theirs), and `inline_lines`
turns those offsets into source lines in one pass over each text. The text of an inline
footnote (`^[…]`) is parsed on its own and moved to the end of the page; its lines are
counted from the line of its `^[`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.rules_inline import StateInline
from markdown_it.token import Token

from blogbuild.markdown.env import Env, token_line

__all__ = ["inline_lines", "positions_plugin"]

InlineRule = Callable[[StateInline, bool], bool]

#: The inline rules whose tokens get an offset, and the token each one makes.
_NOTED = {"link": "link_open", "image": "image", "autolink": "link_open",
          "footnote_inline": "footnote_ref"}


def _noting(rule: InlineRule, kind: str) -> InlineRule:
    def noted(state: StateInline, silent: bool) -> bool:
        start, count = state.pos, len(state.tokens)
        if not rule(state, silent):
            return False
        if not silent:
            for token in state.tokens[count:]:  # text pending before it may come first
                if token.type == kind:
                    token.meta.setdefault("offset", start)  # an image in a link has its own
                    break
        return True

    return noted


def _footnote_texts(env: Env) -> Mapping[Any, Any]:
    found = env.get("footnotes")
    return found.get("list", {}) if isinstance(found, dict) else {}


def inline_lines(env: Env, tokens: list[Token]) -> Iterator[tuple[Token, Token, int]]:
    """(child, its block, the source line it starts on) for the children of every token of
    `tokens` that has children, in order. A child without an offset (text, emphasis) gets
    the line of the last one before it that has one, else its block's first line."""
    notes: dict[int, int] = {}  # inline footnote id -> the line of its `^[`
    footnotes = _footnote_texts(env)
    note: int | None = None
    for block in tokens:
        if block.type == "footnote_open":
            note = notes.get((block.meta or {}).get("id", -1))
            continue
        if not block.children:
            continue
        line = token_line(env, block) if block.map or note is None else note
        text, counted = block.content, 0  # the lines before offset `counted` are in `line`
        for child in block.children:
            offset = (child.meta or {}).get("offset")
            if isinstance(offset, int) and 0 <= offset <= len(text):
                if offset >= counted:
                    line += text.count("\n", counted, offset)
                else:  # offsets nearly always grow; count back when one does not
                    line -= text.count("\n", offset, counted)
                counted = offset
                if child.type == "footnote_ref" and "content" in footnotes.get(
                        child.meta.get("id"), {}):
                    notes[child.meta["id"]] = line
            yield child, block, line


def positions_plugin(md: MarkdownIt) -> None:
    """Install after the footnote plugin, before the dispatch plugin."""
    rules = {rule.name: rule.fn for rule in md.inline.ruler.__rules__}
    for name, kind in _NOTED.items():
        if name in rules:
            md.inline.ruler.at(name, _noting(rules[name], kind))
