"""Quarto's labels: the number and the words of each labelled thing of a Quarto page.

Quarto counts each type of thing on its own, by the prefix of its id (`#fig-…` figures,
`#tbl-…` tables, `#eq-…` equations, `#thm-…` theorems, `#nte-…` notes, …), and words a
reference as the type's name and the number: "Figure 1", "Table 2", "Equation 3",
"Theorem 1", "Section 1.2". The core rule here runs once every plugin has made its
numbered things (figures, statements, equations, captioned tables) and before
blogbuild.markdown.xrefs: it numbers the page's labelled things in document order,
gives every heading its section number (shown in the heading with `number-sections:
true`), and hands the words over as `env["xref_words"]` (what a reference to the id says,
here and from another post) and `QuartoPage.xref_numbers` (what `@fig-x` needs: the type
and the number alone, for `[-@fig-x]` and `[see @fig-x]`). A figure's or a table's caption
starts with the same words ("Figure 1: …", `meta["caption_label"]`), and so do a callout's
title ("Tip 1: …", when its id is of its type: `#tip-a`; a rule before `inline`) and a
code listing's title (`{#lst-x lst-cap="…"}`, `meta["listing"]`); a captioned figure
without a `#fig-` id has a caption and no number, as in Quarto.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.common.utils import escapeHtml, unescapeAll
from markdown_it.rules_core import StateCore
from markdown_it.token import Token
from markdown_it.utils import OptionsDict

from blogbuild.markdown.env import Env, is_quarto
from blogbuild.markdown.fenceinfo import parse_fence
from blogbuild.markdown.figures import DRAWN
from blogbuild.markdown.quarto.figdivs import SubLabel
from blogbuild.markdown.statements import markdown_text
from blogbuild.markdown.toc import plain_text
from blogbuild.quarto import QuartoPage

__all__ = ["TYPES", "caption_words", "labels_plugin", "type_of", "words"]

#: Quarto's reference types: the id's prefix -> (the kind a reference's `data-xref` names,
#: Quarto's English word).
TYPES: dict[str, tuple[str, str]] = {
    "fig": ("figure", "Figure"), "tbl": ("table", "Table"), "lst": ("listing", "Listing"),
    "eq": ("equation", "Equation"), "sec": ("section", "Section"),
    "thm": ("theorem", "Theorem"), "lem": ("lemma", "Lemma"), "cor": ("corollary", "Corollary"),
    "prp": ("proposition", "Proposition"), "cnj": ("conjecture", "Conjecture"),
    "def": ("definition", "Definition"), "exm": ("example", "Example"),
    "exr": ("exercise", "Exercise"), "sol": ("solution", "Solution"),
    "rem": ("remark", "Remark"), "alg": ("algorithm", "Algorithm"),
    "nte": ("note", "Note"), "tip": ("tip", "Tip"), "wrn": ("warning", "Warning"),
    "imp": ("important", "Important"), "cau": ("caution", "Caution"),
}
#: Between a word and its number: Quarto's no-break space ("Figure 1" never splits).
NBSP = "\u00a0"
#: Types that are not statements nor callouts (a callout with such an id is not counted).
_FLOATS = ("fig", "tbl", "lst", "eq", "sec")


def type_of(ident: str) -> str | None:
    """The Quarto type of an id (`fig-a` -> "fig"), or None: not one of Quarto's."""
    head, dash, rest = ident.partition("-")
    return head if dash and rest and head in TYPES else None


def words(page: QuartoPage, kind: str, *, upper: bool = False) -> str:
    """What a reference to a thing of type `kind` says before its number: `crossref:`'s
    `fig-prefix`, else its `fig-title`, else Quarto's word (capitalised for `@Fig-x`)."""
    options = page.crossref
    word = options.get(f"{kind}-prefix", options.get(f"{kind}-title", TYPES[kind][1]))
    return word[:1].upper() + word[1:] if upper else word


def caption_words(page: QuartoPage, kind: str, number: str) -> str:
    """The start of a caption: "Figure 1:" (`fig-title` and `title-delim` as written)."""
    title = page.crossref.get(f"{kind}-title", TYPES[kind][1])
    return f"{title}{NBSP}{number}{page.crossref.get('title-delim', ':')}"


