"""`blogbuild serve`: a real server on 127.0.0.1, real files edited, the SSE stream read back."""

from __future__ import annotations

import logging
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from blogbuild.serve.http import SNIPPET
from blogbuild.serve.session import Session
from css_helpers import stylesheets
from serve_helpers import BOUND, ROOT, Events, fetch, post, raw_get, wait_for

pytestmark = pytest.mark.server




def done_after(session: Session, before: int) -> None:
    wait_for(lambda: session.updates > before, "the rebuild")


# -- serving -------------------------------------------------------------------------------


def test_pages_and_assets_are_served_under_the_sub_path(site: Path,
                                                         start: Callable[..., Session]) -> None:
    session = start(site)
    url = session.url
    assert url.endswith("/blogbuild/") and url.startswith("http://127.0.0.1:")
    origin = url[: -len("/blogbuild/")]

    status, headers, _ = fetch(origin + "/")
    assert status == 302 and headers["Location"] == "/blogbuild/"
    status, headers, _ = fetch(origin + "/blogbuild")
    assert status == 302 and headers["Location"] == "/blogbuild/"

    status, headers, body = fetch(url)
    assert status == 200 and headers["Content-Type"] == "text/html; charset=utf-8"
    assert b"Third post" in body and b"Second post" in body
    assert b'src="/__blogbuild__/livereload.js" data-build="' in body

    status, headers, body = fetch(url + "posts/first/")
    assert status == 200 and b"The first body." in body
    assert b'href="/blogbuild/posts/second/"' in body  # the content link got the sub-path
    status, headers, _ = fetch(url + "posts/first")
    assert status == 302 and headers["Location"] == "/blogbuild/posts/first/"

    expected = {
        "css/main.css": "text/css; charset=utf-8",
        "x/mod.mjs": "text/javascript; charset=utf-8",
        "x/app.wasm": "application/wasm",
        "x/font.woff2": "font/woff2",
        "feed.xml": "application/xml",
        "sitemap.xml": "application/xml",
        "favicon.svg": "image/svg+xml",
        "robots.txt": "text/plain; charset=utf-8",
    }
    for rel, mime in expected.items():
        status, headers, body = fetch(url + rel)
        assert (status, headers["Content-Type"]) == (200, mime), rel
        assert headers["X-Content-Type-Options"] == "nosniff"
        assert int(headers["Content-Length"]) == len(body) > 0
    status, headers, body = fetch(origin + "/__blogbuild__/livereload.js")
    assert status == 200 and headers["Content-Type"] == "text/javascript; charset=utf-8"
    assert b"EventSource" in body

    status, headers, body = fetch(url + "x/app.wasm", "HEAD")
    assert status == 200 and body == b"" and headers["Content-Length"] == "8"
    status, headers, _ = fetch(url + "css/main.css")
    status, _, body = fetch(url + "css/main.css", headers={"If-None-Match": headers["ETag"]})
    assert status == 304 and body == b""

    status, headers, body = fetch(url + "no/such/page/")
    assert status == 404 and headers["Content-Type"].startswith("text/html")
    assert b"livereload.js" in body  # the theme's 404 page, which reloads too
    status, _, _ = fetch(origin + "/elsewhere/")
    assert status == 404
    status, _, _ = fetch(url, "POST")
    assert status == 405
    assert "Cross-Origin-Embedder-Policy" not in headers  # only with --isolate


def test_isolate_sends_coop_and_coep(site: Path, start: Callable[..., Session]) -> None:
    session = start(site, isolate=True, watch=False)
    _, headers, _ = fetch(session.url)
    assert headers["Cross-Origin-Opener-Policy"] == "same-origin"
    assert headers["Cross-Origin-Embedder-Policy"] == "require-corp"


