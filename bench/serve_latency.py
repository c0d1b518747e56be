#!/usr/bin/env python3
"""Time `blogbuild serve` from saving a file to the reload event a page receives.

    python3 PATH/TO/make_corpus.py --layout blog --n 1000 --out /tmp/c1k
    printf 'title: Bench\\nbase_url: "http://127.0.0.1/blogbuild/"\\n' > /tmp/c1k/site.yaml
    PYTHONPATH=src python3 bench/serve_latency.py /tmp/c1k --runs 15

Each scenario edits a file, then reads the page's event stream until its reload event;
"served" is when a fetch of the page, made on that event (as the browser does) and repeated
until it succeeds, returns the new text (then the page's stream is opened again, as a
reloaded page does); "done" is when the server finished the whole batch (listings, feeds,
search). `--only body` runs one scenario; `--json FILE` writes the figures.
`bench/run.py --serve` runs the `body` scenario at each corpus size;
bench/serve_browser.py times the same save up to the new text in Chromium's page.
"""

from __future__ import annotations

import argparse
import datetime as dt
import http.client
import json
import logging
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote, urlsplit

from blogbuild.serve.session import Session

#: Seconds to wait for a page to serve the new text before calling the run failed.
SERVED_TIMEOUT = 30.0


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


def wait_served(url: str, page_path: str, text: str) -> None:
    """Fetch the page until its HTML contains `text` (a reload may beat the write)."""
    parts = urlsplit(url)
    deadline = time.perf_counter() + SERVED_TIMEOUT
    while time.perf_counter() < deadline:
        conn = http.client.HTTPConnection(parts.hostname or "", parts.port, timeout=30)
        try:
            conn.request("GET", quote(page_path))
            if text in conn.getresponse().read().decode("utf-8", "replace"):
                return
        finally:
            conn.close()
        time.sleep(0.002)
    raise TimeoutError(f"{page_path} did not show {text!r} within {SERVED_TIMEOUT:.0f} s")


@dataclass(frozen=True)
class Scenario:
    """An edit made on run i, the page that shows it and the text it shows afterwards."""

    key: str
    name: str
    page: str
    edit: Callable[[int], None]
    marker: Callable[[int], str]


@dataclass
class Timings:
    to_event: list[float]
    to_served: list[float]
    to_done: list[float]
    cpu: list[float]


def measure(session: Session, scenario: Scenario, runs: int) -> Timings:
    url = session.url
    times = Timings([], [], [], [])
    for i in range(runs):
        stream = Stream(url, scenario.page)
        stream.until({"hello"})
        before = session.updates
        start = time.perf_counter()
        scenario.edit(i)
        stream.until({"reload"})
        times.to_event.append((time.perf_counter() - start) * 1000)
        wait_served(url, scenario.page, scenario.marker(i))
        times.to_served.append((time.perf_counter() - start) * 1000)
        # The reloaded page opens its stream again, as a browser's does: the server starts
        # the rest of the work once it has (or half a second after the reload).
        stream.close()
        stream = Stream(url, scenario.page)
        while session.updates == before:
            time.sleep(0.001)
        times.to_done.append((time.perf_counter() - start) * 1000)
        times.cpu.append(session.last_cpu * 1000)
        stream.close()
        time.sleep(0.15)
    return times


def stats(values: list[float]) -> dict[str, float]:
    """Median and p90 (nearest rank) of a list of milliseconds, plus its extremes."""
    ordered = sorted(values)
    p90 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.9))]
    return {"median": statistics.median(ordered), "p90": p90, "min": ordered[0],
            "max": ordered[-1], "n": len(ordered)}


def summary(name: str, values: list[float]) -> str:
    s = stats(values)
    return (f"{name}: median {s['median']:.0f} ms, p90 {s['p90']:.0f} ms, "
            f"min {s['min']:.0f}, max {s['max']:.0f} (n={s['n']:.0f})")


