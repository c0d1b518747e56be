"""Source bytes → text: UTF-8 only, with a message naming the encoding a file seems to use."""

from __future__ import annotations

import codecs

from blogbuild.diagnostics import BlogbuildError, ContentError

# Longest first: the UTF-32 LE mark begins with the UTF-16 LE one.
_BOMS = (
    (codecs.BOM_UTF32_LE, "UTF-32"),
    (codecs.BOM_UTF32_BE, "UTF-32"),
    (codecs.BOM_UTF16_LE, "UTF-16"),
    (codecs.BOM_UTF16_BE, "UTF-16"),
)


def _convert_hint(encoding: str) -> str:
    return (f"save it as UTF-8 (in your editor: 'Save with encoding' → UTF-8, or "
            f"`iconv -f {encoding} -t UTF-8 FILE > NEW`)")


def _guess_wide(data: bytes) -> str | None:
    """UTF-16 or UTF-32 from a byte-order mark or from where ASCII text has its NUL bytes;
    "binary" for NULs in no such pattern."""
    for bom, name in _BOMS:
        if data.startswith(bom):
            return name
    head = data[:4000]
    if len(head) < 4 or head.count(0) * 8 < len(head):
        return None

    def nul_share(start: int, step: int) -> float:
        column = head[start::step]
        return column.count(0) / max(1, len(column))

    # ASCII in UTF-32 has three NULs in every four bytes (after the character in little-
    # endian order, before it in big-endian); in UTF-16, one NUL in every two bytes.
    shares = [nul_share(k, 4) for k in range(4)]
    if (min(shares[1:]) > 0.9 and shares[0] < 0.1) or (min(shares[:3]) > 0.9 and shares[3] < 0.1):
        return "UTF-32"
    even, odd = nul_share(0, 2), nul_share(1, 2)
    if max(even, odd) > 0.5 and min(even, odd) < 0.1:
        return "UTF-16"
    return "binary"


def decode_source(data: bytes, file: str, error: type[BlogbuildError] = ContentError) -> str:
    """The text of a source file with line ends made "\\n"; `error` if it is not UTF-8."""
    wide = _guess_wide(data)
    if wide == "binary":
        raise error("the file holds NUL bytes in no text encoding's pattern: it looks like a "
                    "binary file, not text; move it out of the way or save it as UTF-8 text",
                    file=file, line=1)
    if wide is not None:
        raise error(f"the file is not valid UTF-8: it looks like {wide}; "
                           + _convert_hint(wide), file=file, line=1)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        try:
            data.decode("cp1252")
        except UnicodeDecodeError:
            guess = "its encoding is unknown"
            hint = "save it as UTF-8"
        else:
            guess = "it looks like Latin-1/Windows-1252"
            hint = _convert_hint("WINDOWS-1252")
        raise error(f"the file is not valid UTF-8 (byte {data[exc.start]:#04x}); "
                           f"{guess}: {hint}", file=file, line=line) from None
    if text.startswith("\ufeff"):
        text = text[1:]  # a UTF-8 byte-order mark, as some Windows editors write
    return text.replace("\r\n", "\n").replace("\r", "\n")
