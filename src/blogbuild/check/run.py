"""Run a check: build into a scratch folder, then crawl, ask the web, and lint the sources.

The build goes into a temporary folder, never the site's output folder, and saves no
build state: the render and formula caches are read and added to (they are keyed by
content, so a later build finds exactly what it would have made), which makes a check of
an unchanged site fast. `use_cache=False` leaves the cache folder alone.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from blogbuild.check import Finding, crawl
from blogbuild.config import Config, load_config
from blogbuild.diagnostics import BlogbuildError, BuildFailed, Diagnostic
from blogbuild.output.outdir import CACHE_DIR
from blogbuild.urls import output_path

if TYPE_CHECKING:  # the engine loads Markdown and Jinja: imported when a check runs
    from blogbuild.pipeline.engine import Engine

#: Messages of the build's own link checks, and the kind each is.
_BUILD_KINDS = (("link to a missing anchor", "anchor"), ("image target", "image"),
                ("missing image", "image"), ("link target", "link"), ("broken link", "link"),
                ("![[", "image"), ("[[", "link"))  # a wiki link that finds nothing, or two


@dataclass(frozen=True)
class Options:
    """What to check; the defaults are those of `blogbuild check` without options."""

    external: bool = False
    portability: bool = True
    use_cache: bool = True
    ignore: tuple[str, ...] = ()
    drafts: bool = False
    jobs: int | None = None
    timeout: float = 10.0
    interval: float = 1.0  # seconds between two requests to one host


@dataclass
class Outcome:
    """What `blogbuild check` found, and how many built pages it looked at."""

    findings: list[Finding] = field(default_factory=list)
    pages: int | None = None  # built pages checked; None when the build failed


@dataclass(frozen=True)
class Document:
    """A built page's source: its name in messages and its lines."""

    display: str
    lines: list[str]


def check(config_path: Path | str | None = None, *, base_url: str | None = None,
          options: Options = Options()) -> Outcome:
    """Check the site whose site.yaml is `config_path`; raises BlogbuildError for a bad
    config (a failing build is findings, not an exception)."""
    config = load_config(config_path, base_url=base_url)
    ignore = (*config.check.ignore, *options.ignore)
    outcome = Outcome()
    with tempfile.TemporaryDirectory(prefix="blogbuild-check-") as scratch:
        output = Path(scratch) / "site"
        sources = _build_and_crawl(config, output, options, ignore, outcome)
    if options.portability:
        from blogbuild.check.portability import lint_all
        from blogbuild.pool import default_jobs

        outcome.findings += lint_all(sources, options.jobs or default_jobs(),
                                     double_inline=config.math.inline_double_dollar == "inline")
    return outcome


def _build_and_crawl(config: Config, output: Path, options: Options, ignore: tuple[str, ...],
                     outcome: Outcome) -> list[tuple[Path, str]]:
    """Build into `output`, then check it; returns the sources to lint."""
    from blogbuild.output.writer import wait_for_cleanup
    from blogbuild.pipeline.engine import Engine

    engine = Engine(config, output=output, drafts=options.drafts, use_cache=options.use_cache,
                    jobs=options.jobs, persist=False)
    try:
        try:
            report = engine.run()
        except BuildFailed as failed:
            outcome.findings += _from_build(failed.diagnostics, {})
            return _sources(engine)
        except BlogbuildError as failed:  # a template or a source that stops the build
            outcome.findings.append(Finding(_shown(failed.file, config), failed.line, 0,
                                            "error", "build", failed.message))
            return _sources(engine)
        targets = _ref_targets(engine)
        outcome.findings += [f for f in _from_build(report.diagnostics, targets)
                             if f.kind == "build" or not crawl.ignored(ignore, f.target)]
        documents = _documents(engine)
        files = crawl.output_files(output)
        pages = dict(crawl.read_pages(output, files, engine.context.jobs))
        outcome.pages = len(pages)
        problems, external = crawl.check_uses(
            pages, files, config.base_url, config.urls.base_path, ignore,
            _markdown_targets(engine, config))
        outcome.findings += place(problems, documents, config.output_dir)
        if options.external:
            outcome.findings += _external(config, external, documents, options)
        return _sources(engine)
    finally:
        engine.close()
        wait_for_cleanup()


def _shown(file: str | None, config: Config) -> str:
    """A file named by an error, relative to the site folder when inside it."""
    if file is None:
        return "."  # the site as a whole
    path = Path(file)
    return path.relative_to(config.root).as_posix() if path.is_relative_to(config.root) \
        else file


def _sources(engine: Engine) -> list[tuple[Path, str]]:
    """The sources the build read (however far it came), those it published when it
    completed (drafts only with --drafts)."""
    sources, site = engine.context.sources, engine.last.site if engine.last else None
    if sources is None:
        return []
    if site is not None:
        keep = {p.source for p in [*site.posts, *site.pages]}
    else:
        keep = set(sources.items)
    return [(i.job.path, i.job.display) for rel, i in sorted(sources.items.items())
            if rel in keep]


