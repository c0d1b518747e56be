"""One page's part of the search index, and Pagefind's files that are the same for every
index (its script, worker and WebAssembly).

Pagefind reads pages (tokens, stems, weights, diacritics: all its own rules); we take what
it wrote for a batch of pages apart, page by page, and keep each page's part in the result
cache under a key of everything it was made from. A page whose part is cached is never
given to Pagefind again.
"""

from __future__ import annotations

import base64
import json
import marshal
import os
import tempfile
from dataclasses import dataclass
from typing import IO, Any

from blogbuild import diskcache
from blogbuild.search import format as fmt

#: The result cache's table of page parts and runtimes.
TABLE = "search_pages"
#: Runtime files: everything of Pagefind's output that is neither index nor fragment nor
#: metadata, and that the search box loads.
_RUNTIME_TOP = ("pagefind.js", "pagefind-worker.js")

#: Bump when PageIndex changes.
_PAGE_FORMAT = 2

#: A page's words: word -> [its posting or None, {variant: posting}], where a posting's
#: meta locations number the page's own `fields`.
PageWords = dict[str, tuple[fmt.Posting | None, dict[str, fmt.Posting]]]


class PageIndex:
    """What the index holds of one page. Its words are decoded when first asked for:
    writing a fragment or listing a page needs the rest only."""

    def __init__(self, fragment: bytes, fragment_digest: str, word_count: int,
                 fields: list[str], words: PageWords | bytes) -> None:
        self.fragment = fragment  # gzipped, as Pagefind wrote it
        self.fragment_digest = fragment_digest  # of its JSON: its file name
        self.word_count = word_count
        self.fields = fields  # the meta fields its meta locations number
        self._words = words  # or their marshal bytes

    @property
    def words(self) -> PageWords:
        words = self._words
        if isinstance(words, bytes):
            words = self._words = marshal.loads(words)
        return words

    def dumps(self) -> bytes:
        words = self._words if isinstance(self._words, bytes) else marshal.dumps(self._words)
        return marshal.dumps((_PAGE_FORMAT, self.fragment, self.fragment_digest,
                              self.word_count, self.fields, words))

    @classmethod
    def loads(cls, data: bytes) -> PageIndex:
        version, fragment, digest, count, fields, words = marshal.loads(data)
        if version != _PAGE_FORMAT or not isinstance(words, bytes):
            raise ValueError("another format")
        return cls(fragment, digest, count, fields, words)


@dataclass
class Runtime:
    """Pagefind's files that do not depend on the pages, and its entry file's other
    fields."""

    language: str  # the key of the entry's `languages` (what file names begin with)
    version: str
    files: dict[str, bytes]  # path under the index folder -> bytes
    entry: dict[str, Any]  # the entry JSON as Pagefind wrote it

    def dumps(self) -> str:
        return json.dumps([self.language, self.version,
                           {k: base64.b64encode(v).decode() for k, v in self.files.items()},
                           self.entry])

    @classmethod
    def loads(cls, text: str) -> Runtime:
        language, version, files, entry = json.loads(text)
        return cls(language, version, {k: base64.b64decode(v) for k, v in files.items()},
                   entry)

    def entry_file(self, meta_name: str, page_count: int) -> bytes:
        """The entry JSON naming our metadata (`meta_name` without its `pagefind.`)."""
        entry = json.loads(json.dumps(self.entry))
        lang = entry["languages"][self.language]
        lang["hash"], lang["page_count"] = meta_name, page_count
        return json.dumps(entry, ensure_ascii=False, separators=(",", ":")).encode()


