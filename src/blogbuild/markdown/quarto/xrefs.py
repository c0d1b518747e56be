"""Quarto's references: `@fig-x`, `@Fig-x`, `[-@fig-x]`, `[see @fig-x]`, `[@fig-a; @fig-b]`.

    See @fig-plot.        ->  See <a href="#fig-plot" class="xref quarto-xref"
                                    data-xref="figure">Figure 1</a>.
    [-@eq-a]              ->  … >1</a>
    [Fig @fig-a]          ->  … >Fig 1</a>          (the prefix replaces the word)
    [@fig-a; @tbl-b]      ->  … >Figure 1</a>, <a …>Table 2</a>
    @fig-nothing          ->  <strong class="xref-missing">?@fig-nothing</strong>, a warning

Pandoc reads all of these as citations; Quarto takes a citation whose key starts with one
of its reference types (`fig-`, `tbl-`, `eq-`, `sec-`, `thm-`, …: labels.TYPES) as a
cross-reference, and anything else stays a citation (blogbuild.markdown.citations). The
inline rules here run before the citation rules, on Quarto pages only, and read the same
syntax (citations.syntax); a bracket that mixes both keeps its citations as citations. The
core rule runs once every label of the page is numbered (labels.py): each reference becomes
a link to its target, worded as Quarto words it, which the page's previews show on hover.
Quarto resolves references within one document only, so a key is always an id of this
page (a link `[](other.qmd#fig-x)` reaches another post's label, blogbuild.markdown.xrefs).
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from typing import Any, NamedTuple

from markdown_it import MarkdownIt
from markdown_it.common.utils import escapeHtml
from markdown_it.rules_core import StateCore
from markdown_it.rules_inline import StateInline
from markdown_it.token import Token
from markdown_it.utils import OptionsDict

from blogbuild.markdown.citations import bracket_end
from blogbuild.markdown.citations.syntax import CiteSyntax, key_of, match_key, parse_bracket
from blogbuild.markdown.env import Env, is_quarto, need, report
from blogbuild.markdown.positions import inline_lines
from blogbuild.markdown.previews import PREVIEWS
from blogbuild.markdown.quarto.labels import NBSP, TYPES, type_of, words
from blogbuild.quarto import QuartoPage

__all__ = ["refs_plugin"]


class Ref(NamedTuple):
    """One reference as written: the id (its first letter lower case), `@Fig-` (upper),
    a bracket's words before it, `-@` (the number alone), the words after it."""

    ident: str
    upper: bool = False
    prefix: str = ""
    suppress: bool = False
    suffix: str = ""


def _as_ref(cite: CiteSyntax) -> Ref | None:
    """The reference a citation's key makes, or None: a citation."""
    ident = cite.key[:1].lower() + cite.key[1:]
    if type_of(ident) is None:
        return None
    after = " ".join(part for part in (cite.locator[2] if cite.locator else "", cite.suffix)
                     if part)
    return Ref(ident, cite.key[:1].isupper(), cite.prefix, cite.suppress_author, after)


def _push(state: StateInline, refs: list[Ref], raw: str, offset: int) -> None:
    token = state.push("quarto_xref", "", 0)
    token.content = raw
    token.meta = {"refs": refs, "offset": offset}


def ref_text(state: StateInline, silent: bool) -> bool:
    """`@fig-x` in running text (not in an e-mail address, not in a link's text)."""
    src, start = state.src, state.pos
    if src[start] != "@" or state.linkLevel > 0 or not is_quarto(state.env) \
            or (start > 0 and (src[start - 1].isalnum() or src[start - 1] in "@-_.+")):
        return False
    found = match_key(src, start + 1)
    if found is None or found.end() > state.posMax:
        return False
    ref = _as_ref(CiteSyntax(key_of(found.group())))
    if ref is None:
        return False
    if not silent:
        _push(state, [ref], src[start:found.end()], start)
    state.pos = found.end()
    return True


def ref_bracket(state: StateInline, silent: bool) -> bool:
    """`[@fig-a]`, `[-@fig-a]`, `[see @fig-a; @fig-b]`; the citations of a bracket that
    mixes both are left as `citation` tokens, in their place."""
    src, start = state.src, state.pos
    if src[start] != "[" or state.linkLevel > 0 or src.startswith("[^", start) \
            or "@" not in src[start:start + 200] or not is_quarto(state.env):
        return False
    end = bracket_end(src, start, state.posMax)
    if end < 0 or src[end + 1:end + 2] in ("(", "["):
        return False
    cites = parse_bracket(src[start + 1:end])
    if cites is None or all(_as_ref(cite) is None for cite in cites):
        return False
    if not silent:
        raw = src[start:end + 1]
        run: list[CiteSyntax] = []
        for cite in [*cites, None]:
            if run and (cite is None or (_as_ref(cite) is None) != (_as_ref(run[0]) is None)):
                _flush(state, run, raw, start)
                run = []
                if cite is not None:
                    state.push("text", "", 0).content = "; "
            if cite is not None:
                run.append(cite)
    state.pos = end + 1
    return True


