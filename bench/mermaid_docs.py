#!/usr/bin/env python3
"""Measure how many of Mermaid's documented examples the build draws.

Usage: python bench/mermaid_docs.py FOLDER [--json OUT]

FOLDER holds Markdown pages, such as Mermaid's syntax pages (packages/mermaid/src/docs/
syntax/*.md in mermaid-js/mermaid). Every ```mermaid and ```mermaid-example block in them is
drawn as a build draws it (blogbuild.diagrams.draw, light theme, no cache), and each one
mmdr refuses is put to Mermaid's own parser, as the build does. Prints the share drawn at
build time (SVG), left to Mermaid's script in the reader's browser (Mermaid accepts it) and
refused (an error in a build), each refused block with its page, line and what mmdr and
Mermaid said, and how long Mermaid's parser took to start and per diagram. --json writes
every block's outcome.

Run it with PYTHONPATH=src to measure a working tree rather than the installed package.
"""

from __future__ import annotations

import argparse
import collections
import json
import re
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

from blogbuild.diagrams import draw, drawer
from blogbuild.diagrams.verdict import ACCEPTS

_FENCE = re.compile(r"^(\s*)(`{3,}|~{3,})\s*mermaid(?:-example)?\s*$")


def blocks(folder: Path) -> list[tuple[str, int, str]]:
    """(page, line of the fence, text) of every Mermaid block of the pages in `folder`."""
    found = []
    for page in sorted(folder.glob("*.md")):
        lines = page.read_text(encoding="utf-8").splitlines()
        at = 0
        while at < len(lines):
            opened = _FENCE.match(lines[at])
            if opened is None:
                at += 1
                continue
            indent, fence = opened[1], opened[2]
            end = at + 1
            while end < len(lines) and not (lines[end].strip().startswith(fence)
                                            and not lines[end].strip().strip(fence[0])):
                end += 1
            body = [line.removeprefix(indent) for line in lines[at + 1:end]]
            found.append((page.name, at + 1, "\n".join(body) + "\n"))
            at = end + 1
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path)
    parser.add_argument("--json", type=Path, help="write every block's outcome here")
    args = parser.parse_args(argv)
    found = blocks(args.folder)
    if not found:
        print(f"no Mermaid block in {args.folder}/*.md")
        return 1
    jobs = [("mermaid", text, "default") for _, _, text in found]
    drawn = draw._drawn(jobs)
    refused = [index for index, one in enumerate(drawn) if not one.svg]
    start = time.perf_counter()
    if refused:  # Mermaid's parser: its process started by the first one, then each
        drawer.check([jobs[refused[0]][1]], timeout=draw.TIMEOUT)
    started = time.perf_counter()
    judged = draw._judged(jobs, drawn)
    each = (time.perf_counter() - started) / max(1, len(refused))
    outcomes = ["svg" if one.svg else "script" if one.mermaid == ACCEPTS else "refused"
                for one in judged]
    counts = collections.Counter(outcomes)
    print(f"{len(found)} Mermaid blocks in {args.folder}")
    for outcome, meaning in (("svg", "drawn at build time"),
                             ("script", "left to Mermaid's script (Mermaid accepts them)"),
                             ("refused", "refused by mmdr and by Mermaid")):
        print(f"  {counts[outcome]:4d}  {100 * counts[outcome] / len(found):5.1f} %  {meaning}")
    for (page, line, _), one, outcome in zip(found, judged, outcomes, strict=True):
        if outcome != "svg":
            print(f"  {outcome}: {page}:{line}: mmdr: {one.error}"
                  + (f" | Mermaid: {one.said}" if one.said else ""))
    if refused:
        print(f"Mermaid's parser: {started - start:.2f} s to start and answer the first, "
              f"{1000 * each:.1f} ms per diagram after")
    if args.json:
        args.json.write_text(json.dumps(
            [{"page": page, "line": line, "outcome": outcome, "mmdr": one.error,
              "mermaid": one.said} for (page, line, _), one, outcome
             in zip(found, judged, outcomes, strict=True)], indent=1), encoding="utf-8")
    drawer.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
