#!/usr/bin/env python3
"""Benchmark: build the shared 1,000-post corpus and print wall time, posts/s and peak memory.

Usage: python bench/run.py [--n 1000] [--workers N] [--no-math] [--runs 3]

Makes the corpus with ../shared/bench/make_corpus.py --layout blog (once, in bench/corpus/),
then times in fresh processes: a cold build (empty render cache), a warm rebuild (every post
cached), and a cold build with one worker. Peak memory is the largest resident set of the
build process and its workers.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
MAKE_CORPUS = REPO.parent / "shared" / "bench" / "make_corpus.py"

SITE_YAML = """title: "Benchmark corpus"
base_url: "https://bench.example.org/blog/"
author: "Bench"
posts_per_page: 10
"""


def make_corpus(n: int, math: bool) -> Path:
    corpus = HERE / "corpus" / f"n{n}{'' if math else '-nomath'}"
    if not (corpus / "content" / "posts").is_dir():
        shutil.rmtree(corpus, ignore_errors=True)
        subprocess.run([sys.executable, str(MAKE_CORPUS), "--n", str(n), "--layout", "blog",
                        "--out", str(corpus)], check=True, stdout=subprocess.DEVNULL)
    extra = "" if math else "math:\n  enabled: false\n"
    (corpus / "site.yaml").write_text(SITE_YAML + extra)
    return corpus


def timed_build(corpus: Path, workers: int | None, *, cold: bool) -> tuple[float, int]:
    """Wall seconds and peak RSS (KiB) of one `blogbuild build` in a fresh process."""
    if cold:
        shutil.rmtree(corpus / ".blogbuild-cache", ignore_errors=True)
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO / "src") + os.pathsep + env.get("PYTHONPATH", "")
    if workers:
        env["BLOGBUILD_WORKERS"] = str(workers)
    code = (
        "import resource, sys\n"
        "from blogbuild.cli import main\n"
        "rc = main(['build', '--quiet', '--config', sys.argv[1], '--output', sys.argv[2]])\n"
        "own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
        "kids = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss\n"
        "print(max(own, kids))\n"
        "sys.exit(rc)\n"
    )
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", code, str(corpus / "site.yaml"),
                           str(corpus / "_site")], env=env, capture_output=True, text=True)
    wall = time.perf_counter() - start
    if proc.returncode != 0:
        sys.exit(f"build failed:\n{proc.stderr[-3000:]}")
    return wall, int(proc.stdout.strip().splitlines()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1000)
    parser.add_argument("--workers", type=int, default=None)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--no-math", action="store_true", help="math: enabled: false")
    args = parser.parse_args()
    corpus = make_corpus(args.n, not args.no_math)
    posts = len(list((corpus / "content" / "posts").glob("*.md")))
    print(f"corpus: {posts} posts ({corpus.relative_to(REPO)}), math "
          f"{'off' if args.no_math else 'on'}, {os.cpu_count()} cores, "
          f"resource max rss units KiB")
    rows = [("cold build", args.workers, True), ("warm rebuild (cached)", args.workers, False),
            ("cold build, 1 worker", 1, True)]
    for label, workers, cold in rows:
        walls, peaks = [], []
        for _ in range(args.runs):
            wall, peak = timed_build(corpus, workers, cold=cold)
            walls.append(wall)
            peaks.append(peak)
        best, med = min(walls), statistics.median(walls)
        print(f"{label:24s} best {best:6.2f} s  median {med:6.2f} s  "
              f"{posts / best:7.0f} posts/s  peak {max(peaks) / 1024:6.0f} MiB")
    return 0


if __name__ == "__main__":
    assert resource  # imported for the child code's documentation
    raise SystemExit(main())