def _flush(state: StateInline, run: list[CiteSyntax], raw: str, offset: int) -> None:
    refs = [ref for ref in map(_as_ref, run) if ref is not None]
    if refs:
        _push(state, refs, raw, offset)
        return
    token = state.push("citation", "span", 0)  # as blogbuild.markdown.citations makes it
    token.content = raw if len(refs) == len(run) else _written(run)
    token.meta = {"cites": run, "offset": offset, "text_mode": False}


def _written(cites: list[CiteSyntax]) -> str:
    """The citations of a bracket that also holds references, as they would be written
    alone (what the page shows when they cannot be formatted)."""
    parts = []
    for cite in cites:
        locator = f", {cite.locator[2]}" if cite.locator else ""
        before = f"{cite.prefix} " if cite.prefix else ""
        after = f" {cite.suffix}" if cite.suffix else ""
        parts.append(f"{before}{'-' if cite.suppress_author else ''}@{cite.key}{locator}{after}")
    return f"[{'; '.join(parts)}]"


def _text(content: str) -> Token:
    token = Token("text", "", 0)
    token.content = content
    return token


def _missing(env: Env, ref: Ref, line: int, known: list[str]) -> list[Token]:
    """Quarto's `?@fig-x`, in bold, and a warning at the reference's line."""
    close = difflib.get_close_matches(ref.ident, known, n=1)
    hint = f" (did you mean @{close[0]}?)" if close else ""
    kind = TYPES[type_of(ref.ident) or "fig"][0]
    report(env, line, f"cross-reference @{ref.ident}: nothing on this page has the label "
           f"#{ref.ident}{hint}; give the {kind} that label ({{#{ref.ident}}}), or fix the "
           "reference")
    opening, closing = Token("strong_open", "strong", 1), Token("strong_close", "strong", -1)
    opening.attrSet("class", "xref-missing")
    before = [_text(ref.prefix + " ")] if ref.prefix else []
    return [*before, opening, _text(f"?@{ref.ident}"), closing]


def _shown(page: QuartoPage, ref: Ref, kind: str, number: str) -> str:
    if not number:  # an unnumbered section (`{-}`)
        return ref.prefix or words(page, kind, upper=ref.upper)
    if ref.prefix:
        return f"{ref.prefix}{NBSP}{number}"
    if ref.suppress:
        return number
    return f"{words(page, kind, upper=ref.upper)}{NBSP}{number}"


def _resolve(env: Env, page: QuartoPage, token: Token, line: int) -> list[Token]:
    out: list[Token] = []
    for index, ref in enumerate(token.meta["refs"]):
        if index:
            out.append(_text(page.crossref.get("ref-delim", ",") + " "))
        numbered = page.xref_numbers.get(ref.ident)
        if numbered is None:
            out.extend(_missing(env, ref, line, [*page.xref_numbers]))
            continue
        shown = _text(_shown(page, ref, *numbered))
        if page.crossref.get("ref-hyperlink") == "false":  # words, not a link
            out.append(shown)
        else:
            link = Token("link_open", "a", 1)
            link.attrs = {"href": f"#{ref.ident}", "class": "xref quarto-xref",
                          "data-xref": TYPES[numbered[0]][0]}
            out.extend([link, shown, Token("link_close", "a", -1)])
            need(env, "xrefs")
            need(env, PREVIEWS)  # a reference on the page previews its target
        if ref.suffix:
            out.append(_text(f" {ref.suffix}"))
    return out


def _nested(env: Env, page: QuartoPage, children: list[Token], line: int) -> list[Token]:
    """`children` (an image's alt text) with their references resolved."""
    out: list[Token] = []
    for child in children:
        if child.type == "quarto_xref":
            out.extend(_resolve(env, page, child, line))
            continue
        if child.children:
            child.children = _nested(env, page, child.children, line)
        out.append(child)
    return out


def quarto_refs(state: StateCore) -> None:
    env = state.env
    if not is_quarto(env):
        return
    page: QuartoPage = env["quarto"]
    done: dict[int, list[Token]] = {}
    blocks: dict[int, Token] = {}
    for child, block, line in inline_lines(env, state.tokens):
        if child.type == "quarto_xref":
            done[id(child)] = _resolve(env, page, child, line)
            blocks[id(block)] = block
        elif child.children:
            child.children = _nested(env, page, child.children, line)
    for block in blocks.values():
        children: list[Token] = []
        for child in block.children or []:
            children.extend(done.get(id(child), [child]))
        block.children = children


def _render_unresolved(self: Any, tokens: Sequence[Token], idx: int, options: OptionsDict,
                       env: Env) -> str:
    """A reference no rule resolved (none should be left): its text, as written."""
    return escapeHtml(tokens[idx].content)


def refs_plugin(md: MarkdownIt) -> None:
    """Install with the Quarto plugins: the citation rules, which come later, are placed
    after these (before `text` and `link` too), and the core rule is pushed after the
    labels' (before the citations' and the xrefs' rules)."""
    md.inline.ruler.before("text", "quarto_ref_text", ref_text)
    md.inline.ruler.before("link", "quarto_ref_bracket", ref_bracket)
    md.core.ruler.push("quarto_refs", quarto_refs)
    md.add_render_rule("quarto_xref", _render_unresolved)
