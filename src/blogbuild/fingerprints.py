"""What names a render and a build: the source bytes, the options, and the code itself.

Light on purpose (no Markdown, no templates): a build with nothing to do only reads the
sources, hashes them and compares.
"""

from __future__ import annotations

import functools
import hashlib
import os
import sys
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
    for name, version in versions_of(RENDER_LIBRARIES).items():
        h.update(f"{name}={version}".encode())
    for name, path in sorted(RUNTIME_VERSIONS.items()):
        try:
            h.update(f"{name}={path.read_text(encoding='utf-8').strip()}".encode())
        except OSError:
            h.update(f"{name}=?".encode())
    return h.hexdigest()


def versions_of(names: tuple[str, ...]) -> dict[str, str]:
    """The installed version of each distribution (`?` when it is not installed).

    Read from the names of the `.dist-info` folders on the import path, as
    `importlib.metadata` finds them (the first on the path wins); only a distribution
    installed another way is asked of `importlib.metadata`, whose METADATA parsing loads
    the email package: a tenth of a build with nothing to do."""
    wanted = {_normal(name): name for name in names}
    found: dict[str, str] = {}
    for folder in sys.path:
        try:
            entries = os.listdir(folder or ".")
        except OSError:
            continue
        for entry in entries:
            if entry.endswith(".dist-info") and "-" in entry:
                dist, version = entry[: -len(".dist-info")].split("-", 1)
                name = wanted.get(_normal(dist))
                if name is not None and name not in found:
                    found[name] = version
    for name in names:
        if name not in found:
            from importlib import metadata

            try:
                found[name] = metadata.version(name)
            except metadata.PackageNotFoundError:
                found[name] = "?"
    return {name: found[name] for name in names}


def _normal(name: str) -> str:
    """A distribution's name as package indexes compare them (PEP 503)."""
    return "-".join(part for part in name.replace("_", "-").replace(".", "-").lower()
                    .split("-") if part)


def _code_files() -> list[Path]:
    """blogbuild's .py and .js files, in a fixed order; nothing under vendor/."""
    found = []
    for folder, dirs, files in os.walk(PACKAGE):
        dirs[:] = [name for name in dirs if name != "__pycache__"
                   and not (name == "vendor" and folder == str(PACKAGE))]
        found += [Path(folder, name) for name in files if name.endswith((".py", ".js"))]
    return sorted(found)


def digest_of(data: bytes, config: Config) -> str:
    """Names a render: the source bytes, the options a render reads, and the code.

    A source that may run Python at build time (runnable blocks, with the site or a block
    asking for it) also depends on the interpreter and the installed distributions, and
    on the options of the execution."""
    h = hashlib.sha256(data)
    h.update(_options_key(config.render_fingerprint(), code_fingerprint(), extensions()))
    if may_execute(data, config):
        from blogbuild.themefiles import theme_static

        h.update(execution_fingerprint(theme_static() / CAPTURE_MODULE).encode())
        h.update(f"{config.runnable.execute}\0{config.runnable.timeout}".encode())
    return h.hexdigest()


#: The capture module of runnable blocks, shared with the browser's runtime (under static/).
CAPTURE_MODULE = "js/runnable_capture.py"


def may_execute(data: bytes, config: Config) -> bool:
    """Whether a source can hold a block that runs at build time (a cheap, safe guess); a
    notebook (its JSON names its format) runs when the site or the notebook asks."""
    if b'"nbformat"' in data and (config.notebooks.execute != "never" or b"execute:" in data):
        return True
    if b"runnable" not in data:
        return False
    return config.runnable.execute == "build" or b"data-execute" in data.lower()


@functools.cache
def execution_fingerprint(capture: Path) -> str:
    """What code executed at build time runs with: this Python, every installed
    distribution and its version, the capture module's source and the driver's."""
    from importlib import metadata

    h = hashlib.sha256(sys.version.encode())
    names = set()
    for dist in metadata.distributions():
        names.add(f"{(dist.metadata['Name'] or '?').lower()}=={dist.version}")
    for name in sorted(names):
        h.update(name.encode() + b"\n")
    for path in (capture, Path(__file__).resolve().parent / "runtimes" / "python_driver.py"):
        try:
            h.update(path.read_bytes())
        except OSError:
            h.update(b"?")
    return h.hexdigest()


@functools.lru_cache(maxsize=8)
def _options_key(render_fingerprint: str, code: str, extensions: str) -> bytes:
    return f"{render_fingerprint}\0{code}\0{extensions}".encode()


def extensions() -> str:
    """The readers and stages registered (blogbuild.readers, blogbuild.stages): code of
    others than blogbuild's that may change what a build renders and writes."""
    from blogbuild import readers, stages

    return f"{readers.fingerprint()}\0{stages.fingerprint()}"
