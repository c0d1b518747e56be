"""Callouts (syntax.md §2): fixture cases, site.yaml types, diagnostics, code stays code."""

from __future__ import annotations

import itertools
import re
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import html5lib
import pytest
from markdown_it.utils import read_fixture_file

from blogbuild.callout_icons import ICONS
from blogbuild.callout_kinds import STATEMENT_TYPES
from blogbuild.config import CalloutType, Config, load_config
from blogbuild.diagnostics import ConfigError, Severity
from blogbuild.markdown import create_markdown
from blogbuild.markdown.callouts import BUILTIN_TYPES
from blogbuild.pipeline.render import SourceJob, render_source

FIXTURES = Path(__file__).parent / "fixtures" / "callouts.md"
MD = create_markdown()


def abbreviate_icons(html: str) -> str:
    """Write each built-in icon as [icon:NAME] so fixtures stay readable (icons tested below)."""
    for name, icon in ICONS.items():
        html = html.replace(icon, f"[icon:{name}]")
    return html


def render(source: str, md: Any = MD, **env: Any) -> tuple[str, dict[str, Any]]:
    env_out: dict[str, Any] = dict(env)
    return md.render(source, env_out), env_out


def roots(html: str) -> list[Any]:
    """The callout root elements of `html`, parsed by a strict HTML5 parser."""
    parser = html5lib.HTMLParser(strict=True, namespaceHTMLElements=False)
    doc = parser.parseFragment(html)
    return [el for el in doc.iter() if "callout" in (el.get("class") or "").split()]


@pytest.mark.parametrize(
    ("line", "title", "source", "expected"),
    read_fixture_file(FIXTURES),
    ids=[f"{case[0]}-{case[1]}" for case in read_fixture_file(FIXTURES)],
)
def test_fixture(line: int, title: str, source: str, expected: str) -> None:
    html, _ = render(source)
    assert abbreviate_icons(html) == expected
    roots(html)  # strict HTML5: raises on any parse error


def test_fixture_file_has_dozens_of_cases() -> None:
    assert len(read_fixture_file(FIXTURES)) >= 60


@pytest.mark.parametrize("kind", BUILTIN_TYPES)
def test_every_type_has_its_own_icon_and_class(kind: str) -> None:
    html, env = render(f"> [!{kind.upper()}]\n> Body.\n")
    (root,) = roots(html)
    statement = " callout-statement" if kind in STATEMENT_TYPES else ""
    assert root.get("class") == f"callout callout-{kind}{statement}"
    assert root.get("data-callout") == kind
    assert ICONS[kind] in html
    assert env["needs"] == {"callouts"}
    assert not env.get("diagnostics")


def test_icons_are_distinct_small_svg() -> None:
    assert len(BUILTIN_TYPES) == 18
    assert len(set(ICONS.values())) == len(ICONS) == 19  # 18 types + the neutral one
    for name, icon in ICONS.items():
        svg = ET.fromstring(icon)
        assert svg.tag == "svg", name
        # Without a stylesheet an inline SVG would be 300x150px: the attributes keep it 1em.
        assert (svg.get("width"), svg.get("height"), svg.get("viewBox")) == ("1em", "1em",
                                                                           "0 0 24 24")
        assert len(svg) >= 1, name


def test_icon_is_hidden_from_assistive_technology() -> None:
    html, _ = render("> [!TIP]\n> x\n")
    assert '<span class="callout-icon" aria-hidden="true"><svg' in html


def test_markdown_it_alerts_are_replaced_not_doubled() -> None:
    assert MD.options["alerts"] is False
    tokens = MD.parse("> [!NOTE]\n> Body\n")
    types = [t.type for t in tokens]
    assert "alert_open" not in types and "blockquote_open" not in types
    assert types[0] == "callout_open" and types[-1] == "callout_close"
    assert "markdown-alert" not in MD.render("> [!CAUTION]\n> x\n")


def test_title_is_an_inline_token_for_inline_plugins() -> None:
    """Math in a title is the math plugin's job: the title must reach it as inline Markdown."""
    tokens = MD.parse("Text\n\n> [!DEFINITION] Energy $E = mc^2$\n> Body\n")
    i = next(i for i, t in enumerate(tokens) if t.type == "callout_title_open")
    title = tokens[i + 1]
    assert title.type == "inline"
    assert title.content == "Definition 1 (Energy $E = mc^2$)"  # numbered before parsing
    assert title.map == [2, 3]


