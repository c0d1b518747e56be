"""The sqlite file in the site's cache folder that keeps results across builds: rendered
formulas (blogbuild.runtimes.katex) and highlighted code (blogbuild.markdown.highlight).

Every process of a build (the main one and its workers) opens the same file, in WAL
mode, and writes in batches: a transaction per row would make the workers queue for its
lock. It only ever saves time: a damaged file is replaced, and one that stays locked or
cannot be opened turns the cache off for the process; neither fails a build. A
connection must not cross a fork, so a forked child forgets its parent's and opens its own;
the last rows are written when the command ends (blogbuild.perprocess).
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import logging
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, TypeVar

from blogbuild.perprocess import CACHES, after_fork_in_child, at_close, keep_forever

__all__ = [
    "CACHE_ENV",
    "CACHE_FILE",
    "TABLES",
    "DiskCache",
    "cache_dir",
    "close",
    "flush",
    "get",
    "put",
    "set_cache_dir",
]

log = logging.getLogger(__name__)

#: Child processes started with spawn/forkserver find the cache folder here.
CACHE_ENV = "BLOGBUILD_KATEX_CACHE"
CACHE_FILE = "katex-formulas.sqlite"
#: One table per kind of result, each a (key, result) text pair.
TABLES = ("formulas", "code", "search_pages", "image_probes", "diagrams", "charts")

#: Seconds to wait for another process's lock: workers of one build take turns quickly,
#: while a lock held longer (another program, a stuck build) only turns the cache off.
_OPEN_WAIT = 1.0
_WRITE_WAIT = 30.0
#: Rows kept before they are written anyway; after a failed write, rows kept for the next
#: one only up to the limit (a cache that stays broken must not grow without bound).
_BATCH = 512
_RETRY_LIMIT = 4096


class DiskCache:
    """One process's connection to the cache file and the rows it has not written yet."""

    def __init__(self) -> None:
        self.lock = threading.RLock()
        self.db: sqlite3.Connection | None = None
        self.folder = ""
        self.pending: list[tuple[str, str, str | bytes]] = []  # (table, key, result)

    def set_folder(self, path: str | os.PathLike[str] | None) -> None:
        """Write what is pending, then use the cache file in `path` (None: no cache)."""
        with self.lock:
            self.close()
            self.folder = ""
            if path is None:
                os.environ.pop(CACHE_ENV, None)
                return
            os.environ[CACHE_ENV] = str(Path(path).resolve())
            # Create the file and switch it to WAL here, once: workers that open it together
            # would otherwise race for the exclusive lock that changing the journal mode needs.
            self.connection()

    def connection(self) -> sqlite3.Connection | None:
        """The connection to the file the environment names, opened on first use; None
        while the cache is off (never set, or turned off because it could not be opened)."""
        folder = os.environ.get(CACHE_ENV)
        if not folder:
            return None
        if self.db is not None and self.folder == folder:
            return self.db
        target = Path(folder) / CACHE_FILE
        for attempt in range(5):
            try:
                db = _open(target)
                break
            except sqlite3.OperationalError as exc:
                if "locked" in str(exc) and attempt < 2:
                    time.sleep(0.05 * (attempt + 1))
                    continue
                _disable(target, exc)
                return None
            except sqlite3.DatabaseError as exc:
                # Not a database (a truncated or overwritten file): it only holds results
                # that can be made again, so start a new one.
                if attempt < 4 and _discard(target):
                    log.info("result cache %s was damaged (%s); starting a new one", target, exc)
                    continue
                _disable(target, exc)
                return None
            except OSError as exc:
                _disable(target, exc)
                return None
        else:
            return None
        self.db, self.folder = db, folder
        at_close(CACHES, close)
        return db

    def get(self, table: str, key: str) -> str | None:
        """The result kept under `key` in `table`, or None (a miss, or no cache)."""
        found = self.get_any(table, key)
        return found if isinstance(found, str) else None

    def get_any(self, table: str, key: str) -> str | bytes | None:
        """The text or bytes kept under `key` in `table`, or None. Rows not written yet
        count."""
        with self.lock:
            for row in reversed(self.pending):
                if row[1] == key and row[0] == table:
                    return row[2]
            db = self.connection()
            if db is None:
                return None
            try:
                row = db.execute(f"SELECT result FROM {table} WHERE key = ?", (key,)).fetchone()
            except sqlite3.Error as exc:
                if not self._damaged(exc):
                    log.warning("result cache read failed: %s", exc)
                return None
            return row[0] if row is not None and isinstance(row[0], str | bytes) else None

    def put(self, table: str, key: str, result: str | bytes) -> bool:
        """Keep `result` for the next `flush` (or write a full batch now); False when
        there is no cache to keep it in."""
        with self.lock:
            if self.connection() is None:
                return False
            self.pending.append((table, key, result))
            if len(self.pending) >= _BATCH:
                self.flush()
            return True

    def flush(self) -> None:
        """Write the pending rows in one transaction; on a lock, keep them for the next."""
        with self.lock:
            pending, self.pending = self.pending, []
            db = self.db
            if not pending or db is None:
                return
            try:
                db.execute("BEGIN")
                for table in TABLES:
                    rows = [(key, result) for kind, key, result in pending if kind == table]
                    if rows:
                        db.executemany(
                            f"INSERT OR REPLACE INTO {table} (key, result) VALUES (?, ?)", rows)
                db.execute("COMMIT")
            except sqlite3.Error as exc:
                if self._damaged(exc):
                    return
                # Another worker may have held the lock: try again at the next flush.
                if len(pending) < _RETRY_LIMIT:
                    self.pending[:0] = pending
                log.warning("result cache write failed (will retry): %s", exc)
                with contextlib.suppress(sqlite3.Error):
                    db.execute("ROLLBACK")

    def prune(self, table: str, keep: set[str], over: int) -> int:
        """Once `table` holds more than `over` rows, delete those whose key is not in
        `keep`; returns how many went. Never fails (a lock: the next build tries)."""
        with self.lock:
            self.flush()
            db = self.connection()
            if db is None:
                return 0
            try:
                (count,) = db.execute(f"SELECT count(*) FROM {table}").fetchone()
                if count <= over:
                    return 0
                gone = [(key,) for (key,) in db.execute(f"SELECT key FROM {table}")
                        if key not in keep]
                db.execute("BEGIN")
                db.executemany(f"DELETE FROM {table} WHERE key = ?", gone)
                db.execute("COMMIT")
                return len(gone)
            except sqlite3.Error as exc:
                if not self._damaged(exc):
                    log.warning("result cache prune failed: %s", exc)
                    with contextlib.suppress(sqlite3.Error):
                        db.execute("ROLLBACK")
                return 0

    def close(self) -> None:
        """Write what is pending and close the connection (the next use opens it again)."""
        with self.lock:
            self.flush()
            db, self.db = self.db, None
            if db is not None:
                db.close()

    def _damaged(self, exc: sqlite3.Error) -> bool:
        """True when `exc` says the file is damaged (then it is dropped and made anew)."""
        if isinstance(exc, sqlite3.OperationalError) or not isinstance(exc, sqlite3.DatabaseError):
            return False
        db, self.db = self.db, None
        if db is not None:
            with contextlib.suppress(sqlite3.Error):
                db.close()
        folder = os.environ.get(CACHE_ENV)
        if folder:
            _discard(Path(folder) / CACHE_FILE)
        return True


