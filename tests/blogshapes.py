"""Blogs of many shapes, run through the `blogbuild` command the way a user runs it.

Shared by `tests/test_e2e_shapes.py` (a few shapes in CI) and `bench/shapes.py` (hundreds).
A `Shape` says what a generated blog holds; `shapes()` is the hypothesis strategy that
picks them; `write_site` writes one; `build_sequence` and `serve_sequence` take it through
a clean build and five changes (no change, an edit, a new post with math, a deleted post, a
renamed post) in subprocesses, and return every problem they saw as a `Problem`:

- the command's exit status is not 0 (a status above 128, or a negative one, is a signal);
- its stderr shows a traceback or an internal error;
- a process of its session is still alive after it exited (forkserver, pool workers,
  Pagefind, the build-time Python driver);
- the output folder differs from a clean build of the same sources into another folder.

What may differ from a clean build: nothing. Every file's bytes are compared and the set
of folders too (an empty folder an incremental build leaves behind is a difference). The
live server's pages carry the live-reload script, which is the one thing removed from its
HTML files before they are compared with `blogbuild build --drafts`.
"""

from __future__ import annotations

import base64
import contextlib
import ctypes
import datetime as dt
import io
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from hypothesis import strategies as st

#: What one post may hold (each a part of its body; `bundle` makes it a folder with a PNG).
FEATURES = ("inline", "display", "label", "code", "cite", "runnable", "bundle", "notebook")
KINDS = ("posts", "pages-only", "drafts-only", "scaffold")
TIMEOUT = 180.0  # seconds one command may take on a loaded 2-core machine
GRACE = 2.0  # seconds the processes of a finished command get to be gone
LIVERELOAD = '<script src="/__blogbuild__/livereload.js" data-build="0" defer></script>'
BAD_STDERR = re.compile(r"Traceback|internal error", re.IGNORECASE)

BIB = """\
@book{knuth1984,
  author = {Knuth, Donald E.},
  title = {The {\\TeX}book},
  publisher = {Addison-Wesley},
  year = {1984},
}

@article{shannon1948,
  author = {Shannon, Claude E.},
  title = {A Mathematical Theory of Communication},
  journal = {Bell System Technical Journal},
  volume = {27},
  pages = {379--423},
  year = {1948},
}
"""


@dataclass(frozen=True)
class Shape:
    """One generated blog: its kind, the features of its first posts, the site switches."""

    kind: str = "posts"
    posts: tuple[frozenset[str], ...] = (frozenset(),)  # features of each post
    about: bool = True  # a page content/about.md
    search: bool = True
    social_cards: bool = True

    def features(self) -> frozenset[str]:
        return frozenset().union(*self.posts) if self.posts else frozenset()

    def describe(self) -> str:
        posts = ", ".join("+".join(sorted(f)) or "plain" for f in self.posts[:4])
        more = f" (+{len(self.posts) - 4} plain)" if len(self.posts) > 4 else ""
        return (f"Shape(kind={self.kind}, posts=[{posts}]{more}, about={self.about}, "
                f"search={self.search}, social_cards={self.social_cards})")


@st.composite
def shapes(draw: st.DrawFn) -> Shape:
    """A blog shape: one post or many (sometimes enough for the render pool), each post
    with its own mix of math, code, citations, build-time blocks and bundles; or pages
    only, drafts only, or `blogbuild init`'s blog with a math-only first post."""
    kind = draw(st.sampled_from(KINDS))
    search = draw(st.booleans())
    cards = draw(st.booleans())
    features = st.frozensets(st.sampled_from(FEATURES))
    if kind == "pages-only":
        return Shape(kind, (), True, search, cards)
    if kind == "scaffold":
        extra = draw(st.lists(features, max_size=2))
        return Shape(kind, (frozenset({"inline"}), *extra), True, search, cards)
    many = draw(st.integers(0, 4)) == 4  # the simplest shape has few posts
    rich = draw(st.lists(features, min_size=1, max_size=3))
    plain = [frozenset[str]()] * (draw(st.integers(24, 27)) - len(rich)) if many else []
    return Shape(kind, (*rich, *plain), draw(st.booleans()), search, cards)


