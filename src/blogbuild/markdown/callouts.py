"""Callouts: a blockquote opening with `[!TYPE]` becomes a titled, foldable box.

    > [!WARNING]- Optional *title*          ->  <details class="callout callout-warning" ...>
    > Body Markdown                               <summary class="callout-title">…</summary>
                                                  <div class="callout-body">…</div></details>

markdown-it's own blockquote rule does the line scanning (`>` stripping, laziness, tabs,
list indentation). The `callout` block rule runs on the first line *inside* a blockquote: when
that line is a marker it turns the `blockquote_open` just pushed into `callout_open`, emits the
title as its own inline token, and tokenizes the remaining lines as the body, so the body is
full block Markdown from its first line (lists, code, `---`) instead of a paragraph that began
with the marker. The `callouts` core rule then renames the matching `blockquote_close`.

markdown-it-py's built-in `alerts` option (GitHub's five types, no titles, no folding) would
claim the same marker first, so the plugin switches it off: one implementation, not two.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Mapping, Sequence
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.rules_block import StateBlock
from markdown_it.rules_core import StateCore
from markdown_it.token import Token
from markdown_it.utils import OptionsDict

from blogbuild.callout_icons import ICONS
from blogbuild.callout_kinds import BUILTIN_TYPES, CalloutType, Kind, build_kinds, title_of
from blogbuild.markdown.env import Env, need, report, source_line
from blogbuild.markdown.statements import take_id

__all__ = [
    "BUILTIN_TYPES",
    "callouts_plugin",
    "push_title",
    "set_title_and_id",
    "style_opening",
    "tokenize_body",
    "unknown_kind",
]

# `[!TYPE]`, then `-`/`+` right after the bracket, then whitespace before an optional title.
# A bracket followed by anything else (`[!NOTE]: /url`, `[!NOTE]x`) is not a marker.
_MARKER = re.compile(r"\[!([^\W\d][\w-]*)\]([+-]?)(?:[ \t]+(.*?))?[ \t]*$")
# A proof already closed by the author: ∎ (or a LaTeX QED) at the very end, maybe inside math.
_QED_END = re.compile(r"(?:∎|■|□|\\qed|\\blacksquare|\\square|\\Box)(?:\s|\$|\\\)|\\\])*$")
_MD_PUNCTUATION = re.compile(r"([!-/:-@\[-`{-~])")


def unknown_kind(
    env: Env, line: int, name: str, kinds: Mapping[str, Kind], marker: str = "[!{}]"
) -> Kind:
    """A neutral kind for a type nobody defined, and the warning that says what to write.

    `marker` shows how the author wrote the type (`[!{}]` here, `!!! {}` for admonitions)."""
    key = name.lower()
    close = difflib.get_close_matches(key, list(kinds), n=1)
    hint = f"did you mean {marker.format(close[0].upper())}? " if close else ""
    known = ", ".join(sorted({kind.type for kind in kinds.values()}))
    report(
        env,
        line,
        f"unknown callout type {marker.format(name)} (rendered as a neutral callout); {hint}"
        f"known types: {known}; add your own under 'callouts:' in site.yaml",
    )
    return Kind(key, title_of(key), ICONS["neutral"])


def style_opening(opening: Token, name: str, kind: Kind, fold: str) -> None:
    """Make `opening` the root of a callout of `kind`; `fold` is "", "-" (closed) or "+"."""
    opening.type, opening.tag = "callout_open", "details" if fold else "div"
    opening.info = name
    opening.attrs = {"class": f"callout callout-{kind.type}", "data-callout": kind.type}
    if not fold:
        opening.attrs["role"] = "note"
    if kind.color:
        opening.attrs["style"] = f"--callout-color: {kind.color}"
    opening.meta = {"type": kind.type, "fold": fold, "open": fold == "+", "name": name.lower(),
                    "label": kind.title, "numbered": kind.numbered}


def set_title_and_id(opening: Token, title: str, ident: str | None) -> None:
    """Note the author's own title (numbered statements put it after their number) and
    give the callout the `{#id}` of its first line."""
    opening.meta["title"] = title
    if ident is not None:
        opening.attrs["id"] = ident


def push_title(state: StateBlock, line: int, kind: Kind, title: str, fold: str) -> None:
    """The title row: the icon and `title` (inline Markdown), or the type's default title."""
    tag = "summary" if fold else "p"
    token = state.push("callout_title_open", tag, 1)
    token.attrs = {"class": "callout-title"}
    token.map = [line, line + 1]
    token.meta = {"icon": kind.icon}
    token = state.push("inline", "", 0)
    token.content = title or _MD_PUNCTUATION.sub(r"\\\1", kind.title)
    token.map = [line, line + 1]
    token.children = []
    state.push("callout_title_close", tag, -1)


def tokenize_body(state: StateBlock, start_line: int, end_line: int, kind: Kind) -> None:
    """The body: full block Markdown from `start_line`, and a proof's closing ∎."""
    token = state.push("callout_body_open", "div", 1)
    token.attrs = {"class": "callout-body"}
    token.map = [start_line, end_line]
    body_start = len(state.tokens)
    state.md.block.tokenize(state, start_line, end_line)
    if kind.type == "proof":
        _close_proof(state, body_start)
    state.push("callout_body_close", "div", -1)


