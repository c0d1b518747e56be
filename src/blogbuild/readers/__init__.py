"""Readers: one for each kind of source file, and the one rule for what a document is.

A file under content/ is a document (a post or a page) when a reader reads its suffix;
every other file is an asset, published as it is. A reader turns a document's bytes into
what the build needs of it:

- `info`: its front matter, for the link map that places every document before anything
  renders (the quick look, `fast=True`: a hint the render's full reading corrects);
- `read`: what the Markdown pipeline renders, a `Document`: the front matter and its
  metadata, the text to parse, what the reader adds to the render's environment, and how
  the reader's own messages and files join the render's (`Document.finish`).

Markdown (`.md`, blogbuild.readers.markdown), Jupyter notebooks (`.ipynb`,
blogbuild.readers.notebook) and Quarto documents (`.qmd`, blogbuild.readers.qmd) are built
in, each loaded when a file of its kind is first read; `register` adds another. Nothing
else tests a file's suffix to know what it is.
"""

from __future__ import annotations

import importlib
import posixpath
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from blogbuild.config_model import Config
    from blogbuild.content.frontmatter import FrontMatter, PostMeta
    from blogbuild.content.jobs import SourceJob
    from blogbuild.content.linkmap import DocumentInfo
    from blogbuild.content.records import Execution, Rendered
    from blogbuild.diagnostics import Diagnostic
    from blogbuild.stages.context import Folders


class Reader(Protocol):
    """What reads one kind of document (see the module's docstring)."""

    def info(self, job: SourceJob, data: bytes, *, fast: bool) -> DocumentInfo | None:
        """The document's front matter and title, without rendering; None when the file
        cannot be read as a document (the render says why, at its line)."""
        ...

    def read(self, job: SourceJob, data: bytes, config: Config, folders: Folders) -> Document:
        """The document as the render takes it (`folders`: where what a reader runs may
        keep its results); raises `Unreadable` with the messages that stop it (never
        another exception for anything an author can write)."""
        ...


@dataclass
class Document:
    """A source as its reader hands it to the render (blogbuild.pipeline.render).

    `text` is what the Markdown pipeline parses, `line_offset` the lines of the file above
    it (a message at line N of the text is at line N + line_offset of the file); `env`
    holds what the reader adds to the render's environment; `problems` what reading found
    (warnings: an error stops the reading instead)."""

    file: str  # the file as messages name it
    front: FrontMatter
    meta: PostMeta
    text: str
    line_offset: int = 0
    env: dict[str, Any] = field(default_factory=dict)
    problems: list[Diagnostic] = field(default_factory=list)
    #: What reading ran at build time (a notebook's cells), if anything.
    execution: Execution | None = None

    def at_front(self, diagnostic: Diagnostic) -> Diagnostic:
        """A message about a line of the front matter, at that line in the file."""
        return diagnostic

    def finish(self, rendered: Rendered, cited: tuple[Diagnostic, ...],
               page_url: str | None = None) -> tuple[Rendered, tuple[Diagnostic, ...]]:
        """The render of `text` as the page shows it (at `page_url`, None for a document
        no link map placed), and every message about the file: `cited` is what the
        document's bibliography said, at the file's lines (`at_front`)."""
        from blogbuild.diagnostics import warning

        notes = tuple(self.at_front(warning(self.file, line, note))
                      for line, note in self.meta.notes)
        return rendered, (*self.problems, *notes, *cited, *rendered.diagnostics)


class Unreadable(Exception):
    """The file cannot be rendered: `diagnostics` say why, each at its line."""

    def __init__(self, *diagnostics: Diagnostic) -> None:
        super().__init__(diagnostics)
        self.diagnostics = diagnostics


#: The built-in readers: suffix -> the module whose `READER` reads it (imported when a
#: file of its kind is first read: a build of Markdown posts never loads the notebook's).
_BUILT_IN = {".md": "blogbuild.readers.markdown", ".ipynb": "blogbuild.readers.notebook",
             ".qmd": "blogbuild.readers.qmd"}
