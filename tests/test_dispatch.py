"""The inline rules tried per character (markdown/dispatch.py): each rule declines where the
table says it cannot start, and the parser makes the tokens markdown-it's own loop makes."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from markdown_it.rules_inline import StateInline

from blogbuild.bib.library import Library, load_library
from blogbuild.content.linkmap import LinkMap
from blogbuild.content.records import Rendered
from blogbuild.markdown import create_markdown
from blogbuild.markdown.dispatch import STARTS
from blogbuild.pipeline.render import render_markdown

ROOT = Path(__file__).resolve().parent.parent

DISPATCHED = create_markdown()
PLAIN = create_markdown()
del PLAIN.inline.tokenize, PLAIN.inline.skipToken  # type: ignore[attr-defined]  # markdown-it's loops

#: Every character some rule starts at, the syntax built of them, and words around them.
PIECES = [
    *sorted({c for chars in STARTS.values() for c in chars}),
    "[[Note]]", "![[pic.png]]", "[^1]", "^[inline]", "[@knuth84]", "@knuth84", "[link](/x)",
    "<https://a.org>", "<b>", "&amp;", "&#35;", "www.example.com", "https://example.org/a",
    "ada@example.com", "$x$", "$$y$$", "\\(z\\)", "`code`", "**b**", "_i_", "~~s~~", "==m==",
    "%% hidden %%", "word", " ", "\n", "\n\n", "(", ")", "]", ":", "-", "!", "#", "{", "}",
]


def _library() -> Library:
    with tempfile.TemporaryDirectory() as folder:
        bib = Path(folder) / "refs.bib"
        bib.write_text("@book{knuth84, title={The TeXbook}, author={Knuth, D.}, year={1984}}\n")
        return load_library([(bib, "refs.bib")])


LIBRARY = _library()
LINKS = LinkMap(documents={"notes/note.md": "/notes/note/"},
                labels={"notes/note.md": ("note", "Note")})


def _env() -> dict[str, Any]:
    """What a render's env holds that the inline rules read."""
    return {"links": LINKS, "bibliography": LIBRARY, "images": {}, "wiki": {},
            "diagnostics": [], "needs": set()}


def _rendered(md: Any, text: str) -> Rendered:
    """Everything the render makes of `text`: HTML, feed HTML, diagnostics, needs, …"""
    return render_markdown(md, text, file="posts/x.md", source_dir="posts", links=LINKS,
                           bibliography=LIBRARY)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(PIECES), max_size=40).map("".join))
@example("[^1]:$$")  # math left open in a footnote nothing refers to: its text is dropped
def test_the_render_is_markdown_its(text: str) -> None:
    assert _rendered(DISPATCHED, text) == _rendered(PLAIN, text)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(PIECES), min_size=1, max_size=25).map("".join), st.booleans())
def test_each_rule_declines_where_the_table_says_it_cannot_start(text: str,
                                                                  silent: bool) -> None:
    rules = {rule.name: rule.fn for rule in DISPATCHED.inline.ruler.__rules__ if rule.enabled}
    for name, chars in STARTS.items():
        fn = rules[name]
        for pos, char in enumerate(text):
            if char in chars:
                continue
            state = StateInline(text, DISPATCHED, _env(), [])
            state.pos = pos
            state.pending = text[:pos]  # what the autolink rules read back
            assert not fn(state, silent), (name, pos, text)
            assert state.pos == pos and not state.tokens


def test_every_rule_of_the_table_is_one_of_the_parser() -> None:
    """A name in STARTS that no rule has would be a rule the table no longer describes."""
    names = {rule.name for rule in DISPATCHED.inline.ruler.__rules__ if rule.enabled}
    assert set(STARTS) <= names


@pytest.mark.parametrize("folder", ["content", "docs", "tests/fixtures"])
def test_real_posts_render_the_same(folder: str) -> None:
    files = sorted((ROOT / folder).rglob("*.md"))
    assert files
    for path in files:
        text = path.read_text(encoding="utf-8")
        assert _rendered(DISPATCHED, text) == _rendered(PLAIN, text), path


def test_a_rule_added_later_is_tried_everywhere() -> None:
    md = create_markdown()
    seen: list[str] = []

    def spy(state: StateInline, silent: bool) -> bool:
        seen.append(state.src[state.pos])
        return False

    md.inline.ruler.before("text", "spy", spy)
    md.parse("a:b*c", {})
    assert seen == ["a", ":", "b", "*", "c"]
