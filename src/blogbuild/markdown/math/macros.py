"""Macros a post defines in its own math, for every formula after them (as MathJax does).

Posts written for MathJax (Quarto's among them) define their macros in a display block of
definitions only (`\\newcommand{\\cE}{\\mathcal{E}}`, `\\DeclareMathOperator*{\\E}{…}`)
and use them in every later formula. KaTeX keeps a definition for its own formula only,
and has no \\DeclareMathOperator. So the math plugin finds the definitions of each formula
here, writes each as a `\\gdef` KaTeX runs (in the formula itself, and before every later
formula of the page: `KatexOptions.defined`, part of the cache key), and shows a formula
that holds only definitions as nothing, as MathJax does. A definition this module cannot
read (an optional argument, unbalanced braces) is left to KaTeX, which reports it.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from dataclasses import dataclass

from blogbuild.markdown.math.tex import Rewrite
from blogbuild.runtimes.katex_types import KatexOptions

_COMMAND = re.compile(
    r"\\(newcommand|renewcommand|def|gdef|DeclareMathOperator)(?![A-Za-z])(\*?)"
)
_NAME = re.compile(r"\\(?:[A-Za-z]+|[^A-Za-z\s])")
_ARGS = re.compile(r"\[\s*([0-9])\s*\]")
#: The longest \def parameter text read (`#1#2`, `#1.#2`); a longer one is left to KaTeX.
_PARAMS_LIMIT = 64
#: What \def's parameter text may hold: #1…#9 (in order, checked below) and plain tokens.
_PARAMS = re.compile(r"(?:#[1-9]|\\[A-Za-z]+|\\[^A-Za-z]|[^#{}\\%])*")
_COMMENT = re.compile(r"(?<!\\)%[^\n]*")
_UNDEFINED = re.compile(r"^Undefined control sequence: (\\\S+)$")


@dataclass(frozen=True)
class Definition:
    """One definition in a formula's TeX: its span, the name, and `head`, the \\gdef that
    replaces text[start:body] (the body, a braced group, stays as written; `close` goes
    after it)."""

    start: int
    body: int
    end: int
    name: str
    head: str
    close: str
    tex_primitive: bool = False  # \\def or \\gdef: KaTeX runs it in its formula as written

    def gdef(self, text: str) -> str:
        """The definition as KaTeX runs it before a later formula."""
        return self.head + text[self.body : self.end] + self.close


def _skip(text: str, at: int) -> int:
    """Index of the first character at or after `at` that is not white space."""
    while at < len(text) and text[at].isspace():
        at += 1
    return at


def _group_ends(text: str) -> dict[int, int]:
    """Where each braced group of `text` ends (index past its `}`), by the index of its `{`:
    one pass, so a formula of many definitions that never close stays linear."""
    ends: dict[int, int] = {}
    opened: list[int] = []
    i = 0
    while i < len(text):
        char = text[i]
        if char == "\\":
            i += 2
            continue
        if char == "{":
            opened.append(i)
        elif char == "}" and opened:
            ends[opened.pop()] = i + 1
        i += 1
    return ends


def _name(text: str, at: int) -> tuple[str, int] | None:
    """The macro name at `at`, written `\\name` or `{\\name}`, and the index past it."""
    at = _skip(text, at)
    braced = text.startswith("{", at)
    if braced:
        at = _skip(text, at + 1)
    match = _NAME.match(text, at)
    if match is None:
        return None
    at = match.end()
    if braced:
        at = _skip(text, at)
        if not text.startswith("}", at):
            return None
        at += 1
    return match.group(0), at


def _params(params: str) -> bool:
    """Whether \\def's parameter text numbers its parameters #1, #2, … in order."""
    if _PARAMS.fullmatch(params) is None:
        return False
    numbers = [int(n) for n in re.findall(r"#([1-9])", params)]
    return numbers == list(range(1, len(numbers) + 1))


