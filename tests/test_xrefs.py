"""Numbered statements and cross-references: fixture cases, diagnostics, site.yaml options,
and real builds (references to other posts, their re-render when a label changes, --strict)."""

from __future__ import annotations

from pathlib import Path

import html5lib
import pytest
from markdown_it.utils import read_fixture_file

from blogbuild.commands.build import build
from blogbuild.config import Config, StatementsConfig, load_config
from blogbuild.diagnostics import BuildFailed, ConfigError
from blogbuild.markdown import create_markdown
from blogbuild.pipeline.render import render_markdown
from test_callouts import abbreviate_icons
from test_incremental import build_clean, rebuild, tree

FIXTURES = Path(__file__).parent / "fixtures" / "xrefs.md"
MD = create_markdown()


@pytest.mark.parametrize(
    ("line", "title", "source", "expected"),
    read_fixture_file(FIXTURES),
    ids=[f"{case[0]}-{case[1]}" for case in read_fixture_file(FIXTURES)],
)
def test_fixture(line: int, title: str, source: str, expected: str) -> None:
    html = MD.render(source, {})
    assert abbreviate_icons(html) == expected
    html5lib.HTMLParser(strict=True).parseFragment(html)  # raises on any parse error


def warnings_of(source: str, md: object = MD) -> list[tuple[int, str]]:
    rendered = render_markdown(md, source, file="p.md", line_offset=2)  # type: ignore[arg-type]
    return [(d.line, d.message) for d in rendered.diagnostics]


def test_unknown_id_is_a_warning_at_its_line_with_a_close_match() -> None:
    source = "> [!THEOREM] {#thm-ua}\n> x\n\nText.\n\nBy [](#thm-au).\n"
    ((line, message),) = warnings_of(source)
    assert line == 8
    assert "#thm-au" in message and "did you mean #thm-ua?" in message


def test_bad_and_duplicate_ids_are_warnings_at_their_lines() -> None:
    found = warnings_of("> [!LEMMA] {#1x}\n> a\n\n> [!LEMMA] {#a}\n> b\n\n> [!NOTE] {#a}\n> c\n")
    assert [line for line, _ in found] == [3, 9]
    assert "{#1x} is not a usable id" in found[0][1]
    assert "#a is used twice on this page (line 6)" in found[1][1]
    assert warnings_of('![x](a.png "T"){#9}\n')[0][0] == 3


def test_per_type_counters() -> None:
    md = create_markdown(Config(statements=StatementsConfig(counters="per-type")))
    html = md.render("> [!THEOREM]\n> a\n\n> [!LEMMA]\n> b\n\n> [!THEOREM]\n> c\n")
    assert [part.split("<")[0] for part in html.split('callout-title-text">')[1:]] == [
        "Theorem 1", "Lemma 1", "Theorem 2"]


def test_a_reference_in_a_heading_shows_its_label_in_the_table_of_contents() -> None:
    source = ("> [!THEOREM] A {#thm-a}\n> x\n\n## Proof of [](#thm-a)\n\ntext\n\n"
              "## Two [](#eq-1)\n\n$$\nx \\label{eq:1}\n$$\n")
    rendered = render_markdown(MD, source, file="t.md")
    assert [(e.id, e.html) for e in rendered.toc] == [
        ("proof-of", "Proof of Theorem 1"), ("two", "Two (1)")]


def test_site_yaml_adds_a_numbered_type_and_checks_the_counters(tmp_path: Path) -> None:
    (tmp_path / "site.yaml").write_text(
        "title: T\ncallouts:\n  conjecture:\n    numbered: true\n  example:\n"
        "    numbered: false\nstatements:\n  counters: per-type\n", encoding="utf-8")
    md = create_markdown(load_config(tmp_path))
    html = md.render("> [!CONJECTURE] {#c}\n> a\n\n> [!EXAMPLE]\n> b\n\n[](#c)\n")
    assert "Conjecture 1</strong>" in html and "Example</strong>" in html
    assert 'data-xref="conjecture">Conjecture 1</a>' in html
    (tmp_path / "site.yaml").write_text("title: T\nstatements:\n  counters: each\n",
                                        encoding="utf-8")
    with pytest.raises(ConfigError) as caught:
        load_config(tmp_path)
    assert caught.value.line == 3 and "per-type" in caught.value.message


