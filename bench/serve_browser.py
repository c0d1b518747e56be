#!/usr/bin/env python3
"""Time `blogbuild serve` from saving a post to its new text in the page Chromium shows.

    python3 PATH/TO/make_corpus.py --layout blog --n 1000 --out /tmp/c1k
    (write /tmp/c1k/site.yaml: title, base_url with a path such as /blog/)
    PYTHONPATH=src python3 bench/serve_browser.py /tmp/c1k --runs 10

`blogbuild serve --debug` runs in its own process (its log goes to --log); Chromium
(/usr/bin/chromium, headless) opens the post in the middle of the blog. Each run writes the
post with a numbered mark at the start of its body, as an editor saves it, and a script the
page runs on every load reports when the mark is in the DOM (a MutationObserver, so the
moment the parser puts it there, not when the page finished loading). The figure is that
moment less the time before the write, both on this machine's clock. Between saves the
server finishes the whole batch (listings, feeds, search index), or `--gap` seconds pass
(saves while it works, as when typing). Each save also carries a word no other post has;
once the text shows, the page asks the site's search index for it (a fresh copy of
Pagefind's script each time) until it is found: the second figure. The post is put back
afterwards.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]
#: Seconds to wait for a save to show, and for the server to finish a batch.
TIMEOUT = 60.0
#: Run on every page load: report each mark number when the parser puts it in the body.
REPORTER = r"""
(() => {
  const seen = new Set();
  const look = () => {
    const body = document.querySelector(".post-body");
    const found = body && /BenchMark-(\d+)-/.exec(body.textContent.slice(0, 400));
    if (found && !seen.has(found[1])) {
      seen.add(found[1]);
      window.benchVisible(Number(found[1]), performance.timeOrigin + performance.now());
    }
  };
  new MutationObserver(look).observe(document, { childList: true, subtree: true });
})();
"""


#: Search the site's index with a fresh copy of pagefind.js: true once `word` is found.
FIND = """async ([src, word]) => {
  const pagefind = await import(src + "?fresh=" + Math.random());
  await pagefind.options({baseUrl: "/"});
  const found = await pagefind.search(word);
  return found.results.length > 0;
}"""


def marker_word(i: int) -> str:
    """A word of letters only (Pagefind splits words at digits and hyphens)."""
    n, letters = os.getpid() * 1000 + i, ""
    while n:
        n, digit = divmod(n, 26)
        letters += chr(97 + digit)
    return f"quux{letters}"


class Server:
    """`blogbuild serve --debug` on `site`, its log in a file."""

    def __init__(self, site: Path, port: int, log: Path) -> None:
        self.log = log
        self.out = log.open("w")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "blogbuild", "serve", "--debug", "--port", str(port)],
            cwd=site, stdout=self.out, stderr=subprocess.STDOUT)

    def text(self) -> str:
        return self.log.read_text()

    def batches(self) -> int:
        """Batches finished so far (their summary line)."""
        return self.text().count(" files changed (")

    def wait_ready(self) -> None:
        while "serving " not in self.text():
            if self.proc.poll() is not None:
                raise SystemExit(self.text())
            time.sleep(0.2)

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(10)
        self.out.close()


def measure(site: Path, runs: int, gap: float, port: int, log: Path,
            ) -> tuple[list[float], list[float]]:
    from playwright.sync_api import Error as PlaywrightError
    from playwright.sync_api import sync_playwright

    posts = sorted((site / "content" / "posts").glob("*.md"))
    post = posts[len(posts) // 2]
    original = post.read_bytes()
    head, sep, rest = original.decode().partition("\n\n")
    server = Server(site, port, log)
    shown: dict[int, float] = {}
    times: list[float] = []
    searched: list[float] = []
    try:
        server.wait_ready()
        base = next(line.split(" at ", 1)[1].split()[0] for line in server.text().splitlines()
                    if line.startswith("serving "))
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
            page = browser.new_page()
            page.expose_function("benchVisible", lambda n, at: shown.setdefault(n, at))
            page.add_init_script(REPORTER)
            page.goto(f"{base}posts/{post.stem}/")
            page.wait_for_function(
                "document.documentElement.dataset.blogbuildLive === 'connected'")
            for i in range(runs):
                done = server.batches()
                page.wait_for_timeout(300)
                before = time.time() * 1000
                word = marker_word(i)
                post.write_text(f"{head}{sep}BenchMark-{i}-{os.getpid()} {word} here. {rest}")
                deadline = time.monotonic() + TIMEOUT
                while i not in shown and time.monotonic() < deadline:
                    page.wait_for_timeout(2)
                if i not in shown:
                    raise SystemExit(f"save {i} did not show within {TIMEOUT:.0f} s")
                times.append(shown[i] - before)
                while time.monotonic() < deadline:
                    try:
                        if page.evaluate(FIND, [f"{base}pagefind/pagefind.js", word]):
                            break
                    except PlaywrightError:  # the page reloaded under the search
                        pass
                    page.wait_for_timeout(20)
                searched.append(time.time() * 1000 - before)
                print(f"save {i}: new text in the page after {times[-1]:.0f} ms, found by "
                      f"search after {searched[-1]:.0f} ms", flush=True)
                if gap:
                    page.wait_for_timeout(max(0.0, gap * 1000 - times[-1]))
                    continue
                while server.batches() == done and time.monotonic() < deadline + TIMEOUT:
                    page.wait_for_timeout(50)
            browser.close()
    finally:
        post.write_bytes(original)
        server.stop()
    return times, searched


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("site", type=Path)
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--gap", type=float, default=0.0,
                        help="seconds from one save to the next (default: wait for the "
                             "server to finish each batch)")
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--log", type=Path, default=Path("serve-browser.log"),
                        help="where the server's --debug log goes")
    args = parser.parse_args()
    times, searched = measure(args.site.resolve(), args.runs, args.gap, args.port,
                              args.log.resolve())
    print(f"save → new text in the page: median {statistics.median(times):.0f} ms, "
          f"worst {max(times):.0f} ms, best {min(times):.0f} ms (n={len(times)})")
    print(f"save → found by search: median {statistics.median(searched):.0f} ms, "
          f"worst {max(searched):.0f} ms (n={len(searched)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
