"""What names a render and a build: the source bytes, the options, and the code itself.

Light on purpose (no Markdown, no templates): a build with nothing to do only reads the
sources, hashes them and compares.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import os
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from blogbuild import __version__

if TYPE_CHECKING:
    from blogbuild.outline import SiteOptions

#: Libraries whose version changes rendered HTML.
RENDER_LIBRARIES = ("markdown-it-py", "mdit-py-plugins", "Pygments", "Jinja2", "mini-racer",
                    "citeproc-py", "PyYAML")  # PyYAML: front matter and site.yaml
PACKAGE = Path(__file__).resolve().parent
#: Vendored runtimes whose version changes rendered HTML.
RUNTIME_VERSIONS = {"katex": PACKAGE / "vendor" / "katex" / "VERSION",
                    "csl": PACKAGE / "vendor" / "csl" / "VERSION",
                    "fontawesome": PACKAGE / "vendor" / "fontawesome" / "VERSION"}


@functools.cache
def code_fingerprint() -> str:
    """blogbuild's version and code and the versions of the libraries it renders with.

    A render cache restored on another machine (a CI runner) or kept across an upgrade is
    only reused by the very same code; the source files are hashed, not their mtimes.
    JavaScript counts too (KaTeX's entry points are a .js file), but not the vendored
    runtimes: those are named by their VERSION files below. (`recall_code_fingerprint`
    may have found it noted, for these versions.)"""
    versions = _versions()
    if _RECALLED and _RECALLED[0][:2] == (__version__, versions):
        return _RECALLED[0][2]
    return _hashed(versions)


def _hashed(versions: str) -> str:
    h = hashlib.sha256(__version__.encode())
    for path in _code_files():
        h.update(path.relative_to(PACKAGE).as_posix().encode())
        h.update(path.read_bytes())
    h.update(versions.encode())
    return h.hexdigest()


def _versions() -> str:
    """The render libraries' and the vendored runtimes' versions."""
    found = [f"{name}={version}" for name, version in versions_of(RENDER_LIBRARIES).items()]
    for name, path in sorted(RUNTIME_VERSIONS.items()):
        try:
            found.append(f"{name}={path.read_text(encoding='utf-8').strip()}")
        except OSError:
            found.append(f"{name}=?")
    return "".join(found)


#: What `recall_code_fingerprint` found noted: blogbuild's version, the libraries' and
#: runtimes' versions, the fingerprint of that code with them.
_RECALLED: list[tuple[str, str, str]] = []
#: blogbuild's files noted this close before the note was made are read again next time
#: (a write in the same tick of the clock leaves the same stat).
_RACY_NS = 2_000_000_000


def recall_code_fingerprint(note: Path) -> None:
    """Have `code_fingerprint` take its value from `note` (a file of the cache) when each
    of blogbuild's files has the stat noted there and the libraries and runtimes the
    versions noted; else work it out and write the note. Reading and hashing the 230
    files took 7 to 11 ms of a build with nothing to do; their stats and the note, 4."""
    import pickle

    stats = []
    for path in _code_files():
        st = path.stat()
        stats.append((str(path), st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino))
    seen = (__version__, _versions(), stats)
    try:
        known = pickle.loads(note.read_bytes())
        if _holds(known, seen):
            _RECALLED[:] = [(seen[0], seen[1], known[2])]
            return
    except Exception:  # none yet, or damaged: worked out again
        pass
    from blogbuild.fileio import write_atomically

    if _HASHED and _holds(_HASHED[0], seen):  # this process hashed these very files
        made = _HASHED[0]
    else:
        made = (seen, time.time_ns(), _hashed(seen[1]))
        _HASHED[:] = [made]
    _RECALLED[:] = [(seen[0], seen[1], made[2])]
    with contextlib.suppress(OSError):  # a cache that cannot be written costs time only
        note.parent.mkdir(parents=True, exist_ok=True)
        write_atomically(note, pickle.dumps(made))


#: The note this process last made (another site's first build in this process, a new
#: cache folder, takes it while the files keep their stats).
_HASHED: list[tuple[Any, int, str]] = []


def _holds(known: tuple[Any, int, str], seen: tuple[str, str, list[Any]]) -> bool:
    """Whether a note made at `known[1]` of the files `known[0]` is the fingerprint of the
    files as `seen` now: each has the stat noted, and was written well before the note
    (a write in the same tick of the clock leaves the stat as it was)."""
    return known[0] == seen and all(s[2] < known[1] - _RACY_NS for s in seen[2])


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


def digest_of(data: bytes, config: SiteOptions) -> str:
    """Names a render: the source bytes, the options a render reads, and the code.

    A source that may run Python at build time (runnable blocks, with the site or a block
    asking for it) also depends on the interpreter and the installed distributions, and
    on the options of the execution."""
    h = hashlib.sha256(data)
    h.update(_options_key(config.render_fingerprint(), code_fingerprint(), extensions()))
    if may_execute(data, config):
        from blogbuild.themefiles import theme_static

        h.update(execution_fingerprint(theme_static() / CAPTURE_MODULE).encode())
        _, execute, timeout = config.runs
        h.update(f"{execute}\0{timeout}".encode())
    return h.hexdigest()


#: The capture module of runnable blocks, shared with the browser's runtime (under static/).
CAPTURE_MODULE = "js/runnable_capture.py"


def may_execute(data: bytes, config: SiteOptions) -> bool:
    """Whether a source can hold a block that runs at build time (a cheap, safe guess); a
    notebook (its JSON names its format) runs when the site or the notebook asks."""
    notebooks, runnable, _ = config.runs
    if b'"nbformat"' in data and (notebooks != "never" or b"execute:" in data):
        return True
    if b"{python" in data and (notebooks != "never" or b"execute:" in data):
        return True  # a Quarto document's cells (blogbuild.quarto.running)
    if b"runnable" not in data:
        return False
    return runnable == "build" or b"data-execute" in data.lower()


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
