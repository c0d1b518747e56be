"""What a picture is (`probe`), which files are made of it (`plan`) and making them
(`encode`), with Pillow.

A picture is read once for its header: its format, its size as shown (EXIF orientation
applied) and whether it is whole. Its variants are resized copies at the widths the site
asks for (never wider than the picture), in the formats it asks for and in the picture's
own format as the fallback, named by a key of the picture's bytes and the options: the same
picture and options give the same names and bytes in every build.
"""

from __future__ import annotations

import functools
import hashlib
import io
from dataclasses import dataclass, replace
from typing import Any

from blogbuild.images.colour import for_copies
from blogbuild.images.orientation import orientation_of, upright
from blogbuild.images.original import metadata_left, stripped, upright_webp
from blogbuild.images.strip import Unreadable

#: Bumped when the files made change for the same picture and options.
ENCODER_VERSION = "7"

#: Formats read and published with variants; GIF, BMP and SVG pass untouched, and so does
#: an animation (its copies would be still).
RASTER = {"JPEG", "PNG", "WEBP", "AVIF", "MPO"}
#: Formats browsers show (Chromium 156 shows no other format Pillow reads: TIFF, PSD,
#: JPEG 2000, PPM, TGA…).
SHOWN = RASTER | {"GIF", "BMP", "ICO"}
#: The file extensions each format may have.
EXTENSIONS = {"JPEG": (".jpg", ".jpeg", ".jpe", ".jfif"), "MPO": (".jpg", ".jpeg"),
              "PNG": (".png", ".apng"), "WEBP": (".webp",), "AVIF": (".avif",),
              "GIF": (".gif",), "BMP": (".bmp", ".dib"), "ICO": (".ico",)}
#: Extensions of files the image stage looks at.
IMAGE_SUFFIXES = {".jpg", ".jpeg", ".jpe", ".jfif", ".png", ".apng", ".webp", ".avif", ".gif"}
#: MIME types of the formats variants are made in.
MIME = {"avif": "image/avif", "webp": "image/webp", "jpeg": "image/jpeg", "png": "image/png"}
#: EXIF orientations that turn a picture on its side: its width and height swap.
SIDEWAYS = frozenset({5, 6, 7, 8})


@dataclass(frozen=True)
class Options:
    """What `images:` in site.yaml asks for."""

    widths: tuple[int, ...] = (480, 800, 1200, 1600)
    formats: tuple[str, ...] = ("webp",)  # besides the picture's own
    quality: int = 80
    max_pixels: int = 120_000_000  # larger pictures are published as they are

    def key(self) -> str:
        """Everything that shapes the copies: these options, this code and the encoders'
        versions (another Pillow or libwebp may write other bytes)."""
        return (f"{ENCODER_VERSION}:{self.widths}:{self.formats}:{self.quality}:"
                f"{self.max_pixels}:{encoder_versions()}")


@functools.cache
def encoder_versions() -> str:
    from PIL import __version__, features

    return ",".join([__version__, *(f"{name} {features.version(name)}"
                                    for name in ("jpg", "zlib", "webp", "avif"))])


def options_of(config: Any) -> Options | None:
    """The options `images:` of a site's Config says (None: `images: false`)."""
    images = config.images
    if not images.enabled:
        return None
    return Options(tuple(images.widths), tuple(images.formats), images.quality,
                   images.max_pixels)


@dataclass(frozen=True)
class Probe:
    """What the header of a picture says. `problem`: why it is published as it is (no
    variants, no size); `misnamed`: the format its name does not say, else "";
    `metadata`: what the published file keeps of its metadata (`original.metadata_left`:
    "stripped", none of it; "kept", all; "": the file is no picture to tell)."""

    digest: str
    format: str = ""
    width: int = 0
    height: int = 0
    orientation: int = 1
    animated: bool = False
    alpha: bool = False  # it has transparency
    problem: str = ""
    misnamed: str = ""
    metadata: str = ""
    advice: str = ""  # what to do about its problem, when not to replace the file

    @property
    def usable(self) -> bool:
        return not self.problem and self.format in RASTER and not self.animated


@dataclass(frozen=True)
class Variant:
    """One copy of a picture at one width, in one format."""

    name: str  # the file's name, beside the picture's
    format: str  # "webp", "avif", "jpeg", "png"
    width: int
    height: int

    @property
    def file(self) -> str:
        """Its name in the cache folder of its picture's bytes and options (pictures with
        the same bytes under other names share it)."""
        return f"{self.width}.{self.name.rsplit('.', 1)[-1]}"


