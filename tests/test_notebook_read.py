"""Notebook files → the model (content/notebooks/read.py): the same cells and outputs as nbformat
reads, lines of cells in the file, warnings for what nbformat's validator rejects, and
nothing but ContentError on any bytes."""

from __future__ import annotations

import base64
import copy
import json
from typing import Any

import nbformat
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from nbformat import v3, v4

from blogbuild.content.notebooks.locate import Locator
from blogbuild.content.notebooks.read import Notebook, Output, read_notebook
from blogbuild.diagnostics import ContentError

PNG = base64.b64encode(bytes(range(256)) * 4).decode()


def v4_notebook() -> nbformat.NotebookNode:
    nb = v4.new_notebook(metadata={
        "kernelspec": {"name": "ir", "language": "R", "display_name": "R"},
        "language_info": {"name": "R"}})
    nb.cells = [
        v4.new_markdown_cell("# Title\n\nSome *text* ![a](attachment:a.png)\n",
                             metadata={"tags": ["intro", "hide"]},
                             attachments={"a.png": {"image/png": PNG}}),
        v4.new_code_cell("x <- 1\nprint(x)\n\nx", execution_count=3, outputs=[
            v4.new_output("stream", name="stdout", text="[1] 1\nmore\n"),
            v4.new_output("stream", name="stderr", text="warning\n"),
            v4.new_output("execute_result", execution_count=3, data={
                "text/plain": "[1] 1\n[2] 2", "text/html": "<b>1</b>\n<i>2</i>\n",
                "application/json": {"a": [1, 2, {"b": None}]},
                "application/vnd.custom+json": ["x", "y"]}),
            v4.new_output("display_data", data={"image/png": PNG, "text/plain": "<Figure>"},
                          metadata={"image/png": {"width": 300}}),
            v4.new_output("error", ename="ValueError", evalue="bad",
                          traceback=["Traceback", "  line 1", "ValueError: bad"]),
        ]),
        v4.new_raw_cell("raw\ntext", metadata={"format": "text/html"}),
        v4.new_code_cell("", execution_count=None),
        v4.new_markdown_cell("one line, no end"),
    ]
    return nb


def v3_notebook() -> nbformat.NotebookNode:
    first = v3.new_worksheet(cells=[
        v3.new_heading_cell("A heading\nover two lines", level=2),
        v3.new_text_cell("markdown", source="Some *text*\nand more\n"),
        v3.new_code_cell(input="import sys\nsys.stdout.write('hi')\n3", prompt_number=4,
                         collapsed=True, outputs=[
                             v3.new_output("stream", output_text="hi\nthere\n", stream="stderr"),
                             v3.new_output("pyout", output_text="3", output_html="<b>3</b>\n",
                                           output_json='{"n": [3]}', prompt_number=4),
                             v3.new_output("display_data", output_png=PNG,
                                           output_text="<img>",
                                           metadata={"png": {"width": 10}}),
                             v3.new_output("pyerr", ename="E", evalue="v",
                                           traceback=["t1", "t2"]),
                         ]),
    ])
    second = v3.new_worksheet(cells=[
        v3.new_text_cell("raw", source="raw one"),
        v3.new_code_cell(input="second = 2", prompt_number=None),
    ])
    return v3.new_notebook(worksheets=[first, second])


def expected(text: str) -> list[Any]:
    """What nbformat reads (as version 4), in the shape `actual` gives."""
    nb = nbformat.reads(text, as_version=4)
    return [(cell.cell_type, cell.source, tuple(cell.metadata.get("tags", [])),
             cell.get("execution_count"),
             [(o.output_type, o.get("name", ""), o.get("text", ""), dict(o.get("data", {})),
               dict(o.get("metadata", {})) if "data" in o else {}, o.get("ename", ""),
               o.get("evalue", ""), tuple(o.get("traceback", [])), o.get("execution_count"))
              for o in cell.get("outputs", [])],
             dict(cell.get("attachments", {})))
            for cell in nb.cells]


def actual(nb: Notebook) -> list[Any]:
    def output(o: Output) -> tuple[Any, ...]:
        return (o.kind, o.name, o.text, dict(o.data), dict(o.metadata), o.ename, o.evalue,
                o.traceback, o.execution_count)

    return [(c.kind, c.source, c.tags, c.execution_count, [output(o) for o in c.outputs],
             dict(c.attachments)) for c in nb.cells]