def _make_callout_rule(kinds: Mapping[str, Kind]) -> Any:
    def callout(state: StateBlock, start_line: int, end_line: int, silent: bool) -> bool:
        # Only the first line of a blockquote, i.e. right after its opening token.
        if not state.tokens:
            return False
        opening = state.tokens[-1]
        if opening.type != "blockquote_open" or not opening.map or opening.map[0] != start_line:
            return False
        if state.is_code_block(start_line):
            return False
        pos = state.bMarks[start_line] + state.tShift[start_line]
        match = _MARKER.match(state.src, pos, state.eMarks[start_line])
        if match is None:
            return False
        if silent:
            return True

        env = state.env
        name, fold, title = match.group(1), match.group(2), (match.group(3) or "").strip()
        kind = kinds.get(name.lower()) or unknown_kind(env, source_line(env, start_line), name,
                                                       kinds)
        title, ident = take_id(env, source_line(env, start_line), title)
        need(env, "callouts")
        style_opening(opening, name, kind, fold)
        set_title_and_id(opening, title, ident)
        push_title(state, start_line, kind, title, fold)
        state.line = start_line + 1
        body_line = state.skipEmptyLines(start_line + 1)
        # A lazy continuation line (sCount < 0) can only continue a paragraph: not a body.
        if body_line < end_line and state.sCount[body_line] >= state.blkIndent:
            tokenize_body(state, start_line + 1, end_line, kind)
        return True

    return callout


def _close_proof(state: StateBlock, body_start: int) -> None:
    """End a proof with ∎: floated into its last paragraph, or as a block after the last block."""
    tokens = state.tokens
    body = tokens[body_start:]
    last_text = next((t.content for t in reversed(body) if t.content.strip()), "")
    if not body or _QED_END.search(last_text.rstrip()):
        return
    if len(body) >= 3 and body[-1].type == "paragraph_close" and body[-2].type == "inline":
        qed = Token("callout_qed", "span", 0, level=body[-2].level)
        tokens.insert(len(tokens) - 1, qed)
    else:
        state.push("callout_qed", "p", 0)


def callouts(state: StateCore) -> None:
    """Rename the `blockquote_close` of every blockquote the `callout` rule turned into one.

    Admonitions (blogbuild.markdown.admonitions) push their own `callout_close`: it ends them."""
    stack: list[Token] = []
    for token in state.tokens:
        if token.type in ("blockquote_open", "callout_open"):
            stack.append(token)
        elif token.type == "callout_close" and stack:
            stack.pop()
        elif token.type == "blockquote_close" and stack:
            opening = stack.pop()
            if opening.type == "callout_open":
                token.type, token.tag, token.meta = "callout_close", opening.tag, opening.meta


def _render_open(
    self: Any, tokens: Sequence[Token], idx: int, options: OptionsDict, env: Env
) -> str:
    token = tokens[idx]
    is_open = " open" if token.meta.get("open") else ""
    return f"<{token.tag}{self.renderAttrs(token)}{is_open}>\n"


def _render_close(
    self: Any, tokens: Sequence[Token], idx: int, options: OptionsDict, env: Env
) -> str:
    return f"</{tokens[idx].tag}>\n"


def _render_title_open(
    self: Any, tokens: Sequence[Token], idx: int, options: OptionsDict, env: Env
) -> str:
    token = tokens[idx]
    icon = f'<span class="callout-icon" aria-hidden="true">{token.meta["icon"]}</span>'
    # <strong> keeps the title a title when the stylesheet is off (reader modes, feeds).
    return f'<{token.tag}{self.renderAttrs(token)}>{icon} <strong class="callout-title-text">'


def _render_title_close(
    self: Any, tokens: Sequence[Token], idx: int, options: OptionsDict, env: Env
) -> str:
    return f"</strong></{tokens[idx].tag}>\n"


def _render_qed(
    self: Any, tokens: Sequence[Token], idx: int, options: OptionsDict, env: Env
) -> str:
    if tokens[idx].block:
        return '<p class="callout-qed">∎</p>\n'
    return ' <span class="callout-qed">∎</span>'


def callouts_plugin(md: MarkdownIt, *, types: Mapping[str, CalloutType] | None = None) -> None:
    """Turn `> [!TYPE]` blockquotes into callouts; `types` is site.yaml's `callouts:`."""
    kinds = build_kinds(types)
    md.options["alerts"] = False  # markdown-it-py's built-in subset would take the marker first
    # A callout costs two token levels (box + body) where a blockquote costs one; past
    # maxNesting markdown-it silently drops content, so allow twice the CommonMark preset's 20.
    md.options["maxNesting"] = max(int(md.options.get("maxNesting", 20)), 40)
    md.block.ruler.before("table", "callout", _make_callout_rule(kinds))
    md.core.ruler.after("block", "callouts", callouts)
    md.add_render_rule("callout_open", _render_open)
    md.add_render_rule("callout_close", _render_close)
    md.add_render_rule("callout_title_open", _render_title_open)
    md.add_render_rule("callout_title_close", _render_title_close)
    md.add_render_rule("callout_qed", _render_qed)
