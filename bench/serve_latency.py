#!/usr/bin/env python3
"""Time `blogbuild serve` from saving a file to the reload event a page receives.

    python3 ../shared/bench/make_corpus.py --layout blog --n 1000 --out /tmp/c1k
    printf 'title: Bench\\nbase_url: "http://127.0.0.1/blogbuild/"\\n' > /tmp/c1k/site.yaml
    PYTHONPATH=src python3 bench/serve_latency.py /tmp/c1k --runs 15

Each scenario edits a file, then reads the page's event stream until its reload (or
stylesheet) event; "done" is when the server finished the whole batch (listings, feeds).
"""

from __future__ import annotations

import argparse
import http.client
import json
import logging
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from urllib.parse import quote, urlsplit

from blogbuild.commands.serve import Session


class Stream:
    """A page's SSE connection: (event name, data) pairs, with a deadline per read."""

    def __init__(self, url: str, page_path: str) -> None:
        parts = urlsplit(url)
        self.conn = http.client.HTTPConnection(parts.hostname or "", parts.port, timeout=30)
        self.conn.request("GET", f"/__blogbuild__/events?path={quote(page_path)}&since=-1")
        self.response = self.conn.getresponse()

    def next(self) -> tuple[str, dict[str, object]]:
        name, data = "", ""
        while True:
            line = self.response.readline().decode()
            if not line:
                raise EOFError("stream closed")
            line = line.rstrip("\n")
            if line.startswith("event: "):
                name = line[7:]
            elif line.startswith("data: "):
                data = line[6:]
            elif line == "" and name:
                return name, json.loads(data)

    def until(self, names: set[str]) -> tuple[str, dict[str, object]]:
        while True:
            name, data = self.next()
            if name in names:
                return name, data

    def close(self) -> None:
        self.conn.close()


def measure(session: Session, page: str, edit: Callable[[int], None], runs: int,
            events: set[str]) -> tuple[list[float], list[float], list[float]]:
    url = session.url
    to_event, to_done, cpu = [], [], []
    for i in range(runs):
        stream = Stream(url, page)
        stream.until({"hello"})
        before = session.updates
        start = time.perf_counter()
        edit(i)
        stream.until(events)
        to_event.append((time.perf_counter() - start) * 1000)
        while session.updates == before:
            time.sleep(0.001)
        to_done.append((time.perf_counter() - start) * 1000)
        cpu.append(session.last_cpu * 1000)
        stream.close()
        time.sleep(0.15)
    return to_event, to_done, cpu


def summary(name: str, values: list[float]) -> str:
    values = sorted(values)
    p90 = values[min(len(values) - 1, int(len(values) * 0.9))]
    return (f"{name}: median {statistics.median(values):.0f} ms, p90 {p90:.0f} ms, "
            f"min {values[0]:.0f}, max {values[-1]:.0f} (n={len(values)})")


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("site", type=Path)
    parser.add_argument("--runs", type=int, default=10)
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)
    site = args.site.resolve()
    posts = sorted((site / "content" / "posts").glob("*.md"))
    with tempfile.TemporaryDirectory() as tmp:
        session = Session(site / "site.yaml", port=0, output=Path(tmp) / "out")
        start = time.perf_counter()
        session.start()
        print(f"{len(posts)} posts; first build {time.perf_counter() - start:.1f} s "
              f"({session.url})")
        live = session.live
        assert live is not None and live.site is not None
        base = live.base_path
        newest = live.site.posts[0]
        middle = live.site.posts[len(live.site.posts) // 2]
        originals = {p: p.read_bytes() for p in posts}

        def body_edit(post_source: str) -> Callable[[int], None]:
            path = site / "content" / post_source

            def edit(i: int) -> None:
                text = originals[path].decode()
                head, sep, rest = text.partition("\n\n")
                path.write_text(f"{head}{sep}Edit number {i} of this paragraph. {rest}")
            return edit

        def title_edit(i: int) -> None:
            path = site / "content" / middle.source
            text = originals[path].decode()
            path.write_text(text.replace("title: \"", f"title: \"Retitled {i} ", 1))

        added: list[Path] = []

        def new_post(i: int) -> None:
            path = site / "content" / "posts" / f"bench-new-{i:03d}.md"
            added.append(path)
            path.write_text(f"---\ntitle: \"New post {i}\"\ndate: 2031-01-{i + 1:02d}\n"
                            f"tags: [python]\n---\n\nA new post.\n")

        try:
            scenarios = [
                ("body edit, post in the middle", base + middle.url.lstrip("/"),
                 body_edit(middle.source), {"reload"}),
                ("body edit, newest post (in the feeds)", base + newest.url.lstrip("/"),
                 body_edit(newest.source), {"reload"}),
                ("title edit (site re-assembled)", base + middle.url.lstrip("/"),
                 title_edit, {"reload"}),
                ("new post (listings, tags, feeds)", base, new_post, {"reload"}),
            ]
            for name, page, edit, events in scenarios:
                to_event, to_done, cpu = measure(session, page, edit, args.runs, events)
                print(summary(f"{name}: save → reload event", to_event))
                print(summary(f"{name}: save → batch done", to_done))
                print(summary(f"{name}: build-thread CPU per batch", cpu))
                for path, data in originals.items():
                    if path.read_bytes() != data:
                        path.write_bytes(data)
                time.sleep(0.5)
        finally:
            for path in added:
                path.unlink(missing_ok=True)
            for path, data in originals.items():
                if path.read_bytes() != data:
                    path.write_bytes(data)
            session.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
