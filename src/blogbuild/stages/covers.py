"""Cover images: where a post's `image:` is published and how large it is.

Lists show the cover beside a post's summary; its width and height, read from the file at
build time, let the browser keep its place before it loads (no layout shift)."""

from __future__ import annotations

import posixpath
from collections.abc import Mapping
from pathlib import Path

from blogbuild.config_model import Config
from blogbuild.content.models import Cover, Post
from blogbuild.diagnostics import Diagnostic, warning
from blogbuild.images.process import MIME, SIDEWAYS, ImageInfo
from blogbuild.stages import Step
from blogbuild.stages.context import BuildContext, StageBase
from blogbuild.urls import encode_path, has_scheme

#: Formats whose EXIF sits in the header (a PNG's may follow its pixels: reading it costs
#: milliseconds, and cameras do not write PNG).
_EXIF_FORMATS = {"JPEG", "MPO", "WEBP", "TIFF"}


def cover_of(post: Post, assets: dict[str, str], by_url: dict[str, str], config: Config,
             images: Mapping[str, ImageInfo] | None = None,
             ) -> tuple[Cover | None, Diagnostic | None]:
    """The post's cover, or None and a warning when its `image:` names no readable image.

    `image:` may be relative to the post's file (`plot.png`), a site path
    (`/assets/images/cover.png`, a file of content/ or static/) or an http(s) URL, which
    is shown without a size. `assets` maps content files to their URLs, `by_url` back."""
    image, meta = post.meta.image, post.meta
    if not image:
        return None, None
    alt = " ".join((meta.image_alt or "").split())
    if has_scheme(image) or image.startswith("//"):
        return Cover(image, None, None, alt), None
    path, url = _locate(image, post.source, assets, by_url, config)
    line = meta.line_of("image")
    if path is None or url is None:
        return None, warning(post.display, line, f"image {image!r} not found: it is not in "
                             "content/ or static/ (a relative path starts at this file's "
                             "folder); fix the path")
    if path.suffix.lower() == ".svg":
        return Cover(url, None, None, alt), None
    info = (images or {}).get(_source_of(path, config))
    if info is not None:
        if info.usable:
            return Cover(url, info.width, info.height, alt, *_copies(url, info, config)), None
        # An animation is shown as it is; so is a picture too large to make copies of.
        shown = Cover(url, info.width, info.height, alt) if info.width else None
        if not info.problem:
            return shown, None
        return shown, warning(post.display, line, f"image {image!r} {info.problem}: "
                              + info.published_as(sized=shown is not None))
    size = image_size(path)
    if size is None:
        return None, warning(post.display, line, f"image {image!r} cannot be read as a "
                             "picture (PNG, JPEG, GIF, WebP or AVIF); replace the file")
    return Cover(url, *size, alt), None


def _locate(image: str, source: str, assets: dict[str, str], by_url: dict[str, str],
            config: Config) -> tuple[Path | None, str | None]:
    """The file and site-root URL of a local `image:`."""
    target = image.split("#")[0].split("?")[0]
    if target.startswith("/"):
        rel = posixpath.normpath(target.lstrip("/"))
        if "/" + rel in by_url:
            return config.content_path / by_url["/" + rel], "/" + rel
        static = config.root / "static" / rel
        return (static, "/" + rel) if ".." not in rel.split("/") and static.is_file() \
            else (None, None)
    rel = posixpath.normpath(posixpath.join(posixpath.dirname(source), target))
    if rel in assets:
        return config.content_path / rel, assets[rel]
    return None, None


def image_size(path: Path) -> tuple[int, int] | None:
    """Width and height as the picture is shown (EXIF rotation applied); None when the
    file is not an image Pillow can read."""
    from PIL import Image, UnidentifiedImageError

    try:
        with Image.open(path) as image:
            width, height = image.size
            if image.format in _EXIF_FORMATS and image.getexif().get(0x0112) in SIDEWAYS:
                width, height = height, width
    except (OSError, UnidentifiedImageError, ValueError, Image.DecompressionBombError):
        return None
    return width, height


def _source_of(path: Path, config: Config) -> str:
    """The image stage's name of a picture file: its content path, or static/…."""
    for folder, prefix in ((config.content_path, ""), (config.root / "static", "static/")):
        try:
            return prefix + path.relative_to(folder).as_posix()
        except ValueError:
            continue
    return ""


def _copies(url: str, info: ImageInfo, config: Config) -> tuple[tuple[tuple[str, str], ...], str]:
    """The cover's <source> sets and the `src` of its <img> (site URLs)."""
    folder = posixpath.dirname(url)
    urls = config.urls

    def site_url(name: str) -> str:
        return urls.url(encode_path(f"{folder}/{name}"))

    formats = list(dict.fromkeys(v.format for v in info.variants))
    sources = tuple(
        (MIME[fmt], ", ".join(f"{site_url(v.name).replace(',', '%2C')} {v.width}w"
                              for v in info.variants if v.format == fmt))
        for fmt in formats)
    widest = [v for v in info.variants if v.format == formats[-1]][-1]
    return sources, site_url(widest.name)


class CoversStage(StageBase):
    """Every post and page its cover image, once the site is assembled; a warning for each
    that cannot be read."""

    name = "covers"
    step = Step.SITE

    def decide(self, ctx: BuildContext) -> list[Post]:
        assert ctx.site is not None
        return [*ctx.site.posts, *ctx.site.pages]

    def make(self, ctx: BuildContext, plan: list[Post]) -> list[Diagnostic]:
        site = ctx.site
        assert site is not None
        by_url = {url: rel for rel, url in site.assets.items()}
        problems = []
        for post in plan:
            post.cover, problem = cover_of(post, site.assets, by_url, ctx.config, site.images)
            if problem is not None:
                problems.append(problem)
        ctx.diagnostics += problems
        return problems


STAGE = CoversStage()
