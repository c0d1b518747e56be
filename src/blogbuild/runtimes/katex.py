"""KaTeX at build time: the vendored runtime in mini-racer (V8), a formula cache, site files.

One V8 context per process, made on first use and closed when the command ends, both on
a thread of its own (blogbuild.perprocess says why); or a child process started ahead,
which has loaded KaTeX by the time the first formula comes (`use_process`, see
blogbuild.runtimes.katex_process; a command starts it, and the engine gives it to this
process's runtime for its run: blogbuild.stages.context.BuildContext.katex). A context
must never cross a fork (it hangs in the child), so a forked child forgets the parent's;
and since V8, once started, cannot start again in a forked child (where the processor
guards V8's memory with protection keys, the child's first context ends it with SIGSEGV),
such a child renders in a process of its own, started when it first needs KaTeX. Results
are memoised in-process and, once `set_cache_dir()` is called, in a sqlite file shared by
every worker (blogbuild.diskcache), so a rebuild never renders a formula twice.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import logging
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from blogbuild import diskcache
from blogbuild.diskcache import CACHE_ENV, CACHE_FILE, cache_dir, flush, set_cache_dir
from blogbuild.perprocess import RUNTIMES, OwnerThread, after_fork_in_child, at_close, keep_forever
from blogbuild.runtimes.katex_process import (
    JS_RENDER,
    VENDOR_DIR,
    KatexProcess,
    ProcessGone,
    Stopped,
    new_context,
)
from blogbuild.runtimes.katex_types import KatexOptions, KatexResult, KatexWarning

__all__ = [
    "CACHE_ENV",
    "CACHE_FILE",
    "KATEX_VERSION",
    "VENDOR_DIR",
    "KatexOptions",
    "KatexResult",
    "KatexWarning",
    "cache_dir",
    "close",
    "flush",
    "prefetch",
    "prefetch_each",
    "render",
    "set_cache_dir",
    "site_files",
    "stats",
    "use_process",
]

log = logging.getLogger(__name__)

KATEX_VERSION = (VENDOR_DIR / "VERSION").read_text(encoding="utf-8").strip()
#: Seconds one formula may take before V8 is interrupted (KaTeX's maxExpand already
#: stops macro loops; this guards against anything else).
TIMEOUT = 10.0
#: Formulas a process keeps in memory (a post's formulas are fetched together, then used).
MEMO_LIMIT = 4096

#: In every cache key: an edit to blogbuild's functions around KaTeX must not reuse what
#: the old ones made.
_JS_DIGEST = hashlib.sha256(JS_RENDER.encode("utf-8")).hexdigest()
_TABLE = "formulas"


class _Runtime:
    """Per-process state: the V8 context and the thread it lives on, the memo, the counters."""

    def __init__(self) -> None:
        self.lock = threading.RLock()
        # V8 is initialised, used and closed on this one thread (see blogbuild.perprocess):
        # with memory protection keys, freeing the context from another thread (the main
        # thread at exit) is a SIGSEGV. A fresh thread also runs no asyncio loop, which
        # MiniRacer would otherwise adopt (Jupyter, Playwright's sync API, an async server)
        # and then refuse calls with a timeout.
        self.owner = OwnerThread("katex-v8")
        self.ctx: Any = None
        self.child: KatexProcess | None = None  # renders instead of ctx while it can
        self.memo: dict[tuple[str, bool, str], KatexResult] = {}
        # Results prefetch() put in the memo: their first use by render() is not a hit.
        self.prefetched: set[tuple[str, bool, str]] = set()
        self.calls = 0
        self.round_trips = 0  # calls into V8 (one per batch)
        self.memo_hits = 0
        self.disk_hits = 0
        #: V8 was started in this process (`started`), or in a process this one was forked
        #: from (`inherited`): then this process renders in a child process, never here.
        self.started = False
        self.inherited = False


_rt = _Runtime()


def _after_fork_in_child() -> None:
    """A child of fork has the parent's context but none of its threads: never touch it."""
    global _rt
    for held in (_rt.ctx, _rt.child):
        if held is not None:
            keep_forever(held)
    inherited = _rt.started or _rt.inherited
    _rt = _Runtime()
    _rt.inherited = inherited


after_fork_in_child(_after_fork_in_child)


def _context() -> Any:
    """This process's V8 context with KaTeX loaded; call on the owner thread only."""
    if _rt.ctx is None:
        _rt.started = True
        _rt.ctx = new_context()
        at_close(RUNTIMES, close)
    return _rt.ctx


def _call(function: str, *args: Any, timeout: float) -> Any:
    """`function(*args)` in the child started ahead, if there is one and it answers; else
    in this process's KaTeX context, on the thread V8 lives on. A child of a fork made
    after V8 started renders only in a process of its own (see the module's docstring):
    it starts one when it has none, and raises ProcessGone when that cannot answer."""
    if _rt.child is None and _rt.inherited:
        started = KatexProcess.begin()
        if started is None:
            raise ProcessGone("KaTeX's process could not start")
        use_process(started)
    child = _rt.child
    if child is not None:
        try:
            return child.call(function, args, timeout)
        except ProcessGone:
            end_process()
            if _rt.inherited:
                raise
            log.debug("KaTeX's process did not answer; rendering here", exc_info=True)
    return _rt.owner.call(lambda: _context().call(function, *args, timeout_sec=timeout))


