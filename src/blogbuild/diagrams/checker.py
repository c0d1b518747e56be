"""Mermaid's own parser, in a process of its own (blogbuild.diagrams.drawer starts it the first
time mmdr refuses a diagram): the vendored browser bundle in V8 (mini-racer), with the few
browser globals its parser needs (checker.js), answering whether Mermaid accepts a text.

It reads batches as the drawing process does, a list of ("parse", text, ""), and answers
each (0, "", "") when Mermaid accepts the text, (1, "", what Mermaid said) when it refuses
it. V8 holds its heap to `HEAP` bytes (the address-space cap of the drawing process cannot
be used: V8 reserves far more address space than it uses, and dies under one).
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from py_mini_racer import MiniRacer

HERE = Path(__file__).resolve().parent
MERMAID = HERE.parent / "vendor" / "mermaid" / "mermaid.min.js"
HEAP = 512 * 1024 * 1024

#: After the bundle: the shim's trap is lifted, and a parse answers with a string (a
#: rejected promise would carry no more than its message through mini-racer).
_AFTER = """
delete Object.prototype.isSupported;
var blogbuildParse = function (text) {
  return mermaid.parse(text).then(function () { return ""; }, function (error) {
    var said = error && (error.message || error.str) || String(error);
    return "refused:" + (said || "Mermaid refused it");
  });
};
"""


def main() -> None:
    # Isolated (`python -I`): blogbuild is found where this file is, not on PYTHONPATH.
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(__file__))))
    from py_mini_racer import MiniRacer

    from blogbuild import childproc

    inp, out = sys.stdin.buffer, sys.stdout.buffer
    ctx = MiniRacer()
    try:
        ctx.set_hard_memory_limit(HEAP)
        ctx.eval((HERE / "checker.js").read_text(encoding="utf-8"))
        ctx.eval(MERMAID.read_text(encoding="utf-8"))
        ctx.eval(_AFTER)
        while (batch := childproc.read(inp)) is not None:
            for _kind, text, _program in batch:
                childproc.write(out, _parse(ctx, text))
    finally:
        ctx.close()  # on the thread that made it (blogbuild.perprocess says why)


def _parse(ctx: MiniRacer, text: str) -> tuple[int, str, str]:
    """Mermaid's verdict on `text` (see the module's docstring)."""
    from py_mini_racer import JSOOMException, JSPromise

    try:
        promise = ctx.eval(f"blogbuildParse({json.dumps(text)})")
        said = str(promise.get() if isinstance(promise, JSPromise) else promise)
    except JSOOMException:
        return 1, "", "MemoryError: Mermaid's parser ran out of memory"
    return (1, "", said.removeprefix("refused:")) if said else (0, "", "")


if __name__ == "__main__":
    main()
