"""Social card images: a 1200x630 PNG per post without its own `image:`, drawn with Pillow,
and one for the site (`SITE_CARD`).

A card shows the site's name, the post's title (wrapped, shrunk to fit, cut with an
ellipsis after four lines), the date and the tags, in the theme's light colours; the
site's card shows its address above the site's name. The bytes
depend only on `Card` and `card_fingerprint()`, so a card is cached under that key and two
builds give the same file. Pillow is imported only when a card is drawn or measured.
"""

from __future__ import annotations

import functools
import hashlib
import struct
import unicodedata
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from isal import isal_zlib

if TYPE_CHECKING:
    from PIL import Image
    from PIL.ImageFont import FreeTypeFont

#: Changes whenever the drawing code changes what it draws (part of every card's key).
CARD_VERSION = "5"
WIDTH, HEIGHT = 1200, 630
FONTS = Path(__file__).resolve().parent.parent / "vendor" / "fonts"
BOLD, BOOK = FONTS / "DejaVuSans-Bold.ttf", FONTS / "DejaVuSans.ttf"
#: The fonts' release (written by scripts/vendor_fonts.py).
FONTS_RELEASE = FONTS / "VERSION"
#: The light theme's --bg, --fg, --muted, --accent and --border (static/css/main.css).
BG, FG, MUTED, ACCENT, BORDER = "#fdfdfc", "#1d1f23", "#5b616e", "#0b62c4", "#e2e4e8"
MARGIN = 80
TITLE_SIZES = (72, 64, 58, 52, 46)
MAX_LINES = 4
ELLIPSIS = "…"


@dataclass(frozen=True)
class Card:
    """What a card shows; `rel` is where it goes in the output (not part of its key)."""

    rel: str
    title: str
    site: str
    date: str
    tags: tuple[str, ...] = ()

    @functools.cached_property
    def key(self) -> str:
        """The name of its picture in the cache (kept once made: a build asks twice; not a
        field, so equality ignores it)."""
        shown = repr((self.title, self.site, self.date, self.tags))
        return hashlib.sha256(f"{card_fingerprint()}\0{shown}".encode()).hexdigest()[:32]


def card_rel(url: str) -> str:
    """The card's output path for a post at the site-root path `url`: beside its page
    (`/posts/x/` -> `posts/x/card.png`, `/posts/x.html` -> `posts/x.card.png`)."""
    path = url.lstrip("/")
    if path == "" or path.endswith("/"):
        return f"{path}card.png"
    stem = path.rsplit(".", 1)[0] if "." in path.rsplit("/", 1)[-1] else path
    return f"{stem}.card.png"


def card_url(url: str) -> str:
    """The site-root URL of the card of the post at `url` (what templates link)."""
    return "/" + card_rel(url)


#: The site's own card, beside the home page: the picture of the pages that have none of
#: their own (the home page, lists, pages) when site.yaml names no `social.image`.
SITE_CARD = card_rel("/")


@functools.cache
def card_fingerprint() -> str:
    """Everything besides a card's text that changes its bytes: the code's version, the
    size, the colours, the fonts, and the versions of Pillow (it draws) and ISA-L (it
    compresses). The fonts are named by their release, as the vendored runtimes are
    (blogbuild.fingerprints): scripts/vendor_fonts.py fetches each release checked against
    its digest, so a version is one set of bytes. Hashing their 1.4 MB took 8 ms of every
    build that plans cards, an edit of one post too."""
    import isal
    import PIL

    try:
        fonts = FONTS_RELEASE.read_text(encoding="utf-8").strip()
    except OSError:
        fonts = "?"
    return hashlib.sha256(f"{CARD_VERSION};{WIDTH}x{HEIGHT};{BG}{FG}{MUTED}{ACCENT}{BORDER};"
                          f"fonts={fonts}:{BOLD.name},{BOOK.name};pillow={PIL.__version__};"
                          f"isal={isal.__version__}".encode()).hexdigest()


