"""The page of an edited post, written before the engine's run so the browser reloads first.

The engine's run after a save reads and links every source, assembles the site and decides
which pages are stale: work that grows with the site (0.2 to 0.5 s at 1,000 posts on 2
busy cores) before it writes the first page. A reader waits for one page. This module
renders the saved file in the build thread (warm parser, KaTeX and highlight caches), puts
the new version of the post into the site the last run assembled, templates its page,
writes it and hands its path to the live server. The run that follows writes the same
bytes, and the live server does not reload for them; when the shortcut missed something
(a neighbour that changed with the date), the run's page differs and the browser reloads
once more.

It applies to an edit of a post or page the last run showed, at the same URL, that renders
without errors and that runs no blocks at build time. Anything else (a new file, a moved
post, a template, site.yaml) is left to the run.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from blogbuild.config_model import Config
from blogbuild.content.bodies import Bodies, MissingBody
from blogbuild.content.models import Post, Site
from blogbuild.content.records import Rendered, RenderResult
from blogbuild.diagnostics import BlogbuildError, Diagnostic
from blogbuild.fileio import file_digest
from blogbuild.fingerprints import digest_of
from blogbuild.output.plan import document_page
from blogbuild.output.writer import write_now
from blogbuild.pipeline.assemble import document_post
from blogbuild.stages.covers import cover_of

if TYPE_CHECKING:
    import jinja2

    from blogbuild.pipeline.engine import Engine
    from blogbuild.stages.context import BuildContext


class EditedPages:
    """Writes the pages of edited posts ahead of the engine's run; remembers what it wrote."""

    def __init__(self) -> None:
        self._env: jinja2.Environment | None = None
        self._env_key: tuple[object, ...] = ()
        #: Output path -> digest of the bytes written ahead, until the run writes its own.
        self.written: dict[str, bytes] = {}
        #: The sources rendered ahead since the last run (it finds them in the store).
        self.rendered: set[str] = set()

    def write(self, engine: Engine, rel: str, erring: Collection[str]) -> str | None:
        """Write the page of the document `rel` (its path under content/) as its file
        shows it now; its output path, or None when the engine's run must show it (see
        the module's docstring). `erring`: the files the browser shows errors of (their
        fix goes with the errors, through the run)."""
        ctx = engine.last
        made = _render(engine, rel, erring) if ctx is not None else None
        if made is None:
            return None
        assert ctx is not None and ctx.site is not None
        result, post = made
        page = document_page(post)
        if not (ctx.output / page.path).is_file():
            return None
        env = self._environment(ctx)
        env.globals["site"] = _swapped(ctx.site, post)
        from blogbuild.output.templating import render_template

        try:
            text = render_template(env, page.template, url_path=page.url, **page.context)
        except (BlogbuildError, MissingBody):
            return None  # the run reports it
        finally:
            env.globals["site"] = None
        data = text.encode("utf-8")
        write_now(ctx.output, {page.path: data})
        self.written[page.path] = file_digest(data)
        # The run finds the render in the store instead of rendering the file again.
        engine.store.put(result)
        self.rendered.add(rel)
        return page.path

    def same_as_written(self, output: Path, rel: str) -> bool:
        """Whether the run's file `rel` is what was written ahead (no reload needed); the
        run's file replaces the note either way."""
        digest = self.written.pop(rel, None)
        if digest is None:
            return False
        try:
            return file_digest((output / rel).read_bytes()) == digest
        except OSError:
            return False

    def forget(self) -> None:
        """A run is done: what it wrote replaces what was written ahead of it."""
        self.written.clear()
        self.rendered.clear()

    def warm_up(self, engine: Engine) -> None:
        """Template the page of the newest post once (nothing is written), so the first
        edit does not pay for compiling the templates it includes."""
        ctx = engine.last
        site = ctx.site if ctx is not None else None
        if ctx is None or site is None or not (site.posts or site.pages):
            return
        from blogbuild.output.templating import render_template

        page = document_page((site.posts or site.pages)[0])
        env = self._environment(ctx)
        env.globals["site"] = site
        try:
            render_template(env, page.template, url_path=page.url, **page.context)
        finally:
            env.globals["site"] = None

    def _environment(self, ctx: BuildContext) -> jinja2.Environment:
        """The templating environment for the pages of the output of `ctx` (made again
        when the config, the stylesheets or the presence of the site's templates/ change;
        Jinja reloads a template whose file changed)."""
        key = (id(ctx.config), sorted(ctx.stylesheets.items(), key=repr),
               ctx.extra_head, (ctx.config.root / "templates").is_dir())
        if self._env is None or key != self._env_key:
            from blogbuild.output.templating import create_environment

            self._env = create_environment(ctx.config, ctx.bytecode, ctx.stylesheets)
            self._env.globals["extra_head"] = ctx.extra_head
            self._env_key = key
        return self._env


