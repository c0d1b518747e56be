"""Quarto's fenced divs and bracketed spans (blogbuild.markdown.quarto): fixture cases, what
each class means (our callouts, statements, figures, tabs), bad input, attribute safety,
and one real build of a .qmd post."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import html5lib
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from markdown_it.utils import read_fixture_file
from PIL import Image

from blogbuild.commands.build import build
from blogbuild.diagnostics import Diagnostic
from blogbuild.markdown import create_markdown
from blogbuild.markdown.quarto.fences import DIV_DEPTH
from blogbuild.pipeline.render import render_markdown
from blogbuild.quarto import QuartoPage

FIXTURES = Path(__file__).parent / "fixtures" / "quarto_divs.md"
MD = create_markdown()
NS = "{http://www.w3.org/1999/xhtml}"


def render(text: str, **meta: Any) -> tuple[str, list[Diagnostic], dict[str, Any]]:
    """A Quarto page's body rendered in process: (HTML, messages, its needs and labels)."""
    env: dict[str, Any] = {"quarto": QuartoPage(meta=meta)}
    rendered = render_markdown(MD, text, file="p.qmd", line_offset=3, extra_env=env)
    found = {"needs": rendered.needs,
             "xref_labels": {ident: (kind, label) for ident, kind, label in rendered.labels}}
    return rendered.html, list(rendered.diagnostics), found


def messages(diagnostics: list[Diagnostic]) -> list[tuple[int, str]]:
    return [(d.line, d.message) for d in diagnostics]


def parse(html: str) -> Any:
    return html5lib.HTMLParser(strict=True).parseFragment(html)


@pytest.mark.parametrize(("title", "source", "expected"),
                         [pytest.param(*case[1:], id=f"{case[0]}-{case[1]}")
                          for case in read_fixture_file(FIXTURES)])
def test_fixture(title: str, source: str, expected: str) -> None:
    assert MD.render(source, {"quarto": QuartoPage()}) == expected


def test_a_md_page_keeps_its_colons_as_text_and_the_warning() -> None:
    text = "::: {.callout-note}\nBody\n:::\n\n[x]{.mark}\n"
    rendered = render_markdown(MD, text, file="p.md")
    assert "<p>::: {.callout-note}\nBody\n:::</p>" in rendered.html
    assert "[x]{.mark}" in rendered.html
    assert any(":::" in d.message for d in rendered.diagnostics)
    html, diagnostics, _ = render(text)
    assert diagnostics == [] and "<mark>x</mark>" in html and ":::" not in html


def test_footnotes_citations_wiki_links_and_links_read_as_on_a_md_page() -> None:
    text = ("See [@doe2020, p. 3], [[Some Page]], [^n], ^[inline], [ref][r] and [x](y.md)."
            "\n\n[^n]: Note.\n\n[r]: https://e.org\n")
    html, diagnostics, _ = render(text)
    plain = render_markdown(MD, text, file="p.qmd", line_offset=3)
    assert html == plain.html and diagnostics == list(plain.diagnostics)
    assert html.count('class="footnote-ref"') == 2 and '<a href="https://e.org">ref</a>' in html


@pytest.mark.parametrize(("quarto", "ours"), [
    ("::: {.callout-note}\nBody *b*.\n:::\n", "> [!NOTE]\n> Body *b*.\n"),
    ("::: callout\nBody.\n:::\n", "> [!NOTE]\n> Body.\n"),
    ('::: {.callout-tip title="My *tip*"}\nBody.\n:::\n', "> [!TIP] My *tip*\n> Body.\n"),
    ("::: {.callout-warning collapse=true}\n## Careful\nBody.\n:::\n",
     "> [!WARNING]- Careful\n> Body.\n"),
    ('::: {#c-1 .callout-important collapse="false"}\nBody.\n:::\n',
     "> [!IMPORTANT]+ {#c-1}\n> Body.\n"),
    ("::: {.callout-caution}\n- a\n- b\n:::\n", "> [!CAUTION]\n> - a\n> - b\n"),
    ("::: {.callout-note}\n:::\n", "> [!NOTE]\n"),
])
def test_a_quarto_callout_is_the_callout_our_syntax_makes(quarto: str, ours: str) -> None:
    html, diagnostics, env = render(quarto)
    assert diagnostics == [] and html == MD.render(ours)
    assert "callouts" in env["needs"]


