"""Previews of cross-references to another post: the snippets a post keeps of its labelled
ids, the templates and `data-preview` names of the page that refers to them, the feed
without them, the re-render when a snippet changes, and the Nu checker on the page."""

from __future__ import annotations

import base64
import pickle
import shutil
from pathlib import Path
from xml.etree.ElementTree import Element

import html5lib
import pytest

from blogbuild.commands.build import build
from blogbuild.markdown import create_markdown
from blogbuild.markdown.xref_previews import SNIPPET_CAP
from blogbuild.output.outdir import CACHE_DIR
from blogbuild.pipeline.render import render_markdown
from quality_tools import nu_errors
from test_incremental import edit, rebuild
from test_xrefs import two_posts

NS = "{http://www.w3.org/1999/xhtml}"
POST_A = ("---\ntitle: Post A\ndate: 2024-01-03\n---\n\n"
          "By [](b.md#thm-b), from [](b.md#eq-b) as in [](b.md#setting); "
          "again [](b.md#thm-b), and [](b.md#fig-b).\n\n"
          "A plain [link](b.md#thm-b) and a [local one](#thm-b).\n")
#: 9 KB of base64: a figure whose picture is a data: URL, like a build-time plot.
PICTURE = "data:image/png;base64," + base64.b64encode(bytes(range(256)) * 27).decode()
POST_B = ("---\ntitle: Post B\ndate: 2024-01-02\n---\n\n"
          "## Setting {#setting}\n\nWe work on the unit circle[^1], see [](#thm-b).\n\n"
          "> [!THEOREM] Compactness {#thm-b}\n"
          "> Every *bounded* sequence has a convergent subsequence, by [](#eq-b).\n\n"
          "$$\nx^2 + y^2 = 1 \\label{eq:b}\n$$\n\n"
          f'![A plot]({PICTURE} "The circle"){{#fig-b}}\n\n'
          "[^1]: A note.\n")


@pytest.fixture
def site(tmp_path: Path) -> Path:
    return two_posts(tmp_path, POST_A, POST_B)


def page(site: Path, name: str = "a") -> Element:
    html = (site / "_site" / "posts" / name / "index.html").read_text(encoding="utf-8")
    tree: Element = html5lib.parse(html)
    return tree


def templates(tree: Element) -> dict[str, Element]:
    return {str(t.get("id")): t for t in tree.iter(f"{NS}template")}


def text(element: Element) -> str:
    return "".join(element.itertext())


def test_links_name_one_template_per_target_with_the_other_posts_content(site: Path) -> None:
    tree = page(site)
    found = templates(tree)
    links = [a for a in tree.iter(f"{NS}a") if "xref-external" in (a.get("class") or "")]
    names = [a.get("data-preview") for a in links]
    assert names == ["xref-preview-1", "xref-preview-2", "xref-preview-3", "xref-preview-1",
                     "xref-preview-4"]
    assert sorted(found) == sorted(set(names))
    theorem = found["xref-preview-1"]
    assert "Theorem 1 (Compactness)" in text(theorem)
    assert "Every bounded sequence has a convergent subsequence" in text(theorem)
    # Links of the snippet to its own page go to the other post.
    assert [a.get("href") for a in theorem.iter(f"{NS}a")] == ["/posts/b/#eq-b"]
    equation = found["xref-preview-2"]
    assert [e.get("class") for e in equation.iter() if e.get("class") == "katex"] == ["katex"]
    section = found["xref-preview-3"]
    assert [e.tag for e in section] == [f"{NS}h2", f"{NS}p"]
    assert "We work on the unit circle" in text(section)
    assert {a.get("href") for a in section.iter(f"{NS}a")} == {"/posts/b/#fn1",
                                                               "/posts/b/#thm-b"}
    # The figure's picture is a data: URL above the size cap: its caption is the preview.
    figure = found["xref-preview-4"]
    assert not list(figure.iter(f"{NS}img")) and "The circle" in text(figure)
    # Only references with empty text are previewed.
    plain = [a for a in tree.iter(f"{NS}a") if text(a) in ("link", "local one")]
    assert [a.get("data-preview") for a in plain] == [None, None]


def test_the_other_posts_ids_are_not_this_pages(site: Path) -> None:
    report = build(site / "site.yaml")
    found = [d for d in report.diagnostics if "#thm-b" in d.message]
    assert [(d.file, d.line) for d in found] == [("content/posts/a.md", 8)]
    assert not templates(page(site, "b"))  # B refers to nothing elsewhere


