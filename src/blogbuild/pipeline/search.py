"""Search: a Pagefind index of the bodies of posts and pages, under /pagefind/ of the output.

Only posts and pages are indexed (lists, tags, the archive and feeds repeat them). Each is
handed to Pagefind as a small HTML document made of its title, date and rendered body,
with the site's sub-path in its URL; Pagefind answers with the index files and the writer
stages the few the theme's search box loads. The index is made again only when something it
holds changed: its key covers every document's URL, title, date and body, the options
and Pagefind's version. When Pagefind cannot run the build warns and goes on without search.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import html
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from blogbuild import cancel
from blogbuild.config import Config
from blogbuild.content.models import MissingBody, Post, Site
from blogbuild.diagnostics import Diagnostic, warning
from blogbuild.output.writer import Stage
from blogbuild.pipeline.pagefind_service import versions
from blogbuild.pipeline.state import FileEntry, OutputEntry, file_digest, intact

#: The index's folder in the output (the theme's search.js loads pagefind.js from there).
FOLDER = "pagefind"
#: Bump when what is fed to Pagefind changes shape.
FORMAT = 2
#: Parts of a body that are no text a reader searches for: KaTeX's visual copy of every
#: formula (its MathML copy stays) and TeX source, buttons, icons, heading anchors, and the
#: templates of previews of other posts (their text is those posts').
EXCLUDE = (".katex-html", "annotation", "button", "svg", ".heading-anchor",
           ".codeblock-lang", ".callout-icon", ".video-note", ".video-play", "template")
#: The files the search box needs; Pagefind's ready-made UIs and playground are left out.
_TOP = ("pagefind.js", "pagefind-worker.js", "pagefind-entry.json")
_FOLDERS = ("index/", "fragment/")


def documents(site: Site) -> list[Post]:
    """What the index holds: every post and page, in URL order (the index's bytes depend
    on the order Pagefind is given its pages)."""
    return sorted([*site.posts, *site.pages], key=lambda p: (p.url, p.source))


def _date(post: Post, config: Config) -> str:
    """The date as the theme shows it (the `date` filter's rule)."""
    value: dt.datetime | None = post.date
    if value is None:
        return ""
    try:
        return value.strftime(config.date_format)
    except ValueError:
        return value.strftime("%Y-%m-%d")


def index_key(config: Config, docs: list[Post]) -> str:
    """Changes whenever the index would: documents, options, Pagefind."""
    h = hashlib.sha256(json.dumps([FORMAT, versions(), config.language, config.base_url,
                                   EXCLUDE]).encode())
    for post in docs:
        h.update(json.dumps([post.url, post.title, _date(post, config), post.body_id]).encode())
    return h.hexdigest()


def page_document(post: Post, config: Config) -> str:
    """The HTML Pagefind reads for one post: title and body are indexed, the date is
    metadata. No tag filters: Pagefind writes a filter's values in a random order, and
    two builds would differ. No image: Pagefind would take the body's first <img> as the
    result's picture, and a figure from a build-time block is a data: URL (kilobytes of
    base64 in the index, matched by searches for digits). Every value is escaped; the body
    is ours."""
    e = html.escape
    parts = [f'<html lang="{e(config.language)}"><head><title>{e(post.title)}</title></head>'
             "<body>"]
    date = _date(post, config)
    if date:
        parts.append(f'<p data-pagefind-meta="date">{e(date)}</p>')
    parts.append('<p data-pagefind-meta="image:"></p>')
    parts.append(f'<main data-pagefind-body><h1 data-pagefind-meta="title">{e(post.title)}'
                 f"</h1>{post.html}</main></body></html>")
    return "".join(parts)


def make_index(config: Config, docs: list[Post],
               render_again: Callable[[set[str]], None]) -> dict[str, bytes]:
    """The index files the site serves, by path under FOLDER. Raises SearchUnavailable.
    `render_again` renders the sources whose bodies the render store lost."""
    from blogbuild.pipeline.pagefind_service import Service

    options = {"force_language": config.language.lower(), "exclude_selectors": list(EXCLUDE)}
    urls = config.urls
    token = cancel.current()
    with Service(options) as service, token.child(service.kill):
        for post in docs:
            token.check()
            try:
                document = page_document(post, config)
            except MissingBody as lost:
                render_again({lost.digest})
                document = page_document(post, config)
            service.add_html(urls.url(post.url), document)
        files = service.files()
    token.check()
    return {rel: data for rel, data in sorted(files.items()) if _wanted(rel, files)}


def _wanted(rel: str, files: dict[str, bytes]) -> bool:
    """pagefind.js, its worker, the entry file, the metadata, the WebAssembly of the
    languages the entry names, the index and fragment chunks."""
    if rel in _TOP or rel.startswith(_FOLDERS):
        return True
    if rel.startswith("pagefind.") and rel.endswith(".pf_meta"):
        return True
    if rel.startswith("wasm."):
        entry = json.loads(files.get("pagefind-entry.json", b"{}"))
        return any(rel == f"wasm.{lang.get('wasm')}.pagefind"
                   for lang in entry.get("languages", {}).values())
    return False


@dataclass
class Search:
    """The search step of one engine: remembers across runs that Pagefind cannot run, so
    the live server warns once and does not try again on every save."""

    config: Config
    unavailable: str = ""

    def stage(self, stage: Stage, site: Site, last: dict[str, FileEntry], output: Path,
              fresh: bool, render_again: Callable[[set[str]], None],
              ) -> tuple[dict[str, FileEntry], list[Diagnostic]]:
        """Stage the index when it changed; returns its files' entries (paths relative to
        the output) and a warning when Pagefind could not make it."""
        if not self.config.search or self.unavailable:
            return {}, []
        docs = documents(site)
        source = f"generated:search:{index_key(self.config, docs)}"
        previous = {rel: e for rel, e in last.items() if e.source == source}
        if (not fresh and previous and all(intact(output, rel, e.out)
                                           for rel, e in previous.items())):
            return previous, []
        from blogbuild.pipeline.pagefind_service import SearchUnavailable

        try:
            files = make_index(self.config, docs, render_again)
        except SearchUnavailable as exc:
            cancel.check()  # Pagefind was stopped because the run was cancelled
            self.unavailable = str(exc)
            return {}, [warning("site.yaml", 0, f"search: {exc}, so the site is built without "
                                "search; install it with `pip install 'pagefind[bin]'`, or "
                                "set `search: false` in site.yaml")]
        old = {} if fresh else {rel: e for rel, e in last.items()
                                if e.source.startswith("generated:search:")}
        entries = {}
        for rel, data in files.items():
            path, digest = f"{FOLDER}/{rel}", file_digest(data)
            kept = old.get(path)
            # Most files outlive an edit (pagefind.js, the fragments of other pages).
            if kept is not None and kept.out.digest == digest and intact(output, path,
                                                                          kept.out):
                entries[path] = FileEntry(source, (0, 0), kept.out)
                continue
            stage.write_bytes(path, data)
            entries[path] = FileEntry(source, (0, 0), OutputEntry(digest, len(data), 0))
        return entries, []