#: Every feature on, and enough posts (25, with the page 26 sources) for the render pool.
RICHEST = Shape("posts", (frozenset(FEATURES) - {"notebook"},
                          frozenset({"inline", "code", "cite"}),
                          frozenset({"display", "label", "runnable", "bundle"}),
                          frozenset({"notebook", "inline", "code", "bundle"}),
                          *[frozenset[str]()] * 21),
                True, True, True)


#: Notebooks first: the post edited and the post renamed are notebooks (one a bundle).
NOTEBOOKS = Shape("posts", (frozenset({"notebook", "inline", "cite"}),
                            frozenset({"notebook", "bundle", "code"}), frozenset()),
                  True, True, False)


# -- writing a blog ----------------------------------------------------------------------------


def command() -> list[str]:
    """How a user runs blogbuild: the installed console script."""
    script = shutil.which("blogbuild")
    return [script] if script else [sys.executable, "-m", "blogbuild"]


def png(color: tuple[int, int, int]) -> bytes:
    from PIL import Image

    buffer = io.BytesIO()
    Image.new("RGB", (8, 6), color).save(buffer, format="PNG")
    return buffer.getvalue()


def body(n: int, features: frozenset[str]) -> str:
    parts = [f"The summary of post {n}.", "## A section", f"Words of post {n}."]
    if "inline" in features:
        parts.append(f"Inline math $e^{{i\\pi}} + {n} = {n - 1}$ in a sentence.")
    if "display" in features:
        parts.append("$$\n\\int_0^1 x\\,dx = \\tfrac12\n$$")
    if "label" in features:
        parts.append(f"$$\na^2 + b^2 = c^2 \\label{{eq:p{n}}}\n$$\n\n"
                     f"By \\eqref{{eq:p{n}}} the sides agree.")
    if "code" in features:
        parts.append(f"```python\ndef f{n}(x: int) -> int:\n    return x + {n}\n```")
    if "cite" in features:
        parts.append("As shown before [@knuth1984; @shannon1948, p. 380].")
    if "runnable" in features:
        parts.append('<div class="runnable" data-lang="python" markdown="1">\n\n'
                     f"```python\nprint(2 + {n})\n```\n\n</div>")
    if "bundle" in features:
        parts.append("![A small figure](figure.png)")
    return "\n\n".join(parts) + "\n"


def post_text(n: int, features: frozenset[str], *, draft: bool = False) -> str:
    date = dt.date(2024, 1, 1) + dt.timedelta(days=n)
    front = f"---\ntitle: \"Post {n}\"\ndate: {date.isoformat()}\ntags: [t{n % 3}]\n"
    if draft:
        front += "draft: true\n"
    if "notebook" in features:
        return notebook_text(front + "---", body(n, features), n)
    return front + "---\n\n" + body(n, features)


def notebook_text(front: str, markdown: str, n: int) -> str:
    """A Jupyter notebook (as Jupyter writes one) of the front matter, the post's Markdown
    and a code cell whose stored outputs are printed text and a figure."""
    figure = base64.b64encode(png((20 * n % 256, 120, 60))).decode("ascii")
    cells = [
        {"cell_type": "raw", "metadata": {}, "source": front.splitlines(keepends=True)},
        {"cell_type": "markdown", "metadata": {}, "source": markdown.splitlines(keepends=True)},
        {"cell_type": "code", "metadata": {}, "execution_count": 1, "source": [f"print({n})"],
         "outputs": [{"output_type": "stream", "name": "stdout", "text": [f"{n}\n"]},
                     {"output_type": "display_data", "metadata": {},
                      "data": {"image/png": figure, "text/plain": ["<Figure>"]}}]},
    ]
    return json.dumps({"cells": cells, "metadata": {"kernelspec": {
        "name": "python3", "language": "python", "display_name": "Python 3"}},
        "nbformat": 4, "nbformat_minor": 5}, indent=1) + "\n"


