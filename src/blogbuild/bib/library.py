"""The bibliography a post cites from: its .bib files (or CSL-JSON and CSL-YAML files,
blogbuild.bib.cslread) read, hashed and merged.

This is the only module of `blogbuild.bib` that reads files. A file is read once per
process and bytes: a site-wide bibliography serves every post a worker renders.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from blogbuild.bib.bibtex import Entry, Parsed, parse
from blogbuild.diagnostics import Diagnostic, warning

#: A .bib file larger than this is refused (a large real one is a few MB).
MAX_BIB_BYTES = 50_000_000


class BibFileError(Exception):
    """A bibliography file that cannot be read at all."""


class MissingBibFile(BibFileError):
    """A bibliography file that does not exist (yet): a warning, like a missing image."""


#: The digest a render records for a bibliography file that does not exist: when the file
#: appears, its digest differs and the post is rendered again (`current_digest`).
MISSING = "missing"


@dataclass(frozen=True)
class Library:
    """The entries of a post's .bib files, with the files read and their problems."""

    entries: Mapping[str, Entry]
    #: (path as shown, sha256 of its bytes) of every file read, in order.
    files: tuple[tuple[str, str], ...]
    problems: tuple[Diagnostic, ...]
    #: The files (as shown) that do not exist; `files` holds them with the digest MISSING.
    missing: tuple[str, ...] = ()

    def close_keys(self, key: str) -> list[str]:
        """Keys that look like `key` (a typo, another case), best first."""
        import difflib

        folded = {k.casefold(): k for k in self.entries}
        same_case = [k for k in self.entries if k.casefold() == key.casefold()]
        close = difflib.get_close_matches(key.casefold(), list(folded), n=3, cutoff=0.75)
        return list(dict.fromkeys([*same_case, *(folded[k] for k in close)]))[:3]


_FILES: dict[tuple[str, str], tuple[list[Entry], list[Diagnostic]]] = {}


def digest_of(data: bytes) -> str:
    """What a render's record keeps of a file it read besides its source (`Rendered.inputs`):
    the sha256 of its bytes."""
    return hashlib.sha256(data).hexdigest()


def current_digest(path: Path) -> str | None:
    """What a render would record for `path` now: its digest, MISSING when there is no such
    file, None when it cannot be read (never equal to a record: render again)."""
    try:
        return digest_of(path.read_bytes())
    except FileNotFoundError:
        return MISSING
    except OSError:
        return None


def _read(path: Path, shown: str) -> tuple[str, list[Entry], list[Diagnostic]]:
    try:
        if path.stat().st_size > MAX_BIB_BYTES:
            raise BibFileError(f"{shown} is larger than {MAX_BIB_BYTES:,} bytes")
        data = path.read_bytes()
    except FileNotFoundError:
        raise MissingBibFile(f"the bibliography file {shown} does not exist") from None
    except IsADirectoryError:
        raise BibFileError(f"the bibliography {shown} is a folder, not a .bib file") from None
    except OSError as exc:
        raise BibFileError(f"cannot read the bibliography {shown}: "
                           f"{exc.strerror or exc}") from None
    digest = hashlib.sha256(data).hexdigest()
    known = _FILES.get((shown, digest))
    if known is None:
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            line = data[:exc.start].count(b"\n") + 1
            raise BibFileError(f"{shown}:{line} is not UTF-8 text: save the file as "
                               "UTF-8") from None
        parsed = _parsed(text.replace("\r\n", "\n"), shown)
        known = (parsed.entries, [warning(shown, line, message)
                                  for line, message in parsed.problems])
        _FILES[(shown, digest)] = known
    return digest, *known


def _parsed(text: str, shown: str) -> Parsed:
    """The entries of a bibliography file: CSL-JSON or CSL-YAML by its suffix, else BibTeX."""
    from blogbuild.bib.cslread import CslError, is_csl, parse_csl

    if not is_csl(shown):
        return parse(text)
    try:
        return parse_csl(text, shown)
    except CslError as exc:
        raise BibFileError(f"{shown}:{exc.line} {exc.message}") from None


def load_library(paths: list[tuple[Path, str]]) -> Library:
    """The entries of the files (path, path as shown); a key's first entry wins.
    A file that does not exist is left out and named in `missing`; raises BibFileError
    when a file cannot be read for another reason."""
    entries: dict[str, Entry] = {}
    where: dict[str, str] = {}  # key folded -> the key first seen, for case clashes
    files = []
    missing = []
    problems: list[Diagnostic] = []
    for path, shown in paths:
        try:
            digest, found, notes = _read(path, shown)
        except MissingBibFile:
            files.append((shown, MISSING))
            missing.append(shown)
            continue
        files.append((shown, digest))
        problems += notes
        for entry in found:
            first = where.setdefault(entry.key.casefold(), entry.key)
            if entry.key in entries or first != entry.key:
                problems.append(warning(shown, entry.line, (
                    f"the key '{entry.key}' is used twice" if first == entry.key else
                    f"the key '{entry.key}' differs from '{first}' only in case, which "
                    "BibTeX counts as the same key") + ": this entry is ignored; rename one"))
                continue
            entries[entry.key] = entry
    return Library(entries, tuple(files), tuple(problems), tuple(missing))
