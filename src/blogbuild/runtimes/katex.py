"""KaTeX at build time: the vendored runtime in mini-racer (V8), a formula cache, site files.

One V8 context per process, created on first use and closed at exit. A context must
never cross a fork (it hangs in the child), so a forked child forgets the parent's and
makes its own. Results are memoised in-process and, once `set_cache_dir()` is called,
in a sqlite file shared by every worker, so a rebuild never renders a formula twice.
"""

from __future__ import annotations

import atexit
import contextlib
import hashlib
import json
import logging
import os
import sqlite3
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = [
    "KATEX_VERSION",
    "VENDOR_DIR",
    "KatexOptions",
    "KatexResult",
    "KatexWarning",
    "cache_dir",
    "close",
    "flush",
    "prefetch",
    "render",
    "set_cache_dir",
    "site_files",
    "stats",
]

log = logging.getLogger(__name__)

VENDOR_DIR = Path(__file__).resolve().parent.parent / "vendor" / "katex"
KATEX_VERSION = (VENDOR_DIR / "VERSION").read_text(encoding="utf-8").strip()

#: Child processes started with spawn/forkserver find the cache folder here.
CACHE_ENV = "BLOGBUILD_KATEX_CACHE"
CACHE_FILE = "katex-formulas.sqlite"
#: Seconds one formula may take before V8 is interrupted (KaTeX's maxExpand already
#: stops macro loops; this guards against anything else).
TIMEOUT = 10.0

# Errors come back as data, never as JS exceptions: a thrown exception carries the whole
# minified source in its message. `trust` lets only in-page links (\eqref) through.
_JS_RENDER = r"""
var blogbuildRender = function (tex, displayMode, options) {
  var warnings = [];
  var settings = {
    displayMode: displayMode,
    output: options.output,
    macros: Object.assign({}, options.macros),
    throwOnError: true,
    strict: function (code, message, token) {
      warnings.push({code: String(code), message: String(message),
                     position: token && token.loc ? token.loc.start : null});
      return "ignore";
    },
    trust: function (context) {
      if (context.command === "\\href" && String(context.url).charAt(0) === "#") return true;
      warnings.push({code: "untrusted", position: null,
                     message: context.command + " is not allowed in math"});
      return false;
    }
  };
  try {
    var tree = katex.__renderToDomTree(tex, settings);
    var result = {html: tree.toMarkup(), warnings: warnings};
    if (options.output !== "mathml") {
      // The feed's variant: MathML alone, readable without KaTeX's stylesheet.
      result.mathml = blogbuildMathmlOnly(tree, tex, settings, options);
    }
    return result;
  } catch (e) {
    var parse = e instanceof katex.ParseError;
    return {
      message: parse ? String(e.rawMessage) : String(e && e.message ? e.message : e),
      position: parse && typeof e.position === "number" ? e.position : null,
      length: parse && typeof e.length === "number" ? e.length : null,
      warnings: warnings
    };
  }
};
// What output "mathml" makes: the <math> that htmlAndMathml already built, wrapped in
// <span class="katex"> instead of <span class="katex-mathml"> (KaTeX's buildMathML makes
// both wrappers the same way). Reusing it saves a second parse and layout. Output "html"
// has no MathML in its tree: render again, as output "mathml", with the macros before any
// \gdef of the first render, and strict and trust answering as before but reporting
// nothing (the first render did).
var blogbuildMathmlOnly = function (tree, tex, settings, options) {
  var node = tree.hasClass("katex-display") ? tree.children[0] : tree;
  var wrapper = node.hasClass("katex") ? node.children[0] : null;
  if (wrapper && wrapper.hasClass("katex-mathml") && wrapper.children.length === 1) {
    wrapper.classes = ["katex"];  // after the page's markup: the tree is not used again
    return wrapper.toMarkup();
  }
  return katex.renderToString(tex, Object.assign({}, settings, {
    output: "mathml", strict: "ignore", macros: Object.assign({}, options.macros),
    trust: function (context) {
      return context.command === "\\href" && String(context.url).charAt(0) === "#";
    }
  }));
};
var blogbuildRenderMany = function (items, options) {
  return items.map(function (item) { return blogbuildRender(item[0], item[1], options); });
};
"""


