"""A page that is not a Quarto document is parsed without Quarto's plugins
(blogbuild.pipeline.render.parser_for): it must come out exactly as the full parser makes
it, so a site without a `.qmd` page never loads them. Checked on every fixture input
(Quarto's own among them, written in a `.md` page) and every CommonMark spec example."""

from __future__ import annotations

from pathlib import Path

import pytest
from markdown_it.utils import read_fixture_file

from blogbuild.config import Config
from blogbuild.pipeline.render import parser_for, render_markdown
from test_commonmark import EXAMPLES

HERE = Path(__file__).parent
FIXTURES = sorted((HERE / "fixtures").glob("*.md"))

#: Each set of inputs by name: a fixture file's cases, the spec's examples.
INPUTS = {path.stem: [case[2] for case in read_fixture_file(path)] for path in FIXTURES}
INPUTS["commonmark-spec"] = [source for _, _, source, _ in EXAMPLES]


def test_the_inputs_were_found() -> None:
    assert len(FIXTURES) >= 20
    assert len(INPUTS["commonmark-spec"]) > 600
    assert sum(len(texts) for name, texts in INPUTS.items() if name.startswith("quarto_")) > 20


@pytest.mark.parametrize("name", sorted(INPUTS))
def test_a_markdown_page_parses_the_same_without_quarto(name: str) -> None:
    config = Config()
    full, plain = parser_for(config, quarto=True), parser_for(config, quarto=False)
    differ = [n for n, text in enumerate(INPUTS[name], 1)
              if render_markdown(plain, text, file="post.md")
              != render_markdown(full, text, file="post.md")]
    assert differ == [], f"{name}: cases {differ} differ"


def test_the_two_parsers_differ() -> None:
    """Without Quarto's plugins the parser has fewer rules (else the test above proves
    nothing)."""
    config = Config()
    full, plain = parser_for(config, quarto=True), parser_for(config, quarto=False)
    assert "quarto_shortcode" in full.inline.ruler.get_all_rules()
    assert "quarto_shortcode" not in plain.inline.ruler.get_all_rules()
