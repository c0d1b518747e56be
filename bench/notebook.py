"""Benchmark: a notebook of 50 cells with 10 figures, published as a post.

    python bench/notebook.py [--cells 50] [--figures 10] [--runs 3] [--keep DIR]

Writes a notebook as Jupyter saves one (nbformat 4; Markdown with math, code, printed
text, pandas tables and Matplotlib figures stored as PNG outputs; the outputs are made
here, no kernel runs), puts it in a one-post blog and prints:

- the build's time: cold (no cache, no output), cached (the output folder removed and the
  cache kept, as a deploy does) and after one Markdown cell is edited, each the median of
  `--runs` runs of the `blogbuild` command;
- what a reader's browser downloads for the page (Chromium, 1400 pixels wide, scrolled to
  the end): HTML, CSS and JavaScript, pictures, gzip-compressed as a web server sends
  them, against nbconvert's HTML export of the same notebook (`jupyter nbconvert --to
  html`: one file, pictures inline in base64, its CSS inline), compressed the same way.

Needs the test extras (nbformat, nbconvert, matplotlib, pandas, playwright) and Debian's
Chromium.
"""

from __future__ import annotations

import argparse
import base64
import gzip
import io
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from localserver import serve_folder

CHROMIUM = "/usr/bin/chromium"
TEXT_TYPES = (".html", ".css", ".js", ".json", ".svg", ".xml")


def figure(seed: int) -> str:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    rng = np.random.default_rng(seed)
    fig, ax = plt.subplots(figsize=(6.4, 4.0), dpi=100)
    x = np.linspace(0, 10, 200)
    for k in range(3):
        ax.plot(x, np.sin(x * (k + 1) / 3) + rng.normal(0, 0.1, x.size), label=f"series {k}")
    ax.legend()
    ax.set_title(f"Figure {seed}")
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", metadata={"Software": None})
    plt.close(fig)
    return base64.b64encode(buffer.getvalue()).decode("ascii")


def notebook(cells: int, figures: int) -> str:
    import nbformat
    import pandas as pd
    from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

    items = [nbformat.v4.new_raw_cell("---\ntitle: A long notebook\ndate: 2026-01-01\n---")]
    drawn = 0
    for i in range(cells - 1):
        if i % 5 == 0:
            items.append(new_markdown_cell(
                f"## Part {i // 5 + 1}\n\nWe look at $f_{i}(x) = \\sin(x/{i + 1})$ and "
                "what it does over the interval; the figure below shows three series."))
        elif drawn < figures and i % 5 in (1, 3):
            drawn += 1
            items.append(new_code_cell(
                f"fig, ax = plt.subplots()\nax.plot(x, np.sin(x / {i}))\nplt.show()",
                outputs=[new_output("display_data", data={
                    "image/png": figure(i), "text/plain": "<Figure size 640x400 with 1 Axes>"})]))
        elif i % 5 == 2:
            frame = pd.DataFrame({"x": range(8), "sin": [round(j * 0.1, 3) for j in range(8)]})
            items.append(new_code_cell("df.head(8)", outputs=[new_output(
                "execute_result", execution_count=i,
                data={"text/html": frame._repr_html_(), "text/plain": frame.to_string()})]))
        else:
            items.append(new_code_cell(
                f"for k in range(5):\n    print(k, k ** {i % 4 + 1})",
                outputs=[new_output("stream", name="stdout",
                                    text="".join(f"{k} {k ** (i % 4 + 1)}\n" for k in range(5)))]))
    nb = new_notebook(cells=items, metadata={
        "kernelspec": {"name": "python3", "language": "python", "display_name": "Python 3"}})
    return str(nbformat.writes(nb))


def run(command: list[str], cwd: Path) -> float:
    start = time.perf_counter()
    subprocess.run(command, cwd=cwd, check=True, capture_output=True)
    return time.perf_counter() - start