@functools.cache
def _font(bold: bool, size: int) -> FreeTypeFont:
    from PIL import ImageFont

    return ImageFont.truetype(str(BOLD if bold else BOOK), size)


@functools.cache
def _glyph(char: str) -> bytes:
    """The bold face's rendering of `char` (a missing one draws the .notdef box)."""
    from PIL import Image, ImageDraw

    font = _font(True, 32)
    image = Image.new("L", (48, 48))
    ImageDraw.Draw(image).text((4, 4), char, font=font, fill=255)
    return image.tobytes()


@functools.cache
def has_glyph(char: str) -> bool:
    """Whether the card font draws `char` (spaces and controls count as drawn)."""
    if char.isspace() or not char.isprintable():
        return True
    return _glyph(char) != _glyph("\U000f0000")  # a private-use point: the .notdef box


def _visible(text: str) -> str:
    """`text` without control and format characters, unassigned and private code points:
    none of them is drawn, and some make the text layout fail."""
    return "".join(c for c in text if not unicodedata.category(c).startswith("C"))


def missing_glyphs(text: str) -> str:
    """The characters of `text` the card font lacks, each once, in order."""
    if text.isascii() and text.isprintable():
        return ""  # the font draws all of them (tests/test_social_cards.py): Pillow waits
    return "".join(dict.fromkeys(c for c in _visible(text) if not has_glyph(c)))


def drawable(text: str) -> str:
    """`text` without what cannot be drawn: invisible characters and those the font
    lacks (a row of boxes helps no reader)."""
    lacking = set(missing_glyphs(text))
    return " ".join("".join(c for c in _visible(text) if c not in lacking).split())


def _wrap(text: str, font: FreeTypeFont, width: int) -> list[str]:
    """Greedy word wrap; a word wider than a line is broken between characters."""
    lines: list[str] = []
    line = ""
    for word in text.split():
        candidate = f"{line} {word}" if line else word
        if font.getlength(candidate) <= width:
            line = candidate
            continue
        if line:
            lines.append(line)
        line = ""
        for char in word:
            if font.getlength(line + char) > width and line:
                lines.append(line)
                line = ""
            line += char
    if line:
        lines.append(line)
    return lines


def _cut(lines: list[str], font: FreeTypeFont, width: int) -> list[str]:
    """At most MAX_LINES lines; the last one ends with an ellipsis when text was left out."""
    if len(lines) <= MAX_LINES:
        return lines
    last = lines[MAX_LINES - 1]
    while last and font.getlength(last + ELLIPSIS) > width:
        last = last[:-1]
    return [*lines[: MAX_LINES - 1], last.rstrip() + ELLIPSIS]


def title_lines(title: str, width: int = WIDTH - 2 * MARGIN) -> tuple[int, list[str]]:
    """(font size, lines): the largest size at which the title fits in MAX_LINES lines,
    else the smallest size, cut."""
    for size in TITLE_SIZES:
        lines = _wrap(title, _font(True, size), width)
        if len(lines) <= MAX_LINES:
            return size, lines
    size = TITLE_SIZES[-1]
    return size, _cut(_wrap(title, _font(True, size), width), _font(True, size), width)


def _footer(card: Card, width: int) -> str:
    """The date and as many tags as fit on one line."""
    parts = [card.date] if card.date else []
    font = _font(False, 30)
    for tag in filter(None, map(drawable, card.tags)):
        if font.getlength("  ·  ".join([*parts, f"#{tag}"])) > width:
            break
        parts.append(f"#{tag}")
    return "  ·  ".join(parts)


#: Palette: four ramps of LEVELS shades from the background to a colour, then the border.
LEVELS = 64
RAMPS = (FG, ACCENT, MUTED)
FG_AT, ACCENT_AT, MUTED_AT, BORDER_AT = 0, LEVELS, 2 * LEVELS, 3 * LEVELS


