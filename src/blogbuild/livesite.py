"""The site kept in memory by the live server, and the pages one change makes stale.

A post edit re-renders that post only and puts it into the `Site` in place when it keeps its
place (same URL, title, date, tags); otherwise the site is assembled again, unchanged posts
keeping their HTML (those whose links point at a moved post were rendered again, see
`LiveBuild._content`). Then exactly the output pages that read an attribute whose value
changed (`blogbuild.pagedeps` records those reads while pages render) are rendered again, and
only those whose bytes differ are written.
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jinja2

from blogbuild.claims import Claims, Owner
from blogbuild.commands.build import Builder
from blogbuild.config import Config
from blogbuild.content.models import Post, Site
from blogbuild.diagnostics import BlogbuildError, Diagnostic, error
from blogbuild.livewriter import LiveWriter, digest
from blogbuild.outputs import PlannedPage, page_owner, plan
from blogbuild.pagedeps import DepIndex, Tracker, shape
from blogbuild.render import RenderResult, SourceJob
from blogbuild.site import assemble, resolve_refs
from blogbuild.templating import render_template
from blogbuild.writer import BUNDLES, bundle_files

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


def _bundle_needs(site: Site) -> set[str]:
    return {n for p in [*site.posts, *site.pages] for n in p.needs} & set(BUNDLES)


class LiveSite:
    """The assembled site, its planned pages and what each page read when it was rendered."""

    def __init__(self, config: Config, output: Path, drafts: bool) -> None:
        self.config = config
        self.output = output.resolve()
        self.drafts = drafts
        self.writer = LiveWriter(self.output)
        self.tracker = Tracker()
        self.builder: Builder | None = None  # holds the render results (last good ones)
        self.broken: dict[str, Broken] = {}
        self.global_errors: list[Diagnostic] = []
        self.page_errors: dict[str, Diagnostic] = {}
        self.site: Site | None = None
        self.env: jinja2.Environment | None = None
        self.pages: dict[str, PlannedPage] = {}
        self.shapes: dict[str, Any] = {}
        self.digests: dict[str, bytes] = {}
        self.deps = DepIndex()
        self.known: set[str] = set()  # every file of the output (for link checks)
        self.static_paths: set[str] = set()  # those that are not pages
        self.static_owners: dict[str, Owner] = {}  # who wrote each of them (collision messages)
        self.jobs: dict[str, SourceJob] = {}
        self.assets: dict[str, Path] = {}
        self.stale: set[str] = set()  # pages not rewritten because of an error

    @property
    def results(self) -> dict[str, RenderResult]:
        return self.builder.results if self.builder is not None else {}

    @property
    def errors(self) -> list[Diagnostic]:
        found = [d for b in self.broken.values() for d in b.diagnostics]
        return sorted({*found, *self.global_errors, *self.page_errors.values()})

    def render_page(self, env: jinja2.Environment, page: PlannedPage) -> tuple[str, Any]:
        self.tracker.install(env)
        self.tracker.start()
        try:
            text = render_template(env, page.template, url_path=page.url, **page.context)
        finally:
            deps = self.tracker.stop()
        return text, deps

    def update_site(self, fresh: dict[str, RenderResult], removed: set[str], update: Update,
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
        """Assemble the site again; the link checks run again only where they may differ."""
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
            diagnostics += self._collisions(pages)
            known = self.static_paths | {p.path for p in pages}
            new_urls = _url_map(site)
            redo: set[str] = set()
            for doc in [*site.posts, *site.pages]:
                old = old_docs.get(doc.source)
                refs = results[doc.source].rendered
                assert refs is not None
                stable = old is not None and doc.source not in fresh and all(
                    old_urls.get(r.rel) == new_urls.get(r.rel)
                    if r.rel is not None else known == self.known
                    for r in refs.refs)
                if not stable:
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

    def _collisions(self, pages: list[PlannedPage]) -> list[Diagnostic]:
        """Pages against the other files of the output, in the registry the full build uses
        (a post whose new slug lands on a static file is an error, not an overwrite)."""
        claims = Claims()
        for rel in sorted(self.static_paths):
            claims.claim(rel, self.static_owners.get(rel, Owner(rel, rel)))
        for page in pages:
            claims.claim(page.path, page_owner(page))
        return claims.problems

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