def _read(text: str, match: re.Match[str], ends: dict[int, int]) -> Definition | None:
    command, star = match.group(1), match.group(2)
    if star and command in ("def", "gdef"):
        return None
    named = _name(text, match.end())
    if named is None:
        return None
    name, at = named
    if command in ("def", "gdef"):
        body = text.find("{", at, at + _PARAMS_LIMIT)
        if body < 0 or not _params(text[at:body]):
            return None
        params = text[at:body]
        head, close = f"\\gdef{name}{params}", ""
    else:
        at = _skip(text, at)
        count = _ARGS.match(text, at) if command != "DeclareMathOperator" else None
        if count is not None:
            at = _skip(text, count.end())
        body = at
        if command == "DeclareMathOperator":
            head, close = f"\\gdef{name}{{\\operatorname{star}", "}"
        else:
            args = "".join(f"#{n}" for n in range(1, int(count.group(1)) + 1)) if count else ""
            head, close = f"\\gdef{name}{args}", ""
    end = ends.get(body, -1)
    if end < 0:
        return None  # `[default]` (an optional argument), or no body: KaTeX says what
    return Definition(match.start(), body, end, name, head, close,
                      tex_primitive=command in ("def", "gdef"))


def definitions(text: str) -> list[Definition]:
    """The definitions in a formula's TeX, in order."""
    found: list[Definition] = []
    at = 0
    ends: dict[int, int] | None = None
    while True:
        match = _COMMAND.search(text, at)
        if match is None:
            return found
        ends = _group_ends(text) if ends is None else ends
        definition = _read(text, match, ends)
        if definition is None:
            at = match.end()
            continue
        found.append(definition)
        at = definition.end


def only_definitions(text: str, found: list[Definition]) -> bool:
    """Whether the formula holds definitions and nothing else to show."""
    if not found:
        return False
    rest, last = [], 0
    for definition in found:
        rest.append(text[last : definition.start])
        last = definition.end
    rest.append(text[last:])
    return not _COMMENT.sub("", "".join(rest)).strip()


class PageMacros:
    """The definitions of a page in document order: what is in force before each formula
    (by name, the last one wins), and where each name is first defined."""

    def __init__(self) -> None:
        self._by_name: dict[str, tuple[str, frozenset[str]]] = {}  # name: \\gdef, its names
        self._first: dict[str, tuple[int, int]] = {}  # name: (formula's order, line)
        self._count = 0

    def _preamble(self, text: str) -> str:
        """The definitions in force that `text` may expand: those of the names it writes,
        and of the names their bodies write, in name order. A formula's cache key then
        holds only what can change it, and a page of many definitions stays linear."""
        wanted, todo = set(), [name for name in _NAME.findall(text) if name in self._by_name]
        while todo:
            name = todo.pop()
            if name not in wanted:
                wanted.add(name)
                todo.extend(n for n in self._by_name[name][1] if n in self._by_name)
        return "".join(self._by_name[name][0] for name in sorted(wanted))

    def take(self, text: str, rewrite: Rewrite, options: KatexOptions,
             line_of: Callable[[int], int]) -> tuple[KatexOptions, bool, int]:
        """For the next formula (its TeX `text`; `line_of`: the source line of its character
        at an index): the options it renders with (the definitions before it that it may
        use), whether it holds only definitions, and its order. Its own definitions become
        \\gdef's in `rewrite` and hold from the next formula on."""
        found = definitions(text)
        preamble = self._preamble(text)
        if preamble:
            options = dataclasses.replace(options, defined=preamble)
        for definition in found:
            if not definition.tex_primitive:  # KaTeX refuses to \\newcommand a known name
                rewrite.replace(definition.start, definition.body, definition.head)
            if definition.close:
                rewrite.insert(definition.end, definition.close)
            gdef = definition.gdef(text)
            self._by_name[definition.name] = (gdef, frozenset(_NAME.findall(gdef)))
            if definition.name not in self._first:
                self._first[definition.name] = (self._count, line_of(definition.start))
        self._count += 1
        return options, only_definitions(text, found), self._count - 1

    def defined_later(self, message: str, order: int) -> str:
        """What to do when KaTeX's `message` names a macro the page defines only after the
        formula `order`; "" otherwise."""
        match = _UNDEFINED.match(message)
        if match is None:
            return ""
        name = match.group(1)
        first = self._first.get(name)
        if first is None or first[0] <= order:
            return ""
        return (f"{name} is defined further down the page (line {first[1]}), and "
                "a definition counts from where it is: move it above the first formula "
                "that uses it")
