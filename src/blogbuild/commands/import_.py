"""`blogbuild import`: move the posts of a Jekyll site, a Hugo site or an Obsidian vault here."""

from __future__ import annotations

from pathlib import Path

from blogbuild.importers.plan import SOURCES, import_site
from blogbuild.importers.report import WHERE, report_lines

KINDS = tuple(SOURCES)


def import_(kind: str, source: Path, *, config_path: Path | str | None = None,
            dry_run: bool = False, force: bool = False) -> tuple[list[str], str | None]:
    """Import the posts of the `kind` site in `source`: (report lines, error or None).

    The error says that no post could be imported (nothing was written then)."""
    report = import_site(kind, source, config_path=config_path, dry_run=dry_run, force=force)
    problem = None if report.posts else \
        f"no post could be imported from {source} (looked in {WHERE[kind]})"
    return report_lines(report), problem