@dataclass(frozen=True)
class KatexOptions:
    """The KaTeX settings that change output; `fingerprint` keys the cache."""

    output: str = "htmlAndMathml"
    macros: tuple[tuple[str, str], ...] = ()

    @classmethod
    def make(cls, output: str, macros: dict[str, str]) -> KatexOptions:
        return cls(output, tuple(sorted(macros.items())))

    @property
    def fingerprint(self) -> str:
        # The last item names how results are made: a formula that \gdef-ed a macro it had
        # \newcommand-ed was an error when the feed's MathML was a second render.
        return json.dumps([self.output, self.macros, "mathml-from-page-render"],
                          separators=(",", ":"))


@dataclass(frozen=True)
class KatexWarning:
    """A strict-mode complaint (KaTeX rendered it, LaTeX would not have), or code
    "untrusted": a command such as \\href or \\includegraphics that KaTeX showed as red
    text because only in-page links are trusted."""

    code: str
    message: str
    position: int | None  # JS (UTF-16) offset into the TeX, when KaTeX knows it


@dataclass(frozen=True)
class KatexResult:
    """Either `html`, or an error `message` at `position` (UTF-16 offset, may be None)."""

    html: str | None = None
    message: str = ""
    mathml: str | None = None  # MathML only (feeds), when `html` has KaTeX's HTML layer too
    position: int | None = None
    length: int | None = None
    warnings: tuple[KatexWarning, ...] = field(default_factory=tuple)

    @property
    def ok(self) -> bool:
        return self.html is not None

    def to_json(self) -> str:
        return json.dumps(
            {
                "html": self.html,
                "mathml": self.mathml,
                "message": self.message,
                "position": self.position,
                "length": self.length,
                "warnings": [[w.code, w.message, w.position] for w in self.warnings],
            },
            separators=(",", ":"),
        )

    @classmethod
    def from_data(cls, data: dict[str, Any]) -> KatexResult:
        warnings = data.get("warnings") or []
        return cls(
            html=data.get("html"),
            mathml=data.get("mathml"),
            message=str(data.get("message") or ""),
            position=data.get("position"),
            length=data.get("length"),
            warnings=tuple(_warning(w) for w in warnings),
        )


def _warning(raw: Any) -> KatexWarning:
    if isinstance(raw, dict):
        return KatexWarning(str(raw["code"]), str(raw["message"]), raw.get("position"))
    code, message, position = raw
    return KatexWarning(str(code), str(message), position)


class _Runtime:
    """Per-process state: the V8 context, the memo and the sqlite cache connection."""

    def __init__(self) -> None:
        self.lock = threading.RLock()
        self.pid = os.getpid()
        self.ctx: Any = None
        self.memo: dict[tuple[str, bool, str], KatexResult] = {}
        # Results prefetch() put in the memo: their first use by render() is not a hit.
        self.prefetched: set[tuple[str, bool, str]] = set()
        self.db: sqlite3.Connection | None = None
        self.db_folder = ""
        self.pending: list[tuple[str, str]] = []
        self.calls = 0
        self.round_trips = 0  # calls into V8 (one per batch)
        self.memo_hits = 0
        self.disk_hits = 0


_rt = _Runtime()
#: Contexts inherited through fork: kept referenced so their finalizer never runs (closing
#: a parent's V8 context in a child hangs just like using it).
_orphans: list[Any] = []
_atexit_registered = False


def _after_fork_in_child() -> None:
    global _rt
    if _rt.ctx is not None:
        _orphans.append(_rt.ctx)
    # The sqlite connection is not fork-safe either: drop it without closing it.
    if _rt.db is not None:
        _orphans.append(_rt.db)
    _rt = _Runtime()


