"""The text of a render's tokens: plain text for summaries and titles, the words a
reading time counts, and the ids a `#fragment` link can reach in the page's HTML."""

from __future__ import annotations

import html as html_lib
import re

from markdown_it.token import Token

from blogbuild.content.records import shorten

WORD = re.compile(r"\w+(?:[-'’]\w+)*")
#: For ASCII text, WORD's matches are the runs of word characters less the joints: a
#: hyphen or apostrophe between two word characters makes two runs one word.
_NOT_WORD = str.maketrans({c: " " for c in range(128) if not re.match(r"\w", chr(c))})
_JOINT = re.compile(r"[-'’](?<=\w.)(?=\w)")
# Targets a `#fragment` can reach: id attributes of any element (headings, footnotes,
# equations, raw HTML) and the legacy <a name>. Only read, to check links; nothing is rewritten.
ANCHOR = re.compile(
    r"""\s(?:id|(?<=<a\s)name)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'<>=`]+))""",
    re.IGNORECASE,
)
#: Every "=" an ANCHOR match can hold: after "id", after "name" or after a space (the
#: letters are what IGNORECASE matches: "i" matches "ı" and "İ" too). Searching for these
#: is several times faster than trying ANCHOR after every space of the page.
_ANCHOR_EQUALS = re.compile(r"=(?<=[dDeE\s]=)(?:(?<=[iIıİ][dD]=)|(?<=[mM][eE]=)|(?<=\s=))")
SUMMARY_CHARS = 220
_TEXT_KINDS = ("text", "code_inline", "math_inline", "math_inline_double")


def plain(children: list[Token], *, math: bool = True) -> str:
    """The text of inline tokens; formulas as their TeX source unless `math` is false."""
    kinds = _TEXT_KINDS if math else _TEXT_KINDS[:2]
    out = []
    for child in children:
        if child.type in kinds:
            out.append(child.content)
        elif child.type in ("softbreak", "hardbreak"):
            out.append(" ")
        elif child.children:
            out.append(plain(child.children, math=math))
    return "".join(out)


def summary(tokens: list[Token]) -> str:
    for i, token in enumerate(tokens):
        if token.type == "paragraph_open" and token.level == 0 and i + 1 < len(tokens):
            text = " ".join(plain(tokens[i + 1].children or []).split())
            if text:
                return shorten(text, SUMMARY_CHARS)
    return ""


def excerpt_text(tokens: list[Token]) -> str:
    """The plain text of the summary the author cut with `<!--more-->`."""
    text = " ".join(plain(t.children or []) for t in tokens if t.type == "inline")
    return shorten(" ".join(text.split()), SUMMARY_CHARS)


def word_count(tokens: list[Token]) -> int:
    """Words a reader reads, for the reading time: the prose's, and half of the code's (code
    is skimmed, not read word by word); math and raw HTML are not words."""
    prose: list[str] = []
    code: list[str] = []
    for token in tokens:
        if token.type == "inline":
            prose.append(plain(token.children or [], math=False))
        elif token.type in ("fence", "code_block"):
            code.append(token.content)
    return _words(prose) + _words(code) // 2


def _words(texts: list[str]) -> int:
    """WORD's matches in `texts`. They are joined by spaces (no word spans two), and ASCII
    ones, most of them, are counted without a regex per character."""
    ascii_text = " ".join(t for t in texts if t.isascii())
    runs = len(ascii_text.translate(_NOT_WORD).split())
    other = " ".join(t for t in texts if not t.isascii())
    return runs - len(_JOINT.findall(ascii_text)) + len(WORD.findall(other))


def anchors_of(html: str) -> frozenset[str]:
    """The fragment targets of a page body (unescaped, as a browser compares them).

    What `ANCHOR.finditer` finds, found from the few "=" a match can hold: from each,
    back over the spaces before it to where the match would start, and `ANCHOR` tried
    there. Matches do not overlap, and one that would start inside the last is skipped.
    """
    found = set()
    end = 0  # where the last match ended
    for equals in _ANCHOR_EQUALS.finditer(html):
        name_end = equals.start()
        while name_end > end and html[name_end - 1].isspace():  # \s is str.isspace()
            name_end -= 1
        for start in (name_end - 3, name_end - 5):  # before " id", before " name"
            match = ANCHOR.match(html, start) if start >= end else None
            if match is not None:
                found.add(html_lib.unescape(next(g for g in match.groups() if g is not None)))
                end = match.end()
                break
    return frozenset(found)
