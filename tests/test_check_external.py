"""`blogbuild check --external` against a real HTTP server on 127.0.0.1 (no other network)."""

from __future__ import annotations

import http.server
import itertools
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import pytest

from blogbuild.check.external import USER_AGENT, Checker, ResultCache
from blogbuild.check.run import Options, check

INTERVAL = 0.3


@dataclass
class Seen:
    requests: list[tuple[float, str, str, str]] = field(default_factory=list)
    hosts: list[tuple[str, float]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def paths(self) -> list[str]:
        return [path for _, _, path, _ in self.requests]


class _Handler(http.server.BaseHTTPRequestHandler):
    seen: ClassVar[Seen]
    busy_once: ClassVar[set[str]]

    def _answer(self) -> None:
        with self.seen.lock:
            self.seen.requests.append((time.monotonic(), self.command, self.path,
                                       self.headers.get("User-Agent", "")))
            self.seen.hosts.append((self.headers.get("Host", ""), time.monotonic()))
        path = self.path
        if path == "/slow":
            time.sleep(1.0)
        if path == "/nohead" and self.command == "HEAD":
            return self._send(405)
        if path == "/busy" and path not in self.busy_once:
            self.busy_once.add(path)
            return self._send(429, {"Retry-After": "1"})
        redirects = {"/moved": (301, "/ok"), "/temp": (302, "/ok"), "/loop": (302, "/loop"),
                     "/file": (301, "file:///etc/passwd")}
        if path in redirects:
            status, where = redirects[path]
            return self._send(status, {"Location": where})
        self._send(200 if path in ("/ok", "/nohead", "/busy", "/slow", "/caf%C3%A9") or
                   path.startswith("/page") else 404)

    def _send(self, status: int, headers: dict[str, str] | None = None) -> None:
        self.send_response(status)
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.send_header("Content-Length", "0")
        self.end_headers()

    do_GET = do_HEAD = _answer

    def log_message(self, format: str, *args: Any) -> None:
        return


@pytest.fixture
def server() -> Iterator[tuple[str, Seen]]:
    seen = Seen()
    handler = type("Handler", (_Handler,), {"seen": seen, "busy_once": set()})
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}", seen
    finally:
        httpd.shutdown()
        httpd.server_close()


def test_statuses_redirects_and_retries(server: tuple[str, Seen]) -> None:
    base, seen = server
    checker = Checker(timeout=0.5, interval=0.0)
    results = {path: checker.check_one(base + path)
               for path in ("/café", "/ok", "/missing", "/moved", "/temp", "/nohead", "/busy",
                            "/slow", "/loop", "/file")}
    assert results["/ok"].severity == ""
    assert results["/café"].severity == ""  # sent as /caf%C3%A9
    assert results["/missing"].severity == "error"
    assert "answered HTTP 404" in results["/missing"].message
    assert results["/moved"].severity == "info"
    assert results["/moved"].message.endswith(f"moved permanently to {base}/ok; link to the "
                                              "new address")
    assert results["/temp"].severity == ""  # a temporary redirect is no news
    assert results["/nohead"].severity == ""  # HEAD refused: GET asked
    assert ("GET", "/nohead") in [(m, p) for _, m, p, _ in seen.requests]
    assert results["/busy"].severity == ""  # 429, waited Retry-After, then fine
    busy = [t for t, _, p, _ in seen.requests if p == "/busy"]
    assert len(busy) == 2 and busy[1] - busy[0] >= 0.95
    assert results["/slow"].severity == "error" and "timed out" in results["/slow"].message
    assert "redirects more than" in results["/loop"].message
    assert "not a web address" in results["/file"].message
    assert {agent for *_, agent in seen.requests} == {USER_AGENT}
    assert "blogbuild" in USER_AGENT


def test_requests_to_one_host_are_spaced(server: tuple[str, Seen]) -> None:
    base, seen = server
    other = base.replace("127.0.0.1", "localhost")
    urls = [f"{base}/page{i}" for i in range(4)] + [f"{other}/page{i}" for i in range(4)]
    results = Checker(interval=INTERVAL).check(urls)
    assert all(r.severity == "" for r in results.values())
    by_host: dict[str, list[float]] = {}
    for host, t in seen.hosts:
        by_host.setdefault(host.split(":")[0], []).append(t)
    assert sorted(by_host) == ["127.0.0.1", "localhost"]
    for times in by_host.values():
        assert len(times) == 4
        gaps = [b - a for a, b in itertools.pairwise(times)]
        # Each host waits its turn. The times are the server's: a busy machine may note one
        # request late, which shortens the next gap (0.25 s once, with three test workers
        # on two cores), but it cannot make the requests come sooner on average.
        assert min(gaps) >= INTERVAL / 2, gaps
        assert (times[-1] - times[0]) / len(gaps) >= INTERVAL - 0.02, gaps
    # Two hosts at once, not one after the other: their requests interleave.
    local, named = by_host["127.0.0.1"], by_host["localhost"]
    assert min(named) < max(local) and min(local) < max(named)


def test_the_cache_keeps_working_links_and_asks_again_about_failures(
        server: tuple[str, Seen], tmp_path: Path) -> None:
    base, seen = server
    path = tmp_path / "links.json"
    urls = [base + "/ok", base + "/missing", base + "/moved"]
    first = Checker(interval=0.0, cache=ResultCache(path)).check(urls)
    asked = len(seen.requests)
    second = Checker(interval=0.0, cache=ResultCache(path)).check(urls)
    assert {u: r.message for u, r in second.items()} == {u: r.message for u, r in first.items()}
    assert seen.paths()[asked:] == ["/missing"]  # the failure only
    expired = ResultCache(path, keep=0.0)
    Checker(interval=0.0, cache=expired).check([base + "/ok"])
    assert seen.paths()[-1] == "/ok"


def test_check_external_end_to_end(server: tuple[str, Seen], tmp_path: Path) -> None:
    base, seen = server
    site = tmp_path / "site"
    (site / "content/posts").mkdir(parents=True)
    (site / "site.yaml").write_text('title: X\nbase_url: "https://example.org/"\n'
                                    f"check:\n  ignore: ['{base}/ignored*']\n")
    (site / "content/posts/2024-01-01-links.md").write_text(
        f"---\ntitle: Links\n---\n\n[fine]({base}/ok)\n\n[gone]({base}/missing)\n\n"
        f"<a href=\"{base}/moved\">moved</a>\n\n[skip]({base}/ignored/x)\n")
    options = Options(external=True, portability=False, interval=0.0)
    found = {(f.file, f.line, f.severity, f.kind, f.target)
             for f in check(site / "site.yaml", options=options).findings}
    post = "content/posts/2024-01-01-links.md"
    assert found == {(post, 7, "error", "external", f"{base}/missing"),
                     (post, 9, "info", "external", f"{base}/moved")}
    assert "/ignored/x" not in seen.paths()
    asked = len(seen.requests)
    check(site / "site.yaml", options=options)
    assert seen.paths()[asked:] == ["/missing"]  # the cache answered for the rest
    check(site / "site.yaml", options=Options(external=True, portability=False,
                                              interval=0.0, use_cache=False))
    assert len(seen.requests) > asked + 1
    assert not (site / "_site").exists()