_READERS: dict[str, Reader | str] = dict(_BUILT_IN)
#: The built-in readers loaded so far, by suffix.
_LOADED: dict[str, Reader] = {}
#: What messages call a file of each suffix ("a folder named like a Markdown file").
_KINDS = {".md": "Markdown", ".ipynb": "Jupyter notebook", ".qmd": "Quarto"}
#: The suffixes, for str.endswith (remade when one is registered).
_suffixes: tuple[str, ...] = tuple(_READERS)


def register(suffix: str, reader: Reader, *, kind: str = "") -> None:
    """Read the files ending in `suffix` (".qmd") with `reader`; `kind` is what messages
    call such a file ("Quarto")."""
    global _suffixes
    if not suffix.startswith(".") or "/" in suffix:
        raise ValueError(f"a document suffix starts with '.' and names no folder: {suffix!r}")
    _READERS[suffix] = reader
    _KINDS[suffix] = kind or suffix
    _suffixes = tuple(_READERS)


def unregister(suffix: str) -> None:
    """Stop reading `suffix` as documents (a built-in one goes back to its reader)."""
    global _suffixes
    if suffix in _BUILT_IN:
        _READERS[suffix] = _BUILT_IN[suffix]
    else:
        _READERS.pop(suffix, None)
        _KINDS.pop(suffix, None)
    _suffixes = tuple(_READERS)


def suffix_of(name: str) -> str | None:
    """The document suffix `name` (a path or a file name) ends with; None for an asset."""
    if not name.endswith(_suffixes):
        return None
    return next(suffix for suffix in _suffixes if name.endswith(suffix))


def fingerprint() -> str:
    """What reads each suffix (a reader registered or replaced changes what a build
    renders): the suffix and the reader's module (a built-in one) or class and `version`.
    Loads no reader."""
    parts = []
    for suffix, reader in _READERS.items():
        what = _BUILT_IN.get(suffix) if reader is _LOADED.get(suffix) else reader
        if not isinstance(what, str):
            what = (f"{type(reader).__module__}.{type(reader).__qualname__}"
                    f":{getattr(reader, 'version', '')}")
        parts.append(f"{suffix}\0{what}")
    return "\n".join(parts)


def kind_of(name: str) -> str:
    """What messages call the document `name` ("Markdown"); "" for an asset."""
    suffix = suffix_of(name)
    return _KINDS[suffix] if suffix is not None else ""


def is_document(name: str) -> bool:
    """Whether the file `name` (a path or a file name) is a post or a page."""
    return name.endswith(_suffixes)


def stem(rel: str) -> str:
    """A document's file name without its suffix (`2024-01-02-hello` of
    `posts/2024-01-02-hello.md`); any other name without its last suffix."""
    name = posixpath.basename(rel)
    suffix = suffix_of(name)
    return name[: -len(suffix)] if suffix else posixpath.splitext(name)[0]


def reader_for(rel: str) -> Reader:
    """The reader of the document `rel`; raises KeyError for a file no reader reads."""
    suffix = suffix_of(rel)
    if suffix is None:
        raise KeyError(rel)
    reader = _READERS[suffix]
    if isinstance(reader, str):
        reader = _READERS[suffix] = _LOADED[suffix] = importlib.import_module(reader).READER
    return reader


def read_info(rel: str, kind: str, display: str, data: bytes, path_stem: str = "", *,
              fast: bool = False) -> DocumentInfo | None:
    """`reader_for(rel).info(…)` of a file given by its parts; `path_stem`: the stem of its
    file when not that of `rel` (the file name is what may hold a date)."""
    from pathlib import Path

    from blogbuild.content.jobs import SourceJob

    name = f"{path_stem}{suffix_of(rel)}" if path_stem else posixpath.basename(rel)
    job = SourceJob(Path(name), rel, kind, display)
    return reader_for(rel).info(job, data, fast=fast)
