"""`blogbuild build`: bring the output folder up to date with the site (see blogbuild.pipeline)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING

from blogbuild.diagnostics import BuildFailed
from blogbuild.outline import Outline
from blogbuild.output.outdir import CACHE_DIR, check_output
from blogbuild.pipeline import settings
from blogbuild.pipeline.outcome import BuildReport
from blogbuild.pipeline.quick import Sources, up_to_date
from blogbuild.progress import Progress, no_progress

if TYPE_CHECKING:
    from blogbuild.config_model import Config
    from blogbuild.runtimes.katex_process import KatexProcess

__all__ = ["BuildReport", "build"]


def build(
    config_path: Path | str | None = None,
    *,
    output: Path | str | None = None,
    drafts: bool = False,
    strict: bool = False,
    base_url: str | None = None,
    use_cache: bool = True,
    clean: bool = False,
    jobs: int | None = None,
    progress: Progress = no_progress,
) -> BuildReport:
    """Build the site whose site.yaml is `config_path`; raises BlogbuildError on failure.

    Only what changed since the last build is rendered, templated and written (the cache
    folder remembers it); `use_cache=False` renders and writes everything without reading
    or writing the cache, `clean=True` makes the output folder anew. `jobs` worker
    processes render and template (default: one per core). `progress(phase, done, total)`
    is called as the build goes (see blogbuild.progress).
    """
    if use_cache:  # the settings the last build read, when site.yaml did not change
        site = settings.outline(config_path, base_url)
    else:
        from blogbuild.config import load_config

        site = Outline.of(load_config(config_path, base_url=base_url))
    out = Path(output).resolve() if output is not None else None
    option = "--output" if output is not None else None
    sources = None
    start = time.perf_counter()
    if use_cache and not clean:
        target = out or (site.root / site.output_dir).resolve()
        check_output(target, site, option=option)
        report, sources = up_to_date(site, site.root / CACHE_DIR, target, drafts=drafts)
        if report is not None:
            report.seconds = time.perf_counter() - start
            report.cache = site.root / CACHE_DIR
            if strict and report.diagnostics:
                raise BuildFailed(report.diagnostics, strict=True)
            return report
    config = site.config()  # the Config's classes: only when there is work
    return _update(config, out, sources, drafts=drafts, strict=strict, use_cache=use_cache,
                   clean=clean, jobs=jobs, progress=progress, option=option)


def _update(config: Config, out: Path | None, sources: Sources | None, *, drafts: bool,
            strict: bool, use_cache: bool, clean: bool, jobs: int | None, progress: Progress,
            option: str | None) -> BuildReport:
    """The build, once the check found work to do (`sources`: what it read). What loads
    long starts first, while the engine's modules load: KaTeX's runtime for a new post's
    formulas, and the process that makes an update's search index."""
    katex = katex_ahead(config, sources)
    child = None
    if sources is not None and config.search:
        # An update of the last build's output: the process that will make its search
        # index starts now, and loads while the engine's modules do.
        from blogbuild.stages.search.process import IndexProcess

        child = IndexProcess.begin(config, config.root / CACHE_DIR)
    try:
        from blogbuild.pipeline.engine import Engine  # Markdown, templates: only when needed
        from blogbuild.stages.search.process import KEPT_PROCESS

        engine = Engine(config, output=out, drafts=drafts, strict=strict, use_cache=use_cache,
                        clean=clean, jobs=jobs, progress=progress, option=option,
                        kept={KEPT_PROCESS: child} if child is not None else None,
                        katex=katex)
    except BaseException:
        for started in (child, katex):
            if started is not None:
                started.end()
        raise
    try:
        report = engine.run(sources=sources)
        report.cache = config.root / CACHE_DIR if use_cache else None
        return report
    finally:
        engine.close()


def katex_ahead(config: Config, sources: Sources | None) -> KatexProcess | None:
    """KaTeX's runtime loading in a process of its own while the build goes on (see
    blogbuild.runtimes.katex_process), for the engine to render in: for a source the last
    build did not have, with math, whose formulas the cache has never seen. `sources`
    None: the build renders everything anew, in worker processes."""
    if sources is None or not config.math.enabled or not sources.new:
        return None
    from blogbuild.runtimes.katex_process import KatexProcess, may_have_math

    new = (sources.items[rel].data for rel in sources.new)
    if not any(data is not None and may_have_math(data) for data in new):
        return None
    child = KatexProcess.begin()
    if child is not None:
        from blogbuild.runtimes import katex  # noqa: F401  its caches: loaded meanwhile
    return child
