"""Bokeh documents as a page carries them: read from what Bokeh writes, never by running
it, for BokehJS to draw in the reader's browser.

Bokeh writes a document's JSON (`docs_json`) and where its roots go (`render_items`) into
a script that calls `Bokeh.embed.embed_items`: `bokeh.embed.components` and a notebook's
`show()` (its `application/javascript` output, beside `application/vnd.bokehjs_exec.v0+json`)
as a JavaScript value, `file_html` in a `<script type="application/json">` the script
reads by its id. Both are read here as JSON.

A document is data, but some of its models are code or HTML that BokehJS runs or inserts
(CustomJS callbacks, a Div's HTML, HTMLTemplateFormatter, a hover tool's HTML template):
those are shown only when the site runs notebook scripts (`scripts=True`), as that
setting says. Models that load from another site (AjaxDataSource, tile sources, Google
Maps, imported style sheets, ImageURL) are refused. A document written by a Bokeh whose
major version is not BokehJS_MAJOR (the BokehJS the site carries) is refused too: BokehJS
reads only documents of its own major version.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from markdown_it.common.utils import escapeHtml

from blogbuild.charts.embedded import (
    INLINE_LIMIT,
    Problem,
    Script,
    TooDeep,
    compact_size,
    decode_at,
    finite,
    loads,
    script_json,
    scripts_of,
    too_large,
)

__all__ = ["BOKEHJS_MAJOR", "EXEC_MIME", "LOAD_MIME", "Document", "data_json",
           "document_from_bundle", "document_from_html", "note_html"]

EXEC_MIME = "application/vnd.bokehjs_exec.v0+json"
LOAD_MIME = "application/vnd.bokehjs_load.v0+json"
#: The major version of the BokehJS the site carries (vendor/bokeh).
BOKEHJS_MAJOR = 3
#: Bokeh's default plot size (Plot.width and Plot.height), which its JSON leaves out.
PLOT_SIZE = 600
_PLOTS = frozenset({"Figure", "Plot", "GMapPlot", "GMap"})
_STRETCH = frozenset({"stretch_width", "stretch_both", "scale_width", "scale_both"})

#: Models that run the author's JavaScript or insert the author's HTML.
_ACTIVE = frozenset({"Div", "HTML", "HTMLTemplateFormatter"})
_ACTIVE_PREFIX = "CustomJS"
#: Models that load from another site.
_LOADING = frozenset({"AjaxDataSource", "ServerSentDataSource", "WebDataSource",
                      "WMTSTileSource", "TMSTileSource", "QUADKEYTileSource",
                      "BBoxTileSource", "MercatorTileSource", "TileRenderer", "GMapPlot",
                      "GMap", "ImportedStyleSheet", "GlobalImportedStyleSheet", "ImageURL"})

_DOCS = re.compile(r"\bdocs_json\s*=\s*")
_ITEMS = re.compile(r"\brender_items\s*=\s*")
_BY_ID = re.compile(r"""document\s*\.\s*getElementById\(\s*(['"])([^'"]*)\1\s*\)\s*\.\s*"""
                    r"textContent")
_HEX = re.compile(r"[0-9a-fA-F]{2}(?:[0-9a-fA-F]{2})?")
_JS_ESCAPES = {"n": "\n", "r": "\r", "t": "\t", "b": "\b", "f": "\f", "v": "\v", "0": "\0"}


@dataclass(frozen=True)
class Document:
    """A Bokeh document ready for a page: the Bokeh version that wrote it, its
    `docs_json` and `render_items` as Bokeh wrote them, the ids of its roots, its size in
    CSS px (the root's, 0 when it takes its column's width or states none) and title."""

    version: str
    docs_json: dict[str, Any]
    render_items: list[dict[str, Any]]
    root_ids: list[str] = field(default_factory=list)
    width: int = 0
    height: int = 0
    title: str = ""


def document_from_bundle(data: Mapping[str, Any], metadata: Mapping[str, Any], *,
                         scripts: bool = False) -> Document | Problem | None:
    """The document of a notebook output that Bokeh's `show()` made (its script beside
    EXEC_MIME), a Problem when it cannot be shown, None when the output is no Bokeh
    document (BokehJS's loader, LOAD_MIME, is none)."""
    if EXEC_MIME not in data:
        return None
    exec_meta = metadata.get(EXEC_MIME)
    if isinstance(exec_meta, Mapping) and "server_id" in exec_meta:
        return Problem("the output is a Bokeh server app, which draws only while its "
                       "server runs; show the plot with bokeh.io.show(plot) instead")
    script = _text(data.get("application/javascript"))
    if _DOCS.search(script):
        return _one(list(_documents([Script("", "", script)])), scripts)
    page = _text(data.get("text/html"))
    found = document_from_html(page, scripts=scripts) if page else None
    if found is not None:
        return found
    return Problem("the Bokeh output holds no document (its script is missing); run the "
                   "cell again and save the notebook")


def _text(value: Any) -> str:
    """A MIME bundle's text form (a notebook may keep it as a list of lines)."""
    if isinstance(value, list) and all(isinstance(line, str) for line in value):
        return "".join(value)
    return value if isinstance(value, str) else ""


def document_from_html(html_text: str, *, scripts: bool = False) -> Document | Problem | None:
    """The document of the HTML Bokeh writes (`components`, `file_html`, a notebook's
    output), None when no script of it embeds a Bokeh document."""
    found = list(_documents(scripts_of(html_text)[0]))
    return _one(found, scripts) if found else None


def _one(found: list[Document | Problem], scripts: bool) -> Document | Problem:
    if len(found) > 1:
        return Problem(f"the output embeds {len(found)} Bokeh documents and a page shows "
                       "one per output; show each plot in a cell of its own, or put them "
                       "in one layout (bokeh.layouts.column)")
    if isinstance(found[0], Problem):
        return found[0]
    return _checked(found[0], scripts)


def _documents(scripts: list[Script]) -> Iterator[Document | Problem]:
    """Each document a script embeds, with the JSON scripts it may name by id."""
    by_id = {s.id: s.text for s in scripts if s.type == "application/json" and s.id}
    for script in scripts:
        if script.type not in ("", "text/javascript", "application/javascript"):
            continue
        for match in _DOCS.finditer(script.text):
            try:
                docs = _docs_json(script.text, match.end(), by_id)
                items_at = _ITEMS.search(script.text, match.end())
                items = decode_at(script.text, items_at.end())[0] if items_at else None
            except ValueError as exc:
                yield Problem(f"the Bokeh document in the output cannot be read as data "
                              f"({exc}); run the cell again and save the notebook")
                continue
            yield _document(docs, items)


def _docs_json(text: str, index: int, by_id: dict[str, str]) -> Any:
    """The value assigned to docs_json at `index`: JSON, a string holding JSON (HTML
    entities in it, as Bokeh escapes it), or the text of the JSON script it names."""
    if (by_id_match := _BY_ID.match(text, index)) is not None:
        if by_id_match[2] not in by_id:
            raise ValueError(f"no script with the id {by_id_match[2]!r} holds its JSON")
        return loads(html.unescape(by_id[by_id_match[2]]))
    if text[index:index + 1] in ("'", '"'):
        return loads(html.unescape(_js_string(text, index)))
    return decode_at(text, index)[0]


def _js_string(text: str, index: int) -> str:
    """The JavaScript string literal at `index` (its quote), decoded."""
    quote, i = text[index], index + 1
    out: list[str] = []
    while i < len(text):
        char = text[i]
        if char == quote:
            return "".join(out)
        if char == "\n":
            break
        if char == "\\" and i + 1 < len(text):
            nxt = text[i + 1]
            size = 2 if nxt == "x" else 4
            if nxt in "xu" and _HEX.fullmatch(text[i + 2:i + 2 + size]):
                out.append(chr(int(text[i + 2:i + 2 + size], 16)))
                i += 2 + size
                continue
            out.append(_JS_ESCAPES.get(nxt, "" if nxt == "\n" else nxt))
            i += 2
            continue
        out.append(char)
        i += 1
    raise ValueError("a string in the script is not closed")


def _document(docs: Any, items: Any) -> Document | Problem:
    try:
        docs = finite(docs)
        items = finite(items) if items is not None else None
    except TooDeep as exc:
        return Problem(f"the Bokeh document cannot be shown: {exc}")
    if not isinstance(docs, dict) or not docs or not all(isinstance(d, dict)
                                                         for d in docs.values()):
        return Problem("the Bokeh output's docs_json is not an object of documents")
    if not isinstance(items, list) or not all(isinstance(i, dict) for i in items):
        docid = next(iter(docs))
        items = [{"docid": docid, "root_ids": [_ident(r) for r in _roots(docs[docid])]}]
    size = compact_size(docs)
    if size > INLINE_LIMIT:
        return too_large("the Bokeh plot", size, "plot a sample or an aggregate of the data, "
                         "or save a picture with bokeh.io.export_png")
    docid = items[0].get("docid") if items else None
    doc = docs.get(docid) if isinstance(docid, str) else next(iter(docs.values()))
    doc = doc if isinstance(doc, dict) else next(iter(docs.values()))
    root_ids = [i for item in items for i in _item_roots(item)]
    roots = [r for r in _roots(doc) if _ident(r) in root_ids] or _roots(doc)[:1]
    width, height, title = _size(roots[0]) if roots else (0, 0, "")
    version = doc.get("version")
    return Document(version if isinstance(version, str) else "", docs, items,
                    root_ids or [_ident(r) for r in roots], width, height, title)


def _roots(doc: dict[str, Any]) -> list[dict[str, Any]]:
    roots = doc.get("roots")
    if isinstance(roots, dict):  # Bokeh 2: {"references": [...], "root_ids": [...]}
        roots = roots.get("references")
    return [r for r in roots if isinstance(r, dict)] if isinstance(roots, list) else []


def _ident(model: dict[str, Any]) -> str:
    return str(model.get("id", ""))


def _item_roots(item: dict[str, Any]) -> list[str]:
    ids = item.get("root_ids")
    if isinstance(ids, list):
        return [str(i) for i in ids]
    roots = item.get("roots")
    return [str(k) for k in roots] if isinstance(roots, dict) else []


def _size(root: dict[str, Any]) -> tuple[int, int, str]:
    """A root's width, height (Bokeh's default for a plot that states none; 0 when it
    stretches or states none) and its title's text."""
    attrs = root.get("attributes")
    attrs = attrs if isinstance(attrs, dict) else {}
    default = PLOT_SIZE if root.get("name") in _PLOTS else 0
    stretch = attrs.get("sizing_mode")
    width = 0 if stretch in _STRETCH else _pixels(attrs.get("width", default))
    height = 0 if stretch in ("stretch_height", "stretch_both", "scale_height",
                              "scale_both") else _pixels(attrs.get("height", default))
    title = attrs.get("title")
    if isinstance(title, dict):
        inner = title.get("attributes")
        title = inner.get("text") if isinstance(inner, dict) else None
    return width, height, " ".join(title.split()) if isinstance(title, str) else ""


def _pixels(value: Any) -> int:
    ok = isinstance(value, int | float) and not isinstance(value, bool) and 0 < value < 1e5
    return round(value) if ok else 0


def _models(value: Any) -> Iterator[dict[str, Any]]:
    """Every model of a document's JSON (objects with a type and a name)."""
    todo = [value]
    while todo:
        item = todo.pop()
        if isinstance(item, dict):
            if item.get("type") == "object" and isinstance(item.get("name"), str):
                yield item
            todo.extend(item.values())
        elif isinstance(item, list):
            todo.extend(item)


def _checked(document: Document, scripts: bool) -> Document | Problem:
    """`document`, or why the page does not show it (see the module's docstring)."""
    major = document.version.split(".", 1)[0]
    if not major.isdigit() or int(major) != BOKEHJS_MAJOR:
        made = document.version or "of an unknown version"
        return Problem(f"the Bokeh plot was made by Bokeh {made}, and this site draws plots "
                       f"of Bokeh {BOKEHJS_MAJOR}; run the notebook again with Bokeh "
                       f"{BOKEHJS_MAJOR}.x")
    loading, active = set(), set()
    for model in _models(document.docs_json):
        name, attrs = model["name"], model.get("attributes")
        attrs = attrs if isinstance(attrs, dict) else {}
        if name in _LOADING:
            loading.add(name)
        elif (name in _ACTIVE and attrs.get("render_as_text") is not True) or \
                name.startswith(_ACTIVE_PREFIX) or _html_tooltips(name, attrs):
            active.add(name)
    if loading:
        return Problem(f"the Bokeh plot loads from another site ({', '.join(sorted(loading))}"
                       "), which a page of this site never does; put the data in the plot "
                       "(ColumnDataSource)")
    if active and not scripts:
        return Problem(f"the Bokeh plot runs JavaScript or shows HTML of its own "
                       f"({', '.join(sorted(active))}), which a page runs only when "
                       "site.yaml has notebooks: {scripts: true}; turn that on, or leave "
                       "them out of the plot")
    return document


def _html_tooltips(name: str, attrs: dict[str, Any]) -> bool:
    """A hover tool whose tooltips are an HTML template, or show a field unescaped."""
    if name != "HoverTool":
        return False
    tips = attrs.get("tooltips")
    return isinstance(tips, str) or "{safe}" in str(tips)


def data_json(document: Document) -> str:
    """The JSON a page carries for `document`, escaped for a <script> element:
    `{"kind": "bokeh", "version", "docs_json", "render_items", "root_ids"}`."""
    return script_json({"kind": "bokeh", "version": document.version,
                        "docs_json": document.docs_json,
                        "render_items": document.render_items,
                        "root_ids": document.root_ids})


def note_html(document: Document) -> str:
    """A Bokeh plot's stand-in when no picture of it was stored: its title and a note."""
    title = f'<p class="chart-title">{escapeHtml(document.title)}</p>\n' \
        if document.title else ""
    return (f'<div class="chart-static">\n{title}<p class="chart-note">The interactive '
            "plot is drawn when it comes into view.</p>\n</div>\n")
