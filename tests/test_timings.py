"""`blogbuild build --timings`: the wall time of every step, and the parts of the render."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from blogbuild import timings
from blogbuild.progress import StageClock, timings_table

BASIC = Path(__file__).parent / "sites" / "basic"
SRC = Path(__file__).resolve().parent.parent / "src"

#: Every step of a build that renders and writes (in the order they come).
STEPS = ["starting", "reading sources", "preparing images", "rendering posts and pages",
         "assembling the site",
         "drawing social cards", "checking links", "copying files", "deciding stale pages",
         "writing pages", "indexing for search", "committing", "saving the state"]


@pytest.fixture(autouse=True)
def timings_off() -> Iterator[None]:
    yield
    timings.enable(False)
    timings.take()


class FakeClock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_a_section_counts_its_own_time_not_the_sections_inside(
        monkeypatch: pytest.MonkeyPatch) -> None:
    clock = FakeClock()
    monkeypatch.setattr(timings, "perf_counter", clock)
    timings.enable()
    with timings.section("render"):
        clock.now = 2.0
        with timings.section("math"):
            clock.now = 5.0
        with timings.section("math"):
            clock.now = 6.0
        clock.now = 10.0
    assert timings.take() == {"render": 6.0, "math": 4.0}
    assert timings.take() == {}
    timings.add({"math": 1.5})
    timings.add({"math": 0.5, "parse": 1.0})
    assert timings.take() == {"math": 2.0, "parse": 1.0}


def test_off_nothing_is_timed() -> None:
    assert not timings.enabled()
    with timings.section("render"):
        pass
    assert timings.take() == {}


def test_stage_clock_adds_up_a_step_that_comes_back() -> None:
    clock = FakeClock()
    steps = StageClock(clock=clock)
    clock.now = 1.0
    steps("rendering", 0, 10)
    clock.now = 3.0
    steps("rendering", 10, 10)  # the same step: no new one
    steps("assembling", 0, 0)
    clock.now = 3.5
    steps("rendering", 0, 1)
    clock.now = 4.5
    assert steps.stop() == {"starting": 1.0, "rendering": 3.0, "assembling": 0.5}
    lines = timings_table(steps.stop(), {})
    assert lines[-1].split() == ["total", "4.500", "100%"]


def run_build(site: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    env.pop("BLOGBUILD_WORKERS", None)
    return subprocess.run([sys.executable, "-m", "blogbuild", "build", "--quiet", *args],
                          cwd=site, env=env, capture_output=True, text=True, timeout=300)


def tables(stderr: str) -> list[dict[str, float]]:
    """The tables `--timings` printed: name -> seconds, the total under "total"."""
    assert stderr.startswith("where the time went:\n"), stderr
    found: list[dict[str, float]] = []
    for line in stderr.splitlines()[1:]:
        if line.rstrip().endswith("seconds  share"):
            found.append({})
            continue
        name, seconds, share = line.strip().rsplit(None, 2)
        assert share.endswith("%")
        found[-1][name] = float(seconds)
    return found


def check_sums(table: dict[str, float]) -> None:
    parts = [v for k, v in table.items() if k != "total"]
    assert all(v >= 0 for v in table.values()), table
    # Each figure is rounded to the millisecond.
    assert sum(parts) == pytest.approx(table["total"], abs=0.001 * len(parts)), table


def test_build_timings_prints_every_step_and_the_parts_of_the_render(tmp_path: Path) -> None:
    site = tmp_path / "site"
    shutil.copytree(BASIC, site, ignore=shutil.ignore_patterns("expected"))
    proc = run_build(site, "--timings")
    assert proc.returncode == 0, proc.stderr
    steps, parts = tables(proc.stderr)
    assert list(steps) == [*STEPS, "total"]
    check_sums(steps)
    check_sums(parts)
    assert {"front matter", "Markdown parse", "plugin core rules", "highlighting",
            "rendering HTML", "render store"} <= set(parts)
    # Three posts render in the build's own process: inside the rendering step.
    assert parts["total"] <= steps["rendering posts and pages"] + 0.01

    again = run_build(site, "--timings")  # nothing changed: the quick check only
    assert again.returncode == 0, again.stderr
    (steps,) = tables(again.stderr)
    assert list(steps) == ["starting", "total"]

    quiet = run_build(site, "--no-cache")
    assert quiet.returncode == 0 and quiet.stderr == ""


def test_build_timings_adds_up_the_parts_from_every_worker(tmp_path: Path) -> None:
    site = tmp_path / "site"
    posts = site / "content" / "posts"
    posts.mkdir(parents=True)
    (site / "site.yaml").write_text('title: "T"\nbase_url: "https://example.org/"\n'
                                    "search: false\nsocial_cards: false\n")
    for n in range(30):  # more than RENDER_POOL_MIN: the worker pool renders them
        (posts / f"post-{n:02}.md").write_text(
            f'---\ntitle: "Post {n}"\ndate: 2024-01-{n % 28 + 1:02}\n---\n\n'
            f"Euler: $e^{{i\\pi}} + {n} = {n - 1}$.\n\n```python\nprint({n})\n```\n")
    proc = run_build(site, "--no-cache", "--jobs", "2", "--timings")
    assert proc.returncode == 0, proc.stderr
    steps, parts = tables(proc.stderr)
    check_sums(steps)
    check_sums(parts)
    assert parts["math (KaTeX)"] > 0 and parts["highlighting"] > 0
    # Two workers: at most twice the step's wall time.
    assert 0 < parts["total"] <= 2 * steps["rendering posts and pages"] + 0.01
