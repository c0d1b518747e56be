"""Shared by the search tests: Pagefind's own index of a site's pages (what blogbuild's
index is compared with)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from blogbuild.search import pages as search_pages
from blogbuild.stages.search import reading as search


def pagefinds_own_index(monkeypatch: pytest.MonkeyPatch, build: Callable[[], Any],
                        into: Path) -> None:
    """Run `build` (a clean one) with every page read by one Pagefind process, and write
    the index files Pagefind answered with, as it wrote them, into `into`."""
    captured: list[dict[str, bytes]] = []
    real_split = search_pages.split

    def keep(files: dict[str, bytes]) -> Any:
        captured.append(files)
        return real_split(files)

    with monkeypatch.context() as patch:
        patch.setattr(search, "_TWO_PROCESSES", 10**9)
        patch.setattr(search, "_BATCH", 10**9)
        patch.setattr(search_pages, "split", keep)  # read_pages imports it when it runs
        build()
    assert len(captured) == 1, "Pagefind read the pages in more than one process"
    for rel, data in captured[0].items():
        (into / rel).parent.mkdir(parents=True, exist_ok=True)
        (into / rel).write_bytes(data)
