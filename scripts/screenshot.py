#!/usr/bin/env python3
"""Screenshot built pages in headless Chromium (light/dark × narrow/wide) for a visual check.

Usage: python scripts/screenshot.py SITE_DIR OUT_DIR PATH [PATH ...]
Serves SITE_DIR on 127.0.0.1 (no request leaves the machine), scrolls through each page so
that its widgets' scripts have run (they load as a reader comes near), and writes
OUT_DIR/<name>-<scheme>-<width>.png for each PATH (e.g. / or /posts/x/).
"""

from __future__ import annotations

import functools
import http.server
import sys
import threading
from pathlib import Path

from playwright.sync_api import Page, sync_playwright

ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]


#: Every widget script of the page has run (js/widgets.js marks its data block data-loaded).
WIDGETS_LOADED = """() => [...document.querySelectorAll('script[data-widget-script]')].every(
    (b) => b.hasAttribute('data-loaded')
        || (b.dataset.near && !document.querySelector(b.dataset.near)))"""


def scroll_through(page: Page) -> None:
    """Scroll to the end a screen at a time, as a reader does, so that every widget's script
    (loaded when the widget comes near) has run; then back to the top."""
    height = int(page.evaluate("document.documentElement.scrollHeight"))
    step = int(page.evaluate("innerHeight"))
    for y in range(0, height + step, step):  # two frames at each place: the observer sees it
        page.evaluate("y => new Promise((done) => { scrollTo(0, y); "
                      "requestAnimationFrame(() => requestAnimationFrame(done)); })", y)
    page.wait_for_function(WIDGETS_LOADED)
    page.evaluate("scrollTo(0, 0)")


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        return


def main(argv: list[str]) -> int:
    if len(argv) < 3 or argv[0] in ("-h", "--help"):
        print(__doc__.split("\n\n")[1].split("\n")[0], file=sys.stderr)
        return 0 if argv[:1] in (["-h"], ["--help"]) else 2
    site, out, paths = Path(argv[0]), Path(argv[1]), argv[2:]
    out.mkdir(parents=True, exist_ok=True)
    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(_Quiet, directory=str(site)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}"
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path="/usr/bin/chromium", args=ARGS)
        for scheme in ("light", "dark"):
            for width in (360, 1400):
                context = browser.new_context(viewport={"width": width, "height": 900},
                                              color_scheme=scheme)
                context.route("**/*", lambda r: r.continue_() if "127.0.0.1" in r.request.url
                              else r.abort())
                page = context.new_page()
                for path in paths:
                    page.goto(base + path)
                    page.wait_for_load_state("networkidle")
                    scroll_through(page)
                    name = path.strip("/").replace("/", "_") or "index"
                    target = out / f"{name}-{scheme}-{width}.png"
                    page.screenshot(path=str(target), full_page=True)
                    print(target)
                context.close()
        browser.close()
    server.shutdown()
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
