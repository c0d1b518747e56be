"""`{{< include path >}}`: another file's text in place of the line, before the Markdown is
parsed, so what it holds is part of the page as if written there.

As in Quarto, an include is the included text pasted in: a path is relative to the
document's folder (also in an included file, whose links and images resolve from there
too), and one starting with `/` is from the project's root (the site's content/ folder).
An included file may include others; its own front matter is not read (a warning). An
include inside a fenced code block is the block's text. Each file read is recorded among
the render's inputs (an edit renders the including document again), and every line of
the text is known by its file and line there (`origins`), so a message about included
text names the included file. A missing file, a file outside content/ or a loop is an
error at the include's line, and the line is left out.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from blogbuild.diagnostics import ContentError, Diagnostic, error, warning
from blogbuild.quarto.metadata import shown
from blogbuild.sourcetext import decode_source

#: An include on a line of its own (Quarto's include is a block).
INCLUDE = re.compile(r"[ \t]{0,3}\{\{<[ \t]*include[ \t]+(.*?)[ \t]*>\}\}[ \t]*")
_FENCE = re.compile(r"[ \t]{0,3}(`{3,}|~{3,})")
_CLOSING = re.compile(r"^(?:---|\.\.\.)[ \t]*$", re.MULTILINE)
#: Includes nested deeper than this are refused (a loop through many files is caught as a
#: loop; this bounds a chain that is merely long).
MAX_DEPTH = 20


@dataclass
class Included:
    """The text with its includes in place, and where each of its lines comes from."""

    text: str
    origins: list[tuple[str, int]]  # per line of `text`: (file as shown, line there)
    #: Per line of `text`, the line of the including document it stands for (its own, or
    #: that of the include that brought it).
    anchors: list[int] = field(default_factory=list)
    inputs: dict[str, str] = field(default_factory=dict)  # file as shown -> digest
    problems: list[Diagnostic] = field(default_factory=list)

    @property
    def moved(self) -> bool:
        """Whether any line comes from another file (an include was expanded)."""
        return len({file for file, _ in self.origins}) > 1


@dataclass(frozen=True)
class Where:
    """The files an expansion reads: the site folder (paths are shown from it), content/
    (`/path` is from it, and nothing outside it is read) and the document's folder."""

    root: Path
    content: Path
    folder: Path | None = None  # the document's: relative paths are from it


def expand(text: str, *, path: Path, file: str, first_line: int, where: Where) -> Included:
    """`text` (the body of `path`, shown as `file`, its first line at `first_line`) with
    every include expanded."""
    out = Included("", [])
    lines: list[str] = []
    folder = Where(where.root, where.content, path.parent)
    _expand(text, file, first_line, folder, out, lines, [path.resolve()], 0)
    out.text = "\n".join(lines)
    return out


def _expand(text: str, file: str, first_line: int, where: Where, out: Included,
            lines: list[str], chain: list[Path], anchor: int) -> None:
    fence = ""
    for number, line in enumerate(text.split("\n"), first_line):
        opened = _FENCE.match(line)
        if fence:
            if opened and opened[1][0] == fence[0] and len(opened[1]) >= len(fence) \
                    and not line.strip().strip(fence[0]):
                fence = ""
        elif opened:
            fence = opened[1]
        found = None if fence else INCLUDE.fullmatch(line)
        if found is None:
            lines.append(line)
            out.origins.append((file, number))
            out.anchors.append(anchor or number)
            continue
        target = _target(found[1].strip().strip("\"'"), where)
        problem = _refused(target, found[1], chain, where)
        if problem is None and target is not None:
            included = _read(target, where, out)
            if isinstance(included, str):
                name = shown(target, where.root)
                body, skipped = _without_front(included)
                if skipped:
                    out.problems.append(warning(name, 1, "the front matter of an included "
                                                "file is not read: move its keys into the "
                                                "document that includes it"))
                _expand(body, name, 1 + skipped, where, out, lines,
                        [*chain, target.resolve()], anchor or number)
                continue
            problem = included.message
        out.problems.append(error(file, number, problem or ""))


def _without_front(text: str) -> tuple[str, int]:
    """An included file's text without a front matter block at its top, and the number
    of lines left out."""
    first, _, rest = text.partition("\n")
    if first.rstrip() != "---":
        return text, 0
    closing = _CLOSING.search(rest)
    if closing is None:
        return text, 0
    skipped = rest[: closing.end()].count("\n") + 2
    return rest[closing.end():].removeprefix("\n"), skipped


def _target(written: str, where: Where) -> Path | None:
    if not written:
        return None
    base = where.content if written.startswith("/") else (where.folder or where.content)
    return Path(os.path.normpath(base / written.lstrip("/")))


def _refused(target: Path | None, written: str, chain: list[Path],
             where: Where) -> str | None:
    """Why the include of `target` is not read, or None."""
    if target is None:
        return "this include names no file: write {{< include _part.qmd >}}"
    name = written.strip().strip("\"'")
    if not target.resolve().is_relative_to(where.content.resolve()):
        return (f"the included file {name} is outside the content folder: keep it under "
                "content/ (a name starting with '_' is not published)")
    if target.resolve() in chain:
        loop = " -> ".join([*(shown(p, where.root) for p in chain[chain.index(
            target.resolve()):]), shown(target, where.root)])
        return (f"this include makes a loop ({loop}): a file cannot include itself, even "
                "through others; remove one of the includes")
    if len(chain) > MAX_DEPTH:
        return (f"includes are nested more than {MAX_DEPTH} deep here; include the files "
                "from one place instead")
    return None


def _read(target: Path, where: Where, out: Included) -> str | ContentError:
    """The text of an included file (recorded among the inputs), or why it cannot be."""
    from blogbuild.bib.library import MISSING, digest_of

    name = shown(target, where.root)
    try:
        data = target.read_bytes()
    except FileNotFoundError:
        out.inputs[name] = MISSING
        return ContentError(f"the included file {name} does not exist; create it or "
                            "correct the path (from this file's folder, or from content/ "
                            "when it starts with '/')")
    except IsADirectoryError:
        return ContentError(f"the include names a folder, {name}, not a file")
    except OSError as exc:
        return ContentError(f"cannot read the included file {name}: {exc.strerror or exc}")
    out.inputs[name] = digest_of(data)
    try:
        text = decode_source(data, name)
    except ContentError as exc:
        return ContentError(f"the included file {name}: {exc.message}")
    return text.removesuffix("\n")
