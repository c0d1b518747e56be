"""Which file of the output folder answers a request path, and with which MIME type.

Only files inside the output folder are served: no `..`, NUL or backslash, no symbolic
link leading out, no dot files (the writers' temporary files, editors' swap files).
"""

from __future__ import annotations

import mimetypes
from pathlib import Path

TEXT_CHARSET = "; charset=utf-8"
MIME_TYPES = {
    ".html": "text/html" + TEXT_CHARSET, ".htm": "text/html" + TEXT_CHARSET,
    ".css": "text/css" + TEXT_CHARSET, ".js": "text/javascript" + TEXT_CHARSET,
    ".mjs": "text/javascript" + TEXT_CHARSET, ".json": "application/json",
    ".map": "application/json", ".webmanifest": "application/manifest+json",
    ".wasm": "application/wasm", ".xml": "application/xml", ".svg": "image/svg+xml",
    ".woff2": "font/woff2", ".woff": "font/woff", ".ttf": "font/ttf", ".otf": "font/otf",
    ".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif",
    ".webp": "image/webp", ".avif": "image/avif", ".ico": "image/x-icon",
    ".txt": "text/plain" + TEXT_CHARSET, ".md": "text/markdown" + TEXT_CHARSET,
    ".py": "text/x-python" + TEXT_CHARSET, ".csv": "text/csv" + TEXT_CHARSET,
    ".mp4": "video/mp4", ".webm": "video/webm", ".mp3": "audio/mpeg", ".ogg": "audio/ogg",
    ".pdf": "application/pdf", ".zip": "application/zip", ".whl": "application/zip",
    ".tar": "application/x-tar", ".gz": "application/gzip",
}


def mime_type(name: str) -> str:
    suffix = Path(name).suffix.lower()
    if suffix in MIME_TYPES:
        return MIME_TYPES[suffix]
    guessed, _ = mimetypes.guess_type(name)
    return guessed or "application/octet-stream"


class Forbidden(Exception):
    """The request names something outside the output folder."""


def resolve(output: Path, rel: str) -> tuple[Path | None, bool]:
    """The file inside `output` for the decoded path `rel`, and whether a slash must be added.

    Raises Forbidden for `..`, NUL, backslashes and symlinks leading out of `output`.
    """
    root = output.resolve()
    if "\0" in rel or "\\" in rel:
        raise Forbidden(rel)
    parts = [p for p in rel.split("/") if p]
    if any(p in (".", "..") for p in rel.split("/")):
        raise Forbidden(rel)
    if any(p.startswith(".") and p != ".well-known" for p in parts):
        return None, False  # temporary files of the writers, editors' swap files
    target = root.joinpath(*parts).resolve()
    if not target.is_relative_to(root):
        raise Forbidden(rel)
    if target.is_dir():
        if rel and not rel.endswith("/"):
            return target, True
        target = (target / "index.html").resolve()
        if not target.is_relative_to(root):
            raise Forbidden(rel)
    return (target, False) if target.is_file() else (None, False)