def _from_build(diagnostics: Iterable[Diagnostic], targets: dict[tuple[str, int], str],
                ) -> list[Finding]:
    """The build's diagnostics as findings; its broken link targets are errors here."""
    found = []
    for d in diagnostics:
        kind = next((k for prefix, k in _BUILD_KINDS if d.message.startswith(prefix)), "build")
        severity = "error" if kind != "build" else d.severity.value
        found.append(Finding(d.file, d.line, d.column, severity, kind, d.message,
                             targets.get((d.file, d.line), "")))
    return found


def _ref_targets(engine: Engine) -> dict[tuple[str, int], str]:
    """(source, line) -> the link target written there, from the render records."""
    assert engine.last is not None
    targets: dict[tuple[str, int], str] = {}
    for entry in engine.last.entries.values():
        rendered = entry.result.rendered
        for ref in rendered.refs if rendered is not None else ():
            targets.setdefault((entry.result.job.display, ref.line), ref.target)
    return targets


def _markdown_targets(engine: Engine, config: Config) -> dict[str, set[tuple[str, str]]]:
    """Per built page, the (file, fragment) targets of its Markdown links and images: the
    build checked those already and named their source lines."""
    last = engine.last
    assert last is not None and last.site is not None
    base_url, base_path = config.base_url, config.urls.base_path
    skip: dict[str, set[tuple[str, str]]] = {}
    for post in [*last.site.posts, *last.site.pages]:
        entry = last.entries.get(post.source)
        rendered = entry.result.rendered if entry is not None else None
        if rendered is None:
            continue
        page = output_path(post.url)
        resolved = dict(rendered.resolved)
        keys = skip.setdefault(page, set())
        for ref in rendered.refs:
            fragment = ref.target.partition("#")[2]
            values = [ref.target]
            url = resolved.get(ref.rel) if ref.rel is not None else None
            if url is not None:
                values.append(config.urls.url(url) + (f"#{fragment}" if fragment else ""))
            for value in values:
                target = crawl.resolve(value, page, base_url, base_path)
                key = crawl.checked_key(target) if target is not None else None
                if key is not None:
                    keys.add(key)
    return skip


def _documents(engine: Engine) -> dict[str, Document]:
    """Built page -> the source it was made from (its lines, to find a URL in)."""
    last = engine.last
    assert last is not None and last.site is not None
    documents = {}
    for post in [*last.site.posts, *last.site.pages]:
        path = last.config.content_path / post.source
        try:
            lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError:
            lines = []
        documents[output_path(post.url)] = Document(post.display, lines)
    return documents


def locate(page: str, value: str, documents: dict[str, Document]) -> tuple[str, int] | None:
    """The source file and line where the page's URL `value` is written, when it is."""
    document = documents.get(page)
    if document is None or not value:
        return None
    escaped = value.replace("&", "&amp;")
    for n, line in enumerate(document.lines, 1):
        if value in line or escaped in line:
            return document.display, n
    return None


def place(problems: Iterable[crawl.Problem], documents: dict[str, Document],
          output_dir: str) -> list[Finding]:
    """Findings at the source line that wrote the URL, else at the built page's line; one
    finding for a problem that many built pages share (a link in a template)."""
    found: list[Finding] = []
    shared: dict[tuple[str, str, str], list[crawl.Problem]] = {}
    for problem in problems:
        where = locate(problem.page, problem.use.value, documents)
        if where is not None:
            found.append(Finding(where[0], where[1], 0, "error", problem.kind,
                                 problem.message, problem.target))
        else:
            shared.setdefault((problem.kind, problem.message, problem.target),
                              []).append(problem)
    for (kind, message, target), group in shared.items():
        # The home page stands for a template's link: the one page every site has.
        first = min(group, key=lambda p: (p.page != "index.html", p.page, p.use.line))
        pages = len({p.page for p in group})
        more = f" (and on {pages - 1} more built page(s): a link in a shared template?)" \
            if pages > 1 else ""
        found.append(Finding(f"{output_dir}/{first.page}", first.use.line, first.use.column,
                             "error", kind, message + more, target))
    return found


def _external(config: Config, uses: dict[str, list[tuple[str, crawl.Use]]],
              documents: dict[str, Document], options: Options) -> list[Finding]:
    from blogbuild.check.external import Checker, ResultCache

    cache = ResultCache(config.root / CACHE_DIR / "links.json") if options.use_cache else None
    checker = Checker(timeout=options.timeout, interval=options.interval, cache=cache)
    results = checker.check(sorted(uses))
    problems = [crawl.Problem(page, use, "external", result.message, url)
                for url, result in results.items() if result.severity
                for page, use in uses[url]]
    severity = {url: r.severity for url, r in results.items()}
    return [Finding(f.file, f.line, f.column, severity[f.target], f.kind, f.message, f.target)
            for f in place(problems, documents, config.output_dir)]
