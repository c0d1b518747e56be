"""A Graphviz graph as the build gives it to graphviz-pure, what its drawing lost, and what
the renderer said that an author can act on.

The graph gets the build's face as the default of its nodes, edges and labels, written
first in its body (on the same line, so the lines keep their numbers): what the graph says
itself comes after and wins. Helvetica: graphviz-pure has its metrics, and so do Arial,
Liberation Sans and Arimo, in which the page draws it (static/css/diagram.css). The
command line's -N and -E would not do: graphviz-pure lets them win over the graph's own
`node [fontname=…]`.

graphviz-pure is run with two outputs, the SVG and the layout as JSON (`-Tsvg -Tjson0`: the
graph is laid out once). The layout names every node and edge of the input; one without a
position was not drawn (an edge Graphviz could not route: it says "lost … edge" and more on
its standard error, in its own terms). Of its standard error only what the author can act
on is kept, each message once ("Warning: Warning: …" as graphviz-pure repeats it): not the
lines of its routing code, nor the "lost … edge" this module words in the author's terms.
"""

from __future__ import annotations

import json
import re
from typing import Any

FACE = "Helvetica"
_DEFAULTS = "".join(f'{what} [fontname="{FACE}"] ' for what in ("graph", "node", "edge"))
#: What may come before a graph's body, where a `{` is no brace: comments and quoted
#: strings (an HTML string, between angle brackets that nest, is skipped by `faced`).
_SKIP = re.compile(r'//[^\n]*|(?m:^#[^\n]*)|/\*.*?(?:\*/|\Z)|"(?:\\.|[^"\\])*"?', re.DOTALL)


def faced(text: str) -> str:
    """`text` with the build's face as its first statements (see the module's docstring);
    as it is when it has no body (the renderer says what is wrong)."""
    at, depth = 0, 0
    while at < len(text):
        skipped = _SKIP.match(text, at) if depth == 0 else None
        if skipped is not None:
            at = skipped.end()
            continue
        char = text[at]
        if char in "<>":
            depth = max(0, depth + (1 if char == "<" else -1))
        elif char == "{" and depth == 0:
            return f"{text[:at + 1]}{_DEFAULTS}{text[at + 1:]}"
        at += 1
    return text


_END = "</svg>"
#: Lines of the renderer's standard error about its own code, not about the graph, or about
#: nothing the author could change (a letter outside ASCII sized as a space).
_INTERNAL = re.compile(r"^(?:\S+\.[ch]:\d+:|in routesplines\b|lost .* edge$|trouble in init_rank"
                       r"|no value for width of non-ASCII character)")
_PREFIX = re.compile(r"^(?:(?:Warning|Error): *)+")


def split(out: str) -> tuple[str, dict[str, Any] | None]:
    """The SVG and the layout of the renderer's output (None when it has none that reads:
    several graphs in one text, an output cut short)."""
    svg, end, rest = out.partition(_END)
    if not end:
        return out, None
    try:
        layout = json.loads(rest)
    except ValueError:
        return out, None
    return svg + end + "\n", layout if isinstance(layout, dict) else None


def lost(layout: dict[str, Any] | None) -> list[str]:
    """What of the graph is not drawn: "the node x", "the edge a:p -> b" (in the author's
    names and ports), in the order of the layout."""
    if layout is None:
        return []
    objects = layout.get("objects") or []
    subgraphs = int(layout.get("_subgraph_cnt") or 0)
    names = {int(item.get("_gvid", -1)): str(item.get("name", "")) for item in objects}
    found = [f"the node {item.get('name')}" for item in objects[subgraphs:]
             if "pos" not in item]
    arrow = " -> " if layout.get("directed") else " -- "
    for edge in layout.get("edges") or []:
        if "pos" not in edge:
            ends = [names.get(int(edge.get(end, -1)), "?") + (
                f":{edge[port]}" if edge.get(port) else "")
                for end, port in (("tail", "tailport"), ("head", "headport"))]
            found.append(f"the edge {arrow.join(ends)}")
    return found


def said(err: str) -> list[str]:
    """What the renderer said that the author can act on, each message once, without its
    "Warning:" and "Error:" (the build says which it is)."""
    kept: list[str] = []
    for line in err.splitlines():
        message = _PREFIX.sub("", line.strip()).strip()
        if message and not _INTERNAL.match(message) and message not in kept:
            kept.append(message)
    return kept
