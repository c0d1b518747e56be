"""A BibTeX reader that keeps going: each entry is read on its own, with its line.

One broken entry (an unbalanced brace, a missing key) is a problem named by its line, and
the other entries of the file still work. The values are BibTeX's: `@string` macros and
`#` joins are expanded, braces and LaTeX are left for `blogbuild.bib.latex`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

#: BibTeX's predefined month macros.
MONTHS = {name: str(i) for i, name in enumerate(
    ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"), 1)}
#: Where an entry may start: `@type{` or `@type(` at the start of a line.
_START = re.compile(r"^[ \t]*@[ \t]*([A-Za-z]+)[ \t]*[{(]", re.MULTILINE)
_NAME = re.compile(r"[^\s\"#%'(),={}]+")
_SPACE = re.compile(r"\s*(?:%[^\n]*\n\s*)*")


@dataclass(frozen=True)
class Entry:
    """One entry of a .bib file: its type, key, fields and the line it starts at."""

    kind: str  # lower case: article, book, …
    key: str
    fields: dict[str, str]  # field name (lower case) -> value with macros expanded
    line: int


@dataclass
class Parsed:
    """What reading a .bib file found: its entries, and its problems by line."""

    entries: list[Entry] = field(default_factory=list)
    problems: list[tuple[int, str]] = field(default_factory=list)  # (line, message)


class _Broken(Exception):
    def __init__(self, offset: int, message: str) -> None:
        super().__init__(message)
        self.offset = offset
        self.message = message


class _Reader:
    """One entry's text (from its `@` to the next entry's), read value by value."""

    def __init__(self, text: str, start: int, end: int, macros: dict[str, str]) -> None:
        self.text = text
        self.pos = start
        self.end = end
        self.macros = macros
        self.unknown: list[tuple[int, str]] = []

    def skip(self) -> None:
        self.pos = _SPACE.match(self.text, self.pos, self.end).end()  # type: ignore[union-attr]

    def peek(self) -> str:
        self.skip()
        return self.text[self.pos] if self.pos < self.end else ""

    def name(self, what: str) -> str:
        self.skip()
        found = _NAME.match(self.text, self.pos, self.end)
        if found is None:
            raise _Broken(self.pos, f"a {what} is expected here")
        self.pos = found.end()
        return found.group()

    def value(self) -> str:
        parts = [self.piece()]
        while self.peek() == "#":
            self.pos += 1
            parts.append(self.piece())
        return "".join(parts)

    def piece(self) -> str:
        char = self.peek()
        if char in "{\"":
            return self.delimited(char)
        if char.isdigit():
            found = re.compile(r"\d+").match(self.text, self.pos, self.end)
            assert found is not None
            self.pos = found.end()
            return found.group()
        start = self.pos
        name = self.name("value ({…}, \"…\", a number or an @string name)").lower()
        if name in self.macros:
            return self.macros[name]
        if name in MONTHS:
            return MONTHS[name]
        self.unknown.append((start, name))
        return name

    def delimited(self, opener: str) -> str:
        start = self.pos
        depth = 0
        i = self.pos + 1
        while i < self.end:
            char = self.text[i]
            if char == "\\":
                i += 2
                continue
            if char == "{":
                depth += 1
            elif char == "}":
                if depth == 0:
                    if opener == "{":
                        self.pos = i + 1
                        return self.text[start + 1:i]
                    raise _Broken(i, "this '}' has no '{' before it")
                depth -= 1
            elif char == '"' and opener == '"' and depth == 0:
                self.pos = i + 1
                return self.text[start + 1:i]
            i += 1
        closer = "}" if opener == "{" else '"'
        raise _Broken(start, f"this value never ends: a '{closer}' is missing (count the "
                      "braces)")


def _line(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def parse(text: str) -> Parsed:
    """Every entry of a .bib file's text, and the problems of the entries it cannot read."""
    out = Parsed()
    macros: dict[str, str] = {}
    starts = list(_START.finditer(text))
    for i, match in enumerate(starts):
        end = starts[i + 1].start() if i + 1 < len(starts) else len(text)
        kind = match.group(1).lower()
        if kind in ("comment", "preamble"):
            continue
        reader = _Reader(text, match.end(), end, macros)
        closer = "}" if text[match.end() - 1] == "{" else ")"
        try:
            if kind == "string":
                name = reader.name("@string name").lower()
                _expect(reader, "=")
                macros[name] = reader.value()
                _expect(reader, closer)
            else:
                entry = _entry(reader, kind, closer, _line(text, match.start()))
                out.entries.append(entry)
        except _Broken as exc:
            what = f"@{kind} entry" if kind != "string" else "@string"
            out.problems.append((_line(text, exc.offset), f"cannot read this {what}: "
                                 f"{exc.message}; the entry is left out until it is fixed"))
            continue
        for offset, name in reader.unknown:
            out.problems.append((_line(text, offset), f"'{name}' is not defined by an @string "
                                 "above it: define it, or write the value in braces"))
    return out


def _expect(reader: _Reader, char: str) -> None:
    if reader.peek() != char:
        got = repr(reader.peek()) if reader.peek() else "the end of the entry"
        raise _Broken(reader.pos, f"'{char}' is expected here, not {got}")
    reader.pos += 1


def _entry(reader: _Reader, kind: str, closer: str, line: int) -> Entry:
    start = reader.pos
    reader.skip()
    key_match = re.compile(r"[^\s,={}()\"#%']+").match(reader.text, reader.pos, reader.end)
    if key_match is None or reader.text[key_match.end():reader.end].lstrip()[:1] != ",":
        if key_match is None or reader.text[key_match.end():reader.end].lstrip()[:1] == "=":
            raise _Broken(start, "it has no key: write one after the brace "
                          "(@article{smith2020, …)")
        raise _Broken(key_match.end(), "a ',' is expected after the key")
    key = key_match.group()
    reader.pos = key_match.end()
    _expect(reader, ",")
    fields: dict[str, str] = {}
    while reader.peek() not in (closer, ""):
        name = reader.name("field name").lower()
        _expect(reader, "=")
        reader.skip()
        begin = reader.pos
        fields[name] = reader.value()
        if reader.peek() == ",":
            reader.pos += 1
        elif reader.peek() == "":
            raise _Broken(begin, f"the value of '{name}' in '{key}' takes the rest of the "
                          "entry: a '}' is missing in it (count the braces)")
        elif reader.peek() != closer:
            raise _Broken(reader.pos, f"a ',' or '{closer}' is expected after the value of "
                          f"'{name}' in '{key}'")
    if reader.peek() != closer:
        raise _Broken(start, f"the entry '{key}' never ends: a '{closer}' is missing (count "
                      "the braces)")
    reader.pos += 1
    return Entry(kind, key, fields, line)
