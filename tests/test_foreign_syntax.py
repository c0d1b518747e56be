"""Markdown written for other generators (syntax.md §7): native forms and the warnings."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import html5lib
import pytest
from markdown_it.utils import read_fixture_file

from blogbuild.callout_icons import ICONS
from blogbuild.markdown import create_markdown
from blogbuild.pipeline.render import render_markdown

FIXTURES = Path(__file__).parent / "fixtures"
PLUGINS = ["admonitions", "comments", "deflist", "attrs"]
CASES = [
    pytest.param(name, *case[1:], id=f"{name}-{case[0]}-{case[1]}")
    for name in PLUGINS
    for case in read_fixture_file(FIXTURES / f"{name}.md")
]
MD = create_markdown()


def abbreviate_icons(html: str) -> str:
    for name, icon in ICONS.items():
        html = html.replace(icon, f"[icon:{name}]")
    return html


def warnings_of(source: str, **env: Any) -> list[tuple[int, str]]:
    rendered = render_markdown(MD, source, file="p.md", **env)
    return [(d.line, d.message) for d in rendered.diagnostics]


@pytest.mark.parametrize(("plugin", "title", "source", "expected"), CASES)
def test_fixture(plugin: str, title: str, source: str, expected: str) -> None:
    html = MD.render(source, {})
    assert abbreviate_icons(html) == expected
    html5lib.HTMLParser(strict=True).parseFragment(html)  # raises on any parse error


def test_unknown_admonition_type_warns_like_a_callout() -> None:
    ((line, message),) = warnings_of("Intro.\n\n!!! notte\n    Body.\n", line_offset=3)
    assert line == 6
    assert "unknown callout type '!!! notte'" in message
    assert "did you mean '!!! NOTE'?" in message


def test_percent_signs_in_math_are_not_a_comment() -> None:
    html = MD.render("$a %% b$ and %% hidden %% text\n", {})
    assert "a %% b</annotation>" in html
    assert "and  text" in html


def test_unclosed_comment_block_warns_and_shows_the_text() -> None:
    source = "Text.\n\n%% draft starts here\nand never ends.\n"
    rendered = render_markdown(MD, source, file="p.md", line_offset=2)
    assert "draft starts here" in rendered.html
    ((line, message),) = [(d.line, d.message) for d in rendered.diagnostics]
    assert line == 5
    assert "'%%' opens a comment that is never closed" in message


def test_refused_attributes_are_named_in_a_warning() -> None:
    source = 'Text.\n{: .ok style="color:red" onclick="x()" src=a.png}\n'
    ((line, message),) = warnings_of(source, line_offset=4)
    assert line == 6
    assert "refused style, onclick, src" in message


def test_unreadable_attribute_list_and_definitions_are_named() -> None:
    ((line, message),) = warnings_of("Text.\n{: .ok myref}\n")
    assert line == 2
    assert message.startswith("attribute list {: .ok myref}: cannot read myref (")


def test_attribute_list_between_blank_lines_warns() -> None:
    ((line, message),) = warnings_of("One.\n\n{: .lost}\n\nTwo.\n")
    assert line == 3
    assert "belongs to no block" in message


def test_duplicate_heading_ids_stay_unique_and_warn() -> None:
    rendered = render_markdown(MD, "## A {#x}\n\n## B {#x}\n\n## x\n", file="p.md")
    assert [e.id for e in rendered.toc] == ["x", "x-1", "x-2"]
    ((line, message),) = [(d.line, d.message) for d in rendered.diagnostics]
    assert line == 3
    assert "heading id #x is already used" in message


def test_no_toc_headings_stay_out_of_the_toc_and_keep_their_anchor() -> None:
    rendered = render_markdown(MD, "## Contents\n{: .no_toc}\n\n## One\n", file="p.md")
    assert [e.id for e in rendered.toc] == ["one"]
    assert 'id="contents"' in rendered.html
    assert "contents" in rendered.anchors
