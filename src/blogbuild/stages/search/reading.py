"""Pagefind's reading of pages: the documents of a batch sent to a Pagefind process, which
answers with an index that `blogbuild.search.pages` takes apart page by page. Pages go in
batches to two processes at once when there are many (Pagefind reads on one core)."""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

from blogbuild import cancel
from blogbuild.config_model import Config
from blogbuild.content.bodies import MissingBody
from blogbuild.stages.search.documents import Doc, page_document, pagefind_options
from blogbuild.stages.search.pagefind import Service

if TYPE_CHECKING:
    from blogbuild.search.pages import PageIndex, Runtime

#: From this many pages to read, two Pagefind processes read them.
_TWO_PROCESSES = 32
#: Pages per Pagefind index: a process's memory grows with the pages of its index.
_BATCH = 25


def start_pagefind(config: Config) -> Service | None:
    """A Pagefind process with an empty index for the site of `config`, to be handed to
    `read_pages`; None when it cannot start (the reading then says why)."""
    from blogbuild.stages.search.pagefind import SearchUnavailable

    if not config.search:
        return None
    try:
        return Service(pagefind_options(config))
    except SearchUnavailable:
        return None


def read_pages(config: Config, docs: list[Doc], render_again: Callable[[set[str]], None],
               keep: Callable[[str, PageIndex], None], spare: Service | None = None,
               ) -> Runtime:
    """Pagefind's reading of `docs`, handed to `keep` page by page with its URL; returns
    Pagefind's runtime. Raises SearchUnavailable. Pages go in batches to Pagefind
    processes, two at once when there are many (Pagefind reads on one core); each process
    makes a new index for each batch, so none holds more than a batch, and each document
    is made as it is sent. `render_again` renders
    the sources whose bodies the render store lost. `spare`: a process `start_pagefind`
    started ahead, for the first batch (closed here, whatever happens)."""
    from blogbuild.search.format import FormatError
    from blogbuild.stages.search.pagefind import SearchUnavailable

    reading = _Reading(config, keep, spare)
    todo = docs
    try:
        for _round in range(2):  # then once more for the pages whose bodies were lost
            reading.round(todo)
            if reading.errors or not reading.lost:
                break
            render_again(reading.digests)
            todo, reading.lost, reading.digests = list(reading.lost), [], set()
    finally:
        reading.close()
    for error in reading.errors:
        if isinstance(error, FormatError):
            raise SearchUnavailable(f"Pagefind wrote an index this version of blogbuild "
                                    f"cannot read ({error}); install pagefind 1.5") from None
        raise error
    if reading.lost:
        raise SearchUnavailable("the rendered bodies of some pages could not be read")
    return reading.runtimes[0]


class _Reading:
    """One `read_pages`: its Pagefind processes, what they answered, the pages whose
    bodies the render store lost (and their digests), the errors of its threads."""

    def __init__(self, config: Config, keep: Callable[[str, PageIndex], None],
                 spare: Service | None) -> None:
        self.config, self.keep = config, keep
        self.options = pagefind_options(config)
        if spare is not None and spare.config != self.options:
            spare.close()
            spare = None
        self.spares = [spare] if spare is not None else []
        self.token = cancel.current()
        self.runtimes: list[Runtime] = []
        self.errors: list[BaseException] = []
        self.lost: list[Doc] = []  # bodies the render store lost
        self.digests: set[str] = set()
        self.lock = threading.Lock()

    def round(self, todo: list[Doc]) -> None:
        """Read `todo`: in batches, by one process or two."""
        two = len(todo) >= _TWO_PROCESSES
        size = min(_BATCH, -(-len(todo) // 2)) if two else max(len(todo), 1)
        batches: queue.SimpleQueue[list[Doc] | None] = queue.SimpleQueue()
        for start in range(0, max(len(todo), 1), size):
            batches.put(todo[start:start + size])
        workers = [threading.Thread(target=self.work, args=(batches,), name="pagefind")
                   for _ in range(1 + two)]
        for worker in workers:
            batches.put(None)
            worker.start()
        for worker in workers:
            cancel.join(worker)
        self.token.check()

    def documents_of(self, batch: list[Doc], sent: list[Doc]) -> Iterator[tuple[str, str]]:
        for post in batch:
            self.token.check()
            try:
                document = page_document(post, self.config)
            except MissingBody as missing:
                with self.lock:
                    self.lost.append(post)
                    self.digests.add(missing.digest)
                continue
            sent.append(post)
            yield self.config.urls.url(post.url), document

    def work(self, batches: queue.SimpleQueue[list[Doc] | None]) -> None:
        """A thread: the batches of one Pagefind process, a new index for each."""
        service: list[Service] = []  # the process, once there is one (closed at the end)
        try:
            while (batch := batches.get()) is not None:
                if self.errors:
                    continue
                try:
                    self._batch(batch, service)
                except BaseException as exc:  # handed to the caller's thread
                    self.errors.append(exc)
        finally:
            for started in service:
                started.close()

    def _batch(self, batch: list[Doc], service: list[Service]) -> None:
        """Pagefind's index of `batch` taken apart page by page, by the process in
        `service` (one is put there first when there is none)."""
        from blogbuild.search.pages import split

        if not service:
            with self.lock:
                spare = self.spares.pop() if self.spares else None
            service.append(spare if spare is not None else Service(self.options))
        else:
            service[0].next_index()
        sent: list[Doc] = []
        with self.token.child(service[0].kill):
            service[0].add_many(self.documents_of(batch, sent))
            if batch and not sent:  # every body was lost: next round
                return
            files = service[0].files()
        runtime, found = split(files)
        del files
        with self.lock:
            if not self.runtimes:  # the same in every batch, a few hundred KiB
                self.runtimes.append(runtime)
            for url, part in found.items():
                self.keep(url, part)

    def close(self) -> None:
        """End the spare process no batch took (every batch failed before it, or the run
        was cancelled)."""
        with self.lock:
            left, self.spares[:] = list(self.spares), []
        for service in left:
            service.close()
