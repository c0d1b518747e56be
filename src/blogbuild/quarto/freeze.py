"""Quarto's freeze folder: the outputs a `quarto render` kept of a document's cells.

`_freeze/<the file's path without its suffix>/execute-results/html.json` holds the
document as Quarto's engine wrote it (`result.markdown`): each cell it ran a `::: {.cell}`
div holding its code (```` ``` {.python .cell-code} ````) and one div per output
(`::: {.cell-output .cell-output-stdout}`, `-stderr`, `-error`, `-display`); the pictures
it names (`<stem>_files/figure-html/NAME`) are kept beside it, in `figure-html/`. The
outputs are read here as a notebook's are (blogbuild.content.notebooks.model.Output), cell
by cell in order, for blogbuild.quarto.cells to give each cell of the source its own.

A Quarto blog keeps `_freeze/` at its root: here beside site.yaml (where `blogbuild import
quarto` puts it), or inside content/ (a folder whose name starts with `_` is not
published).
"""

from __future__ import annotations

import base64
import json
import re
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from blogbuild.content.notebooks.model import Output
from blogbuild.quarto import freeze_folders

#: The largest freeze file read (a document's outputs, HTML tables included).
FREEZE_LIMIT = 50_000_000

_DIV_OPEN = re.compile(r" {0,3}:{3,}\s*\{(.*)\}\s*")  # attributes may hold braces (lightbox)
_DIV_CLOSE = re.compile(r" {0,3}:{3,}\s*")
_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})\s*(.*)")
_CLASS = re.compile(r"(?<![^\s{])\.([\w-]+)")
_IMAGE = re.compile(r"!\[((?:[^\[\]\\]|\\.)*)\]\(<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\)"
                    r"(\{[^{}\n]*\})?")
_IMAGE_ATTRS = re.compile(r"(!\[(?:[^\[\]\\]|\\.)*\]\([^()\n]*\))\{[^{}\n]*\}")
_SIZE = re.compile(r"\b(width|height)\s*=\s*\"?(\d+)(?:px)?\"?")
_MIMES = {".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg",
          ".gif": "image/gif", ".svg": "image/svg+xml"}


@dataclass
class Freeze:
    """What a freeze file says: the outputs of each cell Quarto ran, in order."""

    shown: str  # the file as messages name it (from the site folder)
    cells: list[list[Output]] = field(default_factory=list)
    #: Whether each cell shows its code (echo): which cell of the source it is.
    echoed: list[bool] = field(default_factory=list)
    #: Files read (path from the site folder -> digest): the render's inputs.
    inputs: dict[str, str] = field(default_factory=dict)
    #: What could not be read (a picture it names that is not there), for a warning.
    problems: list[str] = field(default_factory=list)
    markdown: str = ""  # result.markdown


def freeze_candidates(root: Path, content_dir: str, rel: str) -> list[Path]:
    """Where the freeze file of the document `rel` (from content/) may be, in order."""
    stem = PurePosixPath(rel).with_suffix("").as_posix()
    tail = Path(*f"{stem}/execute-results/html.json".split("/"))
    return [folder / tail for folder in freeze_folders(root, content_dir)]


def read_freeze(root: Path, content_dir: str, rel: str) -> Freeze:
    """The freeze of `rel` (`shown` is "" when there is none: every place it may be is
    noted among the inputs all the same, so one made later renders the document again)."""
    from blogbuild.bib.library import MISSING, digest_of

    inputs: dict[str, str] = {}
    for path in freeze_candidates(root, content_dir, rel):
        shown = path.relative_to(root).as_posix()
        try:
            data = path.read_bytes() if path.stat().st_size <= FREEZE_LIMIT else b""
        except OSError:
            inputs[shown] = MISSING
            continue
        inputs[shown] = digest_of(data)
        freeze = Freeze(shown, inputs=inputs)
        markdown = _markdown(data)
        if markdown is None:
            freeze.problems.append(f"{shown} is not a freeze file Quarto writes (it holds "
                                   "no result.markdown); it is not used")
            freeze.cells = []
            return freeze
        freeze.markdown = markdown
        reader = _Reader()
        for line in markdown.split("\n"):
            reader.line(line)
        freeze.echoed = reader.echoed
        freeze.cells = [[output for kind, lines in cell
                         for output in _outputs(kind, lines, path.parent.parent, root, freeze)]
                        for cell in reader.cells]
        return freeze
    return Freeze("", inputs=inputs)


def _markdown(data: bytes) -> str | None:
    try:
        root: Any = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return None
    result = root.get("result") if isinstance(root, dict) else None
    markdown = result.get("markdown") if isinstance(result, dict) else None
    return markdown if isinstance(markdown, str) else None


