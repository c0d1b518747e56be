"""A BibTeX entry as the CSL data citeproc-py formats (imported only when a post cites).

Names are split by BibTeX's rules (citeproc-py's own functions), every value goes through
`blogbuild.bib.latex`, and a title keeps the words its braces protect from case changes.
"""

from __future__ import annotations

import re
from typing import Any

from citeproc import types
from citeproc.source import Date, Name, Reference
from citeproc.source.bibtex.bibtex import parse_name, split_names
from citeproc.string import MixedString, NoCase, String

from blogbuild.bib.bibtex import Entry
from blogbuild.bib.latex import pieces, to_text
from blogbuild.bib.marks import DOI, LINK_END, URL, clean

TYPES = {
    "article": types.ARTICLE_JOURNAL, "book": types.BOOK, "booklet": types.PAMPHLET,
    "conference": types.PAPER_CONFERENCE, "inbook": types.CHAPTER,
    "incollection": types.CHAPTER, "inproceedings": types.PAPER_CONFERENCE,
    "manual": types.BOOK, "mastersthesis": types.THESIS, "phdthesis": types.THESIS,
    "thesis": types.THESIS, "proceedings": types.BOOK, "techreport": types.REPORT,
    "report": types.REPORT, "unpublished": types.MANUSCRIPT, "online": types.WEBPAGE,
    "electronic": types.WEBPAGE, "www": types.WEBPAGE, "software": types.ARTICLE,
    "misc": types.ARTICLE,
}
#: BibTeX field -> CSL variable, for the fields read as text.
FIELDS = {
    "address": "publisher_place", "booktitle": "container_title", "chapter":
    "chapter_number", "edition": "edition", "journal": "container_title", "journaltitle":
    "container_title", "note": "note", "number": "issue", "publisher": "publisher",
    "institution": "publisher", "school": "publisher", "organization": "publisher",
    "series": "collection_title", "title": "title", "volume": "volume", "isbn": "ISBN",
    "issn": "ISSN", "howpublished": "medium", "location": "publisher_place",
}
_TITLES = frozenset({"title", "booktitle", "journal", "journaltitle", "series"})
_DOI_PREFIX = re.compile(r"^\s*(?:https?://(?:dx\.)?doi\.org/|doi:\s*)", re.IGNORECASE)


def reference_of(entry: Entry, key: str) -> Reference:
    """The CSL reference of `entry`, under `key`."""
    data: dict[str, Any] = {}
    fields = entry.fields
    for name, value in fields.items():
        if name in ("author", "editor"):
            found = _names(value)
            if found:
                data[name] = found
        elif name in _TITLES:
            data[FIELDS[name]] = _title(value)
        elif name == "pages":
            pages = value.replace(" ", "").replace("---", "-").replace("--", "-")
            data["page"] = clean(to_text(pages))
        elif name == "doi":
            doi = _DOI_PREFIX.sub("", clean(to_text(value)))
            if doi:
                data["DOI"] = DOI + doi + LINK_END
        elif name == "url":
            url = clean(to_text(value)).replace(" ", "")
            if url:
                data["URL"] = URL + url + LINK_END
        elif name in FIELDS:
            text = clean(to_text(value))
            data[FIELDS[name]] = int(text) if name in ("volume", "number") and \
                text.isdigit() else String(text)
    issued = _date(fields.get("year", ""), fields.get("month", ""))
    if issued is not None:
        data["issued"] = issued
    return Reference(key, TYPES.get(entry.kind, types.ARTICLE), **data)


def _names(value: str) -> list[Name]:
    """The people of an author or editor field; BibTeX's "and others" is left out (the
    styles shorten long lists with "et al." themselves)."""
    out = []
    for written in split_names(" ".join(value.split())):
        if written.strip().lower() == "others":
            continue
        first, von, last, jr = parse_name(written)
        parts = {label: clean(to_text(part)) for part, label in (
            (first, "given"), (von, "non-dropping-particle"), (last, "family"),
            (jr, "suffix")) if part}
        if parts.get("family") or parts.get("given"):
            out.append(Name(**parts))
    return out


def _title(value: str) -> MixedString:
    """The words of a title; a word with a protected part is left as it is written."""
    out = MixedString()
    word: list[str] = []
    protected = False
    for text, locked in pieces(value):
        for char in clean(text):
            if char.isspace():
                if word:
                    out += _word("".join(word), protected) + String(" ")
                word, protected = [], False
            else:
                word.append(char)
                protected = protected or locked
    if word:
        out += _word("".join(word), protected)
    return out


def _word(text: str, protected: bool) -> String:
    import unicodedata

    text = unicodedata.normalize("NFC", text)
    return NoCase(text) if protected else String(text)


def _date(year: str, month: str) -> Date | None:
    year_text = to_text(year)
    if not year_text.isdigit():
        return None
    parts: dict[str, int] = {"year": int(year_text)}
    month_text = to_text(month).lower()[:3]
    names = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov",
             "dec")
    if month_text.isdigit() and 1 <= int(month_text) <= 12:
        parts["month"] = int(month_text)
    elif month_text in names:
        parts["month"] = names.index(month_text) + 1
    return Date(**parts)
