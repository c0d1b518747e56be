"""The live server's side of the build: the one engine, run after every batch of changes.

The engine keeps what it knows in memory between runs, so a saved post costs its render
and the pages that show what changed. Before the run, the page of an edited post is
written from what the last run knew (blogbuild.serve.edited), so the browser need not wait
for the run. Runs are lenient: a broken source keeps its last good version, a broken page
its last file, and the errors go to the browser's overlay.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path

from blogbuild.cancel import NEVER, Cancelled, Token, scope
from blogbuild.config import CONFIG_NAME, Config, load_config
from blogbuild.content.jobs import SourceJob
from blogbuild.content.models import Site
from blogbuild.diagnostics import BlogbuildError, Diagnostic, error
from blogbuild.fingerprints import digest_of
from blogbuild.output.outdir import check_output
from blogbuild.output.writer import write_now
from blogbuild.pipeline.engine import Engine
from blogbuild.pipeline.quick import Sources
from blogbuild.serve.edited import EditedPages

__all__ = ["LiveBuild", "Update"]

log = logging.getLogger("blogbuild.serve")

#: Batches of more edited posts than this leave their pages to the run, which templates them
#: in parallel (a search and replace over many posts).
AHEAD_MAX = 3


@dataclass
class Update:
    """What one batch of changes did to the output folder (paths relative to it)."""

    written: set[str] = field(default_factory=set)
    removed: set[str] = field(default_factory=set)
    full: bool = False  # the output folder was made anew: any page may have changed
    errors: list[Diagnostic] = field(default_factory=list)
    warnings: list[Diagnostic] = field(default_factory=list)
    rendered: int = 0  # sources rendered
    pages: int = 0  # pages templated (written or found unchanged)
    seconds: float = 0.0
    #: Old -> new path of each page stylesheet a batch of stylesheet edits renamed; the
    #: pages written then differ only in that link, and a browser can swap it in place.
    restyled: dict[str, str] = field(default_factory=dict)
    #: What ran at build time (BuildReport.execution_lines).
    executed: list[str] = field(default_factory=list)
    #: The run was cancelled (a newer change, or the server stops): nothing after its
    #: early pages was written; the next run does its changes again.
    cancelled: bool = False


class StepTimes:
    """The engine's progress as debug lines: how long each step of a run took."""

    def __init__(self) -> None:
        self.phase = ""
        self.since = 0.0

    def __call__(self, phase: str, done: int, total: int) -> None:
        if phase != self.phase:
            self.end()
            self.phase, self.since = phase, time.perf_counter()

    def end(self) -> None:
        if self.phase:
            log.debug("  %s: %.0f ms", self.phase, (time.perf_counter() - self.since) * 1000)
        self.phase = ""


