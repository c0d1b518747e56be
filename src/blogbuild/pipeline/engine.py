"""The build: bring an output folder up to date with a site's sources, doing only what changed.

`Engine.run()` is the whole pipeline (see the package's docstring). `build` runs it once;
the live server keeps one Engine and runs it after every batch of changes, with `lenient`
set: a broken source keeps its last good version and a broken page keeps its last file,
where `build` fails and leaves the output as it was.
"""

from __future__ import annotations

import functools
import gc
import hashlib
import posixpath
import shutil
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from blogbuild import cancel, fingerprints
from blogbuild.config import Config
from blogbuild.content.linkmap import LinkMap
from blogbuild.content.models import Post, Site
from blogbuild.diagnostics import BuildFailed, Diagnostic, TemplateError, error
from blogbuild.diskcache import due
from blogbuild.images.process import ImageInfo
from blogbuild.output.claims import Claims, Owner
from blogbuild.output.entries import Seen, intact, stat_all
from blogbuild.output.files import FileSpec, claim_files, stage_files
from blogbuild.output.outdir import CACHE_DIR, MARKER, check_output
from blogbuild.output.plan import PlannedPage, page_owner, planned
from blogbuild.output.writer import Stage
from blogbuild.pipeline import pages as stale
from blogbuild.pipeline.assemble import assemble, document_post, resolve_refs
from blogbuild.pipeline.deps import fingerprint, share
from blogbuild.pipeline.files import made_files, site_files, static_rels
from blogbuild.pipeline.items import STATE_FIELDS, Items
from blogbuild.pipeline.outcome import BuildReport, first_per_place
from blogbuild.pipeline.quick import (
    Sources,
    Summary,
    inputs_fingerprint,
    listing,
    read_sources,
    save_summary,
    stamps_key,
    with_bytes,
    without_bytes,
)
from blogbuild.pipeline.sources import (
    LinkInputs,
    Relinker,
    Renderer,
    asset_rels,
    document_infos,
    feed_candidates,
    feed_sources,
    results_of,
)
from blogbuild.pipeline.state import SourceEntry, State, state_key
from blogbuild.pipeline.state_files import load_state, prune_states, save_state
from blogbuild.pipeline.store import RenderCache
from blogbuild.pipeline.workers import (
    PAGE_POOL_MIN,
    PageDone,
    init_pages,
    template_one,
)
from blogbuild.pool import default_jobs, run_jobs
from blogbuild.progress import Progress, no_progress
from blogbuild.stages.cards import card_files, make_cards, prune_cards, site_cards
from blogbuild.stages.images import heaviest as heaviest_images
from blogbuild.stages.images import prepare as prepare_images
from blogbuild.stages.images import publish as publish_images
from blogbuild.stages.search.documents import is_index_file
from blogbuild.stages.search.index import Search
from blogbuild.stages.search.indexing import Indexing
from blogbuild.stages.search.process import IndexProcess, Offloaded
from blogbuild.stages.stylesheets import page_stylesheets
from blogbuild.themefiles import ENTRY_TEMPLATES

#: Renders no source of this build names are kept this long (other output folders, a
#: drafts build, may still use them).
STORE_KEEP_SECONDS = 14 * 24 * 3600
#: How often those caches are looked through for what may go.
TIDY_SECONDS = 24 * 3600
#: Rounds of falling back to last good versions before the live server gives up a batch.
_LENIENT_ROUNDS = 8


