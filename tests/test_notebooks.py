"""Jupyter notebooks as posts: notebooks written with nbformat, built as a site, and read
back from the pages (parsed HTML, real files), with nbconvert's export as the reference
for the text of every output."""

from __future__ import annotations

import base64
import dataclasses
import io
import re
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import nbformat
import pytest
from nbformat.v4 import (
    new_code_cell,
    new_markdown_cell,
    new_notebook,
    new_output,
    new_raw_cell,
)
from PIL import Image

from blogbuild.commands.build import build
from blogbuild.diagnostics import BuildFailed
from test_search import fragments

ANSI_TRACEBACK = [
    "\x1b[0;31m---------------------------------------------------------------------------\x1b[0m",
    "\x1b[0;31mZeroDivisionError\x1b[0m                         Traceback (most recent call last)",
    "Cell \x1b[0;32mIn[3], line 1\x1b[0m\n\x1b[0;32m----> 1\x1b[0m "
    "\x1b[38;5;241m1\x1b[39m\x1b[38;5;241m/\x1b[39m\x1b[38;5;241m0\x1b[39m",
    "\x1b[0;31mZeroDivisionError\x1b[0m: division by zero",
]


def png(width: int = 640, height: int = 400, color: str = "teal") -> str:
    buffer = io.BytesIO()
    Image.new("RGB", (width, height), color).save(buffer, "PNG")
    return base64.b64encode(buffer.getvalue()).decode("ascii")


def make_site(root: Path, notebooks: dict[str, Any], extra: str = "",
              files: dict[str, str] | None = None) -> Path:
    (root / "content" / "posts").mkdir(parents=True, exist_ok=True)
    (root / "site.yaml").write_text("title: Notebooks\nbase_url: https://example.org/blog/\n"
                                    "search: false\nsocial_cards: false\n" + extra)
    for rel, notebook in notebooks.items():
        path = root / "content" / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        text = notebook if isinstance(notebook, str) else nbformat.writes(notebook)
        path.write_text(text, encoding="utf-8")
    for rel, text in (files or {}).items():
        (root / "content" / rel).write_text(text, encoding="utf-8")
    return root


def front(**keys: str) -> Any:
    """A raw cell of front matter (dated, unless `date` is given)."""
    keys = {"date": "2026-02-01", **keys}
    lines = "\n".join(f"{k}: {v}" for k, v in keys.items())
    return new_raw_cell(f"---\n{lines}\n---")


class Page(HTMLParser):
    """A built page: its elements' attributes by class, and their text."""

    def __init__(self, html: str) -> None:
        super().__init__(convert_charrefs=True)
        self.elements: list[tuple[str, dict[str, str], list[str]]] = []
        self.open: list[tuple[str, dict[str, str], list[str]]] = []
        self.feed(html)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        element = (tag, {k: v or "" for k, v in attrs}, [])
        self.elements.append(element)
        if tag not in ("img", "source", "br", "hr", "meta", "link", "input", "path", "rect",
                       "use", "circle", "line", "polyline", "polygon", "stop"):
            self.open.append(element)

    def handle_endtag(self, tag: str) -> None:
        for i in range(len(self.open) - 1, -1, -1):
            if self.open[i][0] == tag:
                del self.open[i:]
                break

    def handle_data(self, data: str) -> None:
        for element in self.open:
            element[2].append(data)

    def by_class(self, name: str) -> list[tuple[str, dict[str, str], str]]:
        return [(tag, attrs, "".join(text)) for tag, attrs, text in self.elements
                if name in attrs.get("class", "").split()]

    def tags(self, tag: str) -> list[dict[str, str]]:
        return [attrs for t, attrs, _ in self.elements if t == tag]


def page_of(site: Path, url: str) -> tuple[str, Page]:
    html = (site / "_site" / url.strip("/") / "index.html").read_text(encoding="utf-8")
    return html, Page(html)