class Edits:
    """The scenarios' edits of one site; `restore` puts every source back as it was.

    A nonce in every edited text keeps a render cache left by an earlier session from
    answering the edit.
    """

    def __init__(self, site: Path) -> None:
        self.site = site
        self.nonce = f"{time.time_ns() % 0xFFFFFF:06x}"
        posts = sorted((site / "content" / "posts").glob("*.md"))
        self.originals = {p: p.read_bytes() for p in posts}
        self.added: list[Path] = []

    def body(self, post_source: str) -> Callable[[int], None]:
        path = self.site / "content" / post_source

        def edit(i: int) -> None:
            text = self.originals[path].decode()
            head, sep, rest = text.partition("\n\n")
            path.write_text(f"{head}{sep}{self.body_text(i)} {rest}")
        return edit

    def body_text(self, i: int) -> str:
        return f"Edit number {i} ({self.nonce}) of this paragraph."

    def title(self, post_source: str) -> Callable[[int], None]:
        path = self.site / "content" / post_source

        def edit(i: int) -> None:
            text = self.originals[path].decode()
            path.write_text(text.replace('title: "', f'title: "{self.title_text(i)} ', 1))
        return edit

    def title_text(self, i: int) -> str:
        return f"Retitled {i} ({self.nonce})"

    def new_post(self, i: int) -> None:
        path = self.site / "content" / "posts" / f"bench-new-{i:03d}.md"
        self.added.append(path)
        date = dt.datetime(2031, 1, 1) + dt.timedelta(hours=i)
        path.write_text(f'---\ntitle: "{self.new_title(i)}"\ndate: {date:%Y-%m-%dT%H:%M:%S}\n'
                        f"tags: [python]\n---\n\nA new post.\n")

    def new_title(self, i: int) -> str:
        return f"New post {i} ({self.nonce})"

    def restore(self) -> None:
        for path in self.added:
            path.unlink(missing_ok=True)
        self.added.clear()
        for path, data in self.originals.items():
            if path.read_bytes() != data:
                path.write_bytes(data)


def scenarios(session: Session, edits: Edits) -> list[Scenario]:
    live = session.live
    assert live is not None and live.site is not None
    base = live.base_path
    newest = live.site.posts[0]
    middle = live.site.posts[len(live.site.posts) // 2]
    return [
        Scenario("body", "body edit, post in the middle", base + middle.url.lstrip("/"),
                 edits.body(middle.source), edits.body_text),
        Scenario("body-newest", "body edit, newest post (in the feeds)",
                 base + newest.url.lstrip("/"), edits.body(newest.source), edits.body_text),
        Scenario("title", "title edit (site re-assembled)", base + middle.url.lstrip("/"),
                 edits.title(middle.source), edits.title_text),
        Scenario("new-post", "new post (listings, tags, feeds)", base, edits.new_post,
                 edits.new_title),
    ]


KEYS = ("body", "body-newest", "title", "new-post")


def run(site: Path, runs: int, only: list[str]) -> dict[str, object]:
    """Start a session on `site`, run the chosen scenarios, print and return the figures."""
    edits = Edits(site)
    results: dict[str, object] = {"posts": len(edits.originals)}
    session = Session(site / "site.yaml", port=0)  # output in a temporary folder it removes
    start = time.perf_counter()
    session.start()
    results["first_build_s"] = time.perf_counter() - start
    print(f"{len(edits.originals)} posts; first build {results['first_build_s']:.1f} s "
          f"({session.url})")
    try:
        for scenario in scenarios(session, edits):
            if scenario.key not in only:
                continue
            times = measure(session, scenario, runs)
            print(summary(f"{scenario.name}: save → reload event", times.to_event))
            print(summary(f"{scenario.name}: save → new text served", times.to_served))
            print(summary(f"{scenario.name}: save → batch done", times.to_done))
            print(summary(f"{scenario.name}: build-thread CPU per batch", times.cpu))
            results[scenario.key] = {
                "name": scenario.name, "to_event": stats(times.to_event),
                "to_served": stats(times.to_served), "to_done": stats(times.to_done),
                "cpu": stats(times.cpu)}
            edits.restore()
            time.sleep(0.5)
    finally:
        edits.restore()
        session.stop()
    return results


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("site", type=Path)
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--only", action="append", choices=KEYS,
                        help="run only this scenario (repeatable; default: all)")
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)
    results = run(args.site.resolve(), args.runs, args.only or list(KEYS))
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
