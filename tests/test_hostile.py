"""The case corpora: bad input (tests/hostile/*.yaml) and posts written for other generators
(tests/migration/*.yaml). Each case: exit code, messages, sources kept, no leak. Each runs
`python -m blogbuild` in a process of its own, forked from one that has imported blogbuild
(tests/preloaded.py)."""

from __future__ import annotations

import base64
import math
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any, cast

import pytest
import yaml

from preloaded import DEFAULT_SITE, Finished, Preloaded, command_env

HERE = Path(__file__).parent
CASES = sorted([*(HERE / "hostile").glob("*.yaml"), *(HERE / "migration").glob("*.yaml")])
NEVER = ("Traceback", "internal error")
#: The least CPU time a growth check divides by (a shorter run's is mostly noise).
GROWTH_FLOOR = 0.05
#: How much more than linear a case's CPU time may grow: with `growth: 4`, 7-fold from the
#: shorter run to the case. A quadratic part fails once it costs 1.3 times the linear part
#: at the case's size; linear cases grew 3.6- to 4.8-fold, and up to 5.7-fold beside two
#: busy processes on two cores.
GROWTH_SLACK = 1.75


def content_of(spec: Any, times: Callable[[int], int] = int) -> bytes:
    """The bytes of a file spec; `times` scales the count of a repeated text."""
    if isinstance(spec, str):
        return spec.encode("utf-8")
    if "latin1" in spec:
        return str(spec["latin1"]).encode("latin-1")
    if "base64" in spec:
        return base64.b64decode(spec["base64"])
    if "repeat" in spec:
        text = (spec.get("before", "") + spec["repeat"] * times(int(spec["times"]))
                + spec.get("after", ""))
        return text.encode("utf-8")
    raise ValueError(f"unknown file spec: {spec!r}")


def snapshot(site: Path) -> dict[str, bytes]:
    """Every regular source file (not the output or the cache) and its bytes."""
    found = {}
    for path in site.rglob("*"):
        rel = path.relative_to(site).as_posix()
        if rel.split("/")[0] in ("_site", ".blogbuild-cache") or path.is_symlink():
            continue
        if path.is_file() and os.access(path, os.R_OK):
            found[rel] = path.read_bytes()
    return found


def run_case(case: dict[str, Any], tmp_path: Path, commands: Preloaded,
             times: Callable[[int], int] = int) -> tuple[Finished, dict[str, bytes]]:
    """The case's site written in `tmp_path`/site and its command run there: how it ended,
    and the site's sources as they were before."""
    site = tmp_path / "site"
    site.mkdir(parents=True)
    files = dict(case.get("files") or {})
    files.setdefault("site.yaml", DEFAULT_SITE)
    for rel, spec in files.items():
        path = site / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content_of(spec, times))
    for rel, spec in (case.get("outside") or {}).items():
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content_of(spec))
    for rel in case.get("fifos") or []:
        (site / rel).parent.mkdir(parents=True, exist_ok=True)
        os.mkfifo(site / rel)
    for rel, target in (case.get("symlinks") or {}).items():
        path = site / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.symlink_to(str(target).replace("{tmp}", str(tmp_path)))
    before = snapshot(site)
    for rel, mode in (case.get("chmod") or {}).items():
        (site / rel).chmod(int(mode))
    args = [str(a).replace("{tmp}", str(tmp_path)) for a in case.get("args", ["build"])]
    env = command_env()
    try:
        proc = commands.run(args, cwd=site, env=env, timeout=float(case.get("timeout", 20)))
    finally:
        for rel in case.get("chmod") or {}:
            (site / rel).chmod(0o644)
    return proc, before


