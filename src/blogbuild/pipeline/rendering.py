"""The engine's render and assembly steps: the link map from every document's front matter,
the stale sources rendered (in workers) until every cross-reference holds, the site
assembled from the records; in the live server, a source with errors falls back to its
last good version."""

from __future__ import annotations

import gc
from dataclasses import replace

from blogbuild import cancel
from blogbuild.content.models import Site
from blogbuild.content.records import SourceEntry
from blogbuild.diagnostics import Diagnostic, error
from blogbuild.pipeline.assemble import assemble
from blogbuild.pipeline.quick import without_bytes
from blogbuild.pipeline.run import Run
from blogbuild.pipeline.sources import (
    LinkInputs,
    Relinker,
    Renderer,
    asset_rels,
    feed_candidates,
    feed_sources,
    results_of,
)
from blogbuild.pipeline.store import RenderCache
from blogbuild.stages import site_stages
from blogbuild.stages.images import table_of

#: Rounds of falling back to last good versions before the live server gives up a batch.
LENIENT_ROUNDS = 8


def render(run: Run, store: RenderCache) -> None:
    """Render the sources whose last record cannot be used, then again those whose lookups
    through the link map no longer hold; the stages are told what was rendered."""
    ctx, last = run.ctx, run.last
    config, assets = ctx.config, asset_rels(ctx.assets)
    images = table_of(ctx).images
    # The labels of other documents' ids as the last build left them; relinking puts in
    # the fresh ones and renders again whoever showed a label that changed.
    first = LinkInputs.first(run.infos, last.sources, run.items)
    links = first_links = first.link_map(assets, config, ctx.drafts, ctx.statics, store, images)
    candidates = feed_candidates(run.infos, config, ctx.drafts)
    run.items = {rel: i if i.feed == (rel in candidates) else replace(i, feed=rel in candidates)
                 for rel, i in run.items.items()}
    if ctx.katex is not None:  # the formulas this process renders go to KaTeX's process
        from blogbuild.runtimes import katex

        katex.use_process(ctx.katex)
    renderer = run.renderer = Renderer(
        config, store, ctx.jobs, lambda d, n: ctx.progress("rendering posts and pages", d, n),
        ctx.folders, digests=run.read)
    todo = []
    for rel, item in run.items.items():
        entry = last.sources.get(rel)
        if renderer.usable(entry, item, links):
            assert entry is not None
            run.entries[rel] = entry if entry.result.job == item.job else replace(
                entry, result=replace(entry.result, job=item.job))
        else:
            todo.append(item)
    run.entries.update(renderer.render(todo, links))
    run.fresh_sources = {item.job.rel for item in todo}
    run.errors = fall_back(run, run.fresh_sources)
    links, again = renderer.settle(
        run.entries, run.items, links,
        Relinker(run.entries, assets, config, ctx.drafts, ctx.statics, store, images,
                 first=first, last=last.sources, made=first_links),
        lambda redone: run.errors.extend(fall_back(run, run.fresh_sources | redone)))
    run.fresh_sources |= again
    ctx.links, ctx.entries = links, run.entries
    cancel.check()
    records = [run.entries[rel].result for rel in sorted(run.fresh_sources)
               if rel in run.entries]
    new = any(rel not in last.sources for rel in run.fresh_sources)
    for stage in site_stages():
        stage.rendered(ctx, records, new=new)


def assemble_site(run: Run, store: RenderCache) -> None:
    """The site from the records; the feed variant of the posts a feed shows and that was
    not rendered with it. A one-run build then lets go of the sources' bytes."""
    ctx = run.ctx
    ctx.progress("assembling the site", 0, 0)
    site, run.diagnostics, errors = _assembled(run, store)
    run.errors += errors
    ctx.site = site
    assert run.renderer is not None and ctx.links is not None
    missing_feeds = [run.items[s] for s in feed_sources(site, ctx.config)
                     if s in run.items and not run.entries[s].feed]
    if missing_feeds:
        run.entries.update(run.renderer.render([replace(i, feed=True) for i in missing_feeds],
                                               ctx.links))
    if not ctx.lenient:  # one run: no source is rendered again but a lost render
        run.items = without_bytes(run.items)
        assert ctx.sources is not None
        ctx.sources.items = without_bytes(ctx.sources.items)
        out_of_the_collectors_way()


def _assembled(run: Run, store: RenderCache) -> tuple[Site, list[Diagnostic], list[Diagnostic]]:
    """The site; lenient runs drop back the fresh sources that an error names (they are
    no longer fresh: their pages do not go out ahead of the others)."""
    ctx, entries, fresh = run.ctx, run.entries, run.fresh_sources
    errors: list[Diagnostic] = []
    for _ in range(LENIENT_ROUNDS):
        site, diagnostics = assemble(results_of(entries).values(), asset_rels(ctx.assets),
                                     ctx.config, drafts=ctx.drafts, bodies=store,
                                     images=table_of(ctx).images, ranking=run.ranking)
        if not ctx.lenient:
            return site, diagnostics, errors
        by_display = {e.result.job.display: rel for rel, e in entries.items()}
        blamed = {by_display.get(d.file) for d in diagnostics if d.is_error} & fresh
        if not blamed:
            return site, diagnostics, errors
        for rel in sorted(r for r in blamed if r is not None):
            errors += [d for d in diagnostics
                       if d.is_error and d.file == entries[rel].result.job.display]
            good = run.last.sources.get(rel)
            if good is not None and good is not entries[rel]:
                entries[rel] = good
            else:
                del entries[rel]
            fresh.discard(rel)
    return site, diagnostics, errors


def fall_back(run: Run, fresh: set[str]) -> list[Diagnostic]:
    """Lenient runs: a source with errors keeps its last good record (or is left out);
    returns the errors. Strict runs keep everything (the errors fail the build)."""
    if not run.ctx.lenient:
        return []
    entries: dict[str, SourceEntry] = run.entries
    errors = []
    for rel in sorted(fresh & set(entries)):
        result = entries[rel].result
        found = [d for d in result.diagnostics if d.is_error]
        if result.ok and not found:
            continue
        errors += found or [error(result.job.display, 0, "cannot render this file")]
        good = run.last.sources.get(rel)
        if good is not None and good.result.ok:
            entries[rel] = good
        else:
            del entries[rel]
    return errors


def out_of_the_collectors_way() -> None:
    """A one-run build keeps its records, site and pages until it ends: they are moved out
    of the cycle collector's way (they hold no cycles to find). Otherwise every full
    collection that the templating's and the search index's short-lived objects set off
    goes through all of them again: 34 s of a 5,000-post clean build's 170 s. (No
    collection first: it would cost an edit's build tens of milliseconds; `close` puts
    them back, for a process that builds again.)"""
    gc.freeze()
