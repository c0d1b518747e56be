"""The short author and year of an entry, for citations in running text: "Vaswani et al."
and "2017" in "Vaswani et al. (2017)" (citeproc-py has no author-only form)."""

from __future__ import annotations

from citeproc.source.bibtex.bibtex import parse_name, split_names

from blogbuild.bib.bibtex import Entry
from blogbuild.bib.latex import to_text
from blogbuild.bib.marks import clean


def family_names(entry: Entry) -> list[str]:
    """The family names of the authors (of the editors when there are none)."""
    value = entry.fields.get("author") or entry.fields.get("editor") or ""
    out = []
    for written in split_names(" ".join(value.split())):
        if written.strip().lower() == "others":
            out.append("others")
            continue
        first, von, last, _ = parse_name(written)
        family = " ".join(p for p in (von, last) if p) or first or ""
        out.append(clean(to_text(family)))
    return [name for name in out if name]


def author_label(entry: Entry) -> str:
    names = family_names(entry)
    if not names:
        return clean(to_text(entry.fields.get("title", ""))) or entry.key
    if len(names) == 1:
        return names[0]
    if len(names) == 2 and names[1] != "others":
        return f"{names[0]} and {names[1]}"
    return f"{names[0]} et al."


def year_label(entry: Entry) -> str:
    return clean(to_text(entry.fields.get("year", ""))) or "n.d."
