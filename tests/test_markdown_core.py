"""Fixture tests of the core plugins (code, figures, toc, links) and their diagnostics."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from markdown_it.utils import read_fixture_file

from blogbuild.config import Config
from blogbuild.content.linkmap import LinkMap
from blogbuild.markdown import create_markdown
from blogbuild.markdown.fenceinfo import parse_info, parse_line_spec
from blogbuild.pipeline.render import render_markdown

FIXTURES = Path(__file__).parent / "fixtures"
CORE = ["code", "linenums", "figures", "toc", "links", "mark", "tasks"]
CASES = [
    pytest.param(name, *case[1:], id=f"{name}-{case[0]}-{case[1]}")
    for name in CORE
    for case in read_fixture_file(FIXTURES / f"{name}.md")
]


@pytest.mark.parametrize(("plugin", "title", "source", "expected"), CASES)
def test_fixture(plugin: str, title: str, source: str, expected: str) -> None:
    assert create_markdown().render(source) == expected


def test_info_string_parsing() -> None:
    assert parse_info('python {2,4-6} title="model.py"') == ("python", {"title": "model.py"},
                                                             [2, 4, 5, 6])
    assert parse_info("python{3}") == ("python", {}, [3])
    assert parse_info("js hl_lines='1 3-4'") == ("js", {}, [1, 3, 4])
    assert parse_line_spec("x, 2-a, 5") == [5]


def test_subpath_prefix_applies_to_root_links_and_images() -> None:
    md = create_markdown(Config(base_url="https://u.github.io/blog/"))
    html = md.render("[a](/about/) [b](/blog/about/) ![c](/img/c.png) [d](https://x.org/y)")
    assert 'href="/blog/about/"' in html
    assert html.count('href="/blog/about/"') == 2  # never prefixed twice
    assert 'src="/blog/img/c.png"' in html
    assert 'href="https://x.org/y"' in html


def test_relative_links_get_their_final_urls_while_rendering() -> None:
    md = create_markdown(Config(base_url="https://u.github.io/blog/"))
    links = LinkMap(documents={"posts/other.md": "/posts/other/"},
                    assets={"posts/img/my plot.png": "/posts/img/my plot.png",
                            "posts/img/café.png": "/posts/img/café.png"})
    rendered = render_markdown(
        md, "[x](other.md#part) ![y](img/my%20plot.png) ![z](<img/café.png>) [m](gone.md)",
        source_dir="posts", links=links)
    assert 'href="/blog/posts/other/#part"' in rendered.html
    assert 'src="/blog/posts/img/my%20plot.png"' in rendered.html
    assert 'src="/blog/posts/img/caf%C3%A9.png"' in rendered.html
    assert 'href="gone.md"' in rendered.html  # missing: left as written, and reported later
    assert [(r.kind, r.target, r.rel) for r in rendered.refs] == [
        ("link", "other.md#part", "posts/other.md"),
        ("image", "img/my%20plot.png", "posts/img/my plot.png"),
        ("image", "img/caf%C3%A9.png", "posts/img/café.png"),
        ("link", "gone.md", "posts/gone.md"),
    ]
    assert rendered.resolved == (
        ("posts/gone.md", None), ("posts/img/café.png", "/posts/img/café.png"),
        ("posts/img/my plot.png", "/posts/img/my plot.png"),
        ("posts/other.md", "/posts/other/"))


def test_unsafe_scheme_is_an_error_with_source_line() -> None:
    md = create_markdown()
    rendered = render_markdown(md, "ok\n\n[bad](javascript:alert(1))\n", file="p.md",
                               line_offset=4)
    (diagnostic,) = rendered.diagnostics
    assert diagnostic.is_error
    assert (diagnostic.file, diagnostic.line) == ("p.md", 7)
    assert "javascript" in diagnostic.message
    assert 'href="#"' in rendered.html


def test_title_and_subtitle_come_from_the_first_heading() -> None:
    md = create_markdown()
    rendered = render_markdown(md, "# The *Title*\n\n*A subtitle.*\n\nBody text here.\n\n## Part\n",
                               extract_title=True)
    assert rendered.title == "The Title"
    assert rendered.title_html == "The <em>Title</em>"
    assert rendered.subtitle == "A subtitle."
    assert "<h1" not in rendered.html and "A subtitle" not in rendered.html
    assert [e.id for e in rendered.toc] == ["part"]
    assert rendered.summary == "Body text here."


def test_paragraph_with_more_than_italics_is_not_a_subtitle() -> None:
    md = create_markdown()
    rendered = render_markdown(md, "# T\n\n*Not* only italics.\n", extract_title=True)
    assert rendered.subtitle is None
    assert "<em>Not</em> only italics." in rendered.html


def test_toc_collects_headings_with_levels() -> None:
    rendered = render_markdown(create_markdown(), "## One\n\n### Two `x`\n\n## Three\n")
    assert [(e.level, e.id, e.html) for e in rendered.toc] == [
        (2, "one", "One"), (3, "two-x", "Two <code>x</code>"), (2, "three", "Three"),
    ]


def test_toc_entries_keep_the_text_of_links_in_headings() -> None:
    source = '## A *very* [linked](https://example.com "t") heading\n\n## [`code` link](#x)\n'
    rendered = render_markdown(create_markdown(), source)
    assert [e.html for e in rendered.toc] == [
        "A <em>very</em> linked heading", "<code>code</code> link"]
    assert '<a href="https://example.com" title="t">linked</a>' in rendered.html


def test_code_blocks_report_the_code_need() -> None:
    assert "code" in render_markdown(create_markdown(), "```\nx\n```\n").needs
    assert "code" not in render_markdown(create_markdown(), "text\n").needs


def test_word_count_counts_prose_and_half_the_code() -> None:
    rendered = render_markdown(create_markdown(),
                               "one two three\n\n```\nfour five six seven\n```\n")
    assert rendered.word_count == 5


def test_word_count_leaves_out_math_and_html() -> None:
    text = "one $\\frac{a}{b}$ two <span class=\"x y\">three</span>\n\n$$\nx + y\n$$\n"
    assert render_markdown(create_markdown(), text).word_count == 3


def test_code_is_highlighted_once_for_page_and_feed(monkeypatch: pytest.MonkeyPatch) -> None:
    from blogbuild.markdown import highlight

    calls = []
    real = highlight.highlight_code

    def counting(code: str, lang: str, hl_lines: Sequence[int] = (), **options: Any) -> str:
        calls.append(code)
        return real(code, lang, hl_lines, **options)

    monkeypatch.setattr(highlight, "highlight_code", counting)
    rendered = render_markdown(create_markdown(), "```python\nx = 1\n```\n",
                               feed_base="https://example.org/p/")
    assert calls == ["x = 1\n"]
    assert 'class="language-python"' in rendered.html
    assert 'class="language-python"' in rendered.feed_html


def test_code_text_is_escaped_the_same_with_every_pygments_version() -> None:
    """Pygments 2.21 stopped escaping quotes; pages must not change with the library."""
    from blogbuild.markdown.highlight import highlight_code

    html = highlight_code("print(\"a\" + 'b') & x < 1\n", "python")
    assert "&quot;a&quot;" in html and "&#39;b&#39;" in html
    assert "&amp;" in html and "&lt;" in html and '"a"' not in html