os.register_at_fork(after_in_child=_after_fork_in_child)


def _new_mini_racer() -> Any:
    """A MiniRacer with its own event-loop thread.

    MiniRacer adopts the asyncio loop running in the thread that creates it (Jupyter,
    Playwright's sync API, an async server), and then refuses calls with a timeout.
    Created in a fresh thread, where no loop runs, it always starts its own.
    """
    from py_mini_racer import MiniRacer

    made: list[Any] = []
    failed: list[BaseException] = []

    def make() -> None:
        try:
            made.append(MiniRacer())
        except BaseException as exc:  # re-raised in the caller's thread
            failed.append(exc)

    thread = threading.Thread(target=make, name="katex-v8-start")
    thread.start()
    thread.join()
    if failed:
        raise failed[0]
    return made[0]


def _context() -> Any:
    global _atexit_registered
    if _rt.ctx is None:
        ctx = _new_mini_racer()
        ctx.eval((VENDOR_DIR / "katex.min.js").read_text(encoding="utf-8"))
        ctx.eval(_JS_RENDER)
        _rt.ctx = ctx
        if not _atexit_registered:
            atexit.register(close)
            _atexit_registered = True
    return _rt.ctx


def close() -> None:
    """Close this process's V8 context and cache connection (runs at exit by itself)."""
    if _rt.pid != os.getpid():
        return
    # Under the lock: another thread (the live server's builder) may be inside render().
    with _rt.lock:
        ctx, _rt.ctx = _rt.ctx, None
        if ctx is not None:
            ctx.close()
        flush()
        db, _rt.db = _rt.db, None
        if db is not None:
            db.close()


def set_cache_dir(path: str | os.PathLike[str] | None) -> None:
    """Keep rendered formulas in `path` (the site's .blogbuild-cache/); None turns it off.

    Also exported to the environment so worker processes started later (spawn,
    forkserver) use the same folder without being told.
    """
    flush()
    if _rt.db is not None:
        _rt.db.close()
        _rt.db = None
    _rt.db_folder = ""
    if path is None:
        os.environ.pop(CACHE_ENV, None)
        return
    folder = Path(path).resolve()
    os.environ[CACHE_ENV] = str(folder)
    # Create the file and switch it to WAL here, once: workers that open it together
    # would otherwise race for the exclusive lock that changing the journal mode needs.
    _database()


def cache_dir() -> str | None:
    """The folder set by `set_cache_dir` (for a pool initializer to pass to its workers)."""
    return os.environ.get(CACHE_ENV) or None


#: Seconds to wait for another process's lock: workers of one build take turns quickly,
#: while a lock held longer (another program, a stuck build) only turns the cache off.
_OPEN_WAIT = 1.0
_WRITE_WAIT = 30.0


def _database() -> sqlite3.Connection | None:
    folder = os.environ.get(CACHE_ENV)
    if not folder:
        return None
    if _rt.db is not None and _rt.db_folder == folder:
        return _rt.db
    target = Path(folder) / CACHE_FILE
    for attempt in range(5):
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            db = sqlite3.connect(target, timeout=_OPEN_WAIT, isolation_level=None,
                                 check_same_thread=False)
            if db.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
                db.execute("PRAGMA journal_mode=WAL")
            # A lost formula is re-rendered next time: no need to fsync every insert.
            db.execute("PRAGMA synchronous=OFF")
            db.execute("CREATE TABLE IF NOT EXISTS formulas (key TEXT PRIMARY KEY, result TEXT)")
            db.execute("SELECT count(*) FROM formulas WHERE key = ''").fetchone()
            db.execute(f"PRAGMA busy_timeout={int(_WRITE_WAIT * 1000)}")
            break
        except sqlite3.OperationalError as exc:
            if "locked" in str(exc) and attempt < 2:
                time.sleep(0.05 * (attempt + 1))
                continue
            _disable(target, exc)
            return None
        except sqlite3.DatabaseError as exc:
            # Not a database (a truncated or overwritten file): it only holds formulas that
            # can be rendered again, so start a new one.
            if attempt < 4 and _discard(target):
                log.info("formula cache %s was damaged (%s); starting a new one", target, exc)
                continue
            _disable(target, exc)
            return None
        except OSError as exc:
            _disable(target, exc)
            return None
    else:
        return None
    _rt.db, _rt.db_folder = db, folder
    return db


