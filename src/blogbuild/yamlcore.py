"""Reading YAML written by authors: the 1.2 core schema, bounded, with a line for every value."""

from __future__ import annotations

import bisect
import math
import re
from typing import Any, ClassVar

import yaml
from yaml.events import (
    AliasEvent,
    CollectionStartEvent,
    DocumentEndEvent,
    MappingEndEvent,
    NodeEvent,
    ScalarEvent,
    SequenceEndEvent,
    SequenceStartEvent,
    StreamEndEvent,
)
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from blogbuild.diagnostics import BlogbuildError

#: Nesting deeper than this is refused (front matter and site.yaml need a handful of levels).
MAX_DEPTH = 50
#: Values in a document after expanding aliases; an "alias bomb" multiplies a few lines into
#: billions of values, so the count is checked as the document is composed.
MAX_VALUES = 50_000

_Y = "tag:yaml.org,2002:"
NULL, BOOL, INT, FLOAT, STR, SEQ, MAP = (_Y + n for n in
                                         ("null", "bool", "int", "float", "str", "seq", "map"))

# The tags a Python loader honours beyond these (timestamps, sets, python/…) are not part
# of the core schema; a post or site.yaml that names one gets an error, not an object.
_KNOWN_TAGS = {NULL, BOOL, INT, FLOAT, STR, SEQ, MAP}

_BaseLoader: type[Any] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class CoreLoader(_BaseLoader):  # type: ignore[misc]
    """libyaml's parser (Python's when libyaml is missing) with YAML 1.2 core-schema scalars.

    YAML 1.1, PyYAML's default, reads `no`, `on`, `y` as booleans, `010` as 8, `1:20` as 80
    and `2024-02-30` as a date that then fails; in the core schema only true/false are
    booleans, numbers are decimal, 0o octal or 0x hex, and everything else is a string.
    It is the event source of `compose()`; don't hand it to `yaml.load`, which would skip
    the limits and lines kept there.
    """

    yaml_implicit_resolvers: ClassVar[dict[Any, list[tuple[str, re.Pattern[str]]]]] = {}


for _tag, _pattern, _first in (
    (NULL, r"(?:~|null|Null|NULL|)\Z", ["~", "n", "N", ""]),
    (BOOL, r"(?:true|True|TRUE|false|False|FALSE)\Z", list("tTfF")),
    (INT, r"(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)\Z", list("-+0123456789")),
    (FLOAT, r"(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?"
            r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))\Z", list("-+.0123456789")),
):
    CoreLoader.add_implicit_resolver(_tag, re.compile(_pattern), _first)


class Document:
    """A composed YAML document: nodes keep their marks, `line(node)` is a line of the file."""

    def __init__(self, root: Node | None, text: str, file: str, error: type[BlogbuildError],
                 first_line: int) -> None:
        self.root = root
        self.file = file
        self.error = error
        self._first_line = first_line
        self._breaks = [m.start() for m in re.finditer("\n", text)]

    def line_at(self, index: int) -> int:
        # Marks count U+2028 and NEL as line breaks, Markdown and editors do not: a line
        # is found from the character index, counting "\n" only.
        return bisect.bisect_left(self._breaks, index) + self._first_line

    def line(self, node: Node) -> int:
        return self.line_at(node.start_mark.index)

    def fail(self, message: str, node: Node | int) -> BlogbuildError:
        line = node if isinstance(node, int) else self.line(node)
        return self.error(message, file=self.file, line=line)


def compose(text: str, file: str, error: type[BlogbuildError], *, first_line: int = 1,
            max_values: int = MAX_VALUES) -> Document:
    """Compose one YAML document without constructing Python objects; refuse bombs."""
    doc = Document(None, text, file, error, first_line)
    try:
        loader = CoreLoader(text)
    except UnicodeEncodeError as exc:  # a lone surrogate: only from text not read as UTF-8
        raise doc.fail("the text holds a lone UTF-16 surrogate; remove it",
                       doc.line_at(exc.start)) from None
    try:
        doc.root = _compose(loader, doc, max_values)
    except yaml.MarkedYAMLError as exc:
        raise _syntax_error(exc, text, doc) from None
    except yaml.reader.ReaderError as exc:
        code = exc.character if isinstance(exc.character, int) else ord(exc.character)
        raise doc.fail(f"the text holds the control character U+{code:04X}, which YAML does "
                       "not allow; remove it", doc.line_at(exc.position)) from None
    except yaml.YAMLError as exc:
        raise doc.fail(f"invalid YAML: {exc}", first_line) from None
    finally:
        loader.dispose()
    return doc