class Engine:
    """One site, one output folder; `run()` as often as sources change."""

    def __init__(self, config: Config, *, output: Path | None = None, drafts: bool = False,
                 strict: bool = False, use_cache: bool = True, clean: bool = False,
                 jobs: int | None = None, lenient: bool = False, extra_head: str = "",
                 progress: Progress = no_progress, option: str | None = None,
                 persist: bool = True, search_process: IndexProcess | None = None) -> None:
        # `search_process`: the search index's process, started by the caller (see
        # blogbuild.stages.search.index.Search.child).
        self.config = config
        self.output = (output or (config.root / config.output_dir)).resolve()
        # Before anything is read or written: a wrong output folder could delete sources.
        check_output(self.output, config, option=option)
        self.drafts = drafts
        self.strict = strict
        self.use_cache = use_cache
        self.persist = persist and use_cache  # keep the state for the next process
        self.clean = clean
        self.jobs = jobs or default_jobs()
        self.lenient = lenient
        self.extra_head = extra_head
        self.progress = progress
        self.cache_root = config.root / CACHE_DIR
        self.state: State | None = None  # kept between runs of one process
        self.site: Site | None = None
        self.sources: Sources | None = None  # what the last run read
        self.links: LinkMap | None = None  # the link map the last run rendered with
        self.stylesheets: dict[frozenset[str], str] = {}  # a page's needs -> its stylesheet
        self._scratch: Path | None = None
        #: One copy of each set of attributes that pages read of a post (thousands of list
        #: pages read the same ones), for the whole session.
        self._shared_reads: dict[frozenset[str], frozenset[str]] = {}
        #: The posts' entries this run may show as they are, by template function (set when
        #: its pages are decided).
        self._items: dict[str, Items] = {}
        from blogbuild import diskcache

        # Formulas and highlighted code, shared with the worker processes.
        diskcache.set_cache_dir(self.cache_root if use_cache else None)
        self.store = self._store()
        from blogbuild.images import outputs as images_outputs

        # Drawn pictures (build-time blocks, notebooks' outputs) are files beside their
        # pages with the cache or without: made in the scratch folder without one.
        images_outputs.set_folder(self.cache_root if self._scratch is None else self._scratch)
        self.search = Search(config, remember=lenient,  # the live server runs again
                             drafts=drafts, child=search_process)
        self.search_notes: list[Diagnostic] = []  # the last run's warnings about search
        #: The output paths of the pages open in a browser (the live server's): templated
        #: first, with the pages of the edited sources, when they are stale.
        self.watched: Callable[[], set[str]] = set
        # Social cards are cached beside the render store (in the scratch folder without one).
        self.cards_dir = (self._scratch or self.cache_root) / "cards"

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

    def close(self) -> None:
        self.search.discard()  # a search process that no run took
        if not self.lenient:
            gc.unfreeze()  # the collector may have what this run kept (_out_of_the_collectors_way)
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
        start = time.perf_counter()
        config = self.config
        key = state_key(fingerprints.code_fingerprint(), self.output, self.drafts)
        state = self.state
        if state is None and self.persist and not self.clean:
            state = load_state(self.cache_root, key)
        if self.clean or not (self.output / MARKER).is_file():
            state = None
        fresh = state is None
        last = state or State(key)
        if fresh:
            self.search.discard()  # a first build makes its index beside the run, on a thread
        elif early is None:
            self.search.prepare()  # its process loads while the sources are read and rendered
        self.clean = False  # --clean is for the first run only

        self.progress("reading sources", 0, 0)
        sources = sources or read_sources(config)
        self.sources = sources
        found, items = sources.found, sources.items
        # Only a build that saves its state needs this (the live server keeps it in memory).
        inputs = inputs_fingerprint(config, sources, drafts=self.drafts,
                                    extra_head=self.extra_head) if self.persist else b""
        infos = document_infos(items, last.sources, config)
        assets = asset_rels(found.assets)
        statics = static_rels(config)
        # Pictures before the renders: the markup names the copies the stage made.
        self.progress("preparing images", 0, 0)
        images = prepare_images(config, found.assets, statics,
                                cache=self.cache_root if self.use_cache else None,
                                scratch=self._scratch_dir, jobs=self.jobs)
        self.progress("reading sources", 0, 0)  # the link map is the sources' too
        # The labels of other documents' ids as the last build left them; relinking below
        # puts in the fresh ones and renders again whoever showed a label that changed.
        first = LinkInputs.first(infos, last.sources, items)
        links = first_links = first.link_map(assets, config, self.drafts, statics, self.store,
                                             images.images)
        candidates = feed_candidates(infos, config, self.drafts)
        items = {rel: i if i.feed == (rel in candidates) else replace(i, feed=rel in candidates)
                 for rel, i in items.items()}

        renderer = Renderer(config, self.store, self.jobs,
                            lambda d, n: self.progress("rendering posts and pages", d, n))
        entries: dict[str, SourceEntry] = {}
        todo = []
        for rel, item in items.items():
            entry = last.sources.get(rel)
            if renderer.usable(entry, item, links):
                assert entry is not None
                entries[rel] = entry if entry.result.job == item.job else replace(
                    entry, result=replace(entry.result, job=item.job))
            else:
                todo.append(item)
        entries.update(renderer.render(todo, links))
        fresh_sources = {item.job.rel for item in todo}
        errors = self._fall_back(entries, fresh_sources, last)
        links, again = renderer.settle(
            entries, items, links,
            Relinker(entries, assets, config, self.drafts, statics, self.store,
                     images.images, first=first, last=last.sources, made=first_links),
            lambda redone: errors.extend(self._fall_back(entries, fresh_sources | redone,
                                                         last)))
        fresh_sources |= again
        cancel.check()
        if not fresh and early is None:  # Pagefind reads their pages while the site assembles
            self.search.send_ahead([entries[rel].result for rel in sorted(fresh_sources)
                                    if rel in entries],
                                   lambda result: document_post(result, config, self.store, []),
                                   new=any(rel not in last.sources for rel in fresh_sources))

        self.progress("assembling the site", 0, 0)
        site, diagnostics, more_errors = self._assemble(entries, found.assets, fresh_sources,
                                                        last, images.images)
        errors += more_errors
        missing_feeds = [items[s] for s in feed_sources(site, config)
                         if s in items and not entries[s].feed]
        if missing_feeds:
            entries.update(renderer.render([replace(i, feed=True) for i in missing_feeds],
                                           links))
        if not self.lenient:  # one run: no source is rendered again but a lost render
            items = without_bytes(items)
            sources.items = without_bytes(sources.items)
            todo = missing_feeds = []  # the same bytes
            _out_of_the_collectors_way()
        rendering_again = threading.Lock()

        def render_again(digests: set[str]) -> None:
            """Bodies the render store lost (damaged, pruned): render those sources again.
            Called by the templating and by the search index's thread, one at a time."""
            with rendering_again:
                lost = [replace(with_bytes(items[rel], config), feed=entries[rel].feed)
                        for rel, e in entries.items() if e.digest in digests and rel in items]
                entries.update(renderer.render(lost, links, reuse=False))

        # The output's files, each stat'ed once before the search index starts (the index
        # checks its own files: in its process, or on its thread if it has none).
        seen = {} if fresh else stat_all(self.output, [
            *last.pages, *(rel for rel, e in last.files.items() if not is_index_file(e))])
        # A build's update makes its search index from here on, beside the rest of the run
        # (the live server's and a fresh build's start later: see `_write`).
        indexing = None
        if early is None and not fresh:
            indexing = self.search.start(site, last.files, self.output, fresh, render_again,
                                         seen)
            indexing.until_reading()
        try:
            pages = planned(site, config)
            specs, file_problems = site_files(config, site, found.assets)
            specs = publish_images(specs, images, site.assets) + made_files(site, entries)
            cards, card_problems = site_cards(config, site)
            self.progress("drawing social cards", 0, 0)
            card_dir = make_cards(cards, self.cards_dir, self._scratch_dir, self.jobs)
            self.progress("checking links", 0, 0)
            specs += card_files(cards, card_dir, site)
            claims = Claims()
            claims.claim(MARKER, Owner("blogbuild's marker file", ""))
            chosen = claim_files(claims, specs)
            self.stylesheets, sheets = page_stylesheets(chosen, pages, last.files)
            chosen.update(claim_files(claims, sheets))
            for page in pages:
                claims.claim(page.path, page_owner(page))
            diagnostics += [*found.diagnostics, *file_problems, *card_problems, *claims.problems]
            diagnostics += resolve_refs(site, results_of(entries), set(claims.files), config)
            diagnostics += [d for e in entries.values() for d in e.result.diagnostics]
            diagnostics = sorted(set(diagnostics))
            problems = [d for d in diagnostics if d.is_error]
            if not self.lenient and (problems or (self.strict and diagnostics)):
                raise BuildFailed(diagnostics, strict=self.strict)
            if self.lenient and problems:  # nothing is written: the output stays as it was
                return BuildReport(self.output, seconds=time.perf_counter() - start,
                                   diagnostics=[d for d in diagnostics if not d.is_error],
                                   errors=sorted({*errors, *problems}), base_url=config.base_url)

            report = self._write(
                site, pages, chosen, entries, last, fresh, start, render_again, indexing, seen,
                fresh_sources if early is not None and self.lenient else set(),
                None if early is None else lambda paths: early(paths, errors))
        finally:
            if indexing is not None:
                indexing.abandon()  # the run failed (at once when it is done)
        self.links = links
        report.sources = len(items)
        report.rendered = len(renderer.rendered)
        report.cached = len(items) - report.rendered
        report.executions = dict(sorted(renderer.executions.items()))
        report.images_encoded = images.encoded
        report.images = heaviest_images(images)
        report.diagnostics = sorted({*diagnostics, *self.search_notes})
        report.errors = sorted({*errors, *report.errors})
        # An output that lacks its search index is not up to date: the next build tries again.
        outputs = self.state.outputs() if self.state is not None else {}
        if self.persist and self.state is not None and not report.errors \
                and not self.search_notes:
            save_summary(self.cache_root, Summary(self.state.key, inputs, outputs, report,
                                                  self.sources.stamps, stamps_key(config)))
            # What is tidied away was unused for weeks: once a day is often enough (listing
            # the render store alone took a tenth of an edit's build).
            tidied = self.cache_root / "tidied"
            if report.rendered and due(tidied / "render", TIDY_SECONDS):
                # renders of older versions of these sources may go
                self.store.prune({e.digest for e in entries.values()},
                                 older_than=STORE_KEEP_SECONDS)
            if due(tidied / "cards", TIDY_SECONDS):
                prune_cards(self.cards_dir, cards, older_than=STORE_KEEP_SECONDS)
            if renderer.executions and due(tidied / "exec", TIDY_SECONDS):
                from blogbuild.runtimes.python import prune as prune_runs

                prune_runs(self.cache_root / "exec", older_than=STORE_KEEP_SECONDS)
        if self.state is not None and not report.errors:
            report.outputs = listing(self.output, outputs)
        return report

    def _fall_back(self, entries: dict[str, SourceEntry], fresh: set[str],
                   last: State) -> list[Diagnostic]:
        """Lenient runs: a source with errors keeps its last good record (or is left out);
        returns the errors. Strict runs keep everything (the errors fail the build)."""
        if not self.lenient:
            return []
        errors = []
        for rel in sorted(fresh & set(entries)):
            result = entries[rel].result
            found = [d for d in result.diagnostics if d.is_error]
            if result.ok and not found:
                continue
            errors += found or [error(result.job.display, 0, "cannot render this file")]
            good = last.sources.get(rel)
            if good is not None and good.result.ok:
                entries[rel] = good
            else:
                del entries[rel]
        return errors

    def _assemble(self, entries: dict[str, SourceEntry], assets: list[tuple[Path, str]],
                  fresh: set[str], last: State, images: dict[str, ImageInfo],
                  ) -> tuple[Site, list[Diagnostic], list[Diagnostic]]:
        """The site; lenient runs drop back the fresh sources that an error names."""
        errors: list[Diagnostic] = []
        for _ in range(_LENIENT_ROUNDS):
            site, diagnostics = assemble(results_of(entries).values(), asset_rels(assets),
                                         self.config, drafts=self.drafts, bodies=self.store,
                                         images=images)
            if not self.lenient:
                return site, diagnostics, errors
            by_display = {e.result.job.display: rel for rel, e in entries.items()}
            blamed = {by_display.get(d.file) for d in diagnostics if d.is_error} & fresh
            if not blamed:
                return site, diagnostics, errors
            for rel in sorted(r for r in blamed if r is not None):
                errors += [d for d in diagnostics
                           if d.is_error and d.file == entries[rel].result.job.display]
                good = last.sources.get(rel)
                if good is not None and good is not entries[rel]:
                    entries[rel] = good
                else:
                    del entries[rel]
                fresh.discard(rel)
        return site, diagnostics, errors

    # -- writing -------------------------------------------------------------------------

    def _write(self, site: Site, pages: list[PlannedPage], chosen: dict[str, FileSpec],
               entries: dict[str, SourceEntry], last: State, fresh: bool,
               start: float, render_again: Callable[[set[str]], None],
               indexing: Indexing | Offloaded | None, seen: Seen, edited: set[str],
               early: Callable[[set[str]], None] | None) -> BuildReport:
        """`indexing`: the search index, when it was started already; `seen`: the output's
        files as stat'ed already."""
        config = self.config
        token = cancel.current()
        with Stage(self.output, fresh=fresh, spares=self.spare_files()) as stage:
            def index() -> Indexing | Offloaded:
                started = self.search.start(site, last.files, self.output, fresh,
                                            render_again, seen)
                started.write_into(stage)
                return started

            # A build's update started its search index once the site was assembled; the
            # live server starts it once the edited page is out (it would compete with that
            # page). A fresh build's waits for its pages: their worker processes fill both
            # cores, and with Pagefind's in memory at once the peak would be theirs summed.
            if indexing is not None:
                indexing.write_into(stage)
            try:
                self.progress("copying files", 0, 0)
                files = stage_files(stage, chosen, last.files, self.output, fresh, seen)
                self.progress("deciding stale pages", 0, 0)
                decided = self._decide(site, pages, last, fresh, seen)
                outdated, damaged = decided.outdated, decided.damaged
                # The live server shows the pages of the edited sources first, and the stale
                # pages open in a browser, before anything else is templated. (After an edit
                # of a template or a stylesheet, all pages come together: a page that differs
                # only in its stylesheet's name is not reloaded.)
                watched = self.watched() if early is not None and edited else set()
                own = [p.path for p in pages if p.sources & edited
                       or (p.path in watched and p.path in outdated)] if early is not None else []
                done = self._template(site, own, last, stage, damaged)
                written = {d.path for d in done if d.written}
                # The files beside those pages first (a notebook's new figure), so that
                # none of them shows a picture that is not there yet.
                beside = {posixpath.dirname(path) for path in written}
                stage.publish_now({rel for rel in chosen if posixpath.dirname(rel) in beside})
                shown = stage.publish_now(written)
                if early is not None:  # those pages, or no page but the errors
                    early(shown)
                # What the reader waits for is out: from here on, a newer change cancels the
                # rest of this run (the live server runs it again with that change).
                token.defer()
                token.check()
                if indexing is None and not fresh:
                    indexing = index()
                first = set(own)
                todo = [p for p in pages if p.path in outdated | first]
                self.progress("writing pages", len(first), len(todo))
                done += self._template(site, [p.path for p in todo if p.path not in first],
                                       last, stage, damaged)
                done = self._mend_lost(site, done, entries, last, stage, damaged,
                                       render_again)
                failed = [d for d in done if d.out is None]
                if failed and not self.lenient:
                    error_ = failed[0].error  # in the order pages are planned: posts first
                    assert error_ is not None
                    more = f" (and {len(failed) - 1} more pages)" if len(failed) > 1 else ""
                    raise TemplateError(error_.message + more, file=error_.file, line=error_.line)
                token.check()
                self.progress("indexing for search", 0, 0)
                if indexing is None:
                    indexing = index()
                indexed, self.search_notes = indexing.result()
                files.update(indexed)
                keep = set(chosen) | {p.path for p in pages} | set(indexed)
                keep.discard(MARKER)
                token.check()  # the last moment: after the commit, the state must follow
                self.progress("committing", 0, 0)
                # The check for no change listed the output (a build's first run only: the
                # live server's output changes between runs).
                assert self.sources is not None
                written, removed = stage.commit(keep, self.sources.outputs)
                self.sources.outputs = None
            finally:
                if indexing is not None:
                    indexing.abandon()  # the run failed (at once when it is done)
        self.progress("saving the state", 0, 0)
        state = stale.next_state(last, entries, pages, decided.inputs, decided.closures,
                                 decided.templates, done, files, decided.prints,
                                 decided.values, written, self.output, decided.item_keys,
                                 self._shared_reads)
        self.state = state
        self.site = site
        if self.persist:
            save_state(self.cache_root, state, last)
            prune_states(self.cache_root, state.key)
        stage.finish()
        return BuildReport(
            output=self.output, posts=len(site.posts), pages=len(pages),
            files=len(keep) + 1, seconds=time.perf_counter() - start,
            templated={p.path for p in todo}, base_url=config.base_url,
            written={p.path: p.template for p in pages},
            changed=written, removed=removed, fresh=fresh,
            errors=first_per_place([d.error for d in failed if d.error is not None]),
        )

    def _mend_lost(self, site: Site, done: list[PageDone], entries: dict[str, SourceEntry],
                   last: State, stage: Stage, damaged: set[str],
                   render_again: Callable[[set[str]], None]) -> list[PageDone]:
        """Template again the pages that met a body the render store lost, once the bodies
        are rendered again. A lost body is seldom alone (a deleted or pruned cache, one
        restored in part): every body the store lacks is rendered at once, not one per
        page and round (a feed shows twenty). A page that still lacks one is an error."""
        rendered: set[str] = set()
        for _round in range(3):
            lost = {d.missing for d in done if d.missing is not None} - rendered
            if not lost:
                break
            lost |= self.store.lacks({e.digest for e in entries.values()}) - rendered
            render_again(lost)
            rendered |= lost
            again = self._template(site, [d.path for d in done if d.missing], last, stage,
                                   damaged)
            done = [d for d in done if d.missing is None] + again
        return [d if d.missing is None else replace(d, error=error(
            d.path, 0, "a post this page shows could not be rendered again into the render "
            "cache; build once with --no-cache")) for d in done]

    def _decide(self, site: Site, pages: list[PlannedPage], last: State, fresh: bool,
                seen: Seen) -> _Decided:
        """Which pages to template again, and what the next state records of them."""
        config = self.config
        assert self.sources is not None
        documents: dict[str, Post] = {p.source: p for p in [*site.posts, *site.pages]}
        templates_fp = self.sources.template_files(config)  # read once per run
        names = {page.template for page in pages} | set(ENTRY_TEMPLATES.values())
        if templates_fp == last.templates and names <= set(last.closures):
            closures = last.closures
        else:
            closures = stale.closures(config, names | set(last.closures))
        globals_fp = stale.globals_fingerprint(config, self.extra_head)
        inputs = {p.path: stale.page_inputs(p, closures[p.template], globals_fp,
                                            self.stylesheets) for p in pages}
        changed, prints = stale.changed_posts(documents, last)
        values = stale.Values(site, config, documents, last.values, changed)
        damaged: set[str] = set()

        def unchanged(rel: str) -> bool:
            entry = last.pages.get(rel)
            if entry is None:
                return False
            if not intact(self.output, rel, entry.out, seen):
                damaged.add(rel)
                return False
            return True

        outdated = {p.path for p in pages} if fresh else set(
            stale.stale_pages(pages, inputs, last, values, unchanged))
        item_keys = {function: fingerprint((closures[template], globals_fp))
                     for function, template in ENTRY_TEMPLATES.items()}
        self._items = {function: Items(functools.partial(last.part, STATE_FIELDS[function]),
                                       key, prints, values)
                       for function, key in item_keys.items()}
        return _Decided(templates_fp, closures, inputs, prints, values, outdated, damaged,
                        item_keys)

    def spare_files(self) -> Path | None:
        """Where the writer keeps the output's old files for the next update to write over
        (blogbuild.output.writer.Stage); None without a cache."""
        return self.cache_root / "spare-files" if self.use_cache else None

    def bytecode_dir(self) -> Path | None:
        """Where compiled templates are kept (None without a cache). Jinja folds filters of
        constants (`"/x/" | url`) into the compiled code: what the filters read (the base
        URL, the date format) is part of the folder's name."""
        if not self.use_cache:
            return None
        key = hashlib.sha256(fingerprints.code_fingerprint().encode()
                             + stale.globals_fingerprint(self.config, self.extra_head))
        return self.cache_root / "templates" / key.hexdigest()[:16]

    def _template(self, site: Site, paths: list[str], last: State, stage: Stage,
                  damaged: set[str]) -> list[PageDone]:
        if not paths:
            return []
        previous = {rel: e.out.digest for rel, e in last.pages.items() if rel not in damaged}
        items = [(rel, previous.get(rel)) for rel in paths]
        initargs = (self.config, site, stage.staging, self.extra_head, self.bytecode_dir(),
                    self.stylesheets, self._items)
        done = []
        for n, result in enumerate(run_jobs(items, template_one, init_pages, initargs,
                                            jobs=self.jobs, minimum=PAGE_POOL_MIN), 1):
            done.append(replace(result, deps=share(result.deps, self._shared_reads)))
            if result.written:
                stage.staged.add(result.path)
            self.progress("writing pages", n, len(items))
        return done


def _out_of_the_collectors_way() -> None:
    """A one-run build keeps its records, site and pages until it ends: they are moved out
    of the cycle collector's way (they hold no cycles to find). Otherwise every full
    collection that the templating's and the search index's short-lived objects set off
    goes through all of them again: 34 s of a 5,000-post clean build's 170 s. (No
    collection first: it would cost an edit's build tens of milliseconds; `close` puts
    them back, for a process that builds again.)"""
    gc.freeze()


@dataclass
class _Decided:
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


__all__ = ["BuildReport", "Engine"]
