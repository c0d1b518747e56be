"""The diagram stage's work: every diagram of a document drawn (the cache's first, the
others in one batch), and its token made what the page shows: the drawings, made safe and
their ids unique on the page (blogbuild.diagrams.svg), or Mermaid's own script for a type
the build cannot draw, or the fence as code with an error."""

from __future__ import annotations

import hashlib
from dataclasses import replace

from markdown_it.token import Token

from blogbuild.diagrams.draw import FRONT, Drawn, draw_many
from blogbuild.diagrams.verdict import ACCEPTS, NONE, REFUSES
from blogbuild.markdown.diagrams import as_code
from blogbuild.markdown.env import Env, need, report, report_error, source_line

#: What mmdr says of a type of diagram it does not know (Mermaid may: a newer type).
UNKNOWN_TYPE = "No Mermaid diagram type detected"


def _themes(kind: str) -> tuple[str, ...]:
    return ("default", "dark") if kind == "mermaid" else ("default",)


def draw_all(env: Env, tokens: list[Token]) -> int:
    """Draw the diagrams `tokens` (in page order); how many were drawn."""
    jobs = [(token.meta["kind"], token.content, theme) for token in tokens
            for theme in _themes(token.meta["kind"])]
    drawn = iter(draw_many(jobs))
    count = 0
    for token in tokens:
        drawings = [next(drawn) for _ in _themes(token.meta["kind"])]
        if _shown(env, token, drawings, count + 1):
            count += 1
    return count


def _shown(env: Env, token: Token, drawings: list[Drawn], number: int) -> bool:
    """Put the drawings of one diagram in its token (the `number`th drawn on the page);
    False when it is not drawn (a problem is reported)."""
    kind, title = token.meta["kind"], token.meta["title"]
    assert token.map is not None
    what = "this Mermaid diagram" if kind == "mermaid" else "this Graphviz graph"
    failed = next((d for d in drawings if not d.svg), None)
    if failed is not None and kind == "mermaid" and _left_to_mermaid(env, token, failed):
        return False
    if failed is not None:
        _problem(env, token, _refused(token, failed) if kind == "mermaid" else failed, what)
        return False
    if drawings[0].error:  # drawn, with the renderer's warnings
        report(env, source_line(env, token.map[0]), f"{what} was drawn with warnings: "
               f"{drawings[0].error}")
    from blogbuild.diagrams.svg import BadSvg, adapt  # XML: only for pages with diagrams

    digest = hashlib.sha256(token.content.encode()).hexdigest()[:8]
    prefix = f"diagram-{number}-{digest}"
    try:
        svgs = [adapt(d.svg, f"{prefix}-{theme}", title=title or _fallback(kind))
                for d, theme in zip(drawings, _themes(kind), strict=True)]
    except BadSvg as exc:
        _problem(env, token, Drawn(error=str(exc)), what)
        return False
    if token.meta.get("bad_id") is not None:
        report(env, source_line(env, token.map[0]), f"the id {token.meta['bad_id']!r} of "
               "this diagram cannot be used; write letters, digits and dashes")
    need(env, "diagram")
    token.meta["svgs"] = svgs
    return True


def _left_to_mermaid(env: Env, token: Token, failed: Drawn) -> bool:
    """Leave a Mermaid diagram mmdr refused to Mermaid's own script in the reader's browser,
    with a warning, when Mermaid's parser accepts it (or gave no verdict on a type mmdr does
    not know, which may be newer than mmdr); whether it did."""
    assert token.map is not None
    unknown = failed.error == UNKNOWN_TYPE
    if not (failed.mermaid == ACCEPTS or (unknown and failed.mermaid == NONE)):
        return False
    script = ("the reader's browser draws it with Mermaid's own script (5 MB, loaded by "
              "this page only)")
    if unknown:
        message = (f"blogbuild cannot draw Mermaid diagrams of the type {_type(token)!r}: "
                   f"{script}" + ("" if failed.mermaid == ACCEPTS
                                  else "; if it is a misspelt type, fix it"))
    else:
        message = (f"blogbuild cannot draw this Mermaid diagram, which Mermaid accepts "
                   f"(mmdr says: {failed.error}): {script}; to have it drawn when the site is "
                   "built, write it in a form mmdr reads")
    report(env, source_line(env, token.map[0]), message)
    need(env, "mermaid")
    need(env, "diagram")
    token.type = "diagram_fallback"
    return True


def _refused(token: Token, failed: Drawn) -> Drawn:
    """Why a Mermaid diagram neither mmdr nor Mermaid's parser accepts cannot be drawn, in
    both their words."""
    if failed.mermaid != REFUSES:
        return failed
    if failed.error == UNKNOWN_TYPE:
        return replace(failed, error=f"neither blogbuild's renderer nor Mermaid knows a type "
                       f"of diagram {_type(token)!r}; check its spelling (flowchart, "
                       "sequenceDiagram, classDiagram, …)", line=0)
    return replace(failed, error=f"{failed.error} (Mermaid's parser refuses it too: "
                   f"{failed.said})")


def _type(token: Token) -> str:
    """The first word of a Mermaid diagram, its type (after its front matter, directives and
    comments, if any)."""
    front = FRONT.match(token.content)
    for line in token.content[front.end() if front else 0:].splitlines():
        if line.strip() and not line.lstrip().startswith("%%"):
            return line.split()[0]
    return ""


def _fallback(kind: str) -> str:
    return "A diagram" if kind == "mermaid" else "A graph"


def _problem(env: Env, token: Token, drawn: Drawn, what: str) -> None:
    """Report why the diagram of `token` cannot be drawn; the page shows it as code."""
    assert token.map is not None
    line = source_line(env, token.map[0] + drawn.line) if drawn.line else \
        source_line(env, token.map[0])
    where = f" (line {drawn.line} of the diagram)" if drawn.line else ""
    report_error(env, line, f"{what} cannot be drawn{where}: {drawn.error}; fix the diagram "
                 "(the page shows its text as code until then)")
    as_code(token)
