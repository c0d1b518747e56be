"""Terminal text of notebook outputs (tracebacks, coloured logs, progress bars) as HTML.

The text is played on a small model of one terminal line at a time, so the page shows what
the terminal would finally have shown: SGR colours and attributes become `<span>`s whose
classes `static/css/ansi.css` colours for both themes; a line rewritten after a carriage
return (tqdm) is overwritten from column 0; erase-in-line (`ESC [ K`) erases; every other
escape sequence (cursor moves, window titles, the URL of an OSC 8 hyperlink, whose text is
kept) and every other control character is dropped, never shown. Tokens are found by one
regular expression, so plain runs of text are handled whole, not a character at a time.

Choices a reader might not expect:

* Inverse video (SGR 7) swaps the colours here, and adds the class `ansi-inverse`, which
  gives a default side the other default colour (`--code-bg` text on `--code-fg`).
* A backspace moves back one column; at the end of the line it also erases that character,
  as Jupyter shows it (`abc\\b` is `ab`); inside a rewritten line the next text overwrites.
* Colours 0–15 of the 256-colour table are the theme's classes; 16–255 and 24-bit colours
  are inline `style="--ansi-fg:#rrggbb"` values (with the class `ansi-rgb-fg`, and
  `-bg` for backgrounds) that this module writes from digits alone; the stylesheet keeps
  them readable in the light and the dark theme.
* Spans never nest: each run of one style is its own span, closed at the end of its line.
* An unterminated OSC (or DCS, APC, …) string swallows the rest of its line, not more.
"""

from __future__ import annotations

import html
import re
from functools import lru_cache
from itertools import groupby
from operator import itemgetter
from typing import Any, NamedTuple

__all__ = ["ansi_html", "ansi_plain"]

# One alternation, tried in order: a CSI sequence (its final byte optional, so a cut-off one
# is still consumed), a string sequence (OSC, DCS, SOS, PM, APC) up to BEL or ST, any other
# escape (or a lone ESC), a line end, carriage returns, a backspace, other C0 and C1
# controls. `split` with one group gives text, token, text, token, ….
_TOKEN = re.compile(
    r"(\x1b\[[0-?]*[ -/]*[@-~]?"
    r"|\x1b[\]PX^_][^\x07\x1b\n]*(?:\x07|\x1b\\)?"
    r"|\x1b[ -/]*[0-~]?"
    r"|\r*\n|\r+|\x08"
    r"|[\x00-\x07\x0b\x0c\x0e-\x1a\x1c-\x1f\x7f-\x9f]+)"
)
_SGR_PARAMS = re.compile(r"[0-9;:]*")

_NAMES = ("black", "red", "green", "yellow", "blue", "magenta", "cyan", "white")
# The 6×6×6 cube of the 256-colour table (indices 16–231), per channel, as xterm has it.
_CUBE = (0, 95, 135, 175, 215, 255)


class Style(NamedTuple):
    """The SGR state of a cell. A colour is a palette name (`red`, `bright-red`) or `#rrggbb`."""

    bold: bool = False
    faint: bool = False
    italic: bool = False
    underline: bool = False
    inverse: bool = False
    fg: str | None = None
    bg: str | None = None


PLAIN = Style()

Segment = tuple[Style, str]


def ansi_html(text: str) -> str:
    """`text` as HTML, escaped once, with a `<span>` per run of one non-default style."""
    parts = []
    for style, group in groupby(_screen(text), key=itemgetter(0)):
        escaped = html.escape("".join(chunk for _, chunk in group), quote=False)
        parts.append(escaped if style == PLAIN else f"{_open_tag(style)}{escaped}</span>")
    return "".join(parts)


def ansi_plain(text: str) -> str:
    """`text` as the terminal would finally show it, without colours: for search and diffs."""
    return "".join(chunk for _, chunk in _screen(text))


_NEWLINE: Segment = (PLAIN, "\n")


