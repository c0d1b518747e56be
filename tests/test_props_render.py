"""Property tests: Markdown-ish text from each plugin's syntax renders fast, stably, and whole."""

from __future__ import annotations

import html
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from blogbuild.markdown import create_markdown
from blogbuild.pipeline.render import render_markdown

MD = create_markdown()

#: The syntax of each plugin, as pieces to shuffle between words. None of them can hide a
#: word on purpose (no HTML comments, no link reference definitions), so every word of the
#: input must appear in the HTML: as text, in an attribute, or in a formula's TeX source.
ALPHABETS: dict[str, list[str]] = {
    "math": ["$", "$$", "\\(", "\\)", "\\[", "\\]", "\n$$\n", "\\begin{align}", "\\end{align}",
             "\\begin{equation}", "\\end{equation}", "&", "\\\\", "\\label{a}", "\\eqref{a}",
             " ", "\n", "\n\n", "{", "}", "^", "_"],
    "callouts": ["> ", "> [!NOTE]\n", "> [!TIP]- ", "> [!WARNING]+ ", ">", "\n", "\n\n",
                 "> > [!PROOF]\n", " "],
    "divs": ['<div class="collapsible" data-label="More">\n\n',
             '<div class="runnable">\n\n', "</div>\n\n", "\n\n", "\n", " ", "```python\n",
             "```\n", '<div class="collapsible" markdown="1">'],
    # No lone backticks: "```" + words would be an info string, which is not text.
    "fences": ["```\n", "~~~\n", "````\n", "```python\n", "    ", "\n", "\n\n", " ", "> "],
    "links": ["[", "]", "](", ")", "![", "<", ">", "(", " ", "\n", "https://", "www.", "*",
              "_", "**"],
    "footnotes": ["[^a]", "[^b]", " ", "\n", "\n\n", "    ", "*", "["],
    "headings": ["# ", "## ", "### ", "\n", "\n\n", " ", "#", "=\n", "---\n", "`"],
    "tables": ["|", " | ", "\n", "|-|-|\n", "| --- |", ":-:", " ", "\n\n", "`", "\\|"],
    "nesting": ["> ", "- ", "  ", "1. ", "* ", "\n", " ", "[", "]", "*", "_"],
    # An id stands after a statement's title or an image: a paragraph that is all `{…}` is
    # a kramdown attribute list, which the attribute plugin reads (and warns about).
    "xrefs": ["> [!THEOREM] ", "> [!LEMMA]- ", "> [!PROOF]\n", "> [!REMARK] R {#t1}\n",
              "> [!THEOREM] {#t2}\n",
              "[](#t1)", "[](#t2)", "[](#zz)", "[", "](#t1)", "![a](x.png \"c\"){#t2}",
              "\n$$\nx \\label{eq:t1}\n$$\n", "# ", "> ", "|", "|-|\n", "- ", "\n",
              "\n\n", " "],
}


#: The footnote plugin drops a definition that nothing references and all but one of two
#: definitions of a label (known gaps, see docs/development.md): each label is defined
#: once, at the end, with words of its own.
SUFFIX = {"footnotes": "\n\n[^a]: zqdefa\n\n[^b]: zqdefb\n"}


@st.composite
def documents(draw: st.DrawFn, alphabet: list[str]) -> tuple[str, list[str]]:
    pieces = draw(st.lists(st.one_of(st.sampled_from(alphabet), st.just("WORD")),
                           min_size=1, max_size=60))
    words: list[str] = []
    out = []
    for piece in pieces:
        if piece == "WORD":
            words.append(f"zqw{len(words)}x")
            out.append(f" {words[-1]} ")
        else:
            out.append(piece)
    return "".join(out), words


def _check(doc: str, words: list[str]) -> None:
    start = time.perf_counter()
    first = render_markdown(MD, doc, file="prop.md", extract_title=True)
    assert time.perf_counter() - start < 5
    again = render_markdown(MD, doc, file="prop.md", extract_title=True)
    assert again == first
    shown = html.unescape(first.html) + " " + (first.title or "") + " " + (first.subtitle or "")
    # Words of a code block's info string that nothing reads are named in a warning.
    shown += " ".join(d.message for d in first.diagnostics if "does not read" in d.message)
    # GFM drops table cells past the header's columns: a warning says so.
    dropped = any("more cells than" in d.message for d in first.diagnostics)
    missing = [w for w in words if w not in shown and not dropped]
    assert not missing, f"lost {missing} from {doc!r}:\n{first.html}"


def _property(name: str) -> None:
    @settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(documents(ALPHABETS[name]))
    def run(case: tuple[str, list[str]]) -> None:
        doc, words = case
        suffix = SUFFIX.get(name, "")
        prefix = "[^a] [^b]\n\n" if suffix else ""
        _check(prefix + doc + suffix, words + [w for w in suffix.split() if w.startswith("zq")])

    run()


@pytest.mark.parametrize("plugin", ["math", "callouts", "divs", "fences", "links", "footnotes",
                                    "headings", "tables", "nesting", "xrefs"])
def test_plugin_syntax(plugin: str) -> None:
    _property(plugin)


@settings(max_examples=15, deadline=None)
@given(st.sampled_from(["> ", "- ", "* ", "[", "![", "<div class=\"collapsible\">\n\n"]),
       st.sampled_from([50, 500, 5000]))
def test_deep_nesting_keeps_the_text(marker: str, depth: int) -> None:
    if marker.startswith(("> ", "<div")):
        doc = marker * depth + " zqw0x\n"
    else:
        doc = "".join("  " * i + marker + f"zqw{i}x\n" for i in range(min(depth, 300)))
    words = sorted(set(w for w in doc.split() if w.startswith("zqw")))
    _check(doc, [w.lstrip("[!*-") for w in words])
