"""`<!--more-->`: the summary the author cuts (fixtures), and the marker leaves no trace."""

from __future__ import annotations

from pathlib import Path

import html5lib
import pytest
from markdown_it.utils import read_fixture_file

from blogbuild.markdown import create_markdown
from blogbuild.pipeline.render import render_markdown

FIXTURES = Path(__file__).parent / "fixtures" / "more.md"
CASES = [pytest.param(*case[2:], id=f"{case[0]}-{case[1]}")
         for case in read_fixture_file(FIXTURES)]


@pytest.mark.parametrize(("source", "expected"), CASES)
def test_excerpt(source: str, expected: str) -> None:
    rendered = render_markdown(create_markdown(), source)
    assert (rendered.excerpt_html or "") == expected


def test_the_marker_shows_nothing_in_the_page() -> None:
    source = "A <!--more--> b.\n\n<!-- more -->\n\n- c\n  <!--more-->\n"
    html = render_markdown(create_markdown(), source).html
    assert html == "<p>A  b.</p>\n<ul>\n<li>c</li>\n</ul>\n"


@pytest.mark.parametrize(("source", "expected"), CASES)
def test_every_excerpt_is_well_formed(source: str, expected: str) -> None:
    if expected:
        html5lib.HTMLParser(strict=True).parseFragment(expected)


def test_the_summary_text_is_the_excerpt() -> None:
    source = "One **two**.\n\nThree.\n\n<!--more-->\n\nFour.\n"
    rendered = render_markdown(create_markdown(), source)
    assert rendered.summary == "One two. Three."
    assert render_markdown(create_markdown(), "One.\n\nTwo.\n").summary == "One."


def test_the_excerpt_links_to_the_post_and_needs_no_stylesheet() -> None:
    """Lists and feeds show it away from the post: fragments lead to the post, math is MathML."""
    rendered = render_markdown(create_markdown(), "A claim[^1] and $x^2$.\n\n<!--more-->\n\n"
                               "[^1]: The note.\n", feed_base="https://example.org/p/")
    excerpt = rendered.excerpt_html or ""
    assert 'href="https://example.org/p/#fn1"' in excerpt
    assert "<math" in excerpt and "katex-html" not in excerpt
    assert 'href="#fn1"' in rendered.html  # the page itself keeps its own links


def test_a_marker_in_a_callout_keeps_the_whole_callout() -> None:
    source = ("Intro.\n\n> [!WARNING]- Folded\n> In a note.\n>\n> <!--more-->\n>\n"
              "> - a list <!--more-->\n\nAfter.\n")
    excerpt = render_markdown(create_markdown(), source).excerpt_html or ""
    html5lib.HTMLParser(strict=True).parseFragment(excerpt)
    assert excerpt.count("<details") == excerpt.count("</details>") == 1
    assert "a list" in excerpt and "After." not in excerpt and "<!--" not in excerpt