def v4_text(nb: Any = None) -> str:
    return nbformat.writes(v4_notebook() if nb is None else nb)


def test_v4_reads_as_nbformat_does() -> None:
    text = v4_text()
    nb = read_notebook(text.encode(), "post.ipynb")
    assert actual(nb) == expected(text)
    assert [c.number for c in nb.cells] == [1, 2, 3, 4, 5]
    assert nb.cells[0].tags == ("intro", "hide")
    assert nb.cells[0].attachments == {"a.png": {"image/png": PNG}}
    assert nb.cells[1].outputs[2].data["application/vnd.custom+json"] == ["x", "y"]
    assert nb.cells[1].outputs[3].data["image/png"] == PNG
    assert (nb.nbformat, nb.nbformat_minor, nb.language, nb.kernel) == (4, 5, "r", "ir")
    assert nb.problems == ()


def test_v4_minified_and_lists_of_lines() -> None:
    raw = json.loads(v4_text())
    raw["cells"][1]["outputs"][0]["text"] = ["[1] 1\n", "more\n"]
    minified = json.dumps(raw)
    nb = read_notebook(minified.encode(), "post.ipynb")
    assert actual(nb) == expected(minified)
    assert nb.cells[1].outputs[0].text == "[1] 1\nmore\n"


def test_v3_upgrades_as_nbformat_does() -> None:
    text = nbformat.writes(v3_notebook(), version=3)
    assert '"worksheets"' in text and '"pyout"' in text
    nb = read_notebook(text.encode(), "old.ipynb")
    assert actual(nb) == expected(text)
    assert nb.cells[0].source == "## A heading over two lines"
    assert [c.kind for c in nb.cells] == ["markdown", "markdown", "code", "raw", "code"]
    code = nb.cells[2]
    assert code.metadata["collapsed"] is True
    assert code.execution_count == 4
    assert [o.kind for o in code.outputs] == ["stream", "execute_result", "display_data",
                                              "error"]
    assert code.outputs[0].name == "stderr"
    assert code.outputs[1].data == {"text/plain": "3", "text/html": "<b>3</b>\n",
                                    "application/json": {"n": [3]}}
    assert code.outputs[2].metadata == {"image/png": {"width": 10}}
    assert (nb.nbformat, nb.language, nb.kernel, nb.problems) == (3, "python", "", ())


def test_v3_lines_without_line_ends_are_joined_with_newlines() -> None:
    raw = json.loads(nbformat.writes(v3_notebook(), version=3))
    raw["worksheets"][0]["cells"][2]["input"] = ["a = 1", "b = 2"]
    text = json.dumps(raw, indent=1)
    nb = read_notebook(text.encode(), "old.ipynb")
    assert nb.cells[2].source == "a = 1\nb = 2" == expected(text)[2][1]
    assert Locator(text.encode()).line(3, 2) == line_of(text, '"b = 2"')


def test_byte_order_mark_and_crlf() -> None:
    nb = v4_notebook()
    nb.cells[1].source = "a = 1\r\nb = 2\r\n"
    text = v4_text(nb).replace("\n", "\r\n")
    read = read_notebook(b"\xef\xbb\xbf" + text.encode(), "post.ipynb")
    assert read.cells[1].source == "a = 1\nb = 2\n"
    assert Locator(b"\xef\xbb\xbf" + text.encode()).line(2, 2) == line_of(text, '"b = 2')


@pytest.mark.parametrize(("metadata", "language", "kernel"), [
    ({"kernelspec": {"name": "julia-1.9", "language": "Julia", "display_name": "J"}},
     "julia", "julia-1.9"),
    ({"language_info": {"name": "Python"}}, "python", ""),
    ({"language_info": {"name": "ruby"}}, "ruby", ""),
    ({}, "python", ""),
])
def test_language_and_kernel(metadata: dict[str, Any], language: str, kernel: str) -> None:
    text = v4_text(v4.new_notebook(metadata=metadata))
    nb = read_notebook(text.encode(), "post.ipynb")
    assert (nb.language, nb.kernel, nb.cells) == (language, kernel, ())


# --- files that are not notebooks -------------------------------------------------------


