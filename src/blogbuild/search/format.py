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

How words are cut into chunks is blogbuild.search.cuts.
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


_UINT, _TEXT, ARRAY = 0x00, 0x60, 0x80
_SMALL_UINT = [bytes([0x83, n]) for n in range(24)]


def entry_head(delta: int) -> bytes:
    """The start of a page's entry: a three-item array and its page number's delta."""
    return _SMALL_UINT[delta] if delta < 24 else b"\x83" + cbor_head(_UINT, delta)


def cbor_text(value: str) -> bytes:
    data = value.encode()
    return cbor_head(_TEXT, len(data)) + data


def _encode_postings(postings: Postings) -> bytes:
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
    pages = _encode_postings(entry.main)
    variants = sorted((v, p) for v, p in entry.variants.items() if p)
    data = b"".join([b"\x83", text, pages, cbor_head(ARRAY, len(variants)),
                     *(b"\x82" + cbor_text(v) + _encode_postings(p) for v, p in variants)])
    return (word, entry.units(), data, max(entry.main, default=-1),
            1 + len(text) + len(pages))


def write_word(word: str, entry: Word) -> bytes:
    """One word's entry as CBOR."""
    return word_item(word, entry)[2]


def appended(item: Item, postings: list[tuple[int, Posting]]) -> Item:
    """`item` with postings on new pages, numbered after every page it is on, added to
    its pages: its bytes spliced, not decoded."""
    word, units, data, last, end = item
    start = 1 + len(cbor_text(word))
    info = data[start] & 0x1F
    size = 1 if info < 24 else 1 + (1 << (info - 24))
    count = info if info < 24 else int.from_bytes(data[start + 1:start + size], "big")
    added = []
    for number, (posting, more) in postings:
        delta = number - max(last, 0)
        added.append(entry_head(delta))
        added.append(posting)
        units += more
        last = number
    head = cbor_head(ARRAY, count + len(postings))
    body = b"".join(added)
    new = b"".join([data[:start], head, data[start + size:end], body, data[end:]])
    return word, units, new, last, end + len(head) - size + len(body)


#: A change to one word: page number -> its new (posting or None, variants) there.
Change = dict[int, tuple[Posting | None, dict[str, Posting]]]


def patched(item: Item, change: Change) -> Item | None:
    """`item` with `change` applied (each page's postings replaced, or taken out), or None
    when the word is on no page any more. The list of its pages is spliced: the entries
    before the first changed page and after the last are copied as bytes, and those
    between are read one at a time by the CBOR library, so a word that is on every page
    costs a walk, not a decoding and an encoding of all its postings. Its variants (a few
    pages, if any) are decoded and written again."""
    word, units, data, last, end = item
    if data[end:] == _EMPTY and all(main is not None and not others and number > last
                                    for number, (main, others) in change.items()):
        # Only postings after every page it is on (a new post), and no variants to mind.
        return appended(item, [(n, main) for n, (main, _o) in sorted(change.items())
                               if main is not None])
    start = 1 + len(cbor_text(word))
    pages, more, last = _spliced(data, start, end, {
        n: main for n, (main, _v) in change.items()}, last)
    try:
        decoded = cbor2.loads(data[end:])
    except (cbor2.CBORDecodeError, TypeError, ValueError) as exc:
        raise FormatError(f"an index chunk has another shape ({exc})") from None
    variants: dict[str, Postings] = {}
    for variant, entries in decoded:
        number = 0
        for delta, locs, meta_locs in entries:
            number += delta
            variants.setdefault(variant, {})[number] = posting(locs, meta_locs)
            more -= len(locs) + 1
    for number, (_main, others) in change.items():
        for postings in variants.values():
            postings.pop(number, None)
        for variant, one in others.items():
            variants.setdefault(variant, {})[number] = one
    kept = sorted((v, p) for v, p in variants.items() if p)
    if pages == _EMPTY and not kept:
        return None
    more += sum(one[1] for _v, postings in kept for one in postings.values())
    data = b"".join([b"\x83", data[1:start], pages, cbor_head(ARRAY, len(kept)),
                     *(b"\x82" + cbor_text(v) + _encode_postings(p) for v, p in kept)])
    return word, units + more, data, last, start + len(pages)


_EMPTY = b"\x80"  # an empty CBOR array


def _spliced(data: bytes, start: int, end: int, change: dict[int, Posting | None],
             last: int) -> tuple[bytes, int, int]:
    """The list of pages at `data[start:end]`, whose last page is `last`, with `change`
    applied; the change of its weight; its last page now (-1: none)."""
    major, count, pos = _read_head(data, start)
    if major != ARRAY:
        raise FormatError("an index chunk has another shape (a word's pages)")
    targets = sorted(change)
    stream = io.BytesIO(data)
    decoder = cbor2.CBORDecoder(stream)
    pieces: list[bytes] = []
    copied = pos  # what comes before data[copied] is in pieces
    number = previous = 0  # page numbers: of the entry read, of the last one written
    more = 0
    at = 0  # the next target
    fix = False  # the next entry kept gets a new delta
    for _ in range(count):
        if at == len(targets) and not fix:
            break  # the rest is copied as it is
        entry = pos
        stream.seek(pos)
        try:
            delta, locs, _meta_locs = decoder.decode()
        except (cbor2.CBORDecodeError, TypeError, ValueError) as exc:
            raise FormatError(f"an index chunk has another shape ({exc})") from None
        pos = stream.tell()
        number += delta
        while at < len(targets) and targets[at] < number:  # a new page before this one
            new = change[targets[at]]
            if new is not None:
                pieces += [data[copied:entry], _entry(targets[at] - previous, new[0])]
                copied, previous, fix = entry, targets[at], True
                more += new[1]
                count += 1
            at += 1
        if at < len(targets) and targets[at] == number:  # this page changed
            new = change[number]
            pieces.append(data[copied:entry])
            more -= len(locs) + 1
            if new is None:
                count -= 1
                if number == last:
                    last = previous if count else -1
            else:
                pieces.append(_entry(number - previous, new[0]))
                more += new[1]
                previous = number
            copied, fix = pos, True
            at += 1
            continue
        if fix:  # kept, after a change: a new delta, the rest of its bytes as they are
            _major, _delta, after = _read_head(data, entry + 1)
            pieces += [data[copied:entry], _entry(number - previous, b"")]
            copied, fix = after, False
        previous = number
    pieces.append(data[copied:end])
    for target in targets[at:]:  # new pages after all the others
        new = change[target]
        if new is not None:
            pieces.append(_entry(target - previous, new[0]))
            previous = last = target
            more += new[1]
            count += 1
    return cbor_head(ARRAY, count) + b"".join(pieces), more, last


def _entry(delta: int, posting_bytes: bytes) -> bytes:
    """A page's entry in a word's list of pages: `[delta, locs, meta_locs]`."""
    return entry_head(delta) + posting_bytes


def _read_head(data: bytes, pos: int) -> tuple[int, int, int]:
    """A CBOR head at `pos`: its major type, its value and where what follows it starts."""
    first = data[pos]
    info = first & 0x1F
    if info < 24:
        return first & 0xE0, info, pos + 1
    if info > 27:
        raise FormatError("an index chunk has another shape (a CBOR head)")
    size = 1 << (info - 24)
    return first & 0xE0, int.from_bytes(data[pos + 1:pos + 1 + size], "big"), pos + 1 + size


def digest(data: bytes) -> str:
    return hashlib.sha1(data, usedforsecurity=False).hexdigest()