class LiveBuild:
    """The site being served: its config, its engine and the errors of the last run."""

    def __init__(self, config_path: Path | str | None, *, output: Path, drafts: bool = True,
                 base_url: str | None = None, extra_head: str = "",
                 watched: Callable[[], set[str]] = set) -> None:
        self.base_url = base_url
        self.watched = watched  # the pages open in a browser (output paths)
        path = Path(config_path) if config_path is not None else Path(CONFIG_NAME)
        self.config_path = (path / CONFIG_NAME if path.is_dir() else path).resolve()
        self.config: Config = load_config(self.config_path, base_url=base_url)
        self.output = output.resolve()
        # Refuse a dangerous output folder now: a failed first build writes its error page
        # there, and that must never land among the sources.
        check_output(self.output, self.config, option="--output")
        self.drafts = drafts
        self.extra_head = extra_head
        self.engine: Engine | None = None
        self.errors: list[Diagnostic] = []
        self.needs_full = True
        self.pages: set[str] = set()  # the output paths of pages (not copied files)
        #: Changes of runs that were cancelled: done again with the next batch.
        self.unsettled: set[Path] = set()
        self.steps = StepTimes()
        self.edited = EditedPages()

    @property
    def base_path(self) -> str:
        return self.config.urls.base_path

    @property
    def site(self) -> Site | None:
        last = self.engine.last if self.engine is not None else None
        return last.site if last is not None else None

    @property
    def jobs(self) -> list[SourceJob]:
        last = self.engine.last if self.engine is not None else None
        return [e.result.job for e in last.entries.values()] if last is not None else []

    def full(self, token: Token = NEVER) -> Update:
        """Run with a new engine (what the last run knew is forgotten)."""
        if self.engine is not None:
            self.engine.close()
        self.edited = EditedPages()
        self.engine = Engine(self.config, output=self.output, drafts=self.drafts,
                             lenient=True, extra_head=self.extra_head, option="--output",
                             persist=False,  # its state lives in memory, with the server
                             progress=self.steps)
        self.engine.watched = self.watched
        return self._run(None, token=token)

    def write_ahead(self, changed: Iterable[Path], erring: Collection[str] = ()) -> set[str]:
        """Write the pages of the edited posts before the run, when every changed file is
        a post or page the last run showed (blogbuild.serve.edited); their output paths.
        `erring`: the files whose errors the browser shows (the run shows their fix)."""
        engine = self.engine
        sources = engine.context.sources if engine is not None else None
        if engine is None or self.needs_full or sources is None:
            return set()
        start = time.perf_counter()
        documents = {str(item.job.path): rel for rel, item in sources.items.items()}
        rels = set()
        for changed_path in changed:
            path = _located(changed_path)
            rel = documents.get(str(path))
            if rel is None or path.is_symlink() or not path.is_file():
                return set()
            rels.add(rel)
        if len(rels) > AHEAD_MAX:
            return set()
        written = set()
        for rel in sorted(rels):
            page = self.edited.write(engine, rel, erring)
            if page is not None:
                written.add(page)
        log.debug("  pages written ahead of the run after %.0f ms: %s",
                  (time.perf_counter() - start) * 1000, ", ".join(sorted(written)) or "none")
        return written

    def apply(self, changed: Iterable[Path],
              publish: Callable[[Update], None] | None = None,
              token: Token = NEVER) -> Update:
        """Bring the output up to date after `changed` changed; `publish` gets the pages
        of the edited sources (and the errors) as soon as they are written, before the
        listings. Once they are out, `token` going stale cancels the rest: the changes are
        kept in `unsettled` and done again by the next call."""
        fresh = set(map(Path, changed))
        paths = {*fresh, *self.unsettled}
        self.unsettled = set()
        try:
            update = self._apply(paths, publish, token, fresh)
        except Cancelled:
            update = Update(errors=self.errors, cancelled=True)
        if update.cancelled:
            self.unsettled = paths
        return update

    def _apply(self, paths: set[Path], publish: Callable[[Update], None] | None,
               token: Token, fresh: set[Path]) -> Update:
        if any(_located(p) == self.config_path for p in paths):
            try:
                self.config = load_config(self.config_path, base_url=self.base_url)
            except BlogbuildError as exc:
                self.errors = [error(exc.file or str(self.config_path), exc.line, exc.message)]
                self.needs_full = True
                return Update(errors=self.errors)
            return self.full(token)
        if self.engine is None or self.needs_full:
            return self.full(token)
        before = dict(self.engine.context.stylesheets)
        templates = self.config.root / "templates"
        # A save of stylesheets only: the pages come together and a browser swaps the new
        # stylesheet in place, also when edits carried from a cancelled run come along
        # (their pages went out early in that run already).
        restyle = bool(fresh) and all(p.suffix == ".css" and not p.is_relative_to(templates)
                                      for p in map(_located, fresh))
        update = self._run(None if restyle else publish, self._edited(paths), token)
        if restyle:
            after = self.engine.context.stylesheets
            update.restyled = {before[n]: after[n] for n in after
                               if n in before and before[n] != after[n]}
        return update

    def _edited(self, paths: Iterable[Path]) -> Sources | None:
        """The sources of the last run with only these files read again, when they are all
        edits of files it knew (or lie outside content/); None: read everything again."""
        last = self.engine.context.sources if self.engine is not None else None
        if last is None:
            return None
        content = self.config.content_path.resolve()
        documents = {str(item.job.path): rel for rel, item in last.items.items()}
        assets = {str(path) for path, _ in last.found.assets}
        items = dict(last.items)
        for changed in paths:
            path = _located(changed)
            if not path.is_relative_to(content):
                continue  # templates, static files, site.yaml: the sources stay
            if path.is_symlink() or not path.is_file():
                return None  # gone, new or odd: the walk decides
            rel = documents.get(str(path))
            if rel is None:
                if str(path) not in assets:
                    return None
                continue
            try:
                data = path.read_bytes()
            except OSError:
                return None
            items[rel] = replace(items[rel], data=data, digest=digest_of(data, self.config))
        return Sources(last.found, items)

    def _run(self, publish: Callable[[Update], None] | None,
             sources: Sources | None = None, token: Token = NEVER) -> Update:
        assert self.engine is not None
        start = time.perf_counter()

        def early(paths: set[str], errors: list[Diagnostic]) -> None:
            assert publish is not None
            self.steps.end()
            log.debug("  the edited pages are out after %.0f ms",
                      (time.perf_counter() - start) * 1000)
            publish(Update(written=set(paths), errors=sorted(errors)))

        try:
            with scope(token):
                report = self.engine.run(early=early if publish is not None else None,
                                         sources=sources)
        except Cancelled:
            self.steps.end()
            log.debug("  cancelled after %.0f ms", (time.perf_counter() - start) * 1000)
            return Update(errors=self.errors, cancelled=True)
        except BlogbuildError as exc:
            self.steps.end()
            self.errors = [error(exc.file or "", exc.line, exc.message)]
            self.needs_full = True
            update = Update(errors=self.errors)
            self._placeholder(update)
            return update
        self.steps.end()
        log.debug("  run done after %.0f ms", (time.perf_counter() - start) * 1000)
        self.errors = report.errors
        self.needs_full = False
        self.pages = set(report.written)
        update = Update(written=report.changed, removed=report.removed, full=report.fresh,
                        errors=report.errors,
                        warnings=[d for d in report.diagnostics if not d.is_error],
                        # with the sources rendered ahead of the run (not again in it)
                        rendered=report.rendered + len(self.edited.rendered),
                        pages=len(report.templated),
                        seconds=time.perf_counter() - start,
                        executed=report.execution_lines())
        if report.errors:
            self._placeholder(update)
        return update

    def _placeholder(self, update: Update) -> None:
        """Nothing good to show yet: a page that carries the error overlay."""
        if (self.output / "index.html").is_file():
            return
        page = (f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
                f"<title>Build failed</title>{self.extra_head}</head><body>"
                "<p>The first build failed. Fix the error and save: this page reloads "
                "by itself.</p></body></html>\n").encode()
        update.written |= write_now(self.output, {"index.html": page, "404.html": page})
        update.full = False

    def close(self) -> None:
        if self.engine is not None:
            self.engine.close()


def _located(path: Path | str) -> Path:
    """Where a changed entry is, its folder resolved but not the entry itself: a file
    swapped for a link out of the site is a change inside the site."""
    path = Path(path)
    return path.parent.resolve() / path.name
