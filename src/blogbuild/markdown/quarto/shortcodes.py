"""Quarto's shortcodes on a Quarto page: `{{< name args >}}` in running text.

`video` is the site's video widget (its facade, its URL checks), `pagebreak` a break in
print, `meta` and `var` the value of a front matter key or of the site's `_variables.yml`
(as text, escaped), `kbd` a key, `fa` a Font Awesome icon (see its module, `icons`).
The others (`lipsum`, `embed`, `placeholder`, `env`, an extension's) stay as written
with a warning at their line saying what to do;
`{{{< x >}}}` shows `{{< x >}}`. Code spans and code blocks are never read, and the
foreign-syntax warnings (blogbuild.markdown.foreign) do not see a shortcode read here.
`include` is expanded before parsing (blogbuild.quarto.include); one that is not alone on
its line is a warning here. A `meta` or `var` inside a link's URL
(`[x](https://{{< meta sub >}}quarto.org/)`) is its value, percent-escaped, as Quarto
expands it there; one that has no value leaves the link's text only, with a warning.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Sequence
from typing import Any
from urllib.parse import quote

from markdown_it import MarkdownIt
from markdown_it.common.utils import escapeHtml
from markdown_it.rules_core import StateCore
from markdown_it.rules_inline import StateInline
from markdown_it.token import Token
from markdown_it.utils import OptionsDict

from blogbuild.markdown.env import Env, is_quarto, need, report
from blogbuild.markdown.positions import inline_lines
from blogbuild.markdown.quarto.icons import icon_svg
from blogbuild.markdown.widgets import DivInput, build_meta
from blogbuild.urls import UrlBuilder

__all__ = ["shortcodes_plugin"]

_CODE = re.compile(r"\{\{(\{)?<[ \t]*([A-Za-z][\w.-]{0,60})((?:[^>\n]|>(?!\}\}))"
                   r"{0,500}?)[ \t]*>\}\}(?(1)\})")
_NAMED = re.compile(r"[A-Za-z][\w-]*=")
#: A link's `(URL)` holding shortcodes: no spaces but theirs, no title.
_URL = re.compile(r"\([ \t]*((?:[^\s()<>{]|\{(?!\{<)|\{\{<[^>\n]{1,200}?>\}\})+)[ \t]*\)")
#: What a value put in a URL keeps as written (the rest percent-escaped).
_URL_SAFE = ":/?#[]@!$&'*+,;=%~"
#: Shortcodes that are a block: a paragraph holding only one becomes that block.
_BLOCKS = frozenset({"video", "pagebreak"})
_ADVICE = {
    "lipsum": "write the placeholder text itself",
    "embed": "cells of other notebooks are not embedded: copy the cell into this post, "
             "or link to the notebook",
    "placeholder": "use a picture of your own: ![what it shows](picture.png)",
    "env": "environment variables are not read when the site is built: write the value",
    "include": "an include must be on a line of its own",
}


def _shortcode(state: StateInline, silent: bool) -> bool:
    if not is_quarto(state.env) or not state.src.startswith("{{", state.pos):
        return False
    found = _CODE.match(state.src, state.pos)
    if found is None:
        return False
    if not silent:
        escaped = found[1] is not None
        token = state.push("quarto_literal" if escaped else "quarto_shortcode", "", 0)
        token.content = found[0][1:-1] if escaped else found[0]
        token.meta = {"offset": state.pos, "name": found[2], "args": found[3].strip()}
    state.pos = found.end()
    return True


def _resolve(state: StateCore, urls: UrlBuilder) -> None:
    """Each shortcode's output (or a warning and its text) once lines are known; a
    paragraph holding only a block shortcode becomes that block."""
    env = state.env
    if not is_quarto(env):
        return
    for child, block, line in list(inline_lines(env, state.tokens)):
        if child.type == "quarto_shortcode":
            _apply(child, block, line, env, urls)
        elif child.type == "quarto_url_missing":
            report(env, line, f"{child.content} in a link's URL has no value here (see the "
                   "front matter, or content/_variables.yml for a var), so the link is left "
                   "out and its text kept; give it the value or write the URL")
    tokens = state.tokens
    for index in range(len(tokens) - 3, -1, -1):
        inline = tokens[index + 1]
        if tokens[index].type != "paragraph_open" or inline.type != "inline":
            continue
        kids = [c for c in inline.children or []
                if not (c.type == "text" and not c.content.strip())]
        if len(kids) == 1 and kids[0].meta.get("block"):
            made = kids[0]
            made.block, made.map = True, tokens[index].map
            made.type = made.meta["block"]
            tokens[index:index + 3] = [made]
    for child, _, line in inline_lines(env, state.tokens):
        if child.type == "quarto_video_inline":
            report(env, line, "a {{< video >}} inside text is shown as a link to the video: "
                   "put the shortcode on a line of its own, with blank lines around it, for "
                   "the player")


def _apply(token: Token, block: Token, line: int, env: Env, urls: UrlBuilder) -> None:
    name = token.meta["name"]
    try:
        words = shlex.split(token.meta["args"])
    except ValueError:
        words = token.meta["args"].split()
    args = [w for w in words if not _NAMED.match(w)]
    named = dict(w.split("=", 1) for w in words if _NAMED.match(w))
    if name in ("meta", "var"):
        _value(token, name, args, line, env)
    elif name == "kbd":
        keys = args or list(named.values())[:1]
        token.type, token.content = "quarto_kbd", " ".join(keys)
    elif name == "pagebreak":
        token.meta["block"], token.type = "quarto_pagebreak", "quarto_literal"
        token.content = ""
    elif name == "video":
        _video(token, args, named, line, env, urls)
    elif name == "fa":
        _icon(token, args, named, line, env)
    else:
        advice = _ADVICE.get(name, "Quarto's extensions are not run here: write what it "
                                   "makes as Markdown or HTML")
        report(env, line, f"the shortcode {{{{< {name} >}}}} is not supported: {advice}; "
               "it is shown as written")
        token.type = "quarto_literal"


def _icon(token: Token, args: list[str], named: dict[str, str], line: int, env: Env) -> None:
    """`{{< fa [style] name size=… title=… label=… >}}`: the icon's picture, or its text
    and a warning."""
    svg, problems = icon_svg(args, named)
    for problem in problems:
        report(env, line, problem)
    if not svg:
        token.type = "quarto_literal"
        return
    need(env, "icons")
    token.type, token.meta["svg"] = "quarto_icon", svg


def _lookup(env: Env, name: str, key: str) -> Any:
    """The value `{{< meta key >}}` or `{{< var key >}}` reads (a dotted key reads into
    mappings); None when there is none."""
    page = env["quarto"]
    value: Any = page.meta if name == "meta" else page.variables
    for part in key.split(".") if key else ():
        value = value.get(part) if isinstance(value, dict) else None
    return value if key else None


def _text_of(value: Any) -> str:
    """A value as the page shows it: a list's items joined, booleans as YAML writes them."""
    if isinstance(value, list):
        return ", ".join(str(v) for v in value)
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _value(token: Token, name: str, args: list[str], line: int, env: Env) -> None:
    """`{{< meta key >}}` or `{{< var key >}}` (a dotted key reads into mappings)."""
    page = env["quarto"]
    where = page.meta if name == "meta" else page.variables
    key = args[0] if args else ""
    value = _lookup(env, name, key)
    if not key or value is None or isinstance(value, dict):
        source = "the front matter" if name == "meta" else "content/_variables.yml"
        what = (f"has no '{key}'" if where is not None else "does not exist") if key \
            else "is read by the key named after it"
        if isinstance(value, dict):
            what = f"has a mapping, not text, at '{key}'"
        report(env, line, f"{{{{< {name} {key} >}}}}: {source} {what}; it is shown as "
               "written")
        token.type = "quarto_literal"
        return
    token.type, token.content = "quarto_literal", _text_of(value)


