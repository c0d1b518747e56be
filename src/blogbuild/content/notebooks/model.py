"""A notebook as blogbuild reads it (blogbuild.content.notebooks.read): a plain model in
nbformat 4's shape."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Output:
    """One output of a code cell; which fields are set depends on `kind`."""

    kind: str  # "stream" | "display_data" | "execute_result" | "error"
    name: str = ""  # stream: "stdout" | "stderr"
    text: str = ""  # stream
    # MIME type -> str (lists of lines joined); JSON MIME types keep their parsed value.
    data: Mapping[str, Any] = field(default_factory=dict)
    metadata: Mapping[str, Any] = field(default_factory=dict)
    ename: str = ""
    evalue: str = ""
    traceback: tuple[str, ...] = ()
    execution_count: int | None = None


@dataclass(frozen=True)
class Cell:
    """One cell of a notebook, as nbformat 4 has it."""

    kind: str  # "markdown" | "code" | "raw"
    source: str  # lines joined, "\n" line ends
    number: int  # 1-based position among all the cells of the file, left-out ones included
    metadata: Mapping[str, Any]
    tags: tuple[str, ...]
    outputs: tuple[Output, ...] = ()
    execution_count: int | None = None
    # Markdown and raw cells: file name -> {MIME type: base64 data}.
    attachments: Mapping[str, Mapping[str, str]] = field(default_factory=dict)


@dataclass(frozen=True)
class Problem:
    """A part of the notebook that is invalid: what is wrong and what to do, for a warning."""

    line: int  # 1-based line in the .ipynb file (0 unknown)
    message: str


@dataclass(frozen=True)
class Notebook:
    """A notebook read from its file: its cells, metadata, language and problems."""

    cells: tuple[Cell, ...]
    metadata: Mapping[str, Any]
    nbformat: int  # the file's own version (3 or 4); the model has version 4's shape either way
    nbformat_minor: int
    language: str  # lower-case
    kernel: str  # metadata.kernelspec.name, or ""
    problems: tuple[Problem, ...]
