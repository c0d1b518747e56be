"""Quarto's cross-references on a `.qmd` page: `@fig-x` and its forms worded as Quarto
words them, the labels they find (figures from an image's alt text, captioned tables,
`$$ … $$ {#eq-x}`, `{#sec-x}` headings and their numbers), the `crossref:` words, a
reference to nothing, and a `.md` post that parses as before."""

from __future__ import annotations

from pathlib import Path
from xml.etree.ElementTree import Element

import html5lib
import pytest
from markdown_it.utils import read_fixture_file

from blogbuild.commands.build import build
from blogbuild.markdown import create_markdown
from blogbuild.pipeline.render import Rendered, render_markdown
from blogbuild.quarto import QuartoPage
from image_helpers import tiny_png

FIXTURES = Path(__file__).parent / "fixtures" / "quarto_xrefs.md"
NS = "{http://www.w3.org/1999/xhtml}"
MD = create_markdown()


@pytest.mark.parametrize(("line", "title", "source", "expected"), read_fixture_file(FIXTURES),
                         ids=[c[1] for c in read_fixture_file(FIXTURES)])
def test_fixture(line: int, title: str, source: str, expected: str) -> None:
    assert MD.render(source, {"quarto": QuartoPage()}) == expected


def _qmd(source: str, page: QuartoPage | None = None) -> Rendered:
    return render_markdown(MD, source, file="posts/a.qmd", line_offset=4,
                           extra_env={"quarto": page or QuartoPage()})


def _tree(html: str) -> Element:
    tree: Element = html5lib.parse(html)
    return tree


def _links(html: str) -> list[tuple[str, str]]:
    return [(str(a.get("href")), "".join(a.itertext()))
            for a in _tree(html).iter(f"{NS}a") if "quarto-xref" in str(a.get("class"))]


def test_a_markdown_post_keeps_the_same_text_as_it_was() -> None:
    source = ("![Elephant](e.png){#fig-e}\n\n| a |\n|---|\n| 1 |\n\n: Cap {#tbl-a}\n\n"
              "$$ x $$ {#eq-x}\n\nSee @fig-e and [-@tbl-a].\n")
    html = MD.render(source, {})
    assert "quarto-xref" not in html and "<figure" not in html and "<caption" not in html
    assert "See @fig-e and [-@tbl-a]." in html and ": Cap {#tbl-a}" in html
    assert 'id="eq-x"' not in html


def test_a_labelled_equation_is_numbered_and_referred_to_as_equation_n() -> None:
    rendered = _qmd("Black-Scholes (@eq-bs), then [-@eq-e].\n\n$$\nC = S N(d_1)\n$$ "
                    "{#eq-bs}\n\n$$ E = mc^2 $$ {#eq-e}\n\n$$\nx\n$$\n")
    tree = _tree(rendered.html)
    displays = {str(d.get("id")): d for d in tree.iter(f"{NS}div")
                if "math-display" in str(d.get("class"))}
    assert set(displays) == {"eq-bs", "eq-e", "None"}
    assert "math-numbered" in str(displays["eq-bs"].get("class"))
    assert "(2)" in "".join(displays["eq-e"].itertext())
    assert _links(rendered.html) == [("#eq-bs", "Equation\xa01"), ("#eq-e", "2")]
    assert rendered.diagnostics == ()


def test_number_sections_shows_each_heading_number() -> None:
    rendered = _qmd("## Intro\n\n### Aims {#sec-aims}\n\n## Done {.unnumbered}\n\n"
                    "## Methods {#sec-m}\n\nSee @sec-aims, @sec-m.\n",
                    QuartoPage(number_sections=True))
    tree = _tree(rendered.html)
    shown = {"".join(h.itertext()).split(" #")[0].strip()
             for h in tree.iter() if h.tag in (f"{NS}h2", f"{NS}h3")}
    assert shown == {"1 Intro", "1.1 Aims", "Done", "2 Methods"}
    assert _links(rendered.html) == [("#sec-aims", "Section\xa01.1"), ("#sec-m", "Section\xa02")]
    plain = _qmd("## Intro {#sec-i}\n\n@sec-i\n")
    assert "header-section-number" not in plain.html
    assert _links(plain.html) == [("#sec-i", "Section\xa01")]


def test_crossref_words_rename_captions_and_references() -> None:
    page = QuartoPage(crossref={"fig-title": "Fig.", "tbl-prefix": "tab.",
                                "title-delim": "—", "ref-delim": ";"})
    rendered = _qmd("![Cat](c.png){#fig-c}\n\n| a |\n|---|\n| 1 |\n\n: T {#tbl-t}\n\n"
                    "@fig-c, @Tbl-t and [@fig-c; @tbl-t].\n", page)
    tree = _tree(rendered.html)
    assert "".join(next(tree.iter(f"{NS}figcaption")).itertext()) == "Fig.\xa01— Cat"
    assert "".join(next(tree.iter(f"{NS}caption")).itertext()) == "Table\xa01— T"
    assert _links(rendered.html) == [("#fig-c", "Fig.\xa01"), ("#tbl-t", "Tab.\xa01"),
                                     ("#fig-c", "Fig.\xa01"), ("#tbl-t", "tab.\xa01")]
    assert "Fig.\xa01</a>; <a" in rendered.html