def _screen(text: str) -> list[Segment]:
    """The styled runs of `text` after playing it on a terminal; each line ends in a plain
    `\\n` run, so no run crosses a line end."""
    runs: list[Segment] = []
    line: _Cells | None = None  # the current line, once it needs a cursor
    start = 0  # where the current line starts in `runs`
    style = PLAIN
    pieces = _TOKEN.split(text)
    if pieces[0]:
        runs.append((style, pieces[0]))
    for i in range(1, len(pieces), 2):
        token, after = pieces[i], pieces[i + 1]
        first = token[0]
        if first == "\x1b":
            if token[-1] == "m" and token[1] == "[":
                style = _after_sgr(style, token[2:-1])
            elif token[-1] == "K" and token[1] == "[" and token[2:-1] in ("", "0", "1", "2"):
                if line is None:
                    line, runs[start:] = _Cells(runs[start:]), []
                line.erase(int(token[2:-1] or 0))
        elif token[-1] == "\n":
            if line is not None:
                runs += line.finish()
                line = None
            runs.append(_NEWLINE)
            start = len(runs)
        elif first in "\r\x08":
            if line is None:
                line, runs[start:] = _Cells(runs[start:]), []
            if first == "\r":
                line.cursor = 0
            else:
                line.backspace()
        if after:
            if line is None:
                runs.append((style, after))
            else:
                line.write(style, after)
    if line is not None:
        runs += line.finish()
    return runs


class _Cells:
    """A line once a carriage return, a backspace or an erase needs the cursor: a character
    and a style per column, changed by slice assignment, not a character at a time."""

    __slots__ = ("chars", "cursor", "erased", "styles")

    def __init__(self, runs: list[Segment]) -> None:
        self.chars = list("".join(chunk for _, chunk in runs))
        self.styles: list[Style] = []
        for style, chunk in runs:
            self.styles += (style,) * len(chunk)
        self.cursor = len(self.chars)
        self.erased = False

    def write(self, style: Style, text: str) -> None:
        end = self.cursor + len(text)
        self.chars[self.cursor:end] = text
        self.styles[self.cursor:end] = (style,) * len(text)
        self.cursor = end

    def backspace(self) -> None:
        if self.cursor == 0:
            return
        self.cursor -= 1
        if self.cursor == len(self.chars) - 1:
            del self.chars[-1], self.styles[-1]

    def erase(self, mode: int) -> None:
        """ESC [ K: 0 from the cursor to the end, 1 from the start to the cursor, 2 all.
        An erased cell is "": nothing at the end of the line, a space before text."""
        chars, styles = self.chars, self.styles
        start = 0 if mode else self.cursor
        end = self.cursor + 1 if mode == 1 else len(chars)
        end = min(end, len(chars))
        chars[start:end] = ("",) * (end - start)
        styles[start:end] = (PLAIN,) * (end - start)
        self.erased = True

    def finish(self) -> list[Segment]:
        """The line as runs of one style each."""
        if self.erased:
            end = len(self.chars)
            while end and not self.chars[end - 1]:
                end -= 1
            self.chars = [char or " " for char in self.chars[:end]]
            del self.styles[end:]
        runs, start = [], 0
        for style, group in groupby(self.styles):
            end = start + len(list(group))
            runs.append((style, "".join(self.chars[start:end])))
            start = end
        return runs


def _number(param: str) -> int:
    """An SGR parameter: empty is 0; one too long to be a number we know is -1 (ignored),
    which also keeps `int` away from strings of thousands of digits."""
    if not param:
        return 0
    return int(param) if len(param) <= 6 and param.isdigit() else -1


@lru_cache(maxsize=4096)
def _after_sgr(style: Style, params: str) -> Style:
    """The style after `ESC [ params m`; parameters that are not SGR's change nothing."""
    if not _SGR_PARAMS.fullmatch(params):
        return style
    codes = [_number(p) if ":" not in p else p for p in params.split(";")]
    i = 0
    while i < len(codes):
        code = codes[i]
        i += 1
        if isinstance(code, str):  # ITU T.416 form: 38:5:n, 38:2::r:g:b, 4:0
            sub = [_number(p) for p in code.split(":")]
            if sub[0] in (38, 48):
                colour = _extended(sub[1:], colon=True)
                style = _set_colour(style, sub[0], colour)
            elif sub[0] == 4:
                style = style._replace(underline=sub[1] != 0)
            continue
        if code in (38, 48, 58):
            colour, used = _extended_semicolons(codes[i:])
            i += used
            style = _set_colour(style, code, colour)
        else:
            style = _simple(style, code)
    return style


