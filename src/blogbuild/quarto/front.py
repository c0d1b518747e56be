"""Front matter as Quarto writes it, made into the site's own before it is validated.

Quarto's authors (a name, a list of names, or a list of `{name, url, email, affiliation,
orcid}` objects), its date forms (`2/13/2022`, `February 13, 2022`, `today`, `now`,
`last-modified`), `date-modified` (our `updated`) and `image-alt` become the values
blogbuild.content.frontmatter.parse_meta reads; the authors as written are kept in the
page's metadata (`authors`), and every other Quarto key (`format:`, `subtitle:`,
`date-format:`…) is kept there as it is. Both readings of a document use it: the full one
on the YAML nodes (`quarto_front`, each wrong value an error at its line) and the quick
look on plain data (`quarto_hint`), so the two place a document alike.
"""

from __future__ import annotations

import calendar
import datetime as dt
import re
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from blogbuild.content.dates import BadDate, parse_date
from blogbuild.content.frontmatter import FrontMatter
from blogbuild.content.frontvalues import FrontValues
from blogbuild.diagnostics import Diagnostic, warning
from blogbuild.urls import is_allowed_url
from blogbuild.yamlcore import STR, describe, text_of

#: The forms of a date Quarto reads, for messages.
DATE_HINT = ("write it as 2022-02-13 (optionally with a time), 2/13/2022, 2-13-2022, "
             "February 13, 2022, today, now or last-modified")
#: Month, day, year: Quarto reads `MM/dd/yyyy` and `MM-dd-yyyy` (parsePandocDate).
_SLASHED = re.compile(r"(\d{1,2})([/-])(\d{1,2})\2(\d{4})")
#: An inline R or Python expression (`` `r Sys.Date()` ``, `` `{python} today()` ``),
#: which Quarto has knitr or Jupyter run before it reads the value.
_INLINE_CODE = re.compile(r"`(?:r|\{(?:r|python|julia)\})[ \t][^`]*`")
_MONTHS = {name.lower(): i for i, name in enumerate(calendar.month_name) if name}
_MONTHS.update({name.lower(): i for i, name in enumerate(calendar.month_abbr) if name})
_MONTHS["sept"] = 9
_MONTH_FIRST = re.compile(r"([A-Za-z]+)\.?\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(\d{4})")
_DAY_FIRST = re.compile(r"(\d{1,2})\s+([A-Za-z]+)\.?,?\s+(\d{4})")
#: The fields of an author object that are kept (and must be text).
_AUTHOR_FIELDS = ("url", "email", "orcid", "affiliation", "affiliations")
_STRINGS = ("subtitle", "date-format", "image-alt")

#: When the file was last written (None: not known), for `date: last-modified`.
Modified = Callable[[], "dt.datetime | None"]


def quarto_date(text: str, modified: Modified) -> str | None:
    """A date Quarto reads, as the ISO text parse_date reads; None when it is none of its
    forms (or `last-modified` of a file not known)."""
    text = text.strip()
    word = text.lower()
    if word == "last-modified":
        when = modified()
        return when.isoformat(timespec="seconds") if when is not None else None
    if word in ("today", "now"):
        now = dt.datetime.now(dt.UTC).replace(microsecond=0)
        return now.date().isoformat() if word == "today" else now.isoformat()
    try:
        parse_date(text)
        return text
    except BadDate:
        pass
    found = _SLASHED.fullmatch(text)
    if found:
        month, day, year = found[1], found[3], found[4]
    elif (found := _MONTH_FIRST.fullmatch(text)) and found[1].lower() in _MONTHS:
        month, day, year = str(_MONTHS[found[1].lower()]), found[2], found[3]
    elif (found := _DAY_FIRST.fullmatch(text)) and found[2].lower() in _MONTHS:
        month, day, year = str(_MONTHS[found[2].lower()]), found[1], found[3]
    else:
        return None
    return f"{year}-{int(month):02d}-{int(day):02d}"


def quarto_front(fm: FrontMatter, file: str, modified: Modified, *,
                 problems: list[Diagnostic] | None = None) -> FrontMatter:
    """`fm` with Quarto's values made the site's (see the module's docstring); raises
    ContentError at the line of a value of the wrong type. A date that is an inline R or
    Python expression is left out with a warning added to `problems` (an error when there
    is no list: a metadata file's)."""
    read = FrontValues(fm, file)
    nodes, data = dict(fm.nodes), dict(fm.data)
    for key in _STRINGS:
        read.string(key)
    form = read.node("format")
    if form is not None and not isinstance(form, (ScalarNode, MappingNode)):
        raise read.fail(f"'format' must be a format's name or a mapping of formats and "
                        f"their options (format: html), not {describe(form)}", form)
    author = read.node("author") or read.node("authors")  # Quarto reads both
    if author is not None:
        names, authors = _authors(read, author)
        nodes["author"] = _scalar(", ".join(names), author)
        data["author"], data["authors"] = nodes["author"].value, authors
    for key, ours in (("date", "date"), ("date-modified", "updated")):
        node = read.node(key)
        if node is None or (ours != key and ours in nodes):
            continue
        if not isinstance(node, ScalarNode):
            raise read.fail(f"'{key}' must be a date, not {describe(node)}; {DATE_HINT}", node)
        if problems is not None and _INLINE_CODE.fullmatch((text_of(node) or "").strip()):
            problems.append(_left_out(read, key, node))
            del nodes[key], data[key]
            continue
        iso = quarto_date(text_of(node) or "", modified)
        if iso is None:
            raise read.fail(f"'{key}' is not a date Quarto reads: {text_of(node)!r}; "
                            f"{DATE_HINT}", node)
        nodes[ours] = _scalar(iso, node)
        data[ours] = iso
    if "image-alt" in nodes and "image_alt" not in nodes:
        nodes["image_alt"], data["image_alt"] = nodes["image-alt"], data["image-alt"]
    return replace(fm, nodes=nodes, data=data)


