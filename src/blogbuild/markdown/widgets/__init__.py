"""Token meta and HTML for the div widgets: collapsible, runnable, video, image compare, HF Space.

``build_meta`` runs at parse time (it validates attributes, reports diagnostics and
records needs); the ``render_*`` rules only turn token meta into HTML, using the stable
class names the user documentation (docs/widgets.md) lists.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from markdown_it.common.utils import escapeHtml
from markdown_it.token import Token
from markdown_it.utils import OptionsDict

from blogbuild.markdown.env import Env, add_ref, need, report, report_error
from blogbuild.markdown.links import feed_target, rewrite_target
from blogbuild.markdown.widgets.embeds import EmbedError, parse_space, parse_video
from blogbuild.markdown.widgets.outputs import output_panel
from blogbuild.urls import UrlBuilder, is_safe_url, scheme_of

#: class → token name; the first two hold Markdown, the others are leaves.
KINDS = {
    "collapsible": "collapsible",
    "runnable": "runnable",
    "video-embed": "video_embed",
    "image-compare": "image_compare",
    "hf-space": "hf_space",
}
CONTAINERS = frozenset({"collapsible", "runnable"})
_FALSE = frozenset({"false", "0", "no", "off"})
_SPAN = re.compile(
    r"""<span\s[^>]*?class\s*=\s*["']?[^"'>]*\bcompare-label-(before|after)\b[^>]*>(.*?)</span\s*>""",
    re.IGNORECASE | re.DOTALL,
)
_TAGS = re.compile(r"<[^>]*>")
_SPACE = re.compile(r"\s+")


@dataclass(frozen=True)
class DivInput:
    """What the block rule found: the opening tag's attributes and the raw inner text."""

    kind: str
    attrs: Mapping[str, str]
    inner: str
    line: int  # 1-based source-file line of the opening tag
    env: Env
    urls: UrlBuilder

    @property
    def extra_classes(self) -> list[str]:
        return [c for c in self.attrs.get("class", "").split() if c != self.kind]

    def text(self, name: str, default: str = "") -> str:
        """An attribute as one line of plain text (authors may wrap long captions)."""
        return _SPACE.sub(" ", self.attrs.get(name, default)).strip()


def _plain(fragment: str) -> str:
    return _SPACE.sub(" ", html.unescape(_TAGS.sub("", fragment))).strip()


def _common(div: DivInput) -> dict[str, Any]:
    return {"id": div.attrs.get("id", ""), "classes": div.extra_classes}


def _collapsible(div: DivInput) -> dict[str, Any]:
    need(div.env, "collapsible")
    open_attr = div.attrs.get("data-open")
    return {
        **_common(div),
        "label": div.text("data-label") or "Show",
        "open": open_attr is not None and open_attr.strip().lower() not in _FALSE,
    }


#: Read by the build (stages/execution/), not passed on to the page.
_BUILD_ATTRS = ("data-lang", "data-isolated", "data-execute", "data-allow-error")
_EXECUTE = ("build", "browser")


def _flag(div: DivInput, name: str) -> bool:
    value = div.attrs.get(name)
    return value is not None and value.strip().lower() not in _FALSE


def _runnable(div: DivInput) -> dict[str, Any]:
    need(div.env, "runnable")
    # Other data-* attributes are the runtime's business (issue of its own): pass them on.
    extra = {k: v for k, v in sorted(div.attrs.items())
             if k.startswith("data-") and k not in _BUILD_ATTRS}
    execute = div.text("data-execute").lower() or None
    if execute is not None and execute not in _EXECUTE:
        report(div.env, div.line, f"runnable: data-execute={execute!r} must be build (run "
               "when the site is built) or browser (only when the reader presses Run); "
               "using the site's setting")
        execute = None
    return {
        **_common(div),
        "lang": div.text("data-lang") or "python",
        "isolated": _flag(div, "data-isolated"),
        "execute": execute,
        "allow_error": _flag(div, "data-allow-error"),
        "line": div.line,
        "data": extra,
    }


def _video(div: DivInput) -> dict[str, Any]:
    need(div.env, "video")  # also when broken: the error box is styled by the widget's CSS
    try:
        video = parse_video(div.attrs.get("data-src", ""))
    except EmbedError as exc:
        report_error(div.env, div.line, f"video-embed: {exc}")
        return {"error": f"Video not shown: {exc}"}
    meta: dict[str, Any] = {**_common(div), "caption": div.text("data-caption"),
                            "provider": video.provider, "page": video.page_url,
                            "embed": video.embed_url, "mime": video.mime}
    if video.provider == "file":
        meta["page"] = src = _asset_url(div, video.page_url)
        meta["feed"] = {"page": feed_target(src, div.env, div.urls)}
        # A file on another host is fetched only on play, like the iframes; ours may preload.
        meta["preload"] = "metadata" if not src.startswith(("http:", "https:", "//")) else "none"
    return meta