def _syntax_error(exc: yaml.MarkedYAMLError, text: str, doc: Document) -> BlogbuildError:
    mark = exc.problem_mark or exc.context_mark
    index = mark.index if mark is not None else 0
    line = doc.line_at(index)
    start = text.rfind("\n", 0, index) + 1
    indent = re.compile(r"[ \t]*").match(text, start)
    if indent is not None and "\t" in indent.group():
        return doc.fail("a tab indents this line; YAML allows only spaces for indentation: "
                        "replace the tab with spaces", line)
    problem = exc.problem or exc.context or "cannot parse"
    if "maximum nesting depth" in problem:  # libyaml's own limit (PyYAML 6.0.4 and later)
        return doc.fail(f"the values nest more than {MAX_DEPTH} levels deep; flatten them",
                        line)
    if exc.context and exc.context_mark is not None and exc.problem:
        started = doc.line_at(exc.context_mark.index)
        if started != line:
            problem += f" ({exc.context} that starts on line {started})"
    return doc.fail(f"invalid YAML: {problem}; check the quotes, colons and indentation "
                    "(a value holding ': ' or starting with a special character needs "
                    "quotes)", line)


class _Open:
    __slots__ = ("anchor", "key", "keys", "node")

    def __init__(self, node: Node, anchor: str | None) -> None:
        self.node = node
        self.anchor = anchor
        self.key: ScalarNode | None = None
        self.keys: dict[str, ScalarNode] = {}


def _compose(loader: Any, doc: Document, max_values: int) -> Node | None:
    root: Node | None = None
    stack: list[_Open] = []
    anchors: dict[str, Node] = {}
    sizes: dict[int, int] = {}  # id(node) -> values under it once aliases are expanded
    total = 0

    while True:
        event: Any = loader.get_event()
        start: Any = event.start_mark  # libyaml's marks or Python's: both have index and line
        end: Any = event.end_mark
        if isinstance(event, StreamEndEvent):
            return root
        if isinstance(event, DocumentEndEvent):
            if not loader.check_event(StreamEndEvent):
                raise doc.fail("more than one YAML document ('---' inside); keep one",
                               doc.line_at(loader.peek_event().start_mark.index))
            continue
        if not isinstance(event, NodeEvent | SequenceEndEvent | MappingEndEvent):
            continue
        if isinstance(event, AliasEvent):
            target = anchors.get(event.anchor or "")
            if target is None:
                open_ = any(o.anchor == event.anchor for o in stack)
                why = "the list or mapping that holds it" if open_ else "no '&' anchor above"
                raise doc.fail(f"alias '*{event.anchor}' refers to {why}",
                               doc.line_at(start.index))
            total += sizes[id(target)]
            node: Node = target
        elif isinstance(event, ScalarEvent):
            tag = event.tag if event.tag not in (None, "!") else loader.resolve(
                ScalarNode, event.value, event.implicit)
            node = ScalarNode(tag, event.value, start, end, event.style)
            total += 1
            sizes[id(node)] = 1
        elif isinstance(event, CollectionStartEvent):
            if len(stack) >= MAX_DEPTH:
                raise doc.fail(f"the values nest more than {MAX_DEPTH} levels deep; "
                               "flatten them", doc.line_at(start.index))
            kind = SequenceNode if isinstance(event, SequenceStartEvent) else MappingNode
            tag = event.tag if event.tag not in (None, "!") else loader.resolve(
                kind, None, event.implicit)
            stack.append(_Open(kind(tag, [], start, end,
                                    event.flow_style), event.anchor))
            total += 1
            continue
        else:  # the end of a list or mapping
            done = stack.pop()
            node = done.node
            node.end_mark = end
            children = (node.value if isinstance(node, SequenceNode)
                        else [n for pair in node.value for n in pair])
            sizes[id(node)] = 1 + sum(sizes[id(child)] for child in children)
            if done.anchor is not None:
                anchors[done.anchor] = node
        if total > max_values:
            raise doc.fail(f"more than {max_values} values once aliases ('*name') are "
                           "expanded; write the values out or use fewer aliases",
                           doc.line_at(start.index))
        if isinstance(event, ScalarEvent) and event.anchor is not None:
            anchors[event.anchor] = node
        if not _attach(stack, node, doc):
            root = node


def _attach(stack: list[_Open], node: Node, doc: Document) -> bool:
    """Put `node` in the list or mapping open on top of `stack` (a key refused when it is
    not a plain name, or when the mapping has it already); False when none is open."""
    if not stack:
        return False
    top = stack[-1]
    if isinstance(top.node, SequenceNode):
        top.node.value.append(node)
    elif top.key is None:
        if not isinstance(node, ScalarNode):
            raise doc.fail("a key must be a plain name, not a list or a mapping", node)
        seen = top.keys.get(node.value)
        if seen is not None:
            raise doc.fail(f"duplicate key '{node.value}' (lines {doc.line(seen)} and "
                           f"{doc.line(node)}); keep only one of them", node)
        top.keys[node.value] = top.key = node
    else:
        top.node.value.append((top.key, node))
        top.key = None
    return True


class TooManyValues(yaml.MarkedYAMLError):
    """A document that aliases expand past the bound, or that an alias makes recursive."""


class _BoundedLoader(_BaseLoader):  # type: ignore[misc]
    """PyYAML's safe loader (YAML 1.1: dates, `yes`) for YAML that blogbuild only peeks at
    or that other generators wrote; `safe_load` bounds it as `compose` bounds ours."""

    def construct_yaml_timestamp(self, node: ScalarNode) -> Any:
        try:
            return super().construct_yaml_timestamp(node)
        except (ValueError, OverflowError) as exc:  # year 0, day 32: datetime refuses them
            raise yaml.constructor.ConstructorError(
                None, None, f"{node.value!r} is not a valid date ({exc})",
                node.start_mark) from None


