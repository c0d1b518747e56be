"""HTML of notebook outputs (pandas tables, `IPython.display.HTML`, rich reprs) made safe to
put in a page, with a note of what was taken out.

The sanitizing is Ammonia's (through nh3), which parses as a browser does and writes back
only an allowlist: formatting, lists, tables, headings, figures, images, links, details; the
attributes `class`, `title`, `lang`, `dir` and a few per element; no `style`, no `id` (they
would restyle the page or clash with its ids); URLs http, https, mailto and relative, and a
`data:` URL only as the `src` of a PNG, JPEG, GIF or WebP image. Scripts and style sheets go
with their content.

What was taken out is told by a second, independent parse (the standard library's
`html.parser`), never by patterns over the markup: it names scripts, frames, objects, style
sheets, event handlers and script URLs, and looks inside `<style>` text too, where the
mutation-XSS inputs (`<math><mtext><table><mglyph><style><img onerror=…>`) hide an element
that a browser would build.

Bounded time: Ammonia's parser, like a browser's, is quadratic on some markup (thousands of
unclosed `<div>`s; formatting elements it re-opens in every paragraph). The survey counts
both, and past a limit the output is the text alone, escaped.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from html.parser import HTMLParser

import nh3

__all__ = ["Cleaned", "clean_html", "has_active_content"]

TAGS = frozenset({
    "a", "abbr", "b", "bdi", "bdo", "blockquote", "br", "caption", "cite", "code", "col",
    "colgroup", "dd", "del", "details", "dfn", "div", "dl", "dt", "em", "figcaption", "figure",
    "h1", "h2", "h3", "h4", "h5", "h6", "hr", "i", "img", "ins", "kbd", "li", "mark", "ol", "p",
    "pre", "q", "s", "samp", "small", "span", "strong", "sub", "summary", "sup", "table",
    "tbody", "td", "tfoot", "th", "thead", "time", "tr", "u", "ul", "var", "wbr",
})
# Removed with everything inside: what would otherwise leave its source code as text.
CONTENT_TAGS = frozenset({"script", "style", "noscript", "template", "iframe", "object"})
ATTRIBUTES = {
    "*": {"class", "title", "lang", "dir"},
    "a": {"href"},
    "img": {"alt", "src", "width", "height"},
    "td": {"colspan", "rowspan", "align"},
    "th": {"colspan", "rowspan", "align", "scope"},
    "tr": {"align"},
    "col": {"span"},
    "colgroup": {"span"},
    "details": {"open"},
    "ol": {"start", "reversed"},
    "time": {"datetime"},
}
URL_SCHEMES = frozenset({"http", "https", "mailto", "data"})  # data: only as _keep allows
LINK_REL = "noopener noreferrer nofollow"

_RASTER_DATA = re.compile(r"data:image/(?:png|jpeg|gif|webp)[;,]")
_SIZE = re.compile(r"[0-9]{1,5}%?")
# What a browser ignores in a URL before reading its scheme: ASCII whitespace and C0
# controls anywhere (tab and newline inside "java\tscript:" too), upper case.
_URL_NOISE = re.compile(r"[\x00-\x20]+")

# Limits past which Ammonia's time would grow with the square of the input (see above).
MAX_DEPTH = 512
MAX_REOPENED = 1_000_000

_VOID = frozenset({"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta",
                   "param", "source", "track", "wbr"})
# Elements whose end tag may be left out: the next sibling closes them, so they do not nest.
_OPTIONAL_END = frozenset({"p", "li", "dt", "dd", "tr", "td", "th", "option", "optgroup",
                           "thead", "tbody", "tfoot", "colgroup", "caption", "rb", "rt", "rp",
                           "html", "head", "body"})
# The formatting elements a browser re-opens after a block that cut them off.
_FORMATTING = frozenset({"a", "b", "big", "code", "em", "font", "i", "nobr", "s", "small",
                         "strike", "strong", "tt", "u"})
_ACTIVE_ELEMENTS = {"script": "a script", "iframe": "an iframe", "frame": "a frame",
                    "frameset": "a frame set", "object": "an object", "embed": "an embed",
                    "applet": "an applet", "base": "a base URL"}
# Elements whose content a browser reads as text up to their end tag, as `html.parser` does
# only for script and style: without this a `</noscript>` inside an attribute would hide an
# element that follows it.
_RAW_TEXT = frozenset({"iframe", "noembed", "noframes", "noscript", "plaintext", "textarea",
                       "title", "xmp"})
# Raw text that can still become elements: `<style>` inside MathML or SVG, `<noscript>` where
# scripting is off. Its text is surveyed as markup too.
_MAY_BE_MARKUP = frozenset({"style", "noscript"})
_URL_ATTRIBUTES = frozenset({"href", "src", "action", "formaction", "xlink:href", "data",
                             "poster", "background"})
_SCRIPT_SCHEMES = ("javascript:", "vbscript:", "data:text/", "data:application/",
                   "data:image/svg")


@dataclass(frozen=True)
class Cleaned:
    """Sanitized HTML and, in human words, what was taken out ("a script", "an event
    handler (onclick)"), each once, in the order found."""

    html: str
    removed: tuple[str, ...]


def clean_html(markup: str) -> Cleaned:
    """`markup` made safe to put in a page; see the module's docstring for what stays."""
    survey = _survey(markup)
    removed = tuple(dict.fromkeys(word for word, _ in survey.found))
    if survey.too_costly:
        text = html.escape("".join(survey.text), quote=False)
        return Cleaned(text, (*removed, "all markup (nested too deeply; kept as text)"))
    return Cleaned(_CLEANER.clean(markup), removed)


def has_active_content(markup: str) -> bool:
    """Whether `markup` would run anything in a browser: a script, an event handler, a
    script URL, a frame, an object or an embed."""
    return any(active for _, active in _survey(markup).found)


def _keep(element: str, attribute: str, value: str) -> str | None:
    """Ammonia's attribute filter (run before its URL check): a `data:` URL only as a raster
    image's `src`, sizes only as digits."""
    if attribute in ("href", "src"):
        url = _URL_NOISE.sub("", value).lower()
        if url.startswith("data:") and not (
                element == "img" and attribute == "src" and _RASTER_DATA.match(url)):
            return None
    if attribute in ("width", "height") and not _SIZE.fullmatch(value.strip()):
        return None
    if attribute == "class":
        kept = [name for name in value.split() if not _THEME_CLASS.match(name)]
        return " ".join(kept) or None
    return value


#: Classes the theme's scripts act on or that make a widget of the page (a runnable
#: block, an embed, a code block's copy button): an output's HTML may not borrow them.
_THEME_CLASS = re.compile(
    r"(?:codeblock|copy-button|runnable|collapsible|hf-space|video-embed|image-compare|"
    r"compare-|comments|giscus|footnote|heading-anchor|post-body|search|toc$|mermaid|"
    r"xref|nb-|theme-|skip-link|widget)", re.IGNORECASE)


_CLEANER = nh3.Cleaner(
    tags=TAGS, clean_content_tags=CONTENT_TAGS, attributes=ATTRIBUTES, attribute_filter=_keep,
    strip_comments=True, link_rel=LINK_REL, url_schemes=URL_SCHEMES, url_relative="pass_through",
)


@dataclass
class _Survey:
    """What a look through a notebook output's HTML found."""

    found: list[tuple[str, bool]] = field(default_factory=list)  # words, whether it runs
    text: list[str] = field(default_factory=list)  # outside scripts and style sheets
    too_costly: bool = False


def _survey(markup: str) -> _Survey:
    # Nothing after the last ">" can be a tag, a comment or a declaration, and feeding it
    # would make html.parser retry each "<" there to the end (quadratic time): it is text.
    end = markup.rfind(">") + 1
    parser = _Surveyor()
    parser.feed(markup[:end])
    parser.close()
    if not parser.cdata_elem:
        parser.survey.text.append(markup[end:])
    return parser.survey


class _Surveyor(HTMLParser):
    """Notes what `clean_html` takes out, and what would make Ammonia slow."""

    def __init__(self, *, nested: bool = False) -> None:
        super().__init__(convert_charrefs=True)
        self.survey = _Survey()
        self.nested = nested
        self.open: list[str] = []
        self.formatting = 0  # formatting elements opened and not closed
        self.reopened = 0  # a bound on the elements a browser would re-open
        self._unclosed: dict[str, tuple[str, int]] = {}

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = self.survey.found
        if tag in _ACTIVE_ELEMENTS:
            found.append((_ACTIVE_ELEMENTS[tag], True))
        elif tag == "style" or (tag == "link" and any(
                n == "rel" and "stylesheet" in (v or "").lower() for n, v in attrs)):
            found.append(("a style sheet", False))
        elif tag == "meta" and any(n == "http-equiv" and (v or "").lower() == "refresh"
                                   for n, v in attrs):
            found.append(("a meta refresh", True))
        for name, value in attrs:
            if name.startswith("on"):
                found.append((f"an event handler ({name})", True))
            elif name in _URL_ATTRIBUTES and value:
                url = _URL_NOISE.sub("", value).lower()
                scheme = next((s for s in _SCRIPT_SCHEMES if url.startswith(s)), None)
                if scheme and not (tag == "img" and url.startswith("data:image/")):
                    kind = scheme.split(":")[0]
                    noun = "link" if name.endswith("href") else "URL"
                    found.append((f"a {kind}: {noun}", True))
        self._count(tag)
        if tag in _RAW_TEXT:
            self.set_cdata_mode(tag)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)
        self.handle_endtag(tag)

    def handle_endtag(self, tag: str) -> None:
        if tag in _FORMATTING:
            self.formatting = max(0, self.formatting - 1)
        if tag == self.cdata_elem:
            self.clear_cdata_mode()
        if tag in self.open:
            while self.open.pop() != tag:
                pass

    def handle_data(self, data: str) -> None:
        if self.cdata_elem is None:
            self.survey.text.append(data)
        elif self.cdata_elem in _MAY_BE_MARKUP and "<" in data and not self.nested:
            inner = _Surveyor(nested=True)
            inner.feed(data)
            inner.close()
            self.survey.found += inner.survey.found

    # html.parser looks for the end of every "<!--" (and "<![") to the end of the input, and
    # when there is none moves on by a few characters only: quadratic on "<!--a>" repeated.
    # Once a search from `i` has failed, so does every search from later in the same text.
    def parse_comment(self, i: int, report: bool = True) -> int:
        return self._unless_known_open(i, super().parse_comment, report)

    def parse_marked_section(self, i: int, report: bool = True) -> int:
        try:
            return self._unless_known_open(i, super().parse_marked_section, report)
        except AssertionError:  # "<![junk>": a browser reads a bogus comment up to ">"
            end = self.rawdata.find(">", i)
            return -1 if end < 0 else end + 1

    def _unless_known_open(self, i: int, parse: Callable[[int, bool], int], report: bool) -> int:
        memo = self._unclosed.get(parse.__name__)
        if memo is not None and memo[0] is self.rawdata and memo[1] <= i:
            return -1
        end = parse(i, report)
        if end < 0:
            self._unclosed[parse.__name__] = (self.rawdata, i)
        return end

    def close(self) -> None:
        super().close()
        if self.cdata_elem and self.rawdata:  # an unclosed <style>: html.parser keeps it back
            self.handle_data(self.rawdata)
            self.rawdata = ""

    def _count(self, tag: str) -> None:
        self.reopened += self.formatting  # those already open, that this element may re-open
        if tag in _FORMATTING:
            self.formatting += 1
        elif tag not in _VOID and tag not in _OPTIONAL_END and not self.survey.too_costly:
            self.open.append(tag)  # bounded: past MAX_DEPTH the survey stops counting
        if len(self.open) > MAX_DEPTH or self.reopened > MAX_REOPENED:
            self.survey.too_costly = True