def test_callout_appearance_and_icon_add_a_class_the_stylesheet_reads() -> None:
    html, _, _ = render('::: {.callout-tip appearance="minimal"}\nA\n:::\n\n'
                        "::: {.callout-tip appearance=simple icon=false .extra}\nB\n:::\n")
    classes = [e.get("class") for e in parse(html) if e.tag == f"{NS}div"]
    assert classes == ["callout callout-tip callout-minimal",
                       "callout callout-tip extra callout-simple callout-no-icon"]
    html, _, _ = render("::: callout-tip\nA\n:::\n\n::: {.callout-tip appearance=default}\nB\n"
                        ":::\n", **{"callout-appearance": "simple", "callout-icon": False})
    classes = [e.get("class") for e in parse(html) if e.tag == f"{NS}div"]
    assert classes == ["callout callout-tip callout-simple callout-no-icon",
                       "callout callout-tip callout-no-icon"]
    css = (Path(__file__).parents[1] / "static" / "css" / "callouts.css").read_text()
    assert ".callout-minimal" in css and ".callout-no-icon > .callout-title" in css


def test_theorem_divs_are_our_numbered_statements_with_their_ids() -> None:
    html, diagnostics, env = render(
        "See [](#thm-a), [](#lem-b) and [](#cnj-c).\n\n"
        "::: {#thm-a}\n## Bolzano\nBounded sequences converge in part.\n:::\n\n"
        '::: {#lem-b name="Small"}\nA lemma.\n:::\n\n::: {#cnj-c}\nA guess.\n:::\n\n'
        "::: {.proof}\nClear.\n:::\n\n::: remark\nAn aside.\n:::\n")
    assert diagnostics == []
    # Quarto's words (a no-break space) and its counters, one for each type.
    assert env["xref_labels"]["thm-a"] == ("theorem", "Theorem\xa01")
    assert env["xref_labels"]["lem-b"] == ("lemma", "Lemma\xa01")
    assert env["xref_labels"]["cnj-c"] == ("conjecture", "Conjecture\xa01")
    titles = [t.strip() for t in html.split('<strong class="callout-title-text">')[1:]]
    assert [t.split("</strong>")[0] for t in titles] == [
        "Theorem 1 (Bolzano)", "Lemma 1 (Small)", "Conjecture 1", "Proof", "Remark"]
    assert html == html.replace("Bolzano</h2>", "")  # the heading became the name
    assert 'class="callout callout-proof"' in html and "callout-qed" in html
    ours, _, _ = render("> [!THEOREM] Bolzano {#thm-a}\n> Bounded sequences converge in part.\n")
    assert ours.split("\n", 1)[0] in html


def test_figure_and_table_divs_are_numbered_and_labelled_with_image_figures() -> None:
    html, diagnostics, env = render(
        '![An image](a.png "A titled image")\n\n'
        "::: {#fig-grid layout-ncol=2}\n![Left](l.png)\n\n![Right](r.png){#fig-r}\n\nBoth.\n:::"
        "\n\n::: {#tbl-t}\n| a |\n|---|\n| 1 |\n\nA table.\n:::\n\n"
        '::: {#fig-one}\n![](t.png "A title: no figure of its own")\n\nOne.\n:::\n\n'
        "::: {#fig-nested}\n::: {#fig-n1}\n![](x.png)\n\nX.\n:::\n\n"
        "::: {#fig-n2}\n![](y.png)\n\nY.\n:::\n\nNested.\n:::\n")
    assert diagnostics == []
    # Quarto's numbers: a captioned picture with no #fig- id is no numbered figure, and
    # subfigures take their figure's number and a letter.
    labels = env["xref_labels"]
    assert labels["fig-grid"] == ("figure", "Figure\xa01")
    assert labels["fig-r"] == ("figure", "Figure\xa01 (b)")
    assert labels["tbl-t"] == ("table", "Table\xa01")
    assert labels["fig-one"] == ("figure", "Figure\xa02")
    assert labels["fig-nested"] == ("figure", "Figure\xa03")
    assert labels["fig-n2"] == ("figure", "Figure\xa03 (b)")
    tree = parse(html)
    figures = tree.findall(f".//{NS}figure")
    captions = ["".join(f.find(f"{NS}figcaption").itertext()) for f in figures]
    assert [c.split(" ")[0] for c in captions] == [
        "An", "Figure\xa01:", "(a)", "(b)", "Table\xa01:", "Figure\xa02:", "Figure\xa03:",
        "(a)", "(b)"]
    assert "divs" in env["needs"]


