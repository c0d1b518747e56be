"""CSL-JSON and CSL-YAML bibliographies (Pandoc's other formats: `references.json`,
`references.yaml`) read into the entries a BibTeX file gives (blogbuild.bib.bibtex.Entry).

Each item becomes an entry of the BibTeX type and fields it stands for, its text escaped
so that the LaTeX reading of the values (blogbuild.bib.latex) gives it back as written;
an item without an `id` is a problem at its line and the others still work. A file that
is not JSON (or YAML) at all is BibFileError with its line.
"""

from __future__ import annotations

import json
from typing import Any

from blogbuild.bib.bibtex import Entry, Parsed

#: CSL types -> BibTeX entry types (others: misc).
TYPES = {
    "article-journal": "article", "article-magazine": "article", "article-newspaper":
    "article", "article": "article", "book": "book", "chapter": "incollection",
    "paper-conference": "inproceedings", "thesis": "phdthesis", "report": "techreport",
    "webpage": "online", "post-weblog": "online", "post": "online", "manuscript":
    "unpublished", "software": "software", "dataset": "misc", "pamphlet": "booklet",
}
#: CSL variables -> BibTeX fields read as text (container-title by the entry's type).
FIELDS = {
    "title": "title", "publisher": "publisher", "publisher-place": "address",
    "volume": "volume", "issue": "number", "number": "number", "page": "pages",
    "DOI": "doi", "URL": "url", "ISBN": "isbn", "ISSN": "issn", "edition": "edition",
    "note": "note", "collection-title": "series", "event-place": "location",
}
_SPECIAL = {"\\": r"\textbackslash{}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
            **{char: "\\" + char for char in "{}$%&#_"}}


class CslError(ValueError):
    """A CSL file that cannot be read at all: `line` is where it breaks."""

    def __init__(self, line: int, message: str) -> None:
        super().__init__(message)
        self.line = line
        self.message = message


def is_csl(name: str) -> bool:
    """Whether a bibliography file is CSL (by its suffix), not BibTeX."""
    return name.lower().endswith((".json", ".yaml", ".yml"))


def parse_csl(text: str, name: str) -> Parsed:
    """The entries of a CSL-JSON (`.json`) or CSL-YAML file; raises CslError."""
    if name.lower().endswith(".json"):
        try:
            items = json.loads(text)
        except json.JSONDecodeError as exc:
            raise CslError(exc.lineno, f"is not JSON: {exc.msg} (column {exc.colno}); a "
                           "CSL-JSON file is a list of items [{\"id\": …}, …]") from None
        except RecursionError:
            raise CslError(1, "is nested too deeply to be a bibliography") from None
    else:
        items = _yaml(text)
    if isinstance(items, dict) and isinstance(items.get("references"), list):
        items = items["references"]  # CSL-YAML as Pandoc writes it
    if not isinstance(items, list):
        raise CslError(1, "must be a list of items ([{\"id\": \"smith2020\", …}, …])")
    out = Parsed()
    lines = _item_lines(text, name.lower().endswith(".json"))
    for index, item in enumerate(items):
        line = lines[index] if len(lines) == len(items) else 0
        if not isinstance(item, dict) or not isinstance(item.get("id"), (str, int)) \
                or isinstance(item.get("id"), bool) or not str(item["id"]).strip():
            out.problems.append((line, f"item {index + 1} has no 'id' (the key citations "
                                 "use): it is ignored; give it one (\"id\": \"smith2020\")"))
            continue
        out.entries.append(_entry(item, line))
    return out


def _yaml(text: str) -> Any:
    import yaml

    from blogbuild.yamlcore import safe_load

    try:
        return safe_load(text)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        raise CslError(mark.line + 1 if mark is not None else 1,
                       f"is not YAML: {exc.problem or exc}") from None
    except (yaml.YAMLError, ValueError, RecursionError) as exc:
        raise CslError(1, f"is not YAML a bibliography can be read from: {exc}") from None


def _item_lines(text: str, json_text: bool) -> list[int]:
    """The line each item of the file's list starts on (an empty list when not known)."""
    if not json_text:
        from yaml.nodes import MappingNode, SequenceNode

        from blogbuild.diagnostics import ContentError
        from blogbuild.yamlcore import compose

        try:
            doc = compose(text, "", ContentError)
        except ContentError:
            return []
        root = doc.root
        if isinstance(root, MappingNode):
            root = {str(k.value): v for k, v in root.value}.get("references")
        return [doc.line(item) for item in root.value] if isinstance(root, SequenceNode) \
            else []
    lines: list[int] = []
    depth, quoted, escaped, expect = 0, False, False, False
    for index, char in enumerate(text):  # the JSON read already: only its shape matters
        if quoted:
            escaped, quoted = not escaped and char == "\\", escaped or char != '"'
            continue
        if expect and not char.isspace() and char != "]":  # an item of the list starts
            lines.append(text.count("\n", 0, index) + 1)
            expect = False
        if char == '"':
            quoted = True
        elif char in "[{":
            depth += 1
            expect = depth == 1
        elif char in "]}":
            depth -= 1
        elif char == "," and depth == 1:
            expect = True
    return lines


def _entry(item: dict[str, Any], line: int) -> Entry:
    kind = TYPES.get(str(item.get("type", "")), "misc")
    fields: dict[str, str] = {}
    for name, field in FIELDS.items():
        value = item.get(name)
        if isinstance(value, (str, int, float)) and not isinstance(value, bool):
            fields.setdefault(field, _escaped(str(value)))
    container = item.get("container-title")
    if isinstance(container, str):
        fields["booktitle" if kind in ("incollection", "inproceedings") else "journal"] = \
            _escaped(container)
    for role in ("author", "editor"):
        names = _names(item.get(role))
        if names:
            fields[role] = names
    year, month = _issued(item.get("issued"))
    if year:
        fields["year"] = year
    if month:
        fields["month"] = month
    return Entry(kind, str(item["id"]), fields, line)


def _names(people: Any) -> str:
    """CSL names as a BibTeX name list ("Family, Given and …")."""
    if not isinstance(people, list):
        return ""
    out = []
    for person in people:
        if not isinstance(person, dict):
            continue
        if isinstance(person.get("literal"), str):
            out.append("{" + _escaped(person["literal"]) + "}")
            continue
        family = " ".join(str(person.get(k, "")) for k in (
            "non-dropping-particle", "family") if person.get(k))
        given = " ".join(str(person.get(k, "")) for k in ("given", "dropping-particle")
                         if person.get(k))
        suffix = str(person.get("suffix", ""))
        if not family and not given:
            continue
        parts = ["{" + _escaped(family) + "}" if family else "{}", *(
            [_escaped(suffix)] if suffix else []), *([_escaped(given)] if given else [])]
        out.append(", ".join(parts))
    return " and ".join(out)


def _issued(value: Any) -> tuple[str, str]:
    """Year and month of CSL's `issued` (date-parts, or raw or literal text)."""
    if not isinstance(value, dict):
        return "", ""
    parts = value.get("date-parts")
    if isinstance(parts, list) and parts and isinstance(parts[0], list) and parts[0]:
        first = [str(p) for p in parts[0][:2]]
        return first[0], first[1] if len(first) > 1 else ""
    text = value.get("raw") or value.get("literal")
    if isinstance(text, (str, int)):
        digits = str(text)[:4]
        return (digits, "") if digits.isdigit() else ("", "")
    return "", ""


def _escaped(text: str) -> str:
    """`text` as a BibTeX value that reads back as written."""
    return "".join(_SPECIAL.get(char, char) for char in text)
