"""Where a post will look different on GitHub or in Obsidian than on the built site.

Authors keep posts in a repository and an Obsidian vault as well; each finding names the
renderer, what it will show, and a way to write the thing that all three read alike. The
post is read as CommonMark tokens (with `.map` for lines), not searched with patterns, so
code spans and code blocks never count.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path

from markdown_it import MarkdownIt
from markdown_it.token import Token

from blogbuild.check import Finding
from blogbuild.content.frontmatter import split_front_matter
from blogbuild.diagnostics import BlogbuildError
from blogbuild.markdown.widgets import KINDS as WIDGETS
from blogbuild.sourcetext import decode_source

#: The only alert types GitHub renders; it takes no title and no fold marker.
GITHUB_ALERTS = frozenset({"NOTE", "TIP", "IMPORTANT", "WARNING", "CAUTION"})
_MARKER = re.compile(r"\[!([^\W\d][\w-]*)\]([+-]?)[ \t]*(.*)")
#: A price: `$` and a number that ends the word (`$5`, `$1,200.50,`); `$2x$` or `$0$` is math.
_CURRENCY = re.compile(r"\$\d[\d,.]*(?![\w$^_{}\\/*+=.,-])")
_DOLLAR = re.compile(r"\$")
_INLINE_DISPLAY = re.compile(r"\$\$(?=\S).*?\$\$", re.DOTALL)
_PAREN_MATH = re.compile(r"\\\\?\((?=\S).*?\\\\?\)|\\\\?\[.*?\\\\?\]", re.DOTALL)
_ATTRS = re.compile(r"\{:?[ \t]*[#.][\w-][^{}\n]*\}[ \t]*$", re.MULTILINE)
_DOUBLE_DOLLAR = "'$$…$$' inside a paragraph"
_WIKI = re.compile(r"!?\[\[[^\[\]\n]+\]\]")
#: Stands for an escaped character (`\$`) in the text that is searched.
_ESCAPED = "\x00"


#: Sources below this many are linted in the check's own process.
LINT_POOL_MIN = 200


def lint_all(sources: list[tuple[Path, str]], jobs: int, *, double_inline: bool = True,
             ) -> list[Finding]:
    """The findings of every (path, display name), by `jobs` processes. `double_inline`:
    the site reads `$$…$$` beside text as inline math (`math.inline_double_dollar`)."""
    from blogbuild.pool import run_jobs

    found: list[Finding] = []
    items = [(path, display, double_inline) for path, display in sources]
    for findings in run_jobs(items, _lint_one, _no_setup, (), jobs=jobs,
                             minimum=LINT_POOL_MIN):
        found += findings
    return found


def _no_setup() -> None:
    """Workers need no state: the parser is made on first use."""


def _lint_one(source: tuple[Path, str, bool]) -> list[Finding]:
    path, display, double_inline = source
    return lint(path, display, double_inline=double_inline)


def lint(path: Path, display: str, *, double_inline: bool = True) -> list[Finding]:
    """The portability findings of one Markdown file (none when it cannot be read)."""
    try:
        text = decode_source(path.read_bytes(), display).replace("\r\n", "\n")
        front = split_front_matter(text, display)
    except (OSError, BlogbuildError):
        return []  # the build reports it
    tokens = _parser().parse(front.body)
    offset = front.body_line_offset
    return [Finding(display, line + offset, 0, "warning", "portability", message, target)
            for line, message, target in _findings(tokens)
            if double_inline or not message.startswith(_DOUBLE_DOLLAR)]


@functools.cache
def _parser() -> MarkdownIt:
    """Plain CommonMark, as GitHub and Obsidian start from; escapes kept apart (`\\$` is
    no dollar sign)."""
    return MarkdownIt("commonmark").disable("text_join")


def _findings(tokens: list[Token]) -> Iterator[tuple[int, str, str]]:
    for i, token in enumerate(tokens):
        if token.map is None:
            continue
        line = token.map[0] + 1
        if token.type == "blockquote_open" and i + 2 < len(tokens) \
                and tokens[i + 2].type == "inline":
            yield from _callout(tokens[i + 2], line)
        elif token.type == "inline":
            yield from _inline(token, line)
        elif token.type == "html_block":
            yield from _html_block(token, line)


def _callout(inline: Token, line: int) -> Iterator[tuple[int, str, str]]:
    first = inline.content.split("\n", 1)[0]
    found = _MARKER.match(first)
    if found is None:
        return
    name, fold, title = found.groups()
    fix = ("write one of GitHub's types alone on the line ('> [!NOTE]'), or accept the "
           "plain quote there")
    if name.upper() not in GITHUB_ALERTS:
        yield (line, f"GitHub knows no callout type [!{name}]: it shows a plain quote that "
               f"starts with the text '{first.strip()}'; {fix}", first.strip())
    elif fold or title:
        what = "a fold marker" if fold and not title else "a title" if title and not fold \
            else "a fold marker and a title"
        yield (line, f"GitHub reads no callout with {what}: it shows a plain quote that "
               f"starts with the text '{first.strip()}'; for GitHub write '> [!{name.upper()}]' "
               f"alone on the line and put the title in bold on the next", first.strip())


def _searchable(inline: Token) -> tuple[str, str]:
    """The inline's text with code spans blanked and escapes marked, and with escapes
    kept as written (for `\\(` math): line breaks stay, so lines can be counted."""
    plain, written = [], []
    for child in inline.children or []:
        if child.type == "text":
            plain.append(child.content)
            written.append(child.content)
        elif child.type == "text_special":
            plain.append(_ESCAPED)
            written.append(child.markup or child.content)
        elif child.type in ("softbreak", "hardbreak"):
            plain.append("\n")
            written.append("\n")
        else:
            blank = "\n" * child.content.count("\n") + " "
            plain.append(blank)
            written.append(blank)
    return "".join(plain), "".join(written)


def _inline(inline: Token, line: int) -> Iterator[tuple[int, str, str]]:
    plain, written = _searchable(inline)

    def at(text: str, index: int) -> int:
        return line + text.count("\n", 0, index)

    currency = list(_CURRENCY.finditer(plain))
    if currency and len(_DOLLAR.findall(plain)) >= 2:
        where = currency[0].start()
        yield (at(plain, where), "GitHub and Obsidian may read the text between two '$' "
               "signs in this paragraph as a formula (here a price); write '\\$' for a "
               "dollar sign, which all three show as '$'", plain[where:where + 8].strip())
    for found in _INLINE_DISPLAY.finditer(plain):
        if plain[:found.start()].strip() or plain[found.end():].strip():
            yield (at(plain, found.start()), f"{_DOUBLE_DOLLAR} is display math "
                   "(a centred block) on GitHub and in Obsidian, inline here; write $…$ for "
                   "inline math, or put $$ on lines of their own for a block", found.group())
    for found in _PAREN_MATH.finditer(written):
        yield (at(written, found.start()), "GitHub and Obsidian do not read \\(…\\) or "
               "\\[…\\] as math: they show the formula as text with its brackets; write "
               "$…$ (inline) or $$…$$ on lines of their own (display)", found.group())
    for found in _ATTRS.finditer(plain):
        yield (at(plain, found.start()), f"GitHub and Obsidian show the attribute list "
               f"'{found.group().strip()}' as text; link to the heading's own id instead, or "
               "write the element in HTML (<h2 id=\"…\">, <p class=\"…\">)", found.group().strip())
    for found in _WIKI.finditer(plain):
        yield (at(plain, found.start()), f"GitHub shows the wiki link {found.group()} as "
               "text; write a Markdown link, [text](other-post.md) or ![alt](image.png), "
               "which Obsidian reads too", found.group())


class _FirstTag(HTMLParser):
    """The first start tag of an HTML block, with its attributes."""

    def __init__(self) -> None:
        super().__init__()
        self.tag: tuple[str, dict[str, str]] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if self.tag is None:
            self.tag = (tag, {k: v or "" for k, v in attrs})


def _html_block(token: Token, line: int) -> Iterator[tuple[int, str, str]]:
    first, _, rest = token.content.partition("\n")
    reader = _FirstTag()
    reader.feed(first)
    reader.close()
    if reader.tag is None:
        return
    tag, attrs = reader.tag
    classes = set(attrs.get("class", "").split())
    widget = sorted(classes & set(WIDGETS))
    markdown = "markdown" in attrs or bool(widget)
    inner = [t for t in rest.split("\n") if t.strip()]
    if markdown and inner and not inner[0].lstrip().startswith("<"):
        yield (line, f"GitHub and Obsidian end an HTML block only at a blank line: the "
               f"Markdown right after <{tag}> shows there as raw text; put a blank line after "
               f"the opening tag and another before </{tag}>", first.strip())
    if tag == "div" and widget:
        yield (line, f"GitHub strips the class of <div class=\"{widget[0]}\"> (and any "
               "script or iframe): the widget shows there as its bare content, or as nothing; "
               "add a plain link or image after the div for readers there", first.strip())
