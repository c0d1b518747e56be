"""The whole site's index from its pages' parts, brought up to date from the last build's.

Pages are numbered in the order the stage gives them. When the pages that did not change
keep their numbers (an edit, a post added at the end), only the words whose postings
changed are rewritten: the chunks that hold them are read, changed and cut again, and the
cutting goes on into the next chunks only until it meets a boundary of the old ones (see
`format.Chunker`). Otherwise every chunk is made from every page's part. Either way the
chunks are the same bytes for the same pages, which the tests check.
"""

from __future__ import annotations

import array
import bisect
import itertools
from collections import deque
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field

from blogbuild.fileio import file_digest
from blogbuild.search import cuts, splice
from blogbuild.search import format as fmt
from blogbuild.search.kept import ChunkLost, read_kept
from blogbuild.search.pages import PageIndex

#: More changed pages than this and the chunks are made from scratch, which is then faster.
MOST_CHANGED = 64


@dataclass
class Chunk:
    """A chunk file, and where each of its words is in it. Its file, as it is served (gzip:
    half its raw bytes), is kept in the cache folder beside the layout (`search.layout`)
    and read from there only when an edit changes the chunk or the output lacks it."""

    words: list[str]
    units: array.array[int]  # each word's weight
    ends: array.array[int]  # where each word's CBOR ends in the raw file
    lasts: array.array[int]  # each word's last page number (-1: only variants)
    pages_ends: array.array[int]  # where the list of its pages ends in its CBOR
    digest: str  # of the raw file: its file name
    out: bytes  # digest of the served file
    #: The served file while it is in memory (made in this process, or read once); `out`
    #: names it in the cache.
    made: bytes | None = field(default=None, compare=False, repr=False)
    #: Its raw bytes, when they were read ahead (`read_ahead`): taken by `items`.
    raw: bytes | None = field(default=None, compare=False, repr=False)

    def __getstate__(self) -> dict[str, object]:
        # The served file is kept as a file of its own. The words go as one string: the
        # layout holds every word of the site, and a string each made saving and loading
        # it a third of what the index cost an edit's thread (23 ms at 1,000 posts).
        joined = "\0".join(self.words)
        whole = self.words and joined.count("\0") == len(self.words) - 1  # no NUL inside
        return {**self.__dict__, "words": joined if whole else self.words, "made": None,
                "raw": None}

    def __setstate__(self, state: dict[str, object]) -> None:
        words = state["words"]
        self.__dict__.update(state, words=words.split("\0") if isinstance(words, str)
                             else words)

    @property
    def data(self) -> bytes:
        """The served file. Raises ChunkLost."""
        if self.made is None:
            self.made = read_kept(self.out)
        return self.made

    @property
    def first(self) -> str:
        return self.words[0]

    @property
    def last(self) -> str:
        return self.words[-1]

    def read_ahead(self) -> None:
        """Read and decompress the file now (on another thread: both let go of the GIL),
        for `items`. Raises ChunkLost."""
        self.raw = fmt.decompress(self.data)

    def items(self) -> Iterator[fmt.Item]:
        raw, self.raw = self.raw, None
        if raw is None:
            raw = fmt.decompress(self.data)
        begin = len(cuts.chunk_head(len(self.words)))
        for word, units, end, last, pages_end in zip(self.words, self.units, self.ends,
                                                     self.lasts, self.pages_ends, strict=True):
            yield word, units, raw[begin:end], last, pages_end
            begin = end


def _remap(posting: fmt.Posting, table: list[int] | None) -> fmt.Posting:
    """A posting whose meta field numbers are its page's, renumbered by `table`."""
    if table is None:
        return posting
    locs, meta_locs = fmt.posting_lists(posting[0])
    return fmt.posting(locs, [-(table[-m - 1] + 1) if m < 0 else m for m in meta_locs])


def _field_table(page: PageIndex, fields: list[str]) -> list[int] | None:
    """How the page's meta field numbers map to the index's; None when they are the same
    (the usual case: every page has a date, an image and a title)."""
    if page.fields == fields:
        return None
    index = {f: i for i, f in enumerate(fields)}
    return [index[f] for f in page.fields]


