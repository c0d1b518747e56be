"""Pictures of the site as <picture> elements: sized, responsive, lazily loaded.

The links plugin has given each image token its final `src` and noted what it names
(`meta["image"]`: the content path or site path as written). Here a picture the image
stage made variants of (`LinkMap.images`, see blogbuild.stages.images) becomes

    <picture><source type="image/webp" srcset="… 480w, … 800w" sizes="…">
      <img src="…" srcset="…" sizes="…" width="…" height="…" alt="…" loading="lazy"
           decoding="async"></picture>

with the width and height the browser needs to keep its place (no layout shift), `sizes`
matching the theme's column, and the first picture near the top of the page loaded at
once with a high priority (it is usually the largest paint). A `width` the author gave
(`{width=300}`) is kept and the height follows it. A picture the stage could not read
is shown as written and reported at its line. GitHub's `#gh-dark-mode-only` and
`#gh-light-mode-only` fragments show a picture in one theme only.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Sequence
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.common.utils import escapeHtml
from markdown_it.rules_core import StateCore
from markdown_it.token import Token
from markdown_it.utils import OptionsDict

from blogbuild.images.process import MIME, ImageInfo
from blogbuild.markdown.attrs import apply, parse_attributes, report_problems
from blogbuild.markdown.env import Env, report
from blogbuild.markdown.positions import inline_lines
from blogbuild.urls import UrlBuilder, encode_path

#: The theme's column: 44rem less its padding (static/css/main.css, `--measure`).
COLUMN_SIZES = "(max-width: 44rem) calc(100vw - 2.5rem), 41.5rem"
#: The widest copy a feed entry or a list's excerpt shows (a feed reader gets one file).
FEED_WIDTH = 1200
#: A picture in the first blocks of the body is above the fold on most screens.
EAGER_BLOCKS = 3
_THEME_FRAGMENTS = {"gh-dark-mode-only": "only-dark", "gh-light-mode-only": "only-light"}


def _images(env: Env, tokens: list[Token]) -> list[tuple[Token, int, int]]:
    """(image, its source line, index of its top-level block) in document order."""
    tops = {}
    top = -1
    for token in tokens:
        if token.level == 0 and token.nesting >= 0:
            top += 1
        tops[id(token)] = top
    return [(child, line, tops[id(block)]) for child, block, line in inline_lines(env, tokens)
            if child.type == "image"]


def images(state: StateCore) -> None:
    env = state.env
    links = env.get("links")
    first = not env.get("cover")  # a cover above the body is the page's first picture
    for image, line, top in _images(env, state.tokens):
        meta = dict(image.meta or {})
        src = str(image.attrGet("src") or "")
        path, _, fragment = src.partition("#")
        theme = _THEME_FRAGMENTS.get(fragment)
        if theme is not None:
            image.attrSet("class", f"{image.attrGet('class') or ''} {theme}".strip())
            if not path.startswith(("http:", "https:", "//")):
                image.attrSet("src", path)
        written = meta.get("image")
        lookup = meta.get("image_rel") or (
            written if written and written.startswith("/") and not written.startswith("//")
            else None)
        if links is None or lookup is None:
            continue
        env["images"][lookup] = links.image_key(lookup)  # whatever it is, or None
        source = links.image_source(lookup)
        if source is None:
            continue
        info: ImageInfo = links.images[source]
        if info.misnamed:
            report(env, line, f"image {written!r} is a {info.misnamed} file, which its "
                   "name does not say; rename it")
        if not info.usable:
            if info.problem:
                report(env, line, f"image {written!r} {info.problem}: "
                       + info.published_as(sized=False))
            elif info.width:  # an animation, a GIF, a BMP: as it is, sized, loaded late
                _as_it_is(image, info, eager=first and top < EAGER_BLOCKS)
                first = False
            continue
        meta["picture"] = info
        meta["eager"] = first and top < EAGER_BLOCKS
        first = False
        image.meta = meta


def _as_it_is(image: Token, info: ImageInfo, *, eager: bool) -> None:
    """A picture shown as it is (no copies): its size, unless the author gave one, and
    the loading of the other pictures (the first near the top at once, the others as
    the reader comes near), unless the author said otherwise."""
    if image.attrGet("width") is None and image.attrGet("height") is None:
        image.attrSet("width", str(info.width))
        image.attrSet("height", str(info.height))
    if image.attrGet("loading") is None and image.attrGet("fetchpriority") is None:
        image.attrSet(*(("fetchpriority", "high") if eager else ("loading", "lazy")))
    if image.attrGet("decoding") is None:
        image.attrSet("decoding", "async")


_INLINE_ATTRS = re.compile(r"\{([^{}\n]*)\}")


def image_attrs(state: StateCore) -> None:
    """`![alt](x.png){width=300 .wide}`: the attribute list right after an image is the
    image's (Pandoc, kramdown). A lone `{#fig-id}` is left to the figures plugin."""
    image: tuple[Token, Token, int] | None = None  # the child before, when an image
    for after, block, line in inline_lines(state.env, state.tokens):
        before, image = image, (after, block, line) if after.type == "image" else None
        if before is None or after.type != "text" or before[1] is not block:
            continue
        child, _, child_line = before
        match = _INLINE_ATTRS.match(after.content)
        if match is None:
            continue
        found = parse_attributes(match[1])
        ident = found.attrs.pop("id", None)
        if not found.attrs and not found.refused and found.alt is None:
            continue
        report_problems(state.env, child_line, match[0], found)
        apply(child, found.attrs)
        if found.alt is not None:
            child.meta = {**(child.meta or {}), "alt": found.alt}
        rest = after.content[match.end():]
        after.content = (f"{{#{ident}}}" if ident else "") + rest


