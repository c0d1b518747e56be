"""What a citation says: `[see @key, p. 3; @other]`, `@key`, `[-@key]` (Pandoc's syntax).

Pure text work, no tokens: the inline rules (blogbuild.markdown.citations) call these.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

#: A key: starts with a letter, digit or _, and may hold :.#$%&-+?<>~/ between word
#: characters (so a sentence's final period is not part of it); `@{any key}` for others.
KEY = r"(?:[^\W][\w]*(?:[:.#$%&\-+?<>~/][\w]+)*|\{[^{}\s]+\})"
_ITEM = re.compile(rf"(?P<prefix>(?:.*?\s)?)(?P<minus>-?)@(?P<key>{KEY})(?P<rest>(?:[,\s].*)?)",
                   re.DOTALL)
_KEY = re.compile(KEY)
#: Locator labels as authors write them -> CSL's locator names.
LABELS = {
    "p": "page", "pp": "page", "page": "page", "pages": "page",
    "ch": "chapter", "chap": "chapter", "chapter": "chapter", "chapters": "chapter",
    "sec": "section", "secs": "section", "section": "section", "sections": "section",
    "§": "section", "§§": "section", "fig": "figure", "figs": "figure", "figure": "figure",
    "figures": "figure", "vol": "volume", "vols": "volume", "volume": "volume",
    "para": "paragraph", "paragraph": "paragraph", "¶": "paragraph", "l": "line",
    "ll": "line", "line": "line", "lines": "line", "n": "note", "nn": "note", "note": "note",
    "col": "column", "column": "column", "no": "issue", "pt": "part", "part": "part",
    "bk": "book", "book": "book", "eq": "equation", "v": "verse", "vv": "verse",
}
_LOCATOR = re.compile(r"\s*(?:(?P<label>[^\W\d]+|§§?|¶)\.?\s*)?"
                      r"(?P<value>[\dIVXLCDMivxlcdm]+(?:\s*[-–,]\s*[\dIVXLCDMivxlcdm]+)*)"
                      r"(?P<suffix>(?:\s.*)?)$", re.DOTALL)


@dataclass(frozen=True)
class CiteSyntax:
    """One key of a citation as written: in `[see @key, p. 3]`, the prefix `see`, the key and
    the locator `p. 3`."""

    key: str
    prefix: str = ""
    #: (CSL label, value, as written): ("page", "3", "p. 3")
    locator: tuple[str, str, str] | None = None
    suffix: str = ""
    suppress_author: bool = False


def key_of(written: str) -> str:
    return written[1:-1] if written.startswith("{") else written


def parse_bracket(content: str) -> list[CiteSyntax] | None:
    """The works of `[…]`'s content, or None when it is not a citation."""
    cites = []
    for part in content.split(";"):
        match = _ITEM.fullmatch(part.strip())
        if match is None or re.search(rf"(?:^|\s)-?@{KEY}", match.group("prefix")):
            return None
        locator, suffix = parse_rest(match.group("rest"))
        cites.append(CiteSyntax(key_of(match.group("key")), match.group("prefix").strip(),
                                locator, suffix, match.group("minus") == "-"))
    return cites


def parse_rest(rest: str) -> tuple[tuple[str, str, str] | None, str]:
    """The locator and suffix after a key: `, p. 3 and passim` or ` and passim`."""
    rest = rest.strip()
    if not rest.startswith(","):
        return None, rest
    rest = rest[1:].strip()
    match = _LOCATOR.match(rest)
    label = (match.group("label") or "").lower() if match is not None else ""
    if match is None or (label and label not in LABELS):
        return None, ", " + rest  # "Thm. 1": a suffix after a comma keeps the comma
    written = rest[:match.end("value")].strip()
    return (LABELS.get(label, "page"), match.group("value"), written), \
        match.group("suffix").strip()


def match_key(text: str, pos: int) -> re.Match[str] | None:
    return _KEY.match(text, pos)
