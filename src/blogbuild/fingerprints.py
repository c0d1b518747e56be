"""What names a render and a build: the source bytes, the options, and the code itself.

Light on purpose (no Markdown, no templates): a build with nothing to do only reads the
sources, hashes them and compares.
"""

from __future__ import annotations

import functools
import hashlib
import os
from importlib import metadata
from pathlib import Path

from blogbuild import __version__
from blogbuild.config import Config

#: Libraries whose version changes rendered HTML.
RENDER_LIBRARIES = ("markdown-it-py", "mdit-py-plugins", "Pygments", "Jinja2", "mini-racer",
                    "citeproc-py")
PACKAGE = Path(__file__).resolve().parent
#: Vendored runtimes whose version changes rendered HTML.
RUNTIME_VERSIONS = {"katex": PACKAGE / "vendor" / "katex" / "VERSION",
                    "csl": PACKAGE / "vendor" / "csl" / "VERSION"}


@functools.cache
def code_fingerprint() -> str:
    """blogbuild's version and code and the versions of the libraries it renders with.

    A render cache restored on another machine (a CI runner) or kept across an upgrade is
    only reused by the very same code; the source files are hashed, not their mtimes.
    JavaScript counts too (KaTeX's entry points are a .js file), but not the vendored
    runtimes: those are named by their VERSION files below."""
    h = hashlib.sha256(__version__.encode())
    for path in _code_files():
        h.update(path.relative_to(PACKAGE).as_posix().encode())
        h.update(path.read_bytes())
    for name in RENDER_LIBRARIES:
        try:
            h.update(f"{name}={metadata.version(name)}".encode())
        except metadata.PackageNotFoundError:
            h.update(f"{name}=?".encode())
    for name, path in sorted(RUNTIME_VERSIONS.items()):
        try:
            h.update(f"{name}={path.read_text(encoding='utf-8').strip()}".encode())
        except OSError:
            h.update(f"{name}=?".encode())
    return h.hexdigest()


def _code_files() -> list[Path]:
    """blogbuild's .py and .js files, in a fixed order; nothing under vendor/."""
    found = []
    for folder, dirs, files in os.walk(PACKAGE):
        dirs[:] = [name for name in dirs if name != "__pycache__"
                   and not (name == "vendor" and folder == str(PACKAGE))]
        found += [Path(folder, name) for name in files if name.endswith((".py", ".js"))]
    return sorted(found)


def digest_of(data: bytes, config: Config) -> str:
    """Names a render: the source bytes, the options a render reads, and the code."""
    h = hashlib.sha256(data)
    h.update(_options_key(config.render_fingerprint(), code_fingerprint()))
    return h.hexdigest()


@functools.lru_cache(maxsize=8)
def _options_key(render_fingerprint: str, code: str) -> bytes:
    return f"{render_fingerprint}\0{code}".encode()
