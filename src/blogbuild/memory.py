"""What a process keeps in memory between the builds it runs (the live server's, a program's
that builds several sites): values worked out from their inputs, looked up by them."""

from __future__ import annotations

from typing import TypeVar

K = TypeVar("K")
V = TypeVar("V")


class Kept(dict[K, V]):
    """Values by the inputs they were worked out from, at most `most` of them: past that,
    the oldest go first (a long session of the live server sees many versions)."""

    def __init__(self, most: int) -> None:
        super().__init__()
        self.most = most

    def keep(self, key: K, value: V) -> V:
        """`value`, kept under `key`."""
        if len(self) >= self.most:
            del self[next(iter(self))]
        self[key] = value
        return value
