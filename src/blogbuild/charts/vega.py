"""Drawing Vega and Vega-Lite specs to SVG: a document's charts in one batch, given to the
chart drawer of the process that renders it (runner.py, started on the first chart and kept,
as the diagram drawer is: vl-convert's first chart costs some 0.4 s, the next some 40 ms).
Each is drawn in the theme's light and dark looks (themes.py). Results are cached by spec,
look and the renderer's version; a chart stopped at the time limit is not cached.
"""

from __future__ import annotations

import functools
import hashlib
from dataclasses import dataclass

from blogbuild import diskcache

#: Bumped when the SVG made of the same spec changes.
DRAW_VERSION = "1"
TABLE = "charts"
TIMEOUT = 20.0  # seconds a chart may take

@dataclass(frozen=True)
class Drawn:
    """One chart drawn: its SVG, or what the renderer said when it could not draw it."""

    svg: str = ""
    error: str = ""  # what the renderer said (its first line)


@functools.cache
def versions() -> str:
    from importlib import metadata  # only when a chart is drawn

    try:
        return f"vl-convert-python {metadata.version('vl-convert-python')}"
    except metadata.PackageNotFoundError:
        return "vl-convert-python missing"


#: A chart to draw: its kind ("vega-lite" or "vega") and its spec (with its look) as JSON.
Job = tuple[str, str]


def draw_many(jobs: list[Job]) -> list[Drawn]:
    """Each chart of `jobs` drawn, in order: from the cache when it was drawn before, the
    others in one batch."""
    keys = [hashlib.sha256(f"{DRAW_VERSION}\0{versions()}\0{kind}\0{spec}".encode())
            .hexdigest() for kind, spec in jobs]
    return diskcache.batched(TABLE, keys, lambda places: _drawn([jobs[i] for i in places]),
                             Drawn, lambda drawn: drawn.error != _STOPPED_MESSAGE)


_STOPPED_MESSAGE = (f"took longer than {TIMEOUT:.0f} s and was stopped; make the chart "
                    "smaller")


def _drawn(jobs: list[Job]) -> list[Drawn]:
    if not jobs:
        return []
    if versions().endswith("missing"):
        return [Drawn(error="vl-convert-python is not installed (pip install "
                      "vl-convert-python)") for _ in jobs]
    from blogbuild.diagrams import drawer

    answers = drawer.charts([(kind, spec, "") for kind, spec in jobs], timeout=TIMEOUT)
    out = []
    for code, svg, err in answers:
        if err == drawer.STOPPED:
            out.append(Drawn(error=_STOPPED_MESSAGE))
        elif code != 0:
            out.append(Drawn(error=said(err)))
        else:
            out.append(Drawn(svg=svg))
    return out


def said(message: str) -> str:
    """What the renderer said, without its JavaScript stack: the first line of the error
    after vl-convert's own words."""
    lines = [line.strip() for line in message.splitlines() if line.strip()]
    lines = [line for line in lines if not line.startswith("at ")
             and "conversion failed" not in line]
    first = lines[0] if lines else message.strip() or "the renderer gave no reason"
    for prefix in ("Error: ", "TypeError: ", "ReferenceError: ", "SyntaxError: "):
        first = first.removeprefix(prefix)
    return first[:300]