def quarto_hint(front: dict[str, Any], modified: Modified) -> dict[str, Any]:
    """The quick look's front matter (plain data) with Quarto's dates made the site's, as
    `quarto_front` makes them (the fields that place a document)."""
    out = dict(front)
    for key, ours in (("date", "date"), ("date-modified", "updated")):
        value = front.get(key)
        if isinstance(value, str) and _INLINE_CODE.fullmatch(value.strip()):
            out.pop(key, None)  # left out, as quarto_front leaves it out
        elif isinstance(value, str) and (ours == key or ours not in front):
            out[ours] = quarto_date(value, modified) or value
    return out


def _left_out(read: FrontValues, key: str, node: ScalarNode) -> Diagnostic:
    """The warning for a date that is code Quarto has run (knitr, Jupyter) before reading it."""
    return warning(read.file, read.line(node),
                   f"'{key}' is inline code ({text_of(node)!r}) that Quarto runs to make the "
                   "date; blogbuild runs no code in front matter, so it is left out: write the "
                   "date itself (2022-02-13, today or last-modified)")


def _authors(read: FrontValues, node: Node) -> tuple[list[str], list[dict[str, str]]]:
    """The names of `author:` and each author as a mapping of text (name, url, …)."""
    items = node.value if isinstance(node, SequenceNode) else [node]
    names: list[str] = []
    authors: list[dict[str, str]] = []
    for item in items:
        if isinstance(item, ScalarNode):
            name = (text_of(item) or "").strip()
            if name:
                names.append(name)
                authors.append({"name": name})
            continue
        if not isinstance(item, MappingNode):
            raise read.fail(f"each author must be a name or a mapping with 'name:', not "
                            f"{describe(item)}", item)
        author = _author(read, item)
        names.append(author["name"])
        authors.append(author)
    return names, authors


def _author(read: FrontValues, item: MappingNode) -> dict[str, str]:
    """One author object: its name (text, or `{given, family}` or `{literal}`) and the
    fields kept, each text (an affiliation's `name:` when it is a mapping)."""
    fields = {str(k.value): v for k, v in item.value}
    name = fields.get("name")
    if name is None:
        raise read.fail("an author needs a 'name:' (author: [{name: Ada Lovelace, url: "
                        "https://…}])", item)
    if isinstance(name, MappingNode):
        parts = {str(k.value): text_of(v) or "" for k, v in name.value
                 if isinstance(v, ScalarNode)}
        shown = parts.get("literal") or " ".join(
            p for p in (parts.get("given", ""), parts.get("family", "")) if p)
    elif isinstance(name, ScalarNode):
        shown = text_of(name) or ""
    else:
        shown = ""
    if not shown.strip():
        raise read.fail(f"an author's 'name' must be text or {{given: …, family: …}}, not "
                        f"{describe(name)}", name)
    author = {"name": shown.strip()}
    for key in _AUTHOR_FIELDS:
        value = fields.get(key)
        if value is None:
            continue
        text = _text(value)
        if text is None:
            raise read.fail(f"an author's '{key}' must be text, not {describe(value)}", value)
        if key == "url" and not is_allowed_url(text):
            raise read.fail(f"an author's 'url' must be a path or an http(s) URL, not "
                            f"{text!r}", value)
        author[key] = text
    return author


def _text(node: Node) -> str | None:
    """A field as text: a scalar, a mapping's `name:`, or a list of those joined."""
    if isinstance(node, ScalarNode):
        return text_of(node) or ""
    if isinstance(node, MappingNode):
        named = {str(k.value): v for k, v in node.value}.get("name")
        return _text(named) if isinstance(named, ScalarNode) else None
    if isinstance(node, SequenceNode):
        parts = [_text(child) for child in node.value]
        return None if any(p is None for p in parts) else "; ".join(p for p in parts if p)
    return None


def _scalar(value: str, at: Node) -> ScalarNode:
    """A text node in place of `at` (its line kept for messages)."""
    return ScalarNode(STR, value, at.start_mark, at.end_mark, style='"')
