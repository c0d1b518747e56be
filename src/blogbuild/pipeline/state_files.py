"""How a build's state is kept on disk: in shards, of which a build writes those that changed.

A state is a folder, `.blogbuild-cache/state/<key>/`. Its parts (the sources' render
records, the fingerprints of the values pages read, the posts' fingerprints and list
entries, the pages, the copied files) are split into `SHARDS` shards each, by a hash of
the source or output path. An edit of one post changes the shards of that post and of
the pages templated again: the others are neither pickled nor written (a shard is
compared by value with what was loaded; its entries are the same objects when they did
not change, so that costs little).

The shards a build writes go into one file, a pack named by its bytes: a new post changes
over a hundred shards (the list pages, the search index's files), and a new file costs a
fraction of a millisecond on some disks, more than the pickling. `index.pickle` says where
each shard is (its pack, offset and length) and is written last, atomically: a build
stopped halfway leaves the last complete state, whose packs are only removed after it. A
pack that holds no shard of the index is removed; when the packs hold more bytes that no
shard uses than shards, or there are more than `MAX_PACKS`, the build writes every shard
into its new pack (copied, not pickled again) and the old packs go.

Loading unpickles a few hundred thousand small objects; Python's cycle collector would
go through all of them again and again while they are made (and for every collection
after), so it is paused while they load and they are frozen out of its way afterwards
(they hold no cycles: they are freed as usual when the next state replaces them).
"""

from __future__ import annotations

import gc
import hashlib
import io
import os
import pickle
import shutil
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from blogbuild.fileio import write_atomically
from blogbuild.pipeline.state import FORMAT, State, state_path

#: Shards per part. An edit writes about one per part; a site of 64,000 posts has shards
#: of a thousand entries.
SHARDS = 64
_PARTS = ("sources", "values", "posts", "items", "feed_items", "pages", "files")
#: Parts left packed by a load until asked for (`State.part`).
_PACKED = ("items", "feed_items")
#: Parts whose entries' output times are refreshed in place (`state.intact`): their shards
#: are compared with those times as they were written, too.
_REFRESHED = ("pages", "files")
INDEX = "index.pickle"
#: Packs a state may be spread over before its shards are gathered into one (a load opens
#: each of them).
MAX_PACKS = 16

#: Where a shard is: its pack's file name, the offset and the length of its pickle.
Place = tuple[str, int, int]


@dataclass
class Saved:
    """What the files of a state hold: per shard (`sources-07`), where it is and, to tell
    whether a new state changed it, its value (and the output times of its entries); the
    size of each pack."""

    places: dict[str, Place] = field(default_factory=dict)
    held: dict[str, Any] = field(default_factory=dict)
    packs: dict[str, int] = field(default_factory=dict)


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
    state = State(key, templates=index["templates"], closures=index["closures"],
                  made_with=index["made_with"], related=index["related"])
    saved = Saved(packs=index["packs"])
    places: dict[str, Place] = index["places"]
    with _Shards(folder, saved.packs, max((p[2] for p in places.values()), default=0)) as packs:
        for name, place in places.items():
            part = name.split("-")[0]
            if part in _PACKED:
                saved.held[name] = state.packed[name] = bytes(packs.read(place))
                saved.places[name] = place
                continue
            shard = pickle.loads(packs.read(place))
            if part not in _PARTS or not isinstance(shard, dict):
                return None
            getattr(state, part).update(shard)
            saved.places[name] = place
            saved.held[name] = _held(part, shard)
    state.saved = saved
    return state


class _Shards:
    """Reads a state's shards from their packs, each into one buffer used again for the
    next: reading each pack whole put every byte, those of shards no index names too, into
    new memory (an edit's load of the state took 42 ms that way, 33 this way)."""

    def __init__(self, folder: Path, sizes: dict[str, int], largest: int) -> None:
        self.folder, self.sizes = folder, sizes
        self.open: dict[str, io.FileIO] = {}
        self.buffer = memoryview(bytearray(largest))

    def __enter__(self) -> _Shards:
        return self

    def __exit__(self, *_: object) -> None:
        for pack in self.open.values():
            pack.close()

    def read(self, place: Place) -> memoryview:
        """The bytes of the shard at `place`, until the next read; OSError when its pack
        is not the size the index says (cut short) or the read comes short."""
        file, offset, length = place
        pack = self.open.get(file)
        if pack is None:
            pack = self.open[file] = io.FileIO(self.folder / file)
            if os.fstat(pack.fileno()).st_size != self.sizes[file]:
                raise OSError(f"{file} is not the size its index says")
        view = self.buffer[:length]
        pack.seek(offset)
        if pack.readinto(view) != length:
            raise OSError(f"{file} ends before its shard {place}")
        return view


