"""The blogbuild a new blog's requirements.txt names: one the deploy workflow can install,
or a warning saying what to write when there is none (a development version)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from blogbuild import __version__
from blogbuild.commands import init as init_command
from blogbuild.commands.init import init
from blogbuild.scaffold import pin

COMMIT = "0123456789abcdef0123456789abcdef01234567"


def lines(path: Path) -> list[str]:
    """The requirement lines (not the comments) of a requirements.txt."""
    return [line for line in path.read_text(encoding="utf-8").splitlines()
            if line and not line.startswith("#")]


def installed_as(folder: Path, direct_url: dict[str, object] | None) -> Path:
    """A blogbuild distribution's metadata in `folder`, with PEP 610's direct_url.json."""
    info = folder / "blogbuild-9.9.9.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: blogbuild\nVersion: 9.9.9\n")
    if direct_url is not None:
        (info / "direct_url.json").write_text(json.dumps(direct_url))
    return folder


def test_a_release_is_pinned_by_version(tmp_path: Path,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(init_command, "__version__", "1.4.0")
    report = init(tmp_path / "blog")
    assert lines(tmp_path / "blog/requirements.txt") == ["blogbuild==1.4.0"]
    assert report.warning is None


def test_a_development_version_says_what_to_write(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(init_command, "__version__", "1.5.0.dev0")
    monkeypatch.setattr(pin, "installed_commit", lambda: None)
    report = init(tmp_path / "blog")
    text = (tmp_path / "blog/requirements.txt").read_text(encoding="utf-8")
    assert lines(tmp_path / "blog/requirements.txt") == ["blogbuild==1.5.0.dev0"]
    assert "#   blogbuild @ git+https://github.com/OWNER/blogbuild@COMMIT\n" in text
    assert "#   ./wheels/blogbuild-1.5.0.dev0-py3-none-any.whl\n" in text
    assert report.warning is not None and "development version" in report.warning


def test_the_command_prints_the_warning_of_this_development_version(tmp_path: Path) -> None:
    proc = subprocess.run([sys.executable, "-m", "blogbuild", "init", "blog"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0
    if pin.DEVELOPMENT.search(__version__) and pin.installed_commit() is None:
        assert proc.stderr == (
            f"blog/requirements.txt: warning: blogbuild {__version__} is a development "
            "version, which the package index does not have: the deploy workflow cannot "
            "install requirements.txt as it is; its comment says what to write instead\n")
    else:
        assert proc.stderr == ""


def test_a_development_version_from_git_pins_its_commit(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """pip noted the repository and commit it installed blogbuild from; a runner fetches
    the same."""
    url = "https://github.com/someone/blogbuild.git"
    monkeypatch.syspath_prepend(str(installed_as(tmp_path / "site-packages", {
        "url": url, "vcs_info": {"vcs": "git", "commit_id": COMMIT}})))
    assert pin.installed_commit() == f"git+{url}@{COMMIT}"
    monkeypatch.setattr(init_command, "__version__", "1.5.0.dev0")
    report = init(tmp_path / "blog")
    assert lines(tmp_path / "blog/requirements.txt") == [f"blogbuild @ git+{url}@{COMMIT}"]
    assert report.warning is None


@pytest.mark.parametrize("direct_url", [
    None,  # installed from the package index
    {"url": "file:///home/me/blogbuild", "dir_info": {"editable": True}},  # pip install -e
    {"url": "file:///home/me/blogbuild", "vcs_info": {"vcs": "git", "commit_id": COMMIT}},
    {"url": "https://example.org/blogbuild.whl", "archive_info": {}},
    {"url": "https://hg.example.org/blogbuild", "vcs_info": {"vcs": "hg", "commit_id": "1"}},
])
def test_other_origins_are_no_commit_a_runner_can_fetch(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        direct_url: dict[str, object] | None) -> None:
    monkeypatch.syspath_prepend(str(installed_as(tmp_path, direct_url)))
    assert pin.installed_commit() is None