def use_process(child: KatexProcess) -> None:
    """Render in `child` (just started: `KatexProcess.begin`) instead of in this process,
    until it fails or `close()` ends it (the same child again: nothing changes)."""
    with _rt.lock:
        if _rt.child is child:
            return
        end_process()
        _rt.child = child
        at_close(RUNTIMES, close)


def end_process() -> None:
    """End the child `use_process` gave, if it is still there (the build is over)."""
    with _rt.lock:
        child, _rt.child = _rt.child, None
        if child is not None:
            child.end()


def close() -> None:
    """End the child started ahead and close this process's V8 context, on its own thread
    (`perprocess.close_all` calls this before the interpreter shuts down; the next render
    makes a new one)."""
    # Under the lock: another thread (the live server's builder) may be inside render().
    with _rt.lock:
        end_process()
        ctx, _rt.ctx = _rt.ctx, None
        if ctx is not None:
            _rt.owner.call(ctx.close)


def _stopped(exc: Exception) -> str:
    """What stopped a KaTeX call, as the page's message names it."""
    return exc.kind if isinstance(exc, Stopped) else type(exc).__name__


def _disk_key(tex: str, display: bool, fingerprint: str) -> str:
    raw = "\0".join([KATEX_VERSION, _JS_DIGEST, fingerprint, "D" if display else "I", tex])
    return hashlib.sha256(raw.encode("utf-8")).hexdigest()


def _disk_get(key: str) -> KatexResult | None:
    raw = diskcache.get(_TABLE, key)
    if raw is None:
        return None
    try:
        return KatexResult.from_data(json.loads(raw))
    except (ValueError, KeyError, TypeError, AttributeError):  # not what to_json() wrote
        return None


def _disk_put(key: str, result: KatexResult) -> None:
    diskcache.put(_TABLE, key, result.to_json())


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
                data = _call("blogbuildRender", tex, display, options.data(),
                             timeout=TIMEOUT)
            except Exception as exc:  # timeout, out of memory: V8 may be unusable now
                log.warning("KaTeX call failed; restarting V8", exc_info=True)
                close()
                return KatexResult(message=f"KaTeX stopped: {_stopped(exc)}")
            result = KatexResult.from_data(dict(data))
            _disk_put(disk_key, result)
        _remember(memo_key, result)
        return result


def _remember(key: tuple[str, bool, str], result: KatexResult) -> None:
    """Keep a result in the memo; past MEMO_LIMIT the oldest half goes (a worker renders
    thousands of posts whose formulas rarely repeat; the disk cache keeps them all)."""
    memo = _rt.memo
    memo[key] = result
    if len(memo) > MEMO_LIMIT:
        for old in list(itertools.islice(memo, len(memo) - MEMO_LIMIT // 2)):
            del memo[old]
            _rt.prefetched.discard(old)


def prefetch(items: Sequence[tuple[str, bool]], options: KatexOptions | None = None) -> None:
    """Render the (tex, display) pairs not cached yet in one V8 call; `render` then hits memo.

    A call through mini-racer costs ~0.9 ms against ~0.1 ms for KaTeX itself, so a page's
    formulas go together. On any failure nothing is stored and `render` retries one by one.
    """
    options = options or KatexOptions()
    prefetch_each([(tex, display, options) for tex, display in items])


def prefetch_each(items: Sequence[tuple[str, bool, KatexOptions]]) -> None:
    """`prefetch` of formulas whose options differ (the macros a page defined before each),
    still in one V8 call."""
    with _rt.lock:
        missing: dict[tuple[str, bool, str], tuple[str, KatexOptions]] = {}
        for tex, display, options in items:
            key = (tex, display, options.fingerprint)
            if key in missing or key in _rt.memo:
                continue
            disk_key = _disk_key(tex, display, key[2])
            cached = _disk_get(disk_key)
            if cached is not None:
                _rt.disk_hits += 1
                _remember(key, cached)
                _rt.prefetched.add(key)
            else:
                missing[key] = (disk_key, options)
        if len(missing) < 2:
            return  # nothing to gain over render()
        first = next(iter(missing.values()))[1]
        more: dict[str, tuple[int, dict[str, Any]]] = {}  # fingerprint: index, options
        batch: list[list[Any]] = []
        for (tex, display, fingerprint), (_, options) in missing.items():
            if fingerprint == first.fingerprint:
                batch.append([tex, display])
            else:
                index, _ = more.setdefault(fingerprint, (len(more), options.data()))
                batch.append([tex, display, index])
        _rt.round_trips += 1
        try:
            data = _call("blogbuildRenderMany", batch, first.data(),
                         [opts for _, opts in more.values()],
                         timeout=TIMEOUT * len(batch))
        except Exception:
            log.warning("KaTeX batch failed; rendering one by one", exc_info=True)
            close()
            return
        for (key, (disk_key, _)), raw in zip(missing.items(), data, strict=True):
            result = KatexResult.from_data(dict(raw))
            _rt.calls += 1
            _remember(key, result)
            _rt.prefetched.add(key)
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
