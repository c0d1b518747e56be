"""`<!--more-->`, the excerpt separator of Jekyll and Hugo: the post's summary ends there.

The `more` core rule turns the comment (`<!--more-->`, `<!-- more -->`, any case) into a
`more` token that renders as nothing. `excerpt(tokens)` then gives the tokens of the body
up to the first marker, as a well-formed whole: a marker inside a paragraph or heading
ends it there (the inline tags open at that point are closed); a marker inside a list,
quote, callout or table ends the summary after that whole block, which is never cut in
half. A marker in code is text, one inside a raw HTML block is that block's own, and one
in a footnote is ignored.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Sequence

from markdown_it import MarkdownIt
from markdown_it.rules_core import StateCore
from markdown_it.token import Token
from markdown_it.utils import OptionsDict

from blogbuild.markdown.env import Env

_MARKER = re.compile(r"<!--\s*more\s*-->\s*", re.IGNORECASE)


def _is_marker(token: Token) -> bool:
    return token.type in ("html_block", "html_inline") and bool(
        _MARKER.fullmatch(token.content))


def more(state: StateCore) -> None:
    if _MARKER.search(state.src) is None:  # most posts: no need to look at the tokens
        return
    state.env["more"] = True
    for token in state.tokens:
        if _is_marker(token):
            token.type, token.content = "more", ""
        elif token.type == "inline" and token.children:
            for child in token.children:
                if _is_marker(child):
                    child.type, child.content = "more", ""


def excerpt(tokens: list[Token]) -> list[Token] | None:
    """The tokens of the summary, or None when the body has no marker (or nothing before
    it). Call after the tokens are final (the title heading taken out), when the `more`
    rule said there may be a marker (`env["more"]`)."""
    for i, token in enumerate(tokens):
        if token.type == "footnote_block_open":  # footnotes come last: not the summary
            return None
        inline = token.type == "inline" and any(c.type == "more" for c in token.children or ())
        if token.type != "more" and not inline:
            continue
        if token.type == "more" and token.level == 0:
            found = tokens[:i]
        elif inline and token.level == 1 and i + 1 < len(tokens):
            found = [*tokens[:i - 1], *_cut_block(tokens[i - 1], token, tokens[i + 1])]
        else:
            found = tokens[:_end_of_top_block(tokens, i) + 1]
        return found or None
    return None


def _cut_block(opening: Token, inline: Token, closing: Token) -> list[Token]:
    """A paragraph or heading that ends at its marker; nothing when no text is before it."""
    children = inline.children or []
    before = children[:next(n for n, c in enumerate(children) if c.type == "more")]
    if not "".join(c.content for c in before).strip() and not any(
            c.nesting == 0 and c.type not in ("text", "softbreak", "hardbreak")
            for c in before):
        return []
    open_tags: list[Token] = []
    for child in before:
        if child.nesting == 1:
            open_tags.append(child)
        elif child.nesting == -1 and open_tags:
            open_tags.pop()
    closers = [Token(t.type.removesuffix("_open") + "_close", t.tag, -1, markup=t.markup)
               for t in reversed(open_tags)]
    cut = copy.copy(inline)
    cut.children = [*before, *closers]
    return [opening, cut, closing]


def _end_of_top_block(tokens: list[Token], start: int) -> int:
    """The index of the closing token of the top-level block that holds tokens[start]."""
    for j in range(start, len(tokens)):
        if tokens[j].level == 0 and tokens[j].nesting == -1:
            return j
    return len(tokens) - 1


def _render_more(self: object, tokens: Sequence[Token], idx: int, options: OptionsDict,
                 env: Env) -> str:
    return ""


def more_plugin(md: MarkdownIt) -> None:
    md.core.ruler.push("more", more)
    md.add_render_rule("more", _render_more)