def test_invalid_json_names_line_and_column() -> None:
    lines = v4_text().splitlines()
    at = next(i for i, line in enumerate(lines) if line.endswith('"x <- 1\\n",'))
    lines[at] = lines[at][:-1]  # drop the comma after the first line of cell 2
    indent = len(lines[at + 1]) - len(lines[at + 1].lstrip())
    with pytest.raises(ContentError) as caught:
        read_notebook("\n".join(lines).encode(), "post.ipynb")
    assert caught.value.line == at + 2
    assert caught.value.file == "post.ipynb"
    assert f"(Expecting ',' delimiter, column {indent + 1})" in caught.value.message
    assert "not valid JSON" in caught.value.message


def test_not_utf8_names_the_line() -> None:
    data = v4_text().replace("x <- 1", "x <- \udcff", 1).encode("utf-8", "surrogateescape")
    with pytest.raises(ContentError) as caught:
        read_notebook(data, "post.ipynb")
    assert caught.value.line == line_of(data.decode("latin-1"), "x <- \xff")
    assert "not valid UTF-8" in caught.value.message


@pytest.mark.parametrize(("data", "words"), [
    (b"[1, 2]", "JSON array, not the object"),
    (b"\n\n  \"text\"", "JSON string, not the object"),
    (b'{"cells": []}', 'no "nbformat" version'),
    (b'{"nbformat": "4"}', "JSON string as its \"nbformat\""),
    (b'{"nbformat": 2, "nbformat_minor": 0}', "version 2, older"),
    (b'{"nbformat": 5, "nbformat_minor": 0}', "version 5, newer"),
    (b"[" * 100_000, "cannot be read as JSON"),
    (b'{"nbformat": 4, "n": ' + b"9" * 5000 + b"}", "cannot be read as JSON"),
    (b"\x00\x01\x02\x00" * 40, "binary"),
])
def test_not_a_notebook(data: bytes, words: str) -> None:
    with pytest.raises(ContentError) as caught:
        read_notebook(data, "x.ipynb")
    assert words in caught.value.message


def test_unsupported_version_says_how_to_convert_and_where() -> None:
    with pytest.raises(ContentError) as caught:
        read_notebook(b'{\n "metadata": {},\n "nbformat": 2,\n "worksheets": []\n}', "x.ipynb")
    assert "jupyter nbconvert --to notebook --nbformat 4" in caught.value.message
    assert caught.value.line == 3
    with pytest.raises(ContentError) as caught:
        read_notebook(b"\n\n[]", "x.ipynb")
    assert caught.value.line == 3


# --- Locator -----------------------------------------------------------------------------


def line_of(text: str, needle: str, after: int = 0) -> int:
    """The 1-based line of the first line after line `after` that holds `needle`."""
    lines = text.splitlines()
    return next(i for i in range(after, len(lines)) if needle in lines[i]) + 1


def item_line(text: str, item: str, after: int) -> int:
    """The 1-based line after line `after` that is the JSON string `item`, or begins with
    it (a source written as one string)."""
    lines = text.splitlines()
    return next(i for i in range(after, len(lines))
                if lines[i].lstrip().startswith(json.dumps(item)[:-1])) + 1


def test_locator_finds_each_line_of_each_cell() -> None:
    text = v4_text()
    locator = Locator(text.encode())
    nb = read_notebook(text.encode(), "post.ipynb")
    checked = 0
    for cell in nb.cells:
        found = 0
        for number, line in enumerate(cell.source.split("\n"), 1):
            if not line:
                continue  # an empty line is a string "\n" that appears everywhere
            found = item_line(text, line, found)
            assert locator.line(cell.number, number) == found, (cell.number, number)
            checked += 1
    assert checked == 8
    assert locator.line(2, 99) == 0
    assert locator.line(2, 0) == 0
    assert locator.line(99, 1) == 0


def test_locator_on_a_minified_notebook_and_a_source_string() -> None:
    minified = json.dumps(json.loads(v4_text()))
    assert "\n" not in minified
    locator = Locator(minified.encode())
    assert [locator.line(2, n) for n in (1, 2, 4)] == [1, 1, 1]
    raw = json.loads(v4_text())
    raw["cells"][1]["source"] = "x <- 1\nprint(x)\n\nx"
    text = json.dumps(raw, indent=2)
    assert Locator(text.encode()).line(2, 3) == line_of(text, '"x <- 1\\nprint(x)')


