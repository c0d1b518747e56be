"""```vega-lite and ```vega fences: charts drawn at build time, inline SVG made live on demand.

The fence holds the spec as JSON, as Vega-Lite's editor and Altair's `to_json()` write it.
Its info string may give a title (`title="…"`) and an id (`{#fig-sales}`): with either, the
chart is a numbered figure, referable as images and diagrams are.

This plugin only finds the charts (a core rule, before the figures are numbered) and puts
them in `env["charts"]`, with the charts of a notebook's outputs (blogbuild.markdown.notebook).
The chart stage (blogbuild.stages.charts) reads, checks and draws a document's charts
together once it is parsed and puts what the page shows in the tokens' meta; this module
renders them (blogbuild.charts.markup). A chart that cannot be drawn is a warning at its
fence's line, and the page shows its spec as code.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.rules_core import StateCore
from markdown_it.token import Token
from markdown_it.utils import OptionsDict

from blogbuild.markdown.env import Env

#: A fence's first word -> the kind of its chart.
KINDS = {"vega-lite": "vega-lite", "vegalite": "vega-lite", "vega": "vega"}


def charts(state: StateCore) -> None:
    """Every chart fence becomes a `chart` token (`env["charts"]`); its meta says its kind,
    its text, id and title, as a diagram fence's does (blogbuild.markdown.diagrams)."""
    from blogbuild.markdown.diagrams import fence_meta

    found: list[Token] = state.env.setdefault("charts", [])
    for token in state.tokens:
        if token.type != "fence" or token.map is None or not token.content.strip():
            continue
        words = token.info.strip().split(maxsplit=1)
        kind = KINDS.get(words[0].strip("{}.").lower()) if words else None
        if kind is None or words[0].startswith("{{"):
            continue
        meta = fence_meta(token.info)
        token.type, token.tag, token.nesting = "chart", "figure", 0
        token.meta = {**meta, "kind": kind, "source": token.content}
        found.append(token)


def _render(self: Any, tokens: Sequence[Token], idx: int, options: OptionsDict,
            env: Env) -> str:
    meta = tokens[idx].meta
    if "body" not in meta:  # rendered without the chart stage (a bare parser): its spec
        from blogbuild.markdown.highlight import render_codeblock

        return render_codeblock(str(meta.get("source", "")), "json")
    from blogbuild.charts.markup import chart_html

    if meta.get("stand_in") is not None:  # the picture a notebook stored beside the chart
        from blogbuild.markdown.notebook import output_html

        picture = output_html(meta["stand_in"], env)
        meta = {**meta, "body": picture, "feed_body": picture}
    return chart_html(meta, feed=bool(env.get("feed")))


def charts_plugin(md: MarkdownIt) -> None:
    """Install before the figures plugin's numbering runs (it numbers these too)."""
    md.core.ruler.after("block", "charts", charts)
    md.add_render_rule("chart", _render)
