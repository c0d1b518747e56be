#!/usr/bin/env python3
"""What a rebuild in a new process pays before it does any work: the floor of its time.

Usage: python bench/floor.py [--n 1000] [--runs 9] [--scenarios nochange,edit,new]

For each scenario of bench/run.py (on its corpus of --n posts, blogbuild only), one build
is run with `python -X importtime` to record the modules the build's own process imports.
Then, run by run, each of these is timed in a new process of this Python:

  interpreter      `python -c pass`
  libraries        importing the recorded modules that are neither blogbuild's nor the
                   standard library's (markdown-it-py and its plugins, Jinja2, PyYAML, …)
  all modules      importing every recorded module, blogbuild's and the standard
                   library's too
  the build        the scenario's build itself, as bench/run.py times it

The build cannot take less than "all modules" while it imports what it imports now, nor
less than "libraries" whatever it imports of its own; "work" is the build's median less
the median of "all modules". Figures are medians of the runs (min and max beside them);
the four take turns within each run, so that a change in the machine's load hits all.

Run it with the Python a user's install runs (`pipx` and `uv tool` make a virtual
environment): a start-up file of the Python installation (a `.pth` file) runs in every
new process, this one's timings too.
"""

from __future__ import annotations

import argparse
import importlib.util
import re
import statistics
import sys
import tempfile
from collections import Counter
from dataclasses import replace
from pathlib import Path

from corpora import CORPORA, Blogbuild, Command, Site, build_flags, make_corpus, spare_posts
from proctree import measure, run_quietly
from run import parse_scenarios
from scenarios import Scenario, run_once

#: A line of `-X importtime`: "import time: <self µs> | <cumulative µs> | <indent><name>".
IMPORT_LINE = re.compile(r"^import time:\s+\d+ \|\s+\d+ \|\s*(\S+)\s*$", re.MULTILINE)
#: Modules a new process cannot import as such (they run a program when imported).
NOT_IMPORTED = frozenset({"__main__", "blogbuild.__main__", "sitecustomize", "usercustomize"})
FIGURES = ("interpreter", "libraries", "all modules", "the build")


def imported(stderr: str) -> list[str]:
    """The modules an `-X importtime` run imported, in the order it imported them (not
    those it only looked for: `copy` tries Jython's `org.python.core`)."""
    return [name for name in dict.fromkeys(IMPORT_LINE.findall(stderr))
            if name not in NOT_IMPORTED
            and importlib.util.find_spec(name.partition(".")[0]) is not None]


def is_library(name: str) -> bool:
    """Whether `name` is a module of neither blogbuild nor the standard library. A
    top-level name with a leading underscore that is not the standard library's is a hook
    the installation runs at start-up (setuptools' `_distutils_hack`), not a library."""
    top = name.partition(".")[0]
    return top != "blogbuild" and top not in sys.stdlib_module_names and not top.startswith("_")


def recorded(scenario: Scenario, site: Blogbuild, spare: list[str]) -> list[str]:
    """The modules the scenario's build imports in its own process: one run of it, as
    `run_once` makes it, with `-X importtime`."""
    def command(site: Site) -> Command:
        argv, env = scenario.command(site)
        return [argv[0], "-X", "importtime", *argv[1:]], env

    return imported(run_once(replace(scenario, command=command), site, 0, spare).stderr)


def importer(names: list[str], folder: Path, label: str) -> list[str]:
    """The command that imports `names` in a new process (written to a file in `folder`)."""
    script = folder / f"import-{label}.py"
    script.write_text("import importlib\n" + "".join(
        f"importlib.import_module({name!r})\n" for name in names), encoding="utf-8")
    return [sys.executable, str(script)]


def timed(scenario: Scenario, site: Blogbuild, spare: list[str], runs: int,
          folder: Path) -> dict[str, list[float]]:
    """Seconds of each figure, `runs` times, the four taking turns."""
    names = recorded(scenario, site, spare)
    env = site.build()[1]
    commands = {"interpreter": [sys.executable, "-c", "pass"],
                "libraries": importer([n for n in names if is_library(n)], folder,
                                      f"{scenario.key}-libraries"),
                "all modules": importer(names, folder, f"{scenario.key}-all")}
    for argv in commands.values():  # every import works on its own, and is compiled
        run_quietly(argv, cwd=site.root, env=env)
    found: dict[str, list[float]] = {figure: [] for figure in FIGURES}
    for run in range(runs):
        for figure, argv in commands.items():
            found[figure].append(measure(argv, cwd=site.root, env=env).wall)
        found["the build"].append(run_once(scenario, site, run, spare).wall)
    libraries = Counter(name.partition(".")[0] for name in names if is_library(name))
    print(f"{scenario.label}: {len(names)} modules imported; libraries: "
          + (", ".join(f"{top} {count}" for top, count in libraries.most_common()) or "none"))
    return found


def row(label: str, seconds: list[float]) -> str:
    return (f"  {label:14}{statistics.median(seconds):8.3f}"
            f"{min(seconds):8.3f}{max(seconds):8.3f}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1000, help="posts in the corpus (1000)")
    parser.add_argument("--runs", type=int, default=9, help="runs of each figure (9)")
    parser.add_argument("--scenarios", type=parse_scenarios,
                        default=parse_scenarios("nochange,edit,new"),
                        help="scenarios of bench/run.py, comma-separated")
    args = parser.parse_args()
    if args.runs < 1 or args.n < 1:
        parser.error("--n and --runs must be at least 1")
    if any(s.clean for s in args.scenarios):
        parser.error("a clean build is no rebuild: its floor is not what this measures")
    root = CORPORA / f"n{args.n}"
    make_corpus(root, args.n, "blog")
    site = Blogbuild(root, math=True, flags=build_flags())
    spare = spare_posts(args.runs)
    print(f"{args.n:,} posts · {sys.executable} · seconds: median, min, max of {args.runs}")
    with tempfile.TemporaryDirectory() as tmp:
        for scenario in args.scenarios:
            found = timed(scenario, site, spare, args.runs, Path(tmp))
            for figure in FIGURES:
                print(row(figure, found[figure]))
            work = (statistics.median(found["the build"])
                    - statistics.median(found["all modules"]))
            print(f"  {'work':14}{work:8.3f}  (the build less all modules)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