def _make(items: list[fmt.Item]) -> Chunk:
    head = cuts.chunk_head(len(items))
    ends = array.array("q")
    at = len(head)
    for item in items:
        at += len(item[2])
        ends.append(at)
    raw = head + b"".join(item[2] for item in items)
    data = fmt.compress(raw)
    return Chunk([i[0] for i in items], array.array("q", (i[1] for i in items)), ends,
                 array.array("q", (i[3] for i in items)), array.array("q", (i[4] for i in items)),
                 fmt.digest(raw), file_digest(data), data)


_WAITING = 8


class _Maker:
    """Makes the chunks cut, in order, on two threads (compressing lets go of the GIL)
    while the cutting goes on; a context manager."""

    def __init__(self) -> None:
        self._pool = ThreadPoolExecutor(2, thread_name_prefix="chunks")
        self._waiting: deque[Future[Chunk]] = deque()
        self.made: list[Chunk] = []

    def add(self, cut: list[list[fmt.Item]]) -> None:
        for items in cut:
            self._waiting.append(self._pool.submit(_make, items))
            while len(self._waiting) > _WAITING:
                self.made.append(self._waiting.popleft().result())

    def keep(self, chunk: Chunk) -> None:
        """A chunk that stays as it is, in its place among those made."""
        done: Future[Chunk] = Future()
        done.set_result(chunk)
        self._waiting.append(done)

    def finish(self) -> list[Chunk]:
        while self._waiting:
            self.made.append(self._waiting.popleft().result())
        return self.made

    def __enter__(self) -> _Maker:
        return self

    def __exit__(self, *exc: object) -> None:
        for future in self._waiting:  # failed: the rest is not needed
            future.cancel()
        self._pool.shutdown(wait=True)


def from_scratch(count: int, page: Callable[[int], PageIndex], fields: list[str],
                 ) -> list[Chunk]:
    """The chunks of pages 0 to count - 1, read one at a time: memory holds the index's
    bytes, not an object per posting. A large site's words are gathered in a few passes
    over its pages, each for a range of words (in order, so the chunks are the same):
    memory holds the postings of one range at a time."""
    chunker = cuts.Chunker()
    with _Maker() as maker:
        for low, high in itertools.pairwise([None, *_splits(count, page), None]):
            main, variants = _runs(count, page, fields, low, high)
            for word in sorted(main.keys() | variants.keys()):
                # Each word's runs are let go once written, each chunk made once cut.
                chunker.add(cuts.write_runs(word, main.pop(word, None),
                                           variants.pop(word, None)))
                maker.add(chunker.take())
        maker.add(chunker.finish())
        return maker.finish()


#: Pages whose postings one pass of from_scratch gathers, about: each pass reads every
#: page again (a 5,000-page site's postings and their objects are about 60 MiB).
PAGES_PER_PASS = 2000
#: Pages sampled to split the words into ranges of about as many postings.
_SAMPLED = 40


