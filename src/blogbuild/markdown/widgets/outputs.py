"""The output panel of a runnable block that ran at build time: its output items as HTML.

Items come from the block's own code (see blogbuild.runtimes.python): text is escaped
here, once; an "html" item is the author's HTML (a DataFrame's table) and passes through
as raw HTML in a post does; images become <img> elements with a data: URL (an SVG too,
never inline, so nothing in it can run).
"""

from __future__ import annotations

import base64
import re
from collections.abc import Iterable, Mapping
from typing import Any

from markdown_it.common.utils import escapeHtml

from blogbuild.markdown.images import picture_html

CAPTION = "Output from the build"
_BASE64 = re.compile(r"[A-Za-z0-9+/]*={0,2}")
_MIMES = ("image/png", "image/svg+xml")


def _text(item: Mapping[str, Any], key: str) -> str:
    value = item.get(key, "")
    return value if isinstance(value, str) else str(value)


def _size(value: Any) -> str | None:
    return str(value) if isinstance(value, int) and 0 < value < 100_000 else None


def _image(item: Mapping[str, Any]) -> str:
    info = item.get("picture")
    if info is not None:  # its copies, beside the page (blogbuild.images.outputs)
        width = _size(item.get("width")) or str(info.width)  # as the block asked, else its own
        height = _size(item.get("height")) or str(round(info.height * int(width) / info.width))
        attrs = f'alt="{escapeHtml(_text(item, "alt"))}" width="{width}" height="{height}"'

        return (f'<figure class="runnable-figure">{picture_html(info, str(item["base"]), attrs)}'
                "</figure>\n")
    mime, data = _text(item, "mime"), _text(item, "data")
    if mime not in _MIMES:
        return ""
    if mime == "image/svg+xml" and data.lstrip().startswith("<"):
        data = base64.b64encode(data.encode("utf-8")).decode("ascii")
    if not _BASE64.fullmatch(data):
        return ""
    attrs = f'src="data:{mime};base64,{data}" alt="{escapeHtml(_text(item, "alt"))}"'
    for name in ("width", "height"):
        size = _size(item.get(name))
        if size is not None:
            attrs += f' {name}="{size}"'
    return f'<figure class="runnable-figure"><img {attrs}></figure>\n'


def _item(item: Mapping[str, Any]) -> str:
    kind = item.get("type")
    if kind == "stream":
        name = "stderr" if item.get("name") == "stderr" else "stdout"
        return f'<pre class="runnable-{name}">{escapeHtml(_text(item, "text"))}</pre>\n'
    if kind == "result":
        return ('<pre class="runnable-result"><span class="runnable-label">Out: </span>'
                f'{escapeHtml(_text(item, "text"))}</pre>\n')
    if kind == "error":
        return f'<pre class="runnable-error">{escapeHtml(_text(item, "text"))}</pre>\n'
    if kind == "html":
        return f'<div class="runnable-html">\n{_text(item, "html")}\n</div>\n'
    if kind == "image":
        return _image(item)
    if kind == "chart" and item.get("token") is not None:  # made ready by the chart stage
        from blogbuild.charts.markup import chart_html

        token = item["token"]
        return chart_html(token.meta, feed=False) if token.type == "chart" else \
            str(token.meta.get("html", ""))
    return ""


def output_panel(items: Iterable[Mapping[str, Any]]) -> str:
    """The panel that shows `items` with JavaScript off, and until the reader runs the
    block again ("" when there is nothing to show)."""
    body = "".join(_item(item) for item in items)
    if not body:
        return ""
    return ('<div class="runnable-output" role="region" aria-label="Output" '
            f'data-origin="build">\n<p class="runnable-caption">{CAPTION}</p>\n{body}</div>\n')
