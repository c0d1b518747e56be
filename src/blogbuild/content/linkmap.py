"""Where every page and file of the site will live: the one place that decides URLs.

The build reads the front matter of every document before rendering anything, so the
renderer can write a link to another post's `.md` file, or to an image next to the post,
as its final URL; nothing rewrites the HTML afterwards. `assemble` places posts with the
same functions, so a page's URL is decided in one way only.
"""

from __future__ import annotations

import functools
import posixpath
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Protocol
from urllib.parse import unquote

from blogbuild.config_model import Config
from blogbuild.content.frontmatter import (
    PostMeta,
    slug_from_filename,
)
from blogbuild.content.wikinames import FileIndex, Match, NoteIndex, file_index, fold, note_index
from blogbuild.images.process import ImageInfo
from blogbuild.readers import is_document, stem
from blogbuild.urls import slugify

#: A preview of another document's id: a digest of its HTML, and the needs (stylesheets)
#: of that HTML.
Preview = tuple[str, tuple[str, ...]]


#: What a render records of a reference whose preview's HTML the render store lost.
LOST = "lost"


class SnippetSource(Protocol):
    """Where the HTML of previews is read (the render store keeps it with the bodies)."""

    def preview_html(self, rel: str, ident: str) -> str | None: ...


def slug_for(rel: str, meta: PostMeta) -> str:
    return meta.slug or _slug_of_path(rel)


@functools.lru_cache(maxsize=65536)
def _slug_of_path(rel: str) -> str:
    """The slug a file name gives (asked for every post at every build and run of serve)."""
    stem = posixpath.splitext(posixpath.basename(rel))[0]
    if stem == "index" and "/" in rel:
        stem = posixpath.basename(posixpath.dirname(rel))
    return slugify(slug_from_filename(stem), default="post")


def fallback_title(slug: str) -> str:
    """The title of a document that has none in its front matter or first heading."""
    return slug.replace("-", " ").capitalize()


def post_url(config: Config, slug: str, meta: PostMeta) -> str:
    date = meta.date
    return config.permalink.format(
        slug=slug,
        year=f"{date.year:04d}" if date else "undated",
        month=f"{date.month:02d}" if date else "00",
        day=f"{date.day:02d}" if date else "00",
    )


def page_url(rel: str, meta: PostMeta) -> str:
    path = posixpath.splitext(rel)[0]
    if meta.slug:
        path = posixpath.join(posixpath.dirname(path), meta.slug)
    if path == "index":
        return "/"
    if path.endswith("/index"):
        path = path[: -len("/index")]
    return "/" + path + "/"


def document_url(config: Config, rel: str, kind: str, meta: PostMeta) -> str:
    """The site-root URL path of a post or page (not yet percent-encoded)."""
    if kind == "post":
        return post_url(config, slug_for(rel, meta), meta)
    return page_url(rel, meta)


def bundle_dir(rel: str) -> str | None:
    """A post written as FOLDER/index.md (or index.ipynb, any document named index) owns
    the other files of FOLDER (a page bundle)."""
    if "/" in rel and is_document(rel) and stem(rel) == "index":
        return posixpath.dirname(rel)
    return None


def asset_urls(assets: Iterable[str], bundles: Mapping[str, str]) -> dict[str, str]:
    """Site-root URL of every file under content/: next to its post's page when the post
    is a bundle (`bundles`: folder -> post URL), else at the same path as in content/."""
    out = {}
    for rel in sorted(assets):
        url = "/" + rel
        for folder, owner_url in bundles.items():
            if rel.startswith(folder + "/"):
                url = owner_url + rel[len(folder) + 1:]
                break
        out[rel] = url
    return out