class _Reader:
    """The cells of a freeze's Markdown, line by line: the `.cell` divs in order, and the
    lines of each output div in them (code fences are passed over whole); what a cell
    holds outside its code and output divs (`output: asis`) is an output of Markdown."""

    def __init__(self) -> None:
        self.cells: list[list[tuple[str, list[str]]]] = []
        self.echoed: list[bool] = []
        self.stack: list[str] = []  # "cell", "output" or "div", innermost last
        self.output: tuple[str, list[str]] | None = None
        self.fence = ""
        self.code = False  # in the fence of a cell's code

    def line(self, line: str) -> None:
        if self.fence:
            stripped = line.strip()
            closed = stripped.startswith(self.fence) and not stripped.strip(self.fence[0])
            if not self.code:
                self.keep(line)
            self.fence, self.code = ("", False) if closed else (self.fence, self.code)
            return
        fence = _FENCE.fullmatch(line)
        if fence is not None:
            self.fence = fence[1]
            self.code = self.stack[-1:] == ["cell"] and "cell-code" in fence[2]
            if self.code:
                self.echoed[-1] = True
                return
        elif (opened := _DIV_OPEN.fullmatch(line)) is not None:
            self.open(set(_CLASS.findall("{" + opened[1] + "}")))
            if self.stack[-1] == "div" and self.output is not None:
                self.output[1].append(line)
            return
        elif _DIV_CLOSE.fullmatch(line) and self.stack:
            if not self.close() and self.output is not None:
                self.output[1].append(line)
            return
        self.keep(line)

    def keep(self, line: str) -> None:
        """A line of the output being read, or of the Markdown a cell holds itself."""
        if self.output is not None:
            self.output[1].append(line)
        elif self.stack[-1:] == ["cell"]:
            cell = self.cells[-1]
            if not cell or cell[-1][0] != "markdown":
                cell.append(("markdown", []))
            cell[-1][1].append(line)

    def open(self, classes: set[str]) -> None:
        kind = next((c[len("cell-output-"):] for c in sorted(classes)
                     if c.startswith("cell-output-")), None)
        if "cell" in classes and self.output is None:
            self.stack.append("cell")
            self.cells.append([])
            self.echoed.append(False)
        elif kind and self.output is None and "cell" in self.stack:
            self.stack.append("output")
            self.output = (kind, [])
            self.cells[-1].append(self.output)
        else:
            self.stack.append("div")

    def close(self) -> bool:
        """Close the innermost div; whether it was a cell's or an output's."""
        top = self.stack.pop()
        if top == "output":
            self.output = None
        return top != "div"


def _fenced(lines: list[str]) -> tuple[str, str] | None:
    """(info, text) of the first code fence of `lines`, None when they hold none."""
    for i, line in enumerate(lines):
        fence = _FENCE.fullmatch(line)
        if fence is None:
            continue
        body = []
        for inner in lines[i + 1:]:
            stripped = inner.strip()
            if stripped.startswith(fence[1]) and not stripped.strip(fence[1][0]):
                break
            body.append(inner)
        return fence[2].strip(), "\n".join(body)
    return None


def _outputs(kind: str, lines: list[str], folder: Path, root: Path,
             freeze: Freeze) -> list[Output]:
    """One output div as notebook outputs (a display div may show several pictures)."""
    fenced = _fenced(lines)
    text = fenced[1] if fenced is not None else "\n".join(lines).strip("\n")
    if kind == "markdown":  # not in an output div: Markdown the cell printed
        text = "\n".join(lines).strip("\n")
        return [Output("display_data", data={"text/markdown": text})] if text.strip() else []
    if kind in ("stdout", "stderr"):
        return [Output("stream", name=kind, text=text + "\n")]
    if kind == "error":
        return [Output("error", traceback=(text,))]
    if fenced is not None and fenced[0].replace(" ", "") in ("{=html}", "=html"):
        return [Output("display_data", data={"text/html": fenced[1]})]
    if fenced is not None and fenced[0].replace(" ", "") in ("{=latex}", "{=tex}"):
        return [Output("display_data", data={"text/latex": fenced[1]})]
    images = list(_IMAGE.finditer("\n".join(lines)))
    if images and all("_files/" in match[2] for match in images):  # the freeze's own
        return [found for match in images
                if (found := _picture(match, folder, root, freeze)) is not None]
    if fenced is not None:
        return [Output("execute_result", data={"text/plain": fenced[1]})]
    # Pandoc's attributes of a picture (`{width=120px}`) are no Markdown of this site.
    text = _IMAGE_ATTRS.sub(r"\1", text)
    return [Output("display_data", data={"text/markdown": text})] if text.strip() else []


def _picture(match: re.Match[str], folder: Path, root: Path, freeze: Freeze) -> Output | None:
    """A picture a display output names, read from the freeze folder."""
    from urllib.parse import unquote

    from blogbuild.bib.library import MISSING, digest_of

    alt, target, attrs = match[1], unquote(match[2]), match[3] or ""
    _, found, rest = target.partition("_files/")
    mime = _MIMES.get(PurePosixPath(target).suffix.lower())
    parts = PurePosixPath(rest).parts
    if not found or mime is None or not parts or ".." in parts or rest.startswith("/"):
        freeze.problems.append(f"the picture {target!r} of {freeze.shown} is not one of its "
                               "PNG, JPEG, GIF or SVG files; it is left out")
        return None
    path = folder.joinpath(*parts)
    shown = path.relative_to(root).as_posix()
    try:
        data = path.read_bytes()
    except OSError:
        freeze.inputs[shown] = MISSING
        freeze.problems.append(f"the picture {shown} that {freeze.shown} names is not "
                               "there; it is left out (copy the whole _freeze folder)")
        return None
    freeze.inputs[shown] = digest_of(data)
    value = data.decode("utf-8", "replace") if mime == "image/svg+xml" else \
        base64.b64encode(data).decode("ascii")
    size = {key: int(number) for key, number in _SIZE.findall(attrs)}
    return Output("display_data", data={mime: value, "text/plain": alt.replace("\\", "")},
                  metadata={mime: size} if size else {})
