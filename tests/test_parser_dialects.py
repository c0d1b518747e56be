"""A page that is not a Quarto document is parsed without Quarto's plugins
(blogbuild.pipeline.render.parser_for): it must come out exactly as the full parser makes
it, so a site without a `.qmd` page never loads them. Checked on every fixture input
(Quarto's own among them, written in a `.md` page) and every CommonMark spec example."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from markdown_it.utils import read_fixture_file

from blogbuild.config import Config
from blogbuild.pipeline.render import parser_for, render_markdown

HERE = Path(__file__).parent
FIXTURES = sorted((HERE / "fixtures").glob("*.md"))
SPEC = (HERE / "commonmark" / "spec.txt").read_text(encoding="utf-8")


def _spec_examples() -> list[str]:
    fence = "`" * 32
    found = re.findall(rf"^{fence} example\n(.*?)^\.\n", SPEC, flags=re.M | re.S)
    return [text.replace("→", "\t") for text in found]


def _inputs() -> list[tuple[str, str]]:
    cases = [(f"{path.stem}:{n}", case[2]) for path in FIXTURES
             for n, case in enumerate(read_fixture_file(path), 1)]
    return cases + [(f"spec:{n}", text) for n, text in enumerate(_spec_examples(), 1)]


CASES = _inputs()


def test_the_inputs_were_found() -> None:
    assert len(FIXTURES) >= 20
    assert sum(name.startswith("spec:") for name, _ in CASES) > 600
    assert sum(name.startswith("quarto_") for name, _ in CASES) > 20


@pytest.mark.parametrize("text", [text for _, text in CASES], ids=[name for name, _ in CASES])
def test_a_markdown_page_parses_the_same_without_quarto(text: str) -> None:
    config = Config()
    full = render_markdown(parser_for(config, quarto=True), text, file="post.md")
    plain = render_markdown(parser_for(config, quarto=False), text, file="post.md")
    assert plain == full


def test_the_two_parsers_differ() -> None:
    """Without Quarto's plugins the parser has fewer rules (else the test above proves
    nothing)."""
    config = Config()
    full, plain = parser_for(config, quarto=True), parser_for(config, quarto=False)
    assert "quarto_shortcode" in full.inline.ruler.get_all_rules()
    assert "quarto_shortcode" not in plain.inline.ruler.get_all_rules()
