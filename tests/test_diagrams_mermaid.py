"""A Mermaid diagram mmdr refuses is put to Mermaid's own parser (the vendored script in V8):
one Mermaid accepts is left to Mermaid's script in the reader's browser with a warning, one
it refuses too is an error at the line Mermaid names; the verdict is kept with the drawings."""

from __future__ import annotations

from pathlib import Path

import pytest

from blogbuild import diskcache
from blogbuild.commands.build import build
from blogbuild.config import Config
from blogbuild.diagnostics import BuildFailed
from blogbuild.diagrams import draw as draw_module
from blogbuild.diagrams import drawer
from blogbuild.diagrams.draw import draw
from blogbuild.diagrams.verdict import ACCEPTS, REFUSES, author_line
from blogbuild.markdown import create_markdown
from blogbuild.pipeline.render import render_markdown

#: A date mmdr's renderer cannot read and Mermaid's can (a browser's Date reads it): Mermaid
#: draws this chart, mmdr refuses it.
ONLY_MERMAID = ("gantt\n  dateFormat YYYY-MM-DD\n  section Build\n"
                "  Write : January 5 2024, 3d\n")


def _render(source: str) -> list[tuple[int, str, str]]:
    rendered = render_markdown(create_markdown(Config()), source, file="post.md")
    return [(d.line, d.severity, d.message) for d in rendered.diagnostics]


def _site(tmp_path: Path, body: str) -> Path:
    (tmp_path / "content" / "posts").mkdir(parents=True)
    (tmp_path / "site.yaml").write_text("title: D\nsearch: false\nsocial_cards: false\n")
    (tmp_path / "content" / "posts" / "new.md").write_text(
        f"---\ntitle: New\ndate: 2026-01-02\n---\nText.\n\n{body}")
    return tmp_path / "site.yaml"


def test_a_diagram_mermaid_accepts_is_left_to_its_script_with_a_warning(
        tmp_path: Path) -> None:
    report = build(_site(tmp_path, f"```mermaid\n{ONLY_MERMAID}```\n"))
    [warning] = report.diagnostics
    assert (warning.file, warning.line, warning.severity) == ("content/posts/new.md", 7,
                                                               "warning")
    assert warning.message.startswith("blogbuild cannot draw this Mermaid diagram, which "
                                      "Mermaid accepts (mmdr says: ")
    assert "Invalid date:January 5 2024" in warning.message
    page = (tmp_path / "_site" / "posts" / "new" / "index.html").read_text()
    assert '<pre class="mermaid-fallback">gantt\n' in page
    assert '<script src="/vendor/mermaid/mermaid.min.js" defer></script>' in page


def test_a_type_neither_renderer_nor_mermaid_knows_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(BuildFailed) as failed:
        build(_site(tmp_path, "```mermaid\nusecase\n  actor A\n```\n"))
    [error] = failed.value.diagnostics
    assert (error.file, error.line, error.severity) == ("content/posts/new.md", 7, "error")
    assert ("this Mermaid diagram cannot be drawn: neither blogbuild's renderer nor Mermaid "
            "knows a type of diagram 'usecase'; check its spelling") in error.message


def test_mermaids_line_is_the_line_of_the_authors_text() -> None:
    # Mermaid numbers the lines its preprocessing leaves: no front matter, directive or
    # comment line; the broken edge is the diagram's line 7.
    text = ("---\ntitle: T\n---\n%%{init: {\"theme\": \"dark\"}}%%\nflowchart LR\n"
            "  %% a comment\n  B -> -> C\n  C --> D\n")
    [(line, severity, message)] = _render(f"Intro.\n\n```mermaid\n{text}```\n")
    assert (line, severity) == (3 + 7, "error")
    assert message.startswith("this Mermaid diagram cannot be drawn (line 7 of the diagram): ")
    assert "(Mermaid's parser refuses it too: expecting 'SEMI'" in message
    # Past the end of the text (an unclosed label): its last line.
    assert author_line("flowchart LR\n  A --> B[oops\n\n", 4) == 2
    assert author_line("pie\n  %% c\n  \"a\" : x\n", 2) == 3


def test_without_a_verdict_a_type_mmdr_does_not_know_is_left_to_mermaid(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Mermaid's parser that cannot run (here: its program is missing) gives no verdict:
    a type mmdr does not know goes to Mermaid's script as before, and nothing is cached."""
    monkeypatch.setattr(drawer, "_checker", drawer.Drawer(Path("/nonexistent/checker.py")))
    diskcache.set_cache_dir(tmp_path)
    try:
        [(line, severity, message)] = _render("```mermaid\nusecase\n  actor A\n```\n")
        assert (line, severity) == (1, "warning")
        assert message.endswith("(5 MB, loaded by this page only); if it is a misspelt "
                                "type, fix it")
        diskcache.flush()
        monkeypatch.undo()  # the parser is back: the next build asks it
        assert draw("mermaid", "usecase\n  actor A\n").mermaid == REFUSES
    finally:
        diskcache.close()
        diskcache.set_cache_dir(None)


def test_the_verdict_is_kept_with_the_drawings(tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """A rebuild finds Mermaid's verdict in the cache: it starts no V8."""
    diskcache.set_cache_dir(tmp_path)
    try:
        accepted, refused = draw("mermaid", ONLY_MERMAID), draw("mermaid", "usecase\n  A\n")
        assert (accepted.mermaid, refused.mermaid) == (ACCEPTS, REFUSES)
        assert "No diagram type detected" in refused.said
        monkeypatch.setattr(drawer, "check", lambda *a, **k: pytest.fail("asked again"))
        monkeypatch.setattr(drawer, "draw", lambda *a, **k: pytest.fail("drawn again"))
        diskcache.flush()
        assert draw("mermaid", ONLY_MERMAID) == accepted
        assert draw("mermaid", "usecase\n  A\n") == refused
    finally:
        diskcache.close()
        diskcache.set_cache_dir(None)


def test_a_drawing_stopped_at_its_limit_is_not_kept(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """A drawing stopped at the time limit may be the machine's fault: the next build tries
    again."""
    diskcache.set_cache_dir(tmp_path)
    try:
        monkeypatch.setattr(draw_module, "TIMEOUT", 0.5)
        edges = " ".join(f"n{i} -> n{(i * 7 + j) % 1500};" for i in range(1500) for j in (1, 3))
        assert draw("dot", "digraph { " + edges + " }").error.startswith("took longer than")
        diskcache.flush()
        asked = []
        monkeypatch.setattr(drawer, "draw", lambda batch, **k: asked.append(batch) or [
            (0, "<svg xmlns='http://www.w3.org/2000/svg'/>", "")])
        assert draw("dot", "digraph { " + edges + " }").svg
        assert len(asked) == 1
    finally:
        diskcache.close()
        diskcache.set_cache_dir(None)

