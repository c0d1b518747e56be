"""How a build's state is kept on disk: in shards, of which a build rewrites those that changed.

A state is a folder, `.blogbuild-cache/state/<key>/`. Its parts (the sources' render
records, the fingerprints of the values pages read, the posts' fingerprints, the pages,
the copied files) are split into `SHARDS` files each, by a hash of the source or output
path. An edit of one post changes the shards of that post and of the pages templated
again: the others keep their files, which are neither pickled nor written (a shard is
compared by value with what was loaded; its entries are the same objects when they did not
change, so that costs little). `index.pickle`
names the shard files of the state and is written last, atomically: a build stopped
halfway leaves the last complete state, whose shards are only removed after it.

Loading unpickles a few hundred thousand small objects; Python's cycle collector would
go through all of them again and again while they are made (and for every collection
after), so it is paused while they load and they are frozen out of its way afterwards
(they hold no cycles: they are freed as usual when the next state replaces them).
"""

from __future__ import annotations

import gc
import hashlib
import os
import pickle
import shutil
import zlib
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from blogbuild.pipeline.state import FORMAT, State, state_path, write_atomically

#: Files per part. An edit rewrites about one per part; a site of 64,000 posts has shards
#: of a thousand.
SHARDS = 64
_PARTS = ("sources", "values", "posts", "pages", "files")
#: Parts whose entries' output times are refreshed in place (`state.intact`): their shards
#: are compared with those times as they were written, too.
_REFRESHED = ("pages", "files")
INDEX = "index.pickle"


@dataclass
class Saved:
    """What the files of a state hold: per shard (`sources-07`), its file and, to tell
    whether a new state changed it, its value (and the output times of its entries)."""

    names: dict[str, str] = field(default_factory=dict)
    held: dict[str, Any] = field(default_factory=dict)


def state_dir(cache: Path, key: str) -> Path:
    return state_path(cache, key)


def _shard_of(memo: dict[str, int], name: str) -> int:
    found = memo.get(name)
    if found is None:
        found = memo[name] = zlib.crc32(name.encode()) % SHARDS
    return found


def _split(items: dict[Any, Any], memo: dict[str, int]) -> list[dict[Any, Any]]:
    """`items` in `SHARDS` dicts, by their key (a source or an output path)."""
    shards: list[dict[Any, Any]] = [{} for _ in range(SHARDS)]
    for name, value in items.items():
        shards[_shard_of(memo, name)][name] = value
    return shards


def load_state(cache: Path, key: str) -> State | None:
    """The state a build with this key left, or None (missing, damaged, other code)."""
    enabled = gc.isenabled()
    gc.disable()
    state = None
    try:
        state = _load(state_dir(cache, key), key)
    except Exception:  # a damaged or foreign file is only a cold start
        return None
    finally:
        if state is not None:  # before the collector runs again: it would go through all
            gc.freeze()
        if enabled:
            gc.enable()
    return state


def _load(folder: Path, key: str) -> State | None:
    with open(folder / INDEX, "rb") as fh:
        index = pickle.load(fh)
    if not isinstance(index, dict) or index.get("format") != FORMAT or index.get("key") != key:
        return None
    state = State(key, templates=index["templates"], closures=index["closures"])
    saved = Saved()
    for name, file in index["names"].items():
        part = name.split("-")[0]
        shard = pickle.loads((folder / file).read_bytes())
        if part not in _PARTS or not isinstance(shard, dict):
            return None
        getattr(state, part).update(shard)
        saved.names[name] = file
        saved.held[name] = _held(part, shard)
    state.saved = saved
    return state


def _held(part: str, shard: dict[Any, Any]) -> Any:
    """What tells whether a shard changed: its entries (never changed in place, or the
    output times that are, as they are now)."""
    if part in _REFRESHED:
        return shard, {rel: entry.out.mtime_ns for rel, entry in shard.items()}
    return shard


def save_state(cache: Path, state: State, last: State | None = None) -> bool:
    """Write `state`, rewriting only the shards that differ from `last`'s files (those of
    the state this one was made from); False when it could not be written."""
    folder = state_dir(cache, state.key)
    before = last.saved if last is not None and last.saved is not None else Saved()
    saved = Saved()
    memo: dict[str, int] = {}
    try:
        folder.mkdir(parents=True, exist_ok=True)
        present = set(os.listdir(folder))
        for part in _PARTS:
            for n, shard in enumerate(_split(getattr(state, part), memo)):
                name = f"{part}-{n:02d}"
                _save_shard(folder, part, name, shard, before, saved, present)
        index = {"format": FORMAT, "key": state.key, "templates": state.templates,
                 "closures": state.closures, "names": saved.names}
        write_atomically(folder / INDEX, pickle.dumps(index, protocol=pickle.HIGHEST_PROTOCOL))
    except OSError:
        return False
    state.saved = saved
    keep = {INDEX, *saved.names.values()}
    for name in present - keep:
        (folder / name).unlink(missing_ok=True)
    return True


def _save_shard(folder: Path, part: str, name: str, shard: dict[Hashable, Any],
                before: Saved, saved: Saved, present: set[str]) -> None:
    if not shard:
        return
    file = before.names.get(name)
    held = _held(part, shard)
    if file not in present or before.held.get(name) != held:
        data = pickle.dumps(shard, protocol=pickle.HIGHEST_PROTOCOL)
        file = f"{name}-{hashlib.blake2b(data, digest_size=16).hexdigest()}.pickle"
        _write_named(folder, file, data)
    assert file is not None
    saved.names[name] = file
    saved.held[name] = held


def _write_named(folder: Path, name: str, data: bytes) -> None:
    """A shard's file, named by its bytes: written in place, without a temporary file and
    a rename (a new file in a folder of hundreds costs a fraction of a millisecond, and a
    new post rewrites over a hundred shards). Only an index names a shard, and the index
    is written after its shards: a file cut short by a crash is named by none, and a later
    build that makes the same bytes writes it again (`save_state` compares a shard's value,
    not the file)."""
    with open(folder / name, "wb") as fh:
        fh.write(data)


#: States of other output folders kept beside the current one (previews, drafts builds).
KEEP_STATES = 4


def prune_states(cache: Path, key: str) -> None:
    """Keep the current state and the few most recently written others."""
    current = state_dir(cache, key).name
    try:
        found = sorted(((_written(p), p) for p in (cache / "state").iterdir()), reverse=True)
    except OSError:
        return
    names: list[str] = []
    for _, path in found:
        name = path.name.split(".")[0]
        if name != current and name not in names:
            names.append(name)
    for _, path in found:
        if path.name.split(".")[0] in names[KEEP_STATES:]:
            _remove(path)


def _written(path: Path) -> float:
    """When a state (its index) or a state's file was last written."""
    try:
        return (path / INDEX if path.is_dir() else path).stat().st_mtime
    except OSError:
        return 0.0


def _remove(path: Path) -> None:
    remove: Callable[[Path], None] = (
        (lambda p: shutil.rmtree(p, ignore_errors=True)) if path.is_dir()
        else (lambda p: p.unlink(missing_ok=True)))
    remove(path)
