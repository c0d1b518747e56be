"""An HTML tag whose `>` never comes is shown as text, with a warning at its line.

CommonMark starts an HTML block at `<div …` even when the tag never ends, and passes the
block through raw: a browser then reads the Markdown after it (`<p>…`) as more attributes
of the tag, and the text is gone. Inline, `<img src="x" alt="…` with no `>` is shown as
text but nothing says why the picture is missing. Here every tag that reaches the end of
its HTML block or paragraph without `>` gets a warning at its line. Raw HTML passes through
as CommonMark says, but an HTML block that ends inside one of our own widget tags (a
`<div class="video-embed" …`, a `markdown="1"` div: syntax blogbuild reads, not raw HTML)
becomes a paragraph from that tag on, its text shown as written. Scans are linear: each
tag is read once, from its `<` to its `>`.
"""

from __future__ import annotations

import re

from markdown_it import MarkdownIt
from markdown_it.rules_core import StateCore
from markdown_it.token import Token

from blogbuild.markdown.env import report, source_line
from blogbuild.markdown.widgets import KINDS

__all__ = ["tag_end", "unclosed_tag_at", "unclosed_tags_plugin"]

_OPENER = re.compile(r"</?([A-Za-z][A-Za-z0-9-]*)")
#: Elements whose content is text up to their end tag (a `<` there opens no tag).
_RAW_TEXT = frozenset({"script", "style", "textarea", "title"})
#: An attribute with a quoted value after the tag name: what makes `<name …` a tag that
#: an author meant, in a paragraph (`a <b and c` is a comparison, not a tag).
_ATTRIBUTE = re.compile(r"\s+[A-Za-z_:][\w.:-]*\s*=\s*[\"']")
_HTML_BLOCK_FLAG = "unclosed_tag"
#: In an unclosed tag: a class attribute (its value up to the quote or the end) or a
#: `markdown=` attribute, which make it one of the widget divs blogbuild reads.
_CLASS = re.compile(r"\sclass\s*=\s*[\"']?([^\"'>]*)", re.IGNORECASE)
_DIV = re.compile(r"<div\s", re.IGNORECASE)
_MARKDOWN_ATTR = re.compile(r"\smarkdown\s*=", re.IGNORECASE)


def tag_end(text: str, start: int) -> int:
    """The index after the `>` that ends the tag whose attributes start at `start`, or -1
    when the text ends first (in the tag or inside a quoted attribute value)."""
    i, n = start, len(text)
    while i < n:
        c = text[i]
        if c == ">":
            return i + 1
        if c == "=":
            i += 1
            while i < n and text[i] in " \t\n":
                i += 1
            if i < n and text[i] in "\"'":
                close = text.find(text[i], i + 1)
                if close < 0:
                    return -1
                i = close + 1
            continue
        i += 1
    return -1


def unclosed_tag_at(text: str) -> int | None:
    """The index of the `<` of a tag that `text` (raw HTML) ends inside, or None."""
    i = 0
    while True:
        lt = text.find("<", i)
        if lt < 0:
            return None
        if text.startswith("<!--", lt):
            end = text.find("-->", lt + 4)
            if end < 0:
                return None  # an unclosed comment has a warning of its own (limits)
            i = end + 3
            continue
        match = _OPENER.match(text, lt)
        if match is None:
            i = lt + 1
            continue
        end = tag_end(text, match.end())
        if end < 0:
            return lt
        name = match.group(1).lower()
        if name in _RAW_TEXT and not match.group(0).startswith("</"):
            close = re.compile(rf"</{name}(?=[\s/>]|$)", re.IGNORECASE).search(text, end)
            if close is None:
                return None
            end = close.start()
        i = end


def _is_widget_tag(tag: str) -> bool:
    """True for an (unclosed) opening tag that is one of blogbuild's widget divs."""
    if _DIV.match(tag) is None:
        return False
    if _MARKDOWN_ATTR.search(tag):
        return True
    found = _CLASS.search(tag)
    return found is not None and any(name in KINDS for name in found.group(1).split())


def _split_blocks(state: StateCore) -> None:
    """An HTML block that ends inside a widget tag: raw HTML up to the tag, a paragraph from
    it. One that ends inside any other tag passes through raw, with a warning."""
    tokens: list[Token] = []
    for token in state.tokens:
        at = unclosed_tag_at(token.content) if token.type == "html_block" else None
        if at is None or token.map is None:
            tokens.append(token)
            continue
        before, rest = token.content[:at], token.content[at:]
        if not _is_widget_tag(rest):
            tokens.append(token)
            match = _OPENER.match(rest)
            assert match is not None  # unclosed_tag_at found an opener there
            line = source_line(state.env, token.map[0] + before.count("\n"))
            report(state.env, line,
                   f"this HTML tag {match.group(0)} is never closed with '>': a browser reads "
                   "the text after it as part of the tag, and readers never see it; close it "
                   "with '>'")
            continue
        first = token.map[0] + before.count("\n")
        if before.strip():
            token.content = before
            token.map = [token.map[0], first + (0 if before.endswith("\n") else 1)]
            tokens.append(token)
        lines = [first, first + rest.rstrip("\n").count("\n") + 1]
        opened = Token("paragraph_open", "p", 1, map=lines, level=token.level, block=True)
        inline = Token("inline", "", 0, map=lines, level=token.level + 1,
                       content=rest.rstrip("\n"), children=[], block=True)
        inline.meta[_HTML_BLOCK_FLAG] = True
        closed = Token("paragraph_close", "p", -1, level=token.level, block=True)
        tokens += [opened, inline, closed]
    state.tokens = tokens


def _warn(state: StateCore) -> None:
    """A warning for the first tag in each paragraph that is never closed with `>`."""
    for token in state.tokens:
        if token.type != "inline" or token.map is None or "<" not in token.content:
            continue
        content = token.content
        shown = {m.group(0).lower() for child in token.children or ()
                 if child.type == "text" for m in _OPENER.finditer(child.content)}
        if not shown:
            continue
        if token.meta.get(_HTML_BLOCK_FLAG):  # the tag an HTML block ended in
            match = _OPENER.match(content)
            if match is not None:
                _report(state, token, match)
            continue
        # A tag that reaches the end of the paragraph has no `>` after it (but one inside
        # a quoted value): only openers after the last `>` are read, each once.
        for match in _OPENER.finditer(content, content.rfind(">") + 1):
            if match.group(0).startswith("</") or match.group(0).lower() not in shown:
                continue
            if not _ATTRIBUTE.match(content, match.end()):
                continue
            if tag_end(content, match.end()) >= 0:
                continue
            _report(state, token, match)
            break


def _report(state: StateCore, token: Token, match: re.Match[str]) -> None:
    assert token.map is not None
    content = token.content
    line = source_line(state.env, token.map[0] + content.count("\n", 0, match.start()))
    report(state.env, line,
           f"this HTML tag {match.group(0)} is never closed with '>', so it is shown as "
           "text; close it with '>' (or write \\< for a '<' that opens no tag)")


def unclosed_tags_plugin(md: MarkdownIt) -> None:
    md.core.ruler.after("block", "unclosed_tag_blocks", _split_blocks)
    md.core.ruler.after("inline", "unclosed_tag_warnings", _warn)