def _splits(count: int, page: Callable[[int], PageIndex]) -> list[str]:
    """The words that begin the second and later passes' ranges (none: one pass), from
    the words of some pages spread over the site. Any split gives the same chunks; a
    good one gives each pass about as many postings."""
    passes = -(-count // PAGES_PER_PASS)
    if passes <= 1:
        return []
    weights: dict[str, int] = {}
    for number in range(0, count, max(1, count // _SAMPLED)):
        for word, (_posting, others) in page(number).words.items():
            weights[word] = weights.get(word, 0) + 1 + len(others)
    total = sum(weights.values())
    splits: list[str] = []
    seen = 0  # postings of the words before
    for word in sorted(weights):
        if seen >= total * (len(splits) + 1) / passes:
            splits.append(word)
            if len(splits) == passes - 1:
                break
        seen += weights[word]
    return splits


def _runs(count: int, page: Callable[[int], PageIndex], fields: list[str], low: str | None,
          high: str | None) -> tuple[dict[str, cuts.Run], dict[str, dict[str, cuts.Run]]]:
    """The postings of the words from `low` (None: the first) to before `high` (None: to
    the last), by word and by variant, in page order."""
    main: dict[str, cuts.Run] = {}
    variants: dict[str, dict[str, cuts.Run]] = {}
    for number in range(count):
        part = page(number)
        table = _field_table(part, fields)
        for word, (posting, others) in part.words.items():
            if (low is not None and word < low) or (high is not None and word >= high):
                continue
            if posting is not None:
                run = main.get(word)
                if run is None:
                    run = main[word] = cuts.Run()
                run.add(number, posting if table is None else _remap(posting, table))
            for variant, other in others.items():
                runs = variants.setdefault(word, {})
                run = runs.get(variant)
                if run is None:
                    run = runs[variant] = cuts.Run()
                run.add(number, other if table is None else _remap(other, table))
    return main, variants



def _changes(old: PageIndex | None, new: PageIndex | None, number: int, fields: list[str],
             into: dict[str, splice.Change], was: dict[str, fmt.Postings]) -> None:
    """The words whose postings on page `number` differ from `old` to `new`; `was` gets
    each such word's posting there before, when it had one."""
    old_words = {} if old is None else old.words
    new_words = {} if new is None else new.words
    old_map = None if old is None else _field_table(old, fields)
    new_map = None if new is None else _field_table(new, fields)
    for word in old_words.keys() | new_words.keys():
        before = old_words.get(word)
        after = new_words.get(word)
        if before is not None:
            before = (None if before[0] is None else _remap(before[0], old_map),
                      {v: _remap(p, old_map) for v, p in before[1].items()})
        if after is not None:
            after = (None if after[0] is None else _remap(after[0], new_map),
                     {v: _remap(p, new_map) for v, p in after[1].items()})
        if before != after:
            into.setdefault(word, {})[number] = after if after is not None else (None, {})
            if before is not None and before[0] is not None:
                was.setdefault(word, {})[number] = before[0]


def _apply(entry: fmt.Word, change: splice.Change) -> None:
    for number, (main, variants) in change.items():
        if main is None:
            entry.main.pop(number, None)
        else:
            entry.main[number] = main
        for postings in entry.variants.values():
            postings.pop(number, None)
        for variant, posting in variants.items():
            entry.variants.setdefault(variant, {})[number] = posting
    entry.variants = {v: p for v, p in entry.variants.items() if p}


def update(old: list[str], keys: list[str], part: Callable[[str], PageIndex | None],
           old_fields: list[str], fields: list[str], chunks: list[Chunk]) -> list[Chunk] | None:
    """The chunks for pages `keys` made from `chunks`, those of pages `old`, or None when
    they had better be made from scratch (or an old page's part is no longer cached)."""
    if fields != old_fields:
        return None
    changed = [n for n in range(max(len(old), len(keys)))
               if n >= len(old) or n >= len(keys) or old[n] != keys[n]]
    if len(changed) > MOST_CHANGED:
        return None
    changes: dict[str, splice.Change] = {}
    was: dict[str, fmt.Postings] = {}  # the changed words' postings before, by page
    for number in changed:
        before = part(old[number]) if number < len(old) else None
        after = part(keys[number]) if number < len(keys) else None
        if (before is None and number < len(old)) or (after is None and number < len(keys)):
            return None
        _changes(before, after, number, fields, changes, was)
    if not changes:
        return chunks
    if not chunks:
        return None
    lasts = [c.last for c in chunks]
    by_chunk: dict[int, list[str]] = {}
    for word in changes:
        at = min(bisect.bisect_left(lasts, word), len(chunks) - 1)
        by_chunk.setdefault(at, []).append(word)
    try:
        return _patched(chunks, changes, was, by_chunk)
    except ChunkLost:
        return None


def _patched(chunks: list[Chunk], changes: dict[str, splice.Change],
             was: dict[str, fmt.Postings], by_chunk: dict[int, list[str]]) -> list[Chunk]:
    """`chunks` with the `changes` to their words (by chunk) made. Raises ChunkLost."""
    chunker = cuts.Chunker()
    with _Maker() as maker:
        for at, chunk in enumerate(chunks):
            touched = by_chunk.get(at)
            if touched is None and not chunker.pending():
                maker.keep(chunk)
                continue
            items = {item[0]: item for item in chunk.items()}
            for word in touched or ():
                old_item = items.get(word)
                if old_item is None:
                    entry = fmt.Word()
                    _apply(entry, changes[word])
                    if not entry.empty():
                        items[word] = fmt.word_item(word, entry)
                    continue
                patched = splice.patched(old_item, changes[word], was.get(word))
                if patched is None:
                    del items[word]
                else:
                    items[word] = patched
            for word in sorted(items) if touched else items:
                chunker.add(items[word])
            maker.add(chunker.take())
        maker.add(chunker.finish())
        return maker.finish()