def _asset_url(div: DivInput, url: str) -> str:
    """A site file's URL after the sub-path rule, recorded so the build checks that it exists."""
    new, rel = rewrite_target(url, div.env, div.urls)
    if rel is not None or (url.startswith("/") and not url.startswith("//")):
        add_ref(div.env, "image", url if rel is not None else new, div.line, rel=rel)
    return new


def _compare(div: DivInput) -> dict[str, Any]:
    labels = {"before": "Before", "after": "After"}
    for side, content in _SPAN.findall(div.inner):
        labels[side.lower()] = _plain(content) or labels[side.lower()]
    images: dict[str, str] = {}
    problems: list[str] = []
    for side in ("before", "after"):
        url = div.attrs.get(f"data-{side}", "").strip()
        if not url:
            problems.append(f'it needs data-{side}="/path/to/image"')
        elif not is_safe_url(url):
            problems.append(f"unsafe URL scheme '{scheme_of(url)}:' in data-{side}")
        else:
            images[side] = _asset_url(div, url)
    need(div.env, "compare")
    if problems:
        for problem in problems:
            report_error(div.env, div.line, f"image-compare: {problem}")
        return {"error": "Image comparison not shown: " + "; ".join(problems)}
    start = 50.0
    raw_start = div.attrs.get("data-start", "").strip().rstrip("%")
    if raw_start:
        try:
            start = min(100.0, max(0.0, float(raw_start)))
        except ValueError:
            report(div.env, div.line, f"image-compare: data-start={raw_start!r} is not a "
                   "percentage; using 50")
    feed = {side: feed_target(url, div.env, div.urls) for side, url in images.items()}
    return {**_common(div), "images": images, "labels": labels, "start": f"{start:g}",
            "caption": div.text("data-caption"), "feed": {"images": feed}}


def _hf_space(div: DivInput) -> dict[str, Any]:
    need(div.env, "hf-space")
    try:
        space = parse_space(div.attrs.get("data-src", ""))
    except EmbedError as exc:
        report_error(div.env, div.line, f"hf-space: {exc}")
        return {"error": f"Space not shown: {exc}"}
    if len(space.subdomain) > 63:
        report(div.env, div.line, f"hf-space: {space.repo_id} is too long for a host name; "
               "Hugging Face shortens such addresses, check the embed")
    height = 600
    raw = div.attrs.get("data-height", "").strip().lower().removesuffix("px")
    if raw:
        if raw.isdigit() and 100 <= int(raw) <= 4000:
            height = int(raw)
        else:
            report(div.env, div.line, f"hf-space: data-height={raw!r} must be a number of "
                   "pixels between 100 and 4000; using 600")
    return {**_common(div), "repo": space.repo_id, "app": space.app_url,
            "page": space.page_url, "height": height, "caption": div.text("data-caption")}


BUILDERS: dict[str, Callable[[DivInput], dict[str, Any]]] = {
    "collapsible": _collapsible,
    "runnable": _runnable,
    "video-embed": _video,
    "image-compare": _compare,
    "hf-space": _hf_space,
}


def build_meta(div: DivInput) -> dict[str, Any]:
    return BUILDERS[div.kind](div)


# --- rendering -------------------------------------------------------------------------


def _root_attrs(meta: Mapping[str, Any], base: str) -> str:
    classes = " ".join([base, *meta.get("classes", [])])
    ident = f' id="{escapeHtml(meta["id"])}"' if meta.get("id") else ""
    return f'class="{escapeHtml(classes)}"{ident}'


def _error(meta: Mapping[str, Any]) -> str:
    return f'<p class="widget-error" role="note">{escapeHtml(meta["error"])}</p>\n'


def _caption(meta: Mapping[str, Any]) -> str:
    return f"<figcaption>{escapeHtml(meta['caption'])}</figcaption>\n" if meta["caption"] else ""


def collapsible_open(meta: Mapping[str, Any]) -> str:
    opened = " open" if meta["open"] else ""
    return (f"<details {_root_attrs(meta, 'collapsible')}{opened}>\n"
            f"<summary>{escapeHtml(meta['label'])}</summary>\n<div class=\"collapsible-body\">\n")


def runnable_open(meta: Mapping[str, Any]) -> str:
    attrs = f' data-lang="{escapeHtml(meta["lang"])}"'
    if meta["isolated"]:
        attrs += ' data-isolated="true"'
    attrs += "".join(f' {k}="{escapeHtml(v)}"' for k, v in meta["data"].items())
    return f"<div {_root_attrs(meta, 'runnable')}{attrs}>\n"


