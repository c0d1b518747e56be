"""`blogbuild serve` against bursts, malformed requests, vanishing clients and broken sites."""

from __future__ import annotations

import os
import select
import socket
import struct
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from blogbuild.diagnostics import ConfigError
from blogbuild.serve.http import DevHandler, DevHTTPServer
from blogbuild.serve.session import Session
from serve_helpers import BOUND, ROOT, Events, fetch, wait_for

pytestmark = pytest.mark.server


def address(session: Session) -> tuple[str, int]:
    assert session.httpd is not None
    host, port = session.httpd.server_address[:2]
    return str(host), int(port)


def exchange(session: Session, data: bytes, timeout: float = BOUND) -> bytes:
    """Send raw bytes, read until the server closes the connection."""
    with socket.create_connection(address(session), timeout=timeout) as sock:
        sock.sendall(data)
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    return answer


def status_of(answer: bytes) -> int | None:
    if not answer.startswith(b"HTTP/1."):
        return None
    return int(answer.split()[1])


def handler_threads() -> int:
    return sum("process_request" in t.name for t in threading.enumerate())


def assert_alive(session: Session) -> None:
    status, _, body = fetch(session.url + "posts/first/")
    assert status == 200 and b"The first body." in body


# -- load ----------------------------------------------------------------------------------


def test_a_burst_of_200_concurrent_requests_is_answered_in_full(
        site: Path, start: Callable[..., Session]) -> None:
    session = start(site, watch=False)
    clients = 200
    barrier = threading.Barrier(clients)
    answers: list[bytes] = []
    lock = threading.Lock()
    request = b"GET /blogbuild/posts/first/ HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"

    def client() -> None:
        barrier.wait(BOUND)
        try:
            answer = exchange(session, request)
        except OSError as exc:
            answer = repr(exc).encode()
        with lock:
            answers.append(answer)

    threads = [threading.Thread(target=client) for _ in range(clients)]
    began = time.monotonic()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(3 * BOUND)
    assert time.monotonic() - began < 3 * BOUND
    assert len(answers) == clients
    failed = [a[:80] for a in answers if status_of(a) != 200 or b"The first body." not in a]
    assert not failed, f"{len(failed)} of {clients} failed: {failed[:3]}"


# -- malformed requests --------------------------------------------------------------------

MALFORMED = {
    "garbage bytes": (b"\x00\x01\x02\xff garbage\r\n\r\n", 400),
    "no method": (b" / HTTP/1.1\r\n\r\n", 400),
    "HTTP/0.9": (b"GET /blogbuild/\r\n", 400),
    "unknown version": (b"GET /blogbuild/ HTTP/9.9\r\n\r\n", 505),
    "huge header": (b"GET /blogbuild/ HTTP/1.1\r\nX-Big: " + b"a" * 70_000 + b"\r\n\r\n", 431),
    "too many headers": (b"GET /blogbuild/ HTTP/1.1\r\n" + b"X: a\r\n" * 200 + b"\r\n", 431),
    "huge request line": (b"GET /" + b"a" * 70_000 + b" HTTP/1.1\r\n\r\n", 414),
    "invalid percent-encoding": (b"GET /blogbuild/%ff%fe HTTP/1.1\r\n\r\n", 400),
    "percent-encoded NUL": (b"GET /blogbuild/a%00b HTTP/1.1\r\n\r\n", 403),
    "raw NUL in the path": (b"GET /blogbuild/a\x00b HTTP/1.1\r\n\r\n", 403),
    "raw non-UTF-8 byte": (b"GET /blogbuild/caf\xe9 HTTP/1.1\r\n\r\n", 404),
    "absolute-form URI": (b"GET http://elsewhere.example/blogbuild/posts/first/ HTTP/1.1\r\n"
                          b"\r\n", 200),
    "asterisk target": (b"OPTIONS * HTTP/1.1\r\n\r\n", 501),
    "unsupported method": (b"POST /blogbuild/ HTTP/1.1\r\nContent-Length: 0\r\n\r\n", 405),
    "negative length": (b"GET /blogbuild/ HTTP/1.1\r\nContent-Length: -5\r\n\r\n", 200),
    "bad events query": (b"GET /__blogbuild__/events?since=%ff&path=%zz%00 HTTP/1.1\r\n"
                         b"\r\n", 200),
}


