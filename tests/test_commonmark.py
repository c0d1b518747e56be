"""Every example of the CommonMark spec, rendered by create_markdown() with all plugins on.

Normalised before comparing, because syntax.md asks for them on top of CommonMark:
- heading ids and anchor links (added to every heading);
- the highlighting of fenced code (our wrapper and Pygments' spans; the code text and its
  language class are still compared exactly);
- numbered figures (an image alone in its paragraph with a title), turned back into the
  paragraph CommonMark writes, with the caption as the title.
Three examples are plain text in CommonMark but links under GFM's autolink extension, which
the contract asks for; those are asserted with the GFM output instead (GFM_AUTOLINKS).
Three more differ in markdown-it-py itself (a bare ``MarkdownIt("commonmark")`` writes an
empty blockquote on one line); MARKDOWN_IT_PY pins that output, so a change upstream shows.
"""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest

from blogbuild.markdown import create_markdown

SPEC = Path(__file__).parent / "commonmark" / "spec.txt"
FENCE = "`" * 32


def load_examples() -> list[tuple[int, str, str, str]]:
    examples = []
    section = ""
    lines = SPEC.read_text(encoding="utf-8").split("\n")
    i = 0
    number = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("#"):
            section = line.lstrip("#").strip()
        if line.startswith(FENCE + " example"):
            source, expected, part = [], [], "source"
            i += 1
            while not lines[i].startswith(FENCE):
                if lines[i] == ".":
                    part = "expected"
                elif part == "source":
                    source.append(lines[i])
                else:
                    expected.append(lines[i])
                i += 1
            number += 1
            md_text = "\n".join(source).replace("→", "\t")
            html_text = "\n".join(expected).replace("→", "\t")
            examples.append((number, section, md_text + "\n" if source else "",
                             html_text + "\n" if expected else ""))
        i += 1
    return examples


EXAMPLES = load_examples()
_HEADING_ID = re.compile(r"<(h[1-6]) id=\"[^\"]*\">")
_ANCHOR = re.compile(r" <a class=\"heading-anchor\"[^>]*>#</a>")
_CODEBLOCK = re.compile(
    r'<div class="codeblock"[^>]*><div class="codeblock-header">.*?</div>'
    r'<pre class="highlight"><code(?P<cls>[^>]*)>(?P<body>.*?)</code></pre></div>\n',
    re.DOTALL,
)


_FIGURE = re.compile(
    r'<figure class="figure" id="figure-\d+">\n(?P<img><img [^>]*?) />\n'
    r'<figcaption><span class="figure-number">Figure \d+\.</span> (?P<cap>.*?)</figcaption>\n'
    r"</figure>\n",
    re.DOTALL,
)

#: CommonMark example number -> the output under GFM's autolink extension.
GFM_AUTOLINKS = {
    608: '<p>&lt; <a href="https://foo.bar">https://foo.bar</a> &gt;</p>\n',
    611: '<p><a href="https://example.com">https://example.com</a></p>\n',
    612: '<p><a href="mailto:foo@bar.example.com">foo@bar.example.com</a></p>\n',
}


#: Examples where markdown-it-py (not our plugins) differs from the spec, checked in
#: test_markdown_it_py_differences against the bare parser.
MARKDOWN_IT_PY = {
    218: '<p><a href="/url">foo</a></p>\n<blockquote></blockquote>\n',
    239: "<blockquote></blockquote>\n",
    240: "<blockquote></blockquote>\n",
}


def _paragraph_image(match: re.Match[str]) -> str:
    return f'<p>{match.group("img")} title="{match.group("cap")}" /></p>\n'


def _plain_code(match: re.Match[str]) -> str:
    body = re.sub(r"</?span[^>]*>", "", match.group("body"))
    return f"<pre><code{match.group('cls')}>{body}</code></pre>\n"


def normalise(rendered: str) -> str:
    rendered = _HEADING_ID.sub(r"<\1>", rendered)
    rendered = _ANCHOR.sub("", rendered)
    rendered = _FIGURE.sub(_paragraph_image, rendered)
    return _CODEBLOCK.sub(_plain_code, rendered)


def test_spec_is_complete() -> None:
    assert len(EXAMPLES) == 652


@pytest.mark.parametrize(
    ("number", "section", "source", "expected"),
    EXAMPLES,
    ids=[f"{n}-{s}" for n, s, _, _ in EXAMPLES],
)
def test_commonmark_example(number: int, section: str, source: str, expected: str) -> None:
    md = create_markdown()
    expected = GFM_AUTOLINKS.get(number, MARKDOWN_IT_PY.get(number, expected))
    assert normalise(md.render(source)) == expected, html.escape(source)


@pytest.mark.parametrize("number", sorted(MARKDOWN_IT_PY))
def test_markdown_it_py_differences(number: int) -> None:
    from markdown_it import MarkdownIt

    _, _, source, _ = EXAMPLES[number - 1]
    assert MarkdownIt("commonmark").render(source) == MARKDOWN_IT_PY[number]
