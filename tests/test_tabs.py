"""Tabs: MkDocs' `=== "Title"` content tabs (fixture cases), the tab tokens Quarto's
`.panel-tabset` divs emit, the ids and the need, and one real build."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import html5lib
import pytest
from markdown_it.rules_core import StateCore
from markdown_it.token import Token
from markdown_it.utils import read_fixture_file

from blogbuild.markdown import create_markdown
from blogbuild.markdown.tabs import tab_ids
from conftest import build_site

FIXTURES = Path(__file__).parent / "fixtures" / "tabs.md"
CASES = read_fixture_file(FIXTURES)
MD = create_markdown()


def render(source: str, **env: Any) -> tuple[str, dict[str, Any]]:
    env_out: dict[str, Any] = {"file": "post.md", **env}
    return MD.render(source, env_out), env_out


def parsed(html: str) -> Any:
    """`html` parsed by a strict HTML5 parser (raises on any parse error)."""
    parser = html5lib.HTMLParser(strict=True, namespaceHTMLElements=False)
    return parser.parseFragment(html)


@pytest.mark.parametrize(
    ("line", "title", "source", "expected"), CASES, ids=[f"{c[0]}-{c[1]}" for c in CASES]
)
def test_fixture(line: int, title: str, source: str, expected: str) -> None:
    out, env = render(source)
    shown = out + "".join(f"[{d.severity.value} {d.line}] {d.message}\n"
                          for d in env.get("diagnostics", []))
    assert shown == expected
    parsed(out)


def test_fixture_file_covers_the_syntax() -> None:
    assert len(CASES) >= 20


def test_a_page_with_tabs_needs_them_and_one_without_does_not() -> None:
    _, env = render('=== "A"\n    a\n')
    assert env["needs"] == {"tabs"}
    _, env = render("Text.\n\n==== not a tab\n")
    assert "tabs" not in env.get("needs", set())


def test_messages_name_the_source_line_under_front_matter() -> None:
    _, env = render('Intro.\n\n=== "A"\n    a\n=== ""\n    b\n=== "C"\n', line_offset=4)
    assert [(d.line, d.message.split(":")[0]) for d in env["diagnostics"]] == [
        (9, "content tab with an empty title"), (11, 'content tab "C" has no content')]
    assert not any(d.is_error for d in env["diagnostics"])


def test_ids_are_the_same_every_render_and_unique_on_the_page() -> None:
    source = ('# Tabset 1\n\n=== "A"\n    === "B"\n        b\n\n'
              '- item\n\n    === "C"\n        c\n    === "D"\n        d\n')
    first, _ = render(source)
    assert render(source)[0] == first
    ids = [el.get("id") for el in parsed(first).iter() if el.get("id")]
    assert len(ids) == len(set(ids)) == 8  # the heading, three sets, four panels
    assert ids[0] == "tabset-1"  # the heading keeps its own; the sets step aside


def quarto_tokens(group: str | None, titles: list[str], selected: int) -> list[Token]:
    """The TAB TOKENS as the Quarto `.panel-tabset` div emits them (one paragraph a tab)."""
    opening = Token("tabset_open", "div", 1, attrs={"class": "tabset"}, meta={"group": group})
    tokens = [opening]
    for i, title in enumerate(titles):
        title_inline = Token("inline", "", 0, content=title,
                             children=[Token("text", "", 0, content=title)])
        body = Token("inline", "", 0, content=f"Body {i}",
                     children=[Token("text", "", 0, content=f"Body {i}")])
        tokens += [
            Token("tab_open", "section", 1, meta={"selected": i == selected}),
            Token("tab_title_open", "p", 1), title_inline, Token("tab_title_close", "p", -1),
            Token("paragraph_open", "p", 1), body, Token("paragraph_close", "p", -1),
            Token("tab_close", "section", -1),
        ]
    return [*tokens, Token("tabset_close", "div", -1)]


def test_quarto_tabset_tokens_render_with_their_group_escaped() -> None:
    env: dict[str, Any] = {}
    tokens = quarto_tokens('lang" onclick="x', ["R", "Python <3>"], selected=1)
    state = StateCore("", MD, env)
    state.tokens = tokens
    tab_ids(state)
    out = MD.renderer.render(tokens, MD.options, env)
    root = parsed(out)
    (tabset,) = [el for el in root.iter() if el.get("class") == "tabset"]
    assert tabset.get("id") == "tabset-1"
    assert tabset.get("data-group") == 'lang" onclick="x'
    assert "onclick=" not in out.replace('data-group="lang&quot; onclick=&quot;x"', "")
    panels = [el for el in tabset if el.tag == "section"]
    assert [p.get("id") for p in panels] == ["tabset-1-1", "tabset-1-2"]
    assert [p.get("data-selected") for p in panels] == [None, ""]
    assert [p.find("p").text for p in panels] == ["R", "Python <3>"]
    assert env["needs"] == {"tabs"}


POST = """---
title: Install
---

