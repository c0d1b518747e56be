"""What a build did (the CLI's summary, the live server's reload events, the tests)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from blogbuild.diagnostics import Diagnostic

if TYPE_CHECKING:  # light: the check that nothing changed loads this module
    from blogbuild.content.records import Execution


@dataclass
class BuildReport:
    """What a build did, for the summary it prints and for the live server."""

    output: Path
    posts: int = 0
    pages: int = 0
    files: int = 0
    seconds: float = 0.0
    sources: int = 0  # Markdown files read
    rendered: int = 0  # sources rendered
    cached: int = 0  # sources not rendered (unchanged, or found in the render store)
    images_encoded: int = 0  # pictures whose variants this build made (not cached)
    #: The largest pictures: (file as shown, its bytes, its widest copy's bytes).
    images: tuple[tuple[str, int, int], ...] = ()
    templated: set[str] = field(default_factory=set)  # output paths of the pages templated
    diagnostics: list[Diagnostic] = field(default_factory=list)
    base_url: str = ""
    #: Every planned page: output path -> template (which says the page's kind).
    written: dict[str, str] = field(default_factory=dict)
    changed: set[str] = field(default_factory=set)  # output files written by this build
    removed: set[str] = field(default_factory=set)  # output files removed by this build
    fresh: bool = False  # the whole output folder was made anew
    errors: list[Diagnostic] = field(default_factory=list)  # lenient runs: what was kept back
    #: Sources whose runnable blocks ran at build time (or came from its cache), by file.
    executions: dict[str, Execution] = field(default_factory=dict)
    #: The cache folder the build used (None with --no-cache): the summary keeps its own.
    cache: Path | None = None
    #: Every file the build left in the output folder: path -> (size, mtime_ns), as it
    #: knows them (the summary reads them instead of walking the folder); None: unknown.
    outputs: dict[str, tuple[int, int]] | None = None

    def execution_lines(self) -> list[str]:
        """What ran at build time: a line per source that ran blocks, one for the blocks
        taken from the cache."""
        lines = []
        reused = 0
        for name, execution in self.executions.items():
            reused += execution.reused
            if execution.executed:
                blocks = "block" if execution.executed == 1 else "blocks"
                lines.append(f"executed {execution.executed} {blocks} in {name} "
                             f"({execution.seconds:.1f} s)")
        if reused:
            blocks = "block" if reused == 1 else "blocks"
            lines.append(f"reused {reused} executed {blocks} from the cache")
        return lines


def first_per_place(errors: list[Diagnostic]) -> list[Diagnostic]:
    """One error per template line: a broken footer fails every page the same way."""
    seen: dict[tuple[str, int], Diagnostic] = {}
    for found in errors:
        seen.setdefault((found.file, found.line), found)
    return list(seen.values())
