"""The search index of a site, kept page by page (see blogbuild.stages.search): made from
the last index's layout and the parts of the pages Pagefind read, its files staged for the
output; in the build's process or in a process of its own (blogbuild.stages.search.process).
"""

from __future__ import annotations

import contextlib
import gc
import hashlib
import threading
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from blogbuild import cancel
from blogbuild.config_model import Config
from blogbuild.content.bodies import MissingBody
from blogbuild.diagnostics import Diagnostic, warning
from blogbuild.output.entries import FileEntry, Seen, intact
from blogbuild.stages.search.documents import (
    ENTRY,
    FOLDER,
    SOURCE,
    Doc,
    index_programs,
    is_index_file,
    layout_key,
    page_keys,
)
from blogbuild.stages.search.indexing import Indexing
from blogbuild.stages.search.pagefind import Service
from blogbuild.stages.search.process import Ahead, IndexProcess, Job, Offloaded
from blogbuild.stages.search.reading import read_pages
from blogbuild.stages.search.staging import Staged, stage_files

if TYPE_CHECKING:  # the index's own modules load where an index is made (most often in
    # the process of blogbuild.stages.search.child, not the build's)
    from blogbuild.content.models import Post
    from blogbuild.content.records import RenderResult
    from blogbuild.search import pages as search_pages
    from blogbuild.search.chunks import Chunk
    from blogbuild.search.layout import Layout, Made, PageRef
    from blogbuild.search.pages import PageIndex, Runtime

#: At most this many sources' pages are read ahead of the job (`Search.send_ahead`).
AHEAD_MAX = 8