def test_default_title_is_escaped_text() -> None:
    md = create_markdown(Config(callouts={"star": CalloutType(title="*not emphasis* & <b>")}))
    html, _ = render("> [!STAR]\n> x\n", md)
    assert '<strong class="callout-title-text">*not emphasis* &amp; &lt;b&gt;</strong>' in html


def test_plain_blockquote_needs_nothing() -> None:
    html, env = render("> quote\n")
    assert html == "<blockquote>\n<p>quote</p>\n</blockquote>\n"
    assert "callouts" not in env.get("needs", set())


FENCED = """\
````markdown
> [!NOTE]
> This documents the syntax.
````
"""


def test_marker_in_fenced_code_stays_text() -> None:
    html, env = render(FENCED)
    assert "callout" not in html
    pre = "".join(html5lib.parseFragment(html, namespaceHTMLElements=False).itertext())
    assert "> [!NOTE]\n> This documents the syntax." in pre
    assert "callouts" not in env.get("needs", set())


def test_fenced_code_inside_a_callout_is_highlighted_and_untouched() -> None:
    source = "> [!EXAMPLE]\n> ```python\n> x = 1\n> # > [!TIP] not a callout\n> ```\n"
    html, _ = render(source)
    (root,) = roots(html)
    body = root.find("./div[@class='callout-body']")
    assert body is not None
    code = body.find(".//code")
    assert code is not None and code.get("class") == "language-python"
    assert "".join(code.itertext()) == "x = 1\n# > [!TIP] not a callout\n"


def test_code_span_marker_inside_a_callout_body() -> None:
    html, _ = render("> [!NOTE]\n> Write `> [!NOTE]` to get this box.\n")
    assert len(roots(html)) == 1
    assert "<code>&gt; [!NOTE]</code>" in html


def test_nesting_to_any_depth() -> None:
    depth = 18  # beyond markdown-it's default maxNesting of 20 token levels
    lines = [">" * (d + 1) + f" [!{BUILTIN_TYPES[d].upper()}]" for d in range(depth)]
    lines.append(">" * depth + " innermost")
    html, _ = render("\n".join(lines) + "\n")
    found = roots(html)
    assert [el.get("data-callout") for el in found] == list(BUILTIN_TYPES[:depth])
    assert "<p>innermost</p>" in html
    for outer, inner in itertools.pairwise(found):
        assert inner in list(outer.iter())


@pytest.mark.parametrize(
    "ending",
    ["Done. ∎", "Done. $\\blacksquare$", "Done $\\qquad\\square$", "Done. \\(\\qed\\)", "■"],
)
def test_proof_keeps_an_end_mark_the_author_wrote(ending: str) -> None:
    html, _ = render(f"> [!PROOF]\n> {ending}\n")
    assert "callout-qed" not in html


def test_proof_gets_exactly_one_end_mark_per_proof() -> None:
    html, _ = render("> [!PROOF]\n> Outer.\n> > [!PROOF]-\n> > Inner.\n>\n> So.\n")
    assert html.count('<span class="callout-qed">∎</span>') == 2
    assert "<p>Inner. <span" in html and "<p>So. <span" in html


SITE_TYPES = {
    "note": CalloutType(title="Nota bene", icon="tip"),
    "recipe": CalloutType(icon="🍳", color="rgb(200 80 0)"),
    "theorem": CalloutType(icon="proof", color="#7c3aed"),  # changes the built-in alias
    "warn": CalloutType(alias_of="warning"),
    "kudos": CalloutType(alias_of="recipe", title="Thanks"),
    "snippet": CalloutType(alias_of="kudos", icon="<svg viewBox='0 0 1 1'><rect/></svg>"),
}


