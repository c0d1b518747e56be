"""HTML tags never closed with '>': a warning at their line; widget tags shown as text."""

from __future__ import annotations

import pytest

from blogbuild.markdown import create_markdown
from blogbuild.markdown.unclosed_tags import unclosed_tag_at


@pytest.mark.parametrize(("html", "at"), [
    ('<div class="x">\n<p>ok</p>\n', None),
    ('<div class="x"', 0),
    ('<div class="x">\n<img alt="a > b', 16),  # a '>' inside a quoted value closes nothing
    ("<div>\n</div", 6),
    ("<script>if (a <b) x()</script>\n", None),  # script text opens no tag
    ("<!-- <div class=\"x\" -->\n", None),
    ("<div id=a\n  class=b>\n", None),
    ("<!-- never closed <div", None),  # the unclosed comment has a warning of its own
])
def test_where_an_html_block_ends_inside_a_tag(html: str, at: int | None) -> None:
    assert unclosed_tag_at(html) == at


def render(source: str) -> tuple[str, list[str]]:
    env: dict[str, object] = {}
    out = create_markdown().render(source, env)
    return out, [d.message for d in env.get("diagnostics", [])]  # type: ignore[attr-defined]


@pytest.mark.parametrize("source", [
    "if a <b and c then d\n",  # a comparison, not a tag
    "x <y z=\"1\">ok</y>\n",
    "`<a href=\"x\"`\n",  # in a code span
    '<div class="x">\ntext\n</div>\n',
])
def test_no_warning_for_text_that_is_no_unclosed_tag(source: str) -> None:
    assert not [m for m in render(source)[1] if "never closed with '>'" in m]


def test_the_text_after_an_unclosed_widget_tag_stays_markdown() -> None:
    html, messages = render('<div class="video-embed" data-src="x"\n*hi*\n')
    assert html == ('<p>&lt;div class=&quot;video-embed&quot; data-src=&quot;x&quot;\n'
                    "<em>hi</em></p>\n")
    assert any("this HTML tag <div is never closed with '>'" in m for m in messages)


@pytest.mark.parametrize("source", ['<div class="note"\n*hi*\n', '<section id="a"\ntext\n'])
def test_other_raw_html_ending_inside_a_tag_passes_through_with_a_warning(source: str) -> None:
    """Raw HTML is the author's, and CommonMark passes it through (spec examples 156-158):
    the warning says that a browser will read the text after it as part of the tag."""
    html, messages = render(source)
    assert html == source
    assert any("is never closed with '>': a browser reads the text after it" in m
               for m in messages), messages