@dataclass
class Search:
    """The search step of one engine. Remembers across runs what the last index was made
    of (the live server keeps it in memory, a new process reads it from the cache
    folder), and that Pagefind cannot run, so the live server warns once and does not
    try again on every save."""

    config: Config
    #: Keep the layout in memory for the next run (the live server's engine runs again; a
    #: build's runs once, and its layout, tens of MiB for thousands of posts, would only
    #: take room from what comes after the index).
    remember: bool = True
    #: The index shows drafts (the live server's, by default): the cache's chunk files are
    #: tidied for each kind of index on its own (blogbuild.search.kept.keep_files).
    drafts: bool = False
    unavailable: str = ""
    layout: Layout | None = None
    runtime: Runtime | None = None
    #: The process that will make the next update's index: started by `prepare`, or
    #: sooner by the caller (`IndexProcess.begin`, as `blogbuild build` does before the
    #: engine's modules load).
    child: IndexProcess | None = field(default=None, repr=False)
    #: The site's cache folder (None: none), where the index's process keeps its results.
    cache: Path | None = None
    #: A Pagefind process started ahead (`start_pagefind`), for the first pages to read.
    spare: Service | None = field(default=None, repr=False)
    #: The index's process: Pagefind reading the pages it was sent ahead of its job
    #: (`read_ahead`), and the chunks' files loading meanwhile for a new page.
    ahead: threading.Thread | None = field(default=None, repr=False)
    loading: threading.Thread | None = field(default=None, repr=False)

    def prepare(self) -> None:
        """A build's update: start the process that will make the index now, so that it
        is ready once the site is assembled (blogbuild.stages.search.process)."""
        if self.config.search and not self.unavailable and not self.remember \
                and self.child is None:
            self.child = IndexProcess.begin(self.config, self.cache)

    def close(self) -> None:
        """The engine is done: end the process no run took."""
        self.discard()

    def discard(self) -> None:
        """End the process `prepare` started if no run took it."""
        if self.child is not None:
            self.child.end()
            self.child = None

    def close_spare(self) -> None:
        """End the Pagefind process started ahead if no reading took it."""
        if self.spare is not None:
            self.spare.close()
            self.spare = None

    def send_ahead(self, results: list[RenderResult], post_of: Callable[[RenderResult], Post],
                   *, new: bool) -> None:
        """A build's update, its sources rendered: send their pages to the index's process
        (if it has one), whose Pagefind reads them while the site is assembled, so that
        the job finds their parts instead of reading them. A few sources at most (an edit,
        a new post): more are read by the job, in two Pagefind processes. `post_of` makes
        a record's post as the site will show it; `new`: one of them is a source the last
        build did not have."""
        if (self.child is None or not self.config.search or self.unavailable
                or not results or len(results) > AHEAD_MAX):
            return
        docs = [Doc.of(post_of(result)) for result in results
                if result.ok and result.meta is not None
                and (self.drafts or not result.meta.draft)]
        if docs:
            self.child.send(Ahead(docs, new))

    def read_ahead(self, docs: list[Doc], *, new: bool, programs: str) -> None:
        """The index's process, before its job: have Pagefind read `docs` on a thread, their
        parts kept in the result cache where the job finds them by their keys (and, for a
        new page, load the chunks' files it will change). What fails here is left to the
        job: it reads those pages again, and says what went wrong. `programs`: what makes
        the index (`index_programs()`), found once by the process for these and the job."""
        from blogbuild.search import pages as search_pages

        if not self.config.search or self.unavailable or self.ahead is not None:
            return
        if new and self.layout is not None:
            self.loading = _load_chunks(self.layout.chunks)
        urls = self.config.urls
        keys = {urls.url(doc.url): key
                for doc, key in zip(docs, page_keys(docs, self.config, programs), strict=True)}
        todo = [doc for doc in docs if search_pages.cached_bytes(keys[urls.url(doc.url)]) is None]
        if not todo:
            return
        spare, self.spare = self.spare, None

        def keep(url: str, part: PageIndex) -> None:
            search_pages.keep(keys[url], part.dumps())

        def lost(digests: set[str]) -> None:
            raise MissingBody(min(digests))  # only the build can render it again

        def read() -> None:
            with contextlib.suppress(Exception):
                runtime = read_pages(self.config, todo, lost, keep, spare)
                search_pages.keep_runtime(layout_key(programs), runtime)

        self.ahead = threading.Thread(target=read, name="search-ahead", daemon=True)
        self.ahead.start()

    def settle_ahead(self) -> None:
        """Wait for what `read_ahead` started that the job did not take (its index was as
        it was): the parts it read go to the cache."""
        for thread in (self.ahead, self.loading):
            if thread is not None:
                thread.join()
        self.ahead = self.loading = None

    def start(self, docs: list[Doc], last: Mapping[str, FileEntry], output: Path,
              fresh: bool, render_again: Callable[[set[str]], None],
              seen: Seen | None = None) -> Indexing | Offloaded:
        """`stage` of the index of `docs` (`documents(site)`), beside the run: in the
        process `prepare` started, else in a thread of its own (`render_again` must be safe
        to call from it). The index is made at once; its files wait for the stage
        (`write_into`). `seen`: the output's files as stat'ed already."""

        def here(stage: Callable[[], Staged], reading: Callable[[], None],
                 ) -> tuple[dict[str, FileEntry], list[Diagnostic]]:
            return self.stage(stage, docs, last, output, fresh, render_again, seen, reading)

        child, self.child = self.child, None
        if child is not None:
            if self.config.search and not self.unavailable:
                ours = {rel: e for rel, e in last.items() if is_index_file(e)}
                if child.send(Job(self.drafts, docs, ours, output, fresh)):
                    return Offloaded(child, ours, lambda: Indexing(here), render_again)
            child.end()
        return Indexing(here)

    def stage(self, stage: Callable[[], Staged], docs: list[Doc],
              last: Mapping[str, FileEntry],
              output: Path, fresh: bool, render_again: Callable[[set[str]], None],
              seen: Seen | None = None, reading: Callable[[], None] = lambda: None,
              later: list[Callable[[], None]] | None = None, programs: str | None = None,
              ) -> tuple[dict[str, FileEntry], list[Diagnostic]]:
        """Stage the index when it changed; returns its files' entries (paths relative to
        the output) and a warning when Pagefind could not make it. `stage()` is where the
        files go (it waits until there is one); `reading()` is called when what is left
        before Pagefind reads the new pages is done. `later`: where to put what the
        build does not wait for (the layout's file, the cache's tidying), if anywhere."""
        if not self.config.search or self.unavailable:
            return {}, []
        programs = programs or index_programs()
        keys = page_keys(docs, self.config, programs)
        # The entry file names what the index holds; the other files of an index are the
        # same entries from one build to the next when they are the same bytes (an edit
        # then saves the few that changed in the build's state, not all of them).
        source = f"{SOURCE}:{hashlib.sha256(''.join(keys).encode()).hexdigest()}"
        previous = {rel: e for rel, e in last.items() if is_index_file(e)}
        entry = previous.get(f"{FOLDER}/{ENTRY}")
        if (not fresh and entry is not None and entry.source == source
                and all(intact(output, rel, e.out, seen) for rel, e in previous.items())):
            return previous, []
        from blogbuild.search import pages as search_pages
        from blogbuild.search.kept import ChunkLost
        from blogbuild.stages.search.pagefind import SearchUnavailable

        old = {} if fresh else previous
        staged: dict[bytes, Path] = {}  # the files staged, by the digest of their bytes
        with _collector_paused(not self.remember), search_pages.Spill() as spill:
            try:
                index = self._make(docs, keys, programs, render_again, spill, reading)
                try:
                    entries = stage_files(stage(), index, source, old, output, staged, seen)
                except ChunkLost:  # the cache lost a chunk the output lacks: all anew
                    self.layout = None
                    index = self._make(docs, keys, programs, render_again, spill, anew=True)
                    entries = stage_files(stage(), index, source, old, output, staged, seen)
            except SearchUnavailable as exc:
                cancel.check()  # Pagefind was stopped because the run was cancelled
                self.unavailable = str(exc)
                return {}, [warning("site.yaml", 0, f"search: {exc}, so the site is built without "
                                    "search; install it with `pip install 'pagefind[bin]'`, or "
                                    "set `search: false` in site.yaml")]
            # The cache's links to the staged chunks, before the build commits them.
            index.layout.keep_files("drafts" if self.drafts else "published", staged)
            layout = index.layout

            def finish() -> None:
                layout.write()
                search_pages.prune(keys, layout.key)

            if later is None:
                finish()
            else:
                later.append(finish)
            self.layout = index.layout if self.remember else None
            return entries, []

    def _make(self, docs: list[Doc], keys: list[str], programs: str,
              render_again: Callable[[set[str]], None], spill: search_pages.Spill,
              reading: Callable[[], None] = lambda: None, *, anew: bool = False) -> Made:
        """The index of `docs`: brought up to date from the last layout, or `anew`."""
        from blogbuild.search.chunks import from_scratch, update
        from blogbuild.search.layout import Layout, Made

        if self.ahead is not None:  # the pages read ahead are in the cache once it ends
            self.ahead.join()
            self.ahead = None
        layout = None if anew else self.layout or Layout.load()
        options = layout_key(programs)
        if layout is not None and layout.key != options:
            layout = None
        loading, self.loading = self.loading, None  # chunks loading since the pages came
        if loading is not None and (layout is None or layout is not self.layout):
            loading.join()  # of a layout not used
            loading = None
        parts = _Parts(self, docs, keys, options, render_again, spill, layout)
        missing = parts.missing()
        reading()
        # A new page's words are in nearly every chunk: the chunks' files are read from the
        # cache while Pagefind reads the page, not one by one after it.
        if (loading is None and layout is not None and missing
                and len(keys) > len(layout.pages)):
            loading = _load_chunks(layout.chunks)
        parts.read(missing)
        if loading is not None:
            loading.join()
        assert parts.runtime is not None
        self.runtime = parts.runtime
        pages = [parts.refs[key] for key in keys]
        fields = sorted({f for p in pages for f in p.fields})
        chunks = None
        if layout is not None:
            chunks = update(layout.pages_keys(), keys, parts.part, layout.fields, fields,
                            layout.chunks)
            if loading is not None:  # what was read ahead for a chunk the update kept
                for chunk in layout.chunks:
                    chunk.raw = None
        if chunks is None:
            chunks = from_scratch(len(keys), lambda n: parts.need(keys[n]), fields)
        return Made.of(parts.runtime, Layout(options, pages, fields, chunks), parts.need)


