"""A code fence's info string read: its language, title, highlighted lines, line numbers.

Writers bring the habits of the tool they come from, and each is read where it means
something here:

- ours and Python-Markdown's: ``python {2,4-6} title="model.py"``, ``hl_lines="2 4-6"``,
  MkDocs' ``linenums="1"`` (or ``linenums="1 5"``: every fifth line numbered);
- Hugo's options in braces, keys in any case: ``go {linenos=table,hl_lines=[2,"4-6"],
  linenostart=199}``;
- the attribute form of Pandoc and Python-Markdown, whose first class is the language:
  ``{ .yaml title="a.yml" }``, ``{#id .python .numberLines startFrom="100"}``.

The words that ask for line numbers are gathered as written (`FenceInfo.numbering`);
what they mean, and what is wrong with a value, is decided in markdown/linenums.py.
Whatever else the string holds is `FenceInfo.unread`, which the code block's renderer
shows the author.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_ATTR = re.compile(r"""(\w[\w-]*)\s*=\s*(?:"([^"]*)"|'([^']*)'|(\S+))""")
_BRACES = re.compile(r"\{([\d,\s\-]+)\}")
_HUGO_OPTIONS = re.compile(r"\{((?:\s*\w+\s*=\s*(?:\[[^\]]*\]|\"[^\"]*\"|[^,{}\s]*)\s*,?)+)\}")
_HUGO_OPTION = re.compile(r"(\w+)\s*=\s*(\[[^\]]*\]|\"[^\"]*\"|[^,{}\s]*)")
_CLASS = re.compile(r"(?<![^\s{])\.([\w+#-]+)")
#: Pandoc's words of the attribute form that are no language: the class asking for line
#: numbers and the block's id.
_PANDOC_WORD = re.compile(r"(?<![^\s{])(?:\.(numberLines|number-lines)|#([\w:.-]+))(?=[\s}]|$)")
_NUMBERS_CLASSES = frozenset({"numberLines", "number-lines"})
_INFO_WORD = re.compile(rf"{_ATTR.pattern}|{_BRACES.pattern}|\S+")

#: The keys (lower case) of the words that ask for line numbers: MkDocs' `linenums`,
#: Hugo's `linenos` and `linenostart`, Pandoc's `startFrom` (and its class, `numberlines`).
NUMBERING_KEYS = frozenset({"linenums", "linenos", "linenostart", "startfrom"})
#: The `key=value` words a code block shows besides those.
_READ_ATTRS = frozenset({"title", "hl_lines"})


@dataclass(frozen=True)
class FenceInfo:
    """What a fence's info string says."""

    lang: str
    attrs: dict[str, str]
    hl_lines: list[int]
    #: The words asking for line numbers, by lower-case key: the value as written and the
    #: word itself, for messages (`{"linenums": ("x", 'linenums="x"')}`).
    numbering: dict[str, tuple[str, str]] = field(default_factory=dict)
    #: Pandoc's `#id`: the block's id when no attribute list gives one.
    ident: str = ""
    #: The words nothing reads, in their order.
    unread: list[str] = field(default_factory=list)


def _split_info(info: str) -> tuple[str, str]:
    """(language, the rest) of an info string: ``python {2} title="a.py"``, ``python{2}``,
    ``title="a.py"`` (no language), and the attribute form of Pandoc and Python-Markdown,
    ``{ .yaml .no-copy title="a.yml" }``, whose first class (other than Pandoc's
    ``.numberLines``) is the language."""
    info = info.strip()
    if info.startswith("{") and info.endswith("}") and _CLASS.search(info):
        inner = info[1:-1]
        for found in _CLASS.finditer(inner):
            if found.group(1) not in _NUMBERS_CLASSES:
                return found.group(1), inner[: found.start()] + inner[found.end() :]
        return "", inner
    lang, _, rest = info.partition(" ")
    if "=" in lang:  # ``title="a.py"``: no language
        return "", info
    if "{" in lang:  # "python{2}"
        lang, _, tail = lang.partition("{")
        rest = "{" + tail + " " + rest
    return lang, rest


def _hugo_options(rest: str) -> tuple[str, dict[str, tuple[str, str]], list[str], str]:
    """Hugo's `{linenos=table,hl_lines=[8,"15-17"]}`: (its line spec, its numbering words,
    the options nothing reads, `rest` without it)."""
    match = _HUGO_OPTIONS.search(rest)
    if match is None:
        return "", {}, [], rest
    spec, numbering, unread = "", {}, []
    for option in _HUGO_OPTION.finditer(match.group(1)):
        key = option.group(1).lower()
        if key == "hl_lines":
            spec += " " + re.sub(r"[\[\]\"',]", " ", option.group(2))
        elif key in NUMBERING_KEYS:
            numbering[key] = (option.group(2).strip('"'), option.group(0))
        else:
            unread.append(option.group(0))
    return spec, numbering, unread, rest[: match.start()] + rest[match.end() :]


def _pandoc_words(rest: str, numbering: dict[str, tuple[str, str]]) -> tuple[str, str]:
    """Pandoc's `.numberLines` (into `numbering`) and `#id`: (the id, `rest` without them)."""
    ident = ""
    for word in _PANDOC_WORD.finditer(rest):
        if word.group(1):
            numbering.setdefault("numberlines", ("", word.group(0)))
        elif not ident:
            ident = word.group(2)
    return ident, _PANDOC_WORD.sub(" ", rest)


def parse_fence(info: str) -> FenceInfo:
    """Everything an info string says (see the module's docstring for the forms)."""
    lang, rest = _split_info(info)
    spec, numbering, unread, rest = _hugo_options(rest)
    ident, rest = _pandoc_words(rest, numbering)
    attrs: dict[str, str] = {}
    for match in _INFO_WORD.finditer(rest):
        word = match.group(0)
        attr = _ATTR.fullmatch(word)
        if attr is not None:
            value = next(g for g in attr.groups()[1:] if g is not None)
            if attr.group(1).lower() in NUMBERING_KEYS:
                numbering[attr.group(1).lower()] = (value, word)
            else:
                attrs[attr.group(1)] = value
                if attr.group(1) not in _READ_ATTRS:
                    unread.append(word)
        elif _BRACES.fullmatch(word):
            spec += " " + word[1:-1]
        elif word.lower() in NUMBERING_KEYS:  # a bare `linenos` (Jekyll's habit)
            numbering[word.lower()] = ("", word)
        else:
            unread.append(word)
    if "hl_lines" in attrs:
        spec += " " + attrs.pop("hl_lines")
    return FenceInfo(lang, attrs, parse_line_spec(spec), numbering, ident, unread)


def parse_info(info: str) -> tuple[str, dict[str, str], list[int]]:
    """(language, attributes, highlighted line numbers) of a fence info string."""
    fence = parse_fence(info)
    return fence.lang, fence.attrs, fence.hl_lines


def unread_info(info: str) -> list[str]:
    """The words of an info string after the language that nothing reads (Hugo's
    `style=emacs`, a `.no-copy` class), in their order: shown to the author, since they
    change nothing."""
    return parse_fence(info).unread


def parse_line_spec(spec: str) -> list[int]:
    lines: set[int] = set()
    for part in re.split(r"[,\s]+", spec.strip()):
        if not part:
            continue
        start, _, end = part.partition("-")
        if not start.isdigit() or (end and not end.isdigit()):
            continue
        lo, hi = int(start), int(end or start)
        lines.update(range(lo, min(hi, lo + 10_000) + 1))
    return sorted(lines)
