"""Citations and reference lists formatted by a CSL style (citeproc-py), as safe HTML.

citeproc-py writes reference data into its output as it is, and its HTML formatter
escapes only the style's own words. So the formatter here writes no HTML at all: it wraps
italics, links and each cited work in private-use characters, the input's own are removed
first, and `to_html` escapes the whole text once and turns the marks into tags.
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from blogbuild.bib.bibtex import Entry
from blogbuild.bib.marks import CLOSE, ITEM, ITEM_END, OPEN, clean, to_html

VENDOR = Path(__file__).resolve().parent.parent / "vendor" / "csl"
#: The styles a site names by a word; anything else is a path to a .csl file.
STYLES = {"author-year": VENDOR / "author-year.csl", "numeric": VENDOR / "numeric.csl"}


@dataclass(frozen=True)
class Cite:
    """One work of a citation: `[see @key, p. 3]`."""

    key: str
    prefix: str = ""
    locator: tuple[str, str] | None = None  # (CSL label, value): ("page", "3")
    suffix: str = ""
    locator_text: bool = False  # the suffix starts with a locator ("ch. 2"): after a comma


@dataclass(frozen=True)
class Formatted:
    """A post's citations and bibliography as a citation style formats them."""

    clusters: list[str]  # HTML of each citation, in the order given
    plain_clusters: list[str]  # the same without links (feeds)
    numbers: dict[str, int]  # key -> its number in the list (order of first citation)
    entries: list[tuple[str, str]]  # (key, HTML of its entry), in the style's order
    numeric: bool


class _Formatter:
    """citeproc-py's formatter interface, writing marks instead of HTML."""

    @staticmethod
    def preformat(text: Any) -> str:
        return str(text)

    @staticmethod
    def _wrapper(tag: str) -> type[str]:
        class Wrapped(str):
            def __new__(cls, text: Any) -> Wrapped:
                return str.__new__(cls, OPEN[tag] + str(text) + CLOSE[tag])
        return Wrapped


for _name, _tag in (("Italic", "em"), ("Oblique", "em"), ("Bold", "strong"),
                    ("Light", ""), ("Underline", ""), ("Superscript", "sup"),
                    ("Subscript", "sub"), ("SmallCaps", "smallcaps")):
    setattr(_Formatter, _name, _Formatter._wrapper(_tag))


@functools.lru_cache(maxsize=8)
def load_style(name: str) -> Any:
    """The CSL style `name` ("author-year", "numeric" or a .csl path), parsed once."""
    from citeproc import CitationStylesStyle

    path = STYLES.get(name, Path(name))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        style = CitationStylesStyle(str(path), locale="en-US", validate=False)
    if name == "numeric":
        _one_bracket_pair(style)
    _unnumbered_entries(style)
    return style


def _unnumbered_entries(style: Any) -> None:
    """A numbered list shows the numbers itself (`<ol>`): an entry's own leading "[1]"
    goes (styles that set it apart with `second-field-align`)."""
    bibliography = style.root.bibliography
    if bibliography is None or not bibliography.get("second-field-align"):
        return
    first = next(iter(bibliography.layout.iterchildren()), None)
    if first is not None and first.get("variable") == "citation-number":
        bibliography.layout.remove(first)


def _one_bracket_pair(style: Any) -> None:
    """IEEE writes [1], [2]; the numeric style writes [1, 2]: the brackets move from each
    work to the whole citation."""
    layout = style.root.citation.layout
    group = next(iter(layout.iterchildren()), None)
    if group is not None and group.get("prefix") == "[":
        del group.attrib["prefix"], group.attrib["suffix"]
        layout.set("prefix", "[")
        layout.set("suffix", "]")


def is_numeric(style: Any) -> bool:
    return bool(style.root.get("class") == "in-text" and
                "citation-number" in _citation_variables(style))


def _citation_variables(style: Any) -> set[str]:
    return {str(e.get("variable")) for e in style.root.citation.iter()
            if e.get("variable") is not None}


def format_citations(style_name: str, entries: dict[str, Entry],
                     clusters: Sequence[Sequence[Cite]]) -> Formatted:
    """Every citation of a page and its reference list; each cited key is in `entries`."""
    from citeproc import (
        Citation,
        CitationItem,
        CitationStylesBibliography,
        Locator,
    )
    from citeproc.source import BibliographySource

    from blogbuild.bib.csl import reference_of

    style = load_style(style_name)
    source = BibliographySource()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # citeproc-py warns about fields it does not use
        for key in dict.fromkeys(c.key for cluster in clusters for c in cluster):
            source.add(reference_of(entries[key], key.lower()))
        bibliography = CitationStylesBibliography(style, source, _Formatter)
        citations = []
        for cluster in clusters:
            items = []
            for n, cite in enumerate(cluster):
                extra: dict[str, Any] = {
                    "prefix": (clean(cite.prefix) + " " if cite.prefix else "") + ITEM(n),
                    "suffix": ITEM_END + _suffix(cite)}
                if cite.locator is not None:
                    extra["locator"] = Locator(cite.locator[0], clean(cite.locator[1]))
                items.append(CitationItem(cite.key, **extra))
            citation = Citation(items)
            bibliography.register(citation)
            citations.append(citation)
        bibliography.sort()
        raw = [str(bibliography.cite(c, _never)) for c in citations]
        numbers = {item.key: n for n, item in enumerate(bibliography.items, 1)}
        keys = {key.lower(): key for cluster in clusters for key in (c.key for c in cluster)}
        listed = [(keys[item.key], str(style.render_bibliography([item])[0]))
                  for item in bibliography.items]
    return Formatted(
        clusters=[to_html(text, [c.key for c in cluster]) for text, cluster
                  in zip(raw, clusters, strict=True)],
        plain_clusters=[to_html(text, [], links=False) for text in raw],
        numbers={keys[k]: n for k, n in numbers.items()},
        entries=[(key, to_html(text, [])) for key, text in listed],
        numeric=is_numeric(style))


def _suffix(cite: Cite) -> str:
    if not cite.suffix:
        return ""
    if cite.locator_text:
        return ", " + clean(cite.suffix)
    return ("" if cite.suffix.startswith(",") else " ") + clean(cite.suffix)


def _never(item: Any) -> str:  # every key was checked against the bibliography before
    raise KeyError(item.key)

