"""Cross-references: a link with empty text to an id shows the target's label.

    [](#thm-ua)      ->  <a class="xref" href="#thm-ua" data-xref="theorem">Theorem 2</a>
    [](#eq-att)      ->  … data-xref="equation">(3)</a>      (also `#eq:att`, the \\label)
    [](#fig-arch)    ->  … data-xref="figure">Figure 4</a>
    [](#intro)       ->  … data-xref="section">Introduction</a>
    [](b.md#def-x)   ->  <a class="xref xref-external" href="/posts/b/#def-x"
                             data-xref="definition">Definition 1 in ‹B's title›</a>

The `xrefs` core rule runs after the statements, figures, equations and headings have their
numbers and ids, so references may come before their targets. It collects every labelled
target of the page in document order (`env["xref_labels"]`: id -> (kind, label), kept in
the render's record so other posts can show them), then fills every empty-text link to an
id with text (or formula) tokens: the renderer escapes them. A link to another post reads
that post's labels from the link map and records the lookup in `env["xrefs"]`, so the build
renders the page again when the label changes; with the target's snippet, the link previews
it (xref_previews.py). A same-page id that nothing has is a warning, and the reference shows
as `?? (#id)` in a `.xref-missing` span, not as a link. A dialect that words its labels
otherwise (a Quarto page's "Equation 3", "Section 1.2", "Table 2") puts its words in
`env["xref_words"]` (id -> (kind, label)) before this rule runs: they replace the target's
own label, and make a labelled target of an element no rule here knows (a captioned table,
a code listing).
"""

from __future__ import annotations

import copy
import difflib
import re
from collections.abc import Iterator
from typing import TYPE_CHECKING
from urllib.parse import unquote

from markdown_it import MarkdownIt
from markdown_it.rules_core import StateCore
from markdown_it.token import Token

from blogbuild.content.linkmap import LOST
from blogbuild.markdown.env import Env, need, report, token_line
from blogbuild.markdown.figures import DRAWN
from blogbuild.markdown.links import content_rel
from blogbuild.markdown.previews import PREVIEWS
from blogbuild.markdown.xref_previews import preview_id
from blogbuild.urls import has_scheme

if TYPE_CHECKING:
    from blogbuild.content.linkmap import LinkMap

__all__ = ["xref_key", "xrefs_plugin"]

#: Inline tokens a label keeps (the rest of a title's markup becomes its plain text).
_KEPT = ("text", "code_inline", "math_inline", "math_inline_double")
#: `id="…"` in raw HTML: such ids exist too (read only, to know the reference is not broken).
_RAW_ID = re.compile(r"""\sid\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'<>=`]+))""", re.IGNORECASE)


class _Target:
    def __init__(self, kind: str, pieces: list[Token], text: str, token: Token | None) -> None:
        self.kind = kind
        self.pieces = pieces  # what the reference shows
        self.text = text  # the same as plain text, for other posts
        self.token = token  # where the id is written (for the duplicate message)


def _text(content: str) -> Token:
    token = Token("text", "", 0)
    token.content = content
    return token


def _label_pieces(children: list[Token]) -> list[Token]:
    """A title's inline tokens as a label: text, code and formulas; markup and links dropped."""
    out: list[Token] = []
    for child in children:
        if child.type in _KEPT:
            piece = copy.copy(child)
            piece.meta = dict(child.meta or {})
            out.append(piece)
        elif child.type in ("softbreak", "hardbreak"):
            out.append(_text(" "))
    return out


def _plain(pieces: list[Token]) -> str:
    return "".join(p.content for p in pieces).strip()


def _inline_after(tokens: list[Token], index: int, opening: str) -> list[Token]:
    """The children of the inline token following the `opening` token after `index`."""
    for i in range(index + 1, min(index + 3, len(tokens) - 1)):
        if tokens[i].type == opening and tokens[i + 1].type == "inline":
            return [c for c in tokens[i + 1].children or [] if c.type != "heading_anchor"]
    return []


