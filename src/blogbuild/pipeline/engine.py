"""The build: bring an output folder up to date with a site's sources, doing only what changed.

`Engine.run()` is the whole pipeline, one call per step:

    begin      the last state, the run's context; stages told the run begins
    read       every source found, hashed, its front matter read quickly
    prepare    the stages of the sources (pictures probed, their copies made)
    render     the stale sources rendered, until every cross-reference holds
    assemble   the site from the render records
    plan       the pages planned, the stages of the site (covers, cards, stylesheets),
               every output path claimed
    check      the diagnostics: a failed build stops here, the output untouched
    write      the files staged, the stale pages templated, the stages of the pages
               (search) beside them, everything committed, the state saved
    finish     the report, the summary of what the output holds, caches tidied

`build` runs it once; the live server keeps one Engine and runs it after every batch of
changes, with `lenient` set: a broken source keeps its last good version and a broken page
keeps its last file, where `build` fails and leaves the output as it was.
"""

from __future__ import annotations

import gc
import shutil
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from blogbuild import fingerprints
from blogbuild.config_model import Config
from blogbuild.content.records import Execution
from blogbuild.diagnostics import BuildFailed, Diagnostic, in_order
from blogbuild.output.claims import Owner
from blogbuild.output.entries import folder_times, stat_all
from blogbuild.output.files import FileSpec, claim_files, staged_itself
from blogbuild.output.outdir import CACHE_DIR, MARKER, check_output
from blogbuild.output.plan import page_owner, planned
from blogbuild.pipeline import pages as stale
from blogbuild.pipeline.assemble import document_post
from blogbuild.pipeline.deps import Reads
from blogbuild.pipeline.files import made_files, site_files, static_rels
from blogbuild.pipeline.items import Items
from blogbuild.pipeline.nav import Ranking
from blogbuild.pipeline.outcome import BuildReport
from blogbuild.pipeline.quick import (
    Sources,
    Summary,
    inputs_fingerprint,
    listing,
    read_sources,
    save_summary,
    stamps_key,
)
from blogbuild.pipeline.refs import resolve_refs
from blogbuild.pipeline.rendering import assemble_site, render
from blogbuild.pipeline.run import Run
from blogbuild.pipeline.sources import document_infos, results_of
from blogbuild.pipeline.state import State, state_key
from blogbuild.pipeline.state_files import load_state, prune_states, save_state
from blogbuild.pipeline.store import RenderCache
from blogbuild.pipeline.writing import start_beside, write
from blogbuild.pool import default_jobs
from blogbuild.progress import Progress, no_progress
from blogbuild.runtimes.katex_process import KatexProcess
from blogbuild.stages import Step, all_stages, site_stages, stages
from blogbuild.stages.context import KEEP_SECONDS, BuildContext, Folders, run_stage
from blogbuild.stages.images import heaviest, table_of

if TYPE_CHECKING:
    from blogbuild.output.templating import CompiledTemplates


