"""The case corpora run their commands forked from a process that has imported blogbuild
(tests/preloaded.py): a forked command must end as `python -m blogbuild` does, with the
same status and the same messages, and a command that outlives its timeout is stopped."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

from preloaded import Preloaded, command_env

SITE = "title: Test\nbase_url: https://example.org/blog/\n"
BROKEN = "---\ntitle: [unclosed\n---\nText.\n"
GOOD = "---\ntitle: A\ndate: 2024-01-01\n---\nText.\n"


def site_of(folder: Path, post: str) -> Path:
    (folder / "content" / "posts").mkdir(parents=True)
    (folder / "site.yaml").write_text(SITE)
    (folder / "content" / "posts" / "a.md").write_text(post)
    return folder


@pytest.mark.parametrize(("args", "post"), [
    (["build"], BROKEN), (["build", "--quiet"], GOOD), (["no-such-command"], GOOD),
    (["build", "--no-such-option"], GOOD), (["check"], BROKEN)],
    ids=["build-error", "build", "unknown-command", "unknown-option", "check-error"])
def test_a_forked_command_ends_as_the_command_does(args: list[str], post: str, tmp_path: Path,
                                                   commands: Preloaded) -> None:
    env = command_env(PAGEFIND_BINARY_PATH="no-pagefind")  # the command's, not ours
    forked_site = site_of(tmp_path / "forked", post)
    own_site = site_of(tmp_path / "own", post)
    forked = commands.run(args, cwd=forked_site, env=env, timeout=60)
    own = subprocess.run([sys.executable, "-m", "blogbuild", *args], cwd=own_site, env=env,
                         capture_output=True, text=True, timeout=60)
    assert forked.returncode == own.returncode == (0 if args == ["build", "--quiet"] else
                                                   1 if post == BROKEN else 2)
    assert forked.stderr.replace(str(forked_site), str(own_site)) == own.stderr
    assert forked.stdout.replace(str(forked_site), str(own_site)) == own.stdout
    assert (forked_site / "_site").is_dir() == (own_site / "_site").is_dir()
    if own.returncode == 0:  # the environment reached the command
        assert "no-pagefind" in forked.stderr


def test_a_command_that_outlives_its_timeout_is_stopped(tmp_path: Path,
                                                        commands: Preloaded) -> None:
    site = site_of(tmp_path, GOOD)
    env = command_env()
    start = time.monotonic()
    with pytest.raises(subprocess.TimeoutExpired):
        commands.run(["serve", "--port", "0", "--no-watch"], cwd=site, env=env, timeout=3)
    assert time.monotonic() - start < 20
    done = commands.run(["build", "--quiet"], cwd=site, env=env, timeout=60)  # still serves
    assert done.returncode == 0, done.stderr


def test_the_cpu_time_of_a_command_is_its_own_and_its_children(tmp_path: Path,
                                                               commands: Preloaded) -> None:
    env = command_env()
    small = commands.run(["build", "--quiet"], cwd=site_of(tmp_path / "small", GOOD), env=env,
                         timeout=60)
    big = site_of(tmp_path / "big", GOOD + "A paragraph of *some* text.\n\n" * 20_000)
    large = commands.run(["build", "--quiet"], cwd=big, env=env, timeout=120)
    assert small.returncode == large.returncode == 0, large.stderr
    assert 0.05 < small.cpu < large.cpu - 0.5
