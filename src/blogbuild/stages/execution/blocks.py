"""Runnable blocks that run at build time (the execution stage's work): part of a source's
render, between parsing and rendering its tokens.

A block runs when it says `data-execute="build"`, or when site.yaml says `runnable:
{execute: build}` and the block does not say `data-execute="browser"`. The page's blocks
run in order in one interpreter (blogbuild.runtimes.python); each block's output items
go into the meta of its closing token, where the widget's render rule shows them.
"""

from __future__ import annotations

import base64
import sys
from dataclasses import dataclass
from typing import Any

from markdown_it.token import Token

from blogbuild.content.records import Execution
from blogbuild.fingerprints import CAPTURE_MODULE
from blogbuild.markdown.env import Env, report, report_error, token_line
from blogbuild.markdown.images import drawn_picture
from blogbuild.runtimes.python import Block, BlockRun, Options, run_page
from blogbuild.stages.context import Page
from blogbuild.themefiles import theme_static

_PYTHON = ("python", "py")


@dataclass(frozen=True)
class Found:
    """A block that runs at build time, where the post has it."""

    block: Block
    close: Token
    line: int  # the source line of the block's first line of code


def _runnables(tokens: list[Token]) -> list[tuple[Token, Token, Token | None]]:
    """(open, close, first code token inside) of every runnable block, in page order."""
    found: list[tuple[int, Token, Token, Token | None]] = []
    stack: list[tuple[int, Token, Token | None]] = []
    for index, token in enumerate(tokens):
        if token.type == "runnable_open":
            stack.append((index, token, None))
        elif token.type in ("fence", "code_block") and stack and stack[-1][2] is None:
            stack[-1] = (*stack[-1][:2], token)
        elif token.type == "runnable_close" and stack:
            start, opener, code = stack.pop()
            found.append((start, opener, token, code))
    return [(opener, close, code) for _, opener, close, code in sorted(found,
                                                                       key=lambda t: t[0])]


def to_run(tokens: list[Token], env: Env, default: str) -> list[Found]:
    """The blocks of the page that run at build time, in order."""
    found = []
    number = 0
    for opener, close, code in _runnables(tokens):
        meta = opener.meta
        python = str(meta.get("lang", "python")).lower() in _PYTHON
        number += python  # the browser names its Python blocks "block 1", "block 2", …
        if (meta.get("execute") or default) != "build" or code is None:
            continue
        if not python:
            if meta.get("execute") == "build":  # asked by the block itself, not the site
                report(env, int(meta.get("line", 0)), f"runnable: only Python runs at build "
                       f"time, not {meta.get('lang')!r}; this block is left to the browser")
            continue
        block = Block(code.content, f"block {number}", bool(meta.get("isolated")),
                      bool(meta.get("allow_error")))
        first = token_line(env, code) + (1 if code.type == "fence" else 0)
        found.append(Found(block, close, first))
    return found


def run_blocks(found: list[Found], page: Page) -> Execution:
    """Run the page's build-time blocks `found` (`to_run`), put their output in the
    tokens, report problems. The pictures they draw become files beside the page
    (`env["files"]`), in the copies the site's own pictures have
    (markdown.images.drawn_picture)."""
    runnable, env = page.runnable, page.env
    assert runnable is not None
    options = Options(float(runnable.timeout), theme_static() / CAPTURE_MODULE,
                      page.folders.runs)
    ran = run_page([f.block for f in found], options)
    failed_at = 0
    for item, run in zip(found, ran.runs, strict=True):
        if run.status in ("ok", "error"):
            item.close.meta["outputs"] = [_as_files(i, env, item.line) for i in run.items]
        if run.fails(item.block) and not failed_at:
            failed_at = item.line
        _diagnose(env, item, run, failed_at, runnable.timeout)
    count = len(found)
    if ran.cached:
        return Execution(0, count, 0.0)
    return Execution(sum(r.status != "skipped" for r in ran.runs), 0, ran.seconds)


def _as_files(item: dict[str, Any], env: Env, line: int) -> dict[str, Any]:
    """`item`, with the copies of the PNG it holds when it is one (see images.outputs), or
    the token of the chart it is, for the chart stage to draw (blogbuild.stages.charts)."""
    if item.get("type") == "chart":
        return _chart(item, env, line)
    if item.get("type") != "image" or item.get("mime") != "image/png":
        return item
    try:
        data = base64.b64decode(str(item.get("data", "")), validate=True)
    except ValueError:
        return item
    info = drawn_picture(env, data)
    return item if info is None else {**item, "picture": info, "base": env.get("page_url")}


def _diagnose(env: Env, item: Found, run: BlockRun, failed_at: int, timeout: int) -> None:
    if run.status == "error" and not item.block.allow_error:
        line = item.line + run.line - 1 if run.line else item.line
        where = f" (line {run.line} of the block)" if run.line else ""
        fix = "fix the code"
        if run.error.startswith(("ModuleNotFoundError", "ImportError")):
            # The build runs blocks with the Python that runs blogbuild, not the reader's.
            fix = (f"install the package in the Python that runs blogbuild "
                   f"({sys.executable} -m pip install NAME)")
        report_error(env, line, f"the Python block raised {run.error}{where}; {fix}, "
                     'or add data-allow-error="true" to the block to show the traceback')
    elif run.status == "timeout":
        report_error(env, item.line, f"the Python block was still running after {timeout} s "
                     "and was stopped; make it faster, or raise 'runnable.timeout' in site.yaml")
    elif run.status == "crashed":
        report_error(env, item.line, f"the Python block could not finish: {run.error}")
    elif run.status == "skipped":
        report(env, item.line, f"this Python block was not run: the block at line "
               f"{failed_at} failed first, and the blocks of a page run in order")


def _chart(item: dict[str, Any], env: Env, line: int) -> dict[str, Any]:
    """A chart item of a block at `line` with the chart token the chart stage makes ready
    (the charts stage runs after this one)."""
    from markdown_it.token import Token

    from blogbuild.markdown.notebook.outputs import chart_of

    found = chart_of({str(item.get("mime", "")): item.get("data")})
    if found is None:
        return {"type": "result", "text": "A chart whose data could not be read"}
    token = Token("chart", "figure", 0)
    token.meta = {"kind": found[0], "value": found[1], "outputs_line": line}
    env.setdefault("charts", []).append(token)
    return {**item, "token": token}
