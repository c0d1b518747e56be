"""Shared fixtures: building sites, a real HTTP server on 127.0.0.1, headless Chromium."""

from __future__ import annotations

import contextlib
import functools
import http.server
import shutil
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar
from urllib.parse import urlsplit

import pytest

from preloaded import Preloaded

if TYPE_CHECKING:
    from blogbuild.serve.session import Session

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = "/usr/bin/chromium"
LOCAL_HOSTS = {"127.0.0.1", "localhost"}


def build_site(
    site_dir: Path, out_dir: Path, *, base_url: str | None = None, drafts: bool = False
) -> Path:
    """Build the site in `site_dir` into `out_dir` with the real build command; returns out_dir."""
    from blogbuild.commands.build import build

    build(site_dir / "site.yaml", output=out_dir, base_url=base_url, drafts=drafts)
    return out_dir


def showcase_site(folder: Path) -> Path:
    """A copy of tests/sites/showcase in `folder`, with the example blog's pictures (made by
    scripts/make_*_image.py) that it shows, so the repository holds them once."""
    site = folder / "site"
    shutil.copytree(ROOT / "tests" / "sites" / "showcase", site,
                    ignore=shutil.ignore_patterns(".blogbuild-cache", "_site"))
    images = site / "content" / "assets" / "images"
    images.mkdir(parents=True, exist_ok=True)
    for name in ("sigmoid.png", "compare-before.png"):
        shutil.copy2(ROOT / "content" / "assets" / "images" / name, images / name)
    return site


class _Handler(http.server.SimpleHTTPRequestHandler):
    prefix = "/"
    extensions_map: ClassVar[dict[str, str]] = {
        **http.server.SimpleHTTPRequestHandler.extensions_map,
        ".wasm": "application/wasm",
        ".mjs": "text/javascript",
        ".js": "text/javascript",
        ".woff2": "font/woff2",
        ".xml": "application/xml",
    }

    isolate = False

    def translate_path(self, path: str) -> str:
        if not path.startswith(self.prefix):
            return str(Path(self.directory) / "\0-outside-prefix")
        return super().translate_path("/" + path[len(self.prefix):])

    def end_headers(self) -> None:
        if self.isolate:  # what a host must send for Stop to interrupt instead of restart
            self.send_header("Cross-Origin-Opener-Policy", "same-origin")
            self.send_header("Cross-Origin-Embedder-Policy", "require-corp")
        super().end_headers()

    def log_message(self, format: str, *args: Any) -> None:  # quiet test output
        return


@contextlib.contextmanager
def serve_directory(
    directory: Path, prefix: str = "/", *, isolate: bool = False,
    wasm_type: str = "application/wasm",
) -> Iterator[str]:
    """Serve `directory` at http://127.0.0.1:PORT{prefix} in a thread; yields that URL.

    `isolate` sends the cross-origin isolation headers; `wasm_type` lets a test serve
    WebAssembly with a wrong MIME type.
    """
    mime = {**_Handler.extensions_map, ".wasm": wasm_type}
    handler = type("Handler", (_Handler,),
                   {"prefix": prefix, "isolate": isolate, "extensions_map": mime})
    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(handler, directory=str(directory))
    )
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}{prefix}"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture
def http_server() -> Iterator[Callable[..., str]]:
    """Start servers: `url = http_server(directory, prefix="/blog/")`; stopped after the test."""
    stack = contextlib.ExitStack()

    def start(directory: Path, prefix: str = "/") -> str:
        return stack.enter_context(serve_directory(directory, prefix))

    with stack:
        yield start


@pytest.fixture(scope="module")
def commands() -> Iterator[Preloaded]:
    """`python -m blogbuild ARGS` forked from a process that has imported blogbuild
    (tests/preloaded.py), for the case corpora."""
    preloaded = Preloaded()
    yield preloaded
    preloaded.close()


@pytest.fixture(scope="session")
def example_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The repo's example blog built once per session at the root of its host."""
    out = tmp_path_factory.mktemp("example") / "_site"
    return build_site(ROOT, out, base_url="http://127.0.0.1/")