@pytest.mark.parametrize("name", sorted(MALFORMED))
def test_a_malformed_request_gets_an_answer_and_the_server_goes_on(
        name: str, site: Path, start: Callable[..., Session],
        capfd: pytest.CaptureFixture[str]) -> None:
    session = start(site, watch=False)
    data, expected = MALFORMED[name]
    with socket.create_connection(address(session), timeout=BOUND) as sock:
        sock.sendall(data)
        answer = sock.recv(65536)  # the head of the answer: the events stream never ends
    assert status_of(answer) == expected, answer[:100]
    assert_alive(session)
    assert "Traceback" not in capfd.readouterr().err


def test_blank_lines_only_close_the_connection(site: Path, start: Callable[..., Session]) -> None:
    session = start(site, watch=False)
    assert exchange(session, b"\r\n\r\n\r\n") == b""
    assert_alive(session)


def test_a_partial_request_is_dropped_after_the_timeout(
        site: Path, start: Callable[..., Session], monkeypatch: pytest.MonkeyPatch) -> None:
    """A client that sends half a request and stalls (slowloris) holds one thread until the
    timeout; every other client is served meanwhile."""
    monkeypatch.setattr(DevHandler, "timeout", 1.0)
    session = start(site, watch=False)
    stalled = [socket.create_connection(address(session), timeout=BOUND) for _ in range(20)]
    try:
        for sock in stalled:
            sock.sendall(b"GET /blogbuild/ HTTP/1.1\r\nHost: x\r\nX-Slow: ")
        assert_alive(session)
        began = time.monotonic()
        for sock in stalled:
            assert sock.recv(1024) == b""  # closed by the server, no answer
        assert time.monotonic() - began < 1.0 + BOUND / 2
    finally:
        for sock in stalled:
            sock.close()
    assert_alive(session)


def test_a_request_sent_a_byte_at_a_time_is_cut_at_the_head_deadline(
        site: Path, start: Callable[..., Session], monkeypatch: pytest.MonkeyPatch) -> None:
    """Each byte comes before the socket timeout, so only the deadline for the whole
    request head ends it."""
    monkeypatch.setattr(DevHTTPServer, "head_timeout", 1.0)
    session = start(site, watch=False)
    request = b"GET /blogbuild/ HTTP/1.1\r\nHost: x\r\n" + b"X-Slow: " + b"a" * 200
    with socket.create_connection(address(session), timeout=BOUND) as sock:
        began = time.monotonic()
        closed = False
        for byte in request:
            try:
                sock.sendall(bytes([byte]))
            except OSError:
                closed = True
                break
            readable, _, _ = select.select([sock], [], [], 0.1)
            if readable and sock.recv(1024) == b"":
                closed = True
                break
        assert closed, "the server kept reading a request head for 20 s"
        assert time.monotonic() - began < 1.0 + 2.0
    assert_alive(session)


def test_a_client_that_vanishes_mid_response(site: Path, start: Callable[..., Session],
                                             capfd: pytest.CaptureFixture[str]) -> None:
    (site / "static" / "big.bin").write_bytes(os.urandom(1024) * 8 * 1024)  # 8 MB
    session = start(site, watch=False)
    for _ in range(5):
        sock = socket.create_connection(address(session), timeout=BOUND)
        sock.sendall(b"GET /blogbuild/big.bin HTTP/1.1\r\nHost: x\r\n\r\n")
        assert sock.recv(4096).startswith(b"HTTP/1.1 200")
        # Close with a reset, not a polite FIN: the server's next write fails at once.
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        sock.close()
    wait_for(lambda: handler_threads() == 0, "the handler threads to end")
    assert_alive(session)
    assert "Traceback" not in capfd.readouterr().err


def test_an_events_client_that_vanishes(site: Path, start: Callable[..., Session]) -> None:
    session = start(site, watch=False)
    for _ in range(5):
        with socket.create_connection(address(session), timeout=BOUND) as sock:
            sock.sendall(b"GET /__blogbuild__/events?path=/blogbuild/ HTTP/1.1\r\n\r\n")
            head = b""
            while b"event: hello" not in head:
                head += sock.recv(4096)
    wait_for(lambda: handler_threads() == 0, "the events handlers to end")
    session.state.broker.publish("reload")
    assert_alive(session)


