"""Run the release workflow's build job on this machine: `python scripts/release_check.py DEST`.

The sources are those git tracks in this checkout, as they are in the working tree
(`git stash create`, or HEAD when nothing changed): a clean clone, whatever else lies
around. In DEST/src they are committed, then released as docs/development.md says
(scripts/cut_release.py: the version without its `.devN`, CHANGELOG.md's Unreleased dated)
and tagged. Each `run:` step of .github/workflows/release.yml's build job runs there in
bash as on GitHub's runner (GITHUB_REF_NAME the tag, RUNNER_TEMP DEST/runner, `python` this
interpreter); a step that fails stops the run with its output. `uses:` steps are skipped.

The wheel's virtual environment then gets the `example` extra, so that it can build the
example blog, and DEST/record.json says what ran for which sources. pip installs what this
interpreter has, at the same versions (PIP_CONSTRAINT), so that a build from the wheel can
be compared with one from the sources. .ci/run runs this once and the tests use DEST
(BLOGBUILD_RELEASE_CHECK) when its sources are the checkout's; else they run it.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parent.parent
WORKFLOW = Path(".github") / "workflows" / "release.yml"
RECORD = "record.json"
#: The author and date of the commits made in DEST/src (the date: the checkout's HEAD's).
IDENTITY = {"GIT_AUTHOR_NAME": "Release check", "GIT_AUTHOR_EMAIL": "release@example.invalid",
            "GIT_COMMITTER_NAME": "Release check",
            "GIT_COMMITTER_EMAIL": "release@example.invalid"}


def git(*args: str, cwd: Path, env: dict[str, str] | None = None) -> str:
    proc = subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=120)
    if proc.returncode != 0:
        raise SystemExit(f"git {' '.join(args)}: {proc.stderr.strip()}")
    return proc.stdout.strip()


def source_tree(root: Path = ROOT) -> str:
    """The tree of what git tracks in `root`'s working tree (staged and unstaged edits)."""
    commit = git("stash", "create", cwd=root) or "HEAD"
    return git("rev-parse", f"{commit}^{{tree}}", cwd=root)


def export(root: Path, tree: str, dest: Path) -> int:
    """`tree` as the one commit of a new repository `dest`; returns its time (HEAD's)."""
    epoch = int(git("log", "-1", "--format=%ct", cwd=root))
    dest.mkdir(parents=True)
    archive = subprocess.run(["git", "archive", "--format=tar", tree], cwd=root,
                             capture_output=True, check=True, timeout=120).stdout
    subprocess.run(["tar", "-x", "-C", str(dest)], input=archive, check=True, timeout=120)
    env = {**os.environ, **IDENTITY, "GIT_AUTHOR_DATE": f"@{epoch}",
           "GIT_COMMITTER_DATE": f"@{epoch}"}
    git("init", "-q", "-b", "main", cwd=dest)
    git("add", "-A", cwd=dest)
    git("commit", "-q", "-m", "The sources", cwd=dest, env=env)
    return epoch


def release(src: Path, epoch: int) -> str:
    """Cut the release of `src`'s version (less its .devN) as a second commit, dated like the
    first, and tag it; returns the tag."""
    scripts = src / "scripts"
    version = re.sub(r"\.dev\d*$", "", subprocess.run(
        [sys.executable, "-c", "import release_notes; print(release_notes.package_version())"],
        cwd=scripts, capture_output=True, text=True, check=True).stdout.strip())
    date = time.strftime("%Y-%m-%d", time.gmtime(epoch))
    subprocess.run([sys.executable, str(scripts / "cut_release.py"), version, "--date", date],
                   cwd=src, capture_output=True, text=True, check=True, timeout=60)
    env = {**os.environ, **IDENTITY, "GIT_AUTHOR_DATE": f"@{epoch}",
           "GIT_COMMITTER_DATE": f"@{epoch}"}
    git("commit", "-q", "-a", "-m", f"Release {version}", cwd=src, env=env)
    git("tag", f"v{version}", cwd=src)
    return f"v{version}"


