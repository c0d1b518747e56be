"""What a fenced div's classes and id mean on a Quarto page, as this site's own blocks.

    ::: {.callout-tip title="T" collapse=true}   ->  our callout, as `> [!TIP]- T` makes it
    ::: {#thm-max}  (## Name first inside)        ->  our numbered statement "Theorem 1 (Name)"
    ::: {.proof}                                   ->  our PROOF callout (unnumbered, with ∎)
    ::: {#fig-x} / ::: {#tbl-x}                    ->  a numbered figure (figdivs.py)
    ::: {#lst-x}  (a code block, then a caption)   ->  the code block, a numbered listing
    ::: {.panel-tabset}                            ->  the tab tokens (tabsets.py)
    ::: {.content-visible when-format="html"}      ->  its content, or nothing
    ::: {.column-margin} / {.aside}                ->  <aside class="… margin-note">
    ::: {.column-page layout-ncol=2}               ->  <div class="column-page"> and a grid

Any other div is a `<div>` with its id, classes and the attributes that are safe
(attributes.py). The fenced div rule (fences.py) calls `emit` with each div.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Mapping

from markdown_it import MarkdownIt

from blogbuild.callout_kinds import Kind, build_kinds
from blogbuild.config_model import Config
from blogbuild.markdown.callouts import push_title, set_title_and_id, style_opening, tokenize_body
from blogbuild.markdown.env import Env, need
from blogbuild.markdown.quarto.attributes import html_attributes
from blogbuild.markdown.quarto.blocks import first_heading, has_text, tokenize
from blogbuild.markdown.quarto.fences import Fenced, make_div_rule, make_html_rule
from blogbuild.markdown.quarto.figdivs import RENDER_RULES, figure_div, listing_div
from blogbuild.markdown.quarto.layout import KEYS as LAYOUT_KEYS
from blogbuild.markdown.quarto.layout import has_layout, lay_out
from blogbuild.markdown.quarto.spans import spans_plugin
from blogbuild.markdown.quarto.tabsets import tabset

__all__ = ["MARGIN", "THEOREMS", "WIDE", "divs_plugin", "make_emit"]

_CALLOUT = re.compile(r"callout(?:-(note|tip|warning|important|caution))?")
_CALLOUT_KEYS = frozenset({"title", "collapse", "appearance", "icon"})
#: Quarto's theorem-like id prefixes and the statement each one is.
THEOREMS = {"thm": "theorem", "lem": "lemma", "cor": "corollary", "prp": "proposition",
            "cnj": "conjecture", "def": "definition", "exm": "example", "exr": "exercise",
            "sol": "solution", "rem": "remark", "alg": "algorithm"}
#: Unnumbered statements (Quarto's proof-like classes) and the callout type each one is.
_PROOFS = {"proof": "proof", "remark": "remark", "solution": "solution"}
#: The classes of margin content, and of boxes wider than the text column.
MARGIN = frozenset({"column-margin", "aside"})
WIDE = frozenset({f"column-{width}{side}" for width in ("page", "page-inset", "screen",
                                                         "screen-inset", "body-outset")
                  for side in ("", "-left", "-right")})
#: Output formats Quarto's conditional content counts as HTML.
_HTML = frozenset({"html", "html4", "html5", "html:js"})


def _kind(kinds: Mapping[str, Kind], name: str, *, numbered: bool) -> Kind:
    """The callout kind of a statement or proof named `name` (made from a theorem's look
    when site.yaml has no such type)."""
    kind = kinds.get(name)
    if kind is None:
        base = kinds["proof"] if name == "solution" else kinds["theorem"]
        kind = dataclasses.replace(base, title=name.title())
    return dataclasses.replace(kind, numbered=numbered)


def _callout_box(div: Fenced, name: str, kind: Kind, fold: str, title: str | None) -> None:
    """Push a callout of `kind` holding the div's body, as `> [!NAME]` would."""
    state, attrs = div.state, div.attrs
    begin = div.start + 1
    if title is None and (heading := first_heading(div)) is not None:
        title, begin = heading
    need(div.env, "callouts")
    opening = state.push("blockquote_open", "div", 1)
    opening.map = [div.start, div.end]
    style_opening(opening, name, kind, fold)
    set_title_and_id(opening, title or "", attrs.ident)
    extra = [c for c in attrs.classes if not _CALLOUT.fullmatch(c) and c not in _PROOFS]
    appearance = str(_option(div, "appearance") or "default").lower()
    if appearance in ("simple", "minimal"):
        extra.append(f"callout-{appearance}")
    if str(_option(div, "icon")).lower() == "false":
        extra.append("callout-no-icon")
    shown = html_attributes(div.env, div.line, attrs, used=_CALLOUT_KEYS | {"name"},
                            classes=extra)
    if shown.pop("class", ""):
        opening.attrs["class"] = f"{opening.attrs['class']} {' '.join(dict.fromkeys(extra))}"
    shown.pop("id", None)
    opening.attrs.update(shown)
    push_title(state, div.start, kind, title or "", fold)
    if has_text(state, begin, div.end):
        tokenize_body(state, begin, div.end, kind)
    closing = state.push("callout_close", opening.tag, -1)
    closing.meta = opening.meta


