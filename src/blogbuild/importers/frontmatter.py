"""Read the front matter other generators write: YAML (`---`), TOML (`+++`) or JSON (`{`)."""

from __future__ import annotations

import json
import re
import tomllib
from typing import Any

import yaml

from blogbuild import yamlcore
from blogbuild.content.frontmatter import MAX_FRONT_MATTER
from blogbuild.importers.model import Line


class BadFrontMatter(ValueError):
    """The front matter cannot be read; args: (message, line)."""

    def __init__(self, message: str, line: int) -> None:
        super().__init__(message, line)
        self.message = message
        self.line = line


_CLOSERS = {"---": re.compile(r"^(?:---|\.\.\.)[ \t]*$"), "+++": re.compile(r"^\+\+\+[ \t]*$")}


def split(text: str) -> tuple[dict[str, Any], list[Line]]:
    """(front matter as data, body lines numbered as in the file) of `text` ("\\n" ends)."""
    text = text.removeprefix("\ufeff")
    lines = text.split("\n")
    if text.endswith("\n"):
        lines.pop()
    first = lines[0].rstrip() if lines else ""
    if first in _CLOSERS:
        closer = _CLOSERS[first]
        end = next((i for i in range(1, len(lines)) if closer.match(lines[i])), None)
        if end is None:
            raise BadFrontMatter(f"the front matter opened with {first!r} is never closed", 1)
        data = _parse("\n".join(lines[1:end]), toml=first == "+++")
    elif first == "{" or first.startswith('{"'):  # not "{% tag %}" or "{{< shortcode >}}"
        end = _json_end(lines)
        try:
            data = json.loads("\n".join(lines[:end + 1]))
        except ValueError as exc:
            raise BadFrontMatter(f"the JSON front matter cannot be read: {exc}", 1) from None
    else:
        return {}, [(i + 1, line) for i, line in enumerate(lines)]
    if not isinstance(data, dict):
        raise BadFrontMatter("the front matter is not a set of 'key: value' pairs", 1)
    return data, [(i + 1, line) for i, line in enumerate(lines) if i > end]


def _json_end(lines: list[str]) -> int:
    """The index of the line that closes a JSON object opened on the first line."""
    depth = 0
    size = 0
    for i, line in enumerate(lines):
        size += len(line)
        depth += line.count("{") - line.count("}")
        if depth <= 0:
            return i
        if size > MAX_FRONT_MATTER:
            break
    raise BadFrontMatter("the JSON front matter opened with '{' is never closed", 1)


def _parse(text: str, *, toml: bool) -> Any:
    if len(text) > MAX_FRONT_MATTER:
        raise BadFrontMatter(f"the front matter is longer than {MAX_FRONT_MATTER:,} "
                             "characters", 1)
    if toml:
        try:
            return tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            line = re.search(r"line (\d+)", str(exc))
            raise BadFrontMatter(f"the TOML front matter cannot be read: {exc}",
                                 int(line[1]) + 1 if line else 1) from None
    try:
        return yamlcore.safe_load(text) or {}
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark
        raise BadFrontMatter(f"the YAML front matter cannot be read: {exc.problem}",
                             mark.line + 2 if mark is not None else 1) from None
    except yaml.YAMLError as exc:
        raise BadFrontMatter(f"the YAML front matter cannot be read: {exc}", 1) from None