def test_an_edit_that_lands_on_a_static_file_is_an_error(site: Path,
                                                          start: Callable[..., Session]) -> None:
    """The live server checks collisions with the registry the full build uses: a page
    whose new slug lands on a static file is refused and the static file stays."""
    (site / "static" / "taken").mkdir()
    (site / "static" / "taken" / "index.html").write_text("<p>the static page</p>\n")
    session = start(site, watch=True)
    before = session.updates
    (site / "content" / "about.md").write_text("---\ntitle: About\nslug: taken\n---\n\nMoved.\n")
    wait_for(lambda: session.updates > before, "the rebuild")
    update = session.last_update
    assert update is not None
    assert [e.file for e in update.errors] == ["content/about.md"]
    assert "static/taken/index.html" in update.errors[0].message
    assert b"the static page" in fetch(session.url + "taken/")[2]
    assert fetch(session.url + "about/")[0] == 200  # the last good version stays


def test_a_file_swapped_for_a_link_out_of_the_site_is_not_served(
        site: Path, start: Callable[..., Session], tmp_path: Path,
        caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level("INFO", "blogbuild.serve")
    secret = tmp_path / "secret.txt"
    secret.write_text("TOP SECRET\n")
    (site / "content" / "notes.txt").write_text("public notes\n")
    session = start(site, watch=True)
    assert b"public notes" in fetch(session.url + "notes.txt")[2]
    for source, url in ((site / "content" / "notes.txt", "notes.txt"),
                        (site / "static" / "x" / "mod.mjs", "x/mod.mjs")):
        source.unlink()
        source.symlink_to(secret)
        warning = f"{source.relative_to(site).as_posix()}: warning: symbolic link to a file " \
                  "outside the site"
        wait_for(lambda w=warning: w in caplog.text, "the warning")  # type: ignore[misc]
        assert b"TOP SECRET" not in fetch(session.url + url)[2]


# -- start-up with a broken site -----------------------------------------------------------


def test_an_impossible_date_at_start_serves_the_rest(site: Path,
                                                     start: Callable[..., Session]) -> None:
    broken = site / "content" / "posts" / "2024-02-10-second.md"
    broken.write_text("---\ntitle: Second\ndate: 2024-02-30\n---\n\nBody.\n")
    session = start(site, watch=False)
    assert_alive(session)
    events = Events(session.url, "/blogbuild/")
    try:
        errors = events.until("hello")["errors"]
        assert [e["file"] for e in errors] == ["content/posts/2024-02-10-second.md"]
    finally:
        events.close()


def test_two_posts_for_one_url_at_start_serve_the_rest(site: Path,
                                                       start: Callable[..., Session]) -> None:
    (site / "content" / "posts" / "copy.md").write_text("---\ntitle: C\nslug: third\n---\nx\n")
    session = start(site, watch=False)
    assert_alive(session)
    events = Events(session.url, "/blogbuild/")
    try:
        errors = events.until("hello")["errors"]
        assert errors and "content/posts/2024-03-10-third.md" in errors[0]["message"]
    finally:
        events.close()


def test_a_template_error_at_start_shows_the_overlay(site: Path,
                                                     start: Callable[..., Session]) -> None:
    footer = site / "templates" / "partials" / "footer.html"
    footer.parent.mkdir(parents=True)
    footer.write_text("<footer>{% if %}</footer>\n")
    session = start(site, watch=False)
    status, _, body = fetch(session.url)
    assert status == 200 and b"__blogbuild__/livereload.js" in body
    events = Events(session.url, "/blogbuild/")
    try:
        errors = events.until("hello")["errors"]
        assert errors and errors[0]["file"].endswith("footer.html") and errors[0]["line"] == 1
    finally:
        events.close()


def test_serving_into_the_site_folder_is_refused(site: Path,
                                                 start: Callable[..., Session]) -> None:
    before = sorted(p.relative_to(site) for p in site.rglob("*"))
    for output in (site, site / "content", site / "static" / "x", site.parent):
        with pytest.raises(ConfigError, match="--output"):
            start(site, output=output)
    assert sorted(p.relative_to(site) for p in site.rglob("*")) == before


def test_a_broken_site_yaml_at_start_exits_with_the_error(site: Path) -> None:
    """Without a valid site.yaml there is no site to serve: the command says what is wrong
    (file and line) and exits 1 at once; it does not wait for a fix."""
    (site / "site.yaml").write_text("title: T\nbase_url: [unclosed\n")
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    proc = subprocess.run([sys.executable, "-m", "blogbuild", "serve", "--port", "0"],
                          cwd=site, env=env, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1
    assert "site.yaml:" in proc.stderr and "invalid YAML" in proc.stderr
    assert "Traceback" not in proc.stderr and "internal error" not in proc.stderr
