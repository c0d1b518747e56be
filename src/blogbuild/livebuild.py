"""The live server's build: one full build, then per batch of changes only what they touch.

A post edit re-reads and re-renders that file only, puts the new post into the `Site` kept
in memory, and re-renders the output pages that read an attribute of it whose value changed
(`blogbuild.pagedeps` records those reads). A template or config change rebuilds everything
through `Builder`. A broken source never stops the server: it is reported and its last good
version stays in the site.
"""

from __future__ import annotations

import copy
import dataclasses
import logging
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jinja2

from blogbuild.commands.build import Builder
from blogbuild.config import CONFIG_NAME, load_config
from blogbuild.content.discover import discover
from blogbuild.content.models import Post, Site
from blogbuild.diagnostics import BlogbuildError, BuildFailed, Diagnostic, error
from blogbuild.livewriter import LiveWriter, digest
from blogbuild.markdown.links import MARKER
from blogbuild.outputs import PlannedPage, plan
from blogbuild.pagedeps import DepIndex, Tracker, shape
from blogbuild.pool import render_all
from blogbuild.render import RenderResult, SourceJob, digest_of, render_source
from blogbuild.site import assemble, resolve_refs
from blogbuild.templating import render_template
from blogbuild.theme import theme_static
from blogbuild.writer import BUNDLES, bundle_files

log = logging.getLogger("blogbuild.serve")

#: Post attributes that place a post in the site; when one changes the site is re-assembled.
_PLACEMENT = ("kind", "url", "slug", "title", "date", "tags")


@dataclass
class Update:
    """What one batch of changes did to the output folder (paths relative to it)."""

    written: set[str] = field(default_factory=set)
    removed: set[str] = field(default_factory=set)
    full: bool = False  # a full rebuild: any page may have changed
    errors: list[Diagnostic] = field(default_factory=list)
    warnings: list[Diagnostic] = field(default_factory=list)
    rendered: int = 0  # sources rendered
    pages: int = 0  # pages rendered (written or found unchanged)
    seconds: float = 0.0

    @property
    def css_only(self) -> bool:
        return (not self.full and not self.removed and bool(self.written)
                and all(p.endswith(".css") for p in self.written))


@dataclass(frozen=True)
class Broken:
    digest: str  # of the source bytes that produced the errors
    diagnostics: tuple[Diagnostic, ...]


def errors_of(result: RenderResult) -> list[Diagnostic]:
    if not result.ok:
        return list(result.diagnostics) or [error(result.job.display, 0, "cannot render")]
    return [d for d in result.diagnostics if d.is_error]


def _documents(site: Site) -> dict[str, Post]:
    return {p.source: p for p in [*site.posts, *site.pages]}


def _url_map(site: Site) -> dict[str, str]:
    return {**site.assets, **{p.source: p.url for p in [*site.posts, *site.pages]}}


class ServeBuilder(Builder):
    """`Builder` whose full builds skip broken sources (their last good result stays) and
    record, for every page, what it read (so later changes re-render only what they touch)."""

    def __init__(self, live: LiveBuild) -> None:
        super().__init__(live.config, output=live.output, drafts=live.drafts,
                         extra_head=live.extra_head)
        self.live = live
        self.fallback: dict[str, RenderResult] = {}
        self.jobs: dict[str, SourceJob] = {}
        self.assets: list[tuple[Path, str]] = []
        self.reset()

    def reset(self) -> None:
        self.env: jinja2.Environment | None = None
        self.planned: dict[str, PlannedPage] = {}
        self.deps = DepIndex()
        self.digests: dict[str, bytes] = {}
        self.shapes: dict[str, Any] = {}
        self.writer: Any = None

    def render_sources(self) -> tuple[dict[str, RenderResult], list[tuple[Path, str]], int, int]:
        results, assets, rendered, cached = super().render_sources()
        self.jobs = {rel: r.job for rel, r in results.items()}
        self.assets = list(assets)
        good = self.live.keep_good(results, self.fallback)
        self.results = good
        return good, assets, rendered, cached

    def write_page(self, writer: Any, env: object, page: PlannedPage) -> None:
        assert isinstance(env, jinja2.Environment)
        self.env = env
        text, deps = self.live.render_page(env, page)
        writer.write_text(page.path, text, page.template + " " + page.url)
        self.planned[page.path] = page
        self.deps.record(page.path, deps)
        self.digests[page.path] = digest(text.encode("utf-8"))
        self.shapes[page.path] = (page.template, page.url, shape(page.context))
        self.writer = writer

    @property
    def owners(self) -> set[str]:
        """Every file the last build wrote (pages, static files, assets, bundles)."""
        return set(self.writer.owners) if self.writer is not None else set()


