"""The wheel carries the theme and the vendored runtimes: `pip install .` works anywhere."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tarfile
import venv
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BASIC = Path(__file__).parent / "sites" / "basic"


def test_installed_wheel_builds_a_site_outside_the_repo(tmp_path: Path) -> None:
    wheels = tmp_path / "wheels"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
                    "-q", "-w", str(wheels), str(ROOT)], check=True, timeout=300)
    (wheel,) = wheels.glob("blogbuild-*.whl")
    env_dir = tmp_path / "venv"
    # The dependencies come from this interpreter; the package itself only from the wheel.
    venv.EnvBuilder(system_site_packages=True, with_pip=False).create(env_dir)
    python = env_dir / "bin" / "python"
    subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "-q",
                    "--no-deps", str(wheel)], check=True, timeout=300)
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


def test_distributions_carry_the_licences(tmp_path: Path) -> None:
    """The project's licence, the changelog and the docs travel in the sdist; the vendored
    runtimes' licences travel with them in the wheel (and so into every built site)."""
    subprocess.run([sys.executable, "-m", "hatchling", "build", "-d", str(tmp_path)],
                   cwd=ROOT, check=True, timeout=300, capture_output=True)
    (wheel,) = tmp_path.glob("blogbuild-*.whl")
    (sdist,) = tmp_path.glob("blogbuild-*.tar.gz")
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
    assert {"blogbuild/vendor/katex/LICENSE", "blogbuild/vendor/pyodide/LICENSE"} <= names
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names)
    with tarfile.open(sdist) as archive:
        top = {n.split("/", 1)[1] for n in archive.getnames() if "/" in n}
    assert {"LICENSE", "CHANGELOG.md", "README.md", "docs/README.md",
            "src/blogbuild/vendor/katex/LICENSE"} <= top
    assert not any(n.startswith("tests/") for n in top)
