"""Pandoc's grid tables and Quarto's listing divs on a `.qmd` page: the fixtures, cells of
block Markdown parsed with the page's env (math, references), alignments and headers, a
caption and its number, spans shown as written with a warning, what is no grid table, a
`.md` post left as it was, and a real build."""

from __future__ import annotations

from pathlib import Path
from xml.etree.ElementTree import Element

import html5lib
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from markdown_it.utils import read_fixture_file

from blogbuild.commands.build import build
from blogbuild.markdown import create_markdown
from blogbuild.pipeline.render import Rendered, render_markdown
from blogbuild.quarto import QuartoPage

FIXTURES = Path(__file__).parent / "fixtures"
CASES = [(name, *case) for name in ("quarto_grids.md", "quarto_listings.md")
         for case in read_fixture_file(FIXTURES / name)]
NS = "{http://www.w3.org/1999/xhtml}"
MD = create_markdown()

GRID = """\
+---------------+---------------+--------------------+
| Fruit         | Price         | Advantages         |
+===============+:=============:+===================:+
| Bananas       | 1.34          | - built-in wrapper |
|               |               | - bright color     |
+---------------+---------------+--------------------+
| $x^2$ [doc]   | see @tbl-grid | ```python          |
|               |               | a = 1              |
| [doc]: /d.html|               | ```                |
+---------------+---------------+--------------------+

: Sample grid table. {#tbl-grid}

See @tbl-grid.
"""


@pytest.mark.parametrize(("name", "line", "title", "source", "expected"), CASES,
                         ids=[f"{c[0]}:{c[2]}" for c in CASES])
def test_fixture(name: str, line: int, title: str, source: str, expected: str) -> None:
    assert MD.render(source, {"quarto": QuartoPage()}) == expected


def _qmd(source: str) -> Rendered:
    return render_markdown(MD, source, file="posts/a.qmd", line_offset=4,
                           extra_env={"quarto": QuartoPage()})


def _tree(html: str) -> Element:
    tree: Element = html5lib.parse(html)
    return tree


def _text(element: Element) -> str:
    """The element's text, its runs of spaces (the no-break space too) as one space."""
    return " ".join("".join(element.itertext()).split())


def _cells(table: Element, tag: str) -> list[list[Element]]:
    return [list(row.iter(f"{NS}{tag}")) for row in table.iter(f"{NS}tr")
            if list(row.iter(f"{NS}{tag}"))]


def test_a_grid_table_is_a_table_of_block_cells_with_its_caption_and_number() -> None:
    rendered = _qmd(GRID)
    assert rendered.diagnostics == ()
    table = next(_tree(rendered.html).iter(f"{NS}table"))
    assert table.get("id") == "tbl-grid"
    caption = next(table.iter(f"{NS}caption"))
    assert _text(caption) == "Table 1: Sample grid table."
    heads = _cells(table, "th")
    assert [[_text(c) for c in row] for row in heads] == [["Fruit", "Price", "Advantages"]]
    assert [c.get("style") for c in heads[0]] == [None, "text-align:center", "text-align:right"]
    rows = _cells(table, "td")
    assert len(rows) == 2
    items = [_text(li) for li in rows[0][2].iter(f"{NS}li")]
    assert items == ["built-in wrapper", "bright color"]
    first = rows[1][0]
    assert any("katex" in str(s.get("class")) for s in first.iter(f"{NS}span"))
    link = next(first.iter(f"{NS}a"))  # a reference defined inside the same cell
    assert link.get("href") == "/d.html" and _text(link) == "doc"
    assert [a.get("href") for a in rows[1][1].iter(f"{NS}a")] == ["#tbl-grid"]
    assert "a = 1" in _text(next(rows[1][2].iter(f"{NS}pre")))
    after = [p for p in _tree(rendered.html).iter(f"{NS}p") if "See" in _text(p)]
    assert _text(after[0]) == "See Table 1."


def test_a_markdown_post_leaves_a_grid_table_as_it_was() -> None:
    html = MD.render(GRID, {})
    assert "<table" not in html and "<caption" not in html
    assert "+===============+:=============:+===================:+" in html
    assert "| Bananas       | 1.34          | - built-in wrapper |" in html


def test_spans_are_shown_as_written_with_a_warning_at_the_tables_line() -> None:
    source = ("Intro.\n\n+-----+-----+\n| a   | b   |\n+=====+=====+\n| one cell  |\n"
              "+-----+-----+\n| c   |     |\n+     +-----+\n| d   | e   |\n+-----+-----+\n")
    rendered = _qmd(source)
    assert [(d.line, d.message) for d in rendered.diagnostics] == [(7, (
        "this grid table has a cell spanning rows or columns (a missing | or + inside it), "
        "which blogbuild does not read: it is shown as written; split the spanning cell "
        "into one per row and column, or write the table in HTML"))]
    tree = _tree(rendered.html)
    assert not list(tree.iter(f"{NS}table"))
    shown = "".join(next(tree.iter(f"{NS}pre")).itertext())
    assert shown == source.split("\n\n", 1)[1]


