"""Run hundreds of generated blogs through `blogbuild build` (or `serve`) as users run it.

    python bench/shapes.py --examples 200            # build sequences
    python bench/shapes.py --examples 30 --serve     # live-server sequences
    python bench/shapes.py --seed 7 --keep /tmp/bad  # other shapes; keep failing sites

Each shape (tests/blogshapes.py, the generator `tests/test_e2e_shapes.py` uses in CI)
goes through a clean build, no change, an edited post, a new post with math, a deleted
post and a renamed post, each step in subprocesses and checked for: exit status 0 (not a
signal), no traceback on stderr, nothing of the command's session left running, and an
output equal to a clean build. Prints one line per shape and a summary of the failures
grouped by kind, each with the shape that failed; exits 1 when anything failed.

Run it with PYTHONPATH=src to test a working tree rather than the installed package.
"""

from __future__ import annotations

import argparse
import collections
import re
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from hypothesis import HealthCheck, Phase, given, seed, settings

from blogshapes import (
    Outcome,
    Problem,
    Shape,
    build_sequence,
    command,
    serve_sequence,
    shapes,
)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--examples", type=int, default=100, help="shapes to try")
    parser.add_argument("--serve", action="store_true", help="the live-server sequence")
    parser.add_argument("--seed", type=int, default=0, help="hypothesis seed")
    parser.add_argument("--keep", type=Path, default=None,
                        help="copy the folder of each failing shape here")
    args = parser.parse_args()

    sequence = serve_sequence if args.serve else build_sequence
    results: list[tuple[Shape, Outcome, float]] = []
    print(f"running {command()} ({'serve' if args.serve else 'build'}), "
          f"{args.examples} shapes, seed {args.seed}", flush=True)

    @seed(args.seed)
    @settings(max_examples=args.examples, deadline=None, database=None,
              phases=[Phase.generate], suppress_health_check=list(HealthCheck))
    @given(shapes())
    def run(shape: Shape) -> None:
        with tempfile.TemporaryDirectory(prefix="blogbuild-shapes-") as work:
            start = time.monotonic()
            try:
                outcome = sequence(shape, Path(work))
            except Exception as exc:  # a failure of the harness itself: shown, and on we go
                outcome = Outcome([Problem("harness", "?", repr(exc))])
            seconds = time.monotonic() - start
            results.append((shape, outcome, seconds))
            mark = "ok  " if not outcome.problems else "FAIL"
            print(f"{len(results):4d} {mark} {seconds:5.1f} s {shape.describe()}", flush=True)
            for problem in outcome.problems:
                print(f"         {problem}", flush=True)
            if outcome.problems and args.keep is not None:
                shutil.copytree(work, args.keep / f"shape-{len(results)}", symlinks=True)

    run()
    return summary(results)


def group(problem: Problem) -> str:
    """A failure's kind and step, with numbers, paths and pids left out."""
    detail = re.sub(r"/\S+|\d+", "N", problem.detail.split(":")[0])
    return f"{problem.kind} at '{problem.step}': {detail}"


def summary(results: list[tuple[Shape, Outcome, float]]) -> int:
    failed = [(shape, outcome) for shape, outcome, _ in results if outcome.problems]
    commands = sum(outcome.commands for _, outcome, _ in results)
    seconds = sum(s for _, _, s in results)
    kinds = collections.Counter(shape.kind for shape, _, _ in results)
    features = collections.Counter(f for shape, _, _ in results for f in shape.features())
    print(f"\n{len(results)} shapes, {commands} commands, {seconds:.0f} s; "
          f"{len(failed)} shapes failed")
    print("kinds: " + ", ".join(f"{k} {n}" for k, n in sorted(kinds.items())))
    print("features: " + ", ".join(f"{k} {n}" for k, n in sorted(features.items())))
    on = [(s.search, s.social_cards, len(s.posts) >= 24) for s, _, _ in results]
    print(f"search on: {sum(o[0] for o in on)}, social cards on: {sum(o[1] for o in on)}, "
          f"24+ posts: {sum(o[2] for o in on)}")
    groups: dict[str, list[tuple[Shape, Problem]]] = collections.defaultdict(list)
    for shape, outcome in failed:
        for problem in outcome.problems:
            groups[group(problem)].append((shape, problem))
    for name, cases in sorted(groups.items(), key=lambda item: -len(item[1])):
        print(f"\n{len(cases)} x {name}")
        for shape, problem in cases[:3]:
            print(f"  {shape.describe()}\n    {problem}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