def _disable(target: Path, exc: Exception) -> None:
    log.warning("formula cache disabled: cannot open %s: %s", target, exc)
    os.environ.pop(CACHE_ENV, None)


def _discard(target: Path) -> bool:
    """Remove a damaged cache file and its journal files; False when that is not possible."""
    try:
        for suffix in ("", "-wal", "-shm"):
            Path(f"{target}{suffix}").unlink(missing_ok=True)
    except OSError:
        return False
    return True


def _damaged(exc: sqlite3.Error) -> bool:
    """True when `exc` says the file is damaged (then it is dropped and made anew)."""
    if isinstance(exc, sqlite3.OperationalError) or not isinstance(exc, sqlite3.DatabaseError):
        return False
    db, _rt.db = _rt.db, None
    if db is not None:
        with contextlib.suppress(sqlite3.Error):
            db.close()
    folder = os.environ.get(CACHE_ENV)
    if folder:
        _discard(Path(folder) / CACHE_FILE)
    return True


def _disk_key(tex: str, display: bool, fingerprint: str) -> str:
    raw = "\0".join([KATEX_VERSION, fingerprint, "D" if display else "I", tex])
    return hashlib.sha256(raw.encode("utf-8")).hexdigest()


def _disk_get(key: str) -> KatexResult | None:
    db = _database()
    if db is None:
        return None
    try:
        row = db.execute("SELECT result FROM formulas WHERE key = ?", (key,)).fetchone()
    except sqlite3.Error as exc:
        if not _damaged(exc):
            log.warning("formula cache read failed: %s", exc)
        return None
    if row is None:
        return None
    try:
        return KatexResult.from_data(json.loads(row[0]))
    except (ValueError, KeyError, TypeError):
        return None


def _disk_put(key: str, result: KatexResult) -> None:
    if _database() is None:
        return
    _rt.pending.append((key, result.to_json()))
    if len(_rt.pending) >= 512:
        flush()


def flush() -> None:
    """Write the formulas rendered since the last flush to the on-disk cache.

    One transaction per call: worker processes share the file, and a write transaction
    per formula would make them queue for its lock. The math plugin flushes after each
    document; `close()` (at exit) flushes the rest.
    """
    with _rt.lock:
        _flush_locked()


def _flush_locked() -> None:
    pending, _rt.pending = _rt.pending, []
    db = _rt.db
    if not pending or db is None:
        return
    try:
        db.execute("BEGIN")
        db.executemany("INSERT OR REPLACE INTO formulas (key, result) VALUES (?, ?)", pending)
        db.execute("COMMIT")
    except sqlite3.Error as exc:
        if _damaged(exc):
            return
        # Keep the formulas for the next flush: another worker may have held the lock.
        if len(pending) < 4096:  # a cache that stays broken must not grow without bound
            _rt.pending[:0] = pending
        log.warning("formula cache write failed (will retry): %s", exc)
        with contextlib.suppress(sqlite3.Error):
            db.execute("ROLLBACK")