def post_path(root: Path, n: int, features: frozenset[str]) -> Path:
    """Where post n's source lives (a bundle's index.md or index.ipynb, or a dated file)."""
    posts = root / "content" / "posts"
    suffix = ".ipynb" if "notebook" in features else ".md"
    if "bundle" in features:
        return posts / f"post-{n}" / f"index{suffix}"
    return posts / f"{(dt.date(2024, 1, 1) + dt.timedelta(days=n)).isoformat()}-post-{n}{suffix}"


def site_yaml(shape: Shape) -> str:
    lines = [f"search: {str(shape.search).lower()}",
             f"social_cards: {str(shape.social_cards).lower()}"]
    features = shape.features()
    if "runnable" in features:
        lines.append("runnable:\n  execute: build")
    if "cite" in features:
        lines.append("bibliography: content/refs.bib")
    return "\n".join(lines) + "\n"


def write_site(root: Path, shape: Shape, outcome: Outcome) -> list[Path]:
    """Write the blog of `shape` into `root` (`blogbuild init` too is checked as a command
    in `outcome`); returns the source files of its posts."""
    posts: list[Path] = []
    if shape.kind == "scaffold":
        root.mkdir(parents=True, exist_ok=True)
        assert checked(["init", ".", "--title", "Scaffold",
                        "--base-url", "https://example.org/blog/"], root, "init", outcome)
        first = next((root / "content" / "posts").glob("*.md"))
        first.write_text(first.read_text().split("---\n\n", 1)[0].replace(
            "tags: [blogging]", "tags: [math]") + "---\n\n$x$ inline only.\n")
        posts.append(first)
        with (root / "site.yaml").open("a") as config:
            config.write(site_yaml(shape))
        rest = list(enumerate(shape.posts))[1:]
    else:
        (root / "content" / "posts").mkdir(parents=True)
        (root / "site.yaml").write_text(
            "title: \"Shapes\"\nbase_url: \"https://example.org/\"\nposts_per_page: 2\n"
            "feed_entries: 3\n" + site_yaml(shape))
        if shape.about:
            (root / "content" / "about.md").write_text(
                "---\ntitle: About\n---\n\nAbout this blog.\n")
        rest = list(enumerate(shape.posts))
    if shape.kind == "pages-only":
        (root / "content" / "colophon.md").write_text(
            "---\ntitle: Colophon\n---\n\nMade with blogbuild. $x^2$ too.\n")
    if "cite" in shape.features():
        (root / "content" / "refs.bib").write_text(BIB)
    for n, features in rest:
        path = post_path(root, n, features)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(post_text(n, features, draft=shape.kind == "drafts-only"))
        if "bundle" in features:
            (path.parent / "figure.png").write_bytes(png((40 * n % 256, 90, 160)))
        posts.append(path)
    return posts


# -- the changes -------------------------------------------------------------------------------


@dataclass
class Step:
    """A change to the sources and how to see on the live server that it arrived."""

    name: str
    change: Callable[[], None]
    path: str = ""  # a page (relative to the base path) that shows the change …
    shows: str = ""  # … once it holds this text ("" : once it is gone, a 404)


def url_of(root: Path, path: Path) -> str:
    """The page of a post or page, relative to the base path."""
    stem = path.parent.name if path.stem == "index" else path.stem
    slug = re.sub(r"^\d{4}-\d{2}-\d{2}-", "", stem)
    return f"posts/{slug}/" if (root / "content" / "posts") in path.parents else f"{slug}/"