def test_a_notebook_is_a_post_with_its_stored_outputs(tmp_path: Path) -> None:
    nb = new_notebook(cells=[
        front(title="A notebook", date="2026-03-01", tags="[python]"),
        new_markdown_cell("Intro with $x^2$ and a note[^1].\n\n> [!NOTE]\n> A callout."),
        new_markdown_cell("[^1]: The footnote, defined in another cell."),
        new_code_cell("print('hello')\nimport sys; print('careful', file=sys.stderr)",
                      outputs=[new_output("stream", name="stdout", text="hello\n"),
                               new_output("stream", name="stderr", text="careful\n")]),
        new_code_cell("1/0", outputs=[new_output("error", ename="ZeroDivisionError",
                                                 evalue="division by zero",
                                                 traceback=ANSI_TRACEBACK)]),
        new_code_cell("plot()", outputs=[new_output(
            "display_data", data={"image/png": png(), "text/plain": "<Figure size 640x400>"})]),
        new_code_cell("df", outputs=[new_output("execute_result", data={
            "text/html": '<div><style scoped>.dataframe tbody tr th {vertical-align: top;}'
                         '</style><table border="1" class="dataframe"><thead><tr><th></th>'
                         '<th>a</th></tr></thead><tbody><tr><th>0</th><td>41</td></tr>'
                         "</tbody></table></div>",
            "text/plain": "   a\n0  41"}, execution_count=4)]),
        new_code_cell("Latex(...)", outputs=[new_output("execute_result", data={
            "text/latex": r"$$\frac{a}{b}$$", "text/plain": "<IPython.core.display.Latex object>"},
            execution_count=5)]),
        new_code_cell("Markdown(...)", outputs=[new_output("display_data", data={
            "text/markdown": "**bold** output with $y$", "text/plain": "<Markdown>"})]),
        new_code_cell("{'k': 1}", outputs=[new_output("display_data", data={
            "application/json": {"k": [1, 2]}, "text/plain": "{'k': [1, 2]}"})]),
    ])
    site = make_site(tmp_path, {"posts/2026-03-01-nb.ipynb": nb})
    report = build(site / "site.yaml")
    assert report.diagnostics == []
    html, page = page_of(site, "/posts/nb/")
    assert "<title>A notebook" in html
    assert page.by_class("katex")  # math in a Markdown cell, and in the outputs
    assert page.by_class("callout")
    footnotes = page.by_class("footnote-item")
    assert len(footnotes) == 1 and "defined in another cell" in footnotes[0][2]
    code = page.by_class("codeblock")
    assert code[0][1]["data-lang"] == "python"
    assert [t for _, _, t in page.by_class("nb-stdout")] == ["hello\n"]
    assert "careful" in page.by_class("nb-stderr")[0][2]
    error = page.by_class("nb-error")[0]
    assert "ZeroDivisionError: division by zero" in error[2]
    assert "\x1b" not in html and "[0;31m" not in html
    assert page.by_class("ansi-red-fg")
    figure = page.by_class("nb-figure")[0]
    assert figure[0] == "figure"
    img = [a for a in page.tags("img") if "nb-figure" not in a.get("class", "")][-1]
    assert (img["width"], img["height"]) == ("640", "400")
    src = site / "_site" / img["src"].removeprefix("/blog/")
    with Image.open(src) as picture:
        assert picture.size == (640, 400)
    assert "base64" not in html  # pictures are files beside the page
    table = page.by_class("dataframe")
    assert table and table[0][0] == "table" and "border" not in table[0][1]
    assert "tbody tr th" not in html  # pandas' own style is left out
    assert page.by_class("nb-markdown") and "<strong>bold</strong> output" in html
    assert '"k": [\n' in html.replace("&quot;", '"') or "k" in page.by_class("nb-outputs")[-1][2]
    # Cells and outputs in notebook order.
    order = [html.index(s) for s in ("hello", "ZeroDivisionError", "nb-figure", "dataframe",
                                     "katex-display", "<strong>bold")]
    assert order == sorted(order)


def test_front_matter_in_the_shapes_notebook_tools_write(tmp_path: Path) -> None:
    notebooks = {
        # Quarto: YAML in a first raw cell.
        "posts/2026-01-01-quarto.ipynb": new_notebook(cells=[
            new_raw_cell("---\ntitle: From Quarto\ncategories: [a, b]\n---"),
            new_markdown_cell("Body.")]),
        # A Markdown cell with YAML, and text below it.
        "posts/2026-01-02-md-yaml.ipynb": new_notebook(cells=[
            new_markdown_cell("---\ntitle: YAML in Markdown\n---\nThe text under it.")]),
        # fastpages.
        "posts/2026-01-03-fastpages.ipynb": new_notebook(cells=[
            new_markdown_cell("# From fastpages\n> A summary line.\n\n- toc: true\n"
                              "- badges: true\n- categories: [jupyter, fastai]"),
            new_markdown_cell("Text.")]),
        # None: the first heading, and the date of the file name.
        "posts/2026-01-04-plain.ipynb": new_notebook(cells=[
            new_markdown_cell("# The heading title\n\nText.")]),
    }
    site = make_site(tmp_path, notebooks)
    report = build(site / "site.yaml")
    assert report.diagnostics == []
    _, quarto = page_of(site, "/posts/quarto/")
    assert quarto.by_class("post-title")[0][2].strip() == "From Quarto"
    html, _ = page_of(site, "/posts/md-yaml/")
    assert "YAML in Markdown" in html and "The text under it." in html
    assert "title: YAML" not in html
    html, fast = page_of(site, "/posts/fastpages/")
    assert fast.by_class("post-title")[0][2].strip() == "From fastpages"
    assert 'content="A summary line."' in html
    assert "- toc: true" not in html
    assert (site / "_site" / "tags" / "fastai" / "index.html").is_file()
    html, plain = page_of(site, "/posts/plain/")
    assert plain.by_class("post-title")[0][2].strip() == "The heading title"
    assert "2026-01-04" in html