def _number(value: Any) -> int | None:
    text = str(value).strip().removesuffix("px") if value is not None else ""
    return int(text) if text.isdigit() and 0 < int(text) < 100_000 else None


def _size(token: Token, info: ImageInfo) -> tuple[str | None, str | None, int | None]:
    """The width and height attributes to write (None: none), and the width in CSS
    pixels the picture is shown at when the author fixed it."""
    width, height = token.attrGet("width"), token.attrGet("height")
    if width is None and height is None:
        return str(info.width), str(info.height), None
    w, h = _number(width), _number(height)
    if w is not None and height is None:
        return str(w), str(max(1, round(info.height * w / info.width))), w
    if h is not None and width is None:
        w = max(1, round(info.width * h / info.height))
        return str(w), str(h), w
    return (None if width is None else str(width), None if height is None else str(height),
            w)


def _with_alt(tokens: Sequence[Token], idx: int) -> Sequence[Token]:
    """`tokens` with the picture at `idx` holding its `fig-alt` (`meta["alt"]`) as the
    text its alt attribute is made of; `tokens` itself when it has none."""
    alt = (tokens[idx].meta or {}).get("alt")
    if alt is None:
        return tokens
    text = Token("text", "", 0)
    text.content = str(alt)
    picture = copy.copy(tokens[idx])
    picture.children = [text]
    return [*tokens[:idx], picture, *tokens[idx + 1:]]


