"""`blogbuild build`: sources → rendered posts → Site → pages → output folder (atomically)."""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass, field
from pathlib import Path

import jinja2

from blogbuild import katex
from blogbuild.cache import CACHE_DIR, RenderCache
from blogbuild.claims import SITE_STATIC, THEME, Owner
from blogbuild.config import Config, load_config
from blogbuild.content.discover import discover
from blogbuild.content.models import Site
from blogbuild.content.walk import shown
from blogbuild.diagnostics import BuildFailed, Diagnostic
from blogbuild.linkmap import DocumentInfo, LinkMap, build_link_map, read_info
from blogbuild.outdir import check_output
from blogbuild.outputs import PlannedPage, code_css, page_owner, plan
from blogbuild.pool import render_all
from blogbuild.progress import Progress, no_progress
from blogbuild.render import RenderResult, SourceJob, digest_of, render_source
from blogbuild.site import assemble, resolve_refs
from blogbuild.templating import create_environment, render_template
from blogbuild.theme import theme_dir, theme_static
from blogbuild.writer import Writer, bundle_files


@dataclass
class BuildReport:
    output: Path
    posts: int = 0
    pages: int = 0
    files: int = 0
    seconds: float = 0.0
    rendered: int = 0
    cached: int = 0
    diagnostics: list[Diagnostic] = field(default_factory=list)
    base_url: str = ""
    #: Every planned page written: output path -> template (which says the page's kind).
    written: dict[str, str] = field(default_factory=dict)


