"""Read every source, decide where each document goes, and render the stale ones.

The front matter of every document is read first (quickly, or taken from the last build
when the file did not change): that gives every URL before any Markdown is rendered, so a
relative link gets its final URL during the render, and it says which posts the feeds will
list (only those render the feed variant of their body).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import os
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import TypeVar

from blogbuild import timings
from blogbuild.config_model import Config
from blogbuild.content.dates import instant
from blogbuild.content.linkmap import (
    LOST,
    DocumentInfo,
    LinkMap,
    Preview,
    build_link_map,
    link_entry,
)
from blogbuild.content.models import Site
from blogbuild.content.records import Execution, Rendered, RenderResult, SourceEntry, lookups_hold
from blogbuild.images.process import ImageInfo
from blogbuild.pipeline.quick import RenderJob, with_bytes
from blogbuild.pipeline.store import RenderCache, StoredSnippets
from blogbuild.pipeline.workers import RENDER_POOL_MIN, init_render, render_one
from blogbuild.pool import run_jobs
from blogbuild.readers import reader_for
from blogbuild.stages.bibliography import still_same
from blogbuild.stages.context import Folders

V = TypeVar("V")


def document_infos(jobs: dict[str, RenderJob], known: dict[str, SourceEntry],
                   config: Config, read: dict[str, str | None] | None = None,
                   ) -> list[DocumentInfo]:
    """The front matter of every document: from the last build when the bytes are the same
    and so are the other files its render read (a Quarto post's `_metadata.yml`), else read
    quickly (the render reads it again the full way; see `Relinker`). `read`: the digests
    of those files found so far (the renders look at them again)."""
    infos = []
    read = {} if read is None else read
    for rel, item in jobs.items():
        entry = known.get(rel)
        if _known(entry, item) and entry is not None and (
                entry.result.rendered is None
                or still_same(entry.result.rendered.inputs, config.root, read)):
            assert entry is not None
            infos.append(info_of(rel, entry))
        elif (data := with_bytes(item, config).data) is not None:
            info = reader_for(rel).info(item.job, data, fast=True)
            if info is not None:
                infos.append(info)
    return infos


def _known(entry: SourceEntry | None, item: RenderJob) -> bool:
    """The record is of these bytes and has their front matter."""
    return entry is not None and entry.digest == item.digest and entry.result.meta is not None


def info_of(rel: str, entry: SourceEntry) -> DocumentInfo:
    """What the link map needs of a rendered source (its title may come from its body)."""
    result = entry.result
    assert result.meta is not None
    rendered = result.rendered.title if result.rendered is not None else None
    return DocumentInfo(rel, result.job.kind, result.meta, result.meta.title or rendered)


def feed_candidates(infos: Iterable[DocumentInfo], config: Config, drafts: bool) -> set[str]:
    """Posts that a feed may list: the newest `feed_entries` of the site and of each tag,
    by date (ties all included: titles break them, and titles may come from the body).
    None when the feeds carry summaries only (`feed_content: summary`)."""
    if config.feed_content == "summary":
        return set()
    groups: dict[str, list[tuple[float, str]]] = {}
    for info in infos:
        if info.kind != "post" or (info.meta.draft and not drafts):
            continue
        when = info.meta.date
        stamp = instant(when) if isinstance(when, dt.datetime) else 0.0
        for group in ("", *(t.casefold() for t in info.meta.tags)):
            groups.setdefault(group, []).append((stamp, info.rel))
    chosen: set[str] = set()
    n = config.feed_entries
    for posts in groups.values():
        posts.sort(reverse=True)
        if len(posts) <= n:
            chosen.update(rel for _, rel in posts)
            continue
        cutoff = posts[n - 1][0] if n > 0 else float("inf")
        chosen.update(rel for stamp, rel in posts if stamp >= cutoff)
    return chosen


def feed_sources(site: Site, config: Config) -> set[str]:
    """The posts whose whole body the feeds carry, exactly (see blogbuild.output.plan)."""
    if config.feed_content == "summary":
        return set()
    n = config.feed_entries
    found = {p.source for p in site.posts[:n]}
    for _, posts in site.tags.values():
        found.update(p.source for p in posts[:n])
    return found


#: Link maps made from fresh records, at most: the full reading and fresh labels, then the
#: previews that show those labels (one more round finds nothing changed).
RELINK_ROUNDS = 3


class Renderer:
    """Renders sources whose last record cannot be used, through the render store."""

    def __init__(self, config: Config, store: RenderCache, jobs: int,
                 progress: Callable[[int, int], None], folders: Folders, *,
                 digests: dict[str, str | None] | None = None) -> None:
        self.config = config
        self.store = store
        self.jobs = jobs
        self.progress = progress
        self.folders = folders
        self.rendered: set[str] = set()  # sources rendered (not found in the store)
        #: The digests of the files renders read, this run.
        self.digests: dict[str, str | None] = {} if digests is None else digests
        #: display path -> what the render ran at build time (blogbuild.stages.execution)
        self.executions: dict[str, Execution] = {}

    def usable(self, entry: SourceEntry | None, item: RenderJob, links: LinkMap) -> bool:
        return (entry is not None and item.digest != "" and entry.digest == item.digest
                and entry.result.rendered is not None and (entry.feed or not item.feed)
                and lookups_hold(entry.result.rendered, links)
                and still_same(entry.result.rendered.inputs, self.config.root, self.digests)
                and all(os.path.isfile(made) for _, made in entry.result.rendered.files))

    def render(self, items: list[RenderJob], links: LinkMap, *,
               reuse: bool = True) -> dict[str, SourceEntry]:
        """Records of `items`: from the store when `reuse` and it has them, else rendered."""
        out: dict[str, SourceEntry] = {}
        if items:  # the step starts now (the bar shows it; --timings times it from here)
            self.progress(0, len(items))
        items = [with_bytes(item, self.config) for item in items]  # those not read yet
        initargs = (self.config, links, self.store, reuse, self.folders, timings.enabled())
        results = run_jobs(items, render_one, init_render, initargs, jobs=self.jobs,
                           minimum=RENDER_POOL_MIN)
        for done, (item, (record, rendered, unkept, parts)) in enumerate(
                zip(items, results, strict=True), 1):
            if parts:  # the worker's split of this render (--timings)
                timings.add(parts)
            if unkept is not None:
                self.store.keep(unkept)
            if rendered:
                self.rendered.add(item.job.rel)
                self._note_execution(record)
            out[item.job.rel] = SourceEntry(item.digest, record, item.feed)
            self.progress(done, len(items))
        return out

    def settle(self, entries: dict[str, SourceEntry], items: dict[str, RenderJob],
               links: LinkMap, relinker: Callable[[], LinkMap],
               fall_back: Callable[[set[str]], object]) -> tuple[LinkMap, set[str]]:
        """Render again the sources whose lookups through the link map no longer hold,
        until it settles; returns the link map and the sources rendered here.

        The full reading of the front matter may place a document elsewhere than the quick
        one did, and a render may change the labels or previews that cross-references to
        its ids show. A preview shows the labels of other documents, so a page rendered
        again here may change the previews others show; labels depend on their own
        document only, so this settles. `fall_back(rendered so far)` is told after each
        round (a lenient run puts back the last good record of a source that failed)."""
        again: set[str] = set()
        for _ in range(RELINK_ROUNDS):
            full = relinker()
            if full == links:
                break
            links = full
            redo = [items[rel] for rel, e in entries.items()
                    if e.result.rendered is not None and rel in items
                    and not lookups_hold(e.result.rendered, links)]
            entries.update(self.render(redo, links))
            again |= {item.job.rel for item in redo}
            fall_back(again)
        again |= self.restore_previews(entries, items, links)
        return links, again

    def restore_previews(self, entries: dict[str, SourceEntry], items: dict[str, RenderJob],
                         links: LinkMap) -> set[str]:
        """Renders that found a preview lost from the render store: the documents that had
        it rendered again (into the store), then those renders; returns the sources."""
        lost = {rel: {key.partition("#")[0] for key, found in e.result.rendered.xrefs
                      if found == LOST}
                for rel, e in entries.items() if e.result.rendered is not None}
        lost = {rel: found for rel, found in lost.items() if found and rel in items}
        targets = sorted({t for found in lost.values() for t in found if t in items})
        if not lost:
            return set()
        entries.update(self.render([items[t] for t in targets], links, reuse=False))
        fresh = dataclasses.replace(links, snippets=snippets_in(self.store, entries))
        entries.update(self.render([items[rel] for rel in sorted(lost)], fresh))
        return {*targets, *lost}

    def _note_execution(self, record: RenderResult) -> None:
        execution = record.rendered.execution if record.rendered is not None else None
        name = record.job.display
        # A source rendered twice in one build ran its blocks the first time.
        if execution is not None and (name not in self.executions or execution.executed):
            self.executions[name] = execution


@dataclasses.dataclass
class LinkInputs:
    """What a link map is made of, by source: the front matter, the labels and previews
    of the documents' ids, and the digests of the renders that hold their snippets."""

    infos: dict[str, DocumentInfo]
    targets: dict[str, dict[str, tuple[str, str]]]
    previews: dict[str, dict[str, Preview]]
    digests: dict[str, str]
    #: The documents whose front matter was not taken from a record: read quickly from
    #: their bytes, or unreadable (a record of them, if any, is of other bytes).
    quick: set[str] = dataclasses.field(default_factory=set)

    @classmethod
    def first(cls, infos: list[DocumentInfo], last: dict[str, SourceEntry],
              jobs: Mapping[str, RenderJob]) -> LinkInputs:
        """Before the renders: the front matter as `document_infos` read it, the rest as
        the last build's records say."""
        quick = {rel for rel, job in jobs.items() if not _known(last.get(rel), job)}
        return cls({info.rel: info for info in infos}, targets_of(last), previews_of(last),
                   _digests(last), quick)

    @classmethod
    def of(cls, entries: dict[str, SourceEntry]) -> LinkInputs:
        """From the records in `entries` alone (the full reading of every front matter)."""
        return cls({rel: info_of(rel, e) for rel, e in entries.items()
                    if e.result.meta is not None},
                   targets_of(entries), previews_of(entries), _digests(entries))

    def link_map(self, assets: list[str], config: Config, drafts: bool, statics: list[str],
                 store: RenderCache, images: Mapping[str, ImageInfo] | None) -> LinkMap:
        return build_link_map(self.infos.values(), assets, config, drafts=drafts,
                              statics=statics, targets=self.targets, previews=self.previews,
                              snippets=StoredSnippets(store, self.digests), images=images)

    def same_map(self, other: LinkInputs, config: Config, drafts: bool) -> bool:
        """Whether both make the same map but for the digests of the renders that hold the
        snippets: the same labels and previews, and each document the same entry (a quick
        reading of the front matter and the full one differ in what the map does not
        read, such as the description)."""
        if (self.infos.keys() != other.infos.keys() or self.targets != other.targets
                or self.previews != other.previews):
            return False
        return all(info is other.infos[rel] or link_entry(info, config, drafts)
                   == link_entry(other.infos[rel], config, drafts)
                   for rel, info in self.infos.items())

    def patched(self, entries: dict[str, SourceEntry], rels: Iterable[str]) -> LinkInputs:
        """These inputs with those of the sources `rels` taken from their records in
        `entries` (the full reading of their front matter), or dropped when they have
        none."""
        rels = set(rels)
        fresh = LinkInputs.of({rel: entries[rel] for rel in rels if rel in entries})
        return LinkInputs(_merged(self.infos, fresh.infos, rels),
                          _merged(self.targets, fresh.targets, rels),
                          _merged(self.previews, fresh.previews, rels),
                          _merged(self.digests, fresh.digests, rels))


def _merged(old: dict[str, V], new: dict[str, V], rels: set[str]) -> dict[str, V]:
    """`old` with the keys `rels` replaced in place by their value in `new`, or dropped when
    `new` has none; the others of `new` appended."""
    out = {rel: new.get(rel, value) for rel, value in old.items()
           if rel not in rels or rel in new}
    out.update((rel, value) for rel, value in new.items() if rel not in out)
    return out


class Relinker:
    """The link map again after renders: from the full reading of every front matter and
    the labels and previews of the records in `entries` (the map `LinkInputs.of(entries)`
    makes), brought up to date from the map made before (at first `made`, from `first`,
    the inputs the renders used, and `last`, the records those were made from). Only the
    sources whose records are not those are read again, and a map of the same entries is
    not made again (an edit of a post's text; a new post whose front matter the quick
    reading read right, after its first round)."""

    def __init__(self, entries: dict[str, SourceEntry], assets: list[str], config: Config,
                 drafts: bool, statics: list[str], store: RenderCache,
                 images: Mapping[str, ImageInfo] | None, *, first: LinkInputs,
                 last: Mapping[str, SourceEntry], made: LinkMap) -> None:
        self.entries = entries  # filled in by the renders between calls
        self.args = (assets, config, drafts, statics, store, images)
        self.first, self.last, self.made = first, last, made

    def __call__(self) -> LinkMap:
        entries, (assets, config, drafts, statics, store, images) = self.entries, self.args
        changed = {rel for rel, e in entries.items() if e is not self.last.get(rel)}
        changed |= (self.first.infos.keys() | self.first.targets.keys()) - entries.keys()
        changed |= self.first.quick
        inputs = self.first.patched(entries, changed)
        if inputs.same_map(self.first, config, drafts):
            # The same map but for where the snippets are read from (the renders' digests).
            links = dataclasses.replace(self.made,
                                        snippets=StoredSnippets(store, inputs.digests))
        else:
            links = inputs.link_map(assets, config, drafts, statics, store, images)
        self.first, self.last, self.made = inputs, dict(entries), links
        return links


def _digests(entries: Mapping[str, SourceEntry]) -> dict[str, str]:
    return {rel: e.result.digest for rel, e in entries.items()
            if e.result.rendered is not None and e.result.rendered.previews}


def snippets_in(store: RenderCache, entries: dict[str, SourceEntry]) -> StoredSnippets:
    """The snippets of the records in `entries`, read from their bodies in `store`."""
    return StoredSnippets(store, _digests(entries))


def targets_of(entries: dict[str, SourceEntry]) -> dict[str, dict[str, tuple[str, str]]]:
    """The labels of each record's ids (what cross-references from other documents show).
    A document's labels never depend on another's, so these are final once rendered."""
    return {rel: _labels(e.result.rendered) for rel, e in entries.items()
            if e.result.rendered is not None}


def _labels(rendered: Rendered) -> dict[str, tuple[str, str]]:
    return {ident: (kind, text) for ident, kind, text in rendered.labels}


def previews_of(entries: dict[str, SourceEntry]) -> dict[str, dict[str, Preview]]:
    """The digests of each record's snippets (what previews on other documents show). A
    snippet shows other documents' labels, which are final once they are rendered."""
    return {rel: _previews(e.result.rendered) for rel, e in entries.items()
            if e.result.rendered is not None}


def _previews(rendered: Rendered) -> dict[str, Preview]:
    return {ident: (digest, needs) for ident, digest, needs in rendered.previews}


def results_of(entries: dict[str, SourceEntry]) -> dict[str, RenderResult]:
    return {rel: entry.result for rel, entry in entries.items()}


def asset_rels(assets: list[tuple[Path, str]]) -> list[str]:
    return [rel for _, rel in assets]