def test_tags_and_quarto_options_choose_what_is_shown(tmp_path: Path) -> None:
    def cell(n: int, source: str, tags: list[str] | None = None) -> Any:
        c = new_code_cell(f"{source}\nprint('INPUT-{n}')",
                          outputs=[new_output("stream", name="stdout", text=f"OUTPUT-{n}\n")])
        if tags:
            c.metadata["tags"] = tags
        return c

    nb = new_notebook(cells=[
        front(title="Options"),
        cell(1, "", ["remove-cell"]),
        cell(2, "", ["remove-input"]),
        cell(3, "", ["remove-output"]),
        cell(4, "", ["hide-input"]),
        cell(5, "", ["hide-output"]),
        cell(6, "#| echo: false"),
        cell(7, "#| output: false"),
        cell(8, "#| code-fold: true\n#| code-summary: Setup"),
        cell(9, "#| eval: false"),
        cell(10, "#| include: false"),
    ])
    site = make_site(tmp_path, {"posts/options.ipynb": nb})
    assert build(site / "site.yaml").diagnostics == []
    html, page = page_of(site, "/posts/options/")
    shown = set(re.findall(r"(INPUT|OUTPUT)-(\d+)", html))
    expect = {("INPUT", "3"), ("INPUT", "4"), ("INPUT", "5"), ("INPUT", "7"),
              ("INPUT", "8"), ("INPUT", "9"), ("OUTPUT", "2"), ("OUTPUT", "4"),
              ("OUTPUT", "5"), ("OUTPUT", "6"), ("OUTPUT", "8")}
    assert shown == expect
    assert "#|" not in html  # option lines are not code the reader sees
    folds = page.by_class("nb-fold")
    assert [f[0] for f in folds] == ["details"] * 3
    summaries = ["".join(text) for tag, _, text in page.elements if tag == "summary"]
    assert summaries == ["Code", "Output", "Setup"]


def test_scripts_in_outputs_never_run_unless_the_site_allows_them(tmp_path: Path) -> None:
    nb = new_notebook(cells=[
        front(title="Scripts"),
        new_code_cell("x", outputs=[new_output("display_data", data={
            "text/html": '<b onclick="alert(1)">bold</b><script>alert(2)</script>'
                         '<a href="javascript:alert(3)">a link</a>',
            "text/plain": "x"})]),
        # An interactive plot with a static picture stored beside it.
        new_code_cell("fig", outputs=[new_output("display_data", data={
            "text/html": '<div id="plot"></div><script>Plotly.newPlot("plot")</script>',
            "application/vnd.plotly.v1+json": {"data": []},
            "image/png": png(300, 200)})]),
        # A widget and nothing else.
        new_code_cell("slider", outputs=[new_output("display_data", data={
            "application/vnd.jupyter.widget-view+json": {"model_id": "x", "version_major": 2},
            "text/plain": "IntSlider(value=3)"})]),
        new_code_cell("Markdown", outputs=[new_output("display_data", data={
            "text/markdown": "text <img src=x onerror=alert(4)>"})]),
    ])
    site = make_site(tmp_path, {"posts/scripts.ipynb": nb})
    report = build(site / "site.yaml")
    html, page = page_of(site, "/posts/scripts/")
    body = html[html.index('<div class="nb-cell"'):]
    assert "alert(" not in body.replace("onerror=alert(4)&gt;", "")
    assert not any(k.startswith("on") for _, attrs, _ in page.elements for k in attrs)
    assert "javascript:" not in body
    assert "bold" in body and "a link" in body
    # The plot is drawn by the page's own Plotly (data, never its script), its stored PNG
    # shown until then.
    [box] = [attrs for _, attrs, _ in page.by_class("chart-box")]
    assert box["data-chart"] == "plotly"
    assert any(src.endswith(".png") for _, attrs, _ in page.elements
               for src in [attrs.get("src", "")])
    notes = [text for _, _, text in page.by_class("nb-note")]
    assert any("Jupyter widget" in note for note in notes)
    assert "IntSlider" not in body
    assert any("notebooks.scripts" in d.message for d in report.diagnostics)

    allowed = make_site(tmp_path / "allowed", {"posts/scripts.ipynb": nb},
                        extra="notebooks:\n  scripts: true\n")
    build(allowed / "site.yaml")
    html, _ = page_of(allowed, "/posts/scripts/")
    assert "<script>alert(2)</script>" in html  # the author allowed outputs' scripts
    # A chart is drawn by the page's self-hosted library even then: no CDN, no script of
    # the notebook's.
    assert 'Plotly.newPlot("plot")' not in html and 'data-chart="plotly"' in html


def test_bad_notebooks_are_reported_at_their_line(tmp_path: Path) -> None:
    good = nbformat.writes(new_notebook(cells=[new_markdown_cell("# Fine\n\ntext")]))
    broken = good.replace('"cells": [', '"cells": [,', 1)
    line = broken[: broken.index("[,")].count("\n") + 1
    site = make_site(tmp_path, {"posts/2026-01-01-broken.ipynb": broken,
                                "posts/2026-01-01-fine.ipynb": good})
    with pytest.raises(BuildFailed) as failed:
        build(site / "site.yaml")
    [problem] = failed.value.diagnostics
    assert problem.file == "content/posts/2026-01-01-broken.ipynb" and problem.line == line
    assert "not valid JSON" in problem.message and "column" in problem.message