@pytest.fixture(scope="session")
def example_clean(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The example blog built once per session as a first build makes it: no cache, and
    --strict (no warning). Its tests share a worker: `pytest.mark.xdist_group("example")`."""
    from blogbuild.commands.build import build

    out = tmp_path_factory.mktemp("example-clean") / "_site"
    report = build(ROOT / "site.yaml", output=out, strict=True, use_cache=False)
    assert report.diagnostics == []
    assert report.posts >= 5
    return out


@pytest.fixture(scope="session")
def example_site_subpath(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The example blog built for a GitHub Pages project site under /blog/."""
    out = tmp_path_factory.mktemp("example-sub") / "_site"
    return build_site(ROOT, out, base_url="http://127.0.0.1/blog/")


@pytest.fixture(scope="session")
def release(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The record of a run of the release workflow's build job on these sources
    (scripts/release_check.py): .ci/run's, named by BLOGBUILD_RELEASE_CHECK, when its
    sources are these; else a run of this session's (some 70 s)."""
    import os
    import sys

    sys.path.insert(0, str(ROOT / "scripts"))
    import release_check

    given = os.environ.get("BLOGBUILD_RELEASE_CHECK")
    record = release_check.recorded(Path(given)) if given else None
    return record or release_check.check(tmp_path_factory.mktemp("release"))


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: install Debian's chromium (.ci/run does)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(
            executable_path=CHROMIUM,
            headless=True,
            args=[
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
            ],
        )
        yield browser
        browser.close()


@pytest.fixture
def browser_page(browser: Any) -> Iterator[Any]:
    """A fresh page; requests to hosts other than 127.0.0.1 are aborted and recorded."""
    context = browser.new_context()
    page = context.new_page()
    page.external_requests = []
    page.console_errors = []

    def route(route: Any) -> None:
        host = urlsplit(route.request.url).hostname or ""
        if route.request.url.startswith(("data:", "blob:")) or host in LOCAL_HOSTS:
            route.continue_()
        else:
            page.external_requests.append(route.request.url)
            route.abort()

    context.route("**/*", route)
    page.on(
        "console",
        lambda msg: page.console_errors.append(msg.text) if msg.type == "error" else None,
    )
    page.on("pageerror", lambda exc: page.console_errors.append(str(exc)))
    yield page
    context.close()


@pytest.fixture
def site_copy(tmp_path: Path) -> Callable[[Path], Path]:
    """Copy a test site (tests/sites/NAME or any folder) into tmp_path and return the copy."""

    def copy(source: Path) -> Path:
        dest = tmp_path / source.name
        shutil.copytree(source, dest)
        return dest

    return copy


@pytest.fixture
def site(tmp_path: Path) -> Path:
    """A small site for the live-server tests (modules may define their own `site`)."""
    from serve_helpers import make_site

    return make_site(tmp_path / "site")


@pytest.fixture
def start(tmp_path: Path) -> Iterator[Callable[..., Session]]:
    """Start sessions on free ports; each is stopped and checked for leftover threads."""
    from blogbuild.serve.session import Session
    from serve_helpers import wait_for

    sessions: list[Session] = []
    before = set(threading.enumerate())

    def run(site_dir: Path, **options: Any) -> Session:
        options.setdefault("port", 0)
        options.setdefault("output", tmp_path / f"out{len(sessions)}")
        session = Session(site_dir / "site.yaml", **options)
        sessions.append(session)
        session.start()
        return session

    try:
        yield run
    finally:
        for session in sessions:
            session.stop()
    wait_for(lambda: not (set(threading.enumerate()) - before), "threads to end", 5)


@pytest.fixture
def index_here(monkeypatch: pytest.MonkeyPatch) -> None:
    """A build's update makes its search index in this process (on a thread), not in a
    process of its own: for tests that watch or change the index's code in this process."""
    from blogbuild.stages.search.process import IndexProcess

    monkeypatch.setattr(IndexProcess, "begin", classmethod(lambda cls, *args: None))


@pytest.fixture
def pagefind_reads(monkeypatch: pytest.MonkeyPatch,
                   index_here: None) -> Iterator[list[list[str]]]:
    """The URLs of the pages the build gave Pagefind to read, call by call."""
    made: list[list[str]] = []
    from blogbuild.stages.search import index as search

    real = search.read_pages

    def counted(config: Any, docs: list[Any], *args: Any) -> Any:
        made.append(sorted(p.url for p in docs))
        return real(config, docs, *args)

    monkeypatch.setattr(search, "read_pages", counted)
    yield made
