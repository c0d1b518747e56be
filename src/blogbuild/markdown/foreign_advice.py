"""What to write in blogbuild instead of another generator's tag: one warning text per construct.

Kept apart from the scanner (foreign.py) so the advice reads as a table."""

from __future__ import annotations

_VIDEO = 'a video embed: <div class="video-embed" data-src="{url}"></div>'
_CALLOUT = "a callout: > [!NOTE] (or !!! note with an indented body)"
_LINK = "a link to the post's Markdown file: [text](other-post.md)"
_FIGURE = 'an image with a caption: ![alt text](/path/image.png "Caption")'
_FENCE = "a fenced code block: ```{lang} … ```"
_EMBED = "a link to it, or the embed's own HTML (raw HTML passes through)"
_COLLAPSIBLE = '<div class="collapsible" data-label="Title" markdown="1"> … </div>'

_LIQUID_TAGS = {
    "include": "the HTML the include produced (raw HTML passes through), or nothing",
    "include_relative": "the HTML the include produced (raw HTML passes through), or nothing",
    "raw": "just the text: delete {% raw %} and {% endraw %}, blogbuild does not run Liquid",
    "comment": "a comment blogbuild removes: %% … %%",
    "link": _LINK,
    "post_url": _LINK,
    "gist": _EMBED,
    "youtube": _VIDEO.format(url="https://www.youtube.com/watch?v=ID"),
    "video": _VIDEO.format(url="https://example.org/clip.mp4"),
    "img": _FIGURE,
    "image": _FIGURE,
    "figure": _FIGURE,
    "math": "math between $ … $ or $$ … $$",
    "latex": "math between $ … $ or $$ … $$",
}
_LIQUID_LOGIC = frozenset({"assign", "capture", "if", "unless", "for", "case", "cycle",
                           "increment", "decrement", "tablerow"})

_SHORTCODES = {
    "highlight": _FENCE,
    "figure": _FIGURE,
    "ref": _LINK,
    "relref": _LINK,
    "gist": _EMBED,
    "tweet": _EMBED,
    "twitter": _EMBED,
    "x": _EMBED,
    "instagram": _EMBED,
    "details": _COLLAPSIBLE,
    "notice": _CALLOUT,
    "hint": _CALLOUT,
    "alert": _CALLOUT,
    "admonition": _CALLOUT,
    "callout": _CALLOUT,
    "note": _CALLOUT,
    "tip": _CALLOUT,
    "warning": _CALLOUT,
    "katex": "math between $ … $ or $$ … $$",
    "math": "math between $ … $ or $$ … $$",
    "param": "the value itself",
}


def _first_arg(args: str) -> str:
    """The first argument of a shortcode (`youtube ID`, `youtube id="ID"`), without quotes."""
    words = args.split()
    first = words[0] if words else ""
    name, equals, value = first.partition("=")
    if equals:
        first = value if name == "id" else ""
    return first.strip("\"'")


def _liquid_tag(name: str, args: str) -> str:
    construct = f"Liquid tag {{% {name} %}}"
    if name in _LIQUID_LOGIC:
        return f"{construct}: Liquid logic does not run in blogbuild; write its result instead"
    if name == "highlight":
        instead = _FENCE.format(lang=_first_arg(args) or "lang")
    else:
        instead = _LIQUID_TAGS.get(name, "the HTML or Markdown it produced")
    return f"{construct} does not run in blogbuild (shown as text); write {instead}"


def _liquid_output(expr: str) -> str:
    construct = f"Liquid output {{{{ {expr} }}}}"
    if any(word in expr for word in ("baseurl", "site.url", "relative_url", "absolute_url")):
        return (f"{construct} does not run in blogbuild (shown as text); site-root paths start "
                "with '/' and blogbuild adds the site's sub-path: write '/path/' instead")
    return f"{construct} does not run in blogbuild (shown as text); write the value itself"


def _shortcode(name: str, args: str, delimiter: str) -> str:
    closing = ">" if delimiter == "<" else delimiter
    construct = (f"Hugo shortcode {{{{{delimiter} {name} {closing}}}}}" if name
                 else "Hugo shortcode")
    first = _first_arg(args)
    if name in ("youtube", "vimeo"):
        url = (f"https://www.youtube.com/watch?v={first or 'ID'}" if name == "youtube"
               else f"https://vimeo.com/{first or 'ID'}")
        instead = _VIDEO.format(url=url)
    elif name == "highlight":
        instead = _FENCE.format(lang=first or "lang")
    else:
        instead = _SHORTCODES.get(name, "the HTML or Markdown it produced")
    return f"{construct} does not run in blogbuild (shown as text); write {instead}"


def _kramdown_extension(name: str) -> str:
    construct = f"kramdown extension {{::{name}}}"
    if name == "nomarkdown":
        return (f"{construct} is not supported (shown as text); write the HTML directly, raw "
                "HTML passes through")
    if name == "options":
        return f"{construct} does not apply in blogbuild; delete the line"
    return f"{construct} is not supported (shown as text); write the text it stood for"


_FIXED = {
    "fenced_div": "fenced div (::: name) is not supported (shown as text); write a callout "
                  "(> [!NOTE]) or <div class=\"name\" markdown=\"1\"> … </div>",
    "snippet": "pymdownx snippet (--8<--) includes another file, which blogbuild does not do "
               "(shown as text); paste the file's text here, code in a fenced code block",
    "kramdown_ald": "kramdown attribute list definition ({:name: …}) is not supported (shown "
                    "as text); write the attributes on the block: {: .class #id}",
    "kramdown_span": "kramdown span attribute list ({: …} inside a paragraph) is not "
                     "supported (shown as text); attribute lists go on their own line after "
                     "a block, or write raw HTML: <span class=\"…\">…</span>",
}


def advice(kind: str, name: str, args: str, *, delimiter: str = "<") -> str:
    """The warning for one construct: what it is, that it stays text, what to write instead.

    `delimiter` is the one a Hugo shortcode was written with: `<` or `%`."""
    if kind == "hugo":
        return _shortcode(name, args, delimiter)
    if kind == "liquid_tag":
        return _liquid_tag(name, args)
    if kind == "liquid_out":
        return _liquid_output(args)
    if kind == "kramdown_ext":
        return _kramdown_extension(name)
    return _FIXED[kind]
