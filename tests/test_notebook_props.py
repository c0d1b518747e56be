"""Property tests: random notebooks render without a crash, the same twice, and with no script.

Cells and outputs are drawn from the shapes Jupyter writes (streams with ANSI escapes and
carriage returns, HTML, Markdown, LaTeX, SVG, JSON, errors), with hostile fragments mixed
into their text, cell tags and Quarto `#|` lines. Each notebook is rendered in-process with
the default config (notebooks.scripts off) and its HTML parsed with html5lib."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import html5lib
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from blogbuild.config import Config
from blogbuild.content.records import RenderResult
from blogbuild.pipeline.render import SourceJob, render_source

CONFIG = Config()
JOB = SourceJob(Path("content/posts/2024-01-01-x.ipynb"), "posts/2024-01-01-x.ipynb", "post",
                "content/posts/2024-01-01-x.ipynb")
PROPS = settings(max_examples=60, deadline=None,
                 suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

NASTY = [
    "<script>alert(1)</script>", "<img src=x onerror=alert(1)>", '<a href="javascript:alert(1)">',
    '<a href=" JaVa\tScRiPt:alert(1)">l</a>', "<svg onload=alert(1)>", "</div>", "<div>",
    '<iframe src="data:text/html,x">', "<style>*{}</style>", "<!--", "-->", "]]>", "&amp;",
    "&#x6a;avascript:x", "$", "$$", "\\(", "```", "~~~", "> ", "- ", "# ", "[^1]", "*", "_",
    "`", "|", "\\", "{{7*7}}", "{% raw %}", "café 图", "\u2028", "\x00", "\x0b", "word",
]
ANSI = ["\x1b[0;31m", "\x1b[1m", "\x1b[0m", "\x1b[38;5;241m", "\x1b[48;2;1;2;3m", "\x1b[",
        "\x1b[99999999m", "\x1b]8;;javascript:alert(1)\x1b\\", "\r", "\r\n", "\n", "\b", "\x07"]
SVG_NASTY = [
    "<script>alert(1)</script>", '<rect onclick="alert(1)" width="1" height="1"/>',
    '<a href="javascript:alert(1)"><text>t</text></a>',
    '<a xlink:href="javascript:alert(1)"><text>u</text></a>',
    '<set attributeName="onmouseover" to="alert(1)"/>',
    '<animate attributeName="href" to="javascript:alert(1)"/>',
    '<foreignObject><iframe src="javascript:alert(1)"></iframe></foreignObject>',
    '<image href="data:image/svg+xml,x"/>', "<g>", "</g>", "<text>word</text>", "&lt;",
]
TAGS = ["remove-cell", "remove-input", "remove-output", "hide-input", "hide-output",
        "raises-exception", "unknown-tag", "<script>"]
OPTIONS = ["#| echo: false", "#| output: false", "#| include: false", "#| code-fold: true",
           "#| code-fold: show", '#| code-summary: "<script>alert(1)</script>"',
           "#| eval: false", "#| error: true", '#| fig-cap: "<img src=x onerror=alert(1)>"',
           '#| fig-alt: "\\" onerror=\\"alert(1)"', "#| label: fig-x", "#| echo: [",
           "#|", "#| : :"]

text = st.lists(st.sampled_from(NASTY), max_size=6).map("".join)
#: The author's own cells: raw HTML in Markdown passes through by design (as in a .md post),
#: so `<` is escaped the Markdown way (and a backslash before it too, or `\\<` would be an
#: escaped backslash and raw HTML); the outputs, written by libraries, are the attack.
author_text = text.map(lambda s: s.replace("\\", "\\\\").replace("<", "\\<"))
stream_text = st.lists(st.one_of(st.sampled_from(ANSI), st.sampled_from(NASTY)),
                       max_size=10).map("".join)
svg = st.lists(st.sampled_from(SVG_NASTY), max_size=5).map(
    lambda parts: '<svg xmlns="http://www.w3.org/2000/svg" '
                  'xmlns:xlink="http://www.w3.org/1999/xlink" onload="alert(1)">'
                  + "".join(parts) + "</svg>")
json_value = st.recursive(st.one_of(st.none(), st.booleans(), st.integers(), text),
                          lambda inner: st.one_of(st.lists(inner, max_size=3),
                                                  st.dictionaries(text, inner, max_size=3)),
                          max_leaves=8)
bundle = st.fixed_dictionaries({}, optional={
    "text/plain": text, "text/html": text, "text/markdown": text,
    "text/latex": st.sampled_from(["$x^2$", "$$\\frac{a}{b}$$", "\\href{javascript:alert(1)}{x}",
                                   "$\\unknown{$", "\\begin{align}", "$<script>$"]),
    "image/svg+xml": svg, "application/json": json_value,
})


@st.composite
def outputs(draw: st.DrawFn) -> dict[str, Any]:
    kind = draw(st.sampled_from(["stream", "display_data", "execute_result", "error"]))
    if kind == "stream":
        return {"output_type": "stream", "name": draw(st.sampled_from(["stdout", "stderr"])),
                "text": draw(stream_text)}
    if kind == "error":
        return {"output_type": "error", "ename": draw(text), "evalue": draw(text),
                "traceback": draw(st.lists(stream_text, max_size=3))}
    out: dict[str, Any] = {"output_type": kind, "metadata": {}, "data": draw(bundle)}
    if kind == "execute_result":
        out["execution_count"] = draw(st.integers(1, 99))
    return out


@st.composite
def cells(draw: st.DrawFn) -> dict[str, Any]:
    kind = draw(st.sampled_from(["markdown", "code", "code", "raw"]))
    metadata: dict[str, Any] = {}
    # Tags and options hide what they tag: one cell in four has some, so most outputs show.
    if draw(st.integers(0, 3)) == 0:
        metadata["tags"] = draw(st.lists(st.sampled_from(TAGS), min_size=1, max_size=2))
    if kind == "code":
        lines = [draw(text)]
        if draw(st.integers(0, 3)) == 0:
            lines[:0] = draw(st.lists(st.sampled_from(OPTIONS), min_size=1, max_size=3))
        return {"cell_type": "code", "execution_count": None, "metadata": metadata,
                "source": "\n".join(lines),
                "outputs": draw(st.lists(outputs(), min_size=1, max_size=3))}
    return {"cell_type": kind, "metadata": metadata, "source": draw(author_text)}


@st.composite
def notebooks(draw: st.DrawFn) -> bytes:
    body = draw(st.lists(cells(), min_size=1, max_size=5))
    first = {"cell_type": "raw", "metadata": {},
             "source": "---\ntitle: " + json.dumps(draw(text) or "T") + "\n---"}
    nb = {"cells": [first, *body], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    return json.dumps(nb, indent=1).encode("utf-8")


def render(data: bytes) -> RenderResult:
    result = render_source(JOB, CONFIG, data)
    messages = [d.message for d in result.diagnostics]
    if result.rendered is not None:
        messages += [d.message for d in result.rendered.diagnostics]
    assert not [m for m in messages if "internal error" in m], messages
    return result


def _local(name: str) -> str:
    return name.rsplit("}", 1)[-1].lower()


#: Attributes a browser follows or loads as a URL (HTML and SVG).
_URL_ATTRIBUTES = frozenset({"href", "src", "action", "formaction", "poster", "background",
                             "data", "srcset", "cite", "ping", "values", "to", "from", "by"})


def _runs_code(value: str) -> bool:
    squeezed = re.sub(r"[\x00-\x20]", "", value).lower()
    return squeezed.startswith(("javascript:", "vbscript:", "data:text/html"))


def assert_no_script(html: str) -> None:
    doc = html5lib.parse(html, namespaceHTMLElements=False)
    for el in doc.iter():
        if not isinstance(el.tag, str):
            continue  # a comment
        assert _local(el.tag) not in ("script", "iframe", "object", "embed"), el.tag
        for key, value in el.attrib.items():
            name = _local(key)
            assert not name.startswith("on"), (el.tag, key, value)
            if name in _URL_ATTRIBUTES:  # text elsewhere (data-lang="javascript:x") runs nothing
                assert not _runs_code(value), (el.tag, key, value)
        if _local(el.tag) in ("set", "animate"):
            assert not _local(el.get("attributeName", "")).startswith("on"), el.attrib


@PROPS
@example(json.dumps({"cells": [{"cell_type": "markdown", "metadata": {}, "source":
                                "\\\\\\<img src=x onerror=alert(1)>"}],
                     "metadata": {}, "nbformat": 4, "nbformat_minor": 5}).encode())
@given(notebooks())
def test_random_notebooks_render_the_same_twice_and_run_no_script(data: bytes) -> None:
    first = render(data)
    second = render(data)
    assert first.rendered is not None, first.diagnostics
    assert second.rendered is not None
    assert first.rendered.html == second.rendered.html
    assert first.rendered.feed_html == second.rendered.feed_html
    assert_no_script(first.rendered.html)
    if first.rendered.feed_html:
        assert_no_script(first.rendered.feed_html)


@PROPS
@given(st.lists(outputs(), min_size=1, max_size=6))
def test_outputs_of_one_cell_run_no_script(found: list[dict[str, Any]]) -> None:
    nb = {"cells": [{"cell_type": "raw", "metadata": {}, "source": "---\ntitle: T\n---"},
                    {"cell_type": "code", "execution_count": 1, "metadata": {},
                     "source": "x", "outputs": found}],
          "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    result = render(json.dumps(nb).encode("utf-8"))
    assert result.rendered is not None, result.diagnostics
    assert_no_script(result.rendered.html)


@PROPS
@given(st.binary(max_size=200) | st.text(max_size=200).map(str.encode)
       | st.recursive(st.one_of(st.none(), st.integers(), st.text(max_size=5)),
                      lambda inner: st.lists(inner, max_size=3)
                      | st.dictionaries(st.sampled_from(["cells", "cell_type", "source",
                                                         "outputs", "nbformat", "metadata",
                                                         "data", "output_type", "text"]),
                                        inner, max_size=4),
                      max_leaves=12).map(lambda v: json.dumps(v).encode()))
def test_any_bytes_are_a_diagnostic_never_a_crash(data: bytes) -> None:
    render(data)


def _svg_notebook(depth: int) -> bytes:
    svg_text = ('<svg xmlns="http://www.w3.org/2000/svg">' + "<g>" * depth
                + "<text>deep</text>" + "</g>" * depth + "</svg>")
    nb = {"cells": [{"cell_type": "raw", "metadata": {}, "source": "---\ntitle: T\n---"},
                    {"cell_type": "code", "execution_count": 1, "metadata": {}, "source": "x",
                     "outputs": [{"output_type": "display_data", "metadata": {},
                                  "data": {"image/svg+xml": svg_text}}]}],
          "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    return json.dumps(nb).encode("utf-8")


def test_a_deeply_nested_svg_output_is_a_diagnostic() -> None:
    result = render(_svg_notebook(1000))
    messages = [d.message for d in result.diagnostics]
    assert any("nested too deeply" in m for m in messages), messages
    assert not any("internal error" in m for m in messages)


def test_an_output_warning_names_its_cell_once() -> None:
    nb = {"cells": [{"cell_type": "raw", "metadata": {}, "source": "---\ntitle: T\n---"},
                    {"cell_type": "code", "execution_count": 1, "metadata": {}, "source": "x",
                     "outputs": [{"output_type": "stream", "name": "stdout",
                                  "text": "x" * 200_000}]}],
          "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    result = render(json.dumps(nb).encode("utf-8"))
    [cut] = [d.message for d in result.diagnostics if "cut" in d.message]
    assert cut.startswith("cell 2, outputs: an output is longer than the page shows")


def test_a_fence_language_that_reads_like_a_url_is_text() -> None:
    """Found by the property test: a language "javascript:x" (an entity in the info string)
    is the text of data-lang, which nothing follows."""
    nb = {"cells": [{"cell_type": "markdown", "metadata": {},
                     "source": "```&#x6a;avascript:x\nalert(1)\n```"}],
          "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    result = render(json.dumps(nb).encode("utf-8"))
    assert result.rendered is not None
    assert 'data-lang="javascript:x"' in result.rendered.html
    assert_no_script(result.rendered.html)
