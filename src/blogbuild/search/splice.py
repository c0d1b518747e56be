"""A word's entry in a chunk changed in place (blogbuild.search.format says what the entry
is): postings added after its last page, or pages' postings replaced or taken out, its
bytes spliced rather than decoded and written whole, which an edit of one page of
thousands would otherwise cost for every word it has."""

from __future__ import annotations

import io

import cbor2

from blogbuild.search.format import (
    ARRAY,
    UINT,
    FormatError,
    Item,
    Posting,
    Postings,
    cbor_head,
    cbor_text,
    encode_postings,
    entry_head,
    posting,
)


def appended(item: Item, postings: list[tuple[int, Posting]]) -> Item:
    """`item` with postings on new pages, numbered after every page it is on, added to
    its pages: its bytes spliced, not decoded."""
    word, units, data, last, end = item
    start = 1 + len(cbor_text(word))
    _major, count, listed = _read_head(data, start)
    size = listed - start
    added = []
    for number, (given, more) in postings:
        delta = number - max(last, 0)
        added.append(entry_head(delta))
        added.append(given)
        units += more
        last = number
    head = cbor_head(ARRAY, count + len(postings))
    body = b"".join(added)
    new = b"".join([data[:start], head, data[start + size:end], body, data[end:]])
    return word, units, new, last, end + len(head) - size + len(body)


#: A change to one word: page number -> its new (posting or None, variants) there.
Change = dict[int, tuple[Posting | None, dict[str, Posting]]]


def patched(item: Item, change: Change, was: Postings | None = None) -> Item | None:
    """`item` with `change` applied (each page's postings replaced, or taken out), or None
    when the word is on no page any more. The list of its pages is spliced: the entries
    before the first changed page and after the last are copied as bytes, and those
    between are read one at a time by the CBOR library, so a word that is on every page
    costs a walk, not a decoding and an encoding of all its postings. A change of its last
    page alone, whose posting before is in `was` (the changed pages' postings before),
    costs no walk: that page's entry is found from the end (`_last_replaced`). Its
    variants (a few pages, if any) are decoded and written again."""
    word, units, data, last, end = item
    if data[end:] == _EMPTY and all(main is not None and not others and number > last
                                    for number, (main, others) in change.items()):
        # Only postings after every page it is on (a new post), and no variants to mind.
        return appended(item, [(n, main) for n, (main, _o) in sorted(change.items())
                               if main is not None])
    start = 1 + len(cbor_text(word))
    quick = _last_replaced(data, start, end, change, last, was)
    pages, more, last = quick if quick is not None else _spliced(data, start, end, {
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
                     *(b"\x82" + cbor_text(v) + encode_postings(p) for v, p in kept)])
    return word, units + more, data, last, start + len(pages)


_EMPTY = b"\x80"  # an empty CBOR array


#: Where a page's entry may start, counted back from its posting: the entry's array head
#: and its page number's delta, a CBOR integer of 1, 2, 3, 5 or 9 bytes.
_HEAD_SIZES = (2, 3, 4, 6, 10)


def _last_replaced(data: bytes, start: int, end: int, change: Change, last: int,
                   was: Postings | None) -> tuple[bytes, int, int] | None:
    """What `_spliced` gives when `change` is to the word's last page alone and `was` has
    that page's posting before, without a walk: the last entry ends the list, its posting
    is `was`'s, and its head is the one place before that posting where an entry's head
    fits (None when none or more than one fits: the walk decides)."""
    if was is None or len(change) != 1:
        return None
    ((number, (new, _others)),) = change.items()
    before = was.get(number)
    if number != last or before is None:
        return None
    major, count, pos = _read_head(data, start)
    tail = end - len(before[0])
    if major != ARRAY or not count or data[tail:end] != before[0]:
        return None
    fits = []
    for size in _HEAD_SIZES:
        entry = tail - size
        if entry < pos or data[entry] != 0x83:
            continue
        try:
            kind, delta, after = _read_head(data, entry + 1)
        except FormatError:  # not a head: bytes of the entry before
            continue
        if kind == UINT and after == tail and delta <= number:
            fits.append((entry, delta))
    if len(fits) != 1:
        return None
    ((entry, delta),) = fits
    if new is None:
        count -= 1
        return (cbor_head(ARRAY, count) + data[pos:entry], -before[1],
                number - delta if count else -1)
    return (cbor_head(ARRAY, count) + data[pos:entry] + _entry(delta, new[0]),
            new[1] - before[1], number)


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