def steps(root: Path, posts: list[Path]) -> list[Step]:
    """No change, an edit, a new post with math, a deleted post, a renamed post.

    With one post or none, the post deleted is the one added; with no posts left, the file
    renamed is a page."""
    pages = sorted((root / "content").glob("*.md"))
    added = root / "content" / "posts" / "2025-06-01-added.md"
    target = posts[0] if posts else pages[0]
    victim = posts[-1] if len(posts) > 1 else added
    mover = next(p for p in [*posts, added, *pages] if p != victim)
    moved_to = (mover.parent.with_name(mover.parent.name + "-moved") / mover.name
                if mover.stem == "index" else
                mover.with_name(mover.stem + "-moved" + mover.suffix))

    def edit() -> None:
        if target.suffix == ".ipynb":  # as Jupyter saves a notebook with a new cell
            notebook = json.loads(target.read_text())
            notebook["cells"].append({"cell_type": "markdown", "metadata": {},
                                      "source": ["An EDITED line."]})
            target.write_text(json.dumps(notebook, indent=1) + "\n")
        else:
            target.write_text(target.read_text() + "\nAn EDITED line.\n")

    def add() -> None:
        added.parent.mkdir(parents=True, exist_ok=True)
        added.write_text("---\ntitle: \"Added\"\ndate: 2025-06-01\ntags: [new]\n---\n\n"
                         "Added with $\\sqrt{2}$ math.\n\n$$\nE = mc^2\n$$\n")

    def delete() -> None:
        if victim.stem == "index":
            shutil.rmtree(victim.parent)
        else:
            victim.unlink()

    def rename() -> None:
        if mover.stem == "index":
            mover.parent.rename(moved_to.parent)
        else:
            mover.rename(moved_to)

    return [
        Step("no change", lambda: None),
        Step("edit a post", edit, url_of(root, target), "EDITED"),
        Step("add a post with math", add, url_of(root, added), "katex"),
        Step("delete a post", delete, url_of(root, victim), ""),
        Step("rename a post", rename, url_of(root, moved_to), "<h1"),
    ]


# -- checks ------------------------------------------------------------------------------------


@dataclass
class Problem:
    kind: str  # exit, signal, stderr, leftover, differs, timeout, serve
    step: str
    detail: str

    def __str__(self) -> str:
        return f"[{self.kind}] at '{self.step}': {self.detail}"


@dataclass
class Outcome:
    problems: list[Problem] = field(default_factory=list)
    commands: int = 0


