"""A source to render: a post's or page's file, where it is under content/, and how messages
name it. Light on purpose: the check that nothing changed makes one per source."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class SourceJob:
    """One Markdown file to read and render; `rel` is its path under content/ (POSIX)."""

    path: Path
    rel: str
    kind: str  # "post" or "page"
    display: str  # the path shown in messages (relative to the site folder)

    def __reduce__(self) -> tuple[Any, ...]:
        # The path as one string: a Path pickles as its parts, which take twice as long
        # to put together again, and every build loads a job per source with its state.
        return _source_job, (str(self.path), self.rel, self.kind, self.display)


def _source_job(path: str, rel: str, kind: str, display: str) -> SourceJob:
    return SourceJob(Path(path), rel, kind, display)
