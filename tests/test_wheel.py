"""The wheel a release publishes: every file blogbuild reads at run time is in it, nothing
else is, it stays under its size budget, and installed in a fresh virtual environment with
no source tree it builds the example blog byte for byte as the sources do.

The wheel and its environment are the release workflow's, made by the `release` fixture
(conftest.py; scripts/release_check.py) from a clean export of these sources.
"""

from __future__ import annotations

import filecmp
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any

import pytest

import blogbuild
from blogbuild import themefiles
from blogbuild.bib import style
from blogbuild.charts import vendored
from blogbuild.diagrams import checker, drawer, fallback
from blogbuild.fingerprints import RUNTIME_VERSIONS
from blogbuild.markdown.quarto import icons
from blogbuild.output import cards
from blogbuild.runtimes import capture, katex, katex_process, pyodide
from blogbuild.runtimes import python as build_time

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = Path(blogbuild.__file__).resolve().parent
#: Measured at 0.3.0: 9,712,840 bytes (Pyodide's runtime is 6.4 MB of it once compressed,
#: Mermaid's bundle 1.5 MB, the fonts 0.7 MB); then the chart libraries readers' browsers
#: load (Vega 0.3 MB, plotly.js's three bundles 2.4 MB, BokehJS 0.5 MB compressed): some
#: 12.9 MB; then Font Awesome Free's icon outlines (0.47 MB) that Quarto pages' icons are
#: drawn from: some 13.5 MB. A little room for the code to grow; a new vendored runtime, or
#: files the wheel should not carry, will not fit.
WHEEL_BUDGET = 14_000_000
#: What the example blog is: these, at the repository's root.
EXAMPLE = ("content", "site.yaml", "static", "templates")

pytestmark = pytest.mark.xdist_group("release")


def wheel_names(release: dict[str, Any]) -> set[str]:
    (wheel,) = Path(release["dist"]).glob("blogbuild-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        return {name for name in archive.namelist() if not name.endswith("/")}


def read_at_run_time() -> set[Path]:
    """Every packaged file the code opens, found through the names it opens them by."""
    files = {source for source, _ in (*pyodide.site_files(), *katex.site_files(),
                                      *fallback.site_files(), *vendored.vega_files(),
                                      *vendored.plotly_files(), *vendored.bokeh_files())}
    files |= {katex_process.VENDOR_DIR / "katex.min.js", *RUNTIME_VERSIONS.values(),
              pyodide.VENDOR_DIR / "VERSION", fallback.VENDOR_DIR / "VERSION",
              PACKAGE / "runtimes" / "katex_render.js",  # katex_process.JS_RENDER
              checker.MERMAID, checker.HERE / "checker.js",
              drawer._RUNNER, drawer._CHECKER, drawer._LIMITED, drawer._CHARTS,
              build_time.DRIVER,
              capture.capture_source(), cards.BOLD, cards.BOOK, cards.FONTS_RELEASE,
              *style.STYLES.values(),
              PACKAGE / "serve" / "livereload.js",  # serve.http.CLIENT_JS
              icons.FOLDER / "icons.json.gz"}
    # What `init` writes (commands/init.py reads each by its name).
    files |= {PACKAGE / "scaffold" / name for name in
              ("site.yaml", "first-post.md", "about.md", "gitignore.txt", "deploy.yml")}
    # The theme: templates and static files are read by folder.
    for folder in (themefiles.theme_templates(), themefiles.theme_static()):
        files |= {path for path in tracked(folder) if path.is_file()}
    return files


def tracked(folder: Path) -> list[Path]:
    listed = subprocess.run(["git", "ls-files", "-z", "--", str(folder)], cwd=ROOT,
                            capture_output=True, text=True, check=True).stdout
    return [ROOT / name for name in listed.split("\0") if name]


def in_wheel(path: Path) -> str:
    """The name in the wheel of a file of this checkout."""
    theme = themefiles.theme_dir()
    if path.is_relative_to(PACKAGE):
        return "blogbuild/" + path.relative_to(PACKAGE).as_posix()
    return "blogbuild/theme/" + path.relative_to(theme).as_posix()


def test_the_wheel_holds_every_file_read_at_run_time(release: dict[str, Any]) -> None:
    assert themefiles.theme_dir() == ROOT  # these sources' theme, named as the wheel has it
    needed = read_at_run_time()
    assert len(needed) > 100  # the theme, 20 KaTeX fonts, the runtimes, the starter files
    untracked = {p for p in needed if not tracked(p)}
    assert not untracked, f"read at run time but not in git, so not in a clean clone: {untracked}"
    names = wheel_names(release)
    missing = sorted(in_wheel(p) for p in needed if in_wheel(p) not in names)
    assert not missing, f"the wheel lacks what blogbuild reads: {missing}"


def test_the_wheel_holds_nothing_else(release: dict[str, Any]) -> None:
    """Besides the modules and what they read: the vendored runtimes' licences and VERSION
    notes, and the marker of types."""
    expected = {in_wheel(p) for p in read_at_run_time()}
    expected |= {in_wheel(p) for p in tracked(PACKAGE) if p.suffix == ".py"}
    expected |= {in_wheel(p) for p in tracked(PACKAGE / "vendor")
                 if p.name in ("LICENSE", "VERSION")}
    expected.add("blogbuild/py.typed")
    names = {n for n in wheel_names(release) if ".dist-info/" not in n}
    assert sorted(names - expected) == []
    assert sorted(expected - names) == []


def test_the_wheel_is_under_its_budget(release: dict[str, Any]) -> None:
    (wheel,) = Path(release["dist"]).glob("blogbuild-*.whl")
    assert wheel.stat().st_size <= WHEEL_BUDGET, f"{wheel.stat().st_size:,} bytes"


def test_the_wheel_builds_the_example_blog_as_the_sources_do(
        release: dict[str, Any], tmp_path: Path) -> None:
    """The done-criterion of a release: the installed wheel, run where no source tree is,
    builds the example blog byte-identical to a build with the sources it was made from."""
    src = Path(release["src"])
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    venv_blogbuild = Path(release["venv"]) / "bin" / "blogbuild"
    runs = {"wheel": [str(venv_blogbuild)],
            "sources": [sys.executable, "-m", "blogbuild"]}
    for kind, command in runs.items():
        site = tmp_path / kind
        site.mkdir()
        for name in EXAMPLE:
            copy = shutil.copytree if (src / name).is_dir() else shutil.copy
            copy(src / name, site / name)
        run_env = env if kind == "wheel" else {**env, "PYTHONPATH": str(src / "src")}
        proc = subprocess.run([*command, "build", "--strict", "--quiet"], cwd=site, env=run_env,
                              capture_output=True, text=True, timeout=600)
        assert proc.returncode == 0, proc.stderr
    where = subprocess.run([str(venv_blogbuild.with_name("python")), "-c",
                            "import blogbuild.themefiles as t; print(t.theme_dir())"],
                           env=env, cwd=tmp_path, capture_output=True, text=True, check=True)
    assert where.stdout.strip().startswith(release["venv"])  # the wheel's theme, not a tree's
    assert_same_tree(tmp_path / "wheel" / "_site", tmp_path / "sources" / "_site")


def assert_same_tree(left: Path, right: Path) -> None:
    files = {p.relative_to(left) for p in left.rglob("*")}
    assert files == {p.relative_to(right) for p in right.rglob("*")}
    assert len(files) > 100
    regular = sorted(p for p in files if (left / p).is_file())
    _, mismatch, errors = filecmp.cmpfiles(left, right, regular, shallow=False)
    assert mismatch == [] and errors == []
