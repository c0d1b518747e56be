"""BibTeX values as text: LaTeX accents and symbols become Unicode, braces go.

`pieces` keeps what a brace group protects from a style's case changes (`{BERT}`,
`{P}rincipia`); a brace group that starts with a command (`{\\"o}`) is a special
character, as in BibTeX, and protects nothing. Math (`$…$`) stays as written; a command
this reader does not know stays as written too, so nothing of a title is lost.
"""

from __future__ import annotations

import re
import unicodedata

#: Accent commands and the combining character each puts on its letter.
ACCENTS = {
    "'": "\u0301", "`": "\u0300", "^": "\u0302", '"': "\u0308", "~": "\u0303", "=": "\u0304",
    ".": "\u0307", "u": "\u0306", "v": "\u030c", "H": "\u030b", "c": "\u0327", "k": "\u0328",
    "r": "\u030a", "d": "\u0323", "b": "\u0331",
}
SYMBOLS = {
    "ss": "ß", "o": "ø", "O": "Ø", "ae": "æ", "AE": "Æ", "oe": "œ", "OE": "Œ", "aa": "å",
    "AA": "Å", "l": "ł", "L": "Ł", "i": "ı", "j": "ȷ", "&": "&", "%": "%", "$": "$",
    "#": "#", "_": "_", "{": "{", "}": "}", " ": " ", ",": "\u2009", "textendash": "–",
    "textemdash": "—", "ldots": "…", "dots": "…", "textquoteright": "’",
    "textquoteleft": "‘", "textquotedblleft": "“", "textquotedblright": "”", "TeX": "TeX",
    "LaTeX": "LaTeX", "S": "§", "P": "¶", "copyright": "©", "pounds": "£", "euro": "€",
    "textasciitilde": "~", "textbackslash": "\\", "textasciicircum": "^",
}
#: Commands whose argument is shown as plain text (their formatting is not kept).
TEXT_COMMANDS = frozenset({
    "emph", "textit", "textbf", "textsc", "texttt", "textrm", "textsf", "textup", "textmd",
    "textsl", "mbox", "text", "url", "href", "em", "it", "bf", "sc", "tt", "rm", "sf",
    "protect", "relax", "noopsort",
})
_COMMAND = re.compile(r"\\([A-Za-z]+|.)[ \t]*", re.DOTALL)
_DASHES = (("---", "—"), ("--", "–"))


def pieces(value: str) -> list[tuple[str, bool]]:
    """The text of `value` in pieces, each with whether a brace group protects it."""
    out: list[tuple[str, bool]] = []
    _Converter(value, out).run(0, protected=False)
    return out


def to_text(value: str) -> str:
    """The text of `value`, one line, in Unicode (NFC)."""
    return " ".join(unicodedata.normalize("NFC", "".join(t for t, _ in pieces(value))).split())


class _Converter:
    def __init__(self, value: str, out: list[tuple[str, bool]]) -> None:
        self.value = value
        self.out = out

    def emit(self, text: str, protected: bool) -> None:
        if text:
            self.out.append((text, protected))

    def run(self, pos: int, *, protected: bool, depth: int = 0) -> int:
        """Convert from `pos` to the end of the current group; returns where it ended."""
        value = self.value
        while pos < len(value):
            char = value[pos]
            if char == "}":
                if depth:
                    return pos + 1
                pos += 1  # a stray closing brace: the reader reports unbalanced ones
            elif char == "{":
                special = value.startswith("\\", pos + 1)
                pos = self.run(pos + 1, protected=protected or not special, depth=depth + 1)
            elif char == "\\":
                pos = self.command(pos, protected)
            elif char == "$":
                end = value.find("$", pos + 1)
                end = len(value) if end < 0 else end + 1
                self.emit(value[pos:end], True)
                pos = end
            elif char == "~":
                self.emit("\u00a0", protected)
                pos += 1
            elif char == "-" and value.startswith("--", pos):
                dash, text = next((d, t) for d, t in _DASHES if value.startswith(d, pos))
                self.emit(text, protected)
                pos += len(dash)
            else:
                end = pos + 1
                while end < len(value) and value[end] not in "{}\\$~-":
                    end += 1
                self.emit(value[pos:end], protected)
                pos = end
        return pos

    def argument(self, pos: int) -> tuple[str, int]:
        """The text of one argument (a group or one character) at `pos`."""
        value = self.value
        while pos < len(value) and value[pos] in " \t":
            pos += 1
        if pos < len(value) and value[pos] == "{":
            inner: list[tuple[str, bool]] = []
            end = _Converter(value, inner).run(pos + 1, protected=False, depth=1)
            return "".join(t for t, _ in inner), end
        if pos < len(value) and value[pos] == "\\":
            inner = []
            end = _Converter(value, inner).command(pos, False)
            return "".join(t for t, _ in inner), end
        return value[pos:pos + 1], min(pos + 1, len(value))

    def command(self, pos: int, protected: bool) -> int:
        match = _COMMAND.match(self.value, pos)
        if match is None:  # a backslash at the very end
            self.emit("\\", protected)
            return pos + 1
        name = match.group(1)
        if name in ACCENTS:
            letter, end = self.argument(match.end())
            base = {"ı": "i", "ȷ": "j"}.get(letter[:1], letter[:1])
            self.emit(unicodedata.normalize("NFC", base + ACCENTS[name] + letter[1:]),
                      protected)
            return end
        if name in SYMBOLS:
            # "\\i " eats its space; "\\&" and the other one-character commands do not.
            self.emit(SYMBOLS[name], protected)
            return match.end() if name.isalpha() else pos + 1 + len(name)
        if name in TEXT_COMMANDS:  # its argument is text, and no more protected than here
            if self.value.startswith("{", match.end()):
                return self.run(match.end() + 1, protected=protected, depth=1)
            return match.end()
        self.emit(match.group(), protected)
        return match.end()
