"""Warnings for math that nothing closed: the text stays on the page, so say so and why.

The block rule notes openers on lines of their own that a blank line or the end of their
container cut off (block.Cut); the inline rule notes `$$` and `\\begin{…}` that nothing in
their paragraph closes. Both are reported here, once per line, with what to do.
"""

from __future__ import annotations

from markdown_it.rules_core import StateCore
from markdown_it.token import Token

from blogbuild.markdown.env import Env, report, source_line
from blogbuild.markdown.math.block import Cut
from blogbuild.markdown.math.number import Locator


def _cut_message(env: Env, cut: Cut) -> str:
    pair = f"{cut.opener}…{cut.closer}"
    if cut.blank is not None and cut.late_closer is not None:
        return (f"the blank line at line {source_line(env, cut.blank)} cuts the display math "
                f"{pair} (closed at line {source_line(env, cut.late_closer)}) in two, so it is "
                f"shown as text: remove the blank line inside {pair}")
    until = (f" before the blank line at line {source_line(env, cut.blank)}"
             if cut.blank is not None else "")
    return (f"{cut.opener} opens display math that is never closed, so it is shown as text: "
            f"end it with a line ending in {cut.closer}{until}")


def _inline_message(opener: str) -> str:
    if opener == "$$":
        return ("$$ is never closed in its paragraph, so it is shown as text: close the "
                "formula with $$ (a blank line ends it), or write \\$\\$ for dollar signs")
    end = "\\end" + opener[len("\\begin") :]
    return (f"{opener} is never closed in its paragraph, so it is shown as text: add "
            f"{end} before the next blank line")


def _owners(tokens: list[Token]) -> dict[int, Token]:
    """Each inline token by the identity of its text (the inline rule saw that string)."""
    return {id(token.content): token for token in tokens if token.type == "inline"}


def _as_text_message(markup: str, why: str) -> str:
    """The warning for TeX beside a `$` that stays text (inline.py, `_note_as_text`)."""
    if why == "open":
        shown = markup if len(markup) <= 30 else markup[:29] + "…"
        return (f"'{shown}' opens a formula that nothing closes in its paragraph, so it is "
                f"shown as text: end it with $ (with no digit right after it), or write \\$ "
                f"for a dollar sign")
    if why == "close":
        shown = markup if len(markup) <= 30 else "…" + markup[-29:]
        return (f"'{shown}' closes a formula that nothing opens in its paragraph, so it is "
                f"shown as text: start it with $ (with no space right after it), or write "
                f"\\$ for a dollar sign")
    tex = " ".join(markup[1:-1].split())
    shown = tex if len(tex) <= 40 else tex[:39] + "…"
    if why == "line":
        return (f"'$ {shown} $' looks like math but is shown as text, since its closing $ "
                f"is on another line: write ${shown}$ on one line, or \\$ for a dollar sign")
    return (f"'$ {shown} $' looks like math but is shown as text, since {why} follows its "
            f"closing $: put a space after that $ (${shown}$ …), or write \\$ for a dollar "
            f"sign")


def _locate(state: StateCore, key: str = "math_unclosed") -> list[tuple[int, int, str, str]]:
    """(body line, 0-based column, opener) of each opener the inline rule noted in
    env[key]: left unclosed, or (`math_as_text`) TeX beside a `$` that stays text."""
    unclosed = state.env.get(key, [])
    if not unclosed:
        return []
    owners = _owners(state.tokens)
    locator = Locator(state.src)
    found = []
    for src, start, opener, *why in unclosed:
        probe = Token("math_unclosed", "", 0)
        probe.meta = {"src": src, "start": start, "open": opener, "close": ""}
        owner = owners.get(id(src))
        owner = owner if owner is not None and owner.content is src else None
        body_line, col = locator.place(probe, owner)[0]
        found.append((body_line, col - len(opener), opener, "".join(why)))
    return found


def report_unclosed(state: StateCore) -> None:
    env = state.env
    inline = _locate(state)
    inline_lines = {line for line, _, _, _ in inline}
    taken: set[int] = set()
    for line, cut in sorted(env.get("math_cut", {}).items()):
        # A cut inside a paragraph counts only if no opener before it closed at it.
        if line in taken or not (cut.started or line in inline_lines):
            continue
        report(env, source_line(env, line), _cut_message(env, cut), column=cut.column + 1)
        taken.add(line)
        if cut.late_closer is not None:
            taken.add(cut.late_closer)
    for line, col, opener, _ in inline:
        if line not in taken:
            taken.add(line)
            report(env, source_line(env, line), _inline_message(opener), column=col + 1)
    for line, col, markup, why in _locate(state, "math_as_text"):
        if line not in taken:  # once per line, like the rest: one mistake, one message
            taken.add(line)
            report(env, source_line(env, line), _as_text_message(markup, why), column=col + 1)