def test_warnings_name_the_cell_and_the_line_of_the_file(tmp_path: Path) -> None:
    nb = new_notebook(cells=[
        front(title="Warnings"),
        new_markdown_cell("Fine text.\n\n> [!NOSUCHKIND]\n> text"),
        new_code_cell("print(1)", outputs=[new_output("stream", name="stdout",
                                                       text="x" * 3_000_000)]),
        new_raw_cell("\\section{LaTeX only}"),
    ])
    nb.cells[2].metadata["tags"] = ["remove-input"]
    text = nbformat.writes(nb)
    site = make_site(tmp_path, {"posts/warn.ipynb": text})
    report = build(site / "site.yaml")
    callout = next(d for d in report.diagnostics if "NOSUCHKIND" in d.message
                   or "callout" in d.message)
    assert callout.message.startswith("cell 2, line 3:")
    lines = text.split("\n")
    assert "[!NOSUCHKIND]" in lines[callout.line - 1]
    assert any("cut" in d.message for d in report.diagnostics)
    assert any("raw cell" in d.message for d in report.diagnostics)
    html, page = page_of(site, "/posts/warn/")
    assert len(html) < 400_000  # 3 MB of printed text is cut
    assert any("Output cut" in t for _, _, t in page.by_class("nb-note"))


def test_nbformat_3_notebooks_are_read(tmp_path: Path) -> None:
    from nbformat import v3

    nb3 = v3.new_notebook(worksheets=[v3.new_worksheet(cells=[
        v3.new_heading_cell("Old notebook", level=1),
        v3.new_text_cell("markdown", source="Some *text*."),
        v3.new_code_cell(input="print(2)", prompt_number=1,
                         outputs=[v3.new_output("stream", output_text="2\n")]),
        v3.new_code_cell(input="x", prompt_number=2,
                         outputs=[v3.new_output("pyout", output_html="<i>rich</i>",
                                                output_text="x", prompt_number=2)]),
    ])])
    site = make_site(tmp_path, {"posts/2026-01-01-old.ipynb": v3.writes_json(nb3)})
    assert build(site / "site.yaml").diagnostics == []
    html, page = page_of(site, "/posts/old/")
    assert page.by_class("post-title")[0][2].strip() == "Old notebook"
    assert "<em>text</em>" in html and "<i>rich</i>" in html
    assert page.by_class("nb-stdout")[0][2] == "2\n"


def test_an_empty_notebook_is_a_warning(tmp_path: Path) -> None:
    site = make_site(tmp_path, {"posts/2026-01-01-empty.ipynb": new_notebook()})
    report = build(site / "site.yaml")
    assert [d.message for d in report.diagnostics] == [
        "the notebook has no cells with text; write the post in it"]


def test_download_and_colab_links(tmp_path: Path) -> None:
    nb = new_notebook(cells=[front(title="Links"), new_markdown_cell("Text.")])
    site = make_site(tmp_path, {"posts/bundle/index.ipynb": nb, "posts/no-links.ipynb":
                                new_notebook(cells=[front(title="None", download="false",
                                                          colab="false")])},
                     extra="notebooks:\n  repository: jane/blog\n  folder: site\n")
    assert build(site / "site.yaml").diagnostics == []
    _, page = page_of(site, "/posts/bundle/")
    links = {a["class"]: a["href"] for a in page.tags("a") if a.get("class", "").startswith("nb-")}
    assert links["nb-download"] == "index.ipynb"
    published = site / "_site" / "posts" / "bundle" / "index.ipynb"
    assert published.read_bytes() == (site / "content/posts/bundle/index.ipynb").read_bytes()
    assert links["nb-colab"] == ("https://colab.research.google.com/github/jane/blog/blob/main/"
                                 "site/content/posts/bundle/index.ipynb")
    _, page = page_of(site, "/posts/no-links/")
    assert not page.by_class("nb-links")


def test_execute_auto_runs_a_notebook_without_outputs(tmp_path: Path) -> None:
    nb = new_notebook(cells=[
        front(title="Run me", execute="auto"),
        new_code_cell("%matplotlib inline\nx = 6 * 7\nprint('answer', x)"),
        new_code_cell("#| echo: false\nprint('only the output')"),
    ])
    nb.metadata["kernelspec"] = {"name": "python3", "language": "python",
                                 "display_name": "Python 3"}
    site = make_site(tmp_path, {"posts/run.ipynb": nb})
    report = build(site / "site.yaml")
    assert report.diagnostics == []
    _, page = page_of(site, "/posts/run/")
    assert [t for _, _, t in page.by_class("nb-stdout")] == ["answer 42\n", "only the output\n"]


