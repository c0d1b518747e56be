"""The core step of citations: check every key, format the page's citations, add the list."""

from __future__ import annotations

import html
from typing import Any

from markdown_it.rules_core import StateCore
from markdown_it.token import Token

from blogbuild.markdown.citations.syntax import CiteSyntax
from blogbuild.markdown.env import Env, need, report, token_line
from blogbuild.markdown.previews import PREVIEWS

REFERENCES_ID = "references"
HEADING_ID = "references-title"


def _citations(tokens: list[Token], env: Env) -> list[tuple[Token, int]]:
    """Every citation token of the page in order, with its source line."""
    found = []
    for block in tokens:
        if block.type != "inline" or not block.children:
            continue
        for child in block.children:
            if child.type == "citation":
                line = token_line(env, block) + block.content.count("\n", 0,
                                                                   child.meta["offset"])
                found.append((child, line))
    return found


def format_page(state: StateCore) -> None:
    env = state.env
    found = _citations(state.tokens, env)
    library = env.get("bibliography")
    _near_misses(state, library)
    if not found:
        return
    if library is None:
        for token, line in found:
            report(env, line, f"{token.content} is a citation, but this post has no "
                   "bibliography: add 'bibliography: refs.bib' to its front matter (or to "
                   "site.yaml), or write \\@ if it is not a citation")
        return
    clusters = []
    for token, line in found:
        known = [c for c in token.meta["cites"] if c.key in library.entries]
        for cite in token.meta["cites"]:
            if cite.key not in library.entries:
                _report_missing(env, library, cite.key, line)
        token.meta["known"] = known
        clusters.append(known)
    formatted = _format(env, library, [c for c in clusters if c])
    if formatted is None:  # no key found (a missing .bib file): each shown as [@key?]
        for token, _ in found:
            token.meta["html"] = token.meta["feed_html"] = _markup(
                token, [], "", None, library, links=False)
        return
    need(env, "citations")
    need(env, PREVIEWS)  # each citation previews its entry of the list
    shown = iter(zip(formatted.clusters, formatted.plain_clusters, strict=True))
    for token, _ in found:
        known = token.meta["known"]
        linked, plain = next(shown) if known else ("", "")
        token.meta["html"] = _markup(token, known, linked, formatted, library, links=True)
        token.meta["feed_html"] = _markup(token, known, plain, formatted, library,
                                          links=False)
    _add_list(state, formatted)


def _format(env: Env, library: Any, clusters: list[list[CiteSyntax]]) -> Any:
    from blogbuild.bib.style import format_citations

    if not clusters:
        return None
    cites = [[_cite(c) for c in cluster] for cluster in clusters]
    try:
        return format_citations(str(env.get("citation_style") or "author-year"),
                                dict(library.entries), cites)
    except Exception as exc:  # citeproc-py on data or a style it cannot handle
        report(env, 0, f"the citations of this post cannot be formatted ({exc!r}); they "
               "are shown as their keys: check the entries they cite, or the style")
        return None


def _cite(cite: CiteSyntax) -> Any:
    """Pages go to the style, which writes "p. 3" its way; other locators are shown as
    the author wrote them ("ch. 2"): citeproc-py drops their labels."""
    from blogbuild.bib.style import Cite

    if cite.locator is None or cite.locator[0] == "page":
        return Cite(cite.key, cite.prefix, cite.locator[:2] if cite.locator else None,
                    cite.suffix)
    suffix = " ".join(p for p in (cite.locator[2], cite.suffix) if p)
    return Cite(cite.key, cite.prefix, None, suffix, locator_text=True)


def _report_missing(env: Env, library: Any, key: str, line: int) -> None:
    close = library.close_keys(key)
    hint = f" (did you mean {', '.join(repr(k) for k in close)}?)" if close else ""
    missing = library.missing
    files = ", ".join(shown for shown, _ in library.files if shown not in missing)
    absent = f"{', '.join(missing)} does not exist" if missing else ""
    where = (f"in {files} ({absent})" if absent else f"in {files}") if files else \
        (f"({absent})" if absent else "in the bibliography")
    report(env, line, f"no entry '{key}' {where}{hint}; it is shown as [@{key}?]")


