"""The case corpora: bad input (tests/hostile/*.yaml) and posts written for other generators
(tests/migration/*.yaml). Each case: exit code, messages, sources kept, no leak. Each runs
`python -m blogbuild` in a process of its own, forked from one that has imported blogbuild
(tests/preloaded.py)."""

from __future__ import annotations

import base64
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from preloaded import Preloaded

HERE = Path(__file__).parent
CASES = sorted([*(HERE / "hostile").glob("*.yaml"), *(HERE / "migration").glob("*.yaml")])
SRC = HERE.parent / "src"
DEFAULT_SITE = "title: Test\nbase_url: https://example.org/blog/\n"
NEVER = ("Traceback", "internal error")


@pytest.fixture(scope="module")
def commands() -> Iterator[Preloaded]:
    preloaded = Preloaded(SRC)
    yield preloaded
    preloaded.close()


def content_of(spec: Any) -> bytes:
    if isinstance(spec, str):
        return spec.encode("utf-8")
    if "latin1" in spec:
        return str(spec["latin1"]).encode("latin-1")
    if "base64" in spec:
        return base64.b64decode(spec["base64"])
    if "repeat" in spec:
        text = spec.get("before", "") + spec["repeat"] * int(spec["times"]) + spec.get("after", "")
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


@pytest.mark.parametrize("case_file", CASES, ids=[f"{c.parent.name}/{c.stem}" for c in CASES])
def test_case(case_file: Path, tmp_path: Path, commands: Preloaded) -> None:
    case = yaml.safe_load(case_file.read_text(encoding="utf-8"))
    site = tmp_path / "site"
    site.mkdir()
    files = dict(case.get("files") or {})
    files.setdefault("site.yaml", DEFAULT_SITE)
    for rel, spec in files.items():
        path = site / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content_of(spec))
    outside = {rel: content_of(spec) for rel, spec in (case.get("outside") or {}).items()}
    for rel, data in outside.items():
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
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
    env = {**os.environ, "PYTHONPATH": str(SRC), "BLOGBUILD_WORKERS": "1"}
    try:
        proc = commands.run(args, cwd=site, env=env,
                            timeout=float(case.get("timeout", 20)))
    finally:
        for rel in case.get("chmod") or {}:
            (site / rel).chmod(0o644)
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
