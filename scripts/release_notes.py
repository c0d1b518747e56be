"""The release notes of a version tag: its section of CHANGELOG.md, printed for the GitHub
release (`python scripts/release_notes.py v0.3.0 > notes.md`).

It refuses, with exit status 1 and a line saying what to do, a tag that is not `v` followed
by blogbuild's version (`blogbuild.__version__`, read from its source file so that nothing
needs installing), a development version, and a version whose section CHANGELOG.md lacks
or has not dated yet (still "## Unreleased"). The release workflow runs it before anything
is published.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CHANGELOG = ROOT / "CHANGELOG.md"
VERSION_FILE = ROOT / "src" / "blogbuild" / "__init__.py"

#: A section's heading: `## 0.3.0 — 2026-12-01`, or `## Unreleased` for what comes next.
HEADING = re.compile(r"^## (?P<name>\S+)(?: — (?P<date>\d{4}-\d{2}-\d{2}))?[ \t]*$", re.M)
#: A released version (what a tag names); a development version adds `.devN`.
RELEASE = re.compile(r"\d+\.\d+\.\d+")
DEVELOPMENT = re.compile(r"\d+\.\d+\.\d+\.dev\d+")


def package_version(path: Path = VERSION_FILE) -> str:
    """The `__version__ = "…"` of blogbuild's __init__.py."""
    found = re.search(r'^__version__ = "([^"]+)"$', path.read_text(encoding="utf-8"), re.M)
    if found is None:
        raise SystemExit(f"{path}: no line __version__ = \"…\"")
    return found[1]


def sections(text: str) -> list[tuple[str, str | None, str]]:
    """Each `## ` section of a changelog, in order: (name, date or None, body without the
    heading, stripped)."""
    found = list(HEADING.finditer(text))
    return [(m["name"], m["date"], text[m.end():found[i + 1].start() if i + 1 < len(found)
                                        else len(text)].strip())
            for i, m in enumerate(found)]


def notes(tag: str, *, changelog: str, version: str) -> str:
    """The notes of `tag`; SystemExit saying what is wrong when it cannot be released."""
    if not tag.startswith("v") or not RELEASE.fullmatch(tag[1:]):
        raise SystemExit(f"{tag!r} is not a release tag: tag a version as v1.2.3")
    if tag[1:] != version:
        raise SystemExit(f"the tag {tag} is not blogbuild's version {version} "
                         f"(src/blogbuild/__init__.py): set __version__ = \"{tag[1:]}\" "
                         f"in the commit you tag")
    for name, date, body in sections(changelog):
        if name == version:
            if date is None:
                raise SystemExit(f"CHANGELOG.md: the section of {version} has no date: "
                                 f"write it as ## {version} — YYYY-MM-DD")
            if not body:
                raise SystemExit(f"CHANGELOG.md: the section of {version} is empty")
            return body + "\n"
    raise SystemExit(f"CHANGELOG.md has no section for {version}: rename ## Unreleased to "
                     f"## {version} — YYYY-MM-DD in the commit you tag")


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: release_notes.py TAG   (e.g. v0.3.0)", file=sys.stderr)
        return 2
    try:
        text = notes(argv[0], changelog=CHANGELOG.read_text(encoding="utf-8"),
                     version=package_version())
    except SystemExit as exc:
        print(f"release_notes.py: error: {exc}", file=sys.stderr)
        return 1
    sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
