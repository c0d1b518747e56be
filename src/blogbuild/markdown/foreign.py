"""Warnings for what other generators' Markdown holds and blogbuild does not run.

Liquid tags and output (Jekyll), Hugo shortcodes, pymdownx snippets and kramdown extensions
stay in the page as the author wrote them, and each gets a warning with its line that names it
and says what to write instead (advice: foreign_advice.py). The text searched is what the page
shows as text: paragraphs, headings, table cells, link targets and raw HTML blocks; code
spans, code blocks, math and `<pre>` / `<script>` blocks are not. (MkDocs content tabs are
read: blogbuild.markdown.tabs.)

MkDocs' `[TOC]` paragraph is dropped instead: every page has its own table of contents.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from urllib.parse import unquote

from markdown_it import MarkdownIt
from markdown_it.rules_core import StateCore
from markdown_it.token import Token

from blogbuild.markdown.env import report, source_line
from blogbuild.markdown.foreign_advice import advice

__all__ = ["foreign_plugin"]

MAX_PER_FILE = 10  # more than this in one file is one summary line, not a flood

_FOUND = re.compile(
    r"(?P<hugo>\{\{[<%])"
    r"|(?P<liquid_tag>\{%-?[ \t]*(?P<tag>\w+)(?P<targs>[^\n%]{0,200})%\})"
    r"|(?P<liquid_out>\{\{-?[ \t]*(?P<expr>[^\s{}][^\n{}]{0,200}?)[ \t]*-?\}\})"
    r"|(?P<kramdown_ext>\{::(?P<ext>\w+))"
    r"|(?P<kramdown_ald>^\{:[\w-]+:)"
    r"|(?P<kramdown_span>\{:[ \t]*[.#][^}\n]{0,200}\})"
    r"|(?P<fenced_div>^:::+[ \t]*[{\w])"
    r"|(?P<snippet>-{1,2}8<-{1,2})",
    re.MULTILINE,
)
#: What every construct above starts with: a post with none of these is not walked.
_MAYBE = re.compile(r"\{[{%:]|^[ \t]*:::|8<", re.MULTILINE)
_HUGO = re.compile(r"\{\{([<%])[ \t]*(/?)[ \t]*(/\*)?[ \t]*([\w./-]{0,100})([^\n]{0,300}?)[%>]\}\}")
_END_RAW = re.compile(r"\{%-?[ \t]*endraw\b")
_NOT_OPENING = re.compile(r"(?:end\w*|else|elsif|when)$")
_HIDDEN = "\x00"  # stands for text the page does not show as text (code, math)
_CODE_HTML = re.compile(r"<(?:pre|script|style|textarea)\b", re.IGNORECASE)


def _shown_text(children: list[Token]) -> str:
    """The text of an inline token as the page shows it, one "\\n" per source line break."""
    parts = []
    for child in children:
        if child.type in ("text", "html_inline"):
            parts.append(child.content)
        elif child.type in ("softbreak", "hardbreak"):
            parts.append("\n")
        elif child.type in ("link_open", "image"):
            target = child.attrGet("href") or child.attrGet("src") or ""
            parts.append(f"{_HIDDEN}{unquote(str(target))}{_HIDDEN}")
            parts.append(_shown_text(child.children or []))
        elif child.children:
            parts.append(_shown_text(child.children))
        else:
            parts.append(_HIDDEN)
    return "".join(parts)


def _texts(tokens: list[Token]) -> Iterator[tuple[int, str]]:
    """(first body line, text) of every block whose text a reader sees."""
    for token in tokens:
        if not token.map:
            continue
        if token.type == "inline":
            yield token.map[0], _shown_text(token.children or [])
        elif token.type == "html_block" and not _CODE_HTML.match(token.content.lstrip()):
            yield token.map[0], token.content


def _finding(match: re.Match[str], text: str) -> str | None:
    """The warning for one match, or None when it is not an opening (`{% endraw %}`)."""
    kind = match.lastgroup or ""
    if match.group("hugo"):
        hugo = _HUGO.match(text, match.start())
        if hugo is None:
            return advice("hugo", "", "")
        if hugo.group(2) or hugo.group(3):
            return None  # a closing shortcode, or Hugo's escaped `{{</* … */>}}`
        return advice("hugo", hugo.group(4), hugo.group(5).strip(" /"), delimiter=hugo.group(1))
    if match.group("liquid_tag"):
        tag = match.group("tag")
        return None if _NOT_OPENING.match(tag) else advice("liquid_tag", tag, match["targs"])
    if match.group("liquid_out"):
        return advice("liquid_out", "", match.group("expr"))
    if match.group("kramdown_ext"):
        return None if match.group("ext") == "comment" else advice("kramdown_ext",
                                                                   match.group("ext"), "")
    if match.group("kramdown_ald"):
        return advice("kramdown_ald", "", "")
    return advice(kind, "", "")


def _scan(text: str, *, quarto: bool = False) -> Iterator[tuple[int, str]]:
    """(offset, warning) of each construct; what `{% raw %}` wraps is the author's text.
    On a Quarto page (`quarto`) a `:::` line is no other generator's."""
    match = _FOUND.search(text)
    while match is not None:
        message = None if quarto and match.group("fenced_div") else _finding(match, text)
        if message is not None:
            yield match.start(), message
        end = match.end()
        if match.group("tag") == "raw":
            closing = _END_RAW.search(text, end)
            end = closing.end() if closing else len(text)
        match = _FOUND.search(text, end)


def foreign_syntax(state: StateCore) -> None:
    if not _MAYBE.search(state.src):
        return
    env = state.env
    found: list[tuple[int, str]] = []
    quarto = env.get("quarto") is not None  # Pandoc's `:::` divs are its own there
    for line, text in _texts(state.tokens):
        counted = 0
        for offset, message in _scan(text, quarto=quarto):  # offsets ascend: count each
            line += text.count("\n", counted, offset)  # line break once
            counted = offset
            found.append((line, message))
    found.sort(key=lambda item: item[0])
    for line, message in found[:MAX_PER_FILE]:
        report(env, source_line(env, line), message)
    if len(found) > MAX_PER_FILE:
        line = found[MAX_PER_FILE][0]
        report(env, source_line(env, line), f"and {len(found) - MAX_PER_FILE} more constructs "
               "of other generators in this file from here on, not listed one by one")


def toc_markers(state: StateCore) -> None:
    """Drop MkDocs' `[TOC]` paragraph: the page's table of contents is already there."""
    tokens = state.tokens
    keep: list[Token] = []
    i = 0
    while i < len(tokens):
        if (tokens[i].type == "paragraph_open" and i + 2 < len(tokens)
                and tokens[i + 1].content.strip() == "[TOC]"
                and [c.type for c in tokens[i + 1].children or []] == ["text"]):
            i += 3
            continue
        keep.append(tokens[i])
        i += 1
    state.tokens = keep


def foreign_plugin(md: MarkdownIt) -> None:
    """Warn about other generators' syntax that stays as text; drop the `[TOC]` marker."""
    md.core.ruler.after("inline", "toc_markers", toc_markers)
    md.core.ruler.after("toc_markers", "foreign_syntax", foreign_syntax)