class LiveBuild:
    """The site in memory and the output folder it was last written to."""

    def __init__(self, config_path: Path | str | None, *, output: Path, drafts: bool = True,
                 base_url: str | None = None, extra_head: str = "") -> None:
        self.base_url = base_url
        path = Path(config_path) if config_path is not None else Path(CONFIG_NAME)
        self.config_path = (path / CONFIG_NAME if path.is_dir() else path).resolve()
        self.config = load_config(self.config_path, base_url=base_url)
        self.output = output.resolve()
        self.drafts = drafts
        self.extra_head = extra_head
        self.writer = LiveWriter(self.output)
        self.tracker = Tracker()
        self.broken: dict[str, Broken] = {}
        self.global_errors: list[Diagnostic] = []
        self.page_errors: dict[str, Diagnostic] = {}
        self.needs_full = True
        self.builder: ServeBuilder | None = None
        self.site: Site | None = None
        self.env: jinja2.Environment | None = None
        self.pages: dict[str, PlannedPage] = {}
        self.shapes: dict[str, Any] = {}
        self.digests: dict[str, bytes] = {}
        self.deps = DepIndex()
        self.known: set[str] = set()
        self.static_paths: set[str] = set()
        self.jobs: dict[str, SourceJob] = {}
        self.assets: dict[str, Path] = {}
        self.stale: set[str] = set()  # pages not rewritten because of an error

    # -- state ---------------------------------------------------------------------------

    @property
    def results(self) -> dict[str, RenderResult]:
        return self.builder.results if self.builder is not None else {}

    @property
    def errors(self) -> list[Diagnostic]:
        found = [d for b in self.broken.values() for d in b.diagnostics]
        return sorted({*found, *self.global_errors, *self.page_errors.values()})

    @property
    def base_path(self) -> str:
        return self.config.urls.base_path

    def keep_good(self, results: dict[str, RenderResult],
                  fallback: dict[str, RenderResult]) -> dict[str, RenderResult]:
        """Results without errors; a broken source keeps its last good result, if any."""
        good: dict[str, RenderResult] = {}
        for rel, result in results.items():
            errors = errors_of(result)
            blocked = self.broken.get(rel)
            if errors:
                self.broken[rel] = Broken(result.digest, tuple(errors))
            elif blocked is None or blocked.digest != result.digest:
                self.broken.pop(rel, None)
                good[rel] = result
                continue
            last = fallback.get(rel)
            if last is not None and not errors_of(last):
                good[rel] = last
        for rel in set(self.broken) - set(results):
            del self.broken[rel]
        return good

    def render_page(self, env: jinja2.Environment, page: PlannedPage) -> tuple[str, Any]:
        self.tracker.install(env)
        self.tracker.start()
        try:
            text = render_template(env, page.template, url_path=page.url, **page.context)
        finally:
            deps = self.tracker.stop()
        return text, deps

    # -- full build ----------------------------------------------------------------------

    def full(self) -> Update:
        """Build everything into a fresh folder swapped in; errors leave the old one served."""
        start = time.perf_counter()
        previous = dict(self.results)
        update = Update(full=True)
        for _ in range(8):
            builder = ServeBuilder(self)
            builder.results = dict(previous)
            builder.fallback = previous
            try:
                report = builder.build()
            except BuildFailed as exc:
                if self._block(builder, exc.diagnostics):
                    continue  # retry without the sources the errors name
                self._fail([d for d in exc.diagnostics if d.is_error], update)
                break
            except BlogbuildError as exc:
                self._fail([error(exc.file or "", exc.line, exc.message)], update)
                break
            self._adopt(builder)
            update.rendered = report.rendered
            update.pages = len(self.pages)
            update.warnings = [d for d in report.diagnostics if not d.is_error]
            break
        update.errors = self.errors
        update.seconds = time.perf_counter() - start
        return update

    def _block(self, builder: ServeBuilder, diagnostics: Iterable[Diagnostic]) -> bool:
        """Mark the sources named by error diagnostics as broken; False if none is new."""
        by_display = {r.job.display: rel for rel, r in builder.results.items()}
        found: dict[str, list[Diagnostic]] = {}
        for diagnostic in diagnostics:
            if not diagnostic.is_error:
                continue
            rel = by_display.get(diagnostic.file)
            if rel is None or rel in self.broken:
                return False
            found.setdefault(rel, []).append(diagnostic)
        for rel, found_diagnostics in found.items():
            self.broken[rel] = Broken(builder.results[rel].digest, tuple(found_diagnostics))
        return bool(found)

    def _fail(self, errors: list[Diagnostic], update: Update) -> None:
        self.global_errors = errors
        self.needs_full = True
        update.full = False
        if self.site is None:  # nothing good to show yet: a page that carries the overlay
            page = (f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
                    f"<title>Build failed</title>{self.extra_head}</head><body>"
                    "<p>The first build failed. Fix the error and save: this page reloads "
                    "by itself.</p></body></html>\n").encode()
            for rel in ("index.html", "404.html"):
                self.writer.write_bytes(rel, page)
                update.written.add(rel)

    def _adopt(self, builder: ServeBuilder) -> None:
        assert builder.site is not None and builder.env is not None
        self.builder = builder
        self.site = builder.site
        self.env = builder.env
        self.pages = builder.planned
        self.shapes = builder.shapes
        self.digests = builder.digests
        self.deps = builder.deps
        self.known = builder.owners
        self.static_paths = self.known - set(builder.planned)
        self.jobs = builder.jobs
        self.assets = {rel: path for path, rel in builder.assets}
        self.global_errors = []
        self.page_errors = {}
        self.stale = set()
        self.needs_full = False

    # -- incremental ---------------------------------------------------------------------

    def apply(self, paths: Iterable[Path],
              publish: Callable[[Update], None] | None = None) -> Update:
        """Bring the output up to date with changed files; `publish` gets early results."""
        start = time.perf_counter()
        root = self.config.root
        content = self.config.content_path.resolve()
        static, docs = set(), False
        config_changed = templates_changed = False
        for path in {Path(p).resolve() for p in paths}:
            if path == self.config_path.resolve():
                config_changed = True
            elif path.is_relative_to(root / "templates"):
                templates_changed = True
            elif path.is_relative_to(root / "static"):
                static.add(path.relative_to(root / "static").as_posix())
            elif path.is_relative_to(content):
                docs = True
        if config_changed:
            try:
                self.config = load_config(self.config_path, base_url=self.base_url)
            except BlogbuildError as exc:
                update = Update(errors=[error(exc.file or str(self.config_path), exc.line,
                                              exc.message)])
                self.global_errors = update.errors
                self.needs_full = True
                return update
            return self.full()
        if templates_changed or self.needs_full:
            return self.full()
        update = Update()
        if static and not self._static(static, update):
            return self.full()
        if docs:
            changed = {p for p in {Path(p).resolve() for p in paths}
                       if p.is_relative_to(content)}
            if not self._content(changed, update, publish):
                return self.full()
        update.errors = self.errors
        update.seconds = time.perf_counter() - start
        return update

    def _static(self, rels: set[str], update: Update) -> bool:
        """Copy changed static files; False when files appeared or vanished (full build)."""
        site_static = self.config.root / "static"
        for rel in sorted(rels):
            if any(part.startswith(".") or part.endswith("~") for part in rel.split("/")):
                continue
            source = next((d / rel for d in (site_static, theme_static())
                           if (d / rel).is_file()), None)
            if rel not in self.static_paths:
                if source is not None:
                    return False
                continue
            if source is None:
                return False
            if self.writer.copy(rel, source):
                update.written.add(rel)
        return True

    def _content(self, changed: set[Path], update: Update,
                 publish: Callable[[Update], None] | None) -> bool:
        config = self.config
        content = config.content_path.resolve()
        rels = {p.relative_to(content).as_posix() for p in changed}
        if all((rel in self.jobs or rel in self.assets) and (content / rel).is_file()
               for rel in rels):
            jobs, assets = self.jobs, self.assets  # only edits: no need to walk the tree
        else:
            found = discover(config.content_path, config.root)
            jobs = {job.rel: job for job in found.documents}
            assets = {rel: path for path, rel in found.assets}
            if set(assets) != set(self.assets):
                return False
        assert self.site is not None
        for rel in sorted(rels & set(assets)):
            target = config.urls.output_path(self.site.assets[rel])
            if self.writer.copy(target, assets[rel]):
                update.written.add(target)
        todo = []
        unreadable = []
        for rel in sorted((rels & set(jobs)) | (set(jobs) - set(self.jobs))):
            job = jobs[rel]
            try:
                data = job.path.read_bytes()
            except OSError:
                unreadable.append(render_source(job, config))  # reports the read error
                continue
            fingerprint = digest_of(data, config)
            current = self.results.get(rel)
            blocked = self.broken.get(rel)
            if blocked is not None and blocked.digest == fingerprint:
                continue
            if blocked is None and current is not None and current.digest == fingerprint:
                continue
            todo.append((job, data, fingerprint))
        removed = set(self.jobs) - set(jobs)
        self.jobs = jobs
        fresh: dict[str, RenderResult] = {}
        for result in [*unreadable, *render_all(todo, config)]:
            update.rendered += 1
            update.warnings += [d for d in result.diagnostics if not d.is_error]
            errors = errors_of(result)
            if errors:
                self.broken[result.job.rel] = Broken(result.digest, tuple(errors))
                continue
            self.broken.pop(result.job.rel, None)
            if self.builder is not None:
                self.builder.cache.put(result)
            fresh[result.job.rel] = result
        for rel in removed:
            self.broken.pop(rel, None)
        removed &= set(self.results)
        if fresh or removed:
            self._update_site(fresh, removed, update, publish)
        return True

    def _update_site(self, fresh: dict[str, RenderResult], removed: set[str], update: Update,
                     publish: Callable[[Update], None] | None) -> None:
        assert self.site is not None
        old_docs = _documents(self.site)
        old_needs = _bundle_needs(self.site)
        placed = None if removed else self._placed(fresh, old_docs)
        if placed is not None and len(placed) == len(fresh):
            changed = self._splice(fresh, placed, old_docs, update)
            site_changed = False
        else:
            changed = self._reassemble(fresh, removed, old_docs, update)
            site_changed = True
        self._sync_bundles(old_needs, _bundle_needs(self.site))
        self._write_pages(changed, set(fresh), site_changed, update, publish)

    def _sync_bundles(self, old: set[str], new: set[str]) -> None:
        """Copy a vendored runtime when the first page needs it, drop it after the last."""
        for need in sorted(new - old):
            for source, rel in bundle_files(need):
                self.writer.copy(rel, source)
                self.static_paths.add(rel)
        for need in sorted(old - new):
            for _, rel in bundle_files(need):
                self.writer.remove(rel)
                self.static_paths.discard(rel)
        self.known = self.static_paths | set(self.pages)

    def _placed(self, fresh: dict[str, RenderResult],
                old_docs: dict[str, Post]) -> dict[str, Post] | None:
        """New posts for `fresh`, if each keeps its place in the site (same URL, title, …)."""
        out: dict[str, Post] = {}
        for rel, result in fresh.items():
            old = old_docs.get(rel)
            if old is None:
                return None
            alone, _ = assemble([result], [], self.config, drafts=self.drafts)
            new = next(iter([*alone.posts, *alone.pages]), None)
            if new is None or any(getattr(new, a) != getattr(old, a) for a in _PLACEMENT):
                return None
            out[rel] = new
        return out

    def _splice(self, fresh: dict[str, RenderResult], placed: dict[str, Post],
                old_docs: dict[str, Post], update: Update,
                ) -> dict[str, tuple[Post | None, Post | None]]:
        """Copy each new post into the old Post object: lists, tags and plan stay valid."""
        site = self.site
        assert site is not None
        changed: dict[str, tuple[Post | None, Post | None]] = {}
        for rel, new in placed.items():
            result = fresh[rel]
            view = dataclasses.replace(
                site,
                posts=[new if p.source == rel else p for p in site.posts],
                pages=[new if p.source == rel else p for p in site.pages],
            )
            diagnostics = resolve_refs(view, {**self.results, rel: result}, self.known,
                                       self.config, only={rel})
            errors = [d for d in diagnostics if d.is_error]
            update.warnings += [d for d in diagnostics if not d.is_error]
            if errors:  # the last good version stays
                self.broken[rel] = Broken(result.digest, tuple(errors))
                continue
            assert self.builder is not None
            self.builder.results[rel] = result
            old = old_docs[rel]
            before = copy.copy(old)
            for f in dataclasses.fields(Post):
                if f.name not in ("previous", "next"):
                    setattr(old, f.name, getattr(new, f.name))
            changed[rel] = (before, old)
        return changed

    def _reassemble(self, fresh: dict[str, RenderResult], removed: set[str],
                    old_docs: dict[str, Post], update: Update,
                    ) -> dict[str, tuple[Post | None, Post | None]]:
        """Assemble the site again; unchanged posts keep their resolved HTML."""
        assert self.site is not None and self.builder is not None
        results = self.builder.results
        previous = {rel: results[rel] for rel in [*fresh, *removed] if rel in results}
        results.update(fresh)
        for rel in removed:
            results.pop(rel, None)
        old_urls = _url_map(self.site)
        for _ in range(len(fresh) + 1):
            site, diagnostics = assemble(results.values(), sorted(self.assets), self.config,
                                         drafts=self.drafts)
            pages = list(plan(site, self.config))
            known = self.static_paths | {p.path for p in pages}
            new_urls = _url_map(site)
            redo: set[str] = set()
            for doc in [*site.posts, *site.pages]:
                old = old_docs.get(doc.source)
                refs = results[doc.source].rendered
                assert refs is not None
                stable = old is not None and doc.source not in fresh and all(
                    old_urls.get(_ref_path(r.target)) == new_urls.get(_ref_path(r.target))
                    if r.target.startswith(MARKER) else known == self.known
                    for r in refs.refs)
                if stable and old is not None:
                    doc.html = old.html
                else:
                    redo.add(doc.source)
            diagnostics += resolve_refs(site, results, known, self.config, only=redo)
            by_display = {r.job.display: rel for rel, r in results.items()}
            bad: dict[str, list[Diagnostic]] = {}
            for d in diagnostics:
                if d.is_error:
                    bad.setdefault(by_display.get(d.file, ""), []).append(d)
            retry = {rel for rel in bad if rel in fresh and results[rel] is fresh[rel]}
            if not retry:
                self.global_errors = [d for rel, ds in bad.items() if rel not in fresh
                                      for d in ds]
                break
            for rel in retry:  # fall back to the last good version and assemble again
                self.broken[rel] = Broken(fresh[rel].digest, tuple(bad[rel]))
                if rel in previous:
                    results[rel] = previous[rel]
                else:
                    results.pop(rel)
        shown = {results[rel].job.display for rel in fresh if rel in results}
        update.warnings += [d for d in diagnostics if not d.is_error and d.file in shown]
        new_docs = _documents(site)
        changed: dict[str, tuple[Post | None, Post | None]] = {}
        for source in old_docs.keys() | new_docs.keys():
            old, new = old_docs.get(source), new_docs.get(source)
            if (old is None or new is None or source in fresh or source in redo
                    or shape(old.previous) != shape(new.previous)
                    or shape(old.next) != shape(new.next)):
                changed[source] = (old, new)
        self.site = site
        self.known = known
        assert self.env is not None
        self.env.globals["site"] = site
        self.builder.site = site
        return changed

    def _write_pages(self, changed: dict[str, tuple[Post | None, Post | None]],
                     fresh: set[str], site_changed: bool, update: Update,
                     publish: Callable[[Update], None] | None) -> None:
        assert self.site is not None and self.env is not None
        pages = {p.path: p for p in plan(self.site, self.config)}
        todo = set(self.stale) | self.deps.affected(changed, site_changed)
        if site_changed:
            suspects = set(pages)
        else:  # only the contexts that hold a changed post can differ (e.g. its `needs`)
            suspects = self.deps.sources_pages(changed) | {
                path for path, page in pages.items() if page.sources & changed.keys()}
        shapes = dict(self.shapes)
        for path in suspects & set(pages):
            page = pages[path]
            shapes[path] = (page.template, page.url, shape(page.context))
            if path not in self.pages or shapes[path] != self.shapes.get(path):
                todo.add(path)
        todo &= set(pages)
        for path in set(self.pages) - set(pages):
            self.writer.remove(path)
            self.deps.forget(path)
            self.digests.pop(path, None)
            self.page_errors.pop(path, None)
            shapes.pop(path, None)
            update.removed.add(path)
        self.pages = pages
        self.shapes = shapes
        self.known = self.static_paths | set(pages)
        self.stale = set()
        own = {p for p in todo if pages[p].sources & fresh}
        for path in sorted(own):  # the edited pages first: their reload event goes out now
            self._write_page(pages[path], update)
        if publish is not None and update.written:
            publish(dataclasses.replace(update, written=set(update.written),
                                        removed=set(update.removed), errors=self.errors))
        for path in sorted(todo - own):
            self._write_page(pages[path], update)

    def _write_page(self, page: PlannedPage, update: Update) -> None:
        assert self.env is not None
        update.pages += 1
        try:
            text, deps = self.render_page(self.env, page)
        except BlogbuildError as exc:
            self.page_errors[page.path] = error(exc.file or page.template, exc.line, exc.message)
            self.stale.add(page.path)
            return
        self.page_errors.pop(page.path, None)
        self.deps.record(page.path, deps)
        data = text.encode("utf-8")
        fingerprint = digest(data)
        if fingerprint != self.digests.get(page.path):
            self.writer.write_bytes(page.path, data)
            self.digests[page.path] = fingerprint
            update.written.add(page.path)


def _bundle_needs(site: Site) -> set[str]:
    return {n for p in [*site.posts, *site.pages] for n in p.needs} & set(BUNDLES)


def _ref_path(target: str) -> str:
    return target[len(MARKER):].split("#")[0].split("?")[0]
