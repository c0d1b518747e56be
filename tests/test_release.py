"""The release: the workflow's shape, a run of its build job here (scripts/release_check.py),
the wheel it makes, and the one version everything says.

The run builds the sdist and the wheel from a clean export of the sources, installs the
wheel in a fresh virtual environment and runs scripts/smoke_wheel.py with it, some 70 s.
.ci/run does it once before the tests and names the folder in BLOGBUILD_RELEASE_CHECK; the
`release` fixture (conftest.py) uses that run when its sources are these, and otherwise
makes its own; tests/test_wheel.py shares it.
"""

from __future__ import annotations

import datetime as dt
import os
import re
import shutil
import subprocess
import sys
import tarfile
import time
import zipfile
from pathlib import Path
from typing import Any

import pytest
import yaml

from blogbuild import __version__
from blogbuild.commands.init import init
from test_workflow import actionlint

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))

import cut_release  # noqa: E402
import release_notes  # noqa: E402

WORKFLOW = ROOT / ".github" / "workflows" / "release.yml"
DEPLOY = ROOT / ".github" / "workflows" / "deploy.yml"

pytestmark = pytest.mark.xdist_group("release")


def wheel_of(release: dict[str, Any]) -> Path:
    (wheel,) = Path(release["dist"]).glob("blogbuild-*.whl")
    return wheel


def workflow() -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))
    return loaded


# The workflow's shape ------------------------------------------------------------------------


def test_the_release_workflow_passes_actionlint() -> None:
    actionlint(WORKFLOW)


def test_it_runs_on_version_tags_and_publishes_without_a_stored_token() -> None:
    flow = workflow()
    assert flow[True] == {"push": {"tags": ["v*"]}}  # YAML 1.1 reads the key `on` as True
    assert flow["permissions"] == {"contents": "read"}
    jobs = flow["jobs"]
    publish = jobs["publish"]
    assert publish["needs"] == "build"
    assert publish["environment"]["name"] == "pypi"
    assert publish["permissions"] == {"id-token": "write"}  # trusted publishing
    (pypi,) = [s for s in publish["steps"] if "gh-action-pypi-publish" in s.get("uses", "")]
    assert "with" not in pypi  # no password, no token
    assert "secrets." not in WORKFLOW.read_text(encoding="utf-8")
    github = jobs["github-release"]
    assert github["needs"] == "publish" and github["permissions"] == {"contents": "write"}
    assert "--notes-file release-notes.md" in github["steps"][-1]["run"]
    uploads = [s["with"]["path"] for s in jobs["build"]["steps"]
               if s.get("uses", "").startswith("actions/upload-artifact@")]
    assert uploads == ["dist/", "release-notes.md"]


def test_actions_are_pinned_by_version_as_in_the_pages_workflow() -> None:
    def pins(path: Path) -> dict[str, str]:
        found = re.findall(r"uses: ([^@\s]+)@(\S+)", path.read_text(encoding="utf-8"))
        return dict(found)

    release, deploy = pins(WORKFLOW), pins(DEPLOY)
    assert all(re.fullmatch(r"v\d+(\.\d+)*", version) for version in release.values()), release
    assert all(release[a] == deploy[a] for a in release.keys() & deploy.keys())


# The notes ------------------------------------------------------------------------------------

CHANGELOG = """# Changelog

## Unreleased

### Added
- Something new.

## 1.2.0 — 2026-01-02

### Fixed
- A bug.

## 1.1.0
"""


def test_the_notes_are_the_tag_s_dated_section() -> None:
    assert release_notes.notes("v1.2.0", changelog=CHANGELOG, version="1.2.0") == (
        "### Fixed\n- A bug.\n")


@pytest.mark.parametrize(("tag", "version", "said"), [
    ("v1.3.0", "1.3.0", "CHANGELOG.md has no section for 1.3.0: rename ## Unreleased"),
    ("v1.1.0", "1.1.0", "the section of 1.1.0 has no date"),
    ("v1.2.0", "1.3.0.dev0", "the tag v1.2.0 is not blogbuild's version 1.3.0.dev0"),
    ("1.2.0", "1.2.0", "'1.2.0' is not a release tag"),
    ("v1.3.0.dev0", "1.3.0.dev0", "is not a release tag"),
])
def test_a_tag_without_notes_is_refused(tag: str, version: str, said: str) -> None:
    with pytest.raises(SystemExit, match=re.escape(said)):
        release_notes.notes(tag, changelog=CHANGELOG, version=version)


