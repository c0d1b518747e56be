"""Macros a post defines in its math: they hold for every later formula of the page."""

from __future__ import annotations

import re
from pathlib import Path

import html5lib
import pytest
from markdown_it.utils import read_fixture_file

from blogbuild.config import Config, MathConfig
from blogbuild.markdown import create_markdown
from blogbuild.runtimes import katex
from math_helpers import render, render_fixture
from test_math import build_in_subprocess

FIXTURES = Path(__file__).parent / "fixtures" / "math_macros.md"


@pytest.mark.parametrize(
    ("line", "title", "source", "expected"),
    read_fixture_file(FIXTURES),
    ids=[f"{case[0]}-{case[1]}" for case in read_fixture_file(FIXTURES)],
)
def test_fixture(line: int, title: str, source: str, expected: str) -> None:
    assert render_fixture(source) == expected


def formulas(html: str) -> list[str]:
    """The MathML of each formula of a page, in order."""
    return re.findall(r"<math\b.*?</math>", html, re.S)


def test_same_formula_with_other_definitions_before_it_renders_otherwise() -> None:
    katex.clear_memo()
    md = create_markdown()
    pages = [render(f"$\\newcommand{{\\x}}{{\\{font}{{A}}}}$\n\n$\\x$\n", md=md)[0]
             for font in ("mathcal", "mathbf", "mathcal")]
    script, bold, again = (formulas(page) for page in pages)
    assert len(script) == len(bold) == 1  # the definitions show nothing
    assert 'mathvariant="script"' in script[0]
    assert 'mathvariant="bold"' in bold[0]
    assert again == script  # from the memo, under the macros it was made with


def test_definitions_are_part_of_the_cache_key(no_disk_cache: None) -> None:
    plain = katex.KatexOptions()
    defined = katex.KatexOptions(defined="\\gdef\\x{y}")
    assert plain.fingerprint != defined.fingerprint
    katex.clear_memo()
    katex.prefetch_each([("\\x", False, defined), ("x^2", False, plain), ("\\x", False, plain)])
    assert katex.render("\\x", display=False, options=defined).ok
    assert not katex.render("\\x", display=False, options=plain).ok


@pytest.fixture
def no_disk_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(katex.CACHE_ENV, raising=False)


def test_the_site_macro_applies_until_the_page_defines_the_name() -> None:
    md = create_markdown(Config(math=MathConfig(macros={"\\v": "\\mathbf{v}"})))
    html, env = render("$\\v$ $\\renewcommand{\\v}{\\vec{v}}$ $\\v$\n", md=md)
    assert "diagnostics" not in env
    first, second = formulas(html)
    assert 'mathvariant="bold"' in first
    assert 'mathvariant="bold"' not in second and '<mover accent="true">' in second


POST = """\
---
title: Expectations
date: 2024-03-01
---

$$
\\DeclareMathOperator*{\\E}{\\mathbb{E}}
\\newcommand{\\cE}{\\mathcal{E}}
$$

The energy $\\cE$ and its mean
$$
\\E_{x \\sim p} \\cE(x) \\label{eq:mean}
$$
as in \\eqref{eq:mean}, with $\\mbox{any } p$.
"""


def test_a_build_drops_the_definitions_and_typesets_what_follows(tmp_path: Path) -> None:
    site = tmp_path / "site"
    (site / "content" / "posts").mkdir(parents=True)
    (site / "site.yaml").write_text("title: T\nbase_url: http://127.0.0.1/\n", encoding="utf-8")
    (site / "content" / "posts" / "2024-03-01-e.md").write_text(POST, encoding="utf-8")
    pages = []
    for out in (tmp_path / "one", tmp_path / "two"):
        done = build_in_subprocess(site, out)
        assert done.returncode == 0, done.stderr
        pages.append((out / "posts" / "e" / "index.html").read_bytes())
    assert pages[0] == pages[1]  # the second from the formula cache, byte for byte
    tree = html5lib.parse(pages[0].decode("utf-8"), namespaceHTMLElements=False)
    displays = tree.findall(".//div[@class]")
    displays = [d for d in displays if "math-display" in d.get("class", "")]
    assert len(displays) == 1  # the block of definitions shows nothing
    assert displays[0].get("id") == "eq-mean"
    text = pages[0].decode("utf-8")
    assert "math-error" not in text and "DeclareMathOperator" not in text
    assert 'class="mord mathbb">E<' in text and 'mathcal' in text
    assert '<a class="math-ref" href="#eq-mean">(1)</a>' in text


def test_a_formula_gets_only_the_definitions_it_may_expand() -> None:
    from blogbuild.markdown.math.macros import PageMacros
    from blogbuild.markdown.math.tex import Rewrite

    page = PageMacros()
    names = ["\\m" + "".join(chr(97 + (i >> s) % 26) for s in (0, 5, 10)) for i in range(2000)]
    for name in names:
        text = f"\\newcommand{{{name}}}{{x}}"
        page.take(text, Rewrite(text), katex.KatexOptions(), lambda index: 1)
    text = "\\gdef\\pair{\\maaa\\mbaa} \\pair"
    page.take(text, Rewrite(text), katex.KatexOptions(), lambda index: 2)
    options, hidden, order = page.take("\\pair", Rewrite("\\pair"), katex.KatexOptions(),
                                       lambda index: 3)
    # \pair and what its body names: not the 2,000 others (the cache key stays small)
    assert options.defined == "\\gdef\\maaa{x}\\gdef\\mbaa{x}\\gdef\\pair{\\maaa\\mbaa}"
    assert not hidden and order == 2001


def test_a_notebook_s_definitions_hold_in_its_later_cells(tmp_path: Path) -> None:
    from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

    from blogbuild.commands.build import build
    from test_notebooks import front, make_site, page_of

    nb = new_notebook(cells=[
        front(title="Defs"),
        new_markdown_cell("$$\n\\newcommand{\\bx}{\\mathbf{x}}\n$$"),
        new_code_cell("x = 1"),
        new_markdown_cell("The vector $\\bx$."),
    ])
    site = make_site(tmp_path, {"posts/defs.ipynb": nb})
    build(site / "site.yaml")
    html, page = page_of(site, "posts/defs")
    assert page.by_class("math-display") == []
    assert 'mathvariant="bold"' in html and "math-error" not in html


def test_require_shows_nothing_and_mbox_is_text() -> None:
    html, env = render("$\\require{cancel}\\mbox{if } x$\n")
    assert "diagnostics" not in env
    (mathml,) = formulas(html)
    assert re.sub(r"<annotation.*?</annotation>", "", mathml).count("<mi") == 1  # x alone
    assert "<mtext>if\u00a0</mtext>" in mathml


def test_formulas_under_different_definitions_go_to_katex_together(no_disk_cache: None) -> None:
    katex.clear_memo()
    source = ("$\\zeta_{91}$ $\\newcommand{\\q}{\\omega_{91}}$ $\\q^2$ "
              "$\\renewcommand{\\q}{\\eta_{91}}$ $\\q^3$ $\\q^3 + \\zeta_{91}$\n")
    before = katex.round_trips()
    html, env = render(source)
    assert "diagnostics" not in env
    assert katex.round_trips() - before == 1
    assert [m.count("<mi>ω</mi>") + 2 * m.count("<mi>η</mi>") for m in formulas(html)] == [
        0, 1, 2, 2]
