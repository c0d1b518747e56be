"""Vega and Vega-Lite specs as a page takes them: read from JSON, their data made inline,
checked against the limits, and described in words (a chart's accessible name and
description, and the text search finds).

A spec is data, never code: nothing in it is run by the build but by the Vega renderer,
which loads nothing (its data must be in the spec or in a file of the site beside the
document, which is read and put in the spec). A URL to another site, or any other URL the
renderer would load, is refused with a message saying what to do.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any

from blogbuild.charts.embedded import DEPTH_LIMIT, TooDeep, finite, merged
from blogbuild.urls import has_scheme

#: Characters of a spec's JSON, its inline data included, that a page carries at most
#: (the page holds it for the live chart). Altair refuses more than 5,000 rows by default,
#: about 0.5 MB for a few columns; a larger spec is refused with a message.
SPEC_LIMIT = 2_000_000
#: The data formats of a file a spec names, by its suffix, as Vega reads them.
_FORMATS = {".json": "json", ".csv": "csv", ".tsv": "tsv", ".topojson": "topojson",
            ".geojson": "json", ".arrow": ""}


@dataclass(frozen=True)
class Spec:
    """A spec ready to draw: its kind ("vega-lite" or "vega"), the spec with its data
    inline, and its words."""

    kind: str
    spec: dict[str, Any]
    title: str = ""
    description: str = ""
    #: The titles of its axes and legends, and its fields' names (search finds them).
    words: tuple[str, ...] = ()


class SpecError(ValueError):
    """Why a spec cannot be drawn, in words for the author; `line` is the line of the
    spec's text it names (1-based), 0 when none."""

    def __init__(self, message: str, line: int = 0) -> None:
        super().__init__(message)
        self.line = line


def parse(text: str) -> Any:
    """The JSON of `text`; raises SpecError naming the line of a syntax error."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise SpecError(f"the spec is not valid JSON: {exc.msg} (line {exc.lineno}, "
                        f"column {exc.colno})", exc.lineno) from None
    except RecursionError:
        raise SpecError("the spec is nested too deeply to read") from None


def kind_of(value: Any, default: str) -> str:
    """"vega" or "vega-lite": what the spec's `$schema` says, else `default`."""
    schema = value.get("$schema") if isinstance(value, dict) else None
    if isinstance(schema, str):
        if "/vega-lite/" in schema:
            return "vega-lite"
        if "/vega/" in schema:
            return "vega"
    return default


#: Reads a file of the site named by a spec, relative to the document: its bytes, or None
#: when there is no such file (or it is outside the site).
ReadFile = Callable[[str], "bytes | None"]


def prepared(value: Any, kind: str, read: ReadFile | None = None) -> Spec:
    """`value` as a spec to draw (see the module's docstring); raises SpecError."""
    if not isinstance(value, dict):
        raise SpecError("a chart's spec must be a JSON object ({…}), as Vega-Lite's "
                        "examples are")
    try:  # a copy the inlining may change; NaN and Infinity (which JSON has not) null
        spec = finite(value)
    except TooDeep:
        raise SpecError(f"the spec is nested more than {DEPTH_LIMIT} levels deep") from None
    _inline(spec, read)
    size = len(json.dumps(spec, separators=(",", ":")))
    if size > SPEC_LIMIT:
        raise SpecError(f"the chart's spec with its data is {size:,} characters, over the "
                        f"limit of {SPEC_LIMIT:,}; aggregate the data or draw a sample of it "
                        "(in Altair: alt.Chart(df.sample(5000)))")
    if kind == "vega-lite":
        _check_marks(spec)
    title, subtitle = _title(spec.get("title"))
    description = spec.get("description")
    description = " ".join(description.split()) if isinstance(description, str) else ""
    words = tuple(dict.fromkeys(w for w in (subtitle, *_guide_words(spec)) if w))
    return Spec(kind, spec, title, description, words)


#: Vega-Lite's marks (its renderer's message for another is a JavaScript error).
MARKS = ("arc", "area", "bar", "boxplot", "circle", "errorband", "errorbar", "geoshape",
         "image", "line", "point", "rect", "rule", "square", "text", "tick", "trail")


def _check_marks(spec: dict[str, Any]) -> None:
    """Raise SpecError naming a mark Vega-Lite does not have (`"mark": "lin"`)."""
    for view in _views(spec):
        mark = view.get("mark")
        name = mark.get("type") if isinstance(mark, dict) else mark
        if mark is not None and name not in MARKS:
            import difflib

            close = difflib.get_close_matches(str(name), MARKS, n=1)
            hint = f"did you mean {close[0]!r}? " if close else ""
            raise SpecError(f"Vega-Lite has no mark {name!r}; {hint}its marks are "
                            f"{', '.join(MARKS)}")