def test_locator_in_a_v3_notebook() -> None:
    text = nbformat.writes(v3_notebook(), version=3)
    locator = Locator(text.encode())
    assert locator.line(3, 2) == line_of(text, "sys.stdout.write")
    assert locator.line(2, 2) == line_of(text, '"and more')
    assert locator.line(5, 1) == line_of(text, '"second = 2"')  # second worksheet


def test_locator_reads_past_large_base64_outputs() -> None:
    nb = v4_notebook()
    image = base64.b64encode(bytes(range(256)) * 3000).decode()
    nb.cells += [v4.new_code_cell(f"plot({i})", outputs=[
        v4.new_output("display_data", data={"image/png": image})]) for i in range(10)]
    data = v4_text(nb).encode()
    assert len(data) > 10_000_000
    assert Locator(data).line(15, 1) == line_of(data.decode(), '"plot(9)"')


# --- validation --------------------------------------------------------------------------


def valid() -> dict[str, Any]:
    raw: dict[str, Any] = json.loads(v4_text())
    return raw


def drop(key: str) -> Any:
    return lambda thing: thing.pop(key)


def put(key: str, value: Any) -> Any:
    return lambda thing: thing.__setitem__(key, value)


# (cell index, output index or None, the change, text on the line the warning names: a
# missing field is named at the "{" that opens its cell or output, the line before its
# first field)
BROKEN = {
    "missing outputs": (1, None, drop("outputs"), ('"cell_type": "code"', -1)),
    "unknown cell type": (2, None, put("cell_type", "widget"), ('"widget"', 0)),
    "bad output_type": (1, 2, put("output_type", "pyout"), ('"pyout"', 0)),
    "outputs an object": (1, None, put("outputs", {}), ('"outputs": {}', 0)),
    "source as a number": (0, None, put("source", 42), ('"source": 42', 0)),
    "number in a source list": (4, None, put("source", ["a\n", 7]), ("   7", 0)),
    "execution_count as text": (1, None, put("execution_count", "3"),
                                ('"execution_count": "3"', 0)),
    "metadata as a list": (2, None, put("metadata", []), ('"metadata": []', 0)),
    "stream without text": (1, 0, drop("text"), ('"name": "stdout"', -1)),
    "a tag that is a number": (0, None, put("metadata", {"tags": ["a", 1]}), ('"tags": [', 0)),
    "data value a number": (1, 3, put("data", {"text/plain": 1}), ('"text/plain": 1', 0)),
    "error without traceback": (1, 4, drop("traceback"), ('"ename": "ValueError"', -1)),
}


@pytest.mark.parametrize("case", sorted(BROKEN))
def test_what_nbformat_rejects_is_a_problem(case: str) -> None:
    cell, output, change, (needle, delta) = BROKEN[case]
    raw = valid()
    target = raw["cells"][cell]
    change(target if output is None else target["outputs"][output])
    with pytest.raises(nbformat.ValidationError):
        nbformat.validate(copy.deepcopy(raw))
    text = json.dumps(raw, indent=1)
    nb = read_notebook(text.encode(), "post.ipynb")
    assert nb.problems, case
    first = nb.problems[0]
    assert f"cell {cell + 1}" in first.message
    assert first.line == line_of(text, needle) + delta


def test_left_out_cells_and_outputs_keep_numbers() -> None:
    raw = valid()
    raw["cells"][2]["cell_type"] = "widget"
    raw["cells"][1]["outputs"][2]["output_type"] = "mystery"
    nb = read_notebook(json.dumps(raw, indent=1).encode(), "post.ipynb")
    assert [c.number for c in nb.cells] == [1, 2, 4, 5]
    assert [o.kind for o in nb.cells[1].outputs] == ["stream", "stream", "display_data",
                                                     "error"]
    assert len(nb.problems) == 2
    assert all("left out" in p.message for p in nb.problems)


def test_broken_parts_are_read_as_far_as_possible() -> None:
    raw = valid()
    raw["cells"][1].pop("outputs")
    raw["cells"][4]["source"] = ["a\n", 7, "b"]
    raw["cells"][0]["metadata"]["tags"] = ["a", 1, "b"]
    nb = read_notebook(json.dumps(raw).encode(), "post.ipynb")
    assert nb.cells[1].outputs == ()
    assert nb.cells[4].source == "a\nb"
    assert nb.cells[0].tags == ("a", "b")
    assert len(nb.problems) == 3
    assert {p.line for p in nb.problems} == {1}  # minified: everything is on line 1


