"""The engine's writing step: the files staged, the stale pages decided and templated (in
workers), the stages of `Step.PAGES` at work beside them, everything committed into the
output at once, and the state the next run starts from.

The live server shows the pages of the edited sources, and the stale pages open in a
browser, before anything else is templated; from then on a newer change cancels the rest
of the run (blogbuild.cancel).
"""

from __future__ import annotations

import functools
import posixpath
import time
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from blogbuild import cancel
from blogbuild.content.models import Post
from blogbuild.diagnostics import TemplateError, error
from blogbuild.output.entries import FileEntry, intact
from blogbuild.output.files import stage_files
from blogbuild.output.outdir import MARKER
from blogbuild.output.plan import PlannedPage
from blogbuild.output.writer import Stage
from blogbuild.pipeline import pages as stale
from blogbuild.pipeline.deps import fingerprint, share
from blogbuild.pipeline.items import STATE_FIELDS, Items
from blogbuild.pipeline.outcome import BuildReport, first_per_place
from blogbuild.pipeline.run import Run
from blogbuild.pipeline.workers import PAGE_POOL_MIN, PageDone, init_pages, template_one
from blogbuild.pool import run_jobs
from blogbuild.stages import Step, stages
from blogbuild.stages.context import run_stage
from blogbuild.themefiles import ENTRY_TEMPLATES

if TYPE_CHECKING:
    from blogbuild.pipeline.engine import Engine


def start_beside(run: Run) -> None:
    """Start the stages that work beside the templating (the search index), once: a
    build's update as soon as the site is assembled, the live server once the edited
    pages are out, a first build after its pages (their worker processes fill both cores;
    with Pagefind's memory at once the peak would be theirs summed)."""
    if run.beside:
        return
    for stage in stages(Step.PAGES):
        work = run_stage(stage, run.ctx)
        if work is not None:
            run.beside.append((stage, work))
            if run.ctx.writer is not None:
                work.write_into(run.ctx.writer)
            else:
                work.until_reading()


def write(engine: Engine, run: Run) -> BuildReport:
    """Stage, template and commit the run; the engine's state afterwards."""
    ctx = run.ctx
    with Stage(ctx.output, fresh=ctx.fresh, spares=engine.spare_files()) as writer:
        ctx.writer = writer
        for _, work in run.beside:
            work.write_into(writer)
        try:
            done, files, decided, todo = _template_all(engine, run, writer)
            for stage, work in run.beside:
                stage.files(ctx, work)
            files.update(ctx.staged)
            keep = set(ctx.chosen) | {p.path for p in ctx.pages} | set(ctx.staged)
            keep.discard(MARKER)
            cancel.check()  # the last moment: after the commit, the state must follow
            ctx.progress("committing", 0, 0)
            # The check for no change listed the output (a build's first run only: the
            # live server's output changes between runs).
            assert ctx.sources is not None
            written, removed = writer.commit(keep, ctx.sources.outputs)
            ctx.sources.outputs = None
        except BaseException:
            run.abandon()  # the work beside the pages stops, before its stage is removed
            raise
    # Committed: what the work beside the pages does after its answer (the search index's
    # process writes its layout and its cache) goes on while the state is saved; the
    # engine waits for it once the run is over (`Engine.run`).
    ctx.progress("saving the state", 0, 0)
    state = stale.next_state(
        run.last, run.entries, ctx.pages, decided.inputs, decided.closures, decided.templates,
        done, files, decided.prints, decided.values, written, ctx.output, decided.item_keys,
        engine.shared_reads)
    state.made_with = decided.made_with
    state.related = run.ranking.kept
    engine.remember(run, state)
    writer.finish()
    failed = [d for d in done if d.out is None]
    return BuildReport(
        output=ctx.output, posts=len(ctx.site.posts) if ctx.site else 0, pages=len(ctx.pages),
        files=len(keep) + 1, seconds=time.perf_counter() - run.start,
        templated={p.path for p in todo}, base_url=ctx.config.base_url,
        written={p.path: p.template for p in ctx.pages},
        changed=written, removed=removed, fresh=ctx.fresh,
        errors=first_per_place([d.error for d in failed if d.error is not None]))


def _template_all(engine: Engine, run: Run, writer: Stage,
                  ) -> tuple[list[PageDone], dict[str, FileEntry], Decided, list[PlannedPage]]:
    """Copy the files, template the stale pages (the live server's edited ones first);
    what was templated, the files' records, what deciding found, the pages templated."""
    ctx = run.ctx
    token = cancel.current()
    ctx.progress("copying files", 0, 0)
    files = stage_files(writer, ctx.chosen, run.last.files, ctx.output, ctx.fresh, ctx.seen)
    ctx.progress("deciding stale pages", 0, 0)
    decided = decide(engine, run)
    own = _own_pages(engine, run, decided)
    done = _template(engine, run, own, writer, decided.damaged)
    _show_early(run, writer, done)
    # What the reader waits for is out: from here on, a newer change cancels the rest of
    # this run (the live server runs it again with that change).
    token.defer()
    token.check()
    if not ctx.fresh:
        start_beside(run)
    first = set(own)
    todo = [p for p in ctx.pages if p.path in decided.outdated | first]
    ctx.progress("writing pages", len(first), len(todo))
    done += _template(engine, run, [p.path for p in todo if p.path not in first], writer,
                      decided.damaged)
    done = _mend_lost(engine, run, done, writer, decided.damaged)
    failed = [d for d in done if d.out is None]
    if failed and not ctx.lenient:
        error_ = failed[0].error  # in the order pages are planned: posts first
        assert error_ is not None
        more = f" (and {len(failed) - 1} more pages)" if len(failed) > 1 else ""
        raise TemplateError(error_.message + more, file=error_.file, line=error_.line)
    token.check()
    start_beside(run)
    return done, files, decided, todo


