"""Run an installed blogbuild the way a new user does: `python scripts/smoke_wheel.py
VENV/bin/blogbuild [--version X]`.

The release workflow runs it on the wheel it is about to publish, and .ci/run on the wheel
it built, each in a fresh virtual environment with no source tree beside it. In a
temporary folder it runs `init`, `new`, adds a notebook post and a post with a Mermaid and
a Graphviz diagram, a formula, highlighted code and a runnable block run at build time,
runs `build --strict`, and checks what each needs from the wheel: KaTeX and its fonts, the
theme's stylesheet, the drawn diagrams, the notebook's outputs, the block's output and
Pyodide, the search index and the social cards' fonts. Then `serve` must answer
HTTP with the built pages and stop on Ctrl-C. Only the standard library is used, so any
Python runs it. Exit status 0 when everything holds; 1 with what failed.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

TIMEOUT = 300  # seconds a command may take (a first build starts Pagefind, KaTeX, mmdr)

NOTEBOOK = {
    "nbformat": 4, "nbformat_minor": 5,
    "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3",
                                "language": "python"},
                 "language_info": {"name": "python"}},
    "cells": [
        {"cell_type": "raw", "id": "front", "metadata": {},
         "source": ["---\n", "title: A notebook\n", "date: 2025-01-02\n", "---"]},
        {"cell_type": "markdown", "id": "prose", "metadata": {},
         "source": ["The sum $\\sum_{k=1}^{n} k$ of the first numbers:"]},
        {"cell_type": "code", "id": "sum", "metadata": {}, "execution_count": 1,
         "source": ["print(sum(range(1, 11)))"],
         "outputs": [{"output_type": "stream", "name": "stdout",
                      "text": ["smoke-output-55\n"]}]},
    ],
}

DIAGRAMS = """---
title: Diagrams
date: 2025-01-03
tags: [smoke]
---

Euler's identity, $e^{i\\pi} + 1 = 0$, and a loop:

```python
for n in range(3):
    print(n)
```

```mermaid
flowchart LR
  A[Source] --> B[Page]
```

```dot
digraph g { source -> page; }
```

<div class="runnable" data-lang="python" data-execute="build" markdown="1">

```python
print("smoke-runnable", 2 * 3)
```

</div>
"""


class SmokeError(Exception):
    """A step of the smoke test that did not do what it should."""


def run(blogbuild: str, *args: str, cwd: Path, env: dict[str, str]) -> str:
    """Run `blogbuild ARGS` in `cwd`; its stdout. A failure or a warning raises SmokeError."""
    proc = subprocess.run([blogbuild, *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=TIMEOUT)
    said = f"blogbuild {' '.join(args)} (exit {proc.returncode}):\n{proc.stdout}{proc.stderr}"
    if proc.returncode != 0 or "Traceback" in proc.stderr:
        raise SmokeError(said)
    if args[0] != "init" and (": warning:" in proc.stderr or ": error:" in proc.stderr):
        raise SmokeError(said)
    print(f"ok: blogbuild {' '.join(args)}")
    return proc.stdout


def expect(condition: bool, what: str) -> None:
    if not condition:
        raise SmokeError(what)
    print(f"ok: {what}")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def fetch(url: str, *, wait: float) -> str:
    """The body of `url`, retried until it answers 200 or `wait` seconds have passed."""
    deadline = time.monotonic() + wait
    while True:
        try:
            with urllib.request.urlopen(url, timeout=10) as response:
                body: bytes = response.read()
                return body.decode("utf-8")
        except OSError as exc:
            if time.monotonic() > deadline:
                raise SmokeError(f"{url} did not answer: {exc}") from None
            time.sleep(0.3)


def check_build(site: Path) -> None:
    """What the build must have made from the wheel's files."""
    out = site / "_site"
    pages = {path.parent.name: path.read_text(encoding="utf-8")
             for path in (out / "posts").glob("*/index.html")}
    expect({"hello-world", "a-second-post", "a-notebook", "diagrams"} <= set(pages),
           f"the four posts are built ({', '.join(sorted(pages))})")
    expect("smoke-output-55" in pages["a-notebook"], "the notebook's stored output is shown")
    expect('class="katex"' in pages["a-notebook"] and 'class="katex"' in pages["diagrams"],
           "math is typeset by the bundled KaTeX")
    expect(pages["diagrams"].count("<svg") >= 2, "the Mermaid and Graphviz diagrams are drawn")
    expect("smoke-runnable 6" in pages["diagrams"], "a runnable block runs at build time")
    expect(any(out.glob("**/pyodide.asm.wasm")), "Pyodide is published for runnable blocks")
    expect(any(out.glob("**/KaTeX_Main-Regular.woff2")), "KaTeX's fonts are published")
    expect((out / "css").is_dir() and any((out / "css").glob("*.css")),
           "the theme's stylesheet is published")
    expect(any(out.glob("**/pagefind*")), "the search index is built")
    expect(any(out.glob("**/*.png")), "social cards are drawn with the bundled fonts")


