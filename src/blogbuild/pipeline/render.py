"""Rendering one source file: a pure function of its bytes and the config (the worker job)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from markdown_it import MarkdownIt
from markdown_it.rules_core import StateCore
from markdown_it.token import Token

from blogbuild import diskcache, timings
from blogbuild.config_citations import BUILTIN_STYLES
from blogbuild.config_model import Config, RunnableConfig
from blogbuild.content.jobs import SourceJob
from blogbuild.content.linkmap import LinkMap, document_url
from blogbuild.content.models import TocEntry
from blogbuild.content.records import Execution, Rendered, RenderResult
from blogbuild.diagnostics import error
from blogbuild.fingerprints import digest_of
from blogbuild.images.process import Options as ImageOptions
from blogbuild.images.process import options_of
from blogbuild.markdown import create_markdown
from blogbuild.markdown.env import html_renderer, is_quarto, report, token_line
from blogbuild.markdown.feed import render_feed
from blogbuild.markdown.more import excerpt
from blogbuild.markdown.xref_previews import snippet_digest, snippets, templates
from blogbuild.pipeline.texts import anchors_of, excerpt_text, plain, summary, word_count
from blogbuild.readers import Unreadable, reader_for
from blogbuild.stages import Step, stages
from blogbuild.stages.context import Folders, Page, run_stage
from blogbuild.urls import encode_path

if TYPE_CHECKING:
    from blogbuild.bib.library import Library

_PARSERS: dict[tuple[str, bool], MarkdownIt] = {}

#: markdown-it's own core rules: parsing. The others are our plugins' (math is KaTeX's).
_PARSE_RULES = frozenset({"normalize", "block", "inline", "linkify", "replacements",
                          "smartquotes", "text_join"})


def parser_for(config: Config, *, quarto: bool = True) -> MarkdownIt:
    """One parser per process, config and dialect (built lazily, so worker processes own
    theirs); `quarto`: with Quarto's additions, for a Quarto document (a page of another
    kind parses the same without them)."""
    key = (config.render_fingerprint(), quarto)
    md = _PARSERS.get(key)
    if md is None:
        md = _PARSERS[key] = create_markdown(config, quarto=quarto)
        _time_core_rules(md)
    return md


def _time_core_rules(md: MarkdownIt) -> None:
    """Each core rule timed as a section of `--timings` (a no-op when they are off)."""
    for rule in md.core.ruler.__rules__:
        part = ("Markdown parse" if rule.name in _PARSE_RULES
                else "math (KaTeX)" if rule.name == "math" else "plugin core rules")
        md.core.ruler.at(rule.name, _timed(rule.fn, part), {"alt": rule.alt})


def _timed(fn: Callable[[StateCore], Any], part: str) -> Callable[[StateCore], Any]:
    def rule(state: StateCore) -> Any:
        with timings.section(part):
            return fn(state)
    return rule


def _take_title(tokens: list[Token], md: MarkdownIt, env: dict[str, Any]) -> tuple[
    str | None, str | None, str | None, str | None
]:
    """Remove a leading H1 (and an italic-only paragraph right under it) from `tokens`.

    Returns (title, title_html, subtitle, removed heading id).
    """
    if len(tokens) < 3 or tokens[0].type != "heading_open" or tokens[0].tag != "h1":
        return None, None, None, None
    inline = tokens[1]
    children = [c for c in inline.children or [] if c.type != "heading_anchor"]
    title = plain(children).strip()
    title_html = html_renderer(md).renderInline(children, md.options, env).strip()
    heading_id = tokens[0].attrGet("id")
    del tokens[0:3]
    subtitle = None
    if len(tokens) >= 3 and tokens[0].type == "paragraph_open":
        kids = [
            c for c in tokens[1].children or [] if not (c.type == "text" and not c.content.strip())
        ]
        if len(kids) >= 3 and kids[0].type == "em_open" and kids[-1].type == "em_close" and all(
            k.type not in ("em_open", "em_close") for k in kids[1:-1]
        ):
            subtitle = plain(kids[1:-1]).strip()
            del tokens[0:3]
    return title, title_html, subtitle, str(heading_id) if heading_id else None


def render_markdown(
    md: MarkdownIt,
    body: str,
    *,
    file: str = "<input>",
    line_offset: int = 0,
    source_dir: str | None = None,
    extract_title: bool = False,
    links: LinkMap | None = None,
    feed_base: str | None = None,
    page_url: str | None = None,
    feed: bool = True,
    bibliography: Library | None = None,
    citation_style: str = "author-year",
    runnable: RunnableConfig | None = None,
    cover: bool = False,
    images: ImageOptions | None = None,
    extra_env: dict[str, Any] | None = None,
    folders: Folders | None = None,
) -> Rendered:
    """Render a Markdown body into a `Rendered` (HTML, TOC, needs, diagnostics, …).

    `links` says where the other documents and files are (relative links get their final
    URL); `feed_base` is this document's absolute URL (for its feed variant), `page_url`
    its site URL (for the previews of its ids on other pages and the pictures its
    build-time blocks draw); `cover`: the page shows a cover picture above the body (the
    body's pictures then all load lazily); `images`: the options of the site's pictures
    (None: published as they are); `extra_env`: more keys of the env (a notebook's page,
    see blogbuild.markdown.notebook); `folders`: where the stages of the render keep what
    they make (the results of build-time blocks). Between parsing and the HTML, the
    stages of `Step.PARSED` run (blogbuild.stages: build-time blocks)."""
    env: dict[str, Any] = {
        "file": file,
        "line_offset": line_offset,
        "source_dir": source_dir,
        "diagnostics": [],
        "needs": set(),
        "refs": [],
        "links": links,
        "feed_base": feed_base,
        "resolved": {},
        "wiki": {},
        "xrefs": {},
        "images": {},
        "cover": cover,
        "page_url": page_url,
        "bibliography": bibliography,
        "citation_style": citation_style,
        "image_options": images,
        "folders": folders or Folders(),
        **(extra_env or {}),
    }
    with timings.section("Markdown parse"):
        tokens = md.parse(body, env)
    parsed = Page(file, env, env["folders"], tokens=tokens, runnable=runnable)
    for stage in stages(Step.PARSED):
        run_stage(stage, parsed)
    titled = _title(md, tokens, env, extract_title)
    made = _html(md, tokens, env, page_url, feed=feed)
    diskcache.flush()  # the formulas and code made for this document: one transaction
    if any(t.type in ("fence",) for t in tokens) or "codeblock" in made.html:
        env["needs"].add("code")
    return _record(tokens, env, titled, made, parsed.execution)


def _record(tokens: list[Token], env: dict[str, Any],
            titled: tuple[str | None, str | None, str | None, list[TocEntry]], made: _Made,
            execution: Execution | None) -> Rendered:
    """What the build keeps of a render (blogbuild.content.records.Rendered)."""
    title, title_html, subtitle, toc = titled
    return Rendered(        html=made.html,
        toc=tuple(toc),
        title=title,
        title_html=title_html,
        subtitle=subtitle,
        summary=summary(tokens) if made.cut is None else excerpt_text(made.cut),
        excerpt_html=made.excerpt_html,
        needs=frozenset(env["needs"]),
        diagnostics=tuple(env["diagnostics"]),
        refs=tuple(env["refs"]),
        word_count=word_count(tokens),
        anchors=made.anchors,
        feed_html=made.feed_html,
        resolved=tuple(sorted(env["resolved"].items())),
        wiki=tuple(sorted(env["wiki"].items())),
        labels=tuple(sorted((ident, kind, text) for ident, (kind, text)
                            in env.get("xref_labels", {}).items())),
        previews=tuple((ident, snippet_digest(html), needs)
                       for ident, html, needs in made.previews),
        snippets=tuple((ident, html) for ident, html, _ in made.previews),
        xrefs=tuple(sorted(env["xrefs"].items())),
        inputs=(env["bibliography"].files if env["bibliography"] is not None else ())
        + tuple(sorted(env.get("inputs", {}).items())),  # a chart's data files
        execution=execution,
        images=tuple(sorted(env["images"].items())),
        files=tuple(sorted(env.get("files", {}).items())),
    )


@dataclass(frozen=True)
class _Made:
    """The HTML a render made of its tokens, and what it found in them."""

    html: str
    anchors: frozenset[str]
    previews: tuple[tuple[str, str, tuple[str, ...]], ...]
    feed_html: str | None
    cut: list[Token] | None  # the tokens of the summary cut with <!--more-->
    excerpt_html: str | None


def _html(md: MarkdownIt, tokens: list[Token], env: dict[str, Any], page_url: str | None,
          *, feed: bool) -> _Made:
    """The page's HTML, the previews of its ids, its feed variant (when `feed`) and
    excerpt."""
    with timings.section("rendering HTML"):
        html = md.renderer.render(tokens, md.options, env)
    anchors = anchors_of(html)  # the templates' content is not part of the page
    with timings.section("cross-reference previews"):
        previews = snippets(md, tokens, env, page_url)  # before the feed's URLs are put in
    html += templates(env)
    with timings.section("feed and excerpt HTML"):
        feed_html = render_feed(md, tokens, env) if feed else None
        cut = excerpt(tokens) if env.get("more") else None
        # Shown on other pages (lists, feeds): rendered as a feed entry is, with absolute
        # links and math that needs no stylesheet.
        excerpt_html = render_feed(md, cut, env) if cut is not None else None
    return _Made(html, anchors, previews, feed_html, cut, excerpt_html)


def _title(md: MarkdownIt, tokens: list[Token], env: dict[str, Any], extract: bool,
           ) -> tuple[str | None, str | None, str | None, list[TocEntry]]:
    """The title the body's first heading gives when `extract` (taken out of `tokens`, and
    out of the table of contents), its HTML and the subtitle under it; the TOC."""
    toc: list[TocEntry] = list(env.get("toc", []))
    if not extract:
        return None, None, None, toc
    first = tokens[0] if tokens else None
    title, title_html, subtitle, removed = _take_title(tokens, md, env)
    if title == "":
        report(env, token_line(env, first), "the title heading has no text, so the title "
               "is made from the file name; write text in it or set 'title:'")
    if removed:
        toc = [entry for entry in toc if entry.id != removed]
    return title, title_html, subtitle, toc


def render_source(job: SourceJob, config: Config, data: bytes | None = None,
                  digest: str | None = None, links: LinkMap | None = None, *,
                  feed: bool = True, folders: Folders | None = None) -> RenderResult:
    """Read (unless `data` is given) and render one file. Never raises on author input.

    `links` (see blogbuild.content.linkmap) lets relative links resolve to their final URLs; `feed`
    asks for the feed variant of the body too; `folders`: where the render keeps what it
    makes (None: nowhere)."""
    try:
        return _render_source(job, config, data, digest, links, feed, folders or Folders())
    except Exception as exc:  # a bug of ours: it must not stop the other files or the server
        return RenderResult(job, digest or "", diagnostics=(error(
            job.display, 0, f"internal error while rendering this file ({exc!r}); the rest "
            "of the site was built: please report this file to blogbuild"),))


def _render_source(job: SourceJob, config: Config, data: bytes | None, digest: str | None,
                   links: LinkMap | None, feed: bool, folders: Folders) -> RenderResult:
    try:
        if data is None:
            data = job.path.read_bytes()
    except OSError as exc:
        return RenderResult(job, "", diagnostics=(
            error(job.display, 0, f"cannot read the file: {exc.strerror or exc}"),))
    digest = digest or digest_of(data, config)
    try:
        with timings.section("front matter"):
            document = reader_for(job.rel).read(job, data, config, folders)
    except Unreadable as exc:
        return RenderResult(job, digest, diagnostics=exc.diagnostics)
    meta = document.meta
    self_url = links.url_of(job.rel) if links is not None else None
    if links is not None and self_url is None:  # a draft: it has a URL all the same
        self_url = document_url(config, job.rel, job.kind, meta)
    page_url = config.urls.url(encode_path(self_url)) if self_url is not None else None
    front = Page(job.display, {}, folders, job=job, config=config, front=document.front)
    with timings.section("front matter"):
        for stage in stages(Step.FRONT):  # the bibliography
            run_stage(stage, front)
    rendered = render_markdown(
        parser_for(config, quarto=is_quarto(document.env)),
        document.text,
        file=job.display,
        line_offset=document.line_offset,
        source_dir=job.rel.rpartition("/")[0],
        extract_title=meta.title is None,
        links=links,
        feed_base=config.urls.absolute(self_url) if self_url is not None else None,
        page_url=page_url,
        feed=feed,
        bibliography=front.env.get("bibliography"),
        citation_style=config.citations.style if config.citations.style in BUILTIN_STYLES
        else str(config.root / config.citations.style),
        runnable=config.runnable,
        cover=bool(meta.image),
        images=options_of(config),
        extra_env={**document.env, "source_path": job.path, "site_root": config.root},
        folders=folders,
    )
    rendered, diagnostics = document.finish(
        rendered, tuple(document.at_front(problem) for problem in front.problems), page_url)
    return RenderResult(job, digest, meta, rendered, diagnostics)