@dataclass(frozen=True)
class ImageInfo:
    """What the markup needs of one picture. `variants` sit in the picture's folder."""

    source: str  # shown in messages: content/…, static/…
    width: int = 0
    height: int = 0
    variants: tuple[Variant, ...] = ()
    problem: str = ""  # why it is published as it is
    misnamed: str = ""  # the format its name does not say
    key: str = ""  # changes whenever the markup made of it may
    metadata: str = ""  # Probe.metadata
    advice: str = ""  # Probe.advice

    @property
    def usable(self) -> bool:
        return bool(self.variants) and not self.problem

    def published_as(self, *, sized: bool) -> str:
        """How a picture with a problem is published, and what to do: the end of the
        warning that names the problem (`sized`: its <img> has a width and height)."""
        how = {"stripped": "as it is, less its metadata",
               "kept": "as it is, with any metadata it holds (a GPS position, say)",
               }.get(self.metadata, "as it is")
        without = "smaller copies" if sized else "a size or smaller copies"
        return f"it is published {how}, without {without}; {self.advice or 'replace the file'}"


def digest_of(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=16).hexdigest()


def probe(data: bytes, suffix: str, max_pixels: int) -> Probe:
    """The picture `data` (a file named with `suffix`) as its header describes it; never
    decodes the pixels, so a decompression bomb costs nothing here."""
    from PIL import Image, UnidentifiedImageError

    digest = digest_of(data)
    # Opening reads the header only; the size is checked against `max_pixels` below, with
    # a message that says it (Pillow's own check is for decoding: `encode` sets it).
    Image.MAX_IMAGE_PIXELS = None
    try:
        with Image.open(io.BytesIO(data)) as image:
            width, height = image.size
            fmt = image.format or ""
            animated = bool(getattr(image, "is_animated", False)) and fmt != "MPO"
            alpha = image.mode in ("RGBA", "LA", "PA", "La", "RGBa") \
                or "transparency" in image.info
            orientation = orientation_of(image, data)
    except (UnidentifiedImageError, OSError, ValueError, SyntaxError,
            Image.DecompressionBombError):
        return Probe(digest, problem="cannot be read as a picture (PNG, JPEG, WebP, GIF "
                     "or AVIF)", metadata=metadata_left(data))
    misnamed = fmt if fmt in EXTENSIONS and suffix.lower() not in EXTENSIONS[fmt] else ""
    if orientation in SIDEWAYS:
        width, height = height, width
    found = Probe(digest, fmt, width, height, orientation, animated, alpha,
                  misnamed=misnamed)
    if fmt not in SHOWN:  # a TIFF or a PSD saved under a picture's name
        return replace(found, problem=f"is a {fmt} file, which browsers cannot show",
                       advice="convert it to JPEG, PNG or WebP", metadata="kept")
    if width * height > max_pixels:
        return replace(found, problem=f"has {width * height / 1e6:.0f} megapixels, more "
                       f"than the {max_pixels / 1e6:.0f} the build reads",
                       metadata=metadata_left(data, orientation))
    if fmt in ("JPEG", "MPO", "PNG", "WEBP", "AVIF"):
        try:
            stripped(data, orientation)
        except Unreadable as exc:
            return replace(found, problem=f"is damaged: {exc}",
                           metadata=metadata_left(data, orientation))
        return replace(found, metadata="stripped")
    return found


def key_of(found: Probe, options: Options) -> str:
    """Names the variants: the picture's bytes and everything that shapes the files."""
    return hashlib.blake2b(f"{found.digest}\0{options.key()}".encode(),
                           digest_size=5).hexdigest()


def own_format(found: Probe) -> str:
    """The format of the fallback variants, one every browser shows: the picture's own
    for a JPEG or PNG; for an AVIF or WebP original, PNG when it has transparency, else
    JPEG."""
    if found.format in ("JPEG", "MPO", "PNG"):
        return "png" if found.format == "PNG" else "jpeg"
    return "png" if found.alpha else "jpeg"