#: Where a spec holds views of its own: Vega-Lite's layers and concatenations, a facet's or
#: repeat's `spec`, Vega's group marks.
_COMPOSED = ("layer", "hconcat", "vconcat", "concat", "marks")


def _views(spec: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """The spec and every view inside it, outer first."""
    todo: list[Any] = [spec]
    while todo:
        item = todo.pop(0)
        if not isinstance(item, dict):
            continue
        yield item
        for key in _COMPOSED:
            if isinstance(item.get(key), list):
                todo.extend(item[key])
        if isinstance(item.get("spec"), dict):
            todo.append(item["spec"])


def _inline(spec: Any, read: ReadFile | None) -> None:
    """Put the data of every `url` the spec names in the spec (`values`)."""
    for holder in _url_holders(spec):
        url = holder["url"]
        if not isinstance(url, str):
            raise SpecError("a chart's data `url` must be a string")
        if has_scheme(url) or url.startswith(("/", "\\")) or ".." in PurePosixPath(url).parts:
            raise SpecError(
                f"the chart loads its data from {url!r}, which the page cannot load (charts "
                "load nothing from other sites); save the data in a file beside the post "
                "and name it, e.g. \"data\": {\"url\": \"cars.json\"}")
        data = read(url) if read is not None else None
        if data is None:
            raise SpecError(f"the chart's data file {url!r} was not found beside the "
                            "document; put it there or give the data inline (`values`)")
        suffix = PurePosixPath(url).suffix.lower()
        if _FORMATS.get(suffix, "") == "":
            raise SpecError(f"the chart's data file {url!r} is not JSON, CSV or TSV; "
                            "convert it to one of those")
        text = data.decode("utf-8", "replace")
        form = holder.setdefault("format", {})
        if not isinstance(form, dict):
            raise SpecError("a chart's data `format` must be an object")
        form.setdefault("type", _FORMATS[suffix])
        holder["values"] = text if form["type"] in ("csv", "tsv") else parse(text)
        del holder["url"]


def _url_holders(spec: Any) -> Iterator[dict[str, Any]]:
    """Every data source of the spec that names a `url`: the objects under a `data` key
    (Vega-Lite's `data`, a lookup's `from.data`, Vega's list of `data`), not inside inline
    rows (a row's field may be called `url`), nor an encoding channel called `url`."""
    todo: list[tuple[Any, bool]] = [(spec, False)]
    while todo:
        item, is_data = todo.pop()
        if isinstance(item, dict):
            if is_data and "url" in item:
                yield item
            todo.extend((v, k == "data") for k, v in item.items()
                        if k not in ("values", "usermeta", "encoding"))
        elif isinstance(item, list):
            todo.extend((v, is_data) for v in item)


def _title(value: Any) -> tuple[str, str]:
    """(title, subtitle) of a spec's `title` (a string, lines, or {text, subtitle})."""
    def text(part: Any) -> str:
        if isinstance(part, list):
            part = " ".join(str(p) for p in part if isinstance(p, str | int | float))
        return " ".join(part.split()) if isinstance(part, str) else ""

    if isinstance(value, dict):
        return text(value.get("text")), text(value.get("subtitle"))
    return text(value), ""


_CHANNELS = ("x", "y", "x2", "y2", "color", "fill", "stroke", "size", "shape", "theta",
             "radius", "row", "column", "facet", "opacity", "text")


def _guide_words(spec: dict[str, Any]) -> Iterator[str]:
    """The titles of a Vega-Lite spec's axes and legends (a field's title, else its name),
    its layers' and views' too; a Vega spec's axes' and legends' titles."""
    for view in _views(spec):
        encoding = view.get("encoding")
        if isinstance(encoding, dict):
            for channel in _CHANNELS:
                found = encoding.get(channel)
                if isinstance(found, dict):
                    yield _title(found.get("title"))[0] or _text(found.get("field"))
        for guide in ("axes", "legends"):
            for one in view.get(guide) or () if isinstance(view.get(guide), list) else ():
                if isinstance(one, dict):
                    yield _title(one.get("title"))[0]


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def with_config(spec: dict[str, Any], theme: dict[str, Any]) -> dict[str, Any]:
    """`spec` as the build draws it in `theme`: the theme's configuration under the spec's
    own (what the author configured wins), without its links (`href` channels and
    properties: the renderer cannot draw them without a browser; the live chart has them)."""
    own = spec.get("config")
    return {**_unlinked(spec), "config": merged(theme, own if isinstance(own, dict) else {})}


def _unlinked(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: v if k == "values" else _unlinked(v)  # inline rows: the data as it is
                for k, v in value.items() if k != "href"}
    if isinstance(value, list):
        return [_unlinked(v) for v in value]
    return value
