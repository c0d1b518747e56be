"""Messages about a link or an image name the line it is on, not its paragraph's first line:
in paragraphs, lists, quotes, tables, definitions and footnotes (inline ones too)."""

from __future__ import annotations

from pathlib import Path

import pytest

from blogbuild.commands.build import build
from blogbuild.diagnostics import BuildFailed

FRONT = "---\ntitle: A\ndate: 2024-01-01\n---\n\n"  # the body starts at line 6

#: (where, Markdown whose marked URL `BAD` sits on the body's third line).
PLACES = [
    ("paragraph", "First line\nsecond line\nthird [x](BAD) here\n"),
    ("list item", "- one\n  two\n  three [x](BAD)\n- four\n"),
    ("quote", "> one\n> two\n> three ![x](BAD)\n"),
    ("table", "| a | b |\n|---|---|\n| [x](BAD) | c |\n"),
    ("definition", "Term\n: one\n  two [x](BAD)\n"),
    ("footnote", "Text[^n].\n\n[^n]: one\n    two\n    three [x](BAD)\n"),
    ("inline footnote", "Text^[one\ntwo\nthree [x](BAD)] after.\n"),
    ("after a code span over two lines", "`one\ntwo` and\n[x](BAD)\n"),
    ("in emphasis", "*one\ntwo\nthree [x](BAD)*\n"),
    ("autolink", "one\ntwo\nthree <BAD>\n"),
    ("image in a link", "one\ntwo\n[![x](BAD)](https://example.org/)\n"),
    ("after a wiki link", "one [[Nowhere]]\ntwo\nthree [x](BAD)\n"),
]


def _site(tmp_path: Path, body: str) -> Path:
    site = tmp_path / "site"
    (site / "content/posts").mkdir(parents=True)
    (site / "site.yaml").write_text("title: Test\nbase_url: https://example.org/blog/\n")
    (site / "content/posts/a.md").write_text(FRONT + body)
    return site


def _bad_line(body: str) -> int:
    """The source line of `BAD` in `body`."""
    return 6 + next(i for i, text in enumerate(body.splitlines()) if "BAD" in text)


def _lines(diagnostics: list, needle: str) -> list[int]:
    return [d.line for d in diagnostics if needle in d.message]


@pytest.mark.parametrize(("where", "body"), PLACES, ids=[p[0] for p in PLACES])
def test_an_unsafe_url_is_reported_at_its_line(tmp_path: Path, where: str, body: str) -> None:
    site = _site(tmp_path, body.replace("BAD", "javascript:alert(1)"))
    line = _bad_line(body)
    with pytest.raises(BuildFailed) as failed:
        build(site / "site.yaml")
    assert _lines(failed.value.diagnostics, "unsafe URL scheme") == [line], where


LOCAL = [p for p in PLACES if p[0] != "autolink"]  # `<gone.png>` is no autolink


@pytest.mark.parametrize(("where", "body"), LOCAL, ids=[p[0] for p in LOCAL])
def test_a_missing_target_is_reported_at_its_line(tmp_path: Path, where: str,
                                                  body: str) -> None:
    site = _site(tmp_path, body.replace("BAD", "gone.png"))
    line = _bad_line(body)
    report = build(site / "site.yaml")
    assert _lines(report.diagnostics, "target not found: content/posts/gone.png") == [line], \
        where


def test_links_on_many_lines_each_get_their_own(tmp_path: Path) -> None:
    body = "".join(f"line {i} [x{i}](gone{i}.md) and ![y{i}](gone{i}.png)\n" for i in range(40))
    site = _site(tmp_path, body)
    report = build(site / "site.yaml")
    for i in range(40):
        assert _lines(report.diagnostics, f"content/posts/gone{i}.md ") == [6 + i]
        assert _lines(report.diagnostics, f"content/posts/gone{i}.png ") == [6 + i]
