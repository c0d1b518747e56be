"""A build reads only the sources that changed since the last one read them.

The last build's summary keeps each source's stat and digest; a source whose stat is the
same, and that had been written well before it was read, is not read again. These tests
age the sources' times (os.utime) so that the stamps are trusted, as they are for every
post a blogger did not touch in the last seconds.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from blogbuild.commands.build import build
from blogbuild.config import load_config
from blogbuild.pipeline.quick import RACY_NS, Stamp, read_sources

HOUR = 3600


def age(path: Path, seconds: int = HOUR) -> None:
    """Set the file's times `seconds` into the past (its ctime stays now)."""
    then = time.time() - seconds
    os.utime(path, (then, then))


def make_site(root: Path, posts: int = 4) -> Path:
    (root / "content" / "posts").mkdir(parents=True)
    (root / "site.yaml").write_text('title: "Stamps"\nbase_url: "https://example.org/"\n')
    for n in range(posts):
        path = root / "content" / "posts" / f"2024-01-0{n + 1}-p{n}.md"
        path.write_text(f"---\ntitle: Post {n}\n---\n\nThe body of post {n}.\n")
        age(path)
    return root


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[list[str]]:
    """The names of the files under the test site's content/ that are read."""
    seen: list[str] = []
    original = Path.read_bytes

    def read_bytes(self: Path) -> bytes:
        if self.is_relative_to(tmp_path) and "content" in self.parts:
            seen.append(self.name)
        return original(self)

    monkeypatch.setattr(Path, "read_bytes", read_bytes)
    yield seen


def wait_out_the_racy_window() -> None:
    """A stamp is trusted when its file was written RACY_NS before it was read. The ctime
    of a file is set when it is written (os.utime cannot move it back), so a test waits."""
    time.sleep(RACY_NS / 1e9 + 0.1)


def test_an_unchanged_source_is_not_read_and_an_edited_one_is(tmp_path: Path,
                                                              reads: list[str]) -> None:
    site = make_site(tmp_path / "site")
    wait_out_the_racy_window()
    build(site / "site.yaml")
    assert sorted(reads) == [f"2024-01-0{n + 1}-p{n}.md" for n in range(4)]

    reads.clear()
    build(site / "site.yaml")  # nothing changed
    assert reads == []

    edited = site / "content" / "posts" / "2024-01-02-p1.md"
    edited.write_text(edited.read_text().replace("The body", "A new body"))
    age(edited, 2 * HOUR)  # older than before: only the stat tells the change
    reads.clear()
    build(site / "site.yaml")
    assert set(reads) == {"2024-01-02-p1.md"}
    assert "A new body of post 1" in (site / "_site" / "posts" / "p1" / "index.html").read_text()


def test_a_stamp_is_not_trusted_when_the_file_was_written_just_before_it_was_read(
        tmp_path: Path) -> None:
    """Two writes in one tick of the file system's clock leave the same stat: a file read
    within RACY_NS of its last write is read again next time."""
    site = make_site(tmp_path / "site", posts=1)
    config = load_config(site / "site.yaml")
    first = read_sources(config)
    ((rel, stamp),) = first.stamps.items()
    assert first.items[rel].data is not None
    racy = Stamp(stamp.size, stamp.mtime_ns, stamp.ctime_ns, stamp.inode,
                 stamp.ctime_ns + RACY_NS // 2, "a digest from other bytes")
    assert read_sources(config, {rel: racy}).items[rel].data is not None
    settled = Stamp(stamp.size, stamp.mtime_ns, stamp.ctime_ns, stamp.inode,
                    stamp.ctime_ns + 2 * RACY_NS, stamp.digest)
    again = read_sources(config, {rel: settled}).items[rel]
    assert again.data is None and again.digest == stamp.digest
    moved = Stamp(stamp.size, stamp.mtime_ns, stamp.ctime_ns, stamp.inode + 1,
                  stamp.ctime_ns + 2 * RACY_NS, stamp.digest)  # another file, renamed here
    assert read_sources(config, {rel: moved}).items[rel].data is not None


def test_other_render_options_read_every_source_again(tmp_path: Path,
                                                      reads: list[str]) -> None:
    site = make_site(tmp_path / "site")
    wait_out_the_racy_window()
    build(site / "site.yaml")
    with (site / "site.yaml").open("a") as f:
        f.write("math:\n  enabled: false\n")
    reads.clear()
    build(site / "site.yaml")
    assert len(reads) == 4


def test_a_source_that_may_run_code_is_always_read(tmp_path: Path, reads: list[str]) -> None:
    """Its render also depends on the Python environment, which no stat of it shows."""
    site = make_site(tmp_path / "site", posts=1)
    runs = site / "content" / "posts" / "2024-02-01-runs.md"
    runs.write_text('---\ntitle: Runs\n---\n\n<div class="runnable" data-lang="python" '
                    'data-execute="build">\n\n```python\nprint(6 * 7)\n```\n\n</div>\n')
    age(runs)
    wait_out_the_racy_window()
    build(site / "site.yaml")
    reads.clear()
    (site / "content" / "posts" / "2024-01-01-p0.md").touch()  # something to build
    build(site / "site.yaml")
    assert "2024-02-01-runs.md" in reads