def test_a_failing_cell_is_an_error_at_its_cell_and_line(tmp_path: Path) -> None:
    nb = new_notebook(cells=[
        front(title="Fails", execute="always"),
        new_code_cell("a = 1\nb = 0\nprint(a / b)"),
        new_code_cell("raise ValueError('shown')"),
    ])
    nb.cells[2].metadata["tags"] = ["raises-exception"]
    text = nbformat.writes(nb)
    site = make_site(tmp_path, {"posts/fails.ipynb": text})
    with pytest.raises(BuildFailed) as failed:
        build(site / "site.yaml")
    errors = [d for d in failed.value.diagnostics if d.is_error]
    assert len(errors) == 1
    assert errors[0].message.startswith("cell 2, line 3: the cell raised ZeroDivisionError")
    assert "print(a / b)" in text.split("\n")[errors[0].line - 1]


def test_other_kernels_keep_their_outputs_with_a_warning(tmp_path: Path) -> None:
    nb = new_notebook(cells=[
        front(title="Julia", execute="always"),
        new_code_cell("println(1)", outputs=[new_output("stream", name="stdout", text="1\n")]),
    ])
    nb.metadata["kernelspec"] = {"name": "julia-1.10", "language": "julia",
                                 "display_name": "Julia"}
    site = make_site(tmp_path, {"posts/julia.ipynb": nb})
    report = build(site / "site.yaml")
    assert any("only Python notebooks run" in d.message for d in report.diagnostics)
    _, page = page_of(site, "/posts/julia/")
    assert page.by_class("codeblock")[0][1]["data-lang"] == "julia"
    assert page.by_class("nb-stdout")[0][2] == "1\n"


def test_search_indexes_cells_and_outputs_not_base64(tmp_path: Path) -> None:
    nb = new_notebook(cells=[
        front(title="Searchable"),
        new_markdown_cell("Prose word zanzibar."),
        new_code_cell("quokka = 1", outputs=[
            new_output("stream", name="stdout", text="printed wombat\n"),
            new_output("display_data", data={"image/png": png(), "text/plain": "<Figure>"})]),
    ])
    site = make_site(tmp_path, {"posts/search.ipynb": nb})
    (site / "site.yaml").write_text((site / "site.yaml").read_text().replace(
        "search: false", "search: true"))
    (site / "site.yaml").write_text((site / "site.yaml").read_text() + "images: false\n")
    build(site / "site.yaml")
    content = fragments(site / "_site")["/blog/posts/search/"]["content"]
    for word in ("zanzibar", "quokka", "wombat"):
        assert word in content
    assert not re.search(r"[A-Za-z0-9+/]{60,}", content)


def test_rebuilds_are_byte_identical_and_an_edit_renders_again(tmp_path: Path) -> None:
    nb = new_notebook(cells=[front(title="Same"), new_code_cell("p", outputs=[new_output(
        "display_data", data={"image/png": png(), "text/plain": "<Figure>"})])])
    site = make_site(tmp_path, {"posts/same.ipynb": nb})
    build(site / "site.yaml")
    first = {p: p.read_bytes() for p in (site / "_site").rglob("*") if p.is_file()}
    build(site / "site.yaml")
    second = {p: p.read_bytes() for p in (site / "_site").rglob("*") if p.is_file()}
    assert first == second
    nb.cells.append(new_markdown_cell("A new cell, edited in."))
    (site / "content/posts/same.ipynb").write_text(nbformat.writes(nb), encoding="utf-8")
    report = build(site / "site.yaml")
    assert "A new cell, edited in." in page_of(site, "/posts/same/")[0]
    assert report.diagnostics == []


def _nbconvert_outputs(nb: Any) -> list[str]:
    """The text of each output area of nbconvert's HTML export, in order."""
    from nbconvert import HTMLExporter

    html, _ = HTMLExporter().from_notebook_node(nb)
    page = Page(html)
    return [" ".join(text.split()) for _, attrs, text in page.elements
            for text in ["".join(text)]
            if "jp-OutputArea-output" in attrs.get("class", "").split()]


def _our_outputs(page: Page) -> list[str]:
    kinds = ("nb-stream", "nb-error", "nb-html", "nb-text", "nb-result", "nb-markdown")
    found = []
    for _, attrs, text in page.elements:
        classes = attrs.get("class", "").split()
        if any(k in classes for k in kinds):
            text = "".join(text)
            if "nb-stderr" in classes:
                text = text.replace("stderr", "", 1)
            found.append(" ".join(text.split()))
    return found