def _simple(style: Style, code: int) -> Style:
    """One SGR code that takes no arguments; codes not listed change nothing."""
    if code == 0:
        return PLAIN
    if 30 <= code <= 37:
        return style._replace(fg=_NAMES[code - 30])
    if 40 <= code <= 47:
        return style._replace(bg=_NAMES[code - 40])
    if 90 <= code <= 97:
        return style._replace(fg="bright-" + _NAMES[code - 90])
    if 100 <= code <= 107:
        return style._replace(bg="bright-" + _NAMES[code - 100])
    if code in (39, 49):
        return style._replace(fg=None) if code == 39 else style._replace(bg=None)
    change = _FLAGS.get(code)
    return style._replace(**change) if change else style


_FLAGS: dict[int, dict[str, Any]] = {
    1: {"bold": True}, 2: {"faint": True}, 3: {"italic": True}, 4: {"underline": True},
    7: {"inverse": True}, 21: {"underline": True}, 22: {"bold": False, "faint": False},
    23: {"italic": False}, 24: {"underline": False}, 27: {"inverse": False},
}


def _set_colour(style: Style, code: int, colour: str | None) -> Style:
    if colour is None or code == 58:  # 58 colours the underline: not drawn here
        return style
    return style._replace(fg=colour) if code == 38 else style._replace(bg=colour)


def _extended_semicolons(rest: list[int | str]) -> tuple[str | None, int]:
    """The colour after 38 / 48 / 58 in `38;5;n` or `38;2;r;g;b`, and how many codes it used."""
    if not rest or isinstance(rest[0], str):
        return None, 0
    width = {5: 2, 2: 4}.get(rest[0], 1)
    args = rest[:width]
    if any(isinstance(a, str) for a in args):
        return None, len(args)
    return _extended([a for a in args if isinstance(a, int)], colon=False), len(args)


def _extended(args: list[int], *, colon: bool) -> str | None:
    """A colour from `5, n` or `2, r, g, b` (after a colon also `2, space, r, g, b`)."""
    if len(args) == 2 and args[0] == 5:
        return _indexed(args[1])
    if args and args[0] == 2:
        channels = args[2:5] if colon and len(args) >= 5 else args[1:4]
        if len(channels) == 3 and all(c >= 0 for c in channels):
            return "#{:02x}{:02x}{:02x}".format(*(min(c, 255) for c in channels))
    return None


def _indexed(n: int) -> str | None:
    """Colour `n` of the 256-colour table: a palette name for 0–15, else `#rrggbb`."""
    if 0 <= n < 8:
        return _NAMES[n]
    if 8 <= n < 16:
        return "bright-" + _NAMES[n - 8]
    if 16 <= n < 232:
        r, g, b = _CUBE[(n - 16) // 36], _CUBE[(n - 16) // 6 % 6], _CUBE[(n - 16) % 6]
        return f"#{r:02x}{g:02x}{b:02x}"
    if 232 <= n < 256:
        grey = 8 + 10 * (n - 232)
        return f"#{grey:02x}{grey:02x}{grey:02x}"
    return None


@lru_cache(maxsize=1024)
def _open_tag(style: Style) -> str:
    """The `<span>` of a style; its class names and `#rrggbb` values are all ours."""
    classes = [f"ansi-{name}" for name in ("bold", "faint", "italic", "underline", "inverse")
               if getattr(style, name)]
    fg, bg = (style.bg, style.fg) if style.inverse else (style.fg, style.bg)
    declarations = []
    for colour, side in ((fg, "fg"), (bg, "bg")):
        if colour is None:
            continue
        if colour.startswith("#"):  # the stylesheet keeps it readable in either theme
            classes.append(f"ansi-rgb-{side}")
            declarations.append(f"--ansi-{side}:{colour}")
        else:
            classes.append(f"ansi-{colour}-{side}")
    attrs = f' class="{" ".join(classes)}"' if classes else ""
    if declarations:
        attrs += f' style="{";".join(declarations)}"'
    return f"<span{attrs}>"
