"""`blogbuild build`: bring the output folder up to date with the site (see blogbuild.pipeline)."""

from __future__ import annotations

import time
from pathlib import Path

from blogbuild.config import load_config
from blogbuild.diagnostics import BuildFailed
from blogbuild.output.outdir import CACHE_DIR, check_output
from blogbuild.pipeline.outcome import BuildReport
from blogbuild.pipeline.quick import up_to_date
from blogbuild.progress import Progress, no_progress

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
    config = load_config(config_path, base_url=base_url)
    out = Path(output).resolve() if output is not None else None
    option = "--output" if output is not None else None
    sources = None
    start = time.perf_counter()
    if use_cache and not clean:
        target = out or (config.root / config.output_dir).resolve()
        check_output(target, config, option=option)
        report, sources = up_to_date(config, config.root / CACHE_DIR, target, drafts=drafts)
        if report is not None:
            report.seconds = time.perf_counter() - start
            report.cache = config.root / CACHE_DIR
            if strict and report.diagnostics:
                raise BuildFailed(report.diagnostics, strict=True)
            return report
    child = None
    if sources is not None and config.search:
        # An update of the last build's output: the process that will make its search
        # index starts now, and loads while the engine's modules do.
        from blogbuild.pipeline.search_process import IndexProcess

        child = IndexProcess.begin(config, config.root / CACHE_DIR)
    try:
        from blogbuild.pipeline.engine import Engine  # Markdown, templates: only when needed

        engine = Engine(config, output=out, drafts=drafts, strict=strict, use_cache=use_cache,
                        clean=clean, jobs=jobs, progress=progress,
                        option=option, search_process=child)
    except BaseException:
        if child is not None:
            child.end()
        raise
    try:
        report = engine.run(sources=sources)
        report.cache = config.root / CACHE_DIR if use_cache else None
        return report
    finally:
        engine.close()