def test_a_broken_v3_output_is_named_at_its_line() -> None:
    raw = json.loads(nbformat.writes(v3_notebook(), version=3))
    raw["worksheets"][1]["cells"][1]["outputs"] = [{"output_type": "execute_result"}]
    raw["worksheets"][0]["cells"][0]["level"] = 10**9
    text = json.dumps(raw, indent=1)
    nb = read_notebook(text.encode(), "old.ipynb")
    assert nb.cells[0].source == "###### A heading over two lines"
    assert nb.cells[4].outputs == ()
    [problem] = nb.problems
    assert problem.line == line_of(text, '"output_type": "execute_result"')
    assert problem.message.startswith("output 1 of cell 5 is of an output_type blogbuild does "
                                      'not know ("execute_result")')


@pytest.mark.parametrize("make", [v4_notebook, lambda: v4.new_notebook()])
def test_a_valid_notebook_has_no_problems(make: Any) -> None:
    text = nbformat.writes(make())
    nbformat.validate(nbformat.reads(text, as_version=4))
    assert read_notebook(text.encode(), "post.ipynb").problems == ()


# --- any bytes ---------------------------------------------------------------------------

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False)
    | st.text(max_size=20) | st.sampled_from(["code", "markdown", "raw", "heading", "stream",
                                             "pyout", "error", "display_data", "text/plain"]),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(
        st.sampled_from(["cells", "source", "input", "outputs", "output_type", "cell_type",
                         "metadata", "tags", "data", "text", "name", "traceback", "level",
                         "attachments", "execution_count", "prompt_number", "worksheets",
                         "kernelspec", "language", "png", "json"]) | st.text(max_size=5),
        inner, max_size=5),
    max_leaves=30)


def check_bounded(data: bytes) -> None:
    try:
        nb = read_notebook(data, "fuzz.ipynb")
    except ContentError:
        pass
    else:
        assert all(p.line >= 0 and p.message for p in nb.problems)
    locator = Locator(data)
    for cell in range(4):
        assert locator.line(cell, 1) >= 0
    assert locator.line_at(("cells", 0, "outputs", 0, "data")) >= 0


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=300))
def test_any_bytes_give_a_notebook_or_content_error(data: bytes) -> None:
    check_bounded(data)


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(JSON, st.sampled_from([3, 4]), st.booleans())
def test_any_json_gives_a_notebook_or_content_error(value: Any, version: int,
                                                    indent: bool) -> None:
    key = "worksheets" if version == 3 else "cells"
    body = [{"cells": value}] if version == 3 else value
    for document in (value, {"nbformat": version, "nbformat_minor": 0, key: body},
                     {"nbformat": version, "metadata": value, key: [value, {"cell_type": "code",
                                                                     "outputs": [value]}]}):
        check_bounded(json.dumps(document, indent=1 if indent else None).encode())


SMALL = nbformat.writes(v4_notebook()).replace(PNG, "iVBORw0KGgo=").encode()


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, len(SMALL)), st.integers(0, 40), st.binary(max_size=8))
def test_a_damaged_notebook_gives_a_notebook_or_content_error(at: int, cut: int,
                                                              insert: bytes) -> None:
    check_bounded(SMALL[:at] + insert + SMALL[at + cut:])


def test_an_escaped_lone_surrogate_is_shown_as_a_replacement_character() -> None:
    text = ('{"cells": [{"cell_type": "markdown", "metadata": {}, "source": "a \\\\ud800 b"},\n'
            ' {"cell_type": "markdown", "metadata": {}, "source": "pair \\\\ud83d\\\\ude00"}],\n'
            ' "metadata": {}, "nbformat": 4, "nbformat_minor": 5}').replace("\\\\", "\\")
    nb = read_notebook(text.encode(), "x.ipynb")
    assert [c.source for c in nb.cells] == ["a \ufffd b", "pair \U0001F600"]
    [problem] = nb.problems
    assert problem.line == 1 and "surrogate" in problem.message
