"""The output's files known from its folders' times (output.entries.files_known): a stat
per folder instead of a listing, and every change a listing would see still seen."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from blogbuild.commands.build import build
from blogbuild.output.entries import files_known, files_under, folder_times

FILES = {"index.html", "blog/a/index.html", "blog/b/index.html", "css/site.css"}


@pytest.fixture
def out(tmp_path: Path) -> Path:
    for rel in FILES:
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(rel)
    return tmp_path


def _aged(out: Path, seconds: float = 5.0) -> tuple[dict[str, int], int]:
    """The folders' record, their times moved back as if written `seconds` ago."""
    past = time.time_ns() - int(seconds * 1e9)
    for folder in [out, *(p for p in out.rglob("*") if p.is_dir())]:
        os.utime(folder, ns=(past, past + 123))  # a fine clock: not whole seconds
    return folder_times(out, FILES), time.time_ns()


def test_unchanged_folders_hold_what_they_held(out: Path) -> None:
    times, taken = _aged(out)
    assert set(times) == {"", "blog", "blog/a", "blog/b", "css"}
    assert files_known(out, FILES, times, taken)


@pytest.mark.parametrize("change", ["add", "remove", "rename", "folder", "swap"])
def test_a_change_a_listing_sees_is_seen(out: Path, change: str) -> None:
    times, taken = _aged(out)
    if change == "add":
        (out / "blog/a/extra.html").write_text("x")
    elif change == "remove":
        (out / "blog/b/index.html").unlink()
    elif change == "rename":
        (out / "css/site.css").rename(out / "css/other.css")
    elif change == "folder":
        (out / "blog/c").mkdir()
        (out / "blog/c/index.html").write_text("x")
    else:  # a file swapped for a folder of the same name, in a folder of the same time
        stat = (out / "css").stat()
        (out / "css/site.css").unlink()
        (out / "css/site.css").mkdir()
        os.utime(out / "css", ns=(stat.st_atime_ns, stat.st_mtime_ns))
        times["css"] = stat.st_mtime_ns - 1  # as if recorded just before the change
    assert not files_known(out, FILES, times, taken)
    assert files_under(out) != FILES  # as a listing finds


def test_a_folder_changed_in_the_tick_of_the_record_is_listed(out: Path) -> None:
    """A time too close to the record cannot be trusted: a change in the same tick of the
    file system's clock keeps it. Such a folder is listed, and what it holds compared."""
    times, _ = _aged(out)
    taken = times["blog/a"] + 1_000_000  # recorded 1 ms after the folder's last change
    assert files_known(out, FILES, times, taken)
    (out / "blog/a/extra.html").write_text("x")
    os.utime(out / "blog/a", ns=(times["blog/a"], times["blog/a"]))  # the same tick
    assert not files_known(out, FILES, times, taken)
    whole = {folder: mtime // 1_000_000_000 * 1_000_000_000 for folder, mtime in times.items()}
    for folder, mtime in whole.items():
        os.utime(out / folder, ns=(mtime, mtime))
    # Whole seconds: a coarse clock, whose tick may be a second or two.
    assert not files_known(out, FILES, whole, max(whole.values()) + 1_500_000_000)


def test_a_stray_file_in_an_untouched_folder_goes_at_the_next_build(tmp_path: Path) -> None:
    (tmp_path / "content" / "posts").mkdir(parents=True)
    (tmp_path / "site.yaml").write_text("title: T\nbase_url: https://example.org/\n"
                                        "search: false\n")
    (tmp_path / "content" / "posts" / "a.md").write_text("---\ntitle: A\ndate: 2024-01-01\n"
                                                         "---\nText.\n")
    build(tmp_path)
    out = tmp_path / "_site"
    old = time.time_ns() - 10 * 1_000_000_000
    for folder in [out, *(p for p in out.rglob("*") if p.is_dir())]:
        os.utime(folder, ns=(old, old + 7))
    time.sleep(0.05)
    assert build(tmp_path).rendered == 0  # nothing changed
    stray = next(p for p in out.rglob("index.html") if p.parent != out).parent / "stray.txt"
    stray.write_text("not ours")
    report = build(tmp_path)
    assert report.removed == {stray.relative_to(out).as_posix()} and not stray.exists()