def median_of(runs: int, prepare: object, command: list[str], cwd: Path) -> float:
    times = []
    for _ in range(runs):
        assert callable(prepare)
        prepare()
        times.append(run(command, cwd))
    return statistics.median(times)


def page_weight(folder: Path, path: str) -> dict[str, int]:
    """Bytes (gzip for text) Chromium downloads for `path` under `folder`, by kind."""
    from playwright.sync_api import sync_playwright

    server, root = serve_folder(folder)
    base = root.rstrip("/")
    found: dict[str, int] = {"html": 0, "css+js": 0, "pictures": 0, "other": 0}
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": 1400, "height": 900})
        page.route("**/*", lambda r: r.continue_() if r.request.url.startswith(base)
                   else r.abort())

        def on_response(response):  # type: ignore[no-untyped-def]
            body = response.body()
            url = response.url.split("?")[0]
            sent = len(gzip.compress(body, 9)) if url.endswith(TEXT_TYPES) or \
                url.endswith("/") else len(body)
            kind = response.request.resource_type
            key = ("html" if kind == "document" else "css+js" if kind in ("stylesheet", "script")
                   else "pictures" if kind == "image" else "other")
            found[key] += sent
        page.on("response", on_response)
        page.goto(base + path)
        height = int(page.evaluate("document.body.scrollHeight"))
        for y in range(0, height + 900, 600):
            page.evaluate(f"window.scrollTo(0, {y})")
            page.wait_for_timeout(50)
        page.wait_for_load_state("networkidle")
        browser.close()
    server.shutdown()
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cells", type=int, default=50)
    parser.add_argument("--figures", type=int, default=10)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--keep", type=Path, help="build in this folder and keep it")
    args = parser.parse_args()
    root = args.keep or Path(tempfile.mkdtemp(prefix="blogbuild-bench-nb-"))
    site = root / "site"
    shutil.rmtree(site, ignore_errors=True)
    (site / "content" / "posts").mkdir(parents=True)
    (site / "site.yaml").write_text("title: Bench\nbase_url: http://127.0.0.1/\n")
    source = site / "content" / "posts" / "long.ipynb"
    text = notebook(args.cells, args.figures)
    source.write_text(text, encoding="utf-8")
    print(f"notebook: {args.cells} cells, {args.figures} figures, {len(text) / 1e6:.2f} MB")

    build = ["blogbuild", "build", "--quiet"]
    cold = median_of(args.runs, lambda: (shutil.rmtree(site / "_site", ignore_errors=True),
                                         shutil.rmtree(site / ".blogbuild-cache",
                                                       ignore_errors=True)), build, site)
    cached = median_of(args.runs, lambda: shutil.rmtree(site / "_site", ignore_errors=True),
                       build, site)
    edits = iter(range(10**6))

    def edit() -> None:
        source.write_text(text.replace("what it does", f"what it does ({next(edits)})", 1),
                          encoding="utf-8")
    edited = median_of(args.runs, edit, build, site)
    print(f"build: cold {cold:.2f} s, cached {cached:.2f} s, one cell edited {edited:.2f} s "
          f"(median of {args.runs})")

    ours = page_weight(site / "_site", "/posts/long/")
    export = root / "export"
    export.mkdir(exist_ok=True)
    shutil.copy(source, export / "long.ipynb")
    subprocess.run(["jupyter", "nbconvert", "--to", "html", "long.ipynb"], cwd=export,
                   check=True, capture_output=True)
    theirs = page_weight(export, "/long.html")
    for name, found in (("blogbuild", ours), ("nbconvert --to html", theirs)):
        total = sum(found.values())
        parts = ", ".join(f"{k} {v / 1000:.0f} kB" for k, v in found.items() if v)
        print(f"{name:>20}: {total / 1000:.0f} kB ({parts})")
    print(f"ratio: {sum(ours.values()) / sum(theirs.values()):.2f}")
    if args.keep is None:
        shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