def render(tex: str, *, display: bool, options: KatexOptions | None = None) -> KatexResult:
    """Render one formula; errors and strict-mode warnings come back in the result."""
    options = options or KatexOptions()
    fingerprint = options.fingerprint
    memo_key = (tex, display, fingerprint)
    with _rt.lock:
        cached = _rt.memo.get(memo_key)
        if cached is not None:
            if memo_key in _rt.prefetched:
                _rt.prefetched.discard(memo_key)
            else:
                _rt.memo_hits += 1
            return cached
        disk_key = _disk_key(tex, display, fingerprint)
        result = _disk_get(disk_key)
        if result is not None:
            _rt.disk_hits += 1
        else:
            _rt.calls += 1
            _rt.round_trips += 1
            try:
                data = _context().call(
                    "blogbuildRender",
                    tex,
                    display,
                    {"output": options.output, "macros": dict(options.macros)},
                    timeout_sec=TIMEOUT,
                )
            except Exception as exc:  # timeout, out of memory: V8 may be unusable now
                log.warning("KaTeX call failed; restarting V8", exc_info=True)
                close()
                return KatexResult(message=f"KaTeX stopped: {type(exc).__name__}")
            result = KatexResult.from_data(dict(data))
            _disk_put(disk_key, result)
        _rt.memo[memo_key] = result
        return result


def prefetch(items: Sequence[tuple[str, bool]], options: KatexOptions | None = None) -> None:
    """Render the (tex, display) pairs not cached yet in one V8 call; `render` then hits memo.

    A call through mini-racer costs ~0.9 ms against ~0.1 ms for KaTeX itself, so a page's
    formulas go together. On any failure nothing is stored and `render` retries one by one.
    """
    options = options or KatexOptions()
    fingerprint = options.fingerprint
    with _rt.lock:
        missing: dict[tuple[str, bool], str] = {}
        for tex, display in items:
            key = (tex, display)
            if key in missing or (tex, display, fingerprint) in _rt.memo:
                continue
            disk_key = _disk_key(tex, display, fingerprint)
            cached = _disk_get(disk_key)
            if cached is not None:
                _rt.disk_hits += 1
                _rt.memo[(tex, display, fingerprint)] = cached
                _rt.prefetched.add((tex, display, fingerprint))
            else:
                missing[key] = disk_key
        if len(missing) < 2:
            return  # nothing to gain over render()
        batch = [[tex, display] for tex, display in missing]
        _rt.round_trips += 1
        try:
            data = _context().call(
                "blogbuildRenderMany",
                batch,
                {"output": options.output, "macros": dict(options.macros)},
                timeout_sec=TIMEOUT * len(batch),
            )
        except Exception:
            log.warning("KaTeX batch failed; rendering one by one", exc_info=True)
            close()
            return
        for (key, disk_key), raw in zip(missing.items(), data, strict=True):
            result = KatexResult.from_data(dict(raw))
            _rt.calls += 1
            _rt.memo[(key[0], key[1], fingerprint)] = result
            _rt.prefetched.add((key[0], key[1], fingerprint))
            _disk_put(disk_key, result)


def stats() -> dict[str, int]:
    """Counters of this process: KaTeX calls, memo hits, on-disk cache hits."""
    return {"calls": _rt.calls, "memo_hits": _rt.memo_hits, "disk_hits": _rt.disk_hits}


def round_trips() -> int:
    """How many times this process called into V8 to render (batches count once)."""
    return _rt.round_trips


def clear_memo() -> None:
    """Forget the in-process memo (tests; a long-running server may call it too)."""
    _rt.memo.clear()
    _rt.prefetched.clear()


def site_files() -> list[tuple[Path, str]]:
    """(source file, path relative to the bundle folder) of what readers download.

    The writer's BUNDLES entry puts them under ``vendor/katex/``: the stylesheet, its
    woff2 fonts and the licence. KaTeX's JavaScript stays on the build machine.
    """
    files = [(VENDOR_DIR / "katex.min.css", "katex.min.css"), (VENDOR_DIR / "LICENSE", "LICENSE")]
    files += [
        (font, f"fonts/{font.name}") for font in sorted((VENDOR_DIR / "fonts").glob("*.woff2"))
    ]
    return files
