"""The diagram drawer's process (blogbuild.diagrams.drawer): reads batches of diagrams from
its standard input and answers each diagram as soon as it is drawn, on its standard output
(messages as blogbuild.childproc frames them). Mermaid is drawn here by mmdr, Graphviz by
graphviz-pure's program. Run isolated (`python -I`), under a memory cap (limited.py).

A batch is a list of (kind, text, program): kind "mermaid" with the text to draw as it is,
or "dot" with graphviz-pure's program to run. An answer is (exit status, SVG, what the
renderer said), as a process of the renderer alone would give them (a Graphviz drawing's
SVG followed by its layout: blogbuild.diagrams.layout).
"""

from __future__ import annotations

import os
import subprocess
import sys
import traceback


def _mermaid(text: str) -> tuple[int, str, str]:
    import mmdr

    try:
        return 0, mmdr.render(text).svg(), ""
    except BaseException as exc:  # what the renderer said, as its process would print it
        return 1, "", "".join(traceback.format_exception_only(type(exc), exc))


def _dot(text: str, program: str) -> tuple[int, str, str]:
    # SERVER_NAME: dot then reads no file a graph names (image=, shapefile=).
    # Two outputs of one layout: the SVG, then the layout, which says what was not drawn
    # (blogbuild.diagrams.layout, which also gave the graph its face).
    done = subprocess.run([program, "-Tsvg", "-Tjson0"], input=text.encode("utf-8"),
                          capture_output=True, check=False,
                          env={"SERVER_NAME": "blogbuild", "PATH": os.environ.get("PATH", "")})
    return (done.returncode, done.stdout.decode("utf-8", "replace"),
            done.stderr.decode("utf-8", "replace"))


def main() -> None:
    # Isolated (`python -I`): blogbuild is found where this file is, not on PYTHONPATH.
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(__file__))))
    from blogbuild import childproc

    inp, out = sys.stdin.buffer, sys.stdout.buffer
    while True:
        batch = childproc.read(inp)
        if batch is None:
            return
        for kind, text, program in batch:
            answer = _mermaid(text) if kind == "mermaid" else _dot(text, program)
            childproc.write(out, answer)


if __name__ == "__main__":
    main()
