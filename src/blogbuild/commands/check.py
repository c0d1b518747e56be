"""`blogbuild check`: report broken links, anchors, images and portability problems.

The work is in blogbuild.check; this module turns its findings into output and an exit
status (0 clean, 1 errors, or warnings under --strict).
"""

from __future__ import annotations

from pathlib import Path
from typing import TextIO

from blogbuild.check.report import as_json, as_text
from blogbuild.check.run import Options, check


def run_check(config_path: Path | None, *, out: TextIO, options: Options,
              base_url: str | None = None, strict: bool = False, as_format: str = "text",
              ) -> int:
    """Check the site, write the report to `out`; returns the exit status."""
    outcome = check(config_path, base_url=base_url, options=options)
    render = as_json if as_format == "json" else as_text
    out.write(render(outcome.findings, outcome.pages))
    failing = {"error", "warning"} if strict else {"error"}
    return 1 if any(f.severity in failing for f in outcome.findings) else 0