def constraints(dest: Path) -> Path:
    """This interpreter's distributions at their versions, as a pip constraints file."""
    frozen = subprocess.run([sys.executable, "-m", "pip", "freeze", "--all"], check=True,
                            capture_output=True, text=True, timeout=120).stdout
    pins = [line for line in frozen.splitlines()
            if re.match(r"[A-Za-z0-9._-]+==", line) and not line.startswith("blogbuild==")]
    path = dest / "constraints.txt"
    path.write_text("\n".join(pins) + "\n", encoding="utf-8")
    return path


def run_steps(src: Path, runner: Path, env: dict[str, str]) -> list[str]:
    """Run the build job's `run:` steps in `src`; returns the scripts that ran."""
    steps: list[dict[str, Any]] = yaml.safe_load(
        (src / WORKFLOW).read_text(encoding="utf-8"))["jobs"]["build"]["steps"]
    ran = []
    for step in steps:
        if "run" not in step:
            continue
        script = step["run"].strip()
        if "${{" in script:
            raise SystemExit(f"a step of the build job uses an expression: {script}")
        print(f"--- {step.get('name', script)}", flush=True)
        proc = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script],
                              cwd=src, env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True, timeout=900)
        if proc.returncode != 0:
            raise SystemExit(f"the step failed (exit {proc.returncode}): {script}\n{proc.stdout}")
        ran.append(script)
    return ran


def check(dest: Path, *, root: Path = ROOT) -> dict[str, Any]:
    """Run everything into `dest` (emptied first); returns the record it writes."""
    shutil.rmtree(dest, ignore_errors=True)
    dest.mkdir(parents=True)
    tree = source_tree(root)
    src, runner, bin_dir = dest / "src", dest / "runner", dest / "bin"
    epoch = export(root, tree, src)
    tag = release(src, epoch)
    runner.mkdir()
    bin_dir.mkdir()
    # `python` is this interpreter, as setup-python's is the runner's; called by its own path
    # so that a virtual environment stays one.
    (bin_dir / "python").write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n')
    (bin_dir / "python").chmod(0o755)
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
    env.update(PATH=f"{bin_dir}{os.pathsep}{env.get('PATH', '/usr/bin:/bin')}",
               GITHUB_REF_NAME=tag, GITHUB_WORKSPACE=str(src), RUNNER_TEMP=str(runner),
               PIP_CONSTRAINT=str(constraints(dest)), PIP_DISABLE_PIP_VERSION_CHECK="1")
    ran = run_steps(src, runner, env)
    (wheel,) = (src / "dist").glob("blogbuild-*.whl")
    venv_python = runner / "venv" / "bin" / "python"
    print("--- the example extra, for the example blog", flush=True)
    subprocess.run([str(venv_python), "-m", "pip", "install", "-q", f"{wheel}[example]"],
                   env=env, check=True, timeout=900)
    record = {"tree": tree, "tag": tag, "epoch": epoch, "ran": ran,
              "dist": str(src / "dist"), "venv": str(runner / "venv"), "src": str(src)}
    (dest / RECORD).write_text(json.dumps(record, indent=1), encoding="utf-8")
    return record


def recorded(dest: Path, *, root: Path = ROOT) -> dict[str, Any] | None:
    """The record of a finished run in `dest` for `root`'s sources as they are now, or None."""
    try:
        record: dict[str, Any] = json.loads((dest / RECORD).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return record if record.get("tree") == source_tree(root) else None


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dest", type=Path, help="a folder for the run (emptied first)")
    args = parser.parse_args(argv)
    started = time.monotonic()
    try:
        record = check(args.dest.resolve())
    except (SystemExit, subprocess.CalledProcessError) as exc:
        print(f"release_check.py: failed: {exc}", file=sys.stderr)
        return 1
    print(f"release_check.py: {record['tag']} built, checked and run from its wheel in "
          f"{time.monotonic() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
