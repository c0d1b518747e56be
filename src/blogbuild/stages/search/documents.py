"""What the search index is made of: each post's and page's document for Pagefind (its
title, date and rendered body, with the site's sub-path in its URL), the key of its part of
the index, and what marks the index's files in the build's records."""

from __future__ import annotations

import datetime as dt
import hashlib
import html
import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from blogbuild.config_model import Config
from blogbuild.content.bodies import Bodies
from blogbuild.fingerprints import code_fingerprint, versions_of
from blogbuild.output.entries import FileEntry
from blogbuild.output.files import STAGED
from blogbuild.stages.search.program import versions

if TYPE_CHECKING:
    from blogbuild.content.models import Post, Site

#: The index's folder in the output (the theme's search.js loads pagefind.js from there).
FOLDER = "pagefind"
#: Bump when what is fed to Pagefind changes shape.
FORMAT = 4
#: Parts of a body that are no text a reader searches for: KaTeX's visual copy of every
#: formula (its MathML copy stays) and TeX source, buttons, icons, heading anchors, and the
#: templates of previews of other posts (their text is those posts').
EXCLUDE = (".katex-html", "annotation", "button", "svg", ".heading-anchor",
           ".codeblock-lang", ".callout-icon", ".video-note", ".video-play", "template")
#: The source the build's state records for the index's files (files the stage staged
#: itself); the entry file's adds a digest of the pages' keys.
SOURCE = f"{STAGED}search"
ENTRY = "pagefind-entry.json"


@dataclass(frozen=True)
class Doc:
    """What the index needs of a post or page: what its key is made of, and its body
    (read from the render store when Pagefind reads the page). Small, to be sent to the
    process that makes the index (blogbuild.stages.search.process)."""

    url: str
    title: str
    date: dt.datetime | None
    body_id: str
    digest: str
    bodies: Bodies | None

    @classmethod
    def of(cls, post: Post) -> Doc:
        return cls(post.url, post.title, post.date, post.body_id, post.digest, post.bodies)

    def __reduce__(self) -> tuple[Any, ...]:
        # A tuple of its fields: a thousand go to the index's process with each update.
        return Doc, (self.url, self.title, self.date, self.body_id, self.digest, self.bodies)

    @property
    def html(self) -> str:
        """Raises MissingBody."""
        return self.bodies.html(self.digest) if self.bodies is not None else ""


def is_index_file(entry: FileEntry) -> bool:
    """The file is one of the index's (their entries' source says so)."""
    return entry.source.startswith(SOURCE)


def documents(site: Site) -> list[Doc]:
    """What the index holds, in the order it numbers them: pages by URL, then posts from
    the oldest, so that a new post is added at the end and no other page is renumbered."""
    pages = sorted(site.pages, key=lambda p: (p.url, p.source))
    posts = sorted(site.posts, key=lambda p: (p.date.isoformat() if p.date else "", p.url,
                                              p.source))
    return [Doc.of(post) for post in [*pages, *posts]]


def _date(post: Doc, config: Config) -> str:
    """The date as the theme shows it (the `date` filter's rule)."""
    value: dt.datetime | None = post.date
    if value is None:
        return ""
    try:
        return value.strftime(config.date_format)
    except ValueError:
        return value.strftime("%Y-%m-%d")


def page_document(post: Doc, config: Config) -> str:
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


def pagefind_options(config: Config) -> dict[str, Any]:
    """The options of Pagefind's indexes of the site of `config`."""
    return {"force_language": config.language.lower(), "exclude_selectors": list(EXCLUDE)}


def index_programs() -> str:
    """What makes the index with the pages: Pagefind, the CBOR writer, the compressor, and
    our code (how pages are shown to Pagefind, how its index is written)."""
    writers = ";".join(f"{k}={v}" for k, v in sorted(versions_of(("cbor2", "isal")).items()))
    return f"{versions()};{writers};{code_fingerprint()}"


def layout_key(programs: str) -> str:
    """The key of a layout made by `programs` (and of their runtime files)."""
    return hashlib.sha256(json.dumps([FORMAT, programs]).encode()).hexdigest()


def page_keys(docs: list[Doc], config: Config, programs: str) -> list[str]:
    """Each page's key: it changes whenever the page's part of the index would (its URL,
    title, date and body, the options and Pagefind). What all pages share is hashed once."""
    shared = hashlib.sha256(json.dumps([FORMAT, programs, config.language, config.base_url,
                                        EXCLUDE]).encode())
    keys = []
    for post in docs:
        h = shared.copy()
        h.update(json.dumps([post.url, post.title, _date(post, config),
                             post.body_id]).encode())
        keys.append(h.hexdigest())
    return keys