def test_path_traversal_is_refused(site: Path, start: Callable[..., Session],
                                   tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("TOP-SECRET\n")
    session = start(site, watch=False)
    out = session.output
    (out / "leak.txt").symlink_to(secret)
    (out / "leakdir").symlink_to(tmp_path)
    attempts = [
        "/blogbuild/../secret.txt",
        "/blogbuild/../../secret.txt",
        "/blogbuild/%2e%2e/secret.txt",
        "/blogbuild/%2E%2E/%2e%2e/secret.txt",
        "/blogbuild/..%2fsecret.txt",
        "/blogbuild/css/..%2f..%2f..%2fsecret.txt",
        "/blogbuild/%252e%252e/secret.txt",
        "/blogbuild/..\\secret.txt",
        "/blogbuild/%5c..%5csecret.txt",
        "/blogbuild/leak.txt",
        "/blogbuild/leakdir/secret.txt",
        "/blogbuild/leakdir/",
        "/../secret.txt",
        "//secret.txt",
        "/blogbuild/%00",
    ]
    for target in attempts:
        status, body = raw_get(session, target)
        assert status in (403, 404), (target, status)
        assert b"TOP-SECRET" not in body, target
    assert raw_get(session, "/blogbuild/posts/../posts/first/")[0] == 403
    assert raw_get(session, "/blogbuild/posts/first/")[0] == 200


def test_snippet_only_in_serve_output(site: Path, start: Callable[..., Session],
                                      tmp_path: Path) -> None:
    from blogbuild.commands.build import build

    out = tmp_path / "built"
    build(site / "site.yaml", output=out, drafts=True)
    pages = list(out.rglob("*.html"))
    assert len(pages) > 5
    for page in pages:
        assert "__blogbuild__" not in page.read_text(), page
    session = start(site, watch=False)
    served = list(session.output.rglob("*.html"))
    assert {p.relative_to(session.output) for p in served} == {
        p.relative_to(out) for p in pages}
    for page in served:
        assert SNIPPET in page.read_text(), page


def test_busy_port_moves_to_the_next_one(site: Path, start: Callable[..., Session],
                                         caplog: pytest.LogCaptureFixture) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        with caplog.at_level(logging.WARNING, "blogbuild.serve"):
            session = start(site, port=port, watch=False)
    assert session.httpd is not None
    assert session.httpd.server_address[1] != port
    assert f"port {port} is in use; serving on port" in caplog.text
    assert fetch(session.url)[0] == 200


def test_binding_beyond_localhost_warns(site: Path, start: Callable[..., Session],
                                        caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, "blogbuild.serve"):
        start(site, host="0.0.0.0", watch=False)
    assert "bound to 0.0.0.0" in caplog.text


# -- live reload ---------------------------------------------------------------------------


def test_editing_a_post_reloads_its_page_only(site: Path,
                                              start: Callable[..., Session]) -> None:
    session = start(site)
    url = session.url
    events = Events(url, "/blogbuild/posts/first/")
    other = Events(url, "/blogbuild/about/")
    try:
        hello = events.until("hello")
        assert hello["errors"] == []
        other.until("hello")
        path = site / "content" / "posts" / "2024-01-10-first.md"
        before = session.updates
        started = time.monotonic()
        path.write_text(path.read_text().replace("See [the second]", "Read [the second]"))
        events.until("reload")
        elapsed = time.monotonic() - started
        assert elapsed < BOUND
        done_after(session, before)
        update = session.last_update
        assert update is not None and update.rendered == 1
        # Listings show title and summary (unchanged), the feeds the whole post; the
        # page's own reload goes out first.
        index = {p for p in update.written if p.startswith("pagefind/")}
        assert index  # the body changed: so did the search index
        assert update.written - index == {"posts/first/index.html", "feed.xml",
                                          "tags/alpha/feed.xml"}
        assert b"Read <a" in fetch(url + "posts/first/")[2]
        reloads = [e.paths for e in session.state.broker.history if e.name == "reload"]
        assert reloads == [frozenset({"posts/first/index.html"}),
                           frozenset({"feed.xml", "tags/alpha/feed.xml"})]
        # A new summary changes the listings that show it.
        before = session.updates
        path.write_text(path.read_text().replace("The first body.", "A new summary."))
        done_after(session, before)
        assert session.last_update is not None
        assert {"index.html", "page/2/index.html", "tags/alpha/index.html"} & (
            session.last_update.written)
        assert b"A new summary." in fetch(url + "tags/alpha/")[2]
    finally:
        events.close()
        other.close()


def test_the_edited_page_reloads_before_the_run(site: Path, start: Callable[..., Session],
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """The page of an edited post is written and reloaded ahead of the engine's run, which
    starts once the page was loaded again (its stream reopened): the feeds, listings and
    search index come after the page, which is not reloaded a second time for them."""
    from blogbuild.pipeline.engine import Engine
    from blogbuild.serve import session as session_module

    session = start(site)
    url = session.url
    run = Engine.run
    started = threading.Event()
    release = threading.Event()

    def held(self: Engine, *args: Any, **kwargs: Any) -> Any:
        started.set()
        assert release.wait(BOUND)
        return run(self, *args, **kwargs)

    monkeypatch.setattr(Engine, "run", held)
    monkeypatch.setattr(session_module, "SHOWN_WAIT", BOUND)
    events = Events(url, "/blogbuild/posts/first/")
    reopened = None
    try:
        events.until("hello")
        wait_for(lambda: "posts/first/index.html" in session.state.broker.open_pages(),
                 "the stream")
        path = site / "content" / "posts" / "2024-01-10-first.md"
        before = session.updates
        first = session.state.broker.last_id
        path.write_text(path.read_text().replace("See [the second]", "Read [the second]"))
        events.until("reload")
        assert b"Read <a" in fetch(url + "posts/first/")[2]
        time.sleep(0.2)
        assert not started.is_set()  # the run waits for the page to be loaded again
        reopened = Events(url, "/blogbuild/posts/first/")
        assert started.wait(BOUND)
        assert b"Read &lt;a" not in fetch(url + "feed.xml")[2]  # the run's part
        assert session.updates == before
        release.set()
        done_after(session, before)
        assert b"Read &lt;a" in fetch(url + "feed.xml")[2]
        reloads = [e.paths for e in session.state.broker.history
                   if e.name == "reload" and e.id > first]
        assert reloads == [frozenset({"posts/first/index.html"}),
                           frozenset({"feed.xml", "tags/alpha/feed.xml"})]
        update = session.last_update
        assert update is not None and update.rendered == 1
    finally:
        release.set()
        events.close()
        if reopened is not None:
            reopened.close()


def test_a_post_of_a_series_edited_ahead_of_the_run(
        site: Path, start: Callable[..., Session], caplog: pytest.LogCaptureFixture) -> None:
    """The page written ahead of the run shows the post's place in its series, as the run's
    page does (no second reload)."""
    posts = site / "content" / "posts"
    for name in ("2024-01-10-first.md", "2024-02-10-second.md"):
        path = posts / name
        path.write_text(path.read_text().replace("tags:", 'series: "Demo"\ntags:', 1))
    session = start(site)
    url = session.url
    path = posts / "2024-02-10-second.md"
    first = session.state.broker.last_id
    before = session.updates
    with caplog.at_level(logging.DEBUG, "blogbuild.serve"):
        path.write_text(path.read_text().replace("The second body.", "An edited body."))
        done_after(session, before)
    assert "written ahead of the run after" in caplog.text
    assert "posts/second/index.html" in caplog.text and "internal error" not in caplog.text
    page = fetch(url + "posts/second/")[2]
    assert b"An edited body." in page and b"Part 2 of 2" in page
    reloads = [e.paths for e in session.state.broker.history
               if e.name == "reload" and e.id > first]
    assert reloads[0] == frozenset({"posts/second/index.html"})
    assert all("posts/second/index.html" not in (paths or ()) for paths in reloads[1:]), (
        reloads, caplog.text)


def test_files_in_folders_no_build_reads_start_no_rebuild(site: Path,
                                                          start: Callable[..., Session]) -> None:
    """Python's bytecode beside a script a build-time block imports (a fresh checkout's first
    build writes it into static/), a git folder or node_modules in content/: not the site."""
    session = start(site, quiet=0.2)
    before = session.updates
    for rel in ("static/x/__pycache__/mod.cpython-311.pyc", "content/posts/.git/objects/ab",
                "content/node_modules/pkg/index.js", "content/.obsidian/workspace.json"):
        (site / rel).parent.mkdir(parents=True, exist_ok=True)
        (site / rel).write_bytes(b"not the site")
    time.sleep(1.0)  # five times the quiet time: a batch would have been taken
    assert session.updates == before
    (site / "static" / "x" / "mod.mjs").write_text("export const x = 2;\n")  # the site's
    done_after(session, before)
    assert fetch(session.url + "x/mod.mjs")[2] == b"export const x = 2;\n"


def test_a_change_during_the_first_build_neither_stops_the_server_nor_is_lost(
        site: Path, start: Callable[..., Session], monkeypatch: pytest.MonkeyPatch) -> None:
    """The first build may itself write into a watched folder (Python's bytecode of a
    script its blocks import), or the author saves while it runs."""
    from blogbuild.serve.live import LiveBuild

    path = site / "content" / "posts" / "2024-02-10-second.md"
    real_full = LiveBuild.full
    calls: list[int] = []

    def full(self: LiveBuild, *args: Any, **kwargs: Any) -> Any:
        if calls:
            return real_full(self, *args, **kwargs)
        calls.append(1)
        text = path.read_text()
        path.write_text(text.replace("The second body.", "Saved meanwhile."))
        time.sleep(0.5)  # the watcher has seen it while the first build runs
        update = real_full(self, *args, **kwargs)
        path.write_text(text.replace("The second body.", "Saved again."))
        time.sleep(0.5)  # and this one before the first build is out
        return update

    monkeypatch.setattr(LiveBuild, "full", full)
    session = start(site, quiet=0.2)
    wait_for(lambda: b"Saved again." in fetch(session.url + "posts/second/")[2],
             "the last save, built after the first build")


def test_a_burst_of_saves_is_one_rebuild(site: Path, start: Callable[..., Session]) -> None:
    session = start(site, quiet=0.5)
    path = site / "content" / "posts" / "2024-02-10-second.md"
    before = session.updates
    text = path.read_text().replace("The second body.", "Step 4.")
    # Like an editor writing a file in several steps: the batch waits while it is open (the
    # quiet time after its last write), however long each step takes. (Files closed after
    # writing end a batch at once: separate saves of a loaded machine may be two updates.)
    steps = [text[i * len(text) // 5:(i + 1) * len(text) // 5] for i in range(5)]
    with path.open("w", encoding="utf-8") as out:
        for step in steps:
            out.write(step)
            out.flush()
            time.sleep(0.05)
    done_after(session, before)
    time.sleep(0.7)
    assert session.updates == before + 1
    assert b"Step 4." in fetch(session.url + "posts/second/")[2]


def test_title_change_updates_listings_and_neighbours(site: Path,
                                                      start: Callable[..., Session]) -> None:
    session = start(site)
    path = site / "content" / "posts" / "2024-02-10-second.md"
    before = session.updates
    path.write_text(path.read_text().replace("Second post", "Renamed post"))
    done_after(session, before)
    update = session.last_update
    assert update is not None
    url = session.url
    for page in ["", "posts/first/", "posts/third/", "tags/alpha/", "tags/beta/", "archive/"]:
        assert b"Renamed post" in fetch(url + page)[2], page
    assert "posts/second/index.html" in update.written
    assert "about/index.html" not in update.written


def test_new_and_deleted_posts(site: Path, start: Callable[..., Session]) -> None:
    session = start(site)
    url = session.url
    events = Events(url, "/blogbuild/posts/fourth/")
    try:
        events.until("hello")
        assert fetch(url + "posts/fourth/")[0] == 404
        path = site / "content" / "posts" / "2024-04-10-fourth.md"
        before = session.updates
        path.write_text(post("Fourth post", "2024-04-10", "gamma", "Brand new."))
        events.until("reload")  # the page was a 404: any new page may be the one
        done_after(session, before)
        assert b"Brand new." in fetch(url + "posts/fourth/")[2]
        assert b"Fourth post" in fetch(url)[2]
        assert fetch(url + "tags/gamma/")[0] == 200
        before = session.updates
        path.unlink()
        done_after(session, before)
        assert fetch(url + "posts/fourth/")[0] == 404
        assert fetch(url + "tags/gamma/")[0] == 404
        assert b"Fourth post" not in fetch(url)[2]
    finally:
        events.close()


def test_stylesheet_change_swaps_css_without_reload(site: Path,
                                                    start: Callable[..., Session]) -> None:
    session = start(site)
    events = Events(session.url, "/blogbuild/posts/first/")
    try:
        events.until("hello")
        css = site / "static" / "css" / "main.css"
        before = session.updates
        css.write_text(css.read_text() + "\nbody { outline: 1px solid red; }\n")
        old = stylesheets(session.output / "posts" / "first" / "index.html")
        data = events.until("css")
        done_after(session, before)
        new = stylesheets(session.output / "posts" / "first" / "index.html")
        assert data["paths"] == sorted(["/blogbuild/css/main.css", *new])
        assert data["renamed"] == {old[0]: new[0]} and old != new  # the page's stylesheet
        assert b"outline: 1px solid red" in fetch(session.url + "css/main.css")[2]
        assert b"outline: 1px solid red" in fetch(session.url + new[0][len("/blogbuild/"):])[2]
        assert fetch(session.url + old[0][len("/blogbuild/"):])[0] == 404
        assert [e.name for e in session.state.broker.history] == ["css"]  # no reload
    finally:
        events.close()


def test_template_change_rebuilds_everything(site: Path, start: Callable[..., Session]) -> None:
    session = start(site)
    events = Events(session.url, "/blogbuild/about/")
    try:
        events.until("hello")
        footer = site / "templates" / "partials" / "footer.html"
        footer.parent.mkdir(parents=True)
        footer.write_text('<footer class="site-footer">Custom footer</footer>\n')
        events.until("reload")
        for page in ["", "about/", "posts/first/", "tags/"]:
            assert b"Custom footer" in fetch(session.url + page)[2], page
    finally:
        events.close()


def test_reconnecting_page_catches_up(site: Path, start: Callable[..., Session]) -> None:
    """A background tab closes its stream; back in front it asks what it missed."""
    session = start(site)
    _, _, body = fetch(session.url + "posts/third/")
    build = int(body.split(b'data-build="')[1].split(b'"')[0])
    path = site / "content" / "posts" / "2024-03-10-third.md"
    before = session.updates
    path.write_text(path.read_text().replace("The third body.", "Changed while away."))
    done_after(session, before)
    events = Events(session.url, "/blogbuild/posts/third/", since=build)
    try:
        events.until("hello")
        events.until("reload")
    finally:
        events.close()
    # A page the change did not concern is not reloaded on return: the first reload it
    # gets is for its own next change.
    quiet = Events(session.url, "/blogbuild/about/", since=build)
    try:
        name, hello = quiet.next()
        assert name == "hello"
        about = site / "content" / "about.md"
        about.write_text(about.read_text().replace("About this blog.", "About us."))
        assert quiet.until("reload")["build"] > hello["build"]
    finally:
        quiet.close()


# -- errors --------------------------------------------------------------------------------


def test_broken_post_shows_errors_and_recovers(site: Path,
                                               start: Callable[..., Session]) -> None:
    session = start(site)
    url = session.url
    events = Events(url, "/blogbuild/posts/second/")
    try:
        events.until("hello")
        path = site / "content" / "posts" / "2024-02-10-second.md"
        good = path.read_text()
        path.write_text(good.replace('title: "Second post"', 'title: "Second post\n'
                                     "tags: [oops").replace("The second body.", "Broken."))
        data = events.until("errors")
        assert len(data["errors"]) == 1
        error = data["errors"][0]
        assert error["file"] == "content/posts/2024-02-10-second.md"
        assert error["line"] >= 2 and "YAML" in error["message"]
        # The server keeps answering with the last good pages.
        status, _, body = fetch(url + "posts/second/")
        assert status == 200 and b"The second body." in body
        assert fetch(url)[0] == 200
        # A new page load is told about the errors straight away.
        late = Events(url, "/blogbuild/")
        try:
            assert late.until("hello")["errors"] == data["errors"]
        finally:
            late.close()
        path.write_text(good.replace("The second body.", "Fixed body."))
        assert events.until("errors")["errors"] == []
        events.until("reload")
        assert b"Fixed body." in fetch(url + "posts/second/")[2]
    finally:
        events.close()


def test_error_diagnostic_keeps_last_good_page(site: Path,
                                               start: Callable[..., Session]) -> None:
    """An error found after rendering (two posts want one URL) blocks that post only."""
    session = start(site)
    url = session.url
    path = site / "content" / "posts" / "2024-03-10-third.md"
    good = path.read_text()
    before = session.updates
    path.write_text(good.replace("---\n", "---\nslug: first\n", 1)
                    .replace("The third body.", "New text."))
    done_after(session, before)
    update = session.last_update
    assert update is not None and update.errors
    assert "content/posts/2024-03-10-third.md" in {e.file for e in update.errors}
    assert b"The third body." in fetch(url + "posts/third/")[2]
    before = session.updates
    path.write_text(good.replace("The third body.", "Repaired text."))
    done_after(session, before)
    assert session.last_update is not None and session.last_update.errors == []
    assert b"Repaired text." in fetch(url + "posts/third/")[2]


def test_missing_image_is_a_warning_that_updates_the_page(
        site: Path, start: Callable[..., Session]) -> None:
    session = start(site)
    path = site / "content" / "posts" / "2024-03-10-third.md"
    before = session.updates
    path.write_text(path.read_text().replace("The third body.",
                                             "![chart](missing.png) New text."))
    done_after(session, before)
    assert session.last_update is not None and session.last_update.errors == []
    assert b"New text." in fetch(session.url + "posts/third/")[2]


def test_broken_post_at_start_does_not_stop_the_server(site: Path,
                                                       start: Callable[..., Session]) -> None:
    path = site / "content" / "posts" / "2024-02-10-second.md"
    good = path.read_text()
    path.write_text("---\ntitle: [unclosed\n---\n\nBody.\n")
    session = start(site)
    url = session.url
    assert fetch(url + "posts/first/")[0] == 200
    assert fetch(url + "posts/second/")[0] == 404
    events = Events(url, "/blogbuild/posts/second/")
    try:
        errors = events.until("hello")["errors"]
        assert [e["file"] for e in errors] == ["content/posts/2024-02-10-second.md"]
        path.write_text(good)
        assert events.until("errors")["errors"] == []
        events.until("reload")
        assert fetch(url + "posts/second/")[0] == 200
    finally:
        events.close()


def test_template_error_keeps_serving_then_recovers(site: Path,
                                                    start: Callable[..., Session]) -> None:
    session = start(site)
    url = session.url
    footer = site / "templates" / "partials" / "footer.html"
    footer.parent.mkdir(parents=True)
    before = session.updates
    footer.write_text("<footer>{% if %}</footer>\n")
    done_after(session, before)
    update = session.last_update
    assert update is not None and update.errors
    assert "footer.html" in update.errors[0].file and update.errors[0].line == 1
    assert fetch(url + "posts/first/")[0] == 200
    before = session.updates
    footer.write_text("<footer>Fixed footer</footer>\n")
    done_after(session, before)
    assert session.last_update is not None and session.last_update.errors == []
    assert b"Fixed footer" in fetch(url + "posts/first/")[2]


def test_config_error_is_reported_and_fixed(site: Path, start: Callable[..., Session]) -> None:
    session = start(site)
    config = site / "site.yaml"
    good = config.read_text()
    before = session.updates
    config.write_text(good + "posts_per_pag: 3\n")
    done_after(session, before)
    update = session.last_update
    assert update is not None and update.errors
    assert "posts_per_pag" in update.errors[0].message
    before = session.updates
    config.write_text(good.replace("Serve Test", "Renamed Blog"))
    done_after(session, before)
    assert session.last_update is not None and session.last_update.errors == []
    assert b"Renamed Blog" in fetch(session.url)[2]


# -- the command ---------------------------------------------------------------------------


def test_ctrl_c_stops_the_command_cleanly(site: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    proc = subprocess.Popen(
        [sys.executable, "-m", "blogbuild", "serve", "--config", str(site / "site.yaml"),
         "--port", "0"],
        stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True, env=env,
        start_new_session=True,
    )
    try:
        assert proc.stderr is not None
        url = ""
        end = time.monotonic() + 60
        while time.monotonic() < end and not url:
            line = proc.stderr.readline()
            if " at http://" in line:
                url = line.split(" at ")[1].split()[0]
        assert url.startswith("http://127.0.0.1:") and url.endswith("/blogbuild/")
        assert fetch(url)[0] == 200
        events = Events(url, "/blogbuild/")  # an open stream must not hold the exit
        events.until("hello")
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=15) == 0
        rest = proc.stderr.read()
        assert "Traceback" not in rest
        events.close()
        with pytest.raises(ProcessLookupError):
            os.killpg(proc.pid, 0)  # no worker or helper process left behind
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


# -- incremental = full --------------------------------------------------------------------


def tree(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def test_incremental_output_equals_a_full_build(site: Path, tmp_path: Path) -> None:
    """After each kind of edit, the live output is byte for byte what a full build writes."""
    from blogbuild.config import load_config
    from blogbuild.pipeline.engine import Engine
    from blogbuild.serve.live import LiveBuild

    posts = site / "content" / "posts"
    live = LiveBuild(site / "site.yaml", output=tmp_path / "live", extra_head=SNIPPET)
    assert live.full().errors == []

    def check(path: Path, text: str | None, expect_rendered: int | None = None) -> None:
        if text is None:
            path.unlink()
        else:
            path.write_text(text)
        update = live.apply([path])
        assert update.errors == [], update.errors
        if expect_rendered is not None:
            assert update.rendered == expect_rendered
        full = tmp_path / f"full-{check.count}"  # type: ignore[attr-defined]
        check.count += 1  # type: ignore[attr-defined]
        engine = Engine(load_config(site / "site.yaml"), output=full, drafts=True,
                        use_cache=False, extra_head=SNIPPET)
        try:
            engine.run()
        finally:
            engine.close()  # its scratch folder
        ours, theirs = tree(live.output), tree(full)
        differ = sorted(k for k in ours.keys() | theirs.keys() if ours.get(k) != theirs.get(k))
        assert differ == [], f"after editing {path.name}"

    check.count = 0  # type: ignore[attr-defined]
    first, second = posts / "2024-01-10-first.md", posts / "2024-02-10-second.md"
    third, about = posts / "2024-03-10-third.md", site / "content" / "about.md"
    check(first, first.read_text().replace("See [the", "Do see [the"), 1)  # body
    check(first, first.read_text().replace("The first body.", "New summary."), 1)
    check(second, second.read_text().replace("Second post", "Retitled post"), 1)
    check(second, second.read_text().replace("alpha, beta", "beta, gamma"), 1)  # tags
    check(third, third.read_text().replace("2024-03-10", "2023-12-01"), 1)  # reorders
    check(third, third.read_text().replace("The third body.", "$x^2$ and code:\n\n"
                                           "```python\nprint(1)\n```\n"), 1)  # new needs
    check(about, about.read_text().replace("About this blog.", "About us."), 1)
    check(posts / "2024-05-01-new.md", post("New post", "2024-05-01", "alpha", "Hello."), 1)
    # A new URL: the post that links to it is rendered again, with the new href.
    check(second, second.read_text().replace("title:", "slug: moved\ntitle:"), 2)
    assert b"posts/moved/" in (live.output / "posts" / "first" / "index.html").read_bytes()
    # Deleted: links to it (the first post is rendered again), its tags and neighbours change.
    check(second, None, 1)
    bundle = posts / "2024-06-01-bundle"
    bundle.mkdir()
    (bundle / "chart.svg").write_text("<svg xmlns='http://www.w3.org/2000/svg'/>")
    check(bundle / "index.md", post("Bundle", "2024-06-01", "beta", "![c](chart.svg)"))
    check(bundle / "chart.svg", "<svg xmlns='http://www.w3.org/2000/svg'><g/></svg>", 0)
    check(site / "static" / "css" / "main.css", "body { color: red; }\n", 0)
    check(site / "static" / "css" / "extra.css", "p { color: blue; }\n", 0)  # a new file
    (site / "templates").mkdir()
    check(site / "templates" / "robots.txt", "User-agent: *\n")
    check(first, first.read_text().replace("title:", "draft: true\ntitle:"), 1)
    check(first, first.read_text(), 0)  # saved without a change: nothing to do


def test_ctrl_c_stops_serve_started_with_sigint_ignored(site: Path) -> None:
    """A shell or test runner may start serve with SIGINT ignored: Ctrl-C still stops it."""
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    proc = subprocess.Popen(
        [sys.executable, "-m", "blogbuild", "serve", "--config", str(site / "site.yaml"),
         "--port", "0", "--no-watch"],
        stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True, env=env,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN),
    )
    try:
        assert proc.stderr is not None
        end = time.monotonic() + 60
        while time.monotonic() < end and " at http://" not in proc.stderr.readline():
            pass
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=15) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_stylesheet_save_after_a_cancelled_edit_still_swaps_in_place(site: Path,
                                                                      tmp_path: Path) -> None:
    """A post edit whose run a newer save cancelled (its page went out early) is done again
    with a stylesheet save that follows: the pages still come together, the stylesheet is
    swapped in place, and the edit is in the output."""
    from blogbuild.cancel import Token
    from blogbuild.serve.live import LiveBuild, Update

    live = LiveBuild(site / "site.yaml", output=tmp_path / "live", extra_head=SNIPPET)
    assert live.full().errors == []
    post = site / "content" / "posts" / "2024-01-10-first.md"
    post.write_text(post.read_text().replace("The first body.", "The edited body."))
    early: list[Update] = []
    stale = Token()
    stale.stale()  # a newer save came: the run stops once its early pages are out
    assert live.apply([post], publish=early.append, token=stale).cancelled
    assert early and "posts/first/index.html" in early[0].written
    early.clear()
    css = site / "static" / "css" / "main.css"
    css.write_text(css.read_text() + "\nbody { outline: 1px solid red; }\n")
    update = live.apply([css], publish=early.append)
    assert not update.cancelled and update.errors == []
    assert early == []  # nothing went out ahead of the others
    assert update.restyled  # the browser swaps the stylesheet, it does not reload
    assert "The edited body." in (live.output / "posts/first/index.html").read_text()
