"""Property tests: the fast word count and anchor search find what the plain regexes find."""

from __future__ import annotations

import html as html_lib

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from markdown_it.token import Token

from blogbuild.markdown import create_markdown
from blogbuild.pipeline.texts import ANCHOR as _ANCHOR
from blogbuild.pipeline.texts import WORD as _WORD
from blogbuild.pipeline.texts import anchors_of
from blogbuild.pipeline.texts import plain as _plain
from blogbuild.pipeline.texts import word_count as _word_count

MD = create_markdown()


def anchors_by_regex(text: str) -> frozenset[str]:
    """The definition: every match of _ANCHOR, left to right."""
    return frozenset(html_lib.unescape(next(g for g in m.groups() if g is not None))
                     for m in _ANCHOR.finditer(text))


def words_by_regex(tokens: list[Token]) -> int:
    """The definition: _WORD's matches in each text token without its math, and half of
    those in the code blocks."""
    prose = code = 0
    for token in tokens:
        if token.type == "inline":
            prose += len(_WORD.findall(_plain(token.children or [], math=False)))
        elif token.type in ("fence", "code_block"):
            code += len(_WORD.findall(token.content))
    return prose + code // 2


ANCHOR_PIECES = [" ", "\t", "\n", "\u00a0", "\u2003", "id", "ID", "iD", "ıd", "İd", "name",
                 "NAME", "nAmE", "<a", "<A", "<b", "<a\n", "=", '"', "'", "`", "<", ">", "x",
                 "y1", "&amp;", "&quot;", "-", "d", "e", "type", "style", "</a>"]
WORD_PIECES = ["word", "x", "_", "1", "-", "'", "’", "--", " ", "\n", "\n\n", "é", "日本",
               "`", "```\n", "```python\n", "*", "$", "[", "](#a)", "# ", "> ", "- ", "|", ".",
               "\u00a0", "½", "٣"]


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(ANCHOR_PIECES), max_size=40).map("".join))
def test_anchors_of_finds_what_the_regex_finds(text: str) -> None:
    assert anchors_of(text) == anchors_by_regex(text)


@pytest.mark.parametrize("text", [
    ' id= id=x', '<x type="a id=b">', "<A NAME = 'top'>", " ıd=x", ' id  =\n"a b"',
    ' id="a" id=b id=c', ' id="unclosed id=d', '<a name=n id=i>', " id=a=b id=c",
    '<p> id=&quot;q&quot;</p>', '<h2 id="h">T</h2><sup id="fnref1">', " name=x",
])
def test_anchors_of_edge_cases(text: str) -> None:
    assert anchors_of(text) == anchors_by_regex(text)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(WORD_PIECES), max_size=50).map("".join))
def test_word_count_counts_what_the_regex_counts(text: str) -> None:
    tokens = MD.parse(text, {})
    assert _word_count(tokens) == words_by_regex(tokens)