def test_the_text_of_every_output_is_nbconverts(tmp_path: Path) -> None:
    nb = new_notebook(cells=[
        new_markdown_cell("# Compared"),
        new_code_cell("a", outputs=[new_output("stream", name="stdout", text="line one\n"
                                               "line two\n")]),
        new_code_cell("b", outputs=[new_output("stream", name="stderr", text="a warning\n")]),
        new_code_cell("c", outputs=[new_output("error", ename="ZeroDivisionError",
                                               evalue="division by zero",
                                               traceback=ANSI_TRACEBACK)]),
        new_code_cell("d", outputs=[new_output("execute_result", data={
            "text/plain": "(1, 2, 'three')"}, execution_count=1)]),
        new_code_cell("e", outputs=[new_output("execute_result", data={
            "text/html": "<table><tr><th>x</th><td>1.5</td></tr></table>",
            "text/plain": "x 1.5"}, execution_count=2)]),
        new_code_cell("f", outputs=[new_output("display_data", data={
            "text/markdown": "some *markdown* text"})]),
    ])
    site = make_site(tmp_path, {"posts/2026-01-01-compared.ipynb": nb})
    build(site / "site.yaml")
    _, page = page_of(site, "/posts/compared/")
    ours = _our_outputs(page)
    theirs = _nbconvert_outputs(nb)
    assert len(ours) == len(theirs) == 6
    assert ours == theirs


def test_a_progress_bar_shows_what_the_terminal_showed_last(tmp_path: Path) -> None:
    nb = new_notebook(cells=[front(title="Progress"), new_code_cell("g", outputs=[new_output(
        "stream", name="stdout", text="done\nprogress 10%\rprogress 100%\n")])])
    site = make_site(tmp_path, {"posts/progress.ipynb": nb})
    build(site / "site.yaml")
    _, page = page_of(site, "/posts/progress/")
    assert page.by_class("nb-stdout")[0][2] == "done\nprogress 100%\n"


def test_the_example_blogs_notebook_builds_clean(example_site: Path) -> None:
    html = (example_site / "posts" / "least-squares" / "index.html").read_text()
    page = Page(html)
    [figure] = [text for tag, attrs, text in page.by_class("figure") if tag == "figure"]
    assert figure.strip() == "Figure 1. The points and the fitted line."  # fig-cap, numbered
    assert page.by_class("dataframe")
    assert page.by_class("nb-error") and page.by_class("nb-stderr")
    assert page.by_class("nb-download") and page.by_class("nb-colab")
    assert (example_site / "posts" / "least-squares" / "2025-03-25-least-squares.ipynb").is_file()


def test_runnable_notebooks_run_their_python_cells_in_the_browser(tmp_path: Path) -> None:
    nb = new_notebook(cells=[
        front(title="Runnable", runnable="true"),
        new_code_cell("print(1 + 1)", outputs=[new_output("stream", name="stdout", text="2\n")]),
    ])
    site = make_site(tmp_path, {"posts/runnable.ipynb": nb})
    assert build(site / "site.yaml").diagnostics == []
    html, page = page_of(site, "/posts/runnable/")
    [block] = page.by_class("runnable")
    assert block[1]["data-lang"] == "python"
    assert "print" in block[2] and page.by_class("nb-stdout")  # the stored output stays
    assert "/js/runnable.js" in html


def test_the_render_key_of_a_notebook_that_runs_covers_the_python_and_the_timeout() -> None:
    from blogbuild.config import Config, NotebooksConfig, RunnableConfig
    from blogbuild.fingerprints import digest_of

    stored = nbformat.writes(new_notebook(cells=[new_code_cell("x = 1")])).encode()
    runs = nbformat.writes(new_notebook(cells=[front(title="R", execute="always"),
                                               new_code_cell("x = 1")])).encode()
    config = Config()
    longer = dataclasses.replace(config, runnable=RunnableConfig(timeout=60))
    assert digest_of(runs, longer) != digest_of(runs, config)
    assert digest_of(stored, longer) == digest_of(stored, config)
    site_runs = dataclasses.replace(config, notebooks=NotebooksConfig(execute="auto"))
    assert digest_of(stored, site_runs) != digest_of(stored, config)


def test_an_outputs_script_link_is_a_warning_and_a_missing_attachment_shows_its_alt(
        tmp_path: Path) -> None:
    pasted = new_markdown_cell("Before ![a pasted plot](attachment:plot.png) and "
                               "![gone](attachment:gone.png) after.")
    pasted["attachments"] = {"plot.png": {"image/png": png(200, 100)}}
    nb = new_notebook(cells=[
        front(title="Links"),
        pasted,
        new_code_cell("show()", outputs=[new_output("display_data", data={
            "text/markdown": "[click](javascript:alert(1)) and [fine](https://example.org)"})]),
    ])
    site = make_site(tmp_path, {"posts/links.ipynb": nb})
    report = build(site / "site.yaml")
    messages = sorted(d.message for d in report.diagnostics)
    assert [m.split(":")[0] for m in messages] == ["cell 2, line 1", "cell 3, outputs"]
    assert "would run a script" in messages[1] and "gone.png" in messages[0]
    html, page = page_of(site, "/posts/links/")
    assert "javascript:" not in html and 'href="https://example.org"' in html
    assert "gone after." in html  # the alt text of the missing picture, not a broken <img>
    [img] = [a for a in page.tags("img") if a.get("alt") == "a pasted plot"]
    assert (img["width"], img["height"]) == ("200", "100")
    assert (site / "_site" / img["src"].removeprefix("/blog/")).is_file()


