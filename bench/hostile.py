#!/usr/bin/env python3
"""Benchmark: time hostile Markdown patterns at growing sizes and print the growth factor.

Usage: python bench/hostile.py [--sizes 10000,20000,40000,80000] [--only NAME] [--limit S]

Each pattern is repeated to reach each size (in characters) and rendered once, in this
process, with the full parser (every plugin on). The growth factor is the time ratio between
two successive sizes: about 2 when the size doubles means linear, about 4 means quadratic.
A pattern that takes longer than --limit seconds is not tried at larger sizes.
"""

from __future__ import annotations

import argparse
import itertools
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

from blogbuild.markdown import create_markdown
from blogbuild.pipeline.render import render_markdown


def repeat(unit: str, before: str = "", after: str = "") -> Callable[[int], str]:
    def make(size: int) -> str:
        return before + unit * max(1, (size - len(before) - len(after)) // len(unit)) + after
    return make


def nest(opener: str, middle: str, closer: str) -> Callable[[int], str]:
    def make(size: int) -> str:
        n = max(1, (size - len(middle)) // (len(opener) + len(closer)))
        return opener * n + middle + closer * n
    return make


#: name -> a function from a size in characters to the Markdown text of that size.
PATTERNS: dict[str, Callable[[int], str]] = {
    "unclosed \\(": repeat("\\( a "),
    "unclosed $": repeat("$a "),
    "unclosed $$": repeat("$$a "),
    "unclosed \\[": repeat("\\[ a "),
    "unclosed $$ lines": repeat("$$\na\n\n"),
    "unclosed \\begin{align}": repeat("\\begin{align} x\n"),
    "math environments": repeat("$$\n\\begin{align}\nx\n\\end{align}\n$$\n\n"),
    "inline math": repeat("$x$ "),
    "spaced $ shell prompts": repeat("$ ls -la $HOME "),
    "$$ alone on lines beside $$": repeat("$$a$$\n", before="t $$b$$ t\n"),
    "$$ alone and beside text": repeat("$$a$$\nt $$b$$ t\n"),
    "spaced $ nested braces": nest("$ {", "a", "}"),
    "spaced $ TeX then digit": repeat("$ \\a $1 "),
    "unclosed $ with TeX": repeat("$\\frac{a}{b} "),
    "TeX then lone $": repeat("\\alpha$ "),
    "stars": repeat("*"),
    "stars words": repeat("*a "),
    "underscores words": repeat("_a "),
    "open brackets": repeat("["),
    "open brackets words": repeat("[a "),
    "open images": repeat("![a "),
    "angle brackets": repeat("<"),
    "angle words": repeat("<a "),
    "unclosed tags in a paragraph": repeat('<img alt="x '),
    "unclosed tags in HTML blocks": repeat('<div class="a"\n\n'),
    "backticks": repeat("`a "),
    "backtick runs": repeat("`` a ` "),
    "tildes fences": repeat("~~~\n"),
    "strike": repeat("~~a "),
    "nested brackets": nest("[", "a", "]"),
    "nested links": nest("[", "a", "](u)"),
    "links on many lines": repeat("a [b](c.md) ![d](e.png)\n"),
    "inline footnotes with links": repeat("t^[a\n[b](c.md)] "),
    "blockquote depth": repeat(">"),
    "blockquote lines": repeat("> " * 30 + "a\n"),
    "list depth": lambda size: "".join("  " * i + "- a\n" for i in range(int((size / 1.0) ** 0.5))),
    "braces": repeat("{"),
    "colons": repeat(":::\n"),
    "unclosed divs": repeat('<div class="collapsible" markdown="1">\na\n\n'),
    "unclosed runnable": repeat('<div class="runnable">\n\n'),
    "closed divs": repeat('<div class="collapsible">\na\n</div>\n\n'),
    "div tags one line": repeat('<div class="collapsible">` ` '),
    "callouts": repeat("> [!NOTE]\n> a\n\n"),
    "nested callouts": repeat("> [!NOTE]\n"),
    "footnotes": lambda size: "".join(f"a[^{i}]\n\n" for i in range(size // 16))
    + "".join(f"[^{i}]: n\n" for i in range(size // 16)),
    "footnote refs": repeat("[^x] ", after="\n\n[^x]: note\n"),
    "headings": repeat("## Title\n\n"),
    "headings distinct": lambda size: "".join(f"## T {i}\n\n" for i in range(size // 10)),
    "table columns": lambda size: "|" + "a|" * (size // 6) + "\n|" + "-|" * (size // 6) + "\n",
    "table rows": repeat("|a|b|\n", before="|a|b|\n|-|-|\n"),
    "html comments unclosed": repeat("<!-- a\n"),
    "long line": repeat("word "),
    "fences unclosed": repeat("```\n"),
    "autolinks": repeat("www.a.com "),
    "emphasis pairs": repeat("**a* "),
    "entities": repeat("&amp "),
}


def time_one(make: Callable[[int], str], size: int) -> float:
    md = create_markdown()
    text = make(size)
    start = time.perf_counter()
    render_markdown(md, text, file="bench.md")
    return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000,20000,40000,80000")
    parser.add_argument("--only", default="")
    parser.add_argument("--limit", type=float, default=20.0)
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    print(f"{'pattern':26}" + "".join(f"{s:>10}" for s in sizes) + "  growth")
    for name, make in PATTERNS.items():
        if args.only and args.only not in name:
            continue
        times: list[float] = []
        for size in sizes:
            times.append(time_one(make, size))
            if times[-1] > args.limit:
                break
        growth = max((b / a for a, b in itertools.pairwise(times) if a > 0.002), default=0.0)
        cells = "".join(f"{t:>9.3f}s" for t in times) + " " * 10 * (len(sizes) - len(times))
        print(f"{name:26}{cells}  {growth:.1f}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