class Builder:
    """Builds a site; keeps the render results between builds (the live server reuses one)."""

    def __init__(self, config: Config, *, output: Path | None = None, drafts: bool = False,
                 strict: bool = False, use_cache: bool = True,
                 extra_head: str = "", progress: Progress = no_progress) -> None:
        self.config = config
        self.output = output or (config.root / config.output_dir)
        # Before anything is read or written: a wrong output folder could delete sources.
        check_output(self.output, config, option="--output" if output else None)
        self.drafts = drafts
        self.strict = strict
        self.cache = RenderCache(config.root, enabled=use_cache)
        katex.set_cache_dir(config.root / CACHE_DIR if use_cache else None)  # formula cache
        self.results: dict[str, RenderResult] = {}
        self.skipped: list[Diagnostic] = []  # odd entries of content/ (warnings)
        self.extra_head = extra_head  # serve mode injects its reload snippet here
        self.site: Site | None = None
        self.progress = progress
        self.links = LinkMap()  # where every document and file is (see blogbuild.linkmap)

    def render_sources(self) -> tuple[dict[str, RenderResult], list[tuple[Path, str]], int, int]:
        self.progress("reading sources", 0, 0)
        found = discover(self.config.content_path, self.config.root)
        self.skipped = found.diagnostics
        todo = []
        results: dict[str, RenderResult] = {}
        unreadable: list[SourceJob] = []
        read: list[tuple[SourceJob, bytes, str, RenderResult | None]] = []
        infos: list[DocumentInfo] = []
        for job in found.documents:
            try:
                data = job.path.read_bytes()
            except OSError:
                unreadable.append(job)  # render_source reports the read error
                continue
            digest = digest_of(data, self.config)
            previous = self.results.get(job.rel)
            hit = previous if previous is not None and previous.digest == digest else None
            hit = hit or self.cache.get(digest)
            if hit is not None and not _same_source(hit.job, job):
                hit = None
            read.append((job, data, digest, hit))
            info = DocumentInfo(job.rel, job.kind, hit.meta) if hit is not None and hit.meta \
                else read_info(job.rel, job.kind, job.display, data, job.path.stem, fast=True)
            if info is not None:
                infos.append(info)
        self.links = build_link_map(infos, [rel for _, rel in found.assets], self.config,
                                    drafts=self.drafts)
        cached = 0
        for job, data, digest, hit in read:
            if hit is not None and hit.rendered is not None \
                    and self.links.still_valid(hit.rendered.resolved):
                # The cache may come from another checkout (a CI runner, a moved folder):
                # the result is the same, only the absolute path is this build's.
                results[job.rel] = hit if hit.job == job else dataclasses.replace(hit, job=job)
                cached += 1
            else:
                todo.append((job, data, digest))
        for job in unreadable:
            results[job.rel] = render_source(job, self.config)
        self.progress("rendering posts and pages", 0, len(todo))
        for done, result in enumerate(render_all(todo, self.config, links=self.links), 1):
            results[result.job.rel] = result
            self.progress("rendering posts and pages", done, len(todo))
        self._relink(results, read, [rel for _, rel in found.assets])
        for job, _, _ in todo:
            self.cache.put(results[job.rel])
        self.results = results
        return results, found.assets, len(todo), cached

    def _relink(self, results: dict[str, RenderResult],
                read: list[tuple[SourceJob, bytes, str, RenderResult | None]],
                assets: list[str]) -> None:
        """Make sure the link map the renders used is the one their front matter gives.

        The map was made from a quick reading of the front matter; should the full reading
        of a file (done by its render) place a document elsewhere, the map is made again
        from the full readings and the renders that resolved a moved target are redone."""
        infos = [DocumentInfo(r.job.rel, r.job.kind, r.meta)
                 for r in results.values() if r.meta is not None]
        links = build_link_map(infos, assets, self.config, drafts=self.drafts)
        if links == self.links:
            return
        self.links = links
        redo = [(job, data, digest) for job, data, digest, _ in read
                if (r := results[job.rel]).rendered is not None
                and not links.still_valid(r.rendered.resolved)]
        for result in render_all(redo, self.config, links=links):
            results[result.job.rel] = result

    def build(self) -> BuildReport:
        start = time.perf_counter()
        config = self.config
        results, assets, rendered, cached = self.render_sources()
        diagnostics = [*self.skipped, *(d for r in results.values() for d in r.diagnostics)]
        self.progress("assembling the site", 0, 0)
        site, more = assemble(results.values(), [rel for _, rel in assets], config,
                              drafts=self.drafts)
        diagnostics += more
        env = create_environment(config)
        env.globals["site"] = site
        env.globals["extra_head"] = self.extra_head
        pages = list(plan(site, config))
        self.progress("copying files", 0, 0)
        with Writer(self.output) as writer:
            diagnostics += writer.copy_tree(theme_static(), theme_dir(), rank=THEME,
                                            label="the theme's ")
            writer.write_text("css/pygments.css", code_css(),
                              Owner("the generated code styles", "", rank=THEME))
            site_static = config.root / "static"
            if site_static.is_dir() and site_static.resolve() != theme_static().resolve():
                diagnostics += writer.copy_tree(site_static, config.root, rank=SITE_STATIC)
            for path, rel in assets:
                writer.copy(site.assets[rel].lstrip("/"), path,
                            Owner(shown(path, config.root), shown(path, config.root)))
            needs = sorted({n for p in [*site.posts, *site.pages] for n in p.needs})
            for need in needs:
                for source, rel in bundle_files(need):
                    writer.copy(rel, source, Owner(f"the {need} bundle", ""))
            for page in pages:
                writer.claim(page.path, page_owner(page))
            diagnostics += writer.problems
            known = writer.paths()
            diagnostics += resolve_refs(site, results, known, config)
            errors = [d for d in diagnostics if d.is_error]
            if errors or (self.strict and diagnostics):
                raise BuildFailed(diagnostics, strict=self.strict)
            for done, page in enumerate(pages, 1):
                self.write_page(writer, env, page)
                self.progress("writing pages", done, len(pages))
            writer.commit()
        self.site = site
        return BuildReport(
            output=self.output,
            posts=len(site.posts),
            pages=len(pages),
            files=len(writer.owners),
            seconds=time.perf_counter() - start,
            rendered=rendered,
            cached=cached,
            diagnostics=sorted(diagnostics),
            base_url=config.base_url,
            written={page.path: page.template for page in pages},
        )

    def write_page(self, writer: Writer, env: jinja2.Environment, page: PlannedPage) -> None:
        text = render_template(env, page.template, url_path=page.url, **page.context)
        writer.write_text(page.path, text, page_owner(page))


def _same_source(a: SourceJob, b: SourceJob) -> bool:
    """The same file of the site, wherever the site folder lies."""
    return (a.rel, a.kind, a.display) == (b.rel, b.kind, b.display)


def build(
    config_path: Path | str | None = None,
    *,
    output: Path | str | None = None,
    drafts: bool = False,
    strict: bool = False,
    base_url: str | None = None,
    use_cache: bool = True,
    progress: Progress = no_progress,
) -> BuildReport:
    """Build the site whose site.yaml is `config_path`; raises BlogbuildError on failure.

    `progress(phase, done, total)` is called as the build goes (see blogbuild.progress).
    """
    config = load_config(config_path, base_url=base_url)
    out = Path(output).resolve() if output is not None else None
    return Builder(config, output=out, drafts=drafts, strict=strict, use_cache=use_cache,
                   progress=progress).build()
