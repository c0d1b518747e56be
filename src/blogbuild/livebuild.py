"""The live server's build: one full build, then per batch of changes only what they touch.

A template or config change rebuilds everything through `Builder`; a changed static file is
copied; a changed post goes through `LiveSite` (only it is rendered, only the pages that show
something that changed are written). A broken source never stops the server: it is
reported and its last good version stays in the site.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import jinja2

from blogbuild.commands.build import Builder
from blogbuild.config import CONFIG_NAME, load_config
from blogbuild.content.discover import discover
from blogbuild.diagnostics import BlogbuildError, BuildFailed, Diagnostic, error
from blogbuild.linkmap import DocumentInfo, LinkMap, build_link_map, read_info
from blogbuild.livesite import Broken, LiveSite, Update, errors_of
from blogbuild.livewriter import digest
from blogbuild.outdir import MARKER, MARKER_TEXT, check_output
from blogbuild.outputs import PlannedPage, page_owner
from blogbuild.pagedeps import DepIndex, shape
from blogbuild.pool import render_all
from blogbuild.render import RenderResult, SourceJob, digest_of, render_source
from blogbuild.theme import theme_static

log = logging.getLogger("blogbuild.serve")

__all__ = ["LiveBuild", "ServeBuilder", "Update"]


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
        writer.write_text(page.path, text, page_owner(page))
        self.planned[page.path] = page
        self.deps.record(page.path, deps)
        self.digests[page.path] = digest(text.encode("utf-8"))
        self.shapes[page.path] = (page.template, page.url, shape(page.context))
        self.writer = writer

    @property
    def owners(self) -> set[str]:
        """Every file the last build wrote (pages, static files, assets, bundles)."""
        return set(self.writer.owners) if self.writer is not None else set()


class LiveBuild(LiveSite):
    """The site in memory and the output folder it was last written to."""

    def __init__(self, config_path: Path | str | None, *, output: Path, drafts: bool = True,
                 base_url: str | None = None, extra_head: str = "") -> None:
        self.base_url = base_url
        path = Path(config_path) if config_path is not None else Path(CONFIG_NAME)
        self.config_path = (path / CONFIG_NAME if path.is_dir() else path).resolve()
        super().__init__(load_config(self.config_path, base_url=base_url), output, drafts)
        # Refuse a dangerous output folder now: a failed first build writes its error page
        # there, and that must never land among the sources.
        check_output(output, self.config, option="--output")
        self.extra_head = extra_head
        self.needs_full = True

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
            self.writer.write_bytes(MARKER, MARKER_TEXT.encode())  # the next build replaces it
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
        self.static_owners = {rel: owner for rel, owner in builder.writer.owners.items()
                              if rel in self.static_paths}
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
        for path in {_located(p) for p in paths}:
            if path.resolve() == self.config_path.resolve():
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
            changed = {p for p in {_located(p) for p in paths}
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
            if source is None or source.is_symlink():
                return False  # the full build's walker decides whether a link is followed
            if self.writer.copy(rel, source):
                update.written.add(rel)
        return True

    def _links(self, todo: list[tuple[SourceJob, bytes, str]], jobs: dict[str, SourceJob],
               assets: dict[str, Path], removed: set[str]) -> LinkMap:
        """The link map after these edits; adds to `todo` every unchanged post whose links
        point at a document or file whose URL moved (its HTML holds the old URL)."""
        fresh = {job.rel: (job, data) for job, data, _ in todo}
        infos = []
        for rel, job in jobs.items():
            if rel in fresh:
                info = read_info(rel, job.kind, job.display, fresh[rel][1], job.path.stem)
            else:
                last = self.results.get(rel)
                meta = last.meta if last is not None else None
                info = DocumentInfo(rel, job.kind, meta) if meta is not None else None
            if info is not None:
                infos.append(info)
        links = build_link_map(infos, sorted(assets), self.config, drafts=self.drafts)
        for rel, result in sorted(self.results.items()):
            if rel in fresh or rel in removed or rel not in jobs or result.rendered is None:
                continue
            if not links.still_valid(result.rendered.resolved):
                job = jobs[rel]
                try:
                    data = job.path.read_bytes()
                except OSError:
                    continue  # the watcher reports the file when it changes
                todo.append((job, data, digest_of(data, self.config)))
        if self.builder is not None:
            self.builder.links = links
        return links

    def _content(self, changed: set[Path], update: Update,
                 publish: Callable[[Update], None] | None) -> bool:
        config = self.config
        content = config.content_path.resolve()
        rels = {p.relative_to(content).as_posix() for p in changed}
        if all((rel in self.jobs or rel in self.assets) and (content / rel).is_file()
               and not (content / rel).is_symlink() for rel in rels):
            jobs, assets = self.jobs, self.assets  # only edits: no need to walk the tree
        else:
            found = discover(config.content_path, config.root)
            jobs = {job.rel: job for job in found.documents}
            assets = {rel: path for path, rel in found.assets}
            if set(assets) != set(self.assets) or any((content / r).is_symlink() for r in rels):
                return False  # the full build walks the tree, and reports what it skips
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
        links = self._links(todo, jobs, assets, removed)
        fresh: dict[str, RenderResult] = {}
        for result in [*unreadable, *render_all(todo, config, links=links)]:
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
            self.update_site(fresh, removed, update, publish)
        return True


def _located(path: Path | str) -> Path:
    """Where a changed entry is, its folder resolved but not the entry itself: a file
    swapped for a link out of the site is a change inside the site."""
    path = Path(path)
    return path.parent.resolve() / path.name
