"""The live server's watcher: when a batch of changed files is handed out."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from blogbuild.serve.watch import Watcher
from serve_helpers import BOUND

pytestmark = pytest.mark.server


def test_a_file_closed_after_writing_ends_its_batch_without_the_quiet_time(
        tmp_path: Path) -> None:
    """An open file may get more bytes: its batch waits for the quiet time (long here).
    Closed, the file is complete, and the batch goes out at once."""
    watcher = Watcher([tmp_path], [], quiet=BOUND, max_wait=2 * BOUND)
    watcher.start()
    batches: list[set[Path] | None] = []
    taker = threading.Thread(target=lambda: batches.append(watcher.next_batch()), daemon=True)
    try:
        with open(tmp_path / "post.md", "w") as fh:
            fh.write("one")
            fh.flush()
            taker.start()
            taker.join(0.3)
            assert taker.is_alive() and not batches
            fh.write(" two")
        taker.join(BOUND / 2)
        assert batches == [{tmp_path.resolve() / "post.md"}]
    finally:
        watcher.stop()


def test_a_file_renamed_into_place_ends_its_batch(tmp_path: Path) -> None:
    """Editors that save through a temporary file rename it over the post."""
    watcher = Watcher([tmp_path], [], quiet=BOUND, max_wait=2 * BOUND,
                      ignore=lambda p: p.name.endswith("~"))
    watcher.start()
    batches: list[set[Path] | None] = []
    taker = threading.Thread(target=lambda: batches.append(watcher.next_batch()), daemon=True)
    try:
        (tmp_path / "post.md~").write_text("new")  # ignored, as editors' backups are
        taker.start()
        (tmp_path / "post.md~").rename(tmp_path / "post.md")
        taker.join(BOUND / 2)
        assert batches == [{tmp_path.resolve() / "post.md"}]
    finally:
        watcher.stop()