def test_figure_and_table_divs_preview_whole_on_other_pages() -> None:
    text = ("::: {#fig-a layout-ncol=2}\n![A](a.png)\n\n![B](b.png)\n\nCap *a*.\n:::\n\n"
            "::: {#tbl-b}\n| x |\n|---|\n| 1 |\n\nTab.\n:::\n\n"
            f"::: {{#fig-big}}\n{'word ' * 3000}\n\nBig.\n:::\n")
    rendered = render_markdown(MD, text, extra_env={"quarto": QuartoPage()},
                               page_url="/posts/x/")
    snippets = dict(rendered.snippets)
    assert set(snippets) == {"fig-a", "tbl-b", "fig-big"}
    for ident, html in snippets.items():
        tree = parse(html)
        (figure,) = [e for e in tree if e.tag == f"{NS}figure"]
        assert figure.get("id") == ident and figure.find(f"{NS}figcaption") is not None
    assert "(b)</span> B" in snippets["fig-a"] and "<td>1</td>" in snippets["tbl-b"]
    assert "word" not in snippets["fig-big"]  # too big: the caption alone
    assert dict((i, n) for i, _, n in rendered.previews)["fig-a"] == ("divs",)


def test_a_tabset_gives_the_tab_tokens_of_its_first_heading_level() -> None:
    env: dict[str, Any] = {"quarto": QuartoPage()}
    tokens = MD.parse('::: {.panel-tabset group="g"}\n### A {#a}\na\n\n#### sub\n\n### B\nb\n'
                      ":::\n", env)
    kinds = [(t.type, t.level) for t in tokens if t.type.startswith(("tab", "heading"))]
    assert kinds == [("tabset_open", 0), ("tab_open", 1), ("tab_title_open", 2),
                     ("tab_title_close", 2), ("heading_open", 2), ("heading_close", 2),
                     ("tab_close", 1), ("tab_open", 1), ("tab_title_open", 2),
                     ("tab_title_close", 2), ("tab_close", 1), ("tabset_close", 0)]
    tabset = tokens[0]
    assert tabset.meta == {"group": "g"} and tabset.attrs["class"] == "tabset"
    tabs = [t for t in tokens if t.type == "tab_open"]
    assert [t.meta["selected"] for t in tabs] == [True, False]
    titles = [tokens[i + 1].content for i, t in enumerate(tokens) if t.type == "tab_title_open"]
    assert titles == ["A", "B"]
    html, diagnostics, _ = render("::: panel-tabset\nNo heading.\n:::\n")
    assert html == '<div class="panel-tabset">\n<p>No heading.</p>\n</div>\n'
    assert messages(diagnostics) == [(4, "this .panel-tabset holds no heading, so it has no "
                                         "tabs: start each tab with a heading (## Title)")]


def test_conditional_content_reads_the_front_matter() -> None:
    text = ('::: {.content-visible when-meta="show.extra"}\nExtra.\n:::\n\n'
            '::: {.content-hidden when-meta="show.extra"}\nPlain.\n:::\n')
    assert render(text, show={"extra": True})[0] == "<p>Extra.</p>\n"
    assert render(text)[0] == "<p>Plain.</p>\n"


def test_margin_wide_and_grid_boxes_ask_for_their_stylesheet() -> None:
    """What they look like on a phone and a wide screen: test_quarto_divs_browser.py."""
    for text in ("::: column-margin\nA\n:::\n", "::: column-screen-inset\nA\n:::\n",
                 "[a]{.aside}\n", "::: {layout-ncol=2}\nA\n:::\n"):
        assert "divs" in render(text)[2]["needs"]
    assert "divs" not in render("::: box\nA\n:::\n")[2]["needs"]


def test_a_div_right_under_an_html_tag_is_a_div_as_pandoc_reads_it() -> None:
    text = ('<div class="tab-pane" id="py">\n::: {.grid .gap-3}\n::: {.g-col-6}\n*One*\n'
            ':::\n:::\n\n</div>\n\n<div>\n<!--\n:::\n-->\n</div>\n')
    html, diagnostics, _ = render(text)
    tree = parse(html)
    tab = tree.find(f"{NS}div")
    assert tab is not None and tab.get("id") == "py"
    grid = tab.find(f"{NS}div")
    assert grid is not None and grid.get("class") == "grid gap-3"
    cell = grid.find(f"{NS}div")
    assert cell is not None and cell.get("class") == "g-col-6"
    assert cell.findtext(f"{NS}p/{NS}em") == "One"
    assert diagnostics == [] and "<!--\n:::\n-->" in html  # a comment's lines stay its own
    assert "::: {" not in html


