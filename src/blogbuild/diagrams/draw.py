"""Drawing one diagram: its text in, SVG out, in a child process that is stopped when it
takes too long or too much memory. Results are cached by kind, text, theme and the
renderers' versions (a syntax error too: the same text fails the same way).
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from blogbuild import cancel, diskcache

#: Bumped when the SVG made of the same text changes.
DRAW_VERSION = "3"
TABLE = "diagrams"
TIMEOUT = 15.0  # seconds a diagram may take
MEMORY = 1024 * 1024 * 1024  # bytes of address space a renderer may use
_MERMAID_RUNNER = Path(__file__).with_name("mermaid_runner.py")
_LIMITED = Path(__file__).with_name("limited.py")


@dataclass(frozen=True)
class Drawn:
    svg: str = ""
    error: str = ""  # what the renderer said (its first lines)
    line: int = 0  # the line of the diagram's text it names (1-based), 0: none


@functools.cache
def versions() -> str:
    from importlib import metadata  # only when a diagram is drawn: it imports a lot

    found = []
    for name in ("mmdr", "graphviz-pure"):
        try:
            found.append(f"{name} {metadata.version(name)}")
        except metadata.PackageNotFoundError:
            found.append(f"{name} missing")
    return ", ".join(found)


def draw(kind: str, text: str, theme: str = "default") -> Drawn:
    """The SVG of `text` ("mermaid" or "dot"), from the cache when it was drawn before."""
    key = hashlib.sha256(f"{DRAW_VERSION}\0{versions()}\0{kind}\0{theme}\0{text}"
                         .encode()).hexdigest()
    found = diskcache.get(TABLE, key)
    if found is not None:
        try:
            return Drawn(**json.loads(found))
        except (TypeError, ValueError):
            pass
    drawn = _mermaid(text, theme) if kind == "mermaid" else _dot(text)
    if drawn.error != _STOPPED:  # a stopped run may be the machine's fault: try again
        diskcache.put(TABLE, key, json.dumps(drawn.__dict__))
    return drawn


_STOPPED = "stopped"


def _run(command: list[str], text: str, env: dict[str, str]) -> tuple[int, str, str]:
    """Exit status, stdout and stderr of `command` run with at most MEMORY bytes (see
    limited.py); the whole process group dies at the time limit."""
    process = subprocess.Popen(
        [sys.executable, "-I", str(_LIMITED), str(MEMORY), str(os.getpid()), *command],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
        start_new_session=True)
    # A cancelled run (the live server stopping, SIGTERM) kills it at once.
    with cancel.current().child(lambda: cancel.kill_session(process)):
        try:
            out, err = process.communicate(text.encode("utf-8"), timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            cancel.kill_session(process)
            process.communicate()
            return -1, "", _STOPPED
    return process.returncode, out.decode("utf-8", "replace"), err.decode("utf-8", "replace")


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
    source, added = themed(text, theme)
    code, out, err = _run([sys.executable, "-I", str(_MERMAID_RUNNER)], source,
                          {"PATH": os.environ.get("PATH", "")})
    stopped = _stopped(code, err)
    if stopped is not None:
        return stopped
    if code != 0:
        message = err.strip().splitlines()[-1] if err.strip() else "cannot be drawn"
        message = message.removeprefix("ValueError: ")
        line = _line_of(message)
        return Drawn(error=message, line=line - added if line > added else 0)
    return Drawn(svg=out)


#: A Mermaid diagram's own front matter: `---` on its first line (blank lines before it
#: aside, as Mermaid trims them), its YAML, and `---` on a line of its own.
_FRONT = re.compile(r"\A((?:[ \t]*\n)*)---[ \t]*\n(.*?)^---[ \t]*$", re.DOTALL | re.MULTILINE)


def themed(text: str, theme: str) -> tuple[str, int]:
    """`text` with the theme and the theme's face in its configuration, and the lines that
    adds before the author's. The author's settings win where they say: a diagram with its
    own front matter gets them merged into its `config:` (Mermaid reads front matter only
    on the first line, and settles a directive over front matter); one without gets
    Mermaid's directive before the author's own (a later directive wins)."""
    ours: dict[str, object] = {"theme": theme, "themeVariables": {"fontFamily": FONT}}
    front = _FRONT.match(text)
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
    program = dot_program()
    if program is None:
        return Drawn(error="graphviz-pure is not installed (pip install graphviz-pure)")
    # SERVER_NAME: dot then reads no file a graph names (image=, shapefile=).
    # The theme's kind of face, where the graph names none (its own fontname wins).
    faces = [f"-{part}fontname=sans-serif" for part in ("G", "N", "E")]
    code, out, err = _run([program, "-Tsvg", *faces], text,
                          {"SERVER_NAME": "blogbuild", "PATH": os.environ.get("PATH", "")})
    stopped = _stopped(code, err)
    if stopped is not None:
        return stopped
    if not out.strip():
        message = err.strip().splitlines()[0] if err.strip() else "cannot be drawn"
        return Drawn(error=message.removeprefix("Error: "), line=_line_of(message))
    return Drawn(svg=out, error="" if code == 0 else _warning(err))


def _warning(err: str) -> str:
    lines = [line.removeprefix("Warning: ") for line in err.strip().splitlines()]
    return "; ".join(lines[:2]) if lines else ""


_LINE = re.compile(r"\bline (\d+)")


def _line_of(message: str) -> int:
    found = _LINE.search(message)
    return int(found[1]) if found else 0
