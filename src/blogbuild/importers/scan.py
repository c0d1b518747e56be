"""Walk a Markdown body line by line without ever rewriting code.

Fenced and indented code blocks, code spans and raw HTML `<pre>`, `<script>`, `<style>` and
`<textarea>` blocks are copied as they are. Source-specific
block rules (Jekyll's and Hugo's highlight tags) turn a run of lines into a fenced block;
inline rules rewrite the text between code spans. Every line keeps the number it had in
the source file, so notes point at the right line however the text changed.
"""

from __future__ import annotations

import bisect
import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from blogbuild.importers.model import Line, Note

_FENCE = re.compile(r"^((?:\s*>)*\s*)(`{3,}|~{3,})")
_PRE_OPEN = re.compile(r"^\s{0,3}<(pre|script|style|textarea)[\s>]", re.IGNORECASE)
_LIST_ITEM = re.compile(r"^\s{0,3}(?:[-*+]|\d{1,9}[.)])(?:\s|$)")
_BACKTICKS = re.compile(r"`+")


@dataclass
class Outcome:
    """What rewriting one body did: rewrites by kind and notes for the author."""

    counts: Counter[str] = field(default_factory=Counter)
    notes: list[Note] = field(default_factory=list)

    def note(self, line: int, what: str) -> None:
        self.notes.append(Note(line, what))


@dataclass(frozen=True)
class BlockRule:
    """A construct of another generator that spans lines: its start and end patterns (the
    end is searched from the start's end), and convert(start match, end match, code lines,
    line, outcome) -> the new lines."""

    start: re.Pattern[str]
    end: re.Pattern[str]
    convert: Callable[[re.Match[str], list[str], int, Outcome], list[str]]


@dataclass(frozen=True)
class InlineRule:
    """A construct of another generator within a line: its pattern, and handler(match,
    line, outcome) -> new text, or None to leave it. A rewrite of `kind` is counted
    whenever the handler returns text (no `kind`: the handler counts its own)."""

    kind: str
    pattern: re.Pattern[str]
    handler: Callable[[re.Match[str], int, Outcome], str | None]


def fence_for(code: Sequence[str]) -> str:
    """Backticks enough to fence `code`: longer than any run of backticks inside it."""
    longest = max((len(run) for text in code for run in re.findall(r"`+", text)), default=0)
    return "`" * max(3, longest + 1)


def mark_code(lines: list[Line], rules: Sequence[BlockRule],
              outcome: Outcome) -> list[tuple[int, str, bool]]:
    """Each line with whether it is code; block rules applied to the text between code."""
    out: list[tuple[int, str, bool]] = []
    fence: tuple[str, int] | None = None  # (character, length) of the open fence
    in_list = False
    previous_blank = True
    unclosed: dict[int, int] = {}  # block rule -> a line below which it never ends
    i = 0
    while i < len(lines):
        number, text = lines[i]
        i += 1
        if fence is not None:
            out.append((number, text, True))
            closing = _FENCE.match(text)
            if closing and closing[2][0] == fence[0] and len(closing[2]) >= fence[1] \
                    and not text[closing.end():].strip():
                fence = None
            previous_blank = False
            continue
        opening = _FENCE.match(text)
        if opening:
            fence = (opening[2][0], len(opening[2]))
            out.append((number, text, True))
            continue
        raw = _PRE_OPEN.match(text)
        if raw:  # raw HTML code: copied as it is, up to the line that closes it
            i = _copy_raw(lines, i - 1, f"</{raw[1].lower()}>", out)
            previous_blank = False
            continue
        blank = not text.strip()
        indented = text.startswith(("    ", "\t"))
        if indented and not blank and not in_list and (previous_blank or _last_is_code(out)):
            out.append((number, text, True))
            previous_blank = False
            continue
        taken = _apply_block(rules, lines, i - 1, outcome, unclosed)
        if taken is not None:
            consumed, new_lines = taken
            out.extend((number, new, True) for new in new_lines)
            i = i - 1 + consumed
            previous_blank = False
            continue
        if not blank and not indented:
            in_list = bool(_LIST_ITEM.match(text)) or (in_list and not previous_blank)
        out.append((number, text, False))
        previous_blank = blank
    return out