class _Counter:
    """Numbers by type, and the section numbers of the headings."""

    def __init__(self, top: int) -> None:
        self.by_type: dict[str, int] = {}
        self.top = top  # the page's highest heading level: its sections are 1, 2, …
        self.sections: list[int] = []

    def next(self, kind: str) -> str:
        self.by_type[kind] = self.by_type.get(kind, 0) + 1
        return str(self.by_type[kind])

    def section(self, level: int) -> str:
        depth = max(level - self.top + 1, 1)
        del self.sections[depth:]
        self.sections.extend([0] * (depth - len(self.sections)))
        self.sections[depth - 1] += 1
        return ".".join(str(n) for n in self.sections)


def _number_of(token: Token, kind: str, counter: _Counter) -> str | None:
    """The number of the labelled thing `token` opens, or None: it is not such a thing."""
    meta = token.meta or {}
    if meta.get("sub"):  # a subfigure: "Figure 1 (b)", no number of its own
        return None
    if kind == "fig" and (token.type == "figure_open"
                          or (token.type in DRAWN and meta.get("number"))):
        return counter.next(kind)
    if kind == "tbl" and token.type in ("table_open", "table_figure_open"):
        return counter.next(kind)
    if token.type == "callout_open" and meta.get("number"):
        return str(meta["number"]).rsplit(" ", 1)[-1]  # a statement: "Theorem 2"
    if token.type == "callout_open" and kind not in _FLOATS:
        return counter.next(kind)  # a statement nothing numbered (`#rem-a`)
    return None


def _listing(md: MarkdownIt, token: Token, counter: _Counter, page: QuartoPage) -> None:
    """A code block with a `#lst-` id (Pandoc's `{#lst-x .sql lst-cap="…"}`, or the code
    block of a `::: {#lst-x}` div, `meta["listing_caption"]`): numbered, its caption shown
    as the block's title ("Listing 1: Customers")."""
    fence = parse_fence(unescapeAll(token.info))
    meta = token.meta or {}
    ident = str(token.attrGet("id")) if "listing_caption" in meta else fence.ident
    if type_of(ident) != "lst":
        return
    number = counter.next("lst")
    page.xref_numbers[ident] = ("lst", number)
    # The caption (a div's caption paragraph, or `lst-cap`) shown as its text, without
    # its markup: the title is text; no message, no link.
    caption = str(meta.get("listing_caption") or fence.attrs.get("lst-cap", ""))
    if caption:
        caption = plain_text(md.parseInline(caption, {})[0].children or [])
    title = page.crossref.get("lst-title", TYPES["lst"][1])
    token.meta["listing"] = f"{caption_words(page, 'lst', number)} {caption}" if caption \
        else f"{title}{NBSP}{number}"


def _headings(tokens: list[Token], counter: _Counter, page: QuartoPage) -> None:
    """Every heading's section number (`meta["section_number"]`), and the number of a
    `#sec-` heading for its references; unnumbered headings (`{-}`) get none."""
    for token in tokens:
        if token.type != "heading_open":
            continue
        classes = str(token.attrGet("class") or "").split()
        if "unnumbered" in classes:
            continue
        number = counter.section(int(token.tag[1:]))
        token.meta["section_number"] = number
        ident = token.attrGet("id")
        if ident is not None and type_of(str(ident)) == "sec":
            page.xref_numbers[str(ident)] = ("sec", number)
    for token in tokens:  # an unnumbered section is still a target
        ident = token.attrGet("id") if token.type == "heading_open" else None
        if ident is not None and type_of(str(ident)) == "sec":
            page.xref_numbers.setdefault(str(ident), ("sec", ""))


def _caption(token: Token, page: QuartoPage, kind: str, number: str | None) -> None:
    """A captioned figure's or table's words: "Figure 1:", or none without a number."""
    token.meta["caption_label"] = caption_words(page, kind, number) if number else ""


def _sub_number(label: SubLabel) -> str:
    """A subfigure's number, "1 (a)": its figure's (counted before it: the figure opens
    first) and its letter (blogbuild.markdown.quarto.figdivs.SubLabel)."""
    return f"{label.parent.get('number', '?')} ({label.letter})"