def test_fastpages_flags_quarto_figures_and_latex_over_pictures(tmp_path: Path) -> None:
    nb = new_notebook(cells=[
        new_markdown_cell('# "Colons: in a title"\n> A summary.\n\n- categories: [a]'),
        new_code_cell("#hide\n!pip install x", outputs=[new_output(
            "stream", name="stdout", text="HIDDEN-PIP-LOG\n")]),
        new_code_cell("#collapse-show\nimport numpy"),
        new_code_cell("#| label: fig-two\n#| fig-cap: [First, Second]\nplot()", outputs=[
            new_output("display_data", data={"image/png": png(300, 200)}),
            new_output("display_data", data={"image/png": png(300, 200)})]),
        new_markdown_cell("See [](#fig-two)."),
        new_code_cell("sympy", outputs=[new_output("execute_result", execution_count=1, data={
            "image/png": png(50, 20), "text/latex": r"$\displaystyle \frac{1}{\badmacro}$",
            "text/plain": "1/x"})]),
        new_code_cell("vega", outputs=[new_output("display_data", data={
            "application/vnd.custom.v1+json": {"answer": 42}, "text/plain": "<Custom>"})]),
    ])
    site = make_site(tmp_path, {"posts/2026-01-05-fast.ipynb": nb})
    report = build(site / "site.yaml")  # LaTeX KaTeX cannot typeset in an output: a warning
    assert [d.message.split(":")[0] for d in report.diagnostics] == ["cell 6, outputs"]
    html, page = page_of(site, "/posts/fast/")
    assert "<title>Colons: in a title" in html and "HIDDEN-PIP-LOG" not in html
    assert "#hide" not in html and "#collapse-show" not in html
    [fold] = [attrs for tag, attrs, _ in page.elements if tag == "details"
              and "nb-fold" in attrs.get("class", "")]
    assert "open" in fold
    captions = [t.strip() for tag, _, t in page.by_class("figure") if tag == "figure"]
    assert captions == ["Figure 1. First", "Figure 2. Second"]
    ids = [attrs.get("id") for tag, attrs, _ in page.elements if tag == "figure"]
    assert ids == ["figure-1", "fig-two"]  # the label names the cell's (last) figure
    assert '<a href="#fig-two" class="xref" data-xref="figure">Figure 2</a>' in html
    sympy = page.by_class("nb-markdown")[-1][2]
    assert "badmacro" in sympy  # LaTeX chosen over the PNG, shown as its source here
    assert len([a for a in page.tags("img") if "alt" in a]) == 2  # no PNG for it
    json_block = [t for _, attrs, t in page.by_class("codeblock")
                  if attrs.get("data-lang") == "json"]
    assert json_block and '"answer": 42' in json_block[0]


@pytest.mark.parametrize(("cell", "wrong"), [
    (new_raw_cell("---\ndate: 2026-01-01\ntitle: [a, list]\n---"), "title: [a, list]"),
    (new_raw_cell("\n---\ntitle: Fine\ndate: 2026-13-45\n---"), "date: 2026-13-45"),
    (new_markdown_cell("# A title\n> A summary\n\n- date: not a date"), "- date: not a date"),
])
def test_wrong_front_matter_is_an_error_at_its_cell_and_line(tmp_path: Path, cell: Any,
                                                             wrong: str) -> None:
    text = nbformat.writes(new_notebook(cells=[cell, new_markdown_cell("Text.")]))
    site = make_site(tmp_path, {"posts/front.ipynb": text})
    with pytest.raises(BuildFailed) as failed:
        build(site / "site.yaml")
    [problem] = [d for d in failed.value.diagnostics if d.is_error]
    cell_line = cell.source.split("\n").index(wrong) + 1
    assert problem.message.startswith(f"cell 1, line {cell_line}: "), problem.message
    assert wrong in text.split("\n")[problem.line - 1]


@pytest.mark.server
def test_saving_a_notebook_in_serve_reloads_its_page(tmp_path: Path, start: Any) -> None:
    from serve_helpers import Events, fetch, wait_for

    nb = new_notebook(cells=[front(title="Live"), new_markdown_cell("First words."),
                             new_code_cell("p", outputs=[new_output("stream", name="stdout",
                                                                    text="printed once\n")])])
    site = make_site(tmp_path / "site", {"posts/live.ipynb": nb})
    session = start(site)
    events = Events(session.url, "/blog/posts/live/")
    try:
        events.until("hello")
        nb.cells[1].source = "Second words, saved by Jupyter."
        nb.cells[2].outputs[0].text = "printed twice\n"
        (site / "content/posts/live.ipynb").write_text(nbformat.writes(nb), encoding="utf-8")
        events.until("reload")
        wait_for(lambda: b"printed twice" in fetch(session.url + "posts/live/")[2],
                 "the saved notebook's page")
        page = fetch(session.url + "posts/live/")[2]
        assert b"Second words, saved by Jupyter." in page and b"First words" not in page
        # A figure the saved notebook has now: the page that shows it comes with its file.
        nb.cells[2].outputs.append(new_output("display_data", data={"image/png": png()}))
        (site / "content/posts/live.ipynb").write_text(nbformat.writes(nb), encoding="utf-8")
        events.until("reload")
        wait_for(lambda: b"<picture>" in fetch(session.url + "posts/live/")[2],
                 "the page with the figure")
        shown = Page(fetch(session.url + "posts/live/")[2].decode())
        [img] = [a for a in shown.tags("img") if a.get("alt", "").startswith("Figure")]
        assert fetch(session.url + img["src"].removeprefix("/blog/"))[0] == 200
    finally:
        events.close()