def _link(state: StateInline, silent: bool) -> bool:
    """`[text](URL)` whose URL holds `{{< meta key >}}` or `{{< var key >}}`: the link, the
    values put in percent-escaped (a value missing: not a link here, the warning later)."""
    if not is_quarto(state.env) or state.src[state.pos] != "[" or "{{<" not in state.src:
        return False
    label_end = state.md.helpers.parseLinkLabel(state, state.pos, True)
    if label_end < 0:
        return False
    found = _URL.match(state.src, label_end + 1, state.posMax)
    if found is None or "{{<" not in found[1]:
        return False
    parts: list[str] = []
    at, missing = 0, ""
    for code in _CODE.finditer(found[1]):
        words = code[3].split()
        value = _lookup(state.env, code[2], words[0]) if code[2] in ("meta", "var") and \
            len(words) == 1 and code[1] is None else None
        if value is None or isinstance(value, dict):
            missing = missing or code[0]
            continue
        parts += [found[1][at:code.start()], quote(_text_of(value), safe=_URL_SAFE)]
        at = code.end()
    url = "".join(parts) + found[1][at:]
    destination = state.md.helpers.parseLinkDestination(url, 0, len(url))
    href = state.md.normalizeLink(destination.str) \
        if destination.ok and destination.pos == len(url) else ""
    if not missing and (not href or not state.md.validateLink(href)):
        return False
    if not silent:
        old_max = state.posMax
        state.pos, state.posMax = state.pos + 1, label_end
        if missing:  # its text, and the warning once the line is known (`_resolve`)
            state.push("quarto_url_missing", "", 0).content = missing
        else:
            state.push("link_open", "a", 1).attrs = {"href": href}
        state.linkLevel += 1
        state.md.inline.tokenize(state)
        state.linkLevel -= 1
        if not missing:
            state.push("link_close", "a", -1)
        state.posMax = old_max
    state.pos = found.end()
    return True