def quarto_labels(state: StateCore) -> None:
    env = state.env
    if not is_quarto(env):
        return
    page: QuartoPage = env["quarto"]
    tokens = state.tokens
    levels = [int(t.tag[1:]) for t in tokens if t.type == "heading_open"]
    counter = _Counter(min(levels, default=1))
    _headings(tokens, counter, page)
    for token in tokens:
        ident = token.attrGet("id") if token.nesting != -1 else None
        kind = type_of(str(ident)) if ident is not None else None
        number = _number_of(token, kind, counter) if kind is not None else None
        if token.type == "fence":
            _listing(state.md, token, counter, page)
        if token.type in ("figure_open", "table_figure_open") or (
                token.type == "table_open" and "caption" in (token.meta or {})):
            _caption(token, page, "fig" if token.type == "figure_open" else "tbl",
                     number if kind in ("fig", "tbl") else None)
            if token.meta.get("quarto") and number is not None:
                token.meta["number"] = number  # a figure div's subfigures say "Figure 1 (b)"
        if number is not None and kind is not None:
            page.xref_numbers[str(ident)] = (kind, number)
        elif kind == "fig" and isinstance(sub := (token.meta or {}).get("xref_label"),
                                          SubLabel):  # a subfigure div's or picture's
            page.xref_numbers[str(ident)] = (kind, _sub_number(sub))
    for number, ident in env.get("math_labels", {}).values():
        page.xref_numbers[ident] = ("eq", number)  # as its display shows it: "(3)"
    env["xref_words"] = {ident: (TYPES[kind][0], f"{words(page, kind)}{NBSP}{number}")
                         for ident, (kind, number) in page.xref_numbers.items() if number}


#: The callouts Quarto numbers when they have an id of their type.
_CALLOUTS = ("nte", "tip", "wrn", "imp", "cau")


def callout_titles(state: StateCore) -> None:
    """A callout with an id of its type (`#tip-a`) is numbered, its title read "Tip 1:
    Title" (or "Tip 1" alone); before `inline`, so the title's Markdown is parsed after."""
    if not is_quarto(state.env):
        return
    page: QuartoPage = state.env["quarto"]
    counts: dict[str, int] = {}
    tokens = state.tokens
    for index, token in enumerate(tokens):
        ident = token.attrGet("id") if token.type == "callout_open" else None
        kind = type_of(str(ident)) if ident is not None else None
        if kind not in _CALLOUTS or kind is None or token.meta.get("number"):
            continue
        counts[kind] = counts.get(kind, 0) + 1
        title = page.crossref.get(f"{kind}-title", TYPES[kind][1])
        token.meta["number"] = f"{title} {counts[kind]}"
        if index + 2 < len(tokens) and tokens[index + 1].type == "callout_title_open":
            own = str(token.meta.get("title") or "")
            words = caption_words(page, kind, str(counts[kind])) if own else \
                f"{title}{NBSP}{counts[kind]}"
            tokens[index + 2].content = " ".join(w for w in (markdown_text(words), own) if w)


def _heading_number(self: Any, tokens: Sequence[Token], idx: int, options: OptionsDict,
                    env: Env) -> str:
    return f'<span class="header-section-number">{escapeHtml(tokens[idx].content)}</span> '


def number_headings(state: StateCore) -> None:
    """With `number-sections: true`, each numbered heading starts with its number."""
    page = state.env.get("quarto")
    if not isinstance(page, QuartoPage) or not page.number_sections:
        return
    tokens = state.tokens
    for index, token in enumerate(tokens[:-1]):
        number = (token.meta or {}).get("section_number") if token.type == "heading_open" \
            else None
        inline = tokens[index + 1]
        if number is None or inline.type != "inline":
            continue
        shown = Token("section_number", "span", 0)
        shown.content = str(number)
        inline.children = [shown, *(inline.children or [])]
        token.attrSet("data-number", str(number))


def labels_plugin(md: MarkdownIt) -> None:
    """Install with the Quarto plugins, after the math plugin: the rules are pushed after
    the math's (and the figures', placed after `inline`), and before the table of
    contents' and the xrefs' rules, which are pushed later."""
    md.core.ruler.before("inline", "quarto_callout_titles", callout_titles)
    md.core.ruler.push("quarto_labels", quarto_labels)
    md.core.ruler.push("quarto_section_numbers", number_headings)
    md.add_render_rule("section_number", _heading_number)