def _own_pages(engine: Engine, run: Run, decided: Decided) -> list[str]:
    """The live server shows the pages of the edited sources first, and the stale pages
    open in a browser, before anything else is templated. (After an edit of a template or
    a stylesheet, all pages come together: a page that differs only in its stylesheet's
    name is not reloaded.)"""
    if run.early is None:
        return []
    edited = run.fresh_sources if run.ctx.lenient else set()
    watched = engine.watched() if edited else set()
    return [p.path for p in run.ctx.pages
            if p.sources & edited or (p.path in watched and p.path in decided.outdated)]


def _show_early(run: Run, writer: Stage, done: list[PageDone]) -> None:
    """Put the pages templated first in place, the files beside them before them (a
    notebook's new figure: none of them shows a picture that is not there yet), and tell
    the live server (with the errors known by then; also when no page changed)."""
    written = {d.path for d in done if d.written}
    beside = {posixpath.dirname(path) for path in written}
    writer.publish_now({rel for rel in run.ctx.chosen if posixpath.dirname(rel) in beside})
    shown = writer.publish_now(written)
    if run.early is not None:
        run.early(shown, run.errors)


def _mend_lost(engine: Engine, run: Run, done: list[PageDone], writer: Stage,
               damaged: set[str]) -> list[PageDone]:
    """Template again the pages that met a body the render store lost, once the bodies
    are rendered again. A lost body is seldom alone (a deleted or pruned cache, one
    restored in part): every body the store lacks is rendered at once, not one per
    page and round (a feed shows twenty). A page that still lacks one is an error."""
    rendered: set[str] = set()
    for _round in range(3):
        lost = {d.missing for d in done if d.missing is not None} - rendered
        if not lost:
            break
        lost |= engine.store.lacks({e.digest for e in run.entries.values()}) - rendered
        run.render_again(lost)
        rendered |= lost
        again = _template(engine, run, [d.path for d in done if d.missing], writer, damaged)
        done = [d for d in done if d.missing is None] + again
    return [d if d.missing is None else replace(d, error=error(
        d.path, 0, "a post this page shows could not be rendered again into the render "
        "cache; build once with --no-cache")) for d in done]


@dataclass
class Decided:
    """What deciding the stale pages found."""

    templates: str  # the fingerprint of the template files
    closures: dict[str, bytes]
    inputs: dict[str, bytes]  # each page's, besides what it reads
    prints: dict[str, bytes]  # each post's fingerprint
    values: stale.Values
    outdated: set[str]  # the pages to template again
    damaged: set[str]  # in the output, but not as the last build left it
    #: What posts' entries are templated with, by template function (pipeline.items).
    item_keys: dict[str, bytes]
    made_with: bytes = b""  # what every page is made with (pages.made_with)


def decide(engine: Engine, run: Run) -> Decided:
    """Which pages to template again, and what the next state records of them."""
    ctx, last = run.ctx, run.last
    config, pages, site = ctx.config, ctx.pages, ctx.site
    assert ctx.sources is not None and site is not None
    documents: dict[str, Post] = {p.source: p for p in [*site.posts, *site.pages]}
    templates_fp = ctx.sources.template_files(config)  # read once per run
    names = {page.template for page in pages} | set(ENTRY_TEMPLATES.values())
    if templates_fp == last.templates and names <= set(last.closures):
        closures = last.closures
    else:
        closures = stale.closures(config, names | set(last.closures))
    globals_fp = stale.globals_fingerprint(config, ctx.extra_head)
    made_with = stale.made_with(config, closures, globals_fp, ctx.stylesheets)
    changed, prints = stale.changed_posts(documents, last)
    kept = None if ctx.fresh or made_with != last.made_with else last
    inputs = stale.pages_inputs(pages, closures, globals_fp, ctx.stylesheets, changed, kept)
    values = stale.Values(site, config, documents, last.values, changed)
    damaged: set[str] = set()

    def unchanged(rel: str) -> bool:
        entry = last.pages.get(rel)
        if entry is None:
            return False
        if not intact(ctx.output, rel, entry.out, ctx.seen):
            damaged.add(rel)
            return False
        return True

    outdated = {p.path for p in pages} if ctx.fresh else set(
        stale.stale_pages(pages, inputs, last, values, unchanged))
    item_keys = {function: fingerprint((closures[template], globals_fp))
                 for function, template in ENTRY_TEMPLATES.items()}
    engine.items = {function: Items(functools.partial(last.part, STATE_FIELDS[function]),
                                    key, prints, values)
                    for function, key in item_keys.items()}
    return Decided(templates_fp, closures, inputs, prints, values, outdated, damaged,
                   item_keys, made_with)


def _template(engine: Engine, run: Run, paths: list[str], writer: Stage,
              damaged: set[str]) -> list[PageDone]:
    if not paths:
        return []
    ctx = run.ctx
    previous = {rel: e.out.digest for rel, e in run.last.pages.items() if rel not in damaged}
    items = [(rel, previous.get(rel)) for rel in paths]
    initargs = (ctx.config, ctx.site, writer.staging, ctx.extra_head, ctx.bytecode,
                ctx.stylesheets, engine.items)
    done = []
    for n, result in enumerate(run_jobs(items, template_one, init_pages, initargs,
                                        jobs=ctx.jobs, minimum=PAGE_POOL_MIN), 1):
        done.append(replace(result, deps=share(result.deps, engine.shared_reads)))
        if result.written:
            writer.staged.add(result.path)
        ctx.progress("writing pages", n, len(items))
    return done
