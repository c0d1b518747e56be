"""The product as users run it: the `blogbuild` command in subprocesses, on blogs of shapes
hypothesis picks (`blogshapes.shapes`), through a clean build and five changes.

After every command: exit status 0 (never a signal), no traceback or internal error on
stderr, no process of its session left running, and an output folder that equals a clean
build of the same sources, file for file and byte for byte. `bench/shapes.py` runs the
same sequences on hundreds of shapes.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, example, given, settings

from blogshapes import (
    LIVERELOAD,
    NOTEBOOKS,
    RICHEST,
    Outcome,
    Shape,
    build_sequence,
    checked,
    determinism,
    differences,
    serve_sequence,
    shapes,
    snapshot,
)

# Few shapes, always the same ones (derandomized), no shrinking: each shape takes seconds,
# and a failure names its shape and the step.
CI = settings(deadline=None, derandomize=True, database=None,
              phases=[Phase.explicit, Phase.generate],
              suppress_health_check=[HealthCheck.too_slow])
#: The QA case: `blogbuild init`'s blog whose first post is "$x$ inline only.".
SCAFFOLD = Shape("scaffold", (frozenset({"inline"}),), True, True, True)


def no_problems(outcome: Outcome, shape: Shape) -> None:
    assert not outcome.problems, "\n".join(
        [shape.describe(), *(str(p) for p in outcome.problems)])


@settings(CI, max_examples=4)
@example(SCAFFOLD)
@example(NOTEBOOKS)
@given(shapes())
def test_every_build_exits_cleanly_and_equals_a_clean_build(shape: Shape) -> None:
    with tempfile.TemporaryDirectory(prefix="blogbuild-e2e-") as work:
        no_problems(build_sequence(shape, Path(work)), shape)


@pytest.mark.server
@settings(CI, max_examples=2)
@example(NOTEBOOKS)
@given(shapes())
def test_serve_shows_every_change_and_stops_on_ctrl_c(shape: Shape) -> None:
    with tempfile.TemporaryDirectory(prefix="blogbuild-e2e-") as work:
        no_problems(serve_sequence(shape, Path(work)), shape)


def test_two_clean_builds_of_every_feature_are_byte_identical(tmp_path: Path) -> None:
    no_problems(determinism(RICHEST, tmp_path), RICHEST)


# The checks themselves: a signal, a traceback and a process left behind are each caught.


@pytest.mark.parametrize(("script", "kind"), [
    ("kill -SEGV $$", "signal"),
    ("exit 139", "signal"),
    ("exit 1", "exit"),
    ("echo 'Traceback (most recent call last):' >&2", "stderr"),
    ("echo 'internal error: blogbuild hit a bug' >&2; exit 1", "stderr"),
    ("sleep 30 & exit 0", "leftover"),
    ("sh -c 'sleep 30' & sleep 0.1; exit 0", "leftover"),
])
def test_the_checks_catch_what_they_look_for(tmp_path: Path, script: str, kind: str) -> None:
    outcome = Outcome()
    checked([], tmp_path, "step", outcome, program=["sh", "-c", script])
    assert kind in {p.kind for p in outcome.problems}, outcome.problems
    assert not [p for p in outcome.problems if p.kind == "leftover"
                and "sleep" not in p.detail]


def test_a_quiet_command_passes_the_checks(tmp_path: Path) -> None:
    outcome = Outcome()
    assert checked([], tmp_path, "step", outcome, program=["sh", "-c", "sleep 0.1 & exit 0"])
    assert outcome.problems == []


def test_the_comparison_sees_bytes_files_and_empty_folders(tmp_path: Path) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    for folder in (a, b):
        (folder / "posts").mkdir(parents=True)
        (folder / "index.html").write_text(f"<head>{LIVERELOAD}</head>" if folder == a
                                           else "<head></head>")
    (a / "posts" / "p.html").write_text("one")
    (b / "posts" / "p.html").write_text("two")
    (a / "gone").mkdir()
    assert differences(snapshot(a, strip_reload=True), snapshot(b)) == [
        "only in the incremental output: gone/", "bytes differ: posts/p.html"]