def _rgb(colour: str) -> tuple[int, int, int]:
    return int(colour[1:3], 16), int(colour[3:5], 16), int(colour[5:7], 16)


@functools.cache
def _palette() -> bytes:
    bg = _rgb(BG)
    out = bytearray()
    for colour in RAMPS:
        ink = _rgb(colour)
        for level in range(LEVELS):
            share = level / (LEVELS - 1)
            out += bytes(round(b + (i - b) * share) for b, i in zip(bg, ink, strict=True))
    return bytes(out + bytes(_rgb(BORDER)))


@functools.cache
def _shade(offset: int) -> tuple[int, ...]:
    """A lookup table: text coverage (0-255) -> the palette index of that shade."""
    return tuple(0 if v == 0 else offset + round(v * (LEVELS - 1) / 255) for v in range(256))


def _strip(canvas: Image.Image, top: int, height: int, text: str, font: FreeTypeFont,
           offset: int) -> None:
    """Draw a line of text in the ramp at `offset`: drawn as coverage on a strip of its own,
    mapped to the ramp, pasted in (mapping the whole canvas would cost more than drawing)."""
    from PIL import Image, ImageDraw

    strip = Image.new("L", (WIDTH, height), 0)
    ImageDraw.Draw(strip).text((MARGIN, 0), text, font=font, fill=255)
    canvas.paste(strip.point(_shade(offset)), (0, top))


def draw_card(card: Card) -> bytes:
    """The card's PNG. It is born a palette image: the title is drawn straight into the
    indices of its ramp (the canvas starts at index 0, the background, and drawing blends
    towards the ink's index), the other lines through `_strip`; no colour quantizing, the
    slowest step otherwise. No metadata is written: same card, same bytes."""
    from PIL import Image, ImageDraw

    canvas = Image.new("L", (WIDTH, HEIGHT), 0)
    draw = ImageDraw.Draw(canvas)
    size, lines = title_lines(drawable(card.title) or drawable(card.site))
    leading = round(size * 1.22)
    top = 130 + (HEIGHT - 250 - leading * (len(lines) - 1) - size) // 2
    for n, line in enumerate(lines):
        draw.text((MARGIN, top + n * leading), line, font=_font(True, size),
                  fill=FG_AT + LEVELS - 1)
    _strip(canvas, 64, 50, drawable(card.site), _font(True, 34), ACCENT_AT)
    _strip(canvas, HEIGHT - 86, 44, _footer(card, WIDTH - 2 * MARGIN), _font(False, 30),
           MUTED_AT)
    draw.rectangle((0, 0, 15, HEIGHT), fill=ACCENT_AT + LEVELS - 1)
    draw.line((MARGIN, HEIGHT - 110, WIDTH - MARGIN, HEIGHT - 110), fill=BORDER_AT, width=2)
    return _png(canvas.tobytes(), _palette())


def _png(indices: bytes, palette: bytes) -> bytes:
    """A palette PNG of WIDTH x HEIGHT pixels, one byte each (the palette's indices), rows
    unfiltered (what suits a palette image), compressed by ISA-L at its level 1 (0.13 ms
    for a card, where zlib's level 3 took 1.2 ms for a file 2% smaller). Written here:
    Pillow's writer loads five of its format plugins first, more than a card takes to
    draw."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return (struct.pack(">I", len(data)) + kind + data
                + struct.pack(">I", zlib.crc32(kind + data)))

    rows = b"".join(b"\x00" + indices[y * WIDTH:(y + 1) * WIDTH] for y in range(HEIGHT))
    header = struct.pack(">IIBBBBB", WIDTH, HEIGHT, 8, 3, 0, 0, 0)  # 8-bit palette
    return b"".join((b"\x89PNG\r\n\x1a\n", chunk(b"IHDR", header), chunk(b"PLTE", palette),
                     chunk(b"IDAT", isal_zlib.compress(rows, 1)), chunk(b"IEND", b"")))
