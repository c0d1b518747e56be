"""Citations: `[@key]`, `[see @a, p. 3; @b]`, `[-@key]` and `@key` in running text, and the
reference list at the end of the post.

The inline rules only read the syntax and leave `citation` tokens. A core rule then checks
every key against the post's bibliography (`env["bibliography"]`, a
blogbuild.bib.library.Library that the build reads from the .bib files), formats all
citations of the page at once with the CSL style (`env["citation_style"]`; citeproc-py is
loaded only here) and adds the reference list before the footnotes, as tokens, so the
table of contents and the feed see it. Nothing is formatted for a post that cites nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.common.utils import escapeHtml
from markdown_it.rules_core import StateCore
from markdown_it.rules_inline import StateInline
from markdown_it.token import Token
from markdown_it.utils import OptionsDict

from blogbuild.markdown.citations.render import format_page
from blogbuild.markdown.citations.syntax import CiteSyntax, key_of, match_key, parse_bracket
from blogbuild.markdown.env import Env


def bracket_end(src: str, start: int, limit: int) -> int:
    """The index of the `]` that closes the `[` at `start`, or -1."""
    depth = 0
    i = start
    while i < limit:
        char = src[i]
        if char == "\\":
            i += 2
            continue
        if char == "[":
            depth += 1
        elif char == "]":
            depth -= 1
            if depth == 0:
                return i
        elif char == "`":
            return -1  # code in a citation: not a citation (and code stays code)
        i += 1
    return -1


def citation_bracket(state: StateInline, silent: bool) -> bool:
    src, start = state.src, state.pos
    if state.linkLevel > 0 or src[start] != "[" or src.startswith("[^", start) \
            or "@" not in src[start:start + 200]:
        return False
    end = bracket_end(src, start, state.posMax)
    if end < 0 or src[end + 1:end + 2] in ("(", "["):
        return False  # a link ([@a](url)) or a reference-style link
    cites = parse_bracket(src[start + 1:end])
    if cites is None:
        return False
    if not silent:
        _push(state, cites, src[start:end + 1], start, text_mode=False)
    state.pos = end + 1
    return True


def citation_text(state: StateInline, silent: bool) -> bool:
    """`@key` in running text: a citation only when the post's bibliography has the key,
    and not in an e-mail address (`ada@example.com`)."""
    src, start = state.src, state.pos
    if state.linkLevel > 0 or src[start] != "@" or (start > 0 and (src[start - 1].isalnum()
                                            or src[start - 1] in "@-_.+")):
        return False
    library = state.env.get("bibliography")
    found = match_key(src, start + 1)
    if library is None or found is None or found.end() > state.posMax:
        return False
    key = key_of(found.group())
    if key not in library.entries:
        state.env.setdefault("citation_near_misses", []).append((key, start))
        return False
    if not silent:
        _push(state, [CiteSyntax(key)], src[start:found.end()], start, text_mode=True)
    state.pos = found.end()
    return True


def _push(state: StateInline, cites: list[CiteSyntax], raw: str, offset: int, *,
          text_mode: bool) -> None:
    token = state.push("citation", "span", 0)
    token.content = raw
    token.meta = {"cites": cites, "offset": offset, "text_mode": text_mode}


def _render_citation(self: Any, tokens: Sequence[Token], idx: int, options: OptionsDict,
                     env: Env) -> str:
    meta = tokens[idx].meta
    shown = meta.get("feed_html" if env.get("feed") else "html")
    return str(shown) if shown is not None else escapeHtml(tokens[idx].content)


def citations_core(state: StateCore) -> None:
    format_page(state)


def citations_plugin(md: MarkdownIt) -> None:
    """Install after the toc plugin (the reference list's heading gets its TOC entry)."""
    md.inline.ruler.before("link", "citation_bracket", citation_bracket)
    md.inline.ruler.before("text", "citation_text", citation_text)
    md.core.ruler.before("heading_ids", "citations", citations_core)
    md.add_render_rule("citation", _render_citation)


__all__ = ["bracket_end", "citations_plugin"]