_PROVIDERS = {"youtube": "YouTube", "vimeo": "Vimeo"}


def video(meta: Mapping[str, Any]) -> str:
    if "error" in meta:
        return _error(meta)
    caption = meta["caption"]
    root = _root_attrs(meta, f"video-embed video-{meta['provider']}")
    page = escapeHtml(meta["page"])
    if meta["provider"] == "file":
        frame = (f'<div class="video-frame"><video controls preload="{meta["preload"]}" '
                 f'playsinline><source src="{page}" type="{meta["mime"]}">'
                 f'<a href="{page}">Download the video</a></video></div>')
    else:
        host = _PROVIDERS[meta["provider"]]
        label = f"Play video: {caption}" if caption else f"Play the {host} video"
        title = caption or f"{host} video"
        frame = (f'<div class="video-frame" data-embed="{escapeHtml(meta["embed"])}" '
                 f'data-title="{escapeHtml(title)}">'
                 f'<a class="video-facade" href="{page}">'
                 '<span class="video-play" aria-hidden="true"></span>'
                 f'<span class="video-label">{escapeHtml(label)}</span>'
                 f'<span class="video-note">{host} · loads when you click</span></a></div>')
    return f"<figure {root}>\n{frame}\n{_caption(meta)}</figure>\n"


def image_compare(meta: Mapping[str, Any]) -> str:
    if "error" in meta:
        return _error(meta)
    items = []
    for side in ("before", "after"):
        label = escapeHtml(meta["labels"][side])
        items.append(
            f'<div class="compare-item compare-{side}">'
            f'<img src="{escapeHtml(meta["images"][side])}" alt="{label}" draggable="false">'
            f'<span class="compare-label">{label}</span></div>'
        )
    return (f'<figure {_root_attrs(meta, "image-compare")} data-start="{meta["start"]}">\n'
            f'<div class="compare-frame">{"".join(items)}</div>\n{_caption(meta)}</figure>\n')


#: An app window with a play mark (drawn here: no logo or font is fetched for it).
_SPACE_ICON = (
    '<svg class="hf-space-icon" viewBox="0 0 24 24" width="44" height="44" aria-hidden="true" '
    'fill="none" stroke="currentColor" stroke-width="1.5"><rect x="2.5" y="4" width="19" '
    'height="16" rx="2.5"/><path d="M2.5 8.5h19"/><path d="M10 11.5v5l4.5-2.5z" '
    'fill="currentColor"/></svg>'
)


def hf_space(meta: Mapping[str, Any]) -> str:
    if "error" in meta:
        return _error(meta)
    repo, page = escapeHtml(meta["repo"]), escapeHtml(meta["page"])
    caption = escapeHtml(meta["caption"]) + " · " if meta["caption"] else ""
    return (
        f'<figure {_root_attrs(meta, "hf-space")}>\n'
        f'<div class="hf-space-frame" style="height: {meta["height"]}px" '
        f'data-embed="{escapeHtml(meta["app"])}" data-title="Hugging Face Space {repo}">'
        f'<a class="hf-space-facade" href="{page}">'
        f"{_SPACE_ICON}"
        f'<span class="hf-space-name">{repo}</span>'
        '<span class="hf-space-note">Hugging Face Space · loads when you click</span></a></div>\n'
        f'<figcaption>{caption}<a href="{page}">{repo} on Hugging Face</a></figcaption>\n'
        "</figure>\n"
    )


RenderFn = Callable[[Any, Sequence[Token], int, OptionsDict, Env], str]


def _rule(fn: Callable[[Mapping[str, Any]], str]) -> RenderFn:
    def render(self: Any, tokens: Sequence[Token], idx: int, options: OptionsDict,
               env: Env) -> str:
        meta = tokens[idx].meta
        if env.get("feed") and "feed" in meta:  # the feed entry's absolute URLs
            meta = {**meta, **meta["feed"]}
        return fn(meta)
    return render


def _text(out: str) -> RenderFn:
    def render(self: Any, tokens: Sequence[Token], idx: int, options: OptionsDict,
               env: Env) -> str:
        return out
    return render


def _runnable_close(self: Any, tokens: Sequence[Token], idx: int, options: OptionsDict,
                    env: Env) -> str:
    """The output the block gave when the build ran it (stages/execution/), then the end."""
    return output_panel(tokens[idx].meta.get("outputs", ())) + "</div>\n"


RENDER_RULES: dict[str, RenderFn] = {
    "collapsible_open": _rule(collapsible_open),
    "collapsible_close": _text("</div>\n</details>\n"),
    "runnable_open": _rule(runnable_open),
    "runnable_close": _runnable_close,
    "video_embed": _rule(video),
    "image_compare": _rule(image_compare),
    "hf_space": _rule(hf_space),
}