# -- real builds ------------------------------------------------------------------------

POST_A = ("---\ntitle: Post A\ndate: 2024-01-01\n---\n\nBy [](b.md#thm-b), "
          "[the lemma](b.md#lem-b) and [](b.md#fig-b).\n")
POST_B = ("---\ntitle: The <B> post\ndate: 2024-01-02\n---\n\n> [!LEMMA] {#lem-b}\n> x\n\n"
          "> [!THEOREM] Big {#thm-b}\n> y\n\n![x](x.png \"Cap\"){#fig-b}\n")


def two_posts(tmp_path: Path, post_a: str, post_b: str,
              files: dict[str, bytes] | None = None) -> Path:
    """A built site of the posts a.md and b.md (and `files` beside them)."""
    root = tmp_path / "site"
    (root / "content" / "posts").mkdir(parents=True)
    (root / "site.yaml").write_text('title: X\nbase_url: "https://example.org/"\n')
    (root / "content" / "posts" / "a.md").write_text(post_a)
    (root / "content" / "posts" / "b.md").write_text(post_b)
    for name, data in (files or {}).items():
        (root / "content" / "posts" / name).write_bytes(data)
    build(root / "site.yaml")
    return root


@pytest.fixture
def site(tmp_path: Path) -> Path:
    return two_posts(tmp_path, POST_A, POST_B, {"x.png": b"not really a png"})


def body(site: Path, name: str = "a") -> str:
    return (site / "_site" / "posts" / name / "index.html").read_text(encoding="utf-8")


def test_reference_to_another_post_shows_its_label_and_title(site: Path) -> None:
    html = body(site)
    assert ('<a href="/posts/b/#thm-b" class="xref xref-external" data-xref="theorem" '
            'data-preview="xref-preview-1">Theorem 2 in The &lt;B&gt; post</a>') in html
    assert '<a href="/posts/b/#lem-b">the lemma</a>' in html
    assert ('data-xref="figure" data-preview="xref-preview-2">Figure 1 in The &lt;B&gt; post'
            "</a>") in html
    feed = (site / "_site" / "feed.xml").read_text(encoding="utf-8")
    assert "https://example.org/posts/b/#thm-b" in feed and "Theorem 2 in The" in feed


def test_renumbering_in_the_other_post_renders_the_reference_again(site: Path,
                                                                    tmp_path: Path) -> None:
    b = site / "content" / "posts" / "b.md"
    report = rebuild(site, lambda: b.write_text(POST_B.replace("> [!LEMMA] {#lem-b}\n> x\n\n",
                                                                "")), tmp_path)
    assert "Theorem 1 in The &lt;B&gt; post" in body(site)
    assert report.rendered == 2  # b, and a once more for its label
    report = rebuild(site, lambda: None, tmp_path)
    assert report.rendered == 0


def test_clean_build_equals_incremental_and_is_repeatable(site: Path, tmp_path: Path) -> None:
    first = tree(build_clean(site, tmp_path))
    assert tree(build_clean(site, tmp_path)) == first == tree(site / "_site")


def test_unknown_id_in_another_post_warns_once(site: Path) -> None:
    (site / "content" / "posts" / "a.md").write_text(POST_A + "\nAnd [](b.md#nope).\n")
    report = build(site / "site.yaml")
    found = [d for d in report.diagnostics if "nope" in d.message]
    assert [(d.file, d.line) for d in found] == [("content/posts/a.md", 8)]
    assert "The &lt;B&gt; post</a>" in body(site).split("And ")[1]


def test_strict_fails_on_an_unknown_id(site: Path) -> None:
    (site / "content" / "posts" / "a.md").write_text(POST_A + "\nSee [](#gone).\n")
    report = build(site / "site.yaml")
    (found,) = [d for d in report.diagnostics if "#gone" in d.message]
    assert (found.file, found.line) == ("content/posts/a.md", 8)
    with pytest.raises(BuildFailed):
        build(site / "site.yaml", strict=True)
