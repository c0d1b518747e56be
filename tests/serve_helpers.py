"""Helpers of the live-server tests: a tiny site, an SSE reader, raw HTTP requests."""

from __future__ import annotations

import http.client
import json
import shutil
import socket
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlsplit

from blogbuild.serve.session import Session
from blogbuild.themefiles import theme_static

ROOT = Path(__file__).resolve().parent.parent
BOUND = 10.0  # seconds: generous for a loaded CI machine; the happy path takes ~0.1 s

SITE_YAML = """\
title: "Serve Test"
base_url: "http://127.0.0.1/blogbuild/"
posts_per_page: 2
nav:
  - title: Posts
    url: /
  - title: About
    url: /about/
"""


def post(title: str, date: str, tags: str, body: str) -> str:
    return f"---\ntitle: \"{title}\"\ndate: {date}\ntags: [{tags}]\n---\n\n{body}\n"


def make_site(root: Path) -> Path:
    """A four-document site with a stylesheet override and assets of every MIME kind."""
    posts = root / "content" / "posts"
    posts.mkdir(parents=True)
    (root / "site.yaml").write_text(SITE_YAML)
    (posts / "2024-01-10-first.md").write_text(
        post("First post", "2024-01-10", "alpha", "The first body.\n\nSee [the second]"
             "(2024-02-10-second.md)."))
    (posts / "2024-02-10-second.md").write_text(
        post("Second post", "2024-02-10", "alpha, beta", "The second body."))
    (posts / "2024-03-10-third.md").write_text(
        post("Third post", "2024-03-10", "beta", "The third body.\n\n" + "Filler text. " * 40))
    (root / "content" / "about.md").write_text("---\ntitle: About\n---\n\nAbout this blog.\n")
    static = root / "static"
    (static / "css").mkdir(parents=True)
    shutil.copyfile(theme_static() / "css" / "main.css", static / "css" / "main.css")
    (static / "x").mkdir()
    (static / "x" / "mod.mjs").write_text("export const x = 1;\n")
    (static / "x" / "app.wasm").write_bytes(b"\0asm\x01\0\0\0")
    (static / "x" / "font.woff2").write_bytes(b"wOF2" + b"\0" * 60)
    return root


class Events:
    """A page's SSE stream: read (event, data) pairs with a deadline."""

    def __init__(self, url: str, page_path: str, since: int | None = None) -> None:
        parts = urlsplit(url)
        self.conn = http.client.HTTPConnection(parts.hostname or "", parts.port, timeout=BOUND)
        query = f"path={quote(page_path)}" + (f"&since={since}" if since is not None else "")
        self.conn.request("GET", f"/__blogbuild__/events?{query}")
        self.response = self.conn.getresponse()
        assert self.response.status == 200
        assert self.response.getheader("Content-Type") == "text/event-stream"
        self.seen: list[tuple[str, dict[str, Any]]] = []

    def next(self) -> tuple[str, dict[str, Any]]:
        name, data = "", ""
        while True:
            line = self.response.readline().decode()
            if not line:
                raise EOFError("the server closed the stream")
            line = line.rstrip("\n")
            if line.startswith("event: "):
                name = line[len("event: "):]
            elif line.startswith("data: "):
                data = line[len("data: "):]
            elif not line and name:
                self.seen.append((name, json.loads(data)))
                return self.seen[-1]

    def until(self, name: str, deadline: float = BOUND) -> dict[str, Any]:
        end = time.monotonic() + deadline
        while time.monotonic() < end:
            event, data = self.next()
            if event == name:
                return data
        raise AssertionError(f"no {name!r} event within {deadline} s: {self.seen}")

    def close(self) -> None:
        self.conn.close()


def fetch(url: str, method: str = "GET",
          headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], bytes]:
    parts = urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname or "", parts.port, timeout=BOUND)
    try:
        conn.request(method, parts.path + (f"?{parts.query}" if parts.query else ""),
                     headers=headers or {})
        response = conn.getresponse()
        return response.status, dict(response.getheaders()), response.read()
    finally:
        conn.close()


def raw_get(session: Session, target: str) -> tuple[int, bytes]:
    """Send `target` byte for byte (no client-side normalisation of `..`)."""
    assert session.httpd is not None
    host, port = session.httpd.server_address[:2]
    with socket.create_connection((str(host), port), timeout=BOUND) as sock:
        sock.sendall(f"GET {target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".encode())
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    return int(head.split()[1]), body


def wait_for(predicate: Callable[[], bool], what: str, deadline: float = BOUND) -> None:
    end = time.monotonic() + deadline
    while time.monotonic() < end:
        if predicate():
            return
        time.sleep(0.01)
    raise AssertionError(f"timed out waiting for {what}")