_BoundedLoader.add_constructor(_Y + "timestamp", _BoundedLoader.construct_yaml_timestamp)


def safe_load(text: str, *, max_values: int = MAX_VALUES) -> Any:
    """`yaml.safe_load` on libyaml with the bound of `compose`: more than `max_values`
    values once aliases are expanded, or a recursive alias, raise TooManyValues (a
    yaml.MarkedYAMLError) before any Python object is made, and a timestamp that is no
    date raises a yaml.YAMLError too. For the quick look at front matter before the exact
    reading and for other generators' files; an author's YAML is read with `compose`."""
    loader = _BoundedLoader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        check_expansion(node, max_values)
        return loader.construct_document(node)
    finally:
        loader.dispose()


def _children(node: Node) -> list[Node]:
    if isinstance(node, SequenceNode):
        return list(node.value)
    if isinstance(node, MappingNode):
        return [n for pair in node.value for n in pair]
    return []


def check_expansion(root: Node, max_values: int = MAX_VALUES) -> None:
    """Raise TooManyValues if the node graph holds more than `max_values` values once
    aliases (shared nodes) are expanded, or a cycle. Linear in the nodes as written: each
    shared node's expanded size is counted once."""
    sizes: dict[int, int] = {}
    open_: set[int] = set()  # the nodes whose children are being counted: the path
    stack: list[tuple[Node, bool]] = [(root, False)]
    while stack:
        node, counted = stack.pop()
        key = id(node)
        if counted:
            open_.discard(key)
            size = sizes[key] = 1 + sum(sizes[id(child)] for child in _children(node))
            if size > max_values:
                raise TooManyValues(None, None, f"more than {max_values} values once "
                                    "aliases ('*name') are expanded; write the values out "
                                    "or use fewer aliases", node.start_mark)
            continue
        if key in sizes:
            continue
        if key in open_:
            raise TooManyValues(None, None, "an alias ('*name') refers to the list or "
                                "mapping that holds it", node.start_mark)
        if isinstance(node, ScalarNode):
            sizes[key] = 1
            continue
        open_.add(key)
        stack.append((node, True))
        stack.extend((child, False) for child in _children(node) if id(child) not in sizes)


def text_of(node: Node) -> str | None:
    """A scalar as its author wrote it (`010`, `no`, `1e3` stay text); None for null."""
    if not isinstance(node, ScalarNode):
        return None
    if node.tag == NULL and not node.style:
        return None
    return str(node.value)


def shown_tag(tag: str) -> str:
    return "!!" + tag[len(_Y):] if tag.startswith(_Y) else tag


def is_null(node: Node) -> bool:
    return isinstance(node, ScalarNode) and node.tag == NULL


def describe(node: Node) -> str:
    """How a value reads in a message: 'a list', 'a mapping' or the scalar as written."""
    if isinstance(node, SequenceNode):
        return "a list"
    if isinstance(node, MappingNode):
        return "a mapping"
    value = str(node.value)
    return repr(value if len(value) <= 60 else value[:57] + "...")


def to_python(node: Node, doc: Document) -> Any:
    """Plain Python data from a node (core schema); shared aliases stay shared objects."""
    made: dict[int, Any] = {}

    def build(node: Node) -> Any:
        if id(node) in made:
            return made[id(node)]
        if node.tag not in _KNOWN_TAGS:
            raise doc.fail(f"the YAML tag '{shown_tag(node.tag)}' is not supported; "
                           "remove it", node)
        if isinstance(node, SequenceNode):
            items: list[Any] = []
            made[id(node)] = items
            items.extend(build(child) for child in node.value)
            return items
        if isinstance(node, MappingNode):
            mapping: dict[str, Any] = {}
            made[id(node)] = mapping
            for key, value in node.value:
                mapping[str(key.value)] = build(value)
            return mapping
        value = made[id(node)] = _scalar(node, doc)
        return value

    return build(node)


def _scalar(node: Node, doc: Document) -> Any:
    text = str(node.value)
    try:
        if node.tag == NULL:
            return None
        if node.tag == BOOL:
            return {"true": True, "false": False}[text.lower()]
        if node.tag == INT:
            if text.startswith(("0o", "0x")):
                return int(text[2:], 8 if text[1] == "o" else 16)
            return int(text)
        if node.tag == FLOAT:
            lowered = text.lower()
            if lowered.endswith((".inf", ".nan")):
                return math.copysign(math.inf, -1 if text.startswith("-") else 1) \
                    if lowered.endswith(".inf") else math.nan
            return float(text)
    except (KeyError, ValueError):
        raise doc.fail(f"{describe(node)} is not a valid {node.tag.rsplit(':', 1)[-1]}",
                       node) from None
    if node.tag != STR or not isinstance(node, ScalarNode):
        raise doc.fail(f"the YAML tag '{shown_tag(node.tag)}' does not fit this value", node)
    return text
