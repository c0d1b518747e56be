"""Builds run as a deploy runs them: `python -m blogbuild build`, each in a new process."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path


def build_in_a_new_process(site: Path, *args: str, env: Mapping[str, str] | None = None,
                           timeout: float = 300) -> subprocess.CompletedProcess[str]:
    """Build the site in the folder `site` in a new process, with `args` and the environment
    `env` (this process's by default); the test fails unless the build exits 0 without a
    traceback."""
    done = subprocess.run([sys.executable, "-m", "blogbuild", "build", *args], cwd=site,
                          env=None if env is None else dict(env), capture_output=True,
                          text=True, timeout=timeout)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    return done