def make_render(urls: UrlBuilder):  # type: ignore[no-untyped-def]
    def render_image(self: Any, tokens: Sequence[Token], idx: int, options: OptionsDict,
                     env: Env) -> str:
        token = tokens[idx]
        info: ImageInfo | None = (token.meta or {}).get("picture")
        if info is None:
            return str(self.image(_with_alt(tokens, idx), idx, options, env))
        src = str(token.attrGet("src") or "")
        base = src.rsplit("/", 1)[0] + "/" if "/" in src else ""
        alt = escapeHtml(self.renderInlineAsText(_with_alt(tokens, idx)[idx].children or [],
                                                 options, env))
        fallback = [v for v in info.variants if v.format == info.variants[-1].format]
        width, height, fixed = _size(token, info)
        if env.get("feed"):  # feeds and lists' excerpts: one copy, at an absolute URL
            one = ([v for v in fallback if v.width <= FEED_WIDTH] or fallback[:1])[-1]
            src_attr = urls.absolute(base + encode_path(one.name))
            return (f'<img src="{escapeHtml(src_attr)}" alt="{alt}"'
                    + _attrs(token, width, height) + ' loading="lazy" decoding="async">')
        sizes = COLUMN_SIZES if fixed is None else \
            f"(max-width: {fixed + 40}px) calc(100vw - 2.5rem), {fixed}px"
        return picture_html(info, base, f'alt="{alt}"' + _attrs(token, width, height),
                            sizes, eager=bool(token.meta.get("eager")))
    return render_image


def drawn_picture(env: Env, data: bytes, suffix: str = ".png") -> ImageInfo | None:
    """The copies of a picture drawn for this page (a build-time block's figure, a
    notebook's stored output), made through blogbuild.images.outputs in the render's
    folder of made files (`env["folders"]`), their files noted in `env["files"]` to be
    published beside the page; None when they cannot be (no page URL, no such folder,
    pictures published as they are, or bytes that are no picture): the caller shows a
    data: URL."""
    from blogbuild.images import outputs

    options = env.get("image_options")
    folders = env.get("folders")
    folder = folders.files if folders is not None else None
    if options is None or folder is None or not env.get("page_url"):
        return None
    made = outputs.made_picture(data, folder, options, suffix=suffix)
    if made is None:
        return None
    info, cached = made
    files = env.setdefault("files", {})
    for variant in info.variants:
        files[variant.name] = str(cached / variant.file)
    return info


def picture_html(info: ImageInfo, base: str, attrs: str, sizes: str = COLUMN_SIZES, *,
                 eager: bool = False) -> str:
    """The <picture> of `info`'s copies, which sit at `base` (a URL ending in /); `attrs`:
    the <img>'s alt and other attributes, escaped."""
    widest = [v for v in info.variants if v.format == info.variants[-1].format][-1]

    def srcset(fmt: str) -> str:
        return ", ".join(f"{base}{encode_path(v.name).replace(',', '%2C')} {v.width}w"
                         for v in info.variants if v.format == fmt)

    parts = ["<picture>"]
    for fmt in dict.fromkeys(v.format for v in info.variants if v.format != widest.format):
        parts.append(f'<source type="{MIME[fmt]}" srcset="{escapeHtml(srcset(fmt))}" '
                     f'sizes="{sizes}">')
    loading = ' fetchpriority="high"' if eager else ' loading="lazy"'
    parts.append(f'<img src="{escapeHtml(base + encode_path(widest.name))}" '
                 f'srcset="{escapeHtml(srcset(widest.format))}" sizes="{sizes}" {attrs}'
                 f'{loading} decoding="async"></picture>')
    return "".join(parts)


def _attrs(token: Token, width: str | None, height: str | None) -> str:
    out = ""
    for name, value in (token.attrs or {}).items():
        if name in ("src", "alt", "width", "height"):
            continue
        out += f' {escapeHtml(str(name))}="{escapeHtml(str(value))}"'
    if width is not None:
        out += f' width="{escapeHtml(width)}"'
    if height is not None:
        out += f' height="{escapeHtml(height)}"'
    return out


def images_plugin(md: MarkdownIt, *, urls: UrlBuilder | None = None) -> None:
    """Install after the links plugin (its rule runs first)."""
    urls = urls or UrlBuilder("http://localhost/")
    md.core.ruler.after("inline", "image_attrs", image_attrs)  # before the figures
    md.core.ruler.after("site_links", "site_images", images)
    md.add_render_rule("image", make_render(urls))
