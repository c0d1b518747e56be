"""Make the release commit's two edits: `python scripts/cut_release.py 0.3.0 [--date D]`.

CHANGELOG.md's `## Unreleased` becomes `## 0.3.0 — D` (D is today unless given) and
blogbuild's `__version__` becomes "0.3.0". Commit them and tag the commit `v0.3.0`: the
release workflow does the rest (docs/development.md, "Releasing").
"""

from __future__ import annotations

import argparse
import datetime as dt
import re
import sys
from pathlib import Path

from release_notes import CHANGELOG, RELEASE, VERSION_FILE, package_version


def cut(root: Path, version: str, date: dt.date) -> None:
    """Edit CHANGELOG.md and __init__.py under `root` (a checkout) for the release `version`."""
    if not RELEASE.fullmatch(version):
        raise SystemExit(f"{version!r} is not a release version such as 1.2.3")
    changelog = root / CHANGELOG.relative_to(CHANGELOG.parent)
    text = changelog.read_text(encoding="utf-8")
    if not re.search(r"^## Unreleased[ \t]*$", text, re.M):
        raise SystemExit("CHANGELOG.md has no section ## Unreleased to release")
    changelog.write_text(re.sub(r"^## Unreleased[ \t]*$", f"## {version} — {date.isoformat()}",
                                text, count=1, flags=re.M), encoding="utf-8")
    init = root / VERSION_FILE.relative_to(CHANGELOG.parent)
    old = package_version(init)
    init.write_text(init.read_text(encoding="utf-8").replace(
        f'__version__ = "{old}"', f'__version__ = "{version}"'), encoding="utf-8")


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("version", help="the version to release, e.g. 0.3.0")
    parser.add_argument("--date", type=dt.date.fromisoformat, default=dt.date.today(),
                        help="the release's date, YYYY-MM-DD (default: today)")
    args = parser.parse_args(argv)
    try:
        cut(CHANGELOG.parent, args.version, args.date)
    except SystemExit as exc:
        print(f"cut_release.py: error: {exc}", file=sys.stderr)
        return 1
    print(f"CHANGELOG.md and __version__ say {args.version}; commit them and tag v{args.version}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
