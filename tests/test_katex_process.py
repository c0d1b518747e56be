"""KaTeX in a process started ahead (blogbuild.runtimes.katex_process).

A build that finds a source the last build did not have, with math, starts a child that
loads KaTeX while the build goes on, and renders the formulas its caches lack there. These
tests check that the child renders what this process renders, that only such a build
starts one, that a child that dies, stops or hangs leaves the render to this process, and
that the page is the same as a build without a child makes.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import html5lib
import pytest

from blogbuild import childproc
from blogbuild.commands.build import build
from blogbuild.config import load_config
from blogbuild.pipeline.quick import read_sources
from blogbuild.runtimes import katex, katex_process
from blogbuild.runtimes.katex_process import KatexProcess, ProcessGone, Stopped
from blogbuild.runtimes.katex_types import KatexResult
from process_helpers import build_in_a_new_process

NS = {"h": "http://www.w3.org/1999/xhtml"}


def make_site(root: Path) -> Path:
    (root / "content" / "posts").mkdir(parents=True)
    (root / "site.yaml").write_text('title: "Ahead"\nbase_url: "https://example.org/"\n')
    (root / "content" / "posts" / "2024-01-01-old.md").write_text(
        "---\ntitle: Old\n---\n\nThe old post, with $a^2 + b^2$.\n")
    return root


def new_formula() -> str:
    """A formula no cache has seen (its variable is named anew)."""
    return f"\\mathrm{{v{uuid.uuid4().hex[:12]}}}^2"


def math_post(tex: str) -> str:
    return f"---\ntitle: New\n---\n\nInline ${tex}$ and\n\n$$\\int_0^1 {tex}\\,dx$$\n"


def annotations(page: Path) -> list[str]:
    """The TeX of each formula on the page, as KaTeX's MathML keeps it."""
    doc = html5lib.parse(page.read_bytes(), namespaceHTMLElements=True)
    return [a.text or "" for a in doc.iter("{http://www.w3.org/1998/Math/MathML}annotation")]


@pytest.fixture
def started(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[KatexProcess]]:
    """The children the builds start, and the calls each answered (`child.answered`)."""
    children: list[KatexProcess] = []
    begin, call = KatexProcess.begin.__func__, KatexProcess.call  # type: ignore[attr-defined]

    def counted_begin(cls: type[KatexProcess]) -> KatexProcess | None:
        child = begin(cls)
        if child is not None:
            child.answered = 0  # type: ignore[attr-defined]
            children.append(child)
        return child

    def counted_call(self: KatexProcess, *args: object) -> object:
        value = call(self, *args)
        self.answered += 1  # type: ignore[attr-defined]
        return value

    monkeypatch.setattr(KatexProcess, "begin", classmethod(counted_begin))
    monkeypatch.setattr(KatexProcess, "call", counted_call)
    yield children
    katex.end_process()


def no_local_v8(monkeypatch: pytest.MonkeyPatch) -> None:
    """Making a V8 context in this process fails the test."""
    katex.close()

    def refused() -> None:
        raise AssertionError("KaTeX started in the build's own process")

    monkeypatch.setattr(katex, "new_context", refused)


def test_the_child_renders_what_this_process_renders() -> None:
    child = KatexProcess.begin()
    assert child is not None
    try:
        options = {"output": "htmlAndMathml", "macros": {}}
        batch = [["x^2", False], ["\\frac{a}{b}", True], ["\\frac{", False]]
        answered = child.call("blogbuildRenderMany", (batch, options), 10.0)
        for (tex, display), data in zip(batch, answered, strict=True):
            assert KatexResult.from_data(dict(data)) == katex.render(tex, display=display)
        assert "katex-display" in answered[1]["html"]
        assert answered[2]["message"] and answered[2].get("html") is None, "an error comes back"
    finally:
        child.end()
    assert child.process.returncode is not None


def test_a_new_post_with_math_is_rendered_in_the_child(
        tmp_path: Path, started: list[KatexProcess], monkeypatch: pytest.MonkeyPatch) -> None:
    site = make_site(tmp_path / "site")
    build(site / "site.yaml")
    assert started == [], "a first build renders in its workers' or its own process"
    tex = new_formula()
    (site / "content" / "posts" / "2024-02-01-new.md").write_text(math_post(tex))
    no_local_v8(monkeypatch)
    report = build(site / "site.yaml")
    assert not report.diagnostics
    assert len(started) == 1 and started[0].answered >= 1  # type: ignore[attr-defined]
    page = site / "_site" / "posts" / "new" / "index.html"
    assert annotations(page) == [tex, f"\\int_0^1 {tex}\\,dx"]
    assert started[0].process.returncode is not None, "the build ended its child"
    assert katex._rt.child is None


