"""`blogbuild import`: move the posts of a Jekyll site, a Hugo site or an Obsidian vault here,
or make a site of a Quarto blog."""

from __future__ import annotations

from pathlib import Path

from blogbuild.importers.plan import import_site
from blogbuild.importers.quarto import import_quarto
from blogbuild.importers.report import WHERE, quarto_lines, report_lines


def import_(kind: str, source: Path, *, config_path: Path | str | None = None,
            dry_run: bool = False, force: bool = False) -> tuple[list[str], str | None]:
    """Import the posts of the `kind` site in `source`: (report lines, error or None).

    The error says that no post could be imported, or (in a dry run) that the import would
    stop; nothing was written then."""
    if kind == "quarto":
        made = import_quarto(source, config_path=config_path, dry_run=dry_run, force=force)
        blocked = "the import would stop without writing anything, for the reasons above"
        return quarto_lines(made), blocked if made.blocked else None
    report = import_site(kind, source, config_path=config_path, dry_run=dry_run, force=force)
    problem = None
    if not report.posts:
        problem = f"no post could be imported from {source} (looked in {WHERE[kind]})"
    elif report.blocked:
        problem = "the import would stop without writing anything, for the reasons above"
    return report_lines(report), problem