def _block_target(tokens: list[Token], index: int) -> _Target | None:
    token = tokens[index]
    meta = token.meta or {}
    if meta.get("xref_label"):  # a target that says its own label (a Quarto table div)
        pieces = [_text(str(meta["xref_label"]))]
        return _Target(str(meta.get("xref_kind") or "figure"), pieces, _plain(pieces), token)
    if token.type == "callout_open":
        if meta.get("number"):
            pieces = [_text(str(meta["number"]))]
        else:
            pieces = _label_pieces(_inline_after(tokens, index, "callout_title_open"))
            pieces = pieces or [_text(str(meta.get("label") or meta.get("name") or ""))]
        return _Target(str(meta.get("name") or "callout"), pieces, _plain(pieces), token)
    if token.type == "figure_open" or (token.type in DRAWN and meta.get("number")):
        pieces = [_text(f"Figure {meta['number']}")]
        return _Target("figure", pieces, _plain(pieces), token)
    if token.type == "heading_open":
        pieces = _label_pieces(tokens[index + 1].children or [])
        pieces = [p for p in pieces if p.type != "heading_anchor"]
        return _Target("section", pieces, _plain(pieces), token)
    return None


def _collect(state: StateCore) -> tuple[dict[str, _Target], set[str]]:
    """(the labelled targets by id, the other ids of the page: raw HTML, attribute lists)."""
    env = state.env
    targets: dict[str, _Target] = {}
    for number, ident in env.get("math_labels", {}).values():
        text = f"({number})"
        targets.setdefault(ident, _Target("equation", [_text(text)], text, None))
    plain_ids: set[str] = set()
    tokens = state.tokens
    for index, token in enumerate(tokens):
        if token.type in ("html_block", "inline"):
            plain_ids.update(_raw_ids(token))
        ident = token.attrGet("id")
        if ident is None or token.nesting == -1:
            continue
        ident = str(ident)
        found = _block_target(tokens, index)
        if found is None:
            plain_ids.add(ident)
        elif ident in targets:
            _duplicate(env, ident, token, targets[ident])
        else:
            targets[ident] = found
    words: dict[str, tuple[str, str]] = env.get("xref_words", {})
    for ident, (kind, label) in words.items():  # every one an id of the page
        first = targets.get(ident)
        targets[ident] = _Target(kind, [_text(label)], label,
                                 first.token if first is not None else None)
        plain_ids.discard(ident)
    return targets, plain_ids


def _raw_ids(token: Token) -> Iterator[str]:
    sources = [token] if token.type == "html_block" else [
        c for c in token.children or [] if c.type == "html_inline"]
    for source in sources:
        for match in _RAW_ID.finditer(source.content):
            yield next(g for g in match.groups() if g is not None)


def _duplicate(env: Env, ident: str, token: Token, first: _Target) -> None:
    """A second element with an id the page already has: it loses the id (one target)."""
    where = f" (line {token_line(env, first.token)})" if first.token is not None else \
        " (an equation's \\label)"
    report(env, token_line(env, token),
           f"the id #{ident} is used twice on this page{where}: references go to the first; "
           "give this one another id")
    token.attrs.pop("id", None)


def xref_key(rel: str, fragment: str) -> str:
    """How a render records a lookup of another document's id."""
    return f"{rel}#{fragment}"


def _walk(tokens: list[Token]) -> Iterator[tuple[Token, list[Token], int]]:
    """(block token, its children, index) of each link with no text; the caller may insert
    tokens after the index (the walk goes on after them)."""
    for block in tokens:
        children = block.children or []
        i = 0
        while i < len(children) - 1:
            if children[i].type == "link_open" and children[i + 1].type == "link_close":
                yield block, children, i
            i += 1


def _fill(children: list[Token], i: int, kind: str, pieces: list[Token],
          classes: str = "xref") -> None:
    link = children[i]
    link.attrSet("class", classes)
    if kind:
        link.attrSet("data-xref", kind)
    children[i + 1:i + 1] = pieces


def _missing(children: list[Token], i: int, ident: str) -> None:
    """Not a link: a visible mark that the reference is broken."""
    opening, closing = children[i], children[i + 1]
    opening.type, opening.tag, opening.attrs = "xref_missing_open", "span", {
        "class": "xref-missing"}
    closing.type, closing.tag = "xref_missing_close", "span"
    children[i + 1:i + 1] = [_text(f"?? (#{ident})")]