def test_a_subfigure_div_or_picture_is_referenced_as_its_figure_and_letter() -> None:
    html, diagnostics, _ = render(
        ":::: {#fig-all}\n\n::: {#fig-one}\n\nContent 1\n\nFirst\n:::\n\n"
        "::: {#fig-two}\n\nContent 2\n\nSecond\n:::\n\nMain\n::::\n\n"
        "::: {#fig-p}\n![A](a.png){#fig-pa}\n\n![B](b.png){#fig-pb}\n\nPictures\n:::\n\n"
        "See @fig-all, @fig-one, @fig-two and @fig-pb.\n")
    assert diagnostics == []
    links = {a.get("href"): "".join(a.itertext()) for a in parse(html).iter(f"{NS}a")}
    assert links == {"#fig-all": "Figure\xa01", "#fig-one": "Figure\xa01 (a)",
                     "#fig-two": "Figure\xa01 (b)", "#fig-pb": "Figure\xa02 (b)"}


def test_bad_input_is_a_message_at_its_line_and_the_text_stays() -> None:
    deep = "".join(f"::: d{i}\n" for i in range(DIV_DEPTH + 3)) + "core\n"
    deep += ":::\n" * (DIV_DEPTH + 3)
    html, diagnostics, _ = render(deep + "\nAfter.\n")
    assert messages(diagnostics) == [
        (4 + DIV_DEPTH, f"fenced divs nested more than {DIV_DEPTH} deep are shown as text "
                        "from here (their content is kept); nest them less deeply")]
    assert html.count("<div") == DIV_DEPTH and "core" in html and "After." in html
    assert "::: d18" in html
    text = "".join(f"::: d{i}\ntext {i}\n" for i in range(DIV_DEPTH + 2))  # in a paragraph
    html, diagnostics, _ = render(text + ":::\n" * (DIV_DEPTH + 2))
    assert messages(diagnostics)[-1][0] == 4 + 2 * DIV_DEPTH
    assert "deep are shown as text" in messages(diagnostics)[-1][1]
    assert f"::: d{DIV_DEPTH + 1}\ntext {DIV_DEPTH + 1}" in html
    html, diagnostics, _ = render("Intro.\n\n:::: box\n- item\n\n  ::: inner\n  text\n")
    assert messages(diagnostics) == [
        (6, "this ::: div is never closed, so it runs to the end of the page: end it with "
            "a line of ::::"),
        (9, "this ::: div is never closed, so it runs to the end of its container: end it "
            "with a line of :::")]
    assert "text" in html
    html, diagnostics, _ = render("::: {.a key='x}\nText.\n:::\n")
    assert html.startswith("<p>::: {.a key='x}") and len(diagnostics) == 1


def test_layout_values_that_cannot_be_read_are_one_column_with_a_warning() -> None:
    html, diagnostics, _ = render('::: {layout="[[1,0]]"}\nA\n:::\n\n'
                                  "::: {layout-ncol=99}\nB\n:::\n")
    assert html.count('style="grid-template-columns: minmax(0, 1fr)"') == 2
    assert [m for _, m in messages(diagnostics)] == [
        "layout='[[1,0]]' cannot be read: write rows of widths such as layout=\"[[1,1],[1]]\""
        " (a negative width is a gap); the div is laid out in one column",
        "layout-ncol='99' is not a number of columns from 1 to 12: the div is laid out in "
        "one column"]


def test_refused_attributes_are_reported_at_their_line() -> None:
    _, diagnostics, _ = render("Para.\n\nText and\n[x]{onclick=f()} and "
                               "[y](https://e.org){style='background:url(x)'}.\n")
    assert [line for line, _ in messages(diagnostics)] == [7, 7]
    assert all(m.startswith("attribute block: refused ") for _, m in messages(diagnostics))


