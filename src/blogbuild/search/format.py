"""Pagefind 1.5's index files, read and written.

Every file but the entry JSON is gzip of `pagefind_dcd` followed by CBOR (definite-length
arrays, minimal integers, text strings), which is what Pagefind's WebAssembly reads:

- metadata `pagefind.<lang>_<hash>.pf_meta`:
  `[version, [[fragment name, word count], …] by page number, [[from, to, chunk name], …],
  filters, sorts, [meta field names]]`;
- a word chunk `index/<name>.pf_index`: `[[word, pages, variants], …]` in the words' byte
  order, where `pages` is `[[page number delta, locations, meta locations], …]` in page
  order (each page number stored as the difference from the one before), and `variants`
  is `[[the word with its diacritics, pages], …]`. A location list holds word positions,
  each run preceded by `-(weight + 1)` when the weight changes; a meta location list holds
  positions in meta fields, each run preceded by `-(field number + 1)`.
- a fragment `fragment/<name>.pf_fragment`: one page's JSON (URL, text, meta).

How words are cut into chunks is blogbuild.search.cuts; how a word's bytes are patched in
place, blogbuild.search.splice.
"""

from __future__ import annotations

import hashlib
import io
import zlib
from dataclasses import dataclass, field
from typing import Any, cast

import cbor2
from isal import isal_zlib

SIGNATURE = b"pagefind_dcd"

#: One page's posting of a word: the CBOR of its location list followed by that of its meta
#: location list, and its weight in a chunk (the number of locations, plus one).
Posting = tuple[bytes, int]
#: Postings by page number.
Postings = dict[int, Posting]

#: A word ready for a chunk: the word, its weight, its CBOR, the last page number of its
#: postings (-1: none) and where in its CBOR their list ends.
Item = tuple[str, int, bytes, int, int]

class FormatError(Exception):
    """Pagefind wrote something this reader does not know (another format version)."""


@dataclass
class Word:
    """Every page a word is on, and every page each of its diacritic variants is on."""

    main: Postings = field(default_factory=dict)
    variants: dict[str, Postings] = field(default_factory=dict)

    def units(self) -> int:
        """The word's weight in a chunk."""
        return (sum(p[1] for p in self.main.values())
                + sum(p[1] for v in self.variants.values() for p in v.values()))

    def empty(self) -> bool:
        return not self.main and not any(self.variants.values())


@dataclass
class Meta:
    """The index's metadata file: its pages, chunks and fields."""

    version: str
    pages: list[tuple[str, int]]  # fragment name and word count, by page number
    chunks: list[tuple[str, str, str]]  # from, to, chunk name
    fields: list[str]


def unpack(data: bytes) -> Any:
    """A file's CBOR value. Raises FormatError."""
    try:
        raw = decompress(data)
    except _NOT_GZIP as exc:
        raise FormatError(f"an index file is not gzip ({exc})") from None
    return unpack_raw(raw)


def unpack_raw(raw: bytes) -> Any:
    if not raw.startswith(SIGNATURE):
        raise FormatError("an index file lacks Pagefind's signature")
    try:
        return cbor2.loads(raw[len(SIGNATURE):])
    except (cbor2.CBORDecodeError, ValueError) as exc:
        raise FormatError(f"an index file is not CBOR ({exc})") from None


def pack(value: Any) -> bytes:
    """The uncompressed file: signature and CBOR."""
    return SIGNATURE + cbor2.dumps(value)


def compress(raw: bytes) -> bytes:
    """The served bytes (gzip): the same for the same input on every build, by ISA-L at its
    level 1. A new post adds words to nearly every chunk, and all of them are compressed
    again: on the 1,000 posts of the benchmark (365 chunks, 8.0 MB), zlib's level 1 took
    0.15 s for 4.70 MB, its level 6 0.39 s for 4.38 MB; ISA-L's level 1 takes 0.03 s for
    4.58 MB (libdeflate's level 1 0.05 s, zlib-ng's 0.04 s for 5.77 MB)."""
    return isal_zlib.compress(raw, 1, wbits=_GZIP)


def decompress(data: bytes) -> bytes:
    """The raw bytes of a gzip file (ours or Pagefind's), by ISA-L: about twice zlib's
    speed. Raises one of `_NOT_GZIP`."""
    return isal_zlib.decompress(data, wbits=_GZIP)


_GZIP = 16 + 15  # a gzip header and trailer, the largest window
#: What a file that is not gzip raises (isal's stub declares its error as an instance).
_NOT_GZIP: tuple[type[BaseException], ...] = (
    OSError, EOFError, zlib.error, cast("type[BaseException]", isal_zlib.error))


