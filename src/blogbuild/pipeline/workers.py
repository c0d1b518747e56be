"""The two kinds of work done in worker processes: rendering sources, templating pages.

Each worker gets what it needs once (initializer): the config and link map to render; the
site records, the render store and the staging folder to template. Jobs and answers are
small: a worker keeps rendered bodies in the render store and writes pages itself, and
answers with records. With few jobs the work is done in this process instead, through the
same functions: starting workers costs more than it saves.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from blogbuild import diskcache, timings
from blogbuild.config_model import Config
from blogbuild.content.bodies import MissingBody
from blogbuild.content.jobs import SourceJob
from blogbuild.content.linkmap import LinkMap
from blogbuild.content.models import Post
from blogbuild.content.records import RenderResult, lookups_hold
from blogbuild.diagnostics import BlogbuildError, Diagnostic, error
from blogbuild.fileio import file_digest
from blogbuild.output.entries import OutputEntry
from blogbuild.output.writer import Staging
from blogbuild.pipeline.deps import Reads, Tracker, compact
from blogbuild.pipeline.items import Items, Made
from blogbuild.pipeline.quick import RenderJob
from blogbuild.pipeline.store import RenderCache, without_body
from blogbuild.pool import preload
from blogbuild.stages.bibliography import still_same
from blogbuild.stages.context import Folders

if TYPE_CHECKING:
    from blogbuild.output.templating import CompiledTemplates

#: Below these many jobs the work stays in this process.
RENDER_POOL_MIN = 24
PAGE_POOL_MIN = 200

# The render and page jobs' module, loaded once by the pool's forkserver for every worker.
preload(__name__)

# -- rendering --------------------------------------------------------------------------

_RENDER: dict[str, Any] = {}


def init_render(config: Config | None, links: LinkMap | None, store: RenderCache | None,
                reuse: bool = True, folders: Folders | None = None,
                timed: bool | None = None) -> None:
    """`folders`: where renders keep what they make (the result cache, drawn pictures'
    copies); `timed`: time the parts of each render (`--timings`); None leaves it as it
    is."""
    _RENDER.update(config=config, links=links, store=store, reuse=reuse, folders=folders)
    if config is not None and folders is not None:
        # This process's result cache (formulas, highlighted code), at the build's folder.
        diskcache.set_cache_dir(folders.cache)
    if timed is not None:
        timings.enable(timed)


#: What `render_one` answers: the record of one source, whether it was rendered, the
#: whole result when the store could not keep it, and the seconds of each part of the
#: render when they are timed (blogbuild.timings).
RenderAnswer = tuple[RenderResult, bool, RenderResult | None, dict[str, float] | None]


def render_one(item: RenderJob) -> RenderAnswer:
    """The body goes to the store; a stored render is used when `reuse`."""
    if not timings.enabled():
        return _render_one(item)
    with timings.section("other (summary, words, anchors, records)"):
        record, rendered, unkept, _ = _render_one(item)
    return record, rendered, unkept, timings.take()


def _render_one(item: RenderJob) -> RenderAnswer:
    config, links, store = _RENDER["config"], _RENDER["links"], _RENDER["store"]
    if item.data is not None and _RENDER["reuse"]:
        with timings.section("render store"):
            hit = store.get(item.digest)
        if (hit is not None and hit.rendered is not None and hit.job.rel == item.job.rel
                and hit.job.kind == item.job.kind
                and (hit.rendered.feed_html is not None or not item.feed)
                and (links is None or lookups_hold(hit.rendered, links))
                and still_same(hit.rendered.inputs, config.root, {})):
            return without_body(_here(hit, item.job)), False, None, None
    from blogbuild.pipeline.render import render_source  # the parser: only to render

    result = render_source(item.job, config, item.data, item.digest or None, links,
                           feed=item.feed, folders=_RENDER["folders"])
    with timings.section("render store"):
        kept = store.put(result) or not result.ok
    return without_body(result), True, None if kept else result, None


def _here(result: RenderResult, job: SourceJob) -> RenderResult:
    """A stored result made in another checkout (a CI runner, a moved folder) is the same
    render; only the absolute path is this build's."""
    return result if result.job == job else replace(result, job=job)


# -- templating -------------------------------------------------------------------------

