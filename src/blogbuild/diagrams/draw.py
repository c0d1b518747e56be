"""Drawing diagrams: their text in, SVG out, a document's diagrams in one batch given to the
process's drawer (blogbuild.diagrams.drawer), which stops a diagram that takes too long or
too much memory. A Mermaid diagram mmdr refuses is put to Mermaid's own parser
(blogbuild.diagrams.verdict). Results are cached by kind, text, theme and the renderers'
versions (a syntax error and Mermaid's verdict too: the same text fails the same way), but
not a drawing or a verdict that was stopped (that may be the machine's fault).
"""

from __future__ import annotations

import functools
import hashlib
import json
import re
import shutil
from dataclasses import dataclass, replace
from pathlib import Path

from blogbuild import diskcache
from blogbuild.diagrams import drawer
from blogbuild.diagrams.fallback import VENDOR_DIR

#: Bumped when the SVG made of the same text changes.
DRAW_VERSION = "5"
TABLE = "diagrams"
TIMEOUT = 15.0  # seconds a diagram may take
MEMORY = 1024 * 1024 * 1024  # bytes of address space a renderer may use


@dataclass(frozen=True)
class Drawn:
    """One diagram drawn: its SVG, or what stopped it and where."""

    svg: str = ""
    error: str = ""  # what the renderer said (its first lines)
    line: int = 0  # the line of the diagram's text it names (1-based), 0: none
    #: What Mermaid's own parser says of a Mermaid diagram mmdr refused: verdict.ACCEPTS,
    #: verdict.REFUSES, verdict.NONE (it was asked and gave no verdict), "" (not asked).
    mermaid: str = ""
    said: str = ""  # what Mermaid's parser said when it refused the diagram


@functools.cache
def versions() -> str:
    from importlib import metadata  # only when a diagram is drawn: it imports a lot

    found = []
    for name in ("mmdr", "graphviz-pure"):
        try:
            found.append(f"{name} {metadata.version(name)}")
        except metadata.PackageNotFoundError:
            found.append(f"{name} missing")
    mermaid = (VENDOR_DIR / "VERSION").read_text(encoding="utf-8").strip()
    return ", ".join([*found, f"mermaid {mermaid}"])


#: A diagram to draw: its kind ("mermaid" or "dot"), its text, the theme ("default" or
#: "dark"; a Graphviz graph is drawn in the default one).
Job = tuple[str, str, str]


def draw(kind: str, text: str, theme: str = "default") -> Drawn:
    """The SVG of `text` ("mermaid" or "dot"), from the cache when it was drawn before."""
    return draw_many([(kind, text, theme)])[0]


def draw_many(jobs: list[Job]) -> list[Drawn]:
    """Each diagram of `jobs` drawn, in order: from the cache when it was drawn before, the
    others in one batch."""
    keys = [hashlib.sha256(f"{DRAW_VERSION}\0{versions()}\0{kind}\0{theme}\0{text}"
                           .encode()).hexdigest() for kind, text, theme in jobs]

    def make(places: list[int]) -> list[Drawn]:
        todo = [jobs[place] for place in places]
        return _judged(todo, _drawn(todo))

    return diskcache.batched(TABLE, keys, make, Drawn, _lasting)


def _judged(jobs: list[Job], drawn: list[Drawn]) -> list[Drawn]:
    """`drawn`, with Mermaid's verdict on each Mermaid diagram mmdr refused (not one it
    stopped: too long, too big), each text asked once."""
    asked = [index for index, ((kind, _, _), one) in enumerate(zip(jobs, drawn, strict=True))
             if kind == "mermaid" and not one.svg and not one.error.startswith(_LIMITS)]
    if not asked:
        return drawn
    from blogbuild.diagrams import verdict  # only when mmdr refused a diagram

    found = verdict.verdicts(list(dict.fromkeys(jobs[index][1] for index in asked)),
                             timeout=TIMEOUT)
    out = list(drawn)
    for index in asked:
        said, message, line = found.get(jobs[index][1], (verdict.NONE, "", 0))
        out[index] = replace(drawn[index], mermaid=said, said=message,
                             line=drawn[index].line or line)
    return out


def _lasting(drawn: Drawn) -> bool:
    """Whether `drawn` is what the same text gives every time: not stopped at a limit, nor
    left without Mermaid's verdict (a busy machine, a process that could not start)."""
    from blogbuild.diagrams.verdict import NONE

    return not drawn.error.startswith(_LIMITS) and drawn.mermaid != NONE


def _drawn(jobs: list[Job]) -> list[Drawn]:
    """Draw `jobs`, without the cache, in one batch."""
    program = dot_program() if any(kind == "dot" for kind, _, _ in jobs) else None
    out: list[Drawn] = []
    batch: list[tuple[str, str, str]] = []
    places: list[tuple[int, int]] = []  # each one's job, and the lines put before its own
    for index, (kind, text, theme) in enumerate(jobs):
        out.append(Drawn())
        if kind == "mermaid":
            source, added = themed(text, theme)
            batch.append(("mermaid", source, ""))
            places.append((index, added))
        elif program is None:
            out[index] = Drawn(error="graphviz-pure is not installed (pip install "
                               "graphviz-pure)")
        else:
            from blogbuild.diagrams.layout import faced  # only for Graphviz

            batch.append(("dot", faced(text), program))
            places.append((index, 0))
    answers = drawer.draw(batch, timeout=TIMEOUT, memory=MEMORY) if batch else []
    for (index, added), (code, svg, err) in zip(places, answers, strict=True):
        out[index] = (_mermaid_answer(code, svg, err, added) if jobs[index][0] == "mermaid"
                      else _dot_answer(code, svg, err))
    return out


