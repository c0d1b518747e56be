"""A notebook's bytes → a plain model in nbformat 4's shape, with a warning for each invalid part.

nbformat is not needed at run time: version 4 is read as it is, version 3 is upgraded as
nbformat's `v4.convert.upgrade` does, and the checks are the parts of the v4 schema that
the model relies on. What is invalid becomes a `Problem` at its line in the file, found by
`Locator` only when there is one, and the rest of the notebook is still read.
"""

from __future__ import annotations

import dataclasses
import json
import re
from typing import Any

from blogbuild.content.notebooks.cells import CellsReader, json_kind
from blogbuild.content.notebooks.locate import Locator
from blogbuild.content.notebooks.model import Cell, Notebook, Output, Problem
from blogbuild.diagnostics import ContentError
from blogbuild.sourcetext import decode_source

__all__ = ["Cell", "Notebook", "Output", "Problem", "read_notebook"]


def read_notebook(data: bytes, file: str) -> Notebook:
    """The notebook in `data`; ContentError if it is not a notebook of version 3 or 4."""
    text = decode_source(data, file)
    try:
        root = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ContentError(f"the notebook is not valid JSON ({exc.msg}, column {exc.colno}); fix "
                           "the file at this line in a text editor (a hand edit or a merge "
                           "conflict often causes this), or save it again from Jupyter",
                           file=file, line=exc.lineno) from None
    except (ValueError, RecursionError) as exc:  # e.g. an integer of over 4,300 digits
        raise ContentError(f"the notebook cannot be read as JSON ({exc}); it is not a file "
                           "Jupyter writes: save the notebook again from Jupyter",
                           file=file) from None
    if not isinstance(root, dict):
        raise ContentError(f"the file holds a JSON {json_kind(root)}, not the object a Jupyter "
                           "notebook is: is this really a notebook?", file=file,
                           line=text[: len(text) - len(text.lstrip())].count("\n") + 1)
    version = root.get("nbformat")
    convert = ("convert it with `jupyter nbconvert --to notebook --nbformat 4 FILE`, which "
               "writes FILE.nbconvert.ipynb")
    if type(version) is not int:
        what = "has no \"nbformat\" version" if version is None else \
            f"has a JSON {json_kind(version)} as its \"nbformat\" version, not a number"
        raise ContentError(f"the file {what}: it is not a Jupyter notebook blogbuild can "
                           f"read; if it is a notebook, open it in Jupyter and save it again",
                           file=file, line=Locator(data).line_at(("nbformat",)))
    if version not in (3, 4):
        age = "older" if version < 3 else "newer"
        raise ContentError(f"this is a notebook of nbformat version {version}, {age} than the "
                           f"versions blogbuild reads (3 and 4); {convert}", file=file,
                           line=Locator(data).line_at(("nbformat",)))
    escape = _SURROGATE_ESCAPE.search(text)
    if escape is None or not _mend_surrogates(root):
        return CellsReader(data, version).notebook(root)
    notebook = CellsReader(data, version).notebook(root)
    line = text.count("\n", 0, escape.start()) + 1
    return dataclasses.replace(notebook, problems=(*notebook.problems, Problem(
        line, "the notebook holds an escaped UTF-16 surrogate (like \\ud800) that is not a "
              "character; it is shown as \ufffd: save the notebook again from Jupyter, or "
              "write the character itself")))


#: A JSON escape of half of a UTF-16 surrogate pair (a whole pair is one character).
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def _mend_surrogates(value: Any) -> bool:
    """Replace, in place, the lone surrogates of the strings in `value` (no page can hold
    one) with U+FFFD; whether there were any. Iterative: the JSON may nest deeply."""
    found = False
    stack: list[Any] = [value]
    while stack:
        item = stack.pop()
        pairs = item.items() if isinstance(item, dict) else enumerate(item) \
            if isinstance(item, list) else ()
        for key, child in list(pairs):
            if isinstance(child, str):
                if _LONE_SURROGATE.search(child):
                    item[key] = _LONE_SURROGATE.sub("\ufffd", child)
                    found = True
            elif isinstance(child, dict | list):
                stack.append(child)
        if isinstance(item, dict):
            for key in [k for k in item if isinstance(k, str) and _LONE_SURROGATE.search(k)]:
                item[_LONE_SURROGATE.sub("\ufffd", key)] = item.pop(key)
                found = True
    return found
