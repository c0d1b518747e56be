"""The chart drawer's process (blogbuild.charts.vega): reads batches of specs from its
standard input and answers each as soon as it is drawn, on its standard output (framed as
blogbuild.childproc frames them), as the diagram drawer's process does. Vega and Vega-Lite
are drawn by vl-convert (Vega's own JavaScript in a V8 of its own, no browser), which loads
nothing (`allowed_base_urls=[]`) and measures text in the vendored DejaVu Sans.

A batch is a list of (kind, spec as JSON, ""): kind "vega-lite" or "vega". An answer is
(0, SVG, "") or (1, "", what the renderer said). Run isolated (`python -I`).
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

FONTS = Path(__file__).resolve().parent.parent / "vendor" / "fonts"


def _draw(kind: str, spec: str) -> tuple[int, str, str]:
    import vl_convert

    draw = vl_convert.vegalite_to_svg if kind == "vega-lite" else vl_convert.vega_to_svg
    try:
        return 0, draw(json.loads(spec), allowed_base_urls=[]), ""
    except BaseException as exc:  # what the renderer said, as its process would print it
        return 1, "", str(exc)


def main() -> None:
    # Isolated (`python -I`): blogbuild is found where this file is, not on PYTHONPATH.
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(__file__))))
    import vl_convert

    from blogbuild import childproc

    vl_convert.register_font_directory(str(FONTS))
    inp, out = sys.stdin.buffer, sys.stdout.buffer
    while (batch := childproc.read(inp)) is not None:
        for kind, spec, _ in batch:
            childproc.write(out, _draw(kind, spec))


if __name__ == "__main__":
    main()
