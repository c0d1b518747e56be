"""The wheel carries the theme and the vendored runtimes: `pip install .` works anywhere."""

from __future__ import annotations

import shutil
import subprocess
import tarfile
import zipfile
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
BASIC = Path(__file__).parent / "sites" / "basic"


pytestmark = pytest.mark.xdist_group("release")


def test_installed_wheel_builds_a_site_outside_the_repo(release: dict[str, Any],
                                                       tmp_path: Path) -> None:
    """The release job's wheel, installed in its fresh venv (scripts/release_check.py):
    no wheel of this test's own, which would cost a build of the vendored runtimes."""
    env_dir = Path(release["venv"])
    python = env_dir / "bin" / "python"
    site = tmp_path / "site"
    shutil.copytree(BASIC / "content", site / "content")
    shutil.copyfile(BASIC / "site.yaml", site / "site.yaml")
    proc = subprocess.run([str(python), "-m", "blogbuild", "build"], cwd=site,
                          capture_output=True, text=True, timeout=300, env={"PATH": "/usr/bin"})
    assert proc.returncode == 0, proc.stderr
    located = subprocess.run([str(python), "-c", "import blogbuild.themefiles as t; "
                              "print(t.theme_dir())"], capture_output=True, text=True, cwd=site,
                             env={"PATH": "/usr/bin"})
    assert str(env_dir) in located.stdout  # the theme inside the installed wheel, not the repo
    out = site / "_site"
    assert (out / "css/main.css").read_bytes() == (ROOT / "static/css/main.css").read_bytes()
    assert "Test Blog" in (out / "index.html").read_text()


def test_distributions_carry_the_licences(release: dict[str, Any]) -> None:
    """The project's licence, the changelog and the docs travel in the sdist; the vendored
    runtimes' licences travel with them in the wheel (and so into every built site)."""
    dist = Path(release["dist"])
    (wheel,) = dist.glob("blogbuild-*.whl")
    (sdist,) = dist.glob("blogbuild-*.tar.gz")
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
    assert {"blogbuild/vendor/katex/LICENSE", "blogbuild/vendor/pyodide/LICENSE",
            "blogbuild/vendor/vega/LICENSE", "blogbuild/vendor/plotly/LICENSE",
            "blogbuild/vendor/bokeh/LICENSE"} <= names
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names)
    with tarfile.open(sdist) as archive:
        top = {n.split("/", 1)[1] for n in archive.getnames() if "/" in n}
    assert {"LICENSE", "CHANGELOG.md", "README.md", "docs/README.md",
            "src/blogbuild/vendor/katex/LICENSE"} <= top
    assert not any(n.startswith("tests/") for n in top)
