"""Pagefind's reading of pages: the documents of a batch sent to a Pagefind process, which
answers with an index that `blogbuild.search.pages` takes apart page by page. Pages go in
batches to two processes at once when there are many (Pagefind reads on one core)."""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

from blogbuild import cancel
from blogbuild.config import Config
from blogbuild.content.models import MissingBody
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
    from blogbuild.search.pages import split
    from blogbuild.stages.search.pagefind import SearchUnavailable

    options = pagefind_options(config)
    if spare is not None and spare.config != options:
        spare.close()
        spare = None
    spares = [spare] if spare is not None else []
    urls = config.urls
    token = cancel.current()
    runtimes: list[Runtime] = []
    errors: list[BaseException] = []
    lost: list[Doc] = []  # bodies the render store lost
    lock = threading.Lock()

    def documents_of(batch: list[Doc], sent: list[Doc]) -> Iterator[tuple[str, str]]:
        for post in batch:
            token.check()
            try:
                document = page_document(post, config)
            except MissingBody as missing:
                with lock:
                    lost.append(post)
                    digests.add(missing.digest)
                continue
            sent.append(post)
            yield urls.url(post.url), document

    def work(batches: queue.SimpleQueue[list[Doc] | None]) -> None:
        service: Service | None = None  # one process, a new index for each batch
        try:
            while (batch := batches.get()) is not None:
                if errors:
                    continue
                try:
                    if service is None:
                        with lock:
                            service = spares.pop() if spares else None
                        if service is None:
                            service = Service(options)
                    else:
                        service.next_index()
                    sent: list[Doc] = []
                    with token.child(service.kill):
                        service.add_many(documents_of(batch, sent))
                        if batch and not sent:  # every body was lost: next round
                            continue
                        files = service.files()
                    runtime, found = split(files)
                    del files
                    with lock:
                        if not runtimes:  # the same in every batch, a few hundred KiB
                            runtimes.append(runtime)
                        for url, part in found.items():
                            keep(url, part)
                except BaseException as exc:  # handed to the caller's thread
                    errors.append(exc)
        finally:
            if service is not None:
                service.close()

    todo = docs
    digests: set[str] = set()
    try:
        for _round in range(2):  # then once more for the pages whose bodies were lost
            two = len(todo) >= _TWO_PROCESSES
            size = min(_BATCH, -(-len(todo) // 2)) if two else max(len(todo), 1)
            batches: queue.SimpleQueue[list[Doc] | None] = queue.SimpleQueue()
            for start in range(0, max(len(todo), 1), size):
                batches.put(todo[start:start + size])
            workers = [threading.Thread(target=work, args=(batches,), name="pagefind")
                       for _ in range(1 + two)]
            for worker in workers:
                batches.put(None)
                worker.start()
            for worker in workers:
                cancel.join(worker)
            token.check()
            if errors or not lost:
                break
            render_again(digests)
            todo, lost[:], digests = list(lost), [], set()
    finally:
        with lock:  # not taken: every batch failed before it, or the run was cancelled
            left, spares[:] = list(spares), []
        for service in left:
            service.close()
    for error in errors:
        if isinstance(error, FormatError):
            raise SearchUnavailable(f"Pagefind wrote an index this version of blogbuild "
                                    f"cannot read ({error}); install pagefind 1.5") from None
        raise error
    if lost:
        raise SearchUnavailable("the rendered bodies of some pages could not be read")
    return runtimes[0]