def _held(part: str, shard: dict[Any, Any]) -> Any:
    """What tells whether a shard changed: its entries (never changed in place, or the
    output times that are, as they are now)."""
    if part in _REFRESHED:
        return shard, {rel: entry.out.mtime_ns for rel, entry in shard.items()}
    return shard


def save_state(cache: Path, state: State, last: State | None = None) -> bool:
    """Write `state`: the shards that differ from `last`'s files (those of the state this
    one was made from) go into a new pack; False when it could not be written."""
    folder = state_dir(cache, state.key)
    before = last.saved if last is not None and last.saved is not None else Saved()
    saved = Saved()
    memo: dict[str, int] = {}
    try:
        folder.mkdir(parents=True, exist_ok=True)
        present = set(os.listdir(folder))
        new: list[tuple[str, bytes]] = []
        for part in _PARTS:
            for n, shard in enumerate(_split(getattr(state, part), memo)):
                name = f"{part}-{n:02d}"
                packed = state.packed.get(name)
                if not shard and packed is None:
                    continue
                held = saved.held[name] = packed if packed is not None else _held(part, shard)
                place = before.places.get(name)
                if place is None or place[0] not in present or (
                        before.held.get(name) is not held and before.held.get(name) != held):
                    new.append((name, packed if packed is not None else
                                pickle.dumps(shard, protocol=pickle.HIGHEST_PROTOCOL)))
                else:
                    saved.places[name] = place
        if _scattered(saved.places, before.packs):
            new += _copied(folder, saved.places, before.packs)
            saved.places.clear()
        saved.packs = {file: before.packs[file] for file, _, _ in saved.places.values()}
        if new:
            _write_pack(folder, new, saved)
        index = {"format": FORMAT, "key": state.key, "templates": state.templates,
                 "closures": state.closures, "made_with": state.made_with,
                 "related": state.related,
                 "places": saved.places, "packs": saved.packs}
        write_atomically(folder / INDEX, pickle.dumps(index, protocol=pickle.HIGHEST_PROTOCOL))
    except (OSError, KeyError):  # KeyError: a pack the last index did not size
        return False
    state.saved = saved
    for name in present - {INDEX, *saved.packs}:
        (folder / name).unlink(missing_ok=True)
    return True


def _scattered(places: dict[str, Place], sizes: dict[str, int]) -> bool:
    """Whether the shards kept where they are should be gathered into the new pack: they
    are spread over too many packs, or the packs hold more bytes no shard uses than used."""
    used: dict[str, int] = {}
    for file, _, length in places.values():
        used[file] = used.get(file, 0) + length
    if len(used) >= MAX_PACKS:
        return True
    return sum(sizes.get(file, 0) for file in used) > 2 * sum(used.values())


def _copied(folder: Path, places: dict[str, Place],
            sizes: dict[str, int]) -> list[tuple[str, bytes]]:
    """The bytes of the shards at `places`, read from their packs (`sizes`: theirs)."""
    largest = max((length for _, _, length in places.values()), default=0)
    with _Shards(folder, sizes, largest) as packs:
        return [(name, bytes(packs.read(place))) for name, place in places.items()]


def _write_pack(folder: Path, shards: list[tuple[str, bytes]], saved: Saved) -> None:
    """One file of `shards`, named by its bytes, written in place without a temporary
    file and a rename: only an index names a pack, and the index is written after it, so
    a file cut short by a crash is named by none (or is found short: its size is in the
    index). A later build that makes the same bytes writes it again."""
    data = b"".join(pickled for _, pickled in shards)
    file = f"pack-{hashlib.blake2b(data, digest_size=16).hexdigest()}.pickles"
    with open(folder / file, "wb") as fh:
        fh.write(data)
    offset = 0
    for name, pickled in shards:
        saved.places[name] = (file, offset, len(pickled))
        offset += len(pickled)
    saved.packs[file] = len(data)


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
