"""How a search index's words are written into chunks (blogbuild.search.format says what a
chunk holds): runs of postings as pages come in order, the cutting rule, the bounds of each
chunk and the short names of files.

The chunking rule is ours (Pagefind's cuts depend on every word before, so one edit would
move every boundary after it): a chunk ends after a word whose hash picks it, once the chunk
holds enough locations, or when it holds too many. Boundaries depend on the words near
them only, so an edit changes the chunks that hold its words and no others.
"""

from __future__ import annotations

import itertools
import zlib
from collections.abc import Iterable, Iterator

from blogbuild.search.format import (
    ARRAY,
    SIGNATURE,
    Item,
    Posting,
    cbor_head,
    cbor_text,
    entry_head,
)

#: A chunk ends after a word once it holds MIN_UNITS (a page's locations plus one, counted
#: as Pagefind counts them) and the word's hash is 0 modulo EVERY, or at MAX_UNITS. About a
#: sixth of Pagefind's 20,000: a one-word search fetches a few kilobytes, not tens.
MIN_UNITS = 2_000
EVERY = 16
MAX_UNITS = 8_000


class Run:
    """A word's postings written as pages come in ascending order (a clean build's): the
    bytes Word would write, without keeping a posting object per page."""

    __slots__ = ("count", "data", "last", "units")

    def __init__(self) -> None:
        self.count = self.last = self.units = 0
        self.data = bytearray()

    def add(self, number: int, posting: Posting) -> None:
        delta = number - self.last
        self.data += entry_head(delta)
        self.data += posting[0]
        self.count += 1
        self.units += posting[1]
        self.last = number

    def encoded(self) -> bytes:
        return cbor_head(ARRAY, self.count) + self.data


def write_runs(word: str, main: Run | None, variants: dict[str, Run] | None) -> Item:
    """What word_item writes, from runs."""
    units = (0 if main is None else main.units) + sum(r.units for r in (variants or {}).values())
    ordered = sorted((variants or {}).items())
    text = cbor_text(word)
    pages = b"\x80" if main is None else main.encoded()
    data = b"".join([b"\x83", text, pages, cbor_head(ARRAY, len(ordered)),
                     *(b"\x82" + cbor_text(v) + r.encoded() for v, r in ordered)])
    return word, units, data, -1 if main is None else main.last, 1 + len(text) + len(pages)


def chunk_head(count: int) -> bytes:
    """What a chunk of `count` words starts with, before its words' CBOR."""
    return SIGNATURE + b"\x81" + cbor_head(ARRAY, count)


def _cut_here(word: str) -> bool:
    return zlib.crc32(word.encode()) % EVERY == 0


class Chunker:
    """Cuts a run of words, in order, into chunks by the rule above. Its state after a
    cut is empty, so a chunker that reaches the end of an old chunk with nothing pending
    agrees with a clean build from there on."""

    def __init__(self) -> None:
        self.words: list[Item] = []
        self.units = 0
        self.done: list[list[Item]] = []

    def add(self, item: Item) -> None:
        self.words.append(item)
        self.units += item[1]
        if self.units >= MAX_UNITS or (self.units >= MIN_UNITS and _cut_here(item[0])):
            self.done.append(self.words)
            self.words, self.units = [], 0

    def pending(self) -> bool:
        return bool(self.words)

    def take(self) -> list[list[Item]]:
        """The chunks cut so far."""
        done, self.done = self.done, []
        return done

    def finish(self) -> list[list[Item]]:
        if self.words:
            self.done.append(self.words)
            self.words, self.units = [], 0
        return self.take()


def bounds(firsts_lasts: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """Each chunk's `from` and `to`: between two neighbours, the shortest prefixes that
    still tell them apart (what Pagefind's reader compares a search term with)."""
    out = [list(pair) for pair in firsts_lasts]
    for left, right in itertools.pairwise(out):
        a, b = left[1], right[0]
        common = 0
        for x, y in zip(a, b, strict=False):
            if x != y:
                break
            common += 1
        left[1], right[0] = a[:common + 1], b[:common + 1]
    return [(a, b) for a, b in out]


def names(language: str, digests: Iterable[str], length: int = 7) -> Iterator[str]:
    """Short file names `<language>_<hex>` for content digests, in order: a name that
    would repeat an earlier one for other content takes more of its digest. The same
    digest gets the same name."""
    given: dict[str, str] = {}  # name -> digest
    for digest in digests:
        size = length
        while True:
            name = f"{language}_{digest[:size]}"
            other = given.get(name)
            if other is None or other == digest or size >= len(digest):
                break
            size += 1
        given[name] = digest
        yield name