def test_a_message_about_a_cell_names_the_cells_own_line() -> None:
    rendered = _qmd("Intro.\n\n+------------------------+\n| a                      |\n"
                    "+------------------------+\n| text                   |\n"
                    "| ::: {.callout-note}    |\n| inside                 |\n"
                    "+------------------------+\n")
    assert [(d.line, d.message) for d in rendered.diagnostics] == [
        (11, "this ::: div is never closed, so it runs to the end of its container: end it "
             "with a line of :::")]


def test_a_broken_grid_is_a_paragraph_with_every_character_kept() -> None:
    source = "+---+---+\n| a | b |\n| c  | d |\n+---+---+\n"
    rendered = _qmd(source)
    assert rendered.diagnostics == ()
    paragraph = next(_tree(rendered.html).iter(f"{NS}p"))
    assert "".join(paragraph.itertext()) == source.rstrip("\n")


def test_a_listing_div_is_a_numbered_listing_its_references_find() -> None:
    rendered = _qmd("::: {#lst-customers}\n```{.sql}\nSELECT * FROM Customers\n```\n\n"
                    "Customers *Query* in `sql`\n:::\n\nAs @lst-customers shows.\n")
    assert rendered.diagnostics == ()
    tree = _tree(rendered.html)
    box = next(d for d in tree.iter(f"{NS}div") if d.get("id") == "lst-customers")
    title = next(s for s in box.iter(f"{NS}span") if s.get("class") == "codeblock-title")
    assert _text(title) == "Listing 1: Customers Query in sql"  # the caption's text
    assert "SELECT * FROM Customers" in _text(box)
    assert not [p for p in tree.iter(f"{NS}p") if "Customers" in _text(p)]
    link = next(a for a in tree.iter(f"{NS}a") if "quarto-xref" in str(a.get("class")))
    assert (link.get("href"), _text(link)) == ("#lst-customers", "Listing 1")


@pytest.mark.parametrize(("body", "count"), [
    ("No code here.\n", "no"), ("```\na\n```\n\n```\nb\n```\n\nTwo of them\n", "2")])
def test_a_listing_div_without_one_code_block_says_so_at_its_line(body: str,
                                                                 count: str) -> None:
    rendered = _qmd(f"Intro.\n\n::: {{#lst-x}}\n{body}:::\n")
    assert [(d.line, d.message) for d in rendered.diagnostics] == [(7, (
        f"the listing div #lst-x numbers the one code block it holds, with its caption after "
        f"it; it holds {count} code blocks of its own, so it is shown unnumbered (put one "
        "code block in it, or give each code block its own #lst- div)"))]
    box = next(d for d in _tree(rendered.html).iter(f"{NS}div") if d.get("id") == "lst-x")
    assert body.splitlines()[-1] in _text(box)  # every word of it is shown


PIECES = ["+---+---+\n", "+===+===+\n", "+:--+--:+\n", "| a | b |\n", "|   |   |\n",
          "| zq *em* |\n", "| [x](javascript:alert(1)) |\n", "| {onclick=x} |\n", "+-------+\n",
          "| $x$ | `c` |\n", "|", "+", "-", "=", ":", " ", "\n", "\n\n", "```\n", "- ",
          "| ``` | b |\n", "| 日本 | b |\n", "    ", "> "]


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(PIECES), max_size=30))
def test_property_grid_ish_text_never_raises_nor_injects(pieces: list[str]) -> None:
    text = "".join(pieces)
    html = _qmd(text).html
    for element in _tree(html).iter():
        assert element.tag != f"{NS}script"
        for name, value in element.attrib.items():
            assert not str(name).lower().startswith("on") and "javascript:" not in str(value)
    words = {w for w in ("zq", "日本") if w in text}
    assert all(w in html for w in words)  # nothing vanishes


def test_a_qmd_post_with_a_grid_table_and_a_listing_builds(tmp_path: Path) -> None:
    (tmp_path / "site.yaml").write_text("title: Q\nbase_url: https://example.org/\n"
                                        "search: false\nsocial_cards: false\n")
    post = tmp_path / "content" / "posts" / "g.qmd"
    post.parent.mkdir(parents=True)
    post.write_text("---\ntitle: G\ndate: 2024-01-02\n---\n\n" + GRID
                    + "\n::: {#lst-q}\n```sql\nSELECT 1\n```\n\nA query\n:::\n\n@lst-q\n")
    report = build(tmp_path / "site.yaml", jobs=1)
    # the link in a cell is checked, and named at its own line of the table
    assert [(d.line, d.message) for d in report.diagnostics] == [
        (12, "broken link: nothing is built at /d.html")]
    page = (tmp_path / "_site" / "posts" / "g" / "index.html").read_text()
    html5lib.HTMLParser(strict=True).parse(page)
    tree = _tree(page)
    table = next(tree.iter(f"{NS}table"))
    assert table.get("id") == "tbl-grid" and len(_cells(table, "td")) == 2
    assert "+---" not in page
    links = [(a.get("href"), _text(a)) for a in tree.iter(f"{NS}a")
             if "quarto-xref" in str(a.get("class"))]
    assert ("#tbl-grid", "Table 1") in links and ("#lst-q", "Listing 1") in links