def session_processes(sid: int) -> list[str]:
    """The processes alive in session `sid`: 'pid name: command line' each."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
            cmdline = Path(f"/proc/{entry}/cmdline").read_bytes()
        except OSError:
            continue
        name = stat[stat.index("(") + 1: stat.rindex(")")]
        fields = stat[stat.rindex(")") + 2:].split()
        state, pgrp, session = fields[0], int(fields[2]), int(fields[3])
        if (session == sid or pgrp == sid) and state != "Z":
            args = cmdline.replace(b"\0", b" ").decode(errors="replace").strip()
            found.append(f"{entry} {name}: {args[:160]}")
    return found


def leftovers(sid: int, grace: float = GRACE) -> list[str]:
    end = time.monotonic() + grace
    while True:
        alive = session_processes(sid)
        if not alive or time.monotonic() > end:
            return alive
        time.sleep(0.05)


def kill_session(sid: int) -> None:
    """Clean up after a failed check so the next shape starts alone."""
    for line in session_processes(sid):
        with contextlib.suppress(OSError):
            os.kill(int(line.split()[0]), signal.SIGKILL)


def exit_problems(step: str, what: str, code: int, stderr: str) -> list[Problem]:
    """A status other than 0 (a signal: negative, or above 128 through a shell) and a
    traceback or internal error on stderr."""
    problems = []
    if code != 0:
        number = -code if code < 0 else code - 128
        if number > 0:
            try:
                name = signal.Signals(number).name
            except ValueError:
                name = f"signal {number}"
            problems.append(Problem("signal", step, f"{what} exited {code} ({name}): "
                                    + tail(stderr)))
        else:
            problems.append(Problem("exit", step, f"{what} exited {code}: {tail(stderr)}"))
    if BAD_STDERR.search(stderr):
        problems.append(Problem("stderr", step, f"{what}: {tail(stderr)}"))
    return problems


def tail(text: str, lines: int = 8) -> str:
    return " | ".join(text.strip().splitlines()[-lines:])


def checked(args: list[str], cwd: Path, step: str, outcome: Outcome,
            program: list[str] | None = None) -> bool:
    """Run `blogbuild ARGS` (or `program`) and record its problems; True when it exited 0."""
    outcome.commands += 1
    what = " ".join(program or ["blogbuild", *args])
    # Output to files, not pipes: a process left behind holding a pipe would keep
    # communicate() waiting, and the leftover would show as a slow command instead.
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        proc = subprocess.Popen(program or [*command(), *args], cwd=cwd, stdout=out,
                                stderr=err, text=True, env=os.environ.copy(),
                                start_new_session=True)
        try:
            proc.wait(timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            kill_session(proc.pid)
            proc.kill()
            proc.wait()
            timed_out = True
        else:
            timed_out = False
        err.seek(0)
        stderr = err.read()
    if timed_out:
        outcome.problems.append(Problem("timeout", step, f"{what}: {tail(stderr)}"))
        return False
    outcome.problems += exit_problems(step, what, proc.returncode, stderr)
    alive = leftovers(proc.pid)
    if alive:
        outcome.problems.append(Problem("leftover", step, f"{what}: {'; '.join(alive)}"))
        kill_session(proc.pid)
    return proc.returncode == 0


def snapshot(folder: Path, *, strip_reload: bool = False) -> dict[str, bytes | None]:
    """Every file (its bytes) and folder (None) under `folder`, by relative path."""
    found: dict[str, bytes | None] = {}
    for path in folder.rglob("*"):
        rel = path.relative_to(folder).as_posix()
        if path.is_dir() and not path.is_symlink():
            found[rel + "/"] = None
        else:
            data = path.read_bytes()
            if strip_reload and path.suffix == ".html":
                data = data.replace(LIVERELOAD.encode(), b"")
            found[rel] = data
    return found


def differences(got: dict[str, bytes | None], want: dict[str, bytes | None]) -> list[str]:
    lines = [f"only in the incremental output: {p}" for p in sorted(got.keys() - want.keys())]
    lines += [f"only in the clean build: {p}" for p in sorted(want.keys() - got.keys())]
    lines += [f"bytes differ: {p}" for p in sorted(got.keys() & want.keys())
              if got[p] != want[p]]
    return lines


def clean_build(site: Path, out: Path, step: str, outcome: Outcome,
                drafts: bool = False) -> dict[str, bytes | None] | None:
    shutil.rmtree(out, ignore_errors=True)
    args = ["build", "--quiet", "--no-cache", "--output", str(out)]
    if not checked([*args, "--drafts"] if drafts else args, site, f"{step} (clean build)",
                   outcome):
        return None
    return snapshot(out)


def compare(got: dict[str, bytes | None], want: dict[str, bytes | None] | None, step: str,
            outcome: Outcome, what: str) -> None:
    if want is None:
        return
    diff = differences(got, want)
    if diff:
        outcome.problems.append(Problem(
            "differs", step, f"{what} differs from a clean build in {len(diff)} paths: "
            + "; ".join(diff[:6])))


# -- the sequences -----------------------------------------------------------------------------


def build_sequence(shape: Shape, workdir: Path) -> Outcome:
    """`blogbuild build` after a clean start and each change; each compared with a clean
    build of the same sources (`--no-cache`, another folder)."""
    outcome = Outcome()
    site = workdir / "blog"
    site.mkdir(parents=True)
    posts = write_site(site, shape, outcome)
    clean = workdir / "clean"
    sequence = [Step("clean build", lambda: None), *steps(site, posts)]
    want: dict[str, bytes | None] | None = None
    for step in sequence:
        step.change()
        if not checked(["build", "--quiet"], site, step.name, outcome):
            continue
        if want is None or step.name != "no change":  # same sources, same clean build
            want = clean_build(site, clean, step.name, outcome)
        compare(snapshot(site / "_site"), want, step.name, outcome, "_site")
    return outcome


def fetch(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            return response.status, response.read().decode("utf-8", "replace")
    except urllib.error.HTTPError as exc:
        return exc.code, ""
    except OSError:
        return 0, ""


def serve_sequence(shape: Shape, workdir: Path, *, wait: float = 30.0) -> Outcome:
    """`blogbuild serve` on a free port: each change must show on the served page, and the
    output folder must then equal `build --drafts` of the same sources (minus the
    live-reload script); Ctrl-C must end it with status 0 and nothing left running."""
    outcome = Outcome()
    site = workdir / "blog"
    site.mkdir(parents=True)
    posts = write_site(site, shape, outcome)
    out = workdir / "served"
    outcome.commands += 1
    proc = subprocess.Popen([*command(), "serve", "--port", "0", "--output", str(out)],
                            cwd=site, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            text=True, env=os.environ.copy(), start_new_session=True)
    log: list[str] = []
    stream = proc.stderr
    assert stream is not None
    reader = threading.Thread(target=lambda: log.extend(iter(stream.readline, "")), daemon=True)
    reader.start()
    step_name = "start"
    try:
        url = ""
        end = time.monotonic() + TIMEOUT
        while not url and time.monotonic() < end and proc.poll() is None:
            found = [m for line in list(log) if (m := re.search(r" at (http://\S+)", line))]
            url = found[0][1] if found else ""
            time.sleep(0.05)
        if not url:
            outcome.problems.append(Problem("serve", step_name, "never said where it serves: "
                                            + tail("".join(log))))
            return outcome
        for step in steps(site, posts):
            step_name = step.name
            step.change()
            if step.path:
                end = time.monotonic() + wait
                while time.monotonic() < end:
                    status, text = fetch(url + step.path)
                    if (status == 200 and step.shows in text) if step.shows else status == 404:
                        break
                    time.sleep(0.1)
                else:
                    outcome.problems.append(Problem(
                        "serve", step.name, f"{url + step.path} did not show the change in "
                        f"{wait:.0f} s (status {status}): {tail(''.join(log))}"))
            want = clean_build(site, workdir / "clean", step.name, outcome, drafts=True)
            if want is not None:
                end = time.monotonic() + wait  # the batch may still be writing
                while True:
                    got = snapshot(out, strip_reload=True)
                    if not differences(got, want) or time.monotonic() > end:
                        break
                    time.sleep(0.2)
                compare(got, want, step.name, outcome, "serve's output")
    finally:
        step_name = "stop (SIGINT)"
        if proc.poll() is None:
            proc.send_signal(signal.SIGINT)
        try:
            code = proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            outcome.problems.append(Problem("timeout", step_name,
                                            "serve still running 10 s after SIGINT"))
            kill_session(proc.pid)
            code = proc.wait()
        reader.join(5)
        outcome.problems += exit_problems(step_name, "blogbuild serve", code, "".join(log))
        alive = leftovers(proc.pid)
        if alive:
            outcome.problems.append(Problem("leftover", step_name,
                                            f"blogbuild serve: {'; '.join(alive)}"))
            kill_session(proc.pid)
    return outcome


def determinism(shape: Shape, workdir: Path) -> Outcome:
    """Two clean builds, in two processes, from two copies of the site in other folders,
    into two output folders: every file the same."""
    outcome = Outcome()
    first = workdir / "one" / "blog"
    first.mkdir(parents=True)
    write_site(first, shape, outcome)
    second = workdir / "two" / "blog"
    shutil.copytree(first, second)
    a = clean_build(first, workdir / "out-a", "first clean build", outcome)
    b = clean_build(second, workdir / "out-b", "second clean build", outcome)
    if a is not None and b is not None:
        diff = differences(a, b)
        if diff:
            outcome.problems.append(Problem("differs", "second clean build",
                                            f"{len(diff)} paths: " + "; ".join(diff[:6])))
    return outcome


def tgkill(pid: int, thread: int, sig: int) -> None:
    """Linux's tgkill(2): `sig` to one thread of process `pid`."""
    number = {"x86_64": 234, "aarch64": 131}.get(os.uname().machine)
    if number is None:
        pytest.skip("tgkill's system call number on this machine is not known here")
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.syscall(number, pid, thread, sig) != 0:
        raise OSError(ctypes.get_errno(), "tgkill")
