"""`blogbuild serve` on a blog big enough to keep it busy: the installed command in its own
process group, stopped with Ctrl-C or SIGTERM in the middle of work, and a broken post's
error on the event stream before the rest of the save's work is done."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from blogbuild.serve.session import Session
from blogshapes import session_processes, tgkill
from serve_helpers import ROOT, Events, fetch, wait_for

pytestmark = pytest.mark.server

POSTS = 300
#: Seconds from the signal to the exit (the promise is one second; a loaded CI machine
#: gets a little more).
EXIT_WITHIN = 1.5
#: Seconds from a save to its error on the event stream.
ERROR_WITHIN = 1.0
WORDS = ["latency", "queue", "index", "cache", "thread", "kernel", "packet", "schema",
         "vector", "shard", "replica", "parser", "token", "lexer", "buffer", "socket",
         "stream", "commit", "branch", "merge", "rebase", "patch"]


@pytest.fixture(scope="module")
def blog(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """POSTS posts of a few hundred words each; the render cache is shared by the tests."""
    root = tmp_path_factory.mktemp("blog")
    posts = root / "content" / "posts"
    posts.mkdir(parents=True)
    (root / "site.yaml").write_text('title: "Busy"\nbase_url: "http://127.0.0.1/b/"\n')
    rng = random.Random(7)
    for i in range(POSTS):
        paragraphs = "\n\n".join(" ".join(rng.choices(WORDS, k=60)) + "."
                                 for _ in range(6))
        day = f"2024-{1 + i % 12:02d}-{1 + i % 28:02d}"
        (posts / f"{day}-post-{i:03d}.md").write_text(
            f'---\ntitle: "Post {i}"\ndate: {day}\ntags: [t{i % 9}]\n---\n\n'
            f"## Part one\n\n{paragraphs}\n")
    return root


class Server:
    """`blogbuild serve` in a new session (its process group is its pid)."""

    def __init__(self, site: Path) -> None:
        env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "blogbuild", "serve", "--config", str(site / "site.yaml"),
             "--port", "0"],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env,
            start_new_session=True)
        self.lines: list[str] = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            self.lines.append(line)

    def wait_line(self, text: str, timeout: float = 120) -> str:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            for line in list(self.lines):
                if text in line:
                    return line
            if self.proc.poll() is not None:
                break
            time.sleep(0.02)
        raise AssertionError(f"no line with {text!r}: {''.join(self.lines)}")

    def url(self) -> str:
        return self.wait_line(" at http://").split(" at ")[1].split()[0]

    def children(self) -> list[str]:
        """The command lines of the processes in its session, itself left out."""
        return [line.split(": ", 1)[1] for line in session_processes(self.proc.pid)
                if int(line.split()[0]) != self.proc.pid]

    def wait_child(self, text: str, timeout: float = 30) -> bool:
        end = time.monotonic() + timeout
        while time.monotonic() < end and self.proc.poll() is None:
            if any(text in cmd for cmd in self.children()):
                return True
            time.sleep(0.005)
        return False

    def stop(self, sig: int, *, thread: int | None = None) -> float:
        """Send `sig` (to that `thread` of the process when given, as the kernel may hand a
        signal sent to the process to any of its threads); the seconds until the process
        ended (its status is checked)."""
        start = time.monotonic()
        if thread is None:
            self.proc.send_signal(sig)
        else:
            tgkill(self.proc.pid, thread, sig)
        code = self.proc.wait(timeout=30)
        elapsed = time.monotonic() - start
        self._reader.join(timeout=5)
        assert code == 0, "".join(self.lines)
        assert "Traceback" not in "".join(self.lines)
        assert self.children() == []  # no worker, forkserver or Pagefind left behind
        with pytest.raises(ProcessLookupError):
            os.killpg(self.proc.pid, 0)
        return elapsed

    def __enter__(self) -> Server:
        return self

    def __exit__(self, *exc: object) -> None:
        self.kill()  # whatever the test left running

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        for pid in self.children_pids():
            os.kill(pid, signal.SIGKILL)

    def children_pids(self) -> list[int]:
        return [int(line.split()[0]) for line in session_processes(self.proc.pid)]


def post_path(blog: Path, i: int) -> Path:
    return next((blog / "content" / "posts").glob(f"*-post-{i:03d}.md"))


def test_ctrl_c_while_indexing_after_a_save_stops_at_once(blog: Path) -> None:
    with Server(blog) as server:
        url = server.url()
        events = Events(url, "/b/posts/post-150/")
        try:
            events.until("hello")
            path = post_path(blog, 150)
            path.write_text(path.read_text().replace("## Part one", "## Part one, edited"))
            events.until("reload")  # the page is out; the search index is being made
            server.wait_child("pagefind", timeout=5)
            elapsed = server.stop(signal.SIGINT)
        finally:
            events.close()
        assert elapsed < EXIT_WITHIN, "".join(server.lines)


def test_sigterm_while_the_worker_pool_renders_stops_at_once(blog: Path) -> None:
    with Server(blog) as server:
        # The first build templates every page in the pool (the forkserver's children).
        assert server.wait_child("forkserver", timeout=60), "".join(server.lines)
        time.sleep(0.2)
        elapsed = server.stop(signal.SIGTERM)
        assert elapsed < EXIT_WITHIN, "".join(server.lines)


def test_sigterm_to_another_thread_during_the_first_build_stops_at_once(blog: Path) -> None:
    """A service manager's SIGTERM can reach any thread of the process; the main one, not
    woken by it, must still notice it at once, not when the first build is over."""
    with Server(blog) as server:
        assert server.wait_child("forkserver", timeout=60), "".join(server.lines)
        pid = server.proc.pid
        others = sorted(int(t) for t in os.listdir(f"/proc/{pid}/task") if int(t) != pid)
        assert others
        elapsed = server.stop(signal.SIGTERM, thread=others[-1])
        assert elapsed < EXIT_WITHIN, "".join(server.lines)
        assert not any(line.startswith("built ") for line in server.lines), server.lines


def test_broken_post_reaches_the_overlay_within_a_second(blog: Path) -> None:
    with Server(blog) as server:
        url = server.url()
        events = Events(url, "/b/posts/post-020/")
        try:
            events.until("hello")
            path = post_path(blog, 20)
            good = path.read_text()
            # A first save: its search index is still being made when the next one comes,
            # and the next must not wait for it.
            path.write_text(good.replace("## Part one", "## Part one again"))
            events.until("reload")
            started = time.monotonic()
            path.write_text(good.replace('title: "Post 20"', 'title: "Post 20\ntags: [oops'))
            errors = events.until("errors")["errors"]
            elapsed = time.monotonic() - started
            assert [e["file"] for e in errors] == [str(path.relative_to(blog))]
            assert elapsed < ERROR_WITHIN, "".join(server.lines)
            # Fixed: the errors go and the page shows the fix.
            path.write_text(good.replace("## Part one", "## Part one fixed"))
            assert events.until("errors")["errors"] == []
            events.until("reload")
        finally:
            events.close()
        server.stop(signal.SIGINT)


def test_ctrl_c_while_a_block_runs_at_build_time(site: Path) -> None:
    """The Python process of a page's build-time blocks (a session of its own) goes too."""
    with Server(site) as server:
        server.url()
        path = site / "content" / "posts" / "2024-03-10-third.md"
        marker = f"blogbuild-test-{os.getpid()}-{time.monotonic_ns()}"
        path.write_text(path.read_text() + '\n<div class="runnable" data-lang="python" '
                        f'data-execute="build">\n\n```python\nimport time  # {marker}\n'
                        "time.sleep(60)\n```\n\n</div>\n")

        def drivers() -> set[int]:
            """The block processes serve started (four posts render in its own process)."""
            found = set()
            for entry in Path("/proc").iterdir():
                if entry.name.isdigit():
                    try:
                        cmd = (entry / "cmdline").read_bytes()
                        parent = int((entry / "stat").read_text().rpartition(")")[2].split()[1])
                    except (OSError, ValueError, IndexError):
                        continue
                    if b"python_driver.py" in cmd and parent == server.proc.pid:
                        found.add(int(entry.name))
            return found

        end = time.monotonic() + 30
        while not drivers() and time.monotonic() < end:
            time.sleep(0.01)
        started = drivers()
        assert started, "".join(server.lines)
        elapsed = server.stop(signal.SIGINT)
        assert elapsed < EXIT_WITHIN, "".join(server.lines)
        for pid in started:  # killed, and reaped by serve or by its new parent
            assert not Path(f"/proc/{pid}/cmdline").exists() or \
                b"python_driver" not in Path(f"/proc/{pid}/cmdline").read_bytes()


def test_a_stale_page_open_in_a_browser_comes_with_the_edited_page(
        site: Path, start: Callable[..., Session]) -> None:
    """The home page is open: a new title of a post it lists reloads it in the first event
    of the run, after the post's own page (written ahead of the run) and before the other
    lists and the search index."""
    session = start(site)
    events = Events(session.url, "/blogbuild/")
    try:
        events.until("hello")
        wait_for(lambda: session.state.broker.open_pages() == {"index.html"}, "the stream")
        path = site / "content" / "posts" / "2024-03-10-third.md"
        before = session.updates
        path.write_text(path.read_text().replace("Third post", "Renamed post"))
        assert events.until("reload")  # the first reload event that concerns this page
        wait_for(lambda: session.updates > before, "the rebuild")
        reloads = [e.paths for e in session.state.broker.history if e.name == "reload"]
        assert reloads[:2] == [{"posts/third/index.html"}, {"index.html"}]
        assert len(reloads) == 3  # then the rest: other lists, neighbours, the social card
        assert b"Renamed post" in fetch(session.url)[2]
    finally:
        events.close()