def _same_page(env: Env, fragment: str, targets: dict[str, _Target],
               plain_ids: set[str]) -> tuple[str, _Target | None] | None:
    """(the id to link to, its target or None for an unlabelled element), or None: missing."""
    if fragment in targets:
        return fragment, targets[fragment]
    if fragment in plain_ids:
        return fragment, None
    equation = env.get("math_labels", {}).get(fragment)  # `#eq:att`: the \label itself
    if equation is not None and equation[1] in targets:
        return equation[1], targets[equation[1]]
    aliases: dict[str, str] = env.get("heading_aliases", {})
    heading = aliases.get(fragment) or aliases.get(fragment.lower())
    if heading is not None and heading in targets:
        return heading, targets[heading]
    return None


def _other_post(env: Env, href: str, children: list[Token], i: int, taken: set[str]) -> None:
    """`[](other.md#id)`: "Theorem 2 in ‹title›", from the other document's record, and a
    preview of the target when that record has its snippet (`taken`: the page's ids)."""
    links: LinkMap | None = env.get("links")
    source_dir = env.get("source_dir")
    path, _, fragment = href.partition("#")
    rel = content_rel(path.partition("?")[0], source_dir) if source_dir is not None else None
    if links is None or rel is None or rel not in links.labels:
        children[i + 1:i + 1] = [_text(unquote(href))]  # the link check reports a bad path
        return
    fragment = unquote(fragment)
    key = xref_key(rel, fragment)
    env.setdefault("xrefs", {})[key] = links.xref_outcome(rel, fragment)
    title = links.labels[rel][1]
    found = links.targets.get(rel, {}).get(fragment)
    if found is None:  # the link check says whether the page has the id at all
        _fill(children, i, "", [_text(title)], "xref xref-external")
    else:
        _fill(children, i, found[0], [_text(f"{found[1]} in {title}")], "xref xref-external")
    preview = links.previews.get(rel, {}).get(fragment)
    html = links.preview_html(rel, fragment)
    if preview is not None and html is None:  # the store lost it: the build renders it again
        env["xrefs"][key] = LOST
    if preview is not None and html is not None:
        need(env, PREVIEWS)
        link = children[i]
        link.attrSet("data-preview", preview_id(env, key, (html, preview[1]), taken))
        # The feed entry has no templates.
        link.meta = {**link.meta, "feed_attrs": {**link.meta.get("feed_attrs", {}),
                                                 "data-preview": None}}


def xrefs(state: StateCore) -> None:
    env = state.env
    targets, plain_ids = _collect(state)
    env["xref_labels"] = {ident: (t.kind, t.text) for ident, t in targets.items()}
    taken = {*targets, *plain_ids}
    for block, children, i in _walk(state.tokens):
        href = str(children[i].attrGet("href") or "")
        if not href.startswith("#"):
            if "#" in href and not has_scheme(href) and not href.startswith("/"):
                need(env, "xrefs")
                _other_post(env, href, children, i, taken)
            continue
        if len(href) == 1:
            continue
        need(env, "xrefs")
        need(env, PREVIEWS)  # a reference on the page previews its target
        fragment = unquote(href[1:])
        found = _same_page(env, fragment, targets, plain_ids)
        if found is None:
            close = difflib.get_close_matches(fragment, [*targets, *plain_ids], n=1)
            hint = f" (did you mean #{close[0]}?)" if close else ""
            report(env, token_line(env, block),
                   f"cross-reference [](#{fragment}): nothing on this page has the id "
                   f"#{fragment}{hint}; give the statement, figure, equation or heading that "
                   "id, or fix the reference")
            _missing(children, i, fragment)
            continue
        ident, target = found
        children[i].attrSet("href", f"#{ident}")
        if target is None:
            _fill(children, i, "", [_text(ident)])
        else:
            _fill(children, i, target.kind, [copy.copy(p) for p in target.pieces])


def xrefs_plugin(md: MarkdownIt) -> None:
    """Install after the toc plugin (heading ids) and before the links plugin (site_links)."""
    md.core.ruler.before("toc_entries", "xrefs", xrefs)
