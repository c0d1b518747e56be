"""Render jobs in worker processes (each builds its own parser and KaTeX context)."""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor

from blogbuild import katex
from blogbuild.config import Config
from blogbuild.linkmap import LinkMap
from blogbuild.render import RenderResult, SourceJob, render_source

#: Below this many jobs the pool costs more than it saves.
POOL_THRESHOLD = 24

_CONFIG: Config | None = None
_LINKS: LinkMap | None = None


def _init(config: Config, links: LinkMap | None, formula_cache: str | None = None) -> None:
    global _CONFIG, _LINKS
    _CONFIG = config
    _LINKS = links  # sent once per worker, not with every job
    katex.set_cache_dir(formula_cache)  # the forkserver's environment may be older


def _work(item: tuple[SourceJob, bytes, str]) -> RenderResult:
    assert _CONFIG is not None
    job, data, digest = item
    return render_source(job, _CONFIG, data, digest, _LINKS)


def worker_count() -> int:
    env = os.environ.get("BLOGBUILD_WORKERS")
    if env and env.isdigit():
        return max(1, int(env))
    return max(1, min(os.cpu_count() or 1, 8))


def render_all(
    items: Sequence[tuple[SourceJob, bytes, str]], config: Config, *,
    links: LinkMap | None = None, workers: int | None = None,
) -> Iterator[RenderResult]:
    """Render every item; in this process when few, else in a forkserver pool.

    forkserver, not fork: a V8 (KaTeX) context made in a parent hangs in a forked child,
    and the server process that forks the workers never makes one.
    """
    workers = worker_count() if workers is None else workers
    if workers <= 1 or len(items) < POOL_THRESHOLD:
        for job, data, digest in items:
            yield render_source(job, config, data, digest, links)
        return
    ctx = multiprocessing.get_context("forkserver")
    ctx.set_forkserver_preload(["blogbuild.render", "blogbuild.pool"])
    chunk = max(1, min(16, len(items) // (workers * 4)))
    with ProcessPoolExecutor(workers, mp_context=ctx, initializer=_init,
                             initargs=(config, links, katex.cache_dir())) as pool:
        yield from pool.map(_work, items, chunksize=chunk)
