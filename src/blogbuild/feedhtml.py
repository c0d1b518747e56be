"""HTML of a post as a feed carries it: no stylesheet travels with a feed entry."""

from __future__ import annotations

import re

_KATEX_HTML = '<span class="katex-html" aria-hidden="true">'
_SPAN = re.compile(r"<span\b|</span>")


def feed_html(html: str) -> str:
    """Drop KaTeX's CSS-dependent HTML layer and keep its MathML.

    Without KaTeX's stylesheet a feed reader would show every formula twice (the MathML
    and a heap of unstyled spans); MathML alone is rendered by readers and browsers.
    """
    if _KATEX_HTML not in html:
        return html
    out: list[str] = []
    pos = 0
    while True:
        start = html.find(_KATEX_HTML, pos)
        if start < 0:
            out.append(html[pos:])
            return "".join(out)
        out.append(html[pos:start])
        depth = 0
        for match in _SPAN.finditer(html, start):
            depth += 1 if match.group(0) == "<span" else -1
            if depth == 0:
                pos = match.end()
                break
        else:  # unbalanced: keep the rest as it is
            out.append(html[start:])
            return "".join(out)