def test_only_a_new_source_with_math_starts_a_child(
        tmp_path: Path, started: list[KatexProcess]) -> None:
    site = make_site(tmp_path / "site")
    posts = site / "content" / "posts"
    build(site / "site.yaml")
    (posts / "2024-01-01-old.md").write_text(
        f"---\ntitle: Old\n---\n\nEdited, with a new formula ${new_formula()}$.\n")
    build(site / "site.yaml")
    (posts / "2024-02-01-plain.md").write_text("---\ntitle: Plain\n---\n\nNo math here.\n")
    build(site / "site.yaml")
    assert started == []
    (posts / "2024-03-01-math.md").write_text(math_post(new_formula()))
    build(site / "site.yaml")
    assert len(started) == 1
    build(site / "site.yaml")  # nothing new
    (site / "site.yaml").write_text('title: "Ahead"\nbase_url: "https://example.org/"\n'
                                    "math:\n  enabled: false\n")
    (posts / "2024-04-01-more.md").write_text(math_post(new_formula()))
    build(site / "site.yaml")
    assert len(started) == 1, "no child when the site has math turned off"


def test_the_sources_know_which_are_new(tmp_path: Path) -> None:
    site = make_site(tmp_path / "site")
    config = load_config(site / "site.yaml")
    first = read_sources(config)
    assert first.new == set(), "without the last build's stamps, nothing is known as new"
    (site / "content" / "posts" / "2024-02-01-new.md").write_text(math_post("x"))
    again = read_sources(config, first.stamps)
    assert again.new == {"posts/2024-02-01-new.md"}


def test_a_child_that_died_leaves_the_render_to_this_process(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    site = make_site(tmp_path / "site")
    build(site / "site.yaml")
    begin = KatexProcess.begin.__func__  # type: ignore[attr-defined]
    dead: list[KatexProcess] = []

    def dying(cls: type[KatexProcess]) -> KatexProcess | None:
        child = begin(cls)
        assert child is not None
        child.process.kill()
        child.process.wait()
        dead.append(child)
        return child

    monkeypatch.setattr(KatexProcess, "begin", classmethod(dying))
    tex = new_formula()
    (site / "content" / "posts" / "2024-02-01-new.md").write_text(math_post(tex))
    report = build(site / "site.yaml")
    assert len(dead) == 1
    assert not report.diagnostics
    assert annotations(site / "_site" / "posts" / "new" / "index.html")[0] == tex


def test_a_call_v8_stops_is_said_on_the_page_and_the_child_goes() -> None:
    child = KatexProcess.begin()
    assert child is not None
    with pytest.raises(Stopped) as stopped:
        child.call("noSuchFunction", (), 5.0)
    assert stopped.value.kind.startswith("JS")
    katex.use_process(child)
    try:
        def stopping(*args: object) -> object:
            raise Stopped("JSTimeoutException")

        child.call = stopping  # type: ignore[method-assign]
        result = katex.render(new_formula(), display=False)
        assert result.message == "KaTeX stopped: JSTimeoutException"
        assert katex._rt.child is None and child.process.returncode is not None
    finally:
        katex.end_process()


def test_a_child_that_does_not_answer_is_given_up(monkeypatch: pytest.MonkeyPatch) -> None:
    silent = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    child = KatexProcess(silent)
    monkeypatch.setattr(katex_process, "GRACE_SECONDS", 0.3)
    began = time.monotonic()
    with pytest.raises(ProcessGone):
        child.call("blogbuildRender", ("x", False, {}), 0.1)
    assert time.monotonic() - began < 5
    child.end()
    assert silent.returncode is not None


def test_a_child_runs_at_the_priority_asked(tmp_path: Path) -> None:
    process = childproc.start("blogbuild.runtimes.katex_process", nicer=3)
    try:
        assert os.getpriority(os.PRIO_PROCESS, process.pid) == min(19, \
            os.getpriority(os.PRIO_PROCESS, 0) + 3)
    finally:
        process.kill()
        process.wait()
        for stream in (process.stdin, process.stdout):
            assert stream is not None
            stream.close()


def test_a_new_post_built_in_a_new_process_is_the_page_a_first_build_makes(
        tmp_path: Path) -> None:
    site = make_site(tmp_path / "site")
    build_in_a_new_process(site)
    tex = new_formula()
    (site / "content" / "posts" / "2024-02-01-new.md").write_text(math_post(tex))
    done = build_in_a_new_process(site)
    assert "1 rendered" in done.stderr
    fresh = build_in_a_new_process(site, "--no-cache", "--output", str(tmp_path / "fresh"))
    assert fresh.returncode == 0
    ours = site / "_site" / "posts" / "new" / "index.html"
    assert annotations(ours) == [tex, f"\\int_0^1 {tex}\\,dx"]
    assert ours.read_bytes() == (tmp_path / "fresh" / "posts" / "new" / "index.html").read_bytes()
