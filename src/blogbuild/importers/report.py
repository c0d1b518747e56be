"""The report of an import: per post what was rewritten and what to check, then a summary."""

from __future__ import annotations

import re
from pathlib import Path

from blogbuild.importers.plan import ImportReport
from blogbuild.importers.quarto import QuartoReport

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
#: Where each source keeps its posts, for the message when none were found.
WHERE = {"jekyll": "_posts/ and _drafts/", "hugo": "content/ (content/posts/ when it exists)",
         "obsidian": "the vault's notes (.md files)"}


def report_lines(report: ImportReport) -> list[str]:
    """The lines to print, one post after the other, the summary last."""
    lines: list[str] = []
    site = _shown(report.content)
    for post in report.posts:
        where = _shown(report.source / post.source.rel)
        lines.append(f"{where} -> {site}/{post.dest}" + ("  (draft)" if post.meta.get("draft")
                                                        else ""))
        if post.counts:
            done = ", ".join(f"{n} {kind}" for kind, n in sorted(post.counts.items()))
            lines.append(f"  rewrote: {done}")
        for note in post.notes:
            at = f":{note.line}" if note.line else ""
            lines.append(f"  {where}{at}: {note.what}")
    if report.skipped:
        lines.append("not imported:")
        lines.extend(f"  {_shown(report.source)}/{note.what}" for note in report.skipped)
    if report.blocked:
        lines.append("would stop the import (nothing would be written):")
        lines.extend(f"  {problem}" for problem in report.blocked)
    lines.append(summary(report))
    return [_printable(line) for line in lines]


def summary(report: ImportReport) -> str:
    """One line: how many posts, files, rewrites and places to check."""
    posts = len(report.posts)
    drafts = sum(1 for p in report.posts if p.meta.get("draft"))
    rewrites = sum(sum(p.counts.values()) for p in report.posts)
    notes = sum(len(p.notes) for p in report.posts)
    verb = "would import" if report.dry_run else "imported"
    text = (f"{verb} {posts} post{'s' * (posts != 1)}"
            + (f" ({drafts} draft{'s' * (drafts != 1)})" if drafts else "")
            + f" and {len(report.files)} file{'s' * (len(report.files) != 1)}; "
            + f"{rewrites} rewrite{'s' * (rewrites != 1)}; "
            + f"{notes} thing{'s' * (notes != 1)} to check")
    if report.skipped:
        text += f"; {len(report.skipped)} not imported"
    return text + ("; dry run: nothing was written" if report.dry_run else "")


def quarto_lines(report: QuartoReport) -> list[str]:
    """The lines to print for a Quarto import: each document, site.yaml, what was left."""
    source, site = _shown(report.source), _shown(report.site)
    lines = [f"{source}/{name} -> {site}/{dest}" for name, dest in report.documents]
    keys = ", ".join(f"{k} ({len(v)} links)" if k == "nav" else k for k, v in
                     report.settings.items())
    lines.append(f"{source}/_quarto.yml -> {site}/site.yaml: {keys or 'the defaults'}")
    if report.remarks:
        lines.append("not carried over (or changed):")
        lines.extend(f"  {source}" + (f"/{r.file}" if r.file else "")
                     + (f":{r.line}" if r.line else "") + f": {r.what}" for r in report.remarks)
    if report.blocked:
        lines.append("would stop the import (nothing would be written):")
        lines.extend(f"  {problem}" for problem in report.blocked)
    pages = len(report.documents) - report.posts
    others = len(report.files) - len(report.documents) - 1
    verb = "would import" if report.dry_run else "imported"
    lines.append(f"{verb} {report.posts} post{'s' * (report.posts != 1)}, {pages} "
                 f"page{'s' * (pages != 1)} and {others} other file{'s' * (others != 1)}; "
                 f"{len(report.remarks)} thing{'s' * (len(report.remarks) != 1)} not carried "
                 "over" + ("; dry run: nothing was written" if report.dry_run else ""))
    return [_printable(line) for line in lines]


def _printable(line: str) -> str:
    """No control characters from a file name or a post reach the terminal."""
    return _CONTROL.sub("?", line)


def _shown(path: Path) -> str:
    """`path` relative to the current folder when inside it."""
    try:
        return path.relative_to(Path.cwd()).as_posix()
    except ValueError:
        return path.as_posix()
