"""`blogbuild check`: what a reader would find broken, before the site is published.

The findings come from four places: the build's own checks of links in post bodies, a
crawl of the built pages (templates and raw HTML too), external links when asked for, and
a lint of the places where a post renders differently on GitHub or in Obsidian.
"""

from __future__ import annotations

from dataclasses import dataclass

from blogbuild.diagnostics import location

#: Severities, worst first; `error` fails a check, `warning` fails it only under --strict.
SEVERITIES = ("error", "warning", "info")
#: What a finding is about (the `kind` field of the JSON report).
KINDS = ("link", "anchor", "image", "asset", "external", "portability", "build")


@dataclass(frozen=True, order=True)
class Finding:
    """One problem: where (1-based line and column, 0 when unknown), how bad, what and why."""

    file: str
    line: int
    column: int
    severity: str
    kind: str
    message: str
    target: str = ""

    def format(self) -> str:
        return f"{location(self.file, self.line, self.column)}: {self.severity}: {self.message}"
