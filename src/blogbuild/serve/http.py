"""The live server's HTTP side: the output folder under the site's sub-path, plus SSE events.

Files are found by `blogbuild.serve.files` (nothing outside the output folder).
`/__blogbuild__/events` is a Server-Sent Events stream telling each page when to reload,
swap a stylesheet, or show the build errors (`blogbuild.serve.events`);
`/__blogbuild__/livereload.js` is the script that listens to it. Malformed requests,
bursts and clients that stall or vanish are answered or cut without stopping the server.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import select
import shutil
import socket
import threading
import time
from dataclasses import dataclass, field
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, quote, unquote, urlsplit

from blogbuild.serve.events import Broker, Event
from blogbuild.serve.files import TEXT_CHARSET, Forbidden, mime_type, resolve

log = logging.getLogger("blogbuild.serve")

PREFIX = "/__blogbuild__/"
EVENTS_PATH = PREFIX + "events"
CLIENT_PATH = PREFIX + "livereload.js"
#: Put into <head> of every page in serve mode only (Builder's `extra_head`); the server
#: writes the current build number into `data-build` when it sends the page.
SNIPPET = f'<script src="{CLIENT_PATH}" data-build="0" defer></script>'
_BUILD_MARK = b'data-build="0"'
CLIENT_JS = (Path(__file__).with_name("livereload.js")).read_bytes()

@dataclass
class ServerState:
    """What the request handlers read; the session replaces fields, never mutates them."""

    output: Path
    base_path: str = "/"
    isolate: bool = False
    broker: Broker = field(default_factory=Broker)


class DevHTTPServer(ThreadingHTTPServer):
    """One thread per connection, so a slow or stuck client never holds up the others."""

    daemon_threads = True
    # A page load opens dozens of connections at once (stylesheets, scripts, images, fonts);
    # the default backlog of 5 made the kernel refuse some of a burst. The kernel caps it
    # at net.core.somaxconn.
    request_queue_size = 1024
    #: Seconds a client has to send a whole request head. The socket timeout alone does not
    #: bound a client that sends one byte every few seconds (slowloris).
    head_timeout = 15.0

    def __init__(self, address: tuple[str, int], state: ServerState) -> None:
        self.state = state
        self._open: set[socket.socket] = set()
        self._open_lock = threading.Lock()
        self._heads: dict[socket.socket, float] = {}  # connection -> deadline of its head
        if ":" in address[0]:
            self.address_family = socket.AF_INET6
        super().__init__(address, DevHandler)

    def process_request(self, request: Any, client_address: Any) -> None:
        with self._open_lock:
            self._open.add(request)
        super().process_request(request, client_address)

    def shutdown_request(self, request: Any) -> None:
        with self._open_lock:
            self._open.discard(request)
            self._heads.pop(request, None)
        super().shutdown_request(request)

    def reading_head(self, sock: socket.socket, reading: bool) -> None:
        with self._open_lock:
            if reading:
                self._heads[sock] = time.monotonic() + self.head_timeout
            else:
                self._heads.pop(sock, None)

    def service_actions(self) -> None:
        """Called by serve_forever between polls (session.POLL): cut the connections whose request
        head is overdue, so their threads end (the handler reads EOF)."""
        now = time.monotonic()
        with self._open_lock:
            late = [sock for sock, deadline in self._heads.items() if deadline < now]
            for sock in late:
                del self._heads[sock]
        for sock in late:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)

    def handle_error(self, request: Any, client_address: Any) -> None:
        # A client that sends garbage or vanishes must neither stop the server nor print a
        # traceback between the build messages.
        log.debug("request from %s failed", client_address, exc_info=True)

    def close_connections(self) -> None:
        """End keep-alive and SSE connections so their threads finish."""
        self.state.broker.close()
        with self._open_lock:
            sockets = list(self._open)
        for sock in sockets:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)


class DevHandler(BaseHTTPRequestHandler):
    server: DevHTTPServer
    protocol_version = "HTTP/1.1"
    # Error answers to requests whose version cannot be read get a status line and headers
    # too (the standard default, HTTP/0.9, sends a bare body that clients cannot parse).
    default_request_version = "HTTP/1.0"
    server_version = "blogbuild-serve"
    timeout = 60  # idle keep-alive connections
    sse_ping = 15.0

    def handle_one_request(self) -> None:
        self.server.reading_head(self.connection, True)
        try:
            super().handle_one_request()
        finally:
            self.server.reading_head(self.connection, False)

    def parse_request(self) -> bool:
        # HTTP/0.9 ("GET /path" and nothing else) has no headers to end the request: the
        # standard handler would wait for them until the timeout. Nothing speaks it now.
        raw: bytes = getattr(self, "raw_requestline", b"")
        if len(raw.split()) == 2:
            self.requestline = raw.decode("latin-1").rstrip("\r\n")
            self.command, self.request_version = "", "HTTP/1.0"
            self.close_connection = True
            self.send_error(HTTPStatus.BAD_REQUEST, "HTTP/0.9 requests are not supported")
            return False
        parsed = super().parse_request()
        self.server.reading_head(self.connection, False)  # the answer may take its time
        return parsed

    def log_message(self, format: str, *args: Any) -> None:
        log.debug("%s " + format, self.address_string(), *args)

    def do_GET(self) -> None:
        self._handle(body=True)

    def do_HEAD(self) -> None:
        self._handle(body=False)

    def _not_allowed(self) -> None:
        self._send_text(HTTPStatus.METHOD_NOT_ALLOWED, "GET and HEAD only\n", body=True,
                        extra={"Allow": "GET, HEAD"})

    do_POST = do_PUT = do_DELETE = do_PATCH = _not_allowed

    # -- routing -------------------------------------------------------------------------

    def _handle(self, body: bool) -> None:
        try:
            self._route(body)
        except (BrokenPipeError, ConnectionResetError, TimeoutError):
            self.close_connection = True

    def _route(self, body: bool) -> None:
        state = self.server.state
        target = self.path
        if target.startswith(("http://", "https://")):
            target = urlsplit(target).path or "/"
        path, _, query = target.partition("#")[0].partition("?")
        if path == EVENTS_PATH:
            self._events(query)
            return
        if path == CLIENT_PATH:
            self._send_bytes(HTTPStatus.OK, CLIENT_JS, mime_type("x.js"), body)
            return
        base = state.base_path
        if not path.startswith(base):
            if path in ("/", "/index.html", base.rstrip("/")):
                self._redirect(base + ("?" + query if query else ""), body)
            else:
                self._not_found(body, f"nothing here: this site lives under {base}")
            return
        try:
            rel = unquote(path[len(base):], errors="strict")
        except UnicodeDecodeError:
            self._send_text(HTTPStatus.BAD_REQUEST,
                            "400 bad request: the path is not percent-encoded UTF-8\n", body)
            return
        try:
            file, add_slash = resolve(state.output, rel)
        except Forbidden:
            self._send_text(HTTPStatus.FORBIDDEN, "403 forbidden\n", body)
            return
        if add_slash:
            self._redirect(quote(path + "/") + ("?" + query if query else ""), body)
        elif file is None:
            self._not_found(body)
        else:
            self._send_file(file, HTTPStatus.OK, body)

    # -- responses -----------------------------------------------------------------------

    def _headers(self, status: int, ctype: str, length: int,
                 extra: dict[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(length))
        self.send_header("Cache-Control", "no-cache")
        self.send_header("X-Content-Type-Options", "nosniff")
        if self.server.state.isolate:
            self.send_header("Cross-Origin-Opener-Policy", "same-origin")
            self.send_header("Cross-Origin-Embedder-Policy", "require-corp")
        for key, value in (extra or {}).items():
            self.send_header(key, value)
        self.end_headers()

    def _send_bytes(self, status: int, data: bytes, ctype: str, body: bool,
                    extra: dict[str, str] | None = None) -> None:
        self._headers(status, ctype, len(data), extra)
        if body:
            self.wfile.write(data)

    def _send_text(self, status: int, text: str, body: bool,
                   extra: dict[str, str] | None = None) -> None:
        self._send_bytes(status, text.encode(), "text/plain" + TEXT_CHARSET, body, extra)

    def _redirect(self, location: str, body: bool) -> None:
        self._send_text(HTTPStatus.FOUND, f"see {location}\n", body, {"Location": location})

    def _not_found(self, body: bool, message: str = "404 not found") -> None:
        page = self.server.state.output / "404.html"
        if page.is_file():
            self._send_file(page, HTTPStatus.NOT_FOUND, body)
        else:
            self._send_text(HTTPStatus.NOT_FOUND, message + "\n", body)

    def _send_file(self, file: Path, status: int, body: bool) -> None:
        ctype = mime_type(file.name)
        if ctype.startswith("text/html"):
            build = self.server.state.broker.last_id  # read before the file: never too new
            data = file.read_bytes().replace(_BUILD_MARK, b'data-build="%d"' % build, 1)
            self._send_bytes(status, data, ctype, body)
            return
        with open(file, "rb") as fh:
            stat = os.fstat(fh.fileno())
            etag = f'"{stat.st_mtime_ns:x}-{stat.st_size:x}"'
            if status == HTTPStatus.OK and self.headers.get("If-None-Match") == etag:
                self.send_response(HTTPStatus.NOT_MODIFIED)
                self.send_header("ETag", etag)
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            self._headers(status, ctype, stat.st_size, {"ETag": etag})
            if body:
                shutil.copyfileobj(fh, self.wfile, 64 * 1024)

    # -- server-sent events --------------------------------------------------------------

    def _events(self, query: str) -> None:
        state = self.server.state
        params = parse_qs(query)
        try:
            since = int(params.get("since", ["-1"])[0])
        except ValueError:
            since = -1
        page = self._page_of(params.get("path", [""])[0])
        self.close_connection = True
        self.send_response(HTTPStatus.OK)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-store")
        self.send_header("Connection", "close")
        self.send_header("X-Accel-Buffering", "no")
        self.end_headers()
        broker = state.broker
        with broker._cond:
            last = broker.last_id
            errors = broker.errors
        self._emit("hello", {"build": last, "errors": errors, "server": broker.token})
        if page is None:
            self._stream(page, since, last)
            return
        broker.opened(page)
        try:
            self._stream(page, since, last)
        finally:
            broker.closed_page(page)

    def _stream(self, page: str | None, since: int, last: int) -> None:
        broker = self.server.state.broker
        if since >= 0:
            missed = broker.since(since)
            pending = [e for e in missed if e.id <= last] if missed is not None else None
            if pending is None or any(e.name == "css" or self._concerns(e, page)
                                      for e in pending):
                self._emit("reload", {"build": last})
                return
        quiet_since = time.monotonic()
        while True:
            # Wake up every second to notice a page that went away (its socket reads EOF),
            # so its thread ends now rather than at the next failed write.
            events = broker.wait(last, min(1.0, self.sse_ping))
            if events is None or self._client_gone():
                return
            if not events:
                if time.monotonic() - quiet_since >= self.sse_ping:
                    self.wfile.write(b": ping\n\n")
                    quiet_since = time.monotonic()
                continue
            quiet_since = time.monotonic()
            for event in events:
                last = event.id
                if event.name == "reload" and not self._concerns(event, page):
                    continue
                self._emit(event.name, event.data)

    def _client_gone(self) -> bool:
        try:
            readable, _, _ = select.select([self.connection], [], [], 0)
            return bool(readable) and self.connection.recv(1, socket.MSG_PEEK) == b""
        except (OSError, ValueError):
            return True

    def _page_of(self, url_path: str) -> str | None:
        """The output path a page URL is served from (None: it gets the 404 page)."""
        state = self.server.state
        if not url_path.startswith(state.base_path):
            return None
        try:
            file, _ = resolve(state.output, unquote(url_path[len(state.base_path):]))
        except (Forbidden, UnicodeDecodeError):
            return None
        if file is None:
            return None
        return file.relative_to(state.output.resolve()).as_posix()

    @staticmethod
    def _concerns(event: Event, page: str | None) -> bool:
        if event.name != "reload":
            return False
        return event.paths is None or page is None or page in event.paths

    def _emit(self, name: str, data: dict[str, Any]) -> None:
        payload = json.dumps(data, ensure_ascii=False)
        self.wfile.write(f"event: {name}\ndata: {payload}\n\n".encode())