class _Parts:
    """The pages' parts of the index one make uses: those of the last layout, those in the
    cache, those Pagefind reads now. Parts read in this run are kept as bytes (an object
    per posting would hold ten times the memory), in the result cache or without one in
    `spill`, and decoded when needed."""

    def __init__(self, search: Search, docs: list[Doc], keys: list[str], options: str,
                 render_again: Callable[[set[str]], None], spill: search_pages.Spill,
                 layout: Layout | None) -> None:
        from blogbuild.search import pages as search_pages

        self.search, self.docs, self.keys, self.options = search, docs, keys, options
        self.render_again, self.spill = render_again, spill
        self.refs: dict[str, PageRef] = {} if layout is None else {
            r.key: r for r in layout.pages}
        self.runtime = search.runtime or search_pages.cached_runtime(options)

    def missing(self) -> list[int]:
        """The numbers of the pages whose parts are neither in the layout nor the cache."""
        from blogbuild.search.layout import PageRef

        missing = []
        for n, key in enumerate(self.keys):
            if key not in self.refs:
                found = self.part(key)
                if found is None:
                    missing.append(n)
                else:
                    self.refs[key] = PageRef.of(key, found)
        return missing

    def read(self, numbers: list[int]) -> None:
        """Have Pagefind read the pages `numbers` (one at least, for its runtime files)."""
        from blogbuild.search import pages as search_pages
        from blogbuild.search.layout import PageRef

        docs, keys = self.docs, self.keys
        if not numbers and self.runtime is not None:
            return
        if not numbers and docs:
            numbers = [0]  # for Pagefind's script and WebAssembly
        urls = self.search.config.urls
        by_url = {urls.url(docs[n].url): keys[n] for n in numbers}

        def keep(url: str, part: PageIndex) -> None:
            key = by_url[url]
            blob = part.dumps()
            if not search_pages.keep(key, blob):  # no cache
                self.spill.put(key, blob)
            self.refs.setdefault(key, PageRef.of(key, part))

        spare, self.search.spare = self.search.spare, None
        self.runtime = read_pages(self.search.config, [docs[n] for n in numbers],
                                  self.render_again, keep, spare)
        search_pages.keep_runtime(self.options, self.runtime)

    def part(self, key: str) -> PageIndex | None:
        from blogbuild.search import pages as search_pages

        return search_pages.decoded(self.spill.get(key) or search_pages.cached_bytes(key))

    def need(self, key: str) -> PageIndex:
        found = self.part(key)
        if found is None:  # the cache lost it
            self.spill.pop(key)
            self.read([self.keys.index(key)])
            found = self.part(key)
            assert found is not None
        return found


def _load_chunks(chunks: list[Chunk]) -> threading.Thread:
    """A thread that reads the chunks' files into memory and decompresses them (one the
    cache lost is left to the update, which makes the index anew then)."""
    from blogbuild.search.kept import ChunkLost

    def load() -> None:
        for chunk in chunks:
            with contextlib.suppress(ChunkLost):
                chunk.read_ahead()

    thread = threading.Thread(target=load, name="search-chunks", daemon=True)
    thread.start()
    return thread


@contextlib.contextmanager
def _collector_paused(paused: bool) -> Iterator[None]:
    """The cycle collector off while a one-run build makes its index: taking Pagefind's
    answers apart and gathering the words make millions of short-lived objects and hold
    a range of words' postings, none of them in cycles, and each full collection they set
    off went through the postings again (180 of them, 16 s of a 5,000-post build)."""
    if not paused or not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()
