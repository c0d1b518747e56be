"""The two forms of a check's result: lines for people and CI logs, JSON for tools.

The JSON schema is documented in docs/cli.md and kept stable: fields are only ever added.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import asdict

from blogbuild.check import SEVERITIES, Finding

#: Bumped only when a field changes meaning or goes away.
SCHEMA_VERSION = 1


def ordered(findings: Iterable[Finding]) -> list[Finding]:
    """Findings grouped by file, in line order; duplicates (two checks agreeing) once."""
    return sorted(set(findings), key=lambda f: (f.file, f.line, f.column, f.kind, f.message))


def counts(findings: Sequence[Finding]) -> dict[str, int]:
    found = Counter(f.severity for f in findings)
    return {severity: found.get(severity, 0) for severity in SEVERITIES}


def summary_line(findings: Sequence[Finding], pages: int | None) -> str:
    """`pages` is None when the build failed (its errors are the findings)."""
    n = counts(findings)
    files = len({f.file for f in findings})
    where = f" in {files} file{'s' if files != 1 else ''}" if findings else ""
    checked = "the build failed, so no page was checked" if pages is None else \
        f"checked {pages} page{'s' if pages != 1 else ''}"
    return (f"{checked}: {n['error']} error(s), {n['warning']} warning(s), "
            f"{n['info']} note(s){where}")


def as_text(findings: Sequence[Finding], pages: int | None) -> str:
    """One line per finding, a blank line between files, and the summary last."""
    lines: list[str] = []
    last = None
    for finding in ordered(findings):
        if last is not None and finding.file != last:
            lines.append("")
        lines.append(finding.format())
        last = finding.file
    if lines:
        lines.append("")
    lines.append(summary_line(findings, pages))
    return "\n".join(lines) + "\n"


def as_json(findings: Sequence[Finding], pages: int | None) -> str:
    found = ordered(findings)
    document = {
        "version": SCHEMA_VERSION,
        "summary": {**counts(found), "pages": pages},
        "findings": [asdict(f) for f in found],
    }
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"