@dataclass(frozen=True)
class LinkMap:
    """Content-relative source path -> site-root URL, for documents and files alike."""

    documents: Mapping[str, str] = field(default_factory=dict)
    assets: Mapping[str, str] = field(default_factory=dict)
    #: Documents left out because they are drafts (a link to one is named as such).
    drafts: frozenset[str] = frozenset()
    #: Every document, drafts too: content path -> (slug, title), the names wiki links use.
    labels: Mapping[str, tuple[str, str]] = field(default_factory=dict)
    #: The files of static/ (paths from there), published at the root of the site.
    statics: frozenset[str] = frozenset()
    #: What cross-references to a document show: content path -> {id: (kind, label)}, from
    #: the render records ("theorem", "Theorem 2"; "equation", "(3)"; …).
    targets: Mapping[str, Mapping[str, tuple[str, str]]] = field(default_factory=dict)
    #: The ids previews can show: content path -> {id: (digest of the HTML, its needs)}.
    previews: Mapping[str, Mapping[str, Preview]] = field(default_factory=dict)
    #: Their HTML (not compared: the digests in `previews` say whether it changed).
    snippets: SnippetSource | None = field(default=None, compare=False)
    #: Pictures by source, a content path or `static/…` (blogbuild.stages.images).
    images: Mapping[str, ImageInfo] = field(default_factory=dict)

    def url_of(self, rel: str) -> str | None:
        found = self.documents.get(rel)
        return found if found is not None else self.assets.get(rel)

    @functools.cached_property
    def _notes(self) -> NoteIndex:
        return note_index(self.labels)

    @functools.cached_property
    def _files(self) -> FileIndex:
        return file_index(self.assets, self.statics)

    def file_url(self, path: str) -> str | None:
        """The site-root URL of a file found by a wiki embed (`content/…`, `static/…`)."""
        folder, _, rel = path.partition("/")
        if folder == "static":
            return "/" + rel if rel in self.statics else None
        return self.assets.get(rel)

    def find(self, key: str) -> Match:
        """The documents or files a wiki key (see `wiki_key`) names."""
        kind, _, rest = key.partition("\0")
        if kind == "note":
            return self._notes.find(rest)
        source_dir, _, name = rest.partition("\0")
        return self._files.find(name, source_dir)

    def outcome(self, key: str) -> str:
        """Everything a render made of a wiki key: what it found, by which rule, and where
        those are published (None: a draft or not built)."""
        match = self.find(key)
        url = self.url_of if key.startswith("note\0") else self.file_url
        return repr((match.rule, tuple((rel, url(rel)) for rel in match.rels)))

    def xref_outcome(self, rel: str, fragment: str) -> str:
        """What a cross-reference to `fragment` in the document `rel` shows: its target's
        kind and label (None: unknown), the document's title and (a digest of) its preview."""
        found = self.targets.get(rel, {}).get(fragment)
        title = self.labels[rel][1] if rel in self.labels else None
        preview = self.previews.get(rel, {}).get(fragment)
        return repr((found, title, preview))

    def preview_html(self, rel: str, fragment: str) -> str | None:
        """The HTML a preview of `fragment` in the document `rel` shows (None: none)."""
        if self.snippets is None or fragment not in self.previews.get(rel, {}):
            return None
        return self.snippets.preview_html(rel, fragment)

    @functools.cached_property
    def _asset_sources(self) -> dict[str, str]:
        return {url: rel for rel, url in self.assets.items()}

    def image_source(self, lookup: str) -> str | None:
        """The source of the picture an image names (None: not a picture the stage knows):
        `lookup` is its content path when it was relative, else its site-root URL."""
        rel: str | None = lookup
        if lookup.startswith("/"):
            path = unquote(lookup.partition("#")[0].partition("?")[0])
            rel = self._asset_sources.get(path)
            if rel is None and path[1:] in self.statics:
                rel = "static/" + path[1:]
        return rel if rel is not None and rel in self.images else None

    def image_key(self, lookup: str) -> str | None:
        """What a render records of the picture `lookup` names (see `image_source`)."""
        source = self.image_source(lookup)
        return self.images[source].key if source is not None else None

    def still_valid(self, resolved: Iterable[tuple[str, str | None]],
                    wiki: Iterable[tuple[str, str]] = (),
                    xrefs: Iterable[tuple[str, str]] = (),
                    images: Iterable[tuple[str, str | None]] = ()) -> bool:
        """True when every (rel, url) a render resolved still maps to the same URL, every
        wiki name it looked up still finds the same, every cross-reference to another
        document (`rel#id`) still shows the same label, and every picture it showed is
        still the same file, made with the same options."""
        return (all(self.url_of(rel) == url for rel, url in resolved)
                and all(self.outcome(key) == found for key, found in wiki)
                and all(self.xref_outcome(*key.split("#", 1)) == found
                        for key, found in xrefs)
                and all(self.image_key(lookup) == key for lookup, key in images))


def wiki_key(name: str, source_dir: str | None = None) -> str:
    """The key of a wiki lookup: a note name, or (with `source_dir`) an attachment's name
    as seen from that folder. NUL never occurs in a name or a folder."""
    if source_dir is None:
        return "note\0" + fold(name)
    return f"file\0{source_dir}\0{name}"


@dataclass(frozen=True)
class DocumentInfo:
    """What the link map needs of one document: its kind and front matter."""

    rel: str
    kind: str
    meta: PostMeta
    #: The title (front matter or first heading), when known: wiki links find posts by it.
    title: str | None = None


def link_entry(doc: DocumentInfo, config: Config, drafts: bool,
               ) -> tuple[tuple[str, str], str | None, str]:
    """What one document gives the link map: its label (slug and title), its URL (None for
    a draft left out) and its kind. Two readings of a document with the same entries give
    the same map (`build_link_map` reads nothing else of them)."""
    slug = slug_for(doc.rel, doc.meta)
    label = (slug, doc.meta.title or doc.title or fallback_title(slug))
    if doc.meta.draft and not drafts:
        return label, None, doc.kind
    return label, document_url(config, doc.rel, doc.kind, doc.meta), doc.kind


def build_link_map(docs: Iterable[DocumentInfo], assets: Iterable[str], config: Config,
                   *, drafts: bool, statics: Iterable[str] = (),
                   targets: Mapping[str, Mapping[str, tuple[str, str]]] | None = None,
                   previews: Mapping[str, Mapping[str, Preview]] | None = None,
                   snippets: SnippetSource | None = None,
                   images: Mapping[str, ImageInfo] | None = None) -> LinkMap:
    """The URL of every document that will be built and of every file under content/; the
    files of static/ (`statics`) are known too, for wiki embeds. `targets`: the labels of
    each document's ids, from render records (see `LinkMap.targets`), `previews` the digests
    of their snippets and `snippets` where to read them (`LinkMap.previews`).

    Two documents that want one URL: the first by path wins here, as in `assemble`,
    which reports the collision."""
    documents: dict[str, str] = {}
    taken: set[str] = set()
    bundles: dict[str, str] = {}
    left_out: set[str] = set()
    labels: dict[str, tuple[str, str]] = {}
    for doc in sorted(docs, key=lambda d: d.rel):
        labels[doc.rel], url, _ = link_entry(doc, config, drafts)
        if url is None:
            left_out.add(doc.rel)
            continue
        if url in taken:
            continue
        taken.add(url)
        documents[doc.rel] = url
        folder = bundle_dir(doc.rel)
        if folder and doc.kind == "post":
            bundles[folder] = url
    known = {rel: dict(found) for rel, found in sorted((targets or {}).items()) if found}
    shown = {rel: dict(found) for rel, found in sorted((previews or {}).items()) if found}
    return LinkMap(documents, asset_urls(assets, bundles), frozenset(left_out), labels,
                   frozenset(statics), known, shown, snippets, images or {})
