"""TeX text helpers for the math plugin: equation rows, labels, tags, refs, positions.

The plugin rewrites an author's TeX before KaTeX sees it (a \\tag for each numbered
row, \\label removed, \\eqref turned into a link); `Rewrite` remembers where every
character came from so KaTeX's error positions still point into the source file.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

#: amsmath environments written at the top level of a display block. KaTeX numbers the
#: unstarred ones with CSS counters (not linkable, page-wide), so we always hand it the
#: starred form with explicit \tag{n}; it has no multline, which becomes gather*.
ENVIRONMENTS = ("equation", "align", "alignat", "gather", "multline", "flalign")
#: Environments MathJax also finds in running text: display math of their own here too
#: (never numbered; KaTeX reports the ones it only knows inside math).
DISPLAY_ENVIRONMENTS = (
    *ENVIRONMENTS, "aligned", "alignedat", "gathered", "cases", "array",
    "matrix", "pmatrix", "bmatrix", "Bmatrix", "vmatrix", "Vmatrix",
)
_KATEX_ENV = {"multline": "gather", "flalign": "align"}
_MULTIROW = {"align", "alignat", "gather", "flalign"}

ENV_RE = re.compile(
    r"\\begin\{(" + "|".join(ENVIRONMENTS) + r")(\*?)\}(.*)\\end\{\1\2\}", re.DOTALL
)
LABEL_RE = re.compile(r"\\label\s*\{([^{}]*)\}")
REF_RE = re.compile(r"\\(eqref|ref)\s*\{([^{}]*)\}")
_TAG_RE = re.compile(r"\\tag\*?\s*\{((?:[^{}]|\{[^{}]*\})*)\}")
_NONUMBER_RE = re.compile(r"\\(?:nonumber|notag)(?![A-Za-z])")
_ID_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]+")


def label_id(label: str) -> str:
    """`eq:attention` and `attention` both become the fragment `eq-attention`."""
    name = label.strip()
    for prefix in ("eq:", "eq-", "eq_"):
        if name.startswith(prefix) and len(name) > len(prefix):
            name = name[len(prefix) :]
            break
    return "eq-" + (_ID_UNSAFE.sub("-", name).strip("-") or "x")


class Rewrite:
    """Non-overlapping edits of `original`; maps output positions back to the original."""

    def __init__(self, original: str) -> None:
        self.original = original
        self._edits: list[tuple[int, int, int, str]] = []  # start, end, order, new text

    def replace(self, start: int, end: int, new: str) -> None:
        self._edits.append((start, end, len(self._edits), new))

    def copy(self) -> Rewrite:
        twin = Rewrite(self.original)
        twin._edits = list(self._edits)
        return twin

    def insert(self, pos: int, new: str) -> None:
        self.replace(pos, pos, new)

    def apply(self) -> tuple[str, list[tuple[int, int, int, bool]]]:
        """The new text and its segments (new_start, new_end, old_start, copied?)."""
        out: list[str] = []
        segments: list[tuple[int, int, int, bool]] = []
        old = new = 0
        for start, end, _, text in sorted(self._edits):
            if start < old:  # overlapping edit: keep the first one
                continue
            if start > old:
                out.append(self.original[old:start])
                segments.append((new, new + start - old, old, True))
                new += start - old
            if text:
                out.append(text)
                segments.append((new, new + len(text), start, False))
                new += len(text)
            old = end
        out.append(self.original[old:])
        segments.append((new, new + len(self.original) - old, old, True))
        self._segments = segments
        return "".join(out), segments

    def original_position(self, position: int) -> int:
        for new_start, new_end, old_start, copied in self._segments:
            if new_start <= position < new_end:
                return old_start + (position - new_start) if copied else old_start
        return len(self.original)


@dataclass
class Row:
    """One numbered-or-not line of a display formula (the whole formula if it has one)."""

    start: int
    end: int  # where a \tag goes: before the `\\` ending the row, or the end of the body
    labels: list[tuple[str, int, int]] = field(default_factory=list)
    tag: str | None = None  # the author's own \tag{…} text
    nonumber: bool = False
    blank: bool = False


@dataclass
class DisplayPlan:
    """How one display formula is numbered, before numbers are handed out."""

    env: str  # "" when the formula is not an amsmath environment
    auto: bool  # the environment numbers its rows by itself (unstarred, numbering on)
    rows: list[Row]
    renames: list[tuple[int, int, str]]  # \begin/\end names to give KaTeX


def split_rows(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """Spans of the rows of text[start:end], split at `\\\\` outside braces and inner envs."""
    rows: list[tuple[int, int]] = []
    depth = envs = 0
    row_start = i = start
    while i < end:
        char = text[i]
        if char == "\\":
            if text.startswith("\\\\", i) and depth == 0 and envs == 0:
                rows.append((row_start, i))
                i += 2
                row_start = i
                continue
            if text.startswith("\\begin", i):
                envs += 1
            elif text.startswith("\\end", i):
                envs -= 1
            i += 2
            continue
        if char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
        i += 1
    rows.append((row_start, end))
    return rows


def plan_display(tex: str, *, numbering: bool) -> DisplayPlan:
    """Find the rows, labels and tags of a display formula."""
    match = ENV_RE.fullmatch(tex.strip())
    renames: list[tuple[int, int, str]] = []
    if match is None:
        env, auto, spans = "", False, [(0, len(tex))]
    else:
        offset = len(tex) - len(tex.lstrip())
        env, star = match.group(1), match.group(2)
        auto = numbering and not star
        body_start, body_end = offset + match.start(3), offset + match.end(3)
        katex_env = _KATEX_ENV.get(env, env) + "*"
        name_start = offset + len("\\begin{")
        renames.append((name_start, name_start + len(env) + len(star), katex_env))
        end_name = body_end + len("\\end{")
        renames.append((end_name, end_name + len(env) + len(star), katex_env))
        if env in _MULTIROW:
            spans = split_rows(tex, body_start, body_end)
        else:
            spans = [(body_start, body_end)]
    rows = []
    for start, end in spans:
        text = tex[start:end]
        row = Row(start, end)
        for label in LABEL_RE.finditer(text):
            row.labels.append((label.group(1).strip(), start + label.start(), start + label.end()))
        tag = _TAG_RE.search(text)
        row.tag = tag.group(1) if tag else None
        row.nonumber = bool(_NONUMBER_RE.search(text))
        row.blank = not LABEL_RE.sub("", text).strip()
        rows.append(row)
    # A final `\\` before \end leaves an empty row that LaTeX would not number either.
    return DisplayPlan(env, auto, rows, renames)


def utf16_to_index(text: str, units: int) -> int:
    """Python index of the character at JavaScript (UTF-16) offset `units` in `text`."""
    count = 0
    for index, char in enumerate(text):
        if count >= units:
            return index
        count += 2 if ord(char) > 0xFFFF else 1
    return len(text)


#: The characters kramdown unescapes after a backslash (its ESCAPED_CHARS).
_KRAMDOWN_ESCAPE = re.compile(r"\\([\\.*_+\-`()\[\]{}#!:|\"'$=<>])")


def kramdown_unescape(raw: str) -> tuple[str, list[int]]:
    """`raw` as MathJax saw it after kramdown (`\\\\{` is `\\{`, `\\_` is `_`), and the index
    in `raw` of every character of the result, plus one for its end (error positions)."""
    out: list[str] = []
    origin: list[int] = []
    last = 0
    for match in _KRAMDOWN_ESCAPE.finditer(raw):
        out.append(raw[last : match.start()])
        origin.extend(range(last, match.start()))
        out.append(match.group(1))
        origin.append(match.start() + 1)
        last = match.end()
    out.append(raw[last:])
    origin.extend(range(last, len(raw) + 1))
    return "".join(out), origin


def find_close(src: str, start: int, end: int, close: str) -> int:
    """Index of `close` in src[start:end], skipping backslash escapes; -1 if absent."""
    i = start
    while i < end:
        if src.startswith(close, i):
            return i
        i += 2 if src[i] == "\\" else 1
    return -1
