"""The chart stage's work: every chart of a document read and checked, the Vega ones drawn
(the cache's first, the others in one batch, each in the light and dark looks), and its
token given what the page shows (blogbuild.charts.markup): the drawings, made safe and their
ids unique on the page (blogbuild.diagrams.svg), and the data the live chart is drawn from.

A chart that cannot be shown is a warning at its line, with the reason: a fence then shows
its spec as code, a notebook's output a note (the notebook keeps the chart)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from markdown_it.token import Token

from blogbuild.charts import markup
from blogbuild.charts.embedded import script_json
from blogbuild.charts.specs import Spec, SpecError, kind_of, parse, prepared, with_config
from blogbuild.charts.themes import THEMES
from blogbuild.markdown.diagrams import as_code
from blogbuild.markdown.env import Env, need, report, source_line

_NAMES = {"vega-lite": "Vega-Lite chart", "vega": "Vega chart", "plotly": "Plotly chart",
          "bokeh": "Bokeh plot"}


def draw_all(env: Env, tokens: list[Token]) -> int:
    """Make the charts `tokens` (in page order) ready to render; how many are shown."""
    ready: list[tuple[int, Token, Spec]] = []
    shown = 0
    for number, token in enumerate(tokens, start=1):
        try:
            if token.meta["kind"] in ("vega", "vega-lite"):
                ready.append((number, token, _spec(env, token)))
                continue
            from blogbuild.stages.charts.others import made

            made(env, token, number, _line(env, token))
            shown += 1
        except SpecError as exc:
            _problem(env, token, str(exc), exc.line)
    if ready:
        from blogbuild.charts.vega import draw_many

        jobs = [(spec.kind, json.dumps(with_config(spec.spec, look), ensure_ascii=False))
                for _, _, spec in ready for _, look in THEMES]
        drawn = iter(draw_many(jobs))
        for number, token, spec in ready:
            pair = [next(drawn) for _ in THEMES]
            failed = next((d for d in pair if not d.svg), None)
            if failed is not None:
                _problem(env, token, f"the renderer says: {failed.error}", 0)
                continue
            if _shown(env, token, spec, [d.svg for d in pair], number):
                shown += 1
    return shown


def _spec(env: Env, token: Token) -> Spec:
    """The spec of a chart token: its fence's text, or a notebook output's value."""
    meta = token.meta
    value = parse(meta["source"]) if "source" in meta else meta["value"]
    kind = kind_of(value, meta["kind"])
    meta["kind"] = kind
    return prepared(value, kind, _reader(env))


def _reader(env: Env) -> Any:
    """Reads a data file a spec names, beside the document, inside the site; records it
    among the render's inputs (another version of it: the document is rendered again)."""
    source, root = env.get("source_path"), env.get("site_root")
    if source is None or root is None:
        return None

    def read(url: str) -> bytes | None:
        from urllib.parse import unquote

        from blogbuild.bib.library import MISSING, digest_of

        path = (Path(source).parent / unquote(url)).resolve()
        site = Path(root).resolve()
        if not path.is_relative_to(site):
            return None
        shown = path.relative_to(site).as_posix()
        try:
            data = path.read_bytes()
        except OSError:
            env.setdefault("inputs", {})[shown] = MISSING
            return None
        env.setdefault("inputs", {})[shown] = digest_of(data)
        return data

    return read


def _shown(env: Env, token: Token, spec: Spec, svgs: list[str], number: int) -> bool:
    from blogbuild.diagrams.svg import BadSvg, adapt

    digest = hashlib.sha256(json.dumps(spec.spec, sort_keys=True).encode()).hexdigest()[:8]
    prefix = f"chart-{number}-{digest}"
    title = spec.title or token.meta.get("title") or token.meta.get("alt") or ""
    words = markup.words_of(title, spec.description, spec.words)
    try:
        adapted = [adapt(svg, f"{prefix}-{name}", title=title or "A chart",
                         desc=spec.description or words, fixed=True, renumber=True)
                   for svg, (name, _) in zip(svgs, THEMES, strict=True)]
    except BadSvg as exc:
        _problem(env, token, str(exc), 0)
        return False
    width, height = _size(adapted[0])
    light, dark = adapted
    token.meta.update(
        prefix=prefix, width=width, height=height, words=words,
        label=f"Chart: {title}" if title else "Chart",
        body=f'<div class="chart-light only-light">{light}</div>'
             f'<div class="chart-dark only-dark">{dark}</div>',
        feed_body=light,
        data=script_json({"kind": spec.kind, "spec": spec.spec,
                                 **{name: look for name, look in THEMES}}))
    _bad_id(env, token)
    need(env, "chart")
    need(env, "chart-vega")
    return True


def _size(svg: str) -> tuple[int, int]:
    """The width and height of an SVG drawing (its root's attributes), in CSS pixels."""
    import io
    import xml.etree.ElementTree as ET

    for _, element in ET.iterparse(io.StringIO(svg), events=("start",)):
        try:
            return (round(float(element.get("width", "0"))),
                    round(float(element.get("height", "0"))))
        except ValueError:
            return 0, 0
    return 0, 0


def _bad_id(env: Env, token: Token) -> None:
    if token.meta.get("bad_id") is not None:
        report(env, _line(env, token), f"the id {token.meta['bad_id']!r} of this chart "
               "cannot be used; write letters, digits and dashes")


def _line(env: Env, token: Token) -> int:
    """The source line a chart's messages name: its fence's, or its cell's outputs'."""
    if "outputs_line" in token.meta:
        return int(token.meta["outputs_line"])
    assert token.map is not None
    return source_line(env, token.map[0])


def _problem(env: Env, token: Token, reason: str, line: int) -> None:
    """Report why the chart of `token` cannot be shown; the page shows its spec as code
    (a fence) or a note (a notebook's output)."""
    what = _NAMES.get(token.meta["kind"], "chart")
    if "source" not in token.meta:  # a notebook's output
        report(env, _line(env, token), f"a {what} in this cell's outputs cannot be drawn: "
               f"{reason}; the page shows a note (the notebook keeps the chart)")
        token.type, token.tag = "nb_output", "div"
        from markdown_it.common.utils import escapeHtml

        token.meta = {"html": '<p class="nb-note" role="note">A chart that could not be '
                              f"drawn was left out: {escapeHtml(reason)}</p>\n"}
        return
    at = source_line(env, token.map[0] + line) if line and token.map else _line(env, token)
    where = f" (line {line} of the spec)" if line else ""
    report(env, at, f"this {what} cannot be drawn{where}: {reason}; fix the spec (the page "
           "shows it as code until then)")
    token.info, token.content = "json", token.meta["source"]
    as_code(token)