def check_growth(case: dict[str, Any], tmp_path: Path, commands: Preloaded, full: float) -> None:
    """The case's command again with each repeated text `growth` times shorter, and once
    with each repeated once: beyond the latter, the CPU time of the case may grow at most
    `GROWTH_SLACK` times `growth`-fold from the shorter run (`growth`-fold is linear, a
    quadratic's is `growth` squared). When it grew more, each of the three is run again
    and the lesser time of each taken: a busy machine only adds CPU time (two processes
    on one core's two threads take longer each), a quadratic part is there both times."""
    factor = int(case["growth"])
    sizes: dict[str, Callable[[int], int]] = {"full": int, "one": lambda n: 1,
                                              "part": lambda n: max(1, n // factor)}
    best = {"full": full}  # the case's own run
    for attempt in (1, 2):
        for name, times in sizes.items():
            if attempt == 2 or name not in best:
                cpu = run_case(case, tmp_path / f"{name}{attempt}", commands, times)[0].cpu
                best[name] = min(best.get(name, cpu), cpu)
        one, part = best["one"], best["part"]
        grew = (best["full"] - one) / max(part - one, GROWTH_FLOOR)
        if grew <= GROWTH_SLACK * factor:
            return
    raise AssertionError(
        f"CPU time {one:.2f} s with each text once, {part:.2f} s at 1/{factor} of the case, "
        f"{best['full']:.2f} s for the case (the lesser of two runs each): it grew "
        f"{grew:.1f}-fold for {factor} times the text")


@pytest.mark.parametrize("case_file", CASES, ids=[f"{c.parent.name}/{c.stem}" for c in CASES])
def test_case(case_file: Path, tmp_path: Path, commands: Preloaded) -> None:
    case = yaml.safe_load(case_file.read_text(encoding="utf-8"))
    proc, before = run_case(case, tmp_path, commands)
    site = tmp_path / "site"
    outside = {rel: content_of(spec) for rel, spec in (case.get("outside") or {}).items()}
    err = proc.stderr
    assert proc.returncode == case["exit"], f"exit {proc.returncode}\n{err}"
    for needle in case.get("stderr", []):
        assert needle in err, f"{needle!r} not in:\n{err}"
    for needle in [*NEVER, *case.get("not_stderr", [])]:
        assert needle not in err, f"{needle!r} in:\n{err}"
    after = snapshot(site)
    lost = {rel for rel, data in before.items() if after.get(rel) != data}
    assert not lost, f"sources deleted or changed: {sorted(lost)}"
    changed = [rel for rel, data in outside.items()
               if not (tmp_path / rel).is_file() or (tmp_path / rel).read_bytes() != data]
    assert not changed, f"files outside the site deleted or changed: {changed}"
    out = site / str(case.get("output", "_site")).replace("{tmp}", str(tmp_path))
    for rel in case.get("output_missing") or []:
        assert not (out / rel).exists(), f"{rel} is in the output"
    for rel, needles in (case.get("output_has") or {}).items():
        text = (out / rel).read_text(encoding="utf-8")
        for needle in needles:
            assert needle in text, f"{needle!r} not in {rel}"
    for rel, needles in (case.get("output_not") or {}).items():
        data = (out / rel).read_bytes()  # a picture's bytes as well as a page's text
        for needle in needles:
            assert needle.encode() not in data, f"{needle!r} in {rel}"
    lacks = case.get("output_lacks") or []
    if lacks and out.is_dir():
        for path in out.rglob("*"):
            if path.is_file() and path.suffix in (".html", ".xml", ".json", ".txt"):
                text = path.read_text(encoding="utf-8", errors="replace")
                for needle in lacks:
                    assert needle not in text, f"{needle!r} in {path.relative_to(out)}"
    if "growth" in case:
        check_growth(case, tmp_path, commands, proc.cpu)


class _Modelled:
    """Stands in for the commands in a test of the growth check: a command's CPU time is
    a model of the size of the site's posts."""

    def __init__(self, cost: Callable[[int], float]) -> None:
        self.cost = cost

    def run(self, args: list[str], *, cwd: Path, env: dict[str, str],
            timeout: float) -> Finished:
        size = sum(p.stat().st_size for p in (cwd / "content").rglob("*.md"))
        done = Finished(args, 0, "", "")
        done.cpu = self.cost(size)
        return done


@pytest.mark.parametrize(("cost", "holds"), [
    (lambda n: 0.3 + n / 1e6, True),  # linear
    (lambda n: 0.3 + n / 1e6 * math.log(n) / math.log(1e6), True),  # n log n
    (lambda n: 0.3 + n / 1e6 + 2 * (n / 1e6) ** 2, False),  # a quadratic part twice it
    (lambda n: 0.3 + n / 1e6 + 4 * (n / 1e6) ** 2, False),  # a quadratic part 4 times it
    (lambda n: 0.35, True),  # constant (a faster machine)
])
def test_the_growth_check_fails_a_case_whose_time_grows_faster_than_its_input(
        cost: Callable[[int], float], holds: bool, tmp_path: Path) -> None:
    case = {"files": {"content/posts/a.md": {"repeat": "abcd", "times": 250_000}},
            "exit": 0, "growth": 4}
    commands = cast(Preloaded, _Modelled(cost))
    full = cost(1_000_000)
    if holds:
        check_growth(case, tmp_path, commands, full)
    else:
        with pytest.raises(AssertionError, match="grew"):
            check_growth(case, tmp_path, commands, full)