def test_markdown_cells_have_everything_a_post_has(tmp_path: Path) -> None:
    nb = new_notebook(cells=[
        front(title="Everything", bibliography="refs.bib"),
        new_markdown_cell("> [!THEOREM] Small {#thm-small}\n> A statement."),
        new_code_cell("x", outputs=[new_output("stream", name="stdout", text="between\n")]),
        new_markdown_cell("By [](#thm-small), as [@CITEKEY] showed. See [the other post]"
                          "(../2026-01-01-other.md) and [[Other post]].\n\n"
                          '<div class="collapsible" data-label="More">\n\nHidden text.\n\n</div>'
                          "\n\n![A chart](chart.png)"),
    ])
    bib = (Path(__file__).parent / "bib" / "refs.bib").read_text(encoding="utf-8")
    nb.cells[3].source = nb.cells[3].source.replace("CITEKEY", "vaswani2017")
    site = make_site(tmp_path, {"posts/bundle/index.ipynb": nb}, files={
        "posts/2026-01-01-other.md": "---\ntitle: Other post\n---\nSee [the notebook]"
                                     "(bundle/index.ipynb).\n",
        "posts/bundle/refs.bib": bib})
    picture = io.BytesIO()
    Image.new("RGB", (400, 300), "navy").save(picture, "PNG")
    (site / "content/posts/bundle/chart.png").write_bytes(picture.getvalue())
    report = build(site / "site.yaml")
    assert [d for d in report.diagnostics if not d.file.endswith(".bib")] == []
    html, page = page_of(site, "/posts/bundle/")
    assert '<a href="#thm-small" class="xref" data-xref="theorem">Theorem 1</a>' in html
    assert page.by_class("citation") and page.by_class("references")
    assert 'See <a href="/blog/posts/other/">the other post</a>' in html
    assert '<a href="/blog/posts/other/" class="wikilink">Other post</a>' in html
    assert page.by_class("collapsible")[0][0] == "details"
    [chart] = [a for a in page.tags("img") if a.get("alt") == "A chart"]
    assert (chart["width"], chart["height"]) == ("400", "300")
    other = page_of(site, "/posts/other/")[0]
    assert 'href="/blog/posts/bundle/"' in other  # a post links to the notebook's page


def test_review_mends_names_sizes_languages_and_build_time_blocks(tmp_path: Path) -> None:
    pasted = new_markdown_cell("![a plot](<attachment:my plot é.png>)\n\n"
                               '<div class="runnable" data-lang="python" data-execute="build">'
                               "\n\n```python\nprint(6 * 7)\n```\n\n</div>")
    pasted["attachments"] = {"my plot é.png": {"image/png": png(120, 80)}}
    nb = new_notebook(cells=[
        new_raw_cell("---\ntitle: Mends\ndate: 2026-01-01\ndownload: \"yes\"\n---"),
        pasted,
        new_code_cell("x", outputs=[new_output("display_data", metadata={
            "image/png": {"width": True, "height": "300"}}, data={"image/png": png(200, 100)})]),
    ])
    nb.metadata["kernelspec"] = {"name": "wl", "language": 'Wolfram Language" {.x}',
                                 "display_name": "Wolfram"}
    text = nbformat.writes(nb)
    site = make_site(tmp_path, {"posts/mends.ipynb": text})
    report = build(site / "site.yaml")
    [flag] = [d for d in report.diagnostics if "'download'" in d.message]
    assert flag.message.startswith("cell 1, line 4: ")  # the line of the key in its cell
    assert [d for d in report.diagnostics if d is not flag] == []
    html, page = page_of(site, "/posts/mends/")
    [attached] = [a for a in page.tags("img") if a.get("alt") == "a plot"]
    assert (attached["width"], attached["height"]) == ("120", "80")
    [figure] = [a for a in page.tags("img") if a.get("alt", "").startswith("Figure")]
    assert (figure["width"], figure["height"]) == ("200", "100")  # `true` is no width
    assert page.by_class("codeblock")[-1][1]["data-lang"] == "wolfram"
    assert "Output from the build" in html and "42" in html  # a Markdown cell's block ran