=== "pip"

    ```sh
    pip install blogbuild
    ```

===+ "conda"

    Conda, shown first.
"""


def test_a_built_page_loads_the_tabs_script_and_styles_and_builds_the_same_twice(
        tmp_path: Path) -> None:
    site = tmp_path / "site"
    (site / "content" / "posts").mkdir(parents=True)
    (site / "site.yaml").write_text("title: T\nbase_url: https://example.org/blog/\n")
    (site / "content" / "posts" / "2024-01-01-install.md").write_text(POST)
    plain_post = "---\ntitle: Plain\n---\n\nNo tabs.\n"
    (site / "content" / "posts" / "2024-01-02-plain.md").write_text(plain_post)
    out = build_site(site, tmp_path / "one")
    page = (out / "posts" / "install" / "index.html").read_text()
    assert '<script type="module" src="/blog/js/tabs.js"></script>' in page
    assert (out / "js" / "tabs.js").read_text().startswith("// Tabs")
    stylesheet = page.split('<link rel="stylesheet" href="/blog/')[1].split('"')[0]
    assert ".tab-list" in (out / stylesheet).read_text()
    plain = (out / "posts" / "plain" / "index.html").read_text()
    assert "tabs.js" not in plain
    plain_css = plain.split('<link rel="stylesheet" href="/blog/')[1].split('"')[0]
    assert ".tab-list" not in (out / plain_css).read_text()
    again = build_site(site, tmp_path / "two")
    assert (again / "posts" / "install" / "index.html").read_bytes() == page.encode()


def test_a_quarto_tabset_keeps_the_id_it_was_given_and_shows_its_first_tab_first() -> None:
    env: dict[str, Any] = {}
    tokens = quarto_tokens(None, ["One", "Two"], selected=-1)
    tokens[0].attrSet("id", "my-tabs")
    state = StateCore("", MD, env)
    state.tokens = tokens
    tab_ids(state)
    (tabset,) = [el for el in parsed(MD.renderer.render(tokens, MD.options, env)).iter()
                 if el.get("class") == "tabset"]
    assert tabset.get("id") == "my-tabs" and tabset.get("data-group") is None
    panels = [el for el in tabset if el.tag == "section"]
    assert [(p.get("id"), p.get("data-selected")) for p in panels] == [
        ("my-tabs-1", ""), ("my-tabs-2", None)]


def test_a_preview_of_a_figure_holding_tabs_asks_for_the_tabs_look() -> None:
    """A figure whose panels are tabs, previewed on another page, shows its panels in the
    tabs' own look there: the referring page loads the tabs' stylesheet."""
    from blogbuild.markdown import create_markdown
    from blogbuild.pipeline.render import render_markdown
    from blogbuild.quarto import QuartoPage

    text = ("::: {#fig-t}\n::: {.panel-tabset}\n## One\n\n![A](a.png)\n\n## Two\n\n"
            "![B](b.png)\n:::\n\nBoth.\n:::\n")
    rendered = render_markdown(create_markdown(), text, extra_env={"quarto": QuartoPage()},
                               page_url="/posts/x/")
    assert "tabs" in dict((i, n) for i, _, n in rendered.previews)["fig-t"]