@dataclass(frozen=True)
class PageDone:
    """A page templated: what it read, and its bytes in the output (or why not)."""

    path: str
    deps: Reads  # what the page read, by source (blogbuild.pipeline.deps.compact)
    out: OutputEntry | None  # None: the template failed
    written: bool  # the bytes differ from the output's (and were staged)
    error: Diagnostic | None = None
    missing: str | None = None  # the digest of a body the render store did not have
    #: The posts' entries made for it (pipeline.items): template function, source, entry.
    items: tuple[tuple[str, str, Made], ...] = ()


_PAGES: dict[str, Any] = {}
#: The last set-up and what it was made for: a run that templates in this process does
#: so two or three times (the edited pages first), for the same site.
_KEPT: dict[str, Any] = {}


def init_pages(config: Config | None, site: Any, stage: Staging | None,
               extra_head: str | None = None, bytecode: CompiledTemplates | None = None,
               stylesheets: dict[frozenset[str], str] | None = None,
               items: dict[str, Items] | None = None) -> None:
    """Set up templating: the environment, the read tracker, every planned page and the
    posts' entries that may be shown as they are (`items`, by template function)."""
    _PAGES.clear()
    if config is None:
        return
    same = (config, site, stage, stylesheets)
    if (len(_KEPT.get("same", ())) == len(same)
            and all(a is b for a, b in zip(_KEPT["same"], same, strict=True))
            and _KEPT["other"] == (extra_head, bytecode)):
        _PAGES.update(_KEPT["pages"], items=_entries(items))
        return
    from blogbuild.output.plan import planned
    from blogbuild.output.templating import create_environment
    from blogbuild.themefiles import ENTRY_TEMPLATES

    env = create_environment(config, bytecode, stylesheets, reload=False)  # for one run
    env.globals["site"] = site
    env.globals["extra_head"] = extra_head or ""
    tracker = Tracker()
    tracker.install(env)
    for function in ENTRY_TEMPLATES:
        env.globals[function] = _entry(env, tracker, function)
    _PAGES.update(config=config, env=env, tracker=tracker, stage=stage,
                  pages={page.path: page for page in planned(site, config)})
    _KEPT.clear()
    _KEPT.update(same=same, other=(extra_head, bytecode), pages=dict(_PAGES))
    _PAGES["items"] = _entries(items)


def _entries(items: dict[str, Items] | None) -> dict[str, Items]:
    from blogbuild.themefiles import ENTRY_TEMPLATES

    return {function: (items or {}).get(function) or Items() for function in ENTRY_TEMPLATES}


def _entry(env: Any, tracker: Tracker, function: str) -> Callable[[Any], Any]:
    """The template function `function` (`list_item(post)`, `feed_entry(post)`) of a run
    of templating: the post's entry as this run or the last build made it, else made by
    the environment's own function (which refuses what is not a post); its reads count as
    the page's."""
    from blogbuild.output.templating import Templated

    make = env.globals[function]

    def entry(post: Any) -> Templated:
        items: Items = _PAGES["items"][function]
        found = items.get(post.source) if isinstance(post, Post) else None
        if found is None:
            outer = tracker.swap(set())
            try:
                html = str(make(post))
            finally:
                reads = tracker.swap(outer)
            found = (html, frozenset(reads or ()))
            items.add(post.source, found)
        tracker.extend(found[1])
        return Templated(found[0])

    return entry


def _made_entries() -> tuple[tuple[str, str, Made], ...]:
    return tuple((function, source, made) for function, items in _PAGES["items"].items()
                 for source, made in items.take())


def template_one(item: tuple[str, bytes | None]) -> PageDone:
    """Template one planned page; stage its bytes unless the output has them already."""
    from blogbuild.output.templating import render_template

    path, previous = item
    page = _PAGES["pages"][path]
    tracker: Tracker = _PAGES["tracker"]
    tracker.start()
    try:
        text = render_template(_PAGES["env"], page.template, url_path=page.url, **page.context)
    except BlogbuildError as exc:
        tracker.stop()
        return PageDone(path, (), None, False,
                        error(exc.file or page.template, exc.line, exc.message),
                        items=_made_entries())
    except MissingBody as exc:
        tracker.stop()
        return PageDone(path, (), None, False, missing=exc.digest, items=_made_entries())
    deps = compact(tracker.stop(), {})  # a few tuples to send back, not one per read
    data = text.encode("utf-8")
    digest = file_digest(data)
    written = digest != previous
    if written:
        staging: Staging = _PAGES["stage"]
        staging.place(path).write_bytes(data)
    return PageDone(path, deps, OutputEntry(digest, len(data), 0), written,
                    items=_made_entries())
