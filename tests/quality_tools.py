"""The page-quality tools CI installs beside the suite: Lighthouse and the W3C Nu checker.

Both come from npm (`.ci/run` installs the pinned versions into `node_modules/`); the Nu
checker runs on Debian's Java. Without them the tests skip on a developer's machine and
fail in CI, where `BLOGBUILD_REQUIRE_QUALITY_TOOLS=1` is set.
"""

from __future__ import annotations

import gzip
import http.server
import json
import mimetypes
import os
import shutil
import subprocess
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
NODE_BIN = ROOT / "node_modules" / ".bin"
VNU_JAR = ROOT / "node_modules" / "vnu-jar" / "build" / "dist" / "vnu.jar"
CHROMIUM = "/usr/bin/chromium"
#: What GitHub Pages compresses; everything else is sent as it is.
_COMPRESSED = {"text/html", "text/css", "text/javascript", "application/javascript",
               "application/json", "application/xml", "image/svg+xml", "text/plain"}


def require(path: Path | str | None, what: str) -> str:
    """The tool's path, or skip (a developer's machine) / fail (CI) naming the install."""
    if path is not None and Path(path).exists():
        return str(path)
    message = f"{what} is missing: `bash .ci/run` installs it"
    if os.environ.get("BLOGBUILD_REQUIRE_QUALITY_TOOLS") == "1":
        pytest.fail(message)
    pytest.skip(message)


def java() -> str:
    return require(shutil.which("java"), "java (Debian's default-jre-headless)")


def nu_errors(directory: Path) -> list[dict[str, Any]]:
    """Every error the Nu checker reports on the HTML files under `directory`."""
    jar = require(VNU_JAR, "the Nu checker (npm vnu-jar)")
    done = subprocess.run(
        [java(), "-jar", jar, "--errors-only", "--skip-non-html", "--format", "json",
         str(directory)], capture_output=True, text=True, timeout=600, check=False)
    report = json.loads(done.stderr or done.stdout or '{"messages": []}')
    return [m for m in report["messages"] if m.get("type") in ("error", "non-document-error")]


#: Lighthouse slows the CPU 4 times by default, which takes a high-end desktop (a benchmark
#: index of 1,500 or more, by its documentation on throttling) to a mid-tier phone.
CPU_SLOWDOWN = 4.0
HIGH_END_INDEX = 1500.0


def calibrated_slowdown(report: dict[str, Any]) -> float:
    """The CPU slowdown that takes this machine, as fast as `report`'s run measured it, to
    the phone the default aims at: 4 on a high-end desktop, less on a slower or busier one
    (Lighthouse's documented calibration)."""
    index = float(report.get("environment", {}).get("benchmarkIndex") or HIGH_END_INDEX)
    return CPU_SLOWDOWN * min(1.0, index / HIGH_END_INDEX)


def lighthouse(url: str, out: Path, slowdown: float = CPU_SLOWDOWN) -> dict[str, Any]:
    """Lighthouse's report of `url` (mobile, simulated throttling: its defaults, but for
    `slowdown`)."""
    tool = require(NODE_BIN / "lighthouse", "Lighthouse (npm lighthouse)")
    require(CHROMIUM, "Debian's chromium")
    subprocess.run(
        [tool, url, "--quiet", "--output=json", f"--output-path={out}",
         "--only-categories=performance,accessibility,best-practices,seo",
         f"--throttling.cpuSlowdownMultiplier={slowdown:.2f}",
         "--chrome-flags=--headless=new --no-sandbox --disable-gpu"],
        env={**os.environ, "CHROME_PATH": CHROMIUM}, check=True, timeout=300,
        capture_output=True)
    report: dict[str, Any] = json.loads(out.read_text(encoding="utf-8"))
    return report


def scores(report: dict[str, Any]) -> dict[str, float]:
    return {name: float(c["score"] or 0) for name, c in report["categories"].items()}


def failing_audits(report: dict[str, Any]) -> list[str]:
    """The audits that cost points, with the first element each names (for the message)."""
    found = []
    for audit in report["audits"].values():
        if audit.get("score") is None or audit["score"] >= 1:
            continue
        if audit.get("scoreDisplayMode") not in ("binary", "numeric", "metricSavings"):
            continue
        items = (audit.get("details") or {}).get("items") or [{}]
        node = (items[0].get("node") or {}) if isinstance(items[0], dict) else {}
        found.append(f"{audit['id']} {audit['score']} {audit.get('displayValue') or ''} "
                     f"{node.get('snippet', '')[:160]}")
    return found


class _PagesHandler(http.server.SimpleHTTPRequestHandler):
    """Serves a folder the way GitHub Pages does: gzip for text, a ten-minute max-age."""

    def do_GET(self) -> None:
        path = Path(self.translate_path(self.path))
        if path.is_dir():
            if not self.path.split("?")[0].endswith("/"):
                self.send_response(301)
                self.send_header("Location", self.path.split("?")[0] + "/")
                self.end_headers()
                return
            path = path / "index.html"
        status = 200 if path.is_file() else 404
        data = path.read_bytes() if path.is_file() else b"not found"
        kind = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
        if path.suffix in (".js", ".mjs"):
            kind = "text/javascript"
        elif path.suffix == ".wasm":
            kind = "application/wasm"
        self.send_response(status)
        self.send_header("Content-Type", kind + ("; charset=utf-8" if kind.startswith("text/")
                                                 else ""))
        if kind in _COMPRESSED and "gzip" in self.headers.get("Accept-Encoding", ""):
            data = gzip.compress(data, 6)
            self.send_header("Content-Encoding", "gzip")
        self.send_header("Cache-Control", "max-age=600")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: Any) -> None:
        return


@contextmanager
def pages_server(directory: Path) -> Iterator[str]:
    """Serve `directory` like GitHub Pages at http://127.0.0.1:PORT/; yields that URL."""

    class Handler(_PagesHandler):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, directory=str(directory), **kwargs)

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