def test_the_page_takes_the_stylesheets_of_its_previews(site: Path) -> None:
    a_sheets = [link.get("href") for link in page(site).iter(f"{NS}link")
                if link.get("rel") == "stylesheet"]
    b_sheets = [link.get("href") for link in page(site, "b").iter(f"{NS}link")
                if link.get("rel") == "stylesheet"]
    assert a_sheets == b_sheets  # math and callouts, as B's own page


def test_the_feed_has_no_templates_and_no_preview_names(site: Path) -> None:
    feed = (site / "_site" / "feed.xml").read_text(encoding="utf-8")
    assert "Theorem 1 in Post B" in feed
    assert "template" not in feed and "data-preview" not in feed


def test_editing_the_target_renders_the_referring_post_again(site: Path,
                                                             tmp_path: Path) -> None:
    b = site / "content" / "posts" / "b.md"
    report = rebuild(site, edit(b, "Every *bounded*", "Every *bounded real*"), tmp_path)
    assert report.rendered == 2  # b, and a once more for its preview
    theorem = templates(page(site))["xref-preview-1"]
    assert "Every bounded real sequence" in text(theorem)
    # Text outside every snippet: nothing else changes.
    report = rebuild(site, edit(b, "[^1]: A note.", "[^1]: A longer note."), tmp_path)
    assert report.rendered == 1


def test_a_preview_of_a_preview_settles(site: Path, tmp_path: Path) -> None:
    """C's theorem shows B's label, and A previews C's theorem: renumbering B changes C's
    snippet, which renders A again in the same build."""
    posts = site / "content" / "posts"
    (posts / "c.md").write_text("---\ntitle: C\ndate: 2024-01-01\n---\n\n"
                                "> [!LEMMA] {#lem-c}\n> As [](b.md#thm-b) says.\n")
    (posts / "a.md").write_text(POST_A + "\nAnd [](c.md#lem-c).\n")
    build(site / "site.yaml")
    assert "As Theorem 1 in Post B says" in text(templates(page(site))["xref-preview-5"])
    rebuild(site, edit(posts / "b.md", "## Setting", "> [!LEMMA]\n> x\n\n## Setting"),
            tmp_path)
    assert "As Theorem 2 in Post B says" in text(templates(page(site))["xref-preview-5"])


def test_the_builds_records_keep_digests_and_the_render_store_the_snippets(site: Path) -> None:
    cache = site / CACHE_DIR
    states = list((cache / "state").rglob("*.pickle"))
    assert states
    assert all(b"convergent subsequence" not in state.read_bytes() for state in states)
    stored = [pickle.loads(p.read_bytes()) for p in (cache / "render").rglob("*.pickle")]
    snippets = {i: html for r in stored for i, html in r.rendered.snippets}
    assert "convergent subsequence" in snippets["thm-b"]


def test_a_snippet_the_render_store_lost_is_rendered_again(site: Path, tmp_path: Path) -> None:
    a = site / "content" / "posts" / "a.md"

    def change() -> None:
        shutil.rmtree(site / CACHE_DIR / "render")
        a.write_text(POST_A + "\nMore.\n")

    report = rebuild(site, change, tmp_path)  # the page equals a clean build's
    assert report.rendered == 2 and len(templates(page(site))) == 4


def test_template_ids_avoid_the_pages_own_ids(site: Path) -> None:
    (site / "content" / "posts" / "a.md").write_text(
        POST_A + '\n## Notes {#xref-preview-1}\n\n<p id="xref-preview-2">x</p>\n')
    build(site / "site.yaml")
    assert sorted(templates(page(site))) == [f"xref-preview-{n}" for n in (3, 4, 5, 6)]


def test_snippets_are_capped_and_rendered_from_tokens() -> None:
    md = create_markdown()
    source = ("> [!DEFINITION] {#big}\n> " + "word " * (SNIPPET_CAP // 5) + "\n\n"
              "> [!DEFINITION] {#small}\n> <b>raw</b> and `code`\n")
    rendered = render_markdown(md, source, page_url="/p/")
    assert [(ident, needs) for ident, _, needs in rendered.previews] == [
        ("small", ("callouts",))]
    ((ident, html),) = rendered.snippets
    assert ident == "small" and "<b>raw</b> and <code>code</code>" in html
    assert render_markdown(md, source).snippets == ()  # no site: nothing to link to


def test_nu_checker_finds_no_error_on_the_referring_page(site: Path) -> None:
    assert nu_errors(site / "_site" / "posts" / "a") == []