PIECES = ["::: {.callout-note}\n", ":::\n", "::: {#fig-a layout-ncol=2}\n", "::: {#thm-b}\n",
          "::: panel-tabset\n", "## T\n", "::: {.column-margin}\n", "[s]{.mark}", "]{",
          "{onclick=x}", '{data-x="javascript:alert(1)"}', "{style='url(x)'}", "```\n",
          "![a](b.png)", "\n", "\n\n", " ", "- ", "> ", '::: {layout="[[1,-1]]"}\n', "[", "word",
          "{#tbl-c}", "::: {.content-hidden when-format=pdf}\n", '{title="x\\" onclick=y"}']


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(PIECES), max_size=30))
@example(["[s]{.mark}", "::: {.callout-note}\n", "{#tbl-c}", '{data-x="javascript:alert(1)"}'])
def test_property_any_mix_renders_the_same_twice_with_no_handler(pieces: list[str]) -> None:
    text = "".join(pieces)
    first, _, _ = render(text)
    assert render(text)[0] == first
    for element in parse(first).iter():
        for name, value in element.attrib.items():
            assert not str(name).lower().startswith("on")
            assert "javascript:" not in str(value) and "url(" not in str(value)
    assert "<script" not in first


def test_a_qmd_post_builds_with_divs_spans_and_callouts(tmp_path: Path) -> None:
    (tmp_path / "site.yaml").write_text("title: Q\nbase_url: https://example.org/blog/\n"
                                        "search: false\nsocial_cards: false\n")
    post = tmp_path / "content" / "posts" / "q.qmd"
    post.parent.mkdir(parents=True)
    post.write_text("---\ntitle: Q\ndate: 2024-01-02\n---\n\n"
                    "::: {.callout-tip}\nA *tip*.\n:::\n\n"
                    "::: {#fig-p layout-ncol=2 .column-page}\n![A](a.png)\n\n![B](b.png)\n\n"
                    "Two.\n:::\n\n[Margin]{.aside} and @fig-p as [](#fig-p).\n")
    for name in ("a.png", "b.png"):
        Image.new("RGB", (8, 8), "teal").save(post.parent / name)
    report = build(tmp_path / "site.yaml", jobs=1)
    assert [d.message for d in report.diagnostics] == []
    page = (tmp_path / "_site" / "posts" / "q" / "index.html").read_text()
    html5lib.HTMLParser(strict=True).parse(page)
    assert 'class="callout callout-tip"' in page and ":::" not in page
    assert 'class="figure column-page" id="fig-p"' in page and ">Figure\xa01</a>" in page
    assert '<span class="aside margin-note">Margin</span>' in page
    sheet = page.split('rel="stylesheet" href="/blog/', 1)[1].split('"', 1)[0]
    css = (tmp_path / "_site" / sheet).read_text()
    assert "/* css/divs.css */" in css and "/* css/callouts.css */" in css



def test_fig_alt_is_the_pictures_alt_text_and_the_brackets_its_caption(tmp_path: Path) -> None:
    """Quarto's `fig-alt`: what a screen reader says of the picture, where the bracketed
    text is its caption; after a `#fig-` label too, and inline. Escaped as an attribute."""
    text = ('![A caption](x.png){fig-alt="What it shows"}\n\n'
            '![Numbered](y.png){#fig-a fig-alt="Y shown"}\n\n'
            'Inline ![inline](z.png){fig-alt="Z \\"<b>\\" shown"} here.\n')
    html, diagnostics, _ = render(text)
    assert diagnostics == []
    tree = parse(html)
    alts = [img.get("alt") for img in tree.iter(f"{NS}img")]
    assert alts == ["What it shows", "Y shown", 'Z "<b>" shown']
    captions = ["".join(f.find(f"{NS}figcaption").itertext()) for f in tree.iter(f"{NS}figure")]
    assert captions == ["A caption", "Figure\xa01: Numbered"]
    assert "data-fig-alt" not in html
    # A picture the image stage publishes (its <picture> and srcset) says the same.
    (tmp_path / "site.yaml").write_text("title: Q\nbase_url: https://example.org/\n"
                                        "search: false\nsocial_cards: false\n")
    post = tmp_path / "content" / "posts" / "q.qmd"
    post.parent.mkdir(parents=True)
    post.write_text('---\ntitle: Q\ndate: 2024-01-02\n---\n\n'
                    '![Two bars](bars.png){fig-alt="A bar chart: a is twice b"}\n')
    Image.new("RGB", (40, 20), "teal").save(post.parent / "bars.png")
    build(tmp_path / "site.yaml", jobs=1)
    page = (tmp_path / "_site" / "posts" / "q" / "index.html").read_text()
    assert 'alt="A bar chart: a is twice b"' in page and "<figcaption>Two bars" in page