def test_a_listing_without_a_caption_is_titled_by_its_number_alone() -> None:
    rendered = _qmd("```{#lst-a .python}\nx = 1\n```\n\n> [!NOTE] {#tbl-odd}\n> N.\n\n"
                    "@lst-a, not @tbl-odd\n")
    titles = ["".join(t.itertext()) for t in _tree(rendered.html).iter(f"{NS}span")
              if t.get("class") == "codeblock-title"]
    assert titles == ["Listing\xa01"] and _links(rendered.html) == [("#lst-a", "Listing\xa01")]
    assert [d.message.split(":")[0] for d in rendered.diagnostics] == [
        "cross-reference @tbl-odd"]  # a callout is no table


def test_ref_hyperlink_false_shows_the_words_alone() -> None:
    rendered = _qmd("![Cat](c.png){#fig-c}\n\nSee @fig-c.\n",
                    QuartoPage(crossref={"ref-hyperlink": "false"}))
    assert "<p>See Figure\xa01.</p>" in rendered.html and "previews" not in rendered.needs


def test_a_reference_to_nothing_is_a_warning_at_its_line() -> None:
    rendered = _qmd("![A](a.png){#fig-one}\n\nText.\n\nSee @fig-on,\nand [-@thm-x].\n")
    assert [(d.line, d.message) for d in rendered.diagnostics] == [
        (9, "cross-reference @fig-on: nothing on this page has the label #fig-on (did you "
             "mean @fig-one?); give the figure that label ({#fig-on}), or fix the reference"),
        (10, "cross-reference @thm-x: nothing on this page has the label #thm-x; give the "
             "theorem that label ({#thm-x}), or fix the reference")]
    strong = [("".join(s.itertext())) for s in _tree(rendered.html).iter(f"{NS}strong")]
    assert strong == ["?@fig-on", "?@thm-x"]


def test_a_reference_in_alt_text_is_its_words() -> None:
    rendered = _qmd("![Cat](c.png){#fig-a}\n\nText ![like @fig-a, not @fig-b](d.png).\n")
    alts = [str(img.get("alt")) for img in _tree(rendered.html).iter(f"{NS}img")]
    assert alts == ["Cat", "like Figure\xa01, not ?@fig-b"]
    assert [d.line for d in rendered.diagnostics] == [7]


def test_a_bracket_of_citations_and_references_keeps_both() -> None:
    rendered = _qmd("![A](a.png){#fig-a}\n\n[see @smith, p. 2; @fig-a]\n")
    assert _links(rendered.html) == [("#fig-a", "Figure\xa01")]
    assert "[see @smith, p. 2]; <a" in rendered.html
    assert [d.message.split(" is a")[0] for d in rendered.diagnostics] == [
        "[see @smith, p. 2]"]


def _site(tmp_path: Path) -> Path:
    root = tmp_path / "site"
    posts = root / "content" / "posts"
    posts.mkdir(parents=True)
    (root / "site.yaml").write_text("title: Q\nbase_url: https://example.org/\n"
                                    "search: false\nsocial_cards: false\n")
    (posts / "a.qmd").write_text(
        "---\ntitle: Quarto A\ndate: 2024-01-02\nnumber-sections: true\n"
        "crossref:\n  fig-prefix: Fig.\n  lof-title: Figures\n---\n\n"
        "## Data {#sec-data}\n\nAs @fig-plot shows (see @sec-data).\n\n"
        "![The plot](plot.png){#fig-plot}\n")
    (posts / "b.md").write_text("---\ntitle: B\ndate: 2024-01-03\n---\n\n"
                                "From [](a.qmd#fig-plot).\n")
    (posts / "plot.png").write_bytes(tiny_png())
    return root


def test_a_quarto_post_builds_with_its_references_and_previews(tmp_path: Path) -> None:
    root = _site(tmp_path)
    report = build(root / "site.yaml", jobs=1)
    assert [(d.file, d.line, d.message) for d in report.diagnostics] == [
        ("content/posts/a.qmd", 7, "'crossref.lof-title' is not used: blogbuild reads the "
         "words of a type (fig-title, fig-prefix, …), title-delim, ref-delim and "
         "ref-hyperlink; Quarto's "
         "default stays")]
    a = (root / "_site" / "posts" / "a" / "index.html").read_text()
    html5lib.HTMLParser(strict=True).parse(a)
    assert _links(a) == [("#fig-plot", "Fig.\xa01"), ("#sec-data", "Section\xa01")]
    assert "js/previews" in a  # the references preview their targets on hover
    b = _tree((root / "_site" / "posts" / "b" / "index.html").read_text())
    link = next(x for x in b.iter(f"{NS}a") if "xref-external" in str(x.get("class")))
    assert "".join(link.itertext()) == "Fig.\xa01 in Quarto A"
    template = next(t for t in b.iter(f"{NS}template") if t.get("id") == link.get(
        "data-preview"))
    assert "Figure\xa01:" in "".join(template.itertext())