def check_serve(blogbuild: str, site: Path, env: dict[str, str]) -> None:
    """`serve` answers with the built pages and stops on Ctrl-C with status 0."""
    port = free_port()
    proc = subprocess.Popen([blogbuild, "serve", "--port", str(port), "--no-watch"], cwd=site,
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True, start_new_session=True)
    try:
        home = fetch(f"http://127.0.0.1:{port}/", wait=TIMEOUT)
        expect("A second post" in home, "serve answers with the home page")
        post = fetch(f"http://127.0.0.1:{port}/posts/diagrams/", wait=30)
        expect("<svg" in post, "serve answers with a post")
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            output, _ = proc.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            output, _ = proc.communicate()
            raise SmokeError(f"serve did not stop on Ctrl-C:\n{output}") from None
    expect(proc.returncode == 0 and "Traceback" not in output,
           f"serve stops on Ctrl-C (exit {proc.returncode})" + (
               "" if proc.returncode == 0 else f":\n{output}"))


def smoke(blogbuild: str, folder: Path, version: str | None) -> None:
    # Nothing of a source tree: no PYTHONPATH, and a folder outside any checkout.
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    said = run(blogbuild, "--version", cwd=folder, env=env).strip()
    if version is not None:
        expect(said == f"blogbuild {version}", f"--version says {said!r}")
    python = Path(blogbuild).parent / "python"
    where = subprocess.run([str(python), "-c", "import blogbuild; print(blogbuild.__file__)"],
                           cwd=folder, env=env, capture_output=True, text=True, check=True)
    expect("site-packages" in where.stdout,
           f"blogbuild is the installed one ({where.stdout.strip()})")
    run(blogbuild, "init", "blog", "--title", "Smoke test", cwd=folder, env=env)
    site = folder / "blog"
    run(blogbuild, "new", "A second post", cwd=site, env=env)
    posts = site / "content" / "posts"
    (posts / "2025-01-02-a-notebook.ipynb").write_text(json.dumps(NOTEBOOK), encoding="utf-8")
    (posts / "2025-01-03-diagrams.md").write_text(DIAGRAMS, encoding="utf-8")
    run(blogbuild, "build", "--strict", cwd=site, env=env)
    check_build(site)
    check_serve(blogbuild, site, env)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("blogbuild", help="the blogbuild command of a virtual environment")
    parser.add_argument("--version", help="the version --version must say")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="blogbuild-smoke-") as folder:
        try:
            smoke(str(Path(args.blogbuild).absolute()), Path(folder), args.version)
        except (SmokeError, subprocess.SubprocessError, OSError) as exc:
            print(f"smoke_wheel.py: failed: {exc}", file=sys.stderr)
            return 1
    print("smoke_wheel.py: every step passed")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