def test_site_yaml_types_overrides_and_aliases() -> None:
    md = create_markdown(Config(callouts=SITE_TYPES))
    source = "\n\n".join(
        f"> [!{name}]\n> body" for name in ("note", "recipe", "theorem", "warn", "kudos",
                                             "snippet", "tip")
    )
    html, env = render(source, md)
    assert not env.get("diagnostics")
    note, recipe, theorem, warn, kudos, snippet, tip = roots(html)
    assert note.get("class") == "callout callout-note"
    assert "Nota bene" in "".join(note.itertext())
    assert ICONS["tip"] in html.split("Nota bene")[0]
    assert recipe.get("class") == "callout callout-recipe"
    assert recipe.get("style") == "--callout-color: rgb(200 80 0)"
    assert "".join(recipe.itertext()).strip().startswith("🍳 Recipe")
    assert theorem.get("data-callout") == "definition"
    assert theorem.get("style") == "--callout-color: #7c3aed"
    assert ICONS["proof"] in html.split("Theorem")[0].split("Recipe")[1]
    assert warn.get("data-callout") == "warning" and "Warn" in "".join(warn.itertext())
    assert kudos.get("data-callout") == "recipe" and "Thanks" in "".join(kudos.itertext())
    assert kudos.get("style") == recipe.get("style")
    assert snippet.get("data-callout") == "recipe" and "Snippet" in "".join(snippet.itertext())
    assert "<svg viewBox='0 0 1 1'><rect/></svg>" in html
    assert tip.get("data-callout") == "tip" and tip.get("style") is None


def test_site_yaml_file_callouts_section(tmp_path: Path) -> None:
    (tmp_path / "site.yaml").write_text(
        "title: T\ncallouts:\n  Exercise:\n    title: Try it\n    icon: todo\n"
        "    color: '#0a7'\n  hw:\n    alias_of: exercise\n",
        encoding="utf-8",
    )
    md = create_markdown(load_config(tmp_path))
    html, env = render("> [!EXERCISE]\n> a\n\n> [!hw]- Week 1\n> b\n", md)
    exercise, homework = roots(html)
    # EXERCISE is a built-in statement (styled as a definition): site.yaml restyles it.
    assert exercise.get("data-callout") == homework.get("data-callout") == "definition"
    assert exercise.get("style") == "--callout-color: #0a7"
    assert "Try it 1" in "".join(exercise.itertext())
    assert homework.tag == "details" and "Hw 2 (Week 1)" in "".join(homework.itertext())
    assert not env.get("diagnostics")


@pytest.mark.parametrize(
    ("types", "message"),
    [
        ({"x": CalloutType(color="red; background: url(evil)")}, "'callouts.x.color'"),
        ({"x": CalloutType(color='"><script>')}, "'callouts.x.color'"),
        ({"x": CalloutType(icon="warnig")}, "'callouts.x.icon'"),
        ({"x": CalloutType(alias_of="nothing")}, "'callouts.x.alias_of'"),
        ({"a": CalloutType(alias_of="b"), "b": CalloutType(alias_of="a")}, "form a cycle"),
        ({"two words": CalloutType()}, "'callouts.two words'"),
    ],
)
def test_site_yaml_mistakes_are_config_errors(types: dict[str, CalloutType], message: str) -> None:
    with pytest.raises(ConfigError, match=re.escape(message)):
        create_markdown(Config(callouts=types))


POST = """\
---
title: Unknown types
date: 2024-05-01
---

Intro paragraph.

> [!NOTE]
> Known.

- item

  > [!Nope]- Folded
  > body
"""


def test_unknown_type_warning_names_the_source_file_line(tmp_path: Path) -> None:
    path = tmp_path / "post.md"
    path.write_text(POST, encoding="utf-8")
    job = SourceJob(path=path, rel="posts/post.md", kind="post", display="content/posts/post.md")
    result = render_source(job, Config())
    assert result.ok
    (diagnostic,) = result.diagnostics
    assert diagnostic.file == "content/posts/post.md"
    assert diagnostic.line == 13  # the line of "> [!Nope]" in the file, front matter included
    assert POST.splitlines()[diagnostic.line - 1].strip() == "> [!Nope]- Folded"
    assert diagnostic.severity is Severity.WARNING
    assert "[!Nope]" in diagnostic.message and "did you mean [!NOTE]?" in diagnostic.message
    assert result.rendered is not None
    assert 'class="callout callout-nope" data-callout="nope"' in result.rendered.html


def test_unknown_type_warning_with_env_line_offset() -> None:
    _, env = render("x\n\n> [!a]\n> > [!zzz]\n", file="f.md", line_offset=7)
    lines = [(d.file, d.line) for d in env["diagnostics"]]
    assert lines == [("f.md", 10), ("f.md", 11)]
