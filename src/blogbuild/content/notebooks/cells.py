"""Reading a notebook's cells and outputs from its JSON, field by field: version 4 as it
is, version 3 upgraded as nbformat's `v4.convert.upgrade` does, and each invalid part a
`Problem` at its line in the file (found by `Locator` only when there is one), the rest
of the notebook still read."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from blogbuild.content.notebooks.locate import Locator, Path
from blogbuild.content.notebooks.model import Cell, Notebook, Output, Problem


def json_kind(value: object) -> str:
    """What JSON calls the type of `value`, for a message."""
    if isinstance(value, bool):
        return "true/false value"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    return "array" if isinstance(value, list) else "object" if isinstance(value, dict) else "null"


# Version 3 output keys for the MIME types nbformat's upgrade knows (`convert._mime_map`).
_V3_MIME = {"text": "text/plain", "html": "text/html", "svg": "image/svg+xml",
            "png": "image/png", "jpeg": "image/jpeg", "latex": "text/latex",
            "json": "application/json", "javascript": "application/javascript"}
_V3_OUTPUT = {"pyout": "execute_result", "pyerr": "error", "stream": "stream",
              "display_data": "display_data"}
_CELL_KINDS = ("markdown", "code", "raw")
_OUTPUT_KINDS = ("stream", "display_data", "execute_result", "error")
_RESAVE = "open the notebook in Jupyter and save it again"
_MISSING = object()


def _is_json_mime(mime: str) -> bool:
    return mime == "application/json" or (mime.startswith("application/")
                                          and mime.endswith("+json"))


def _normalize(source: str) -> str:
    return source.replace("\r\n", "\n").replace("\r", "\n")


class CellsReader:
    """One notebook's reading: the version it is in and the problems found so far."""

    def __init__(self, data: bytes, version: int) -> None:
        self.data = data
        self.v3 = version == 3
        self.version = version
        self.problems: list[Problem] = []
        self.locator: Locator | None = None

    def problem(self, path: Path, message: str) -> None:
        if self.locator is None:  # indexing the file costs a scan: only for a message
            self.locator = Locator(self.data)
        self.problems.append(Problem(self.locator.line_at(path), message))

    def notebook(self, root: dict[str, Any]) -> Notebook:
        metadata = self.mapping(root, "metadata", ("metadata",), "the notebook's metadata",
                                required=True)
        minor = root.get("nbformat_minor")
        if type(minor) is not int:
            self.problem(("nbformat_minor",), f"the notebook has no \"nbformat_minor\" number; "
                         f"it is read as {self.version}.0: {_RESAVE}")
            minor = 0
        cells = []
        for index, raw in enumerate(self.v3_cells(root) if self.v3 else self.v4_cells(root)):
            if (cell := self.cell(raw, index)) is not None:
                cells.append(cell)
        if self.v3:  # as nbformat's upgrade does
            metadata = {k: v for k, v in metadata.items() if k not in ("name", "signature")}
        kernelspec = metadata.get("kernelspec")
        kernelspec = kernelspec if isinstance(kernelspec, dict) else {}
        info = metadata.get("language_info")
        kernel = kernelspec.get("name")
        return Notebook(tuple(cells), metadata, self.version, minor,
                        self.language(kernelspec, info, metadata, root),
                        kernel if isinstance(kernel, str) else "", tuple(self.problems))

    def language(self, kernelspec: dict[str, Any], info: object, metadata: dict[str, Any],
                 root: dict[str, Any]) -> str:
        candidates = [kernelspec.get("language"),
                      info.get("name") if isinstance(info, dict) else None,
                      metadata.get("language")]
        if self.v3:  # version 3 names the language of each code cell
            candidates += [cell.get("language") for cell in self.v3_cells(root, quiet=True)
                           if isinstance(cell, dict) and cell.get("cell_type") == "code"][:1]
        for candidate in candidates:
            if isinstance(candidate, str) and candidate.strip():
                return candidate.strip().lower()
        return "python"

    def v4_cells(self, root: dict[str, Any]) -> list[Any]:
        cells = root.get("cells", _MISSING)
        if isinstance(cells, list):
            return cells
        what = "no \"cells\" list" if cells is _MISSING else \
            f"a JSON {json_kind(cells)} as its \"cells\", not a list"
        self.problem(("cells",), f"the notebook has {what}, so it is read as empty: {_RESAVE}")
        return []

    def v3_cells(self, root: dict[str, Any], *, quiet: bool = False) -> list[Any]:
        worksheets = root.get("worksheets")
        if not isinstance(worksheets, list):
            if not quiet:
                self.problem(("worksheets",), "the version 3 notebook has no \"worksheets\" "
                             f"list, so it is read as empty: {_RESAVE}")
            return []
        cells = []
        for number, sheet in enumerate(worksheets, 1):
            found = sheet.get("cells") if isinstance(sheet, dict) else None
            if isinstance(found, list):
                cells += found
            elif not quiet:
                self.problem(("worksheets", number - 1), f"worksheet {number} has no \"cells\" "
                             f"list, so it is left out: {_RESAVE}")
        return cells

    def cell(self, raw: object, index: int) -> Cell | None:
        number, path = index + 1, ("cells", index)
        if not isinstance(raw, dict):
            self.problem(path, f"cell {number} is a JSON {json_kind(raw)}, not an object, so it "
                         f"is left out: {_RESAVE}")
            return None
        kind = raw.get("cell_type")
        if self.v3 and kind in ("heading", "html"):
            kind = "markdown"
        if kind not in _CELL_KINDS:
            self.problem((*path, "cell_type"), f"cell {number} has the cell_type "
                         f"{self.named(kind)}, not "
                         "markdown, code or raw, so it is left out; change its type in Jupyter "
                         "if it should be shown")
            return None
        metadata = self.mapping(raw, "metadata", (*path, "metadata"), f"the metadata of cell "
                                f"{number}", required=not self.v3)
        key = "input" if self.v3 and kind == "code" else "source"
        source = self.text(raw, key, (*path, key), f"the source of cell {number}", required=True)
        if raw.get("cell_type") == "heading":
            # As nbformat's upgrade, but within Markdown's six levels (a level is any number).
            level = raw.get("level", 1)
            level = min(max(level, 1), 6) if type(level) is int else 1
            source = "#" * level + " " + " ".join(source.splitlines())
        tags = self.tags(metadata, path, number)
        if kind != "code":
            attachments = self.attachments(raw, path, number) if not self.v3 else {}
            return Cell(kind, _normalize(source), number, metadata, tags,
                        attachments=attachments)
        if self.v3 and "collapsed" in raw:
            metadata = {**metadata, "collapsed": raw["collapsed"]}
        outputs = raw.get("outputs", _MISSING)
        if not isinstance(outputs, list):
            what = "no \"outputs\" list" if outputs is _MISSING else \
                f"a JSON {json_kind(outputs)} as its \"outputs\", not a list"
            self.problem((*path, "outputs"), f"cell {number} has {what}, so it is read as "
                         f"having no outputs: "
                         f"{_RESAVE}")
            outputs = []
        count_key = "prompt_number" if self.v3 else "execution_count"
        count = self.count(raw, count_key, (*path, count_key), f"cell {number}",
                           required=not self.v3)
        read = (self.output(raw, (*path, "outputs", j), number) for j, raw in enumerate(outputs))
        return Cell(kind, _normalize(source), number, metadata, tags,
                    tuple(output for output in read if output is not None), count)

    def output(self, raw: object, path: Path, number: int) -> Output | None:
        where = f"output {int(path[-1]) + 1} of cell {number}"
        found = raw.get("output_type") if isinstance(raw, dict) else None
        kind = _V3_OUTPUT.get(found) if self.v3 and isinstance(found, str) else found
        if not isinstance(raw, dict) or kind not in _OUTPUT_KINDS:
            what = f"a JSON {json_kind(raw)}, not an object" if not isinstance(raw, dict) else \
                f"of an output_type blogbuild does not know ({self.named(found)})"
            self.problem((*path, "output_type"), f"{where} is {what}, so it is left out: run "
                         "the cell again in Jupyter and save the notebook")
            return None
        assert isinstance(kind, str)
        if kind == "stream":
            name_key = "stream" if self.v3 else "name"
            name = self.string(raw, name_key, path, where, default="stdout")
            return Output(kind, name=name, text=self.text(raw, "text", (*path, "text"),
                                                          f"the text of {where}", required=True))
        if kind == "error":
            traceback = raw.get("traceback", _MISSING)
            if not isinstance(traceback, list):
                self.wrong((*path, "traceback"), f"the traceback of {where}", traceback,
                           "a list of strings", "it is read as empty")
            lines = traceback if isinstance(traceback, list) else []
            return Output(kind, ename=self.string(raw, "ename", path, where),
                          evalue=self.string(raw, "evalue", path, where),
                          traceback=tuple(line for line in lines if isinstance(line, str)))
        metadata = self.mapping(raw, "metadata", (*path, "metadata"), f"the metadata of {where}",
                                required=not self.v3)
        data = self.v3_bundle(raw, path, where) if self.v3 else \
            self.bundle(raw.get("data", _MISSING), (*path, "data"), f"the data of {where}")
        if self.v3:
            metadata = {_V3_MIME.get(k, k): v for k, v in metadata.items()}
        count = None
        if kind == "execute_result":
            key = "prompt_number" if self.v3 else "execution_count"
            count = self.count(raw, key, (*path, key), where, required=not self.v3)
        return Output(kind, data=data, metadata=metadata, execution_count=count)

    def v3_bundle(self, raw: dict[str, Any], path: Path, where: str) -> dict[str, Any]:
        """A version 3 output's data keys, moved into a bundle under their MIME types."""
        data = {_V3_MIME.get(k, k): v for k, v in raw.items()
                if k not in ("output_type", "prompt_number", "metadata")}
        found = data.get("application/json")
        if isinstance(found, str | list):  # version 3 keeps JSON data as its text
            try:
                data["application/json"] = json.loads(self.joined(found))
            except (ValueError, RecursionError, TypeError):
                self.problem((*path, "json"), f"the JSON data of {where} is not valid JSON, "
                             f"so it is left out: run the cell again in Jupyter")
                del data["application/json"]
        return self.bundle(data, path, f"the data of {where}")

    def bundle(self, value: object, path: Path, what: str) -> dict[str, Any]:
        """A MIME bundle with the lines of its text joined; JSON data kept as it is."""
        if not isinstance(value, dict):
            self.wrong(path, what, value, "an object", "it is read as empty")
            return {}
        bundle: dict[str, Any] = {}
        for mime, item in value.items():
            if _is_json_mime(mime) or isinstance(item, str):
                bundle[mime] = item
            elif isinstance(item, list) and all(isinstance(line, str) for line in item):
                bundle[mime] = self.joined(item)
            else:
                self.problem((*path, mime), f"the {mime} value of {what} is a JSON "
                             f"{json_kind(item)}, not text, so it is left out: {_RESAVE}")
        return bundle

    def attachments(self, raw: dict[str, Any], path: Path,
                    number: int) -> dict[str, Mapping[str, str]]:
        found = self.mapping(raw, "attachments", (*path, "attachments"),
                             f"the attachments of cell {number}", required=False)
        attachments: dict[str, Mapping[str, str]] = {}
        for name, bundle in found.items():
            read = self.bundle(bundle, (*path, "attachments", name),
                               f"the attachment {name!r} of cell {number}")
            attachments[name] = {k: v for k, v in read.items() if isinstance(v, str)}
        return attachments

    def tags(self, metadata: Mapping[str, Any], path: Path, number: int) -> tuple[str, ...]:
        tags = metadata.get("tags", [])
        if not isinstance(tags, list) or not all(isinstance(tag, str) for tag in tags):
            self.problem((*path, "metadata", "tags"), f"the tags of cell {number} are not a "
                         "list of strings; only its strings are read: fix them in Jupyter's "
                         "tag editor")
        return tuple(tag for tag in tags if isinstance(tag, str)) if isinstance(tags, list) \
            else ()

    def text(self, raw: dict[str, Any], key: str, path: Path, what: str, *,
             required: bool) -> str:
        """A string, or a list of strings joined; a problem and "" for anything else."""
        value = raw.get(key, _MISSING)
        if isinstance(value, str):
            return value
        if isinstance(value, list):
            for index, line in enumerate(value):
                if not isinstance(line, str):
                    self.problem((*path, index), f"line {index + 1} of {what} is a JSON "
                                 f"{json_kind(line)}, not a string, so it is left out: {_RESAVE}")
            return self.joined(value)
        if value is not _MISSING or required:
            self.wrong(path, what, value, "a string or a list of strings", "it is read as empty")
        return ""

    def joined(self, lines: str | list[Any]) -> str:
        lines = [lines] if isinstance(lines, str) else [s for s in lines if isinstance(s, str)]
        # Version 3 may have lines written without their line ends (nbformat `_join_lines`).
        if self.v3 and lines and not lines[0].endswith(("\n", "\r")):
            return "\n".join(lines)
        return "".join(lines)

    def string(self, raw: dict[str, Any], key: str, path: Path, where: str,
               default: str = "") -> str:
        value = raw.get(key, _MISSING)
        if isinstance(value, str):
            return value
        self.wrong((*path, key), f"the \"{key}\" of {where}", value, "a string",
                   f"it is read as \"{default}\"")
        return default

    def count(self, raw: dict[str, Any], key: str, path: Path, where: str, *,
              required: bool) -> int | None:
        value = raw.get(key, _MISSING)
        if value is None:
            return None
        if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
            return value
        if value is not _MISSING or required:
            self.wrong(path, f"the {key} of {where}", value, "a count or null",
                       "it is left out")
        return None

    def mapping(self, raw: dict[str, Any], key: str, path: Path, what: str, *,
                required: bool) -> dict[str, Any]:
        value = raw.get(key, _MISSING)
        if isinstance(value, dict):
            return value
        if value is not _MISSING or required:
            self.wrong(path, what, value, "an object", "it is read as empty")
        return {}

    def wrong(self, path: Path, what: str, value: object, expected: str, outcome: str) -> None:
        """A problem with `what`, which is missing or not of the `expected` JSON type."""
        state = "missing" if value is _MISSING else f"a JSON {json_kind(value)}, not {expected}"
        self.problem(path, f"{what} is {state}, so {outcome}: {_RESAVE}")

    @staticmethod
    def named(value: object) -> str:
        """A type name found in the file, quoted and cut short, for a message."""
        if isinstance(value, str):
            return json.dumps(value[:40] + ("…" if len(value) > 40 else ""), ensure_ascii=False)
        return "missing" if value is _MISSING else f"a JSON {json_kind(value)}"