def fragment_text(data: bytes) -> bytes:
    """A fragment's JSON (what its name is the hash of)."""
    try:
        raw = decompress(data)
    except _NOT_GZIP as exc:
        raise FormatError(f"a fragment is not gzip ({exc})") from None
    if not raw.startswith(SIGNATURE):
        raise FormatError("a fragment lacks Pagefind's signature")
    return raw[len(SIGNATURE):]


def read_meta(value: Any) -> Meta:
    try:
        version, pages, chunks, _filters, _sorts, fields = value
        return Meta(str(version), [(str(h), int(n)) for h, n in pages],
                    [(str(a), str(b), str(h)) for a, b, h in chunks], [str(f) for f in fields])
    except (TypeError, ValueError) as exc:
        raise FormatError(f"the index metadata has another shape ({exc})") from None


def write_meta(meta: Meta) -> bytes:
    return pack([meta.version, [list(p) for p in meta.pages],
                 [list(c) for c in meta.chunks], [], [], meta.fields])


def posting(locs: list[int], meta_locs: list[int]) -> Posting:
    # One call: the pair's CBOR is a one-byte array head and then the two lists.
    return cbor2.dumps([locs, meta_locs])[1:], len(locs) + 1


def posting_lists(data: bytes) -> tuple[list[int], list[int]]:
    """The location lists of a posting's bytes."""
    stream = io.BytesIO(data)
    decoder = cbor2.CBORDecoder(stream)
    return decoder.decode(), decoder.decode()


def _postings(pages: Any) -> Postings:
    out: Postings = {}
    number = 0
    dumps = cbor2.dumps
    for delta, locs, meta_locs in pages:
        number += delta
        out[number] = dumps([locs, meta_locs])[1:], len(locs) + 1
    return out


def read_word(data: bytes) -> Word:
    """One word's entry, from its CBOR. Raises FormatError."""
    try:
        _word, pages, variants = cbor2.loads(data)
        return Word(_postings(pages), {v: _postings(p) for v, p in variants})
    except (cbor2.CBORDecodeError, TypeError, ValueError) as exc:
        raise FormatError(f"an index chunk has another shape ({exc})") from None


def read_chunk(value: Any) -> dict[str, Word]:
    """A chunk's words, in its order. Raises FormatError."""
    try:
        (entries,) = value
        return {word: Word(_postings(pages), {v: _postings(p) for v, p in variants})
                for word, pages, variants in entries}
    except (TypeError, ValueError) as exc:
        raise FormatError(f"an index chunk has another shape ({exc})") from None


def cbor_head(major: int, value: int) -> bytes:
    """A CBOR head in its shortest form (what cbor2 writes)."""
    if value < 24:
        return bytes([major | value])
    for marker, size in ((24, 1), (25, 2), (26, 4)):
        if value < 1 << (8 * size):
            return bytes([major | marker]) + value.to_bytes(size, "big")
    return bytes([major | 27]) + value.to_bytes(8, "big")


UINT, _TEXT, ARRAY = 0x00, 0x60, 0x80
_SMALL_UINT = [bytes([0x83, n]) for n in range(24)]


def entry_head(delta: int) -> bytes:
    """The start of a page's entry: a three-item array and its page number's delta."""
    return _SMALL_UINT[delta] if delta < 24 else b"\x83" + cbor_head(UINT, delta)


def cbor_text(value: str) -> bytes:
    data = value.encode()
    return cbor_head(_TEXT, len(data)) + data


def encode_postings(postings: Postings) -> bytes:
    parts = [cbor_head(ARRAY, len(postings))]
    last = 0
    for number in sorted(postings):
        delta = number - last
        parts.append(entry_head(delta))
        parts.append(postings[number][0])
        last = number
    return b"".join(parts)


def word_item(word: str, entry: Word) -> Item:
    """One word's entry as CBOR, `[word, pages, variants]` (a chunk is their concatenation
    in an array), with what the chunk keeps of it."""
    text = cbor_text(word)
    pages = encode_postings(entry.main)
    variants = sorted((v, p) for v, p in entry.variants.items() if p)
    data = b"".join([b"\x83", text, pages, cbor_head(ARRAY, len(variants)),
                     *(b"\x82" + cbor_text(v) + encode_postings(p) for v, p in variants)])
    return (word, entry.units(), data, max(entry.main, default=-1),
            1 + len(text) + len(pages))


def write_word(word: str, entry: Word) -> bytes:
    """One word's entry as CBOR."""
    return word_item(word, entry)[2]


def digest(data: bytes) -> str:
    return hashlib.sha1(data, usedforsecurity=False).hexdigest()