def _option(div: Fenced, key: str) -> object:
    """A callout's `key=`, else the page's `callout-KEY:` in the front matter, else None."""
    written = div.attrs.get(key)
    if written is not None:
        return written
    page = div.env.get("quarto")
    meta = getattr(page, "meta", None) or {}
    return meta.get(f"callout-{key}") if isinstance(meta, dict) else None


def _callout(div: Fenced, kinds: Mapping[str, Kind], name: str) -> None:
    collapse = (div.attrs.get("collapse") or "").lower()
    fold = "-" if collapse == "true" else "+" if collapse == "false" else ""
    _callout_box(div, name, kinds.get(name) or kinds["note"], fold, div.attrs.get("title"))


def _statement(div: Fenced, kinds: Mapping[str, Kind], name: str, *, numbered: bool) -> None:
    title = div.attrs.get("name") or div.attrs.get("title")
    _callout_box(div, name, _kind(kinds, name, numbered=numbered), "", title)


def _shown(div: Fenced) -> bool:
    """Whether conditional content shows in HTML, as Quarto decides it."""
    attrs = div.attrs
    visible = "content-visible" in attrs.classes
    when, unless = attrs.get("when-format"), attrs.get("unless-format")
    if when is not None:
        return visible == (when.strip().lower() in _HTML)
    if unless is not None:
        return visible != (unless.strip().lower() in _HTML)
    for key, wanted in (("when-meta", True), ("unless-meta", False)):
        path = attrs.get(key)
        if path is not None:
            return visible == (_meta_true(div.env, path) == wanted)
    return visible


def _meta_true(env: Env, path: str) -> bool:
    """Whether the page's front matter holds true at `path` (dotted keys), as Quarto asks."""
    page = env.get("quarto")
    value: object = getattr(page, "meta", None) or {}
    for key in path.strip().split("."):
        value = value.get(key) if isinstance(value, dict) else None
    return value is True


def _plain(div: Fenced) -> None:
    """A `<div>` (an `<aside>` for margin content), maybe laid out as a grid."""
    state, attrs = div.state, div.attrs
    classes = list(attrs.classes)
    margin = bool(MARGIN.intersection(classes))
    if margin:
        classes.append("margin-note")
    if margin or WIDE.intersection(classes):
        need(div.env, "divs")
    shown = html_attributes(div.env, div.line, attrs, used=LAYOUT_KEYS, classes=classes)
    level = state.level
    opening = state.push("quarto_div_open", "aside" if margin else "div", 1)
    opening.map = [div.start, div.end]
    opening.attrs = dict(shown)
    first = tokenize(div, div.start + 1)
    if has_layout(attrs):
        body = state.tokens[first:]
        state.tokens[first:] = lay_out(div.env, div.line, attrs, body, level + 1)
    state.push("quarto_div_close", opening.tag, -1)


def _conditional(div: Fenced) -> None:
    if not _shown(div):
        return
    first = tokenize(div, div.start + 1)
    if has_layout(div.attrs):
        level = div.state.level
        body = div.state.tokens[first:]
        div.state.tokens[first:] = lay_out(div.env, div.line, div.attrs, body, level)


def make_emit(kinds: Mapping[str, Kind]) -> Callable[[Fenced], None]:
    """What a div means, by its classes and id prefix: the fenced div rule's `emit`."""

    def emit(div: Fenced) -> None:
        attrs = div.attrs
        classes = attrs.classes
        prefix = (attrs.ident or "").partition("-")[0] if "-" in (attrs.ident or "") else ""
        callout = next((m for c in classes if (m := _CALLOUT.fullmatch(c))), None)
        if "content-visible" in classes or "content-hidden" in classes:
            _conditional(div)
        elif callout is not None:
            _callout(div, kinds, callout.group(1) or "note")
        elif "panel-tabset" in classes:
            tabset(div)
        elif prefix in ("fig", "tbl"):
            figure_div(div, "figure" if prefix == "fig" else "table")
        elif prefix == "lst":
            listing_div(div)
        elif prefix in THEOREMS:
            _statement(div, kinds, THEOREMS[prefix], numbered=True)
        elif proof := next((_PROOFS[c] for c in classes if c in _PROOFS), None):
            _statement(div, kinds, proof, numbered=False)
        else:
            _plain(div)

    return emit


def divs_plugin(md: MarkdownIt, *, config: Config, gate: Callable[[Env], bool]) -> None:
    """Fenced divs and bracketed spans, on the pages `gate` accepts (Quarto's)."""
    rule = make_div_rule(make_emit(build_kinds(config.callouts)), gate)
    md.block.ruler.before("fence", "quarto_div", rule,
                          {"alt": ["paragraph", "reference", "blockquote", "list"]})
    md.block.ruler.before("html_block", "quarto_html_block", make_html_rule(gate),
                          {"alt": ["paragraph", "reference", "blockquote"]})
    for name, render in RENDER_RULES.items():
        md.add_render_rule(name, render)
    md.use(spans_plugin, gate=gate)