def widths_for(found: Probe, options: Options) -> list[int]:
    """The widths made: those asked for below the picture's, and its own when it is
    narrower than the widest asked for (never wider than it is)."""
    widths = sorted({w for w in options.widths if w < found.width})
    widest = max(options.widths, default=found.width)
    if found.width <= widest:
        widths.append(found.width)
    elif not widths or widths[-1] != widest:
        widths.append(widest)
    return widths


def plan(found: Probe, stem: str, options: Options) -> list[Variant]:
    """The files made of a usable picture named `stem` (its name without suffix): every
    width in each format, the extra formats first (a <source> each), the fallback last."""
    key = key_of(found, options)
    fallback = own_format(found)
    formats = [f for f in options.formats if f != fallback] + [fallback]
    out = []
    for fmt in formats:
        ext = "jpg" if fmt == "jpeg" else fmt
        for width in widths_for(found, options):
            height = max(1, round(found.height * width / found.width))
            out.append(Variant(f"{stem}.{key}.{width}.{ext}", fmt, width, height))
    return out


class EncodeError(Exception):
    """The pixels could not be read (a damaged file whose header looked whole)."""


def encode(data: bytes, found: Probe, variants: list[Variant], quality: int,
           max_pixels: int) -> dict[str, bytes]:
    """The bytes of every variant, by `Variant.file`. Decoding is bounded: a JPEG is
    decoded at the smallest scale that still covers the widest variant."""
    from PIL import Image

    Image.MAX_IMAGE_PIXELS = max_pixels
    widest = max(v.width for v in variants)
    try:
        with Image.open(io.BytesIO(data)) as opened:
            icc = opened.info.get("icc_profile")
            if opened.format in ("JPEG", "MPO"):
                # DCT scaling: 1/2, 1/4, 1/8 of the pixels, never below what is needed.
                sideways = found.orientation in SIDEWAYS
                need = (found.height, found.width) if sideways else (found.width, found.height)
                scale = widest / found.width
                opened.draft("RGB", (max(1, int(need[0] * scale)), max(1, int(need[1] * scale))))
            opened.load()
            image = upright(opened, found.orientation)  # the probe's, the original's too
            image, icc = for_copies(image, icc)
            if image is opened:
                image = opened.copy()
            # Pillow writes what `info` holds (a JPEG's comment, XMP) into what it saves:
            # the variants carry nothing but their pixels and the profile for_copies keeps.
            image.info = {}
            out: dict[str, bytes] = {}
            by_width: dict[int, Image.Image] = {}
            for variant in sorted(variants, key=lambda v: -v.width):
                resized = by_width.get(variant.width)
                if resized is None:
                    # From the next wider copy: each step shrinks at most a few times.
                    source = min((im for w, im in by_width.items() if w >= variant.width),
                                 key=lambda im: im.width, default=image)
                    resized = source if source.width == variant.width else source.resize(
                        (variant.width, variant.height), Image.Resampling.LANCZOS)
                    by_width[variant.width] = resized
                out[variant.file] = _save(resized, variant.format, quality, icc)
            return out
    except (OSError, ValueError, SyntaxError, Image.DecompressionBombError) as exc:
        raise EncodeError(str(exc) or type(exc).__name__) from None


def published(data: bytes, found: Probe) -> bytes:
    """The picture `data` as it is published: without its metadata, its orientation said
    the way browsers read it (blogbuild.images.orientation). A WebP that is not upright has
    its pixels turned (Chromium shows a WebP as its pixels lie, whatever its EXIF says). A
    picture with a problem is stripped as far as its structure goes. Raises Unreadable
    when the file's structure is not one the stripper follows."""
    if found.format == "WEBP" and found.orientation != 1 and not found.animated \
            and not found.problem:
        return upright_webp(data, found.orientation)
    return stripped(data, found.orientation, partial=bool(found.problem))


def _save(image: Any, fmt: str, quality: int, icc: bytes | None) -> bytes:
    buffer = io.BytesIO()
    extra = {"icc_profile": icc} if icc else {}
    if fmt == "jpeg":
        if image.mode == "RGBA":
            image = image.convert("RGB")
        image.save(buffer, "JPEG", quality=quality, optimize=True, progressive=True,
                   **extra)
    elif fmt == "png":
        image.save(buffer, "PNG", optimize=True, **extra)
    elif fmt == "webp":
        image.save(buffer, "WEBP", quality=quality, method=4, **extra)
    else:
        image.save(buffer, "AVIF", quality=max(1, quality - 20), speed=6, **extra)
    return buffer.getvalue()
