"""What the live server tells the open pages after an update (reload them, swap a
stylesheet in place, show the errors), and what it logs."""

from __future__ import annotations

import logging

from blogbuild.diagnostics import Diagnostic
from blogbuild.serve.events import Broker
from blogbuild.serve.live import LiveBuild, Update
from blogbuild.stages.search.documents import FOLDER as SEARCH_FOLDER

log = logging.getLogger("blogbuild.serve")


def publish(broker: Broker, live: LiveBuild, update: Update, already: set[str],
            base: str) -> set[str]:
    """Tell the open pages what an update changed (`already`: the pages written ahead of
    its run, shown already; `base`: the site's path); returns the pages told to reload."""
    broker.set_errors(update.errors)
    if update.full:
        broker.publish("reload")
        return set()
    # The search index is no part of any page: it changes without a reload.
    index = {p for p in update.written | update.removed
             if p.startswith(SEARCH_FOLDER + "/")}
    # A page written ahead of the run with these very bytes is shown already.
    written = {p for p in update.written - already - index
               if not live.edited.same_as_written(live.output, p)}
    css = {p for p in written if p.endswith(".css")}
    pages = {p for p in written | (update.removed - index) if p in live.pages
             or p in update.removed or p.endswith(".html")}
    other = written - css - pages
    if update.restyled:  # pages that differ only in a renamed stylesheet: swapped in place
        pages = set()
    if css:
        broker.publish("css", {"paths": sorted(base + p for p in css),
                               "renamed": {base + old: base + new
                                           for old, new in update.restyled.items()}})
    if other:
        broker.publish("reload")  # an image or a script: any page may show it
    elif pages:
        broker.publish("reload", paths=pages)
    return pages if not other else written


def report(update: Update, previous: list[Diagnostic], *, initial: bool = False) -> None:
    """Log what an update found and did (`previous`: the errors the last one logged)."""
    for d in update.warnings:
        log.warning("%s", d.format())
    if update.errors != previous or initial:
        for d in update.errors:
            log.error("%s", d.format())
        if previous and not update.errors:
            log.info("errors fixed")
    for line in update.executed:
        log.info("%s", line)
    ms = update.seconds * 1000
    if update.full:
        log.info("built %d pages (%d sources rendered) in %.0f ms", update.pages,
                 update.rendered, ms)
    elif update.written or update.removed or update.rendered:
        log.info("%d files changed (%d sources rendered, %d pages rendered) in %.0f ms",
                 len(update.written) + len(update.removed), update.rendered, update.pages,
                 ms)