def _video(token: Token, args: list[str], named: dict[str, str], line: int, env: Env,
           urls: UrlBuilder) -> None:
    """The site's video widget for `{{< video URL title=… start=… >}}`."""
    url = named.get("src") or (args[0] if args else "")
    start = named.get("start", "").strip()
    if start and "#" not in url:
        url += f"#t={start}"
    attrs = {"data-src": url, "data-caption": named.get("title", ""), "class": "video-embed"}
    if named.get("id"):
        attrs["id"] = named["id"]
    token.meta["widget"] = build_meta(DivInput("video-embed", attrs, "", line, env, urls))
    token.meta.update(token.meta.pop("widget"))
    token.meta["block"], token.type = "video_embed", "quarto_video_inline"


def _literal(self: Any, tokens: Sequence[Token], idx: int, options: OptionsDict,
             env: Env) -> str:
    return escapeHtml(tokens[idx].content)


def _icon_html(self: Any, tokens: Sequence[Token], idx: int, options: OptionsDict,
               env: Env) -> str:
    return str(tokens[idx].meta["svg"])


def _kbd(self: Any, tokens: Sequence[Token], idx: int, options: OptionsDict, env: Env) -> str:
    return f"<kbd>{escapeHtml(tokens[idx].content)}</kbd>"


def _pagebreak(self: Any, tokens: Sequence[Token], idx: int, options: OptionsDict,
               env: Env) -> str:
    return '<div class="pagebreak" aria-hidden="true"></div>\n'


def _video_inline(self: Any, tokens: Sequence[Token], idx: int, options: OptionsDict,
                  env: Env) -> str:
    """A video inside running text cannot be a figure there: its link."""
    meta = tokens[idx].meta
    url = meta.get("page") or meta["args"]
    return f'<a href="{escapeHtml(url)}">{escapeHtml(meta.get("caption") or url)}</a>'


def shortcodes_plugin(md: MarkdownIt, *, urls: UrlBuilder) -> None:
    md.inline.ruler.before("link", "quarto_shortcode_link", _link)
    md.inline.ruler.after("text", "quarto_shortcode", _shortcode)
    md.core.ruler.after("inline", "quarto_shortcodes", lambda state: _resolve(state, urls))
    md.add_render_rule("quarto_literal", _literal)
    md.add_render_rule("quarto_url_missing", lambda *_: "")
    md.add_render_rule("quarto_kbd", _kbd)
    md.add_render_rule("quarto_icon", _icon_html)
    md.add_render_rule("quarto_pagebreak", _pagebreak)
    md.add_render_rule("quarto_video_inline", _video_inline)