def _open(target: Path) -> sqlite3.Connection:
    target.parent.mkdir(parents=True, exist_ok=True)
    db = sqlite3.connect(target, timeout=_OPEN_WAIT, isolation_level=None,
                         check_same_thread=False)
    try:
        if db.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
            db.execute("PRAGMA journal_mode=WAL")
        # A lost row is made again next time: no need to fsync every insert.
        db.execute("PRAGMA synchronous=OFF")
        for table in TABLES:
            db.execute(f"CREATE TABLE IF NOT EXISTS {table} (key TEXT PRIMARY KEY, result TEXT)")
            db.execute(f"SELECT count(*) FROM {table} WHERE key = ''").fetchone()
        db.execute(f"PRAGMA busy_timeout={int(_WRITE_WAIT * 1000)}")
    except BaseException:
        db.close()
        raise
    return db


def _disable(target: Path, exc: Exception) -> None:
    log.warning("result cache disabled: cannot open %s: %s", target, exc)
    os.environ.pop(CACHE_ENV, None)


def _discard(target: Path) -> bool:
    """Remove a damaged cache file and its journal files; False when that is not possible."""
    try:
        for suffix in ("", "-wal", "-shm"):
            Path(f"{target}{suffix}").unlink(missing_ok=True)
    except OSError:
        return False
    return True


_cache = DiskCache()


