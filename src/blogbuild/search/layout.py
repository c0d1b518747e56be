"""What an index is made of (its pages in order, its chunks), kept for the next build, and
the files it is served as.

The layout lives in the live server's memory and, for the next process, in the cache
folder (`search-layout.pickle`). It is a cache like the others: it describes the files it
made, not the output folder, whose files the stage checks one by one before keeping them.
"""

from __future__ import annotations

import contextlib
import pickle
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from blogbuild import diskcache
from blogbuild.fileio import file_digest, write_atomically
from blogbuild.search import cuts
from blogbuild.search import format as fmt
from blogbuild.search.chunks import Chunk
from blogbuild.search.kept import keep_files
from blogbuild.search.pages import PageIndex, Runtime

_FILE = "search-layout.pickle"
#: Bump when these classes change.
_FORMAT = 5


@dataclass
class PageRef:
    """What the index needs of a page that did not change: not its words."""

    key: str
    fragment_digest: str  # of its fragment's JSON: the fragment's name
    word_count: int
    fields: tuple[str, ...]
    out: bytes  # digest of its fragment file

    @classmethod
    def of(cls, key: str, part: PageIndex) -> PageRef:
        return cls(key, part.fragment_digest, part.word_count, tuple(part.fields),
                   file_digest(part.fragment))


@dataclass
class Layout:
    """The index as the last build made it (see the module's docstring)."""

    key: str  # options and Pagefind's version
    pages: list[PageRef]  # by page number
    fields: list[str]  # meta field names, by number
    chunks: list[Chunk]

    def pages_keys(self) -> list[str]:
        return [p.key for p in self.pages]

    @staticmethod
    def load() -> Layout | None:
        folder = diskcache.cache_dir()
        if folder is None:
            return None
        try:
            with open(Path(folder) / _FILE, "rb") as f:
                version, layout = pickle.load(f)
        except (OSError, pickle.UnpicklingError, EOFError, ValueError, TypeError,
                AttributeError, ImportError):
            return None
        return layout if version == _FORMAT and isinstance(layout, Layout) else None

    def keep_files(self, kind: str, staged: Mapping[bytes, Path]) -> None:
        """Put in the cache the files of its chunks that it lacks, while those staged for
        the output are in the stage (they are linked). `kind`: of index (with drafts or
        without), whose files are tidied on their own; `staged`: the files of the output's
        stage, by digest (see blogbuild.search.kept.keep_files)."""
        keep_files(self.chunks, kind, staged)

    def write(self) -> None:
        """Write the layout to the cache, for the next build (after `keep_files`: it names
        the chunks' files there)."""
        folder = diskcache.cache_dir()
        if folder is None:
            return
        # If it cannot be written, the next process makes the chunks from the pages' parts.
        with contextlib.suppress(OSError):
            write_atomically(Path(folder) / _FILE,
                             pickle.dumps((_FORMAT, self), protocol=pickle.HIGHEST_PROTOCOL))


#: A file of the index: the digest of its bytes when known without making them, and how to
#: make them.
IndexFile = tuple[bytes | None, Callable[[], bytes]]


@dataclass
class Made:
    """The index's files, by path, and the layout they follow."""

    layout: Layout
    files: dict[str, IndexFile] = field(default_factory=dict)

    @classmethod
    def of(cls, runtime: Runtime, layout: Layout,
           part: Callable[[str], PageIndex]) -> Made:
        """The index's files, by path under its folder."""
        lang = runtime.language
        made = cls(layout)
        for rel, data in sorted(runtime.files.items()):
            made.files[rel] = (None, _given(data))
        fragment_names = list(cuts.names(lang, (p.fragment_digest for p in layout.pages)))
        for name, page in zip(fragment_names, layout.pages, strict=True):
            made.files[f"fragment/{name}.pf_fragment"] = (page.out, _fragment(part, page.key))
        chunk_names = list(cuts.names(lang, (c.digest for c in layout.chunks)))
        bounds = cuts.bounds([(c.first, c.last) for c in layout.chunks])
        for name, chunk in zip(chunk_names, layout.chunks, strict=True):
            made.files[f"index/{name}.pf_index"] = (chunk.out, _chunk_file(chunk))
        meta = fmt.write_meta(fmt.Meta(
            runtime.version, [(n, p.word_count) for n, p in zip(fragment_names, layout.pages,
                                                                  strict=True)],
            [(a, b, n) for (a, b), n in zip(bounds, chunk_names, strict=True)],
            layout.fields))
        meta_name = f"{lang}_{fmt.digest(meta)[:10]}"
        made.files[f"pagefind.{meta_name}.pf_meta"] = (None, _given(fmt.compress(meta)))
        made.files["pagefind-entry.json"] = (
            None, _given(runtime.entry_file(meta_name, len(layout.pages))))
        return made


def _given(data: bytes) -> Callable[[], bytes]:
    return lambda: data


def _chunk_file(chunk: Chunk) -> Callable[[], bytes]:
    """Read from the cache only when the output lacks it. Raises ChunkLost."""
    return lambda: chunk.data


def _fragment(part: Callable[[str], PageIndex], key: str) -> Callable[[], bytes]:
    return lambda: part(key).fragment