def _copy_raw(lines: list[Line], at: int, closing: str,
              out: list[tuple[int, str, bool]]) -> int:
    """Copy lines from `at` through the one holding `closing` as code; the next index."""
    for j in range(at, len(lines)):
        out.append((lines[j][0], lines[j][1], True))
        if closing in lines[j][1].lower():
            return j + 1
    return len(lines)


def _last_is_code(out: list[tuple[int, str, bool]]) -> bool:
    return bool(out) and out[-1][2] and out[-1][1].startswith(("    ", "\t"))


def _apply_block(rules: Sequence[BlockRule], lines: list[Line], at: int, outcome: Outcome,
                 unclosed: dict[int, int]) -> tuple[int, list[str]] | None:
    """(lines consumed, new lines) if a block rule starts at line `at` and ends below.

    `unclosed` remembers where a rule's search for its end failed, so a post of a thousand
    unclosed tags is not searched a thousand times."""
    number, text = lines[at]
    for index, rule in enumerate(rules):
        start = rule.start.match(text)
        if start is None:
            continue
        code: list[str] = []
        rest = text[start.end():]
        last = len(lines) if unclosed.get(index, len(lines)) > at else at + 1
        for j in range(at, last):
            chunk = rest if j == at else lines[j][1]
            end = rule.end.search(chunk)
            if end is not None:
                if chunk[:end.start()].strip():
                    code.append(chunk[:end.start()])
                return j - at + 1, rule.convert(start, code, number, outcome)
            if j > at or chunk.strip():
                code.append(chunk)
        if last == len(lines):
            unclosed[index] = at
        outcome.note(number, f"{start[0].strip()} has no closing tag; left as is")
        return None
    return None


def split_spans(text: str) -> list[tuple[str, bool]]:
    """`text` cut into (piece, is a code span) pieces, as CommonMark pairs backtick runs: a
    run closes at the next run of the same length (found by bisection: no quadratic scan)."""
    if "`" not in text:
        return [(text, False)]
    runs = [(m.start(), m.end()) for m in _BACKTICKS.finditer(text)]
    by_length: dict[int, list[int]] = {}
    for k, (start, end) in enumerate(runs):
        by_length.setdefault(end - start, []).append(k)
    pieces: list[tuple[str, bool]] = []
    at = k = 0
    while k < len(runs):
        start, end = runs[k]
        same = by_length[end - start]
        later = bisect.bisect_right(same, k)
        if later == len(same):
            k += 1
            continue
        close = runs[same[later]][1]
        if start > at:
            pieces.append((text[at:start], False))
        pieces.append((text[start:close], True))
        at, k = close, same[later] + 1
    if at < len(text) or not pieces:
        pieces.append((text[at:], False))
    return pieces


def rewrite_inline(text: str, line: int, rules: Sequence[InlineRule], outcome: Outcome) -> str:
    """Apply the inline rules, in order, to the parts of `text` outside code spans."""
    out = []
    for piece, is_code in split_spans(text):
        if not is_code:
            for rule in rules:
                piece = _apply_inline(rule, piece, line, outcome)
        out.append(piece)
    return "".join(out)


def _apply_inline(rule: InlineRule, text: str, line: int, outcome: Outcome) -> str:
    def replace(match: re.Match[str]) -> str:
        new = rule.handler(match, line, outcome)
        if new is None:
            return match[0]
        if rule.kind:
            outcome.counts[rule.kind] += 1
        return new

    return rule.pattern.sub(replace, text)


def rewrite_body(lines: list[Line], blocks: Sequence[BlockRule], inline: Sequence[InlineRule],
                 residue: Callable[[str, int, Outcome], None] | None = None) -> tuple[str, Outcome]:
    """The new body and what was done; `residue(text, line, outcome)` notes what is left."""
    outcome = Outcome()
    out = []
    for number, text, is_code in mark_code(lines, blocks, outcome):
        if not is_code:
            text = rewrite_inline(text, number, inline, outcome)
            if residue is not None:
                for piece, in_span in split_spans(text):
                    if not in_span:
                        residue(piece, number, outcome)
        out.append(text)
    return "\n".join(out), outcome