def _near_misses(state: StateCore, library: Any) -> None:
    """`@word` in running text that is no key but looks like one: a typo of a citation."""
    misses = state.env.pop("citation_near_misses", [])
    if library is None or not misses:
        return
    seen = set()
    for key, _ in misses:
        close = library.close_keys(key)
        if close and key not in seen:
            seen.add(key)
            report(state.env, _line_of(state, "@" + key),
                   f"@{key} is not a key of the bibliography, so it stays text; did you "
                   f"mean @{close[0]}? (write \\@{key} to keep it as text without this note)")


def _line_of(state: StateCore, text: str) -> int:
    """The source line of the first inline text holding `text`."""
    for block in state.tokens:
        at = block.content.find(text) if block.type == "inline" else -1
        if at >= 0:
            return token_line(state.env, block) + block.content.count("\n", 0, at)
    return token_line(state.env, None)


def _markup(token: Token, known: list[CiteSyntax], cluster: str, formatted: Any,
            library: Any, *, links: bool) -> str:
    parts = []
    if known:
        if token.meta["text_mode"] or (known[0].suppress_author and not formatted.numeric):
            inner = _narrative(known[0], cluster, formatted, library, token.meta["text_mode"],
                               links)
        else:
            inner = cluster
        keys = " ".join(c.key for c in known)
        parts.append(f'<span class="citation" data-cites="{html.escape(keys)}">{inner}'
                     "</span>")
    for cite in token.meta["cites"]:
        if cite not in known:
            parts.append('<span class="citation-missing">'
                         f"{html.escape('[@' + cite.key + '?]')}</span>")
    return " ".join(parts)


def _narrative(cite: CiteSyntax, cluster: str, formatted: Any, library: Any,
               text_mode: bool, links: bool) -> str:
    """`@key` ("Vaswani et al. (2017)") and, in author-year styles, `[-@key]` ("(2017)")."""
    from blogbuild.bib.names import author_label, year_label

    entry = library.entries[cite.key]
    locator = f", {cite.locator[2]}" if cite.locator else ""
    suffix = f" {cite.suffix}" if cite.suffix else ""
    prefix = f"{cite.prefix} " if cite.prefix else ""
    if formatted.numeric:
        text = author_label(entry)
        label = html.escape(text)
        return f"{_link(cite.key, label, links)} {cluster}" if text else cluster
    when = f"{year_label(entry)}{locator}"
    if text_mode:
        inner = f"{author_label(entry)} ({prefix}{when}{suffix})"
        return _link(cite.key, html.escape(inner), links)
    return f"({html.escape(prefix)}{_link(cite.key, html.escape(when), links)}" \
        f"{html.escape(suffix)})"


def _link(key: str, label: str, links: bool) -> str:
    return f'<a href="#ref-{html.escape(key)}">{label}</a>' if links else label


def _add_list(state: StateCore, formatted: Any) -> None:
    """The reference list, before the footnotes (as Pandoc places it)."""
    tag = "ol" if formatted.numeric else "ul"
    items = "".join(f'<li id="ref-{html.escape(key)}" class="reference">{entry}</li>\n'
                    for key, entry in formatted.entries)
    opening = Token("html_block", "", 0)
    opening.content = (f'<section class="references" id="{REFERENCES_ID}" '
                       f'aria-labelledby="{HEADING_ID}">\n')
    heading = Token("heading_open", "h2", 1)
    heading.attrSet("id", HEADING_ID)
    inline = Token("inline", "", 0)
    inline.content = "References"
    text = Token("text", "", 0)
    text.content = "References"
    inline.children = [text]
    closing = Token("heading_close", "h2", -1)
    body = Token("html_block", "", 0)
    body.content = f'<{tag} class="reference-list">\n{items}</{tag}>\n</section>\n'
    tokens = state.tokens
    at = next((i for i, t in enumerate(tokens) if t.type == "footnote_block_open"),
              len(tokens))
    tokens[at:at] = [opening, heading, inline, closing, body]
