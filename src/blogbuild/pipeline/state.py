"""What the last build knew, kept beside the render cache so a new process is incremental.

Per source: its digest and render record (no body). Per output page: what it read, the
fingerprints it was made from, and the bytes it has in the output. Per copied file: where it
came from. The state describes one output folder; it is only trusted when that folder still
carries blogbuild's marker, and every file it lists is checked against the disk (size and
modification time) before it is taken as unchanged.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from blogbuild.pipeline.deps import Dep, Reads
    from blogbuild.pipeline.records import RenderResult

#: Bump when the layout of these classes changes (the code fingerprint covers it too).
FORMAT = 1


@dataclass
class SourceEntry:
    digest: str
    result: RenderResult  # its `rendered` holds no body: that is in the render store
    feed: bool  # the stored body has the feed variant


@dataclass
class OutputEntry:
    """A file of the output as the last build left it."""

    digest: bytes  # of its bytes
    size: int
    mtime_ns: int


@dataclass
class PageEntry:
    template: str
    inputs: bytes  # fingerprint of template, globals, URL and context shape
    deps: Reads
    out: OutputEntry


@dataclass
class FileEntry:
    source: str  # absolute path, or "" for a generated file
    stamp: tuple[int, int]  # the source's (size, mtime_ns), or (0, 0)
    out: OutputEntry


@dataclass
class State:
    key: str  # code fingerprint, output folder, drafts
    sources: dict[str, SourceEntry] = field(default_factory=dict)
    pages: dict[str, PageEntry] = field(default_factory=dict)
    files: dict[str, FileEntry] = field(default_factory=dict)
    #: Fingerprint of every (source, attribute) some page read, as the pages saw it.
    values: dict[Dep, bytes] = field(default_factory=dict)
    posts: dict[str, bytes] = field(default_factory=dict)  # source -> post fingerprint
    templates: str = ""  # fingerprint of every template file
    closures: dict[str, bytes] = field(default_factory=dict)  # template -> what it loads
    format: int = FORMAT


def state_key(code: str, output: Path, drafts: bool) -> str:
    return hashlib.sha256(f"{FORMAT}\0{code}\0{output}\0{drafts}".encode()).hexdigest()


def state_path(cache: Path, key: str) -> Path:
    return cache / "state" / f"{key[:32]}.pickle"


def load_state(cache: Path, key: str) -> State | None:
    """The state a build with this key left, or None (missing, damaged, other code)."""
    try:
        with open(state_path(cache, key), "rb") as fh:
            state = pickle.load(fh)
    except Exception:  # a damaged or foreign file is only a cold start
        return None
    if not isinstance(state, State) or state.format != FORMAT or state.key != key:
        return None
    return state


def save_state(cache: Path, state: State) -> None:
    save_pickle(state_path(cache, state.key), state)


def save_pickle(path: Path, value: object) -> bool:
    """Write atomically; False when it could not be written (a cache that cannot be
    written only costs speed next time)."""
    tmp = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
        with os.fdopen(fd, "wb") as fh:
            pickle.dump(value, fh, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(tmp, path)
    except OSError:
        if tmp is not None:
            Path(tmp).unlink(missing_ok=True)
        return False
    return True


#: States of other output folders kept beside the current one (previews, drafts builds).
KEEP_STATES = 4


def prune_states(cache: Path, key: str) -> None:
    """Keep the current state and the few most recently written others."""
    current = state_path(cache, key).name.removesuffix(".pickle")
    try:
        found = sorted(((p.stat().st_mtime, p) for p in (cache / "state").iterdir()),
                       reverse=True)
    except OSError:
        return
    names: list[str] = []
    for _, path in found:
        name = path.name.split(".")[0]
        if name != current and name not in names:
            names.append(name)
    for _, path in found:
        if path.name.split(".")[0] in names[KEEP_STATES:]:
            path.unlink(missing_ok=True)


def file_digest(data: bytes) -> bytes:
    return hashlib.blake2b(data, digest_size=16).digest()


def intact(output: Path, rel: str, entry: OutputEntry) -> bool:
    """The file is still what the last build wrote (a quick stat, bytes only if needed)."""
    path = os.path.join(output, rel)
    try:
        st = os.stat(path)
    except OSError:
        return False
    if st.st_size != entry.size:
        return False
    if st.st_mtime_ns == entry.mtime_ns:
        return True
    try:  # touched or restored from an archive: compare the bytes
        same = file_digest(Path(path).read_bytes()) == entry.digest
    except OSError:
        return False
    if same:
        entry.mtime_ns = st.st_mtime_ns
    return same