class Engine:
    """One site, one output folder; `run()` as often as sources change."""

    def __init__(self, config: Config, *, output: Path | None = None, drafts: bool = False,
                 strict: bool = False, use_cache: bool = True, clean: bool = False,
                 jobs: int | None = None, lenient: bool = False, extra_head: str = "",
                 progress: Progress = no_progress, option: str | None = None,
                 persist: bool = True, kept: dict[str, Any] | None = None,
                 katex: KatexProcess | None = None) -> None:
        # `kept`: what the caller started ahead for stages, by the name a stage keeps it
        # under in the context (the search index's process: blogbuild.stages.search);
        # `katex`: KaTeX's runtime, loading in a process of its own (BuildContext.katex).
        self.config = config
        self.output = (output or (config.root / config.output_dir)).resolve()
        # Before anything is read or written: a wrong output folder could delete sources.
        check_output(self.output, config, option=option)
        self.drafts, self.strict, self.use_cache = drafts, strict, use_cache
        self.persist = persist and use_cache  # keep the state for the next process
        self.clean = clean
        self.jobs = jobs or default_jobs()
        self.lenient = lenient
        self.extra_head = extra_head
        self.progress = progress
        self.cache_root = config.root / CACHE_DIR
        self.state: State | None = None  # kept between runs of one process
        self._scratch: Path | None = None
        #: One copy of each set of attributes that pages read of a post (thousands of list
        #: pages read the same ones), for the whole session.
        self.shared_reads: dict[frozenset[str], frozenset[str]] = {}
        #: The posts' entries this run may show as they are, by template function (set when
        #: its pages are decided).
        self.items: dict[str, Items] = {}
        from blogbuild import diskcache

        # This process's result cache (formulas, highlighted code; the workers open theirs
        # from the context's folders): a per-process resource (blogbuild.perprocess).
        diskcache.set_cache_dir(self.cache_root if use_cache else None)
        self.store = self._store()
        #: The output paths of the pages open in a browser (the live server's): templated
        #: first, with the pages of the edited sources, when they are stale.
        self.watched: Callable[[], set[str]] = set
        self.kept: dict[str, Any] = dict(kept or {})
        self.katex = katex
        #: The context of the last run (what it read, however far it came) and of the last
        #: run that completed (what the output holds).
        self.context = self._context()
        self.last: BuildContext | None = None

    def _store(self) -> RenderCache:
        """The render store: the site's cache, or a scratch folder with --no-cache (bodies
        must be somewhere while pages are templated) or when the cache is not writable."""
        if self.use_cache:
            store = RenderCache.of_site(self.config.root)
            try:
                store.dir.mkdir(parents=True, exist_ok=True)
                probe = tempfile.NamedTemporaryFile(dir=store.dir, delete=True)  # noqa: SIM115
                probe.close()
                return store
            except OSError:
                pass
        self._scratch = Path(tempfile.mkdtemp(prefix="blogbuild-render-"))
        return RenderCache(self._scratch)

    def _scratch_dir(self) -> Path:
        """A folder of this engine's that is removed on close, made when first needed."""
        if self._scratch is None:
            self._scratch = Path(tempfile.mkdtemp(prefix="blogbuild-render-"))
        return self._scratch

    def _context(self) -> BuildContext:
        """A new run's context: the engine's settings, and what its stages keep. Made
        files (cards; drawn pictures, beside their pages with the cache or without) go to
        the cache, or without one to the scratch folder."""
        files = self.cache_root if self._scratch is None else self._scratch
        return BuildContext(
            self.config, self.output, Folders(self.cache_root if self.use_cache else None,
                                              files),
            self._scratch_dir, self.jobs, self.drafts, self.lenient, self.progress,
            self.extra_head, self.compiled_templates(), self.store, self.kept, self.katex)

    def close(self) -> None:
        for kept in self.kept.values():  # a process no run took
            close = getattr(kept, "close", None)
            if close is not None:
                close()
        if self.katex is not None:
            from blogbuild.runtimes import katex

            katex.end_process()  # this process's runtime renders here again
            self.katex.end()
        if not self.lenient:
            gc.unfreeze()  # the collector may have what this run kept (out of its way)
        if self._scratch is not None:
            shutil.rmtree(self._scratch, ignore_errors=True)
            self._scratch = None

    # -- the pipeline --------------------------------------------------------------------

    def run(self, early: Callable[[set[str], list[Diagnostic]], None] | None = None,
            sources: Sources | None = None) -> BuildReport:
        """Bring the output up to date. `early(paths, errors)` is told about the pages of
        edited sources and the stale pages in `watched()` as soon as they are in place
        (lenient runs; the listings come after), with the errors known by then, and is
        called even when no page changed. The run checks the token of its `cancel.scope`:
        from that call on a stale token cancels it, a stopped one at any step; a cancelled
        run commits nothing. `sources`: what a caller already read."""
        run = self._begin(early)
        self._read(run, sources)
        self._prepare(run)
        render(run, self.store)
        assemble_site(run, self.store)
        try:
            self._plan(run)
            stopped = self._check(run)
            if stopped is not None:
                return stopped
            report = write(self, run)
        finally:
            run.abandon()
        return self._finish(run, report)

    def _begin(self, early: Callable[[set[str], list[Diagnostic]], None] | None) -> Run:
        """The state the run starts from (none: a first build), its context; the stages
        are told it begins."""
        start = time.perf_counter()
        key = state_key(fingerprints.code_fingerprint(), self.output, self.drafts)
        state = self.state
        if state is None and self.persist and not self.clean:
            state = load_state(self.cache_root, key)
        if self.clean or not (self.output / MARKER).is_file():
            state = None
        self.clean = False  # --clean is for the first run only
        ctx = self.context = self._context()
        ctx.fresh = state is None
        last = state or State(key)
        ctx.last_files = last.files
        run = Run(ctx, start, last, early, ranking=Ranking(last.related))
        ctx.post_of = lambda result: document_post(result, self.config, self.store, [])
        ctx.render_again = run.render_again
        for stage in site_stages():
            stage.begin(ctx)
        return run

    def _read(self, run: Run, sources: Sources | None) -> None:
        """Every source (`sources`: what a caller read already) and its front matter."""
        ctx, config = run.ctx, self.config
        ctx.progress("reading sources", 0, 0)
        ctx.sources = sources = sources or read_sources(config)
        run.items = sources.items
        # Only a build that saves its state needs this (the live server keeps it in memory).
        run.inputs = inputs_fingerprint(config, sources, drafts=self.drafts,
                                        extra_head=self.extra_head) if self.persist else b""
        run.infos = document_infos(run.items, run.last.sources, config, run.read)
        ctx.assets, ctx.statics = sources.found.assets, static_rels(config)

    def _prepare(self, run: Run) -> None:
        """The stages of the sources (pictures before the renders: the markup names the
        copies the stage made)."""
        for stage in stages(Step.SOURCES):
            run.ctx.made[stage.name] = run_stage(stage, run.ctx)
        run.ctx.progress("reading sources", 0, 0)  # the link map is the sources' too

    def _plan(self, run: Run) -> None:
        """Plan every page, run the stages of the site, and claim every output path (the
        site's files, then each stage's in order, then the pages)."""
        ctx, last = run.ctx, run.last
        assert ctx.site is not None
        # The output's files, each stat'ed once before the search index starts (a stage
        # that staged files itself checks those).
        ctx.seen = {} if ctx.fresh else stat_all(ctx.output, [
            *last.pages, *(rel for rel, e in last.files.items() if not staged_itself(e))])
        if run.early is None and not ctx.fresh:  # a build's update: the index starts now
            start_beside(run)
        ctx.pages = planned(ctx.site, self.config)
        run.claims.claim(MARKER, Owner("blogbuild's marker file", ""))
        specs, problems = site_files(self.config, ctx.site, ctx.assets)
        run.diagnostics += problems
        self._claim(run, specs)
        for stage in stages(Step.SOURCES):
            made = ctx.made.get(stage.name)
            if made is not None:
                self._claim(run, stage.files(ctx, made))
        self._claim(run, made_files(ctx.site, run.entries))
        for stage in stages(Step.SITE):
            made = ctx.made[stage.name] = run_stage(stage, ctx)
            if made is not None:
                self._claim(run, stage.files(ctx, made))
        ctx.progress("checking links", 0, 0)
        for page in ctx.pages:
            run.claims.claim(page.path, page_owner(page))

    @staticmethod
    def _claim(run: Run, specs: list[FileSpec]) -> None:
        """Claim the paths of `specs`; a file claimed again by its owner replaces the one
        it claimed before (a picture published without its metadata)."""
        run.ctx.chosen.update(claim_files(run.claims, specs))

    def _check(self, run: Run) -> BuildReport | None:
        """Every diagnostic of the run; raises BuildFailed on an error (or any diagnostic
        with --strict). The live server's run stops with a report instead: nothing is
        written, the output stays as it was."""
        ctx = run.ctx
        assert ctx.site is not None and ctx.sources is not None
        diagnostics = [*run.diagnostics, *ctx.sources.found.diagnostics, *ctx.diagnostics,
                       *run.claims.problems]
        diagnostics += resolve_refs(ctx.site, results_of(run.entries), set(run.claims.files),
                                    self.config)
        diagnostics += [d for e in run.entries.values() for d in e.result.diagnostics]
        run.diagnostics = diagnostics = in_order(diagnostics)
        problems = [d for d in diagnostics if d.is_error]
        if not self.lenient and (problems or (self.strict and diagnostics)):
            raise BuildFailed(diagnostics, strict=self.strict)
        if self.lenient and problems:
            return BuildReport(self.output, seconds=time.perf_counter() - run.start,
                               diagnostics=[d for d in diagnostics if not d.is_error],
                               errors=in_order([*run.errors, *problems]),
                               base_url=self.config.base_url)
        return None

    def remember(self, run: Run, state: State) -> None:
        """The run committed: its state is the next run's, its context the output's."""
        self.state = state
        self.last = run.ctx
        if self.persist:
            save_state(self.cache_root, state, run.last)
            prune_states(self.cache_root, state.key)

    def _finish(self, run: Run, report: BuildReport) -> BuildReport:
        """The report; the summary of what the output holds, and the caches tidied, after a
        build that left nothing to try again."""
        ctx, renderer = run.ctx, run.renderer
        assert renderer is not None and ctx.sources is not None
        ctx.executions = executions = dict(sorted(renderer.executions.items()))
        report.sources = len(run.items)
        report.rendered = len(renderer.rendered)
        report.cached = len(run.items) - report.rendered
        report.executions = executions
        table = table_of(ctx)
        report.images_encoded, report.images = table.encoded, heaviest(table)
        report.diagnostics = in_order([*run.diagnostics, *ctx.notes])
        report.errors = in_order([*run.errors, *report.errors])
        # An output that lacks its search index is not up to date: the next build tries again.
        outputs = self.state.outputs() if self.state is not None else {}
        if self.persist and self.state is not None and not report.errors and not ctx.notes:
            taken = time.time_ns()
            save_summary(self.cache_root, Summary(
                self.state.key, run.inputs, outputs, report, ctx.sources.stamps,
                stamps_key(self.config), folder_times(self.output, outputs), taken))
            self._tidy(run, report, executions)
        if self.state is not None and not report.errors:
            report.outputs = listing(self.output, outputs)
        return report

    def _tidy(self, run: Run, report: BuildReport, executions: dict[str, Execution]) -> None:
        """What the caches hold that was unused for weeks goes: once a day is often enough
        (listing the render store alone took a tenth of an edit's build)."""
        if report.rendered and run.ctx.folders.due("render"):
            # renders of older versions of these sources may go
            self.store.prune({e.digest for e in run.entries.values()}, older_than=KEEP_SECONDS)
        for stage in all_stages():
            stage.prune(run.ctx)

    def spare_files(self) -> Path | None:
        """Where the writer keeps the output's old files for the next update to write over
        (blogbuild.output.writer.Stage); None without a cache."""
        return self.cache_root / "spare-files" if self.use_cache else None

    def compiled_templates(self) -> CompiledTemplates:
        """Where compiled templates are kept: in this process's memory under the name of
        what their code depends on (`pipeline.pages.templates_name`), and in the cache's
        folder of that name."""
        from blogbuild.output.templating import CompiledTemplates

        name = stale.templates_name(self.config, self.extra_head)
        return CompiledTemplates(name, self.cache_root / "templates" / name
                                 if self.use_cache else None)


__all__ = ["BuildReport", "Engine", "Reads"]
