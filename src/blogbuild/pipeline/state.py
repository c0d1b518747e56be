"""What the last build knew, kept beside the render cache so a new process is incremental.

(blogbuild.pipeline.state_files says how it is kept on disk.)

Per source: its digest and render record (no body). Per output page: what it read, the
fingerprints it was made from, and the bytes it has in the output. Per copied file: where it
came from. The state describes one output folder; it is only trusted when that folder still
carries blogbuild's marker, and every file it lists is checked against the disk (size and
modification time) before it is taken as unchanged.
"""

from __future__ import annotations

import hashlib
import pickle
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from blogbuild.fileio import write_atomically
from blogbuild.output.entries import FileEntry, OutputEntry

if TYPE_CHECKING:
    from blogbuild.content.records import SourceEntry
    from blogbuild.pipeline.deps import Reads
    from blogbuild.pipeline.items import ListItem

#: Bump when the layout of these classes changes (the code fingerprint covers it too).
FORMAT = 7

#: A ranking of related posts as a build's state keeps it: a digest of what it was made
#: from and the related posts by source, as sources (blogbuild.pipeline.nav.Ranking).
Ranked = tuple[bytes, dict[str, tuple[str, ...]]]


def unranked() -> Ranked:
    """The ranking of a build that ranked nothing yet (it matches no digest)."""
    return (b"", {})


@dataclass
class PageEntry:
    """A page as the last build wrote it: what it was made from and what it read."""

    template: str
    inputs: bytes  # fingerprint of template, globals, URL and context shape
    deps: Reads
    out: OutputEntry

    def __reduce__(self) -> tuple[type, tuple[str, bytes, Reads, OutputEntry]]:
        return PageEntry, (self.template, self.inputs, self.deps, self.out)  # as OutputEntry


@dataclass
class State:
    """Everything the last build knew (see the module's docstring)."""

    key: str  # code fingerprint, output folder, drafts
    sources: dict[str, SourceEntry] = field(default_factory=dict)
    pages: dict[str, PageEntry] = field(default_factory=dict)
    files: dict[str, FileEntry] = field(default_factory=dict)
    #: Fingerprint of every attribute of a source (a post's, SITE or CONFIG) that some page
    #: read, as the pages saw it: source -> attribute -> fingerprint.
    values: dict[str, dict[str, bytes]] = field(default_factory=dict)
    posts: dict[str, bytes] = field(default_factory=dict)  # source -> post fingerprint
    #: Posts' entries in the lists of posts, and in the feeds, as templated
    #: (blogbuild.pipeline.items).
    items: dict[str, ListItem] = field(default_factory=dict)
    feed_items: dict[str, ListItem] = field(default_factory=dict)
    templates: str = ""  # fingerprint of every template file
    closures: dict[str, bytes] = field(default_factory=dict)  # template -> what it loads
    #: What every page is made with (`pages.made_with`): while it holds, a document's page
    #: whose post did not change keeps its inputs.
    made_with: bytes = b""
    #: The related posts as the last build ranked them, and what from (pipeline.nav.Ranking).
    related: Ranked = field(default_factory=unranked)
    format: int = FORMAT
    #: What its files on disk hold, once it was loaded or saved (state_files.Saved).
    saved: Any = field(default=None, compare=False, repr=False)
    #: Shards loaded as their pickles and not unpickled yet, by name (`feed_items-07`):
    #: the lists' and the feeds' entries, megabytes that only a build that templates a
    #: list or a feed reads (an edit's build templates none, often).
    packed: dict[str, bytes] = field(default_factory=dict, compare=False, repr=False)

    def part(self, name: str) -> dict[str, Any]:
        """The part `name` (`feed_items`), its shards unpickled first if they are packed.
        A shard that cannot be read is left out: what it held is made again."""
        for shard_name in self.packed_of(name):
            try:
                shard = pickle.loads(self.packed.pop(shard_name))
            except Exception:  # damaged
                shard = {}
            if not isinstance(shard, dict):
                shard = {}
            getattr(self, name).update(shard)
            if self.saved is not None:  # the saving compares it with the new state's
                self.saved.held[shard_name] = shard
        found: dict[str, Any] = getattr(self, name)
        return found

    def packed_of(self, name: str) -> dict[str, bytes]:
        """The packed shards of the part `name`, by shard name."""
        return {n: data for n, data in self.packed.items() if n.rsplit("-", 1)[0] == name}

    def outputs(self) -> dict[str, OutputEntry]:
        """Every file the build left in the output (but the marker): pages and files."""
        found = {rel: entry.out for rel, entry in self.pages.items()}
        found.update((rel, entry.out) for rel, entry in self.files.items())
        return found


def state_key(code: str, output: Path, drafts: bool) -> str:
    return hashlib.sha256(f"{FORMAT}\0{code}\0{output}\0{drafts}".encode()).hexdigest()


def state_path(cache: Path, key: str) -> Path:
    """The folder of the state (blogbuild.pipeline.state_files keeps it there)."""
    return cache / "state" / key[:32]


def save_pickle(path: Path, value: object) -> bool:
    """Write atomically; False when it could not be written (a cache that cannot be
    written only costs speed next time)."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomically(path, pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL))
    except OSError:
        return False
    return True