def test_the_workflow_stops_when_the_changelog_has_no_section(tmp_path: Path) -> None:
    """The workflow's own step, in a checkout whose CHANGELOG lacks the tag's version."""
    for rel in ("scripts/release_notes.py", "src/blogbuild/__init__.py", "CHANGELOG.md"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / rel, tmp_path / rel)
    cut_release.cut(tmp_path, "9.8.7", dt.date(2027, 1, 2))
    (step,) = [s["run"] for s in workflow()["jobs"]["build"]["steps"]
               if "release_notes.py" in s.get("run", "")]
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "python").symlink_to(sys.executable)

    def run(tag: str) -> subprocess.CompletedProcess[str]:
        env = {**os.environ, "GITHUB_REF_NAME": tag, "PATH": f"{bin_dir}:{os.environ['PATH']}"}
        return subprocess.run(["bash", "-eo", "pipefail", "-c", step], cwd=tmp_path, env=env,
                              capture_output=True, text=True, timeout=60)

    assert run("v9.8.7").returncode == 0
    assert (tmp_path / "release-notes.md").read_text(encoding="utf-8").startswith("### ")
    text = (tmp_path / "CHANGELOG.md").read_text(encoding="utf-8")
    (tmp_path / "CHANGELOG.md").write_text(text.replace("## 9.8.7 — 2027-01-02", "## Later"))
    proc = run("v9.8.7")
    assert proc.returncode == 1
    assert "CHANGELOG.md has no section for 9.8.7" in proc.stderr


def test_cutting_a_release_dates_unreleased_and_sets_the_version(tmp_path: Path) -> None:
    for rel in ("src/blogbuild/__init__.py", "CHANGELOG.md"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / rel, tmp_path / rel)
    before = release_notes.sections((ROOT / "CHANGELOG.md").read_text(encoding="utf-8"))
    cut_release.cut(tmp_path, "4.5.6", dt.date(2027, 3, 4))
    after = release_notes.sections((tmp_path / "CHANGELOG.md").read_text(encoding="utf-8"))
    assert after[0] == ("4.5.6", "2027-03-04", before[0][2])
    assert after[1:] == before[1:]
    assert release_notes.package_version(tmp_path / "src/blogbuild/__init__.py") == "4.5.6"
    with pytest.raises(SystemExit, match="no section ## Unreleased"):
        cut_release.cut(tmp_path, "4.5.7", dt.date(2027, 3, 5))


# One version ----------------------------------------------------------------------------------


def test_one_version_everywhere(tmp_path: Path) -> None:
    """--version, the wheel's metadata, init's requirements.txt and CHANGELOG.md."""
    proc = subprocess.run([sys.executable, "-m", "blogbuild", "--version"], capture_output=True,
                          text=True, timeout=60)
    assert proc.stdout == f"blogbuild {__version__}\n"
    assert release_notes.package_version() == __version__
    wheel = subprocess.run([sys.executable, "-m", "hatchling", "version"], cwd=ROOT,
                           capture_output=True, text=True, timeout=60, check=True)
    assert wheel.stdout.strip() == __version__
    init(tmp_path / "blog")
    pins = (tmp_path / "blog/requirements.txt").read_text(encoding="utf-8").splitlines()
    assert pins[-1] == f"blogbuild=={__version__}"
    sections = release_notes.sections((ROOT / "CHANGELOG.md").read_text(encoding="utf-8"))
    released = [tuple(int(n) for n in name.split(".")) for name, date, _ in sections if date]
    if release_notes.DEVELOPMENT.fullmatch(__version__):
        # Between releases: what comes next is under Unreleased, and the version is newer
        # than every release.
        assert sections[0][:2] == ("Unreleased", None)
        upcoming = tuple(int(n) for n in __version__.split(".")[:3])
        assert all(upcoming > version for version in released)
    else:
        assert release_notes.RELEASE.fullmatch(__version__)
        assert sections[0][0] == __version__ and sections[0][1] is not None


# A run of the build job -----------------------------------------------------------------------


def test_the_build_job_runs_here(release: dict[str, Any]) -> None:
    """Every `run:` step ran, in order, on a clean export released as the docs say."""
    src = Path(release["src"])
    steps = [s["run"].strip() for s in workflow()["jobs"]["build"]["steps"] if "run" in s]
    assert release["ran"] == steps
    assert any("smoke_wheel.py" in s for s in steps)
    version = release["tag"].removeprefix("v")
    assert re.sub(r"\.dev\d+$", "", __version__) == version
    assert sorted(p.name for p in Path(release["dist"]).iterdir()) == [
        f"blogbuild-{version}-py3-none-any.whl", f"blogbuild-{version}.tar.gz"]
    # The notes are the release's section of its CHANGELOG.md, which was Unreleased here.
    sections = release_notes.sections((src / "CHANGELOG.md").read_text(encoding="utf-8"))
    ours = release_notes.sections((ROOT / "CHANGELOG.md").read_text(encoding="utf-8"))
    notes = (src / "release-notes.md").read_text(encoding="utf-8")
    assert sections[0][:2] == (version, time.strftime("%Y-%m-%d", time.gmtime(release["epoch"])))
    assert notes == sections[0][2] + "\n" == ours[0][2] + "\n"


def test_the_archives_are_dated_at_the_tagged_commit(release: dict[str, Any]) -> None:
    """SOURCE_DATE_EPOCH: every file of both archives has the commit's time."""
    epoch = release["epoch"]
    with zipfile.ZipFile(wheel_of(release)) as archive:
        stamps = {info.date_time for info in archive.infolist()}
    # A zip keeps local time to two seconds; hatchling writes UTC.
    assert stamps == {time.gmtime(epoch - epoch % 2)[:6]}
    (sdist,) = Path(release["dist"]).glob("*.tar.gz")
    with tarfile.open(sdist) as archive:
        assert {member.mtime for member in archive.getmembers()} == {epoch}