_STOPPED = drawer.STOPPED
#: How the messages of a drawing stopped at a limit begin.
_LIMITS = ("took longer than", "needed more than")


def _stopped(code: int, err: str) -> Drawn | None:
    if err == _STOPPED:
        return Drawn(error=f"took longer than {TIMEOUT:.0f} s and was stopped; make the "
                     "diagram smaller")
    if code < 0 or any(sign in err for sign in ("MemoryError", "memory allocation",
                                                 "Cannot allocate memory", "failed to map")):
        return Drawn(error=f"needed more than {MEMORY // 2**20} MiB of memory and was "
                     "stopped; make the diagram smaller")
    return None


#: The theme's face (static/css/main.css, --font-body), for Mermaid's labels.
FONT = "system-ui, -apple-system, Segoe UI, Roboto, Helvetica Neue, Arial, sans-serif"


def _mermaid(text: str, theme: str) -> Drawn:
    """One Mermaid diagram drawn in `theme`, without the cache."""
    return _drawn([("mermaid", text, theme)])[0]


def _mermaid_answer(code: int, out: str, err: str, added: int) -> Drawn:
    """What the drawing of a Mermaid diagram gave (`added`: the lines put before its own)."""
    stopped = _stopped(code, err)
    if stopped is not None:
        return stopped
    if code != 0:
        message = (err.strip().splitlines()[-1] if err.strip()
                   else f"mmdr stopped with exit status {code}")
        message = message.removeprefix("ValueError: ")
        line = drawer.line_of(message)
        return Drawn(error=message, line=line - added if line > added else 0)
    return Drawn(svg=out)


#: A Mermaid diagram's own front matter: `---` on its first line (blank lines before it
#: aside, as Mermaid trims them), its YAML, and `---` on a line of its own.
FRONT = re.compile(r"\A((?:[ \t]*\n)*)---[ \t]*\n(.*?)^---[ \t]*$", re.DOTALL | re.MULTILINE)


def themed(text: str, theme: str) -> tuple[str, int]:
    """`text` with the theme and the theme's face in its configuration, and the lines that
    adds before the author's. The author's settings win where they say: a diagram with its
    own front matter gets them merged into its `config:` (Mermaid reads front matter only
    on the first line, and settles a directive over front matter); one without gets
    Mermaid's directive before the author's own (a later directive wins)."""
    ours: dict[str, object] = {"theme": theme, "themeVariables": {"fontFamily": FONT}}
    front = FRONT.match(text)
    if front is None:
        return f"%%{{init: {json.dumps(ours)}}}%%\n{text}", 1
    import yaml  # only for diagrams with front matter

    try:
        data = yaml.safe_load(front[2]) if front[2].strip() else {}
    except yaml.YAMLError:
        return text, 0  # the renderer says what is wrong with it
    if not isinstance(data, dict) or not isinstance(data.get("config", {}), dict):
        return text, 0
    data["config"] = _merged(ours, data.get("config") or {})
    # JSON is YAML; on one line, the author's lines (and blank lines before them) left
    # blank, so that the lines of the diagram after it keep their numbers.
    room = front[1].count("\n") + front[2].count("\n")
    body = json.dumps(data, ensure_ascii=False, default=str)
    return f"---\n{body}\n{chr(10) * max(0, room - 1)}---{text[front.end():]}", int(room == 0)


def _merged(ours: dict[str, object], theirs: dict[str, object]) -> dict[str, object]:
    """`theirs` over `ours`, mappings merged key by key."""
    out = dict(ours)
    for key, value in theirs.items():
        mine = out.get(key)
        out[key] = _merged(mine, value) if isinstance(mine, dict) and isinstance(
            value, dict) else value
    return out


@functools.cache
def dot_program() -> str | None:
    """graphviz-pure's `graphviz-pure` program, beside this Python's, else on the PATH."""
    import sysconfig

    here = Path(sysconfig.get_path("scripts")) / "graphviz-pure"
    if here.is_file():
        return str(here)
    return shutil.which("graphviz-pure")


def _dot(text: str) -> Drawn:
    """One Graphviz graph drawn, without the cache."""
    return _drawn([("dot", text, "default")])[0]


def _dot_answer(code: int, out: str, err: str) -> Drawn:
    """What the drawing of a Graphviz graph gave: its SVG, with what it lost and what the
    renderer said (blogbuild.diagrams.layout) as warnings."""
    from blogbuild.diagrams import layout  # only for Graphviz

    stopped = _stopped(code, err)
    if stopped is not None:
        return stopped
    svg, laid = layout.split(out)
    said = layout.said(err)
    if not svg.strip():
        if said:
            return Drawn(error=said[0], line=drawer.line_of(said[0]))
        return Drawn(error="the text holds no graph; write one as `digraph { a -> b }`"
                     if code == 0 else f"graphviz-pure stopped with exit status {code}")
    lost = [f"{part} is not drawn (graphviz-pure could not lay it out; another port or "
            "layout may)" for part in layout.lost(laid)]
    return Drawn(svg=svg, error="; ".join(lost + said))