def _render(engine: Engine, rel: str, erring: Collection[str]
            ) -> tuple[RenderResult, Post] | None:
    """The new render of `rel` and its post, when the shortcut applies (same URL, no
    errors, no build-time blocks, no file beside the page that is not published yet, a
    stylesheet made for its needs)."""
    ctx = engine.last
    assert ctx is not None
    config, site = ctx.config, ctx.site
    entry = ctx.entries.get(rel)
    if site is None or entry is None or entry.result.rendered is None \
            or entry.result.rendered.execution is not None \
            or entry.result.job.display in erring:
        return None
    try:
        data = entry.result.job.path.read_bytes()
    except OSError:
        return None
    digest = digest_of(data, config)
    old = next((p for p in [*site.posts, *site.pages] if p.source == rel), None)
    if old is None or digest == entry.digest:
        return None
    from blogbuild.pipeline.render import render_source  # loaded by the warm-up already

    result = render_source(entry.result.job, config, data, digest, ctx.links,
                           feed=entry.feed, folders=ctx.folders)
    if not result.ok or any(d.is_error for d in result.diagnostics):
        return None
    assert result.rendered is not None
    if set(result.rendered.files) - set(entry.result.rendered.files):
        return None  # a new picture the page shows (a notebook's output): the run publishes it
    problems: list[Diagnostic] = []
    post = document_post(result, config, _Fresh(digest, result.rendered, engine.store),
                         problems)
    if (post.url, post.kind) != (old.url, old.kind) or problems \
            or (post.meta.draft and not ctx.drafts) \
            or frozenset(post.needs) not in ctx.stylesheets:
        return None
    _link_like(post, old, site, config)
    return result, post


def _link_like(new: Post, old: Post, site: Site, config: Config) -> None:
    """Give `new` the neighbours, tags, series and related posts of `old` (the run works
    them out anew), and its cover."""
    if {t.name.casefold() for t in new.tags} == {t.name.casefold() for t in old.tags}:
        new.tags = old.tags  # as the site spells them
    new.previous, new.next, new.related = old.previous, old.next, old.related
    if old.series is not None:
        new.series = replace(old.series, posts=tuple(new if p is old else p
                                                     for p in old.series.posts))
    by_url = {url: asset for asset, url in site.assets.items()}
    new.cover, _ = cover_of(new, site.assets, by_url, config, site.images)


class _Fresh:
    """The bodies of the edited post from its render, the others' from the render store."""

    def __init__(self, digest: str, rendered: Rendered, store: Bodies) -> None:
        self.digest = digest
        self.rendered = rendered
        self.store = store

    def html(self, digest: str) -> str:
        return self.rendered.html if digest == self.digest else self.store.html(digest)

    def feed_html(self, digest: str) -> str:
        if digest != self.digest:
            return self.store.feed_html(digest)
        if self.rendered.feed_html is None:
            raise MissingBody(digest)
        return self.rendered.feed_html


def _swapped(site: Site, new: Post) -> Site:
    """`site` with `new` where the post of its source was, in the lists a page can read."""
    old = next(p for p in [*site.posts, *site.pages] if p.source == new.source)

    def swap(posts: Iterable[Post]) -> list[Post]:
        return [new if p is old else p for p in posts]

    series = dict(site.series)
    if new.series is not None:
        series[new.series.slug] = new.series
    return Site(
        posts=swap(site.posts), pages=swap(site.pages),
        tags={slug: (tag, swap(posts)) for slug, (tag, posts) in site.tags.items()},
        years=[(year, swap(posts)) for year, posts in site.years],
        assets=site.assets, series=series,
        related={source: tuple(swap(posts)) for source, posts in site.related.items()},
    )