def split(files: dict[str, bytes]) -> tuple[Runtime, dict[str, PageIndex]]:
    """Pagefind's output for some pages taken apart: its runtime, and each page's part
    by its URL. Raises format.FormatError."""
    try:
        entry = json.loads(files["pagefind-entry.json"])
        ((language, info),) = entry["languages"].items()
        meta = fmt.read_meta(fmt.unpack(files[f"pagefind.{info['hash']}.pf_meta"]))
        runtime_files = {name: files[name] for name in _RUNTIME_TOP}
        wasm = f"wasm.{info['wasm']}.pagefind"
        runtime_files[wasm] = files[wasm]
    except (KeyError, ValueError, TypeError) as exc:
        raise fmt.FormatError(f"Pagefind's output lacks a file ({exc})") from None
    runtime = Runtime(language, meta.version, runtime_files, entry)
    pages: list[PageIndex] = []
    urls: list[str] = []
    for name, count in meta.pages:
        data = files.get(f"fragment/{name}.pf_fragment")
        if data is None:
            raise fmt.FormatError(f"Pagefind's output lacks the fragment {name}")
        text = fmt.fragment_text(data)
        try:
            urls.append(str(json.loads(text)["url"]))
        except (ValueError, KeyError, TypeError):
            raise fmt.FormatError(f"the fragment {name} has another shape") from None
        pages.append(PageIndex(data, fmt.digest(text), count, meta.fields, {}))
    for _a, _b, name in meta.chunks:
        data = files.get(f"index/{name}.pf_index")
        if data is None:
            raise fmt.FormatError(f"Pagefind's output lacks the chunk {name}")
        for word, entry_ in fmt.read_chunk(fmt.unpack(data)).items():
            for number, posting in entry_.main.items():
                pages[number].words[word] = (posting, {})
            for variant, postings in entry_.variants.items():
                for number, posting in postings.items():
                    main, variants = pages[number].words.get(word, (None, {}))
                    variants[variant] = posting
                    pages[number].words[word] = (main, variants)
    return runtime, dict(zip(urls, pages, strict=True))


def decoded(data: bytes | None) -> PageIndex | None:
    """A part from `PageIndex.dumps`'s bytes; None for none or for bytes of another
    format."""
    if data is None:
        return None
    try:
        return PageIndex.loads(data)
    except (ValueError, TypeError, EOFError):
        return None


class Spill:
    """Page parts a build read when there is no result cache (`--no-cache`), kept in an
    unnamed temporary file until the index is written: memory holds where each part is,
    not every page's words and fragment (over 100 MiB for 5,000 pages). A context
    manager; the file goes when it closes. Not for two threads at once."""

    def __init__(self) -> None:
        self._at: dict[str, tuple[int, int]] = {}  # key -> offset and size in the file
        self._file: IO[bytes] | None = None

    def put(self, key: str, data: bytes) -> None:
        if self._file is None:
            self._file = tempfile.TemporaryFile(prefix="blogbuild-search-")  # noqa: SIM115
        self._file.seek(0, os.SEEK_END)
        self._at[key] = (self._file.tell(), len(data))
        self._file.write(data)

    def get(self, key: str) -> bytes | None:
        at = self._at.get(key)
        if at is None or self._file is None:
            return None
        self._file.seek(at[0])
        return self._file.read(at[1])

    def pop(self, key: str) -> None:
        self._at.pop(key, None)

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None
        self._at.clear()

    def __enter__(self) -> Spill:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def cached_bytes(key: str) -> bytes | None:
    """A page's part as `PageIndex.dumps` wrote it, or None."""
    return diskcache.get_bytes(TABLE, key)


def prune(keys: list[str], runtime_key: str) -> int:
    """Let go of the parts of pages that are no longer as they were (each edit leaves
    one behind), once there are twice as many as the site has pages: a second
    configuration of the same site (another base URL) keeps its parts."""
    keep = {*keys, f"runtime:{runtime_key}"}
    return diskcache.prune(TABLE, keep, over=2 * len(keep) + 16)


def keep(key: str, data: bytes) -> bool:
    """Keep a page's part in the result cache; False when there is none."""
    return diskcache.put(TABLE, key, data)


def cached_runtime(key: str) -> Runtime | None:
    text = diskcache.get(TABLE, f"runtime:{key}")
    if text is None:
        return None
    try:
        return Runtime.loads(text)
    except (ValueError, TypeError, KeyError):
        return None


def keep_runtime(key: str, runtime: Runtime) -> None:
    diskcache.put(TABLE, f"runtime:{key}", runtime.dumps())
