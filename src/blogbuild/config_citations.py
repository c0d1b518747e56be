"""The site's citation settings: `bibliography` (one .bib file or a list) and
`citations.style`; each file is read here, so the render fingerprint covers the bytes of
every one. A .bib file that does not exist is a warning at its line of site.yaml, given by
the render (stages/bibliography/): the fingerprint notes it missing, so creating it
renders the posts again. A style that is missing, or a file that cannot be read, is an
error here."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from blogbuild.diagnostics import ConfigError

BUILTIN_STYLES = ("author-year", "numeric")


def bibliography_paths(value: Any, source: str, lines: dict[str, int]) -> tuple[str, ...]:
    """`bibliography:` as a tuple of paths (from the site folder)."""
    if value is None or value == ():
        return ()
    items = value if isinstance(value, list | tuple) else [value]
    for i, item in enumerate(items):
        if not isinstance(item, str) or not item.strip():
            key = f"bibliography[{i}]" if isinstance(value, list | tuple) else "bibliography"
            raise ConfigError(f"'{key}' must be the path of a .bib file (from the folder of "
                              f"site.yaml), not {item!r}", file=source,
                              line=lines.get(key, lines.get("bibliography", 0)))
    return tuple(str(item).strip() for item in items)


def files_digest(root: Path, paths: tuple[str, ...], style: str, source: str,
                 lines: dict[str, int]) -> str:
    """One hash of the bytes of the bibliography files and of a .csl style file."""
    h = hashlib.sha256()
    named = [(f"bibliography[{i}]" if f"bibliography[{i}]" in lines else "bibliography", p)
             for i, p in enumerate(paths)]
    if style not in BUILTIN_STYLES:
        if not style.endswith(".csl"):
            raise ConfigError(f"'citations.style' must be {' or '.join(BUILTIN_STYLES)}, or "
                              f"the path of a .csl file, not {style!r}", file=source,
                              line=lines.get("citations.style", 0))
        named.append(("citations.style", style))
    for key, rel in named:
        line = lines.get(key, lines.get("bibliography", 0))
        try:
            data = (root / rel).read_bytes()
        except FileNotFoundError:
            if key == "citations.style":
                raise ConfigError(f"'{key}': the style file {rel} does not exist; the path "
                                  "is from the folder of site.yaml", file=source,
                                  line=line) from None
            h.update(f"{rel}\0missing at line {line}\0".encode())
            continue
        except OSError as exc:
            what = "style" if key == "citations.style" else "bibliography"
            raise ConfigError(f"'{key}': cannot read the {what} file {rel} ("
                              f"{exc.strerror or exc}); the path is from the folder of "
                              "site.yaml", file=source, line=line) from None
        h.update(f"{rel}\0".encode() + hashlib.sha256(data).digest())
    return h.hexdigest() if named else ""
