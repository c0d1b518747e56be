#!/usr/bin/env python3
"""Draw the clean build's time and peak memory against the number of posts, per tool.

Usage: python bench/plot.py OUT.svg|OUT.png RESULTS.json [MORE.json ...]
(bench/run.py --plot draws it from the run itself; here, from `--json` files: sizes
measured in several runs are put together, a later file's size replacing an earlier's.)
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

#: (name in the figures, name on the plot, colour)
TOOLS = [("blogbuild", "blogbuild", "tab:blue"), ("hugo", "Hugo + Pagefind", "tab:orange")]


def clean_rows(reports: list[dict[str, Any]]) -> dict[int, dict[str, Any]]:
    """Posts -> the clean build's row, over every report."""
    rows: dict[int, dict[str, Any]] = {}
    for report in reports:
        for size in report["sizes"].values():
            for row in size["scenarios"]:
                if row["key"] == "clean":
                    rows[int(size["posts"])] = row
    return dict(sorted(rows.items()))


def plot(reports: list[dict[str, Any]], out: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = clean_rows(reports)
    if not rows:
        raise SystemExit("no clean build was measured: nothing to plot")
    search = all(r.get("search", True) for r in reports)
    fig, (times, memory) = plt.subplots(1, 2, figsize=(10, 4), layout="constrained")
    for key, label, colour in TOOLS:
        points = [(n, row[key]) for n, row in rows.items() if row.get(key)]
        if not points:
            continue
        posts = [n for n, _ in points]
        times.plot(posts, [f["best_s"] for _, f in points], "o-", color=colour, label=label)
        memory.plot(posts, [f["tree_peak_mib"] for _, f in points], "o-", color=colour,
                    label=label)
    times.set(title="clean build, no cache: time", xlabel="posts", ylabel="seconds (best run)")
    memory.set(title="clean build: peak memory of the process tree", xlabel="posts",
               ylabel="MiB (sum of RSS)")
    for axes in (times, memory):
        axes.set_xticks(list(rows))
        axes.set_ylim(bottom=0)
        axes.grid(alpha=0.3)
        axes.legend()
    cores = reports[-1].get("machine", {}).get("cores")
    fig.suptitle(f"a generated blog, math on, search {'on' if search else 'off'}"
                 + (f", {cores} cores" if cores else ""))
    if out.suffix == ".svg":  # text, the same bytes for the same figures (no date, fixed ids)
        with matplotlib.rc_context({"svg.hashsalt": "blogbuild-bench"}):
            fig.savefig(out, metadata={"Date": None})
    else:
        fig.savefig(out, dpi=100)
    plt.close(fig)


def main() -> int:
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    plot([json.loads(Path(name).read_text()) for name in sys.argv[2:]], Path(sys.argv[1]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