def _after_fork_in_child() -> None:
    """A sqlite connection must not be used after a fork, not even to close it."""
    global _cache
    if _cache.db is not None:
        keep_forever(_cache.db)
    _cache = DiskCache()


after_fork_in_child(_after_fork_in_child)


def set_cache_dir(path: str | os.PathLike[str] | None) -> None:
    """Keep results in `path` (the site's .blogbuild-cache/); None turns the cache off.

    Also exported to the environment so worker processes started later (spawn,
    forkserver) use the same folder without being told.
    """
    _cache.set_folder(path)


def environment(folder: str | os.PathLike[str] | None,
                base: Mapping[str, str]) -> dict[str, str]:
    """The environment `base` for a process that keeps its results in `folder` (None: no
    cache), as `set_cache_dir` tells the worker processes this one starts: for a process
    started before the folder is set here, or with another one."""
    env = {name: value for name, value in base.items() if name != CACHE_ENV}
    if folder is not None:
        env[CACHE_ENV] = str(Path(folder).resolve())
    return env


def cache_dir() -> str | None:
    """The folder set by `set_cache_dir`: where this process keeps its results."""
    return os.environ.get(CACHE_ENV) or None


def enabled() -> bool:
    """Whether this process keeps results (`set_cache_dir` named a folder)."""
    return bool(os.environ.get(CACHE_ENV))


def get(table: str, key: str) -> str | None:
    """This process's `DiskCache.get`."""
    return _cache.get(table, key)


def put(table: str, key: str, result: str | bytes) -> bool:
    """This process's `DiskCache.put`."""
    return _cache.put(table, key, result)


def prune(table: str, keep: set[str], over: int) -> int:
    """This process's `DiskCache.prune`."""
    return _cache.prune(table, keep, over)


def get_bytes(table: str, key: str) -> bytes | None:
    """Bytes kept by `put` under `key` in `table`, or None."""
    found = _cache.get_any(table, key)
    return found if isinstance(found, bytes) else None


T = TypeVar("T")


def batched(table: str, keys: list[str], make: Callable[[list[int]], list[T]],
            kind: Callable[..., T], lasting: Callable[[T], bool]) -> list[T]:
    """The result of each of `keys`: kept in `table` (a dataclass of JSON fields, made by
    `kind`), else made with the other missing ones in one batch: `make` is given the place
    in `keys` of each missing key (its first) and answers for each, in order. A result is
    kept unless it is not `lasting` (stopped at a limit: another try may do better)."""
    found: dict[str, T] = {}
    for key in keys:
        cached = get(table, key) if key not in found else None
        if cached is not None:
            with contextlib.suppress(TypeError, ValueError):  # not what this code wrote
                found[key] = kind(**json.loads(cached))
    missing = list(dict.fromkeys(key for key in keys if key not in found))
    for key, made in zip(missing, make([keys.index(key) for key in missing]), strict=True):
        found[key] = made
        if lasting(made):
            put(table, key, json.dumps(_fields(made)))
    return [found[key] for key in keys]


def _fields(value: Any) -> dict[str, Any]:
    return dataclasses.asdict(value)


def flush() -> None:
    """Write the rows made since the last flush, in one transaction.

    Worker processes share the file, and a write transaction per row would make them
    queue for its lock. `render_markdown` flushes after each document; `close()` (when the
    command ends) flushes the rest (worker processes of a pool exit without it).
    """
    _cache.flush()


def close() -> None:
    """Flush and close this process's connection (runs at exit by itself)."""
    _cache.close()


def due(stamp: Path, every: float) -> bool:
    """True at most once per `every` seconds, as told by the time of the file `stamp`
    (written when it is): tidying a cache that only drops entries weeks old need not
    list it on every build. True when the stamp cannot be read or written."""
    try:
        if time.time() - stamp.stat().st_mtime < every:
            return False
    except OSError:
        pass
    with contextlib.suppress(OSError):
        stamp.parent.mkdir(parents=True, exist_ok=True)
        stamp.touch()
    return True


def prune_folder(folder: Path, *, older_than: float, keep: frozenset[str] = frozenset()) -> None:
    """Remove the files of a cache folder (cards, executed blocks) that no build has used
    for `older_than` seconds, except those named in `keep`. Never fails."""
    now = time.time()
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return
    for entry in entries:
        with contextlib.suppress(OSError):
            if entry.name not in keep and now - entry.stat().st_mtime > older_than:
                os.unlink(entry.path)
