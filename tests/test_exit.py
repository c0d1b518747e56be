"""Every command ends with the status it reports: never a signal, nothing left running.

These run the installed `blogbuild` in a subprocess, as a user or a deploy job does: a crash
after the site is written (the process killed while it shuts down) is invisible to a test
that builds in-process.
"""

from __future__ import annotations

import os
import signal
import subprocess
import textwrap
import time
from pathlib import Path

import pytest

from blogshapes import command, leftovers, session_processes, tgkill

SRC = Path(__file__).resolve().parents[1] / "src"


def run_cli(args: list[str], cwd: Path, timeout: float = 120,
            env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """`blogbuild ARGS` in its own session; fails the test if anything of it is left running."""
    env = {**os.environ, "PYTHONFAULTHANDLER": "1", "PYTHONPATH": str(SRC), **(env or {})}
    proc = subprocess.Popen([*command(), *args], cwd=cwd, env=env, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True)
    out, err = proc.communicate(timeout=timeout)
    left = leftovers(proc.pid, grace=0.5)
    assert not left, f"left running after `blogbuild {' '.join(args)}`: {left}"
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


def assert_exits_ok(done: subprocess.CompletedProcess[str]) -> None:
    assert done.returncode >= 0, f"killed by signal {-done.returncode}:\n{done.stderr}"
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr and "internal error" not in done.stderr, done.stderr


def new_blog(tmp_path: Path) -> Path:
    assert_exits_ok(run_cli(["init", "blog", "--title", "T", "--base-url",
                             "https://example.org/"], tmp_path))
    return tmp_path / "blog"


def replace_first_post(blog: Path, body: str) -> None:
    first = sorted((blog / "content" / "posts").glob("*.md"))[0]
    first.write_text(body, encoding="utf-8")


def test_a_new_blog_whose_first_post_is_inline_math_builds_and_exits_0(tmp_path: Path) -> None:
    blog = new_blog(tmp_path)
    replace_first_post(blog, "$x$ inline only.\n")
    for args in (["build"], ["build"], ["build", "-j", "1", "--clean"], ["build", "-q"]):
        assert_exits_ok(run_cli(args, blog))
    assert 'class="katex"' in (blog / "_site/posts/hello-world/index.html").read_text()


def test_ten_posts_one_numbered_equation_then_a_new_post_with_math(tmp_path: Path) -> None:
    blog = new_blog(tmp_path)
    posts = blog / "content" / "posts"
    for n in range(10):
        body = "$$\nz \\label{eq:z}\n$$\n\nSee \\eqref{eq:z}.\n" if n == 3 else f"Post {n}.\n"
        (posts / f"2025-01-{n + 1:02d}-p{n}.md").write_text(
            f"---\ntitle: P{n}\n---\n\n{body}", encoding="utf-8")
    assert_exits_ok(run_cli(["build"], blog))
    assert_exits_ok(run_cli(["build"], blog))  # nothing changed
    (posts / "2025-02-01-new.md").write_text("---\ntitle: New\n---\n\n$x^2$\n", encoding="utf-8")
    assert_exits_ok(run_cli(["build"], blog))
    assert 'class="katex"' in (blog / "_site/posts/new/index.html").read_text()


def test_render_and_check_of_a_math_post_exit_0(tmp_path: Path) -> None:
    blog = new_blog(tmp_path)
    replace_first_post(blog, "$x$ and $$y \\label{eq:y}$$\n")
    first = sorted((blog / "content" / "posts").glob("*.md"))[0]
    done = run_cli(["render", str(first)], blog)
    assert_exits_ok(done)
    assert 'class="katex"' in done.stdout
    assert_exits_ok(run_cli(["check"], blog))


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_v8_is_made_used_and_closed_on_one_thread(tmp_path: Path, jobs: str) -> None:
    """With memory protection keys (most x86-64 servers) only the thread that initialised
    V8, and threads it started later, may touch V8's memory: a context freed from another
    thread (the main thread at exit) is a SIGSEGV there, and nowhere else. So the build's
    KaTeX context is made, initialised and closed on one thread that is not the main one,
    in the build process and in every worker."""
    blog = new_blog(tmp_path)
    posts = blog / "content" / "posts"
    for n in range(30):  # above the worker pool's threshold
        (posts / f"2025-01-{n % 28 + 1:02d}-m{n}.md").write_text(
            f"---\ntitle: M{n}\n---\n\n$x_{{{n}}}$ and $$y^{n}$$\n", encoding="utf-8")
    log = tmp_path / "threads.log"
    probe = textwrap.dedent(f"""
        import os, sys, threading
        import py_mini_racer, py_mini_racer._dll as dll

        def note(what):
            with open({str(log)!r}, "a") as f:
                f.write(f"{{os.getpid()}} {{what}} {{threading.current_thread().name}}\\n")

        init = dll.init_mini_racer
        def traced_init(*a, **k):
            note("init")
            return init(*a, **k)
        dll.init_mini_racer = traced_init
        py_mini_racer._mini_racer.init_mini_racer = traced_init

        class Traced(py_mini_racer.MiniRacer):
            def __init__(self, *a, **k):
                note("make")
                super().__init__(*a, **k)
            def close(self, *a, **k):
                if self._ctx is not None:
                    note("close")
                super().close(*a, **k)
        py_mini_racer.MiniRacer = Traced
    """)
    (tmp_path / "probe").mkdir()
    (tmp_path / "probe" / "sitecustomize.py").write_text(probe, encoding="utf-8")
    env = {"PYTHONPATH": f"{tmp_path / 'probe'}{os.pathsep}{SRC}", "BLOGBUILD_WORKERS": jobs}
    # With two jobs, a worker pool: its fork server and resource tracker end with the command.
    assert_exits_ok(run_cli(["build", "-q", "--no-cache"], blog, timeout=180, env=env))
    by_process: dict[str, list[tuple[str, str]]] = {}
    for line in log.read_text().splitlines():
        pid, what, thread = line.split(" ", 2)
        by_process.setdefault(pid, []).append((what, thread))
    assert by_process, "no V8 context was made"
    for events in by_process.values():
        assert {thread for _, thread in events} == {"katex-v8"}, events
    if jobs == "1":  # rendered in the build process itself: closed there before it ended
        [events] = by_process.values()
        assert [what for what, _ in events] == ["make", "init", "close"], events


@pytest.mark.parametrize("to", ["process", "thread"])
def test_sigterm_during_a_pooled_build_ends_it_and_everything_it_started(tmp_path: Path,
                                                                        to: str) -> None:
    """`kill PID` (a CI job cancelled) stops `build` as Ctrl-C does: status 143, the worker
    pool and the forkserver gone with it, the previous output untouched. The kernel may
    hand the signal to any thread (`thread`: to one that is not the main one), and the
    main thread, waiting for the pool, must still see it at once."""
    blog = new_blog(tmp_path)
    assert_exits_ok(run_cli(["build", "-q"], blog))
    before = {p: p.read_bytes() for p in (blog / "_site").rglob("*") if p.is_file()}
    posts = blog / "content" / "posts"
    for n in range(120):  # enough to be mid-render when the signal comes
        (posts / f"2025-02-{n % 28 + 1:02d}-s{n}.md").write_text(
            f"---\ntitle: S{n}\n---\n\n$x_{{{n}}}$\n\n```python\nprint({n})\n```\n",
            encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(SRC), "BLOGBUILD_WORKERS": "2"}
    proc = subprocess.Popen([*command(), "build", "-q", "--no-cache"], cwd=blog, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    deadline = time.monotonic() + 60
    # The forkserver and both workers it forked (same command line): a worker still starting
    # when the pool is killed prints its own failure (its semaphores are gone).
    while sum("forkserver" in line for line in session_processes(proc.pid)) < 3:
        assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()
        time.sleep(0.02)
    sent = time.monotonic()
    if to == "process":
        proc.send_signal(signal.SIGTERM)
    else:
        others = sorted(int(t) for t in os.listdir(f"/proc/{proc.pid}/task")
                        if int(t) != proc.pid)
        assert others
        tgkill(proc.pid, others[-1], signal.SIGTERM)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 143, err
    assert time.monotonic() - sent < 5, err
    assert "Traceback" not in err and "internal error" not in err, err
    assert not leftovers(proc.pid, grace=1.0)
    after = {p: p.read_bytes() for p in (blog / "_site").rglob("*") if p.is_file()}
    assert after == before
