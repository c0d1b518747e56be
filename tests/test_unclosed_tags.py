"""HTML tags never closed with '>': shown as text with a warning, never passed raw."""

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


def test_the_text_after_an_unclosed_tag_stays_markdown() -> None:
    html, messages = render('<div class="note"\n*hi*\n')
    assert html == "<p>&lt;div class=&quot;note&quot;\n<em>hi</em></p>\n"
    assert any("this HTML tag <div is never closed with '>'" in m for m in messages)
