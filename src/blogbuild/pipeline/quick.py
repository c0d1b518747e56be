"""The check that makes a build with nothing to do cost a few hundred milliseconds.

Everything a build reads is summed up in one fingerprint (the config, every source's digest,
the files it copies, the templates); the last build saved it with the list of files it left
in the output. When both still hold, the output is up to date and nothing else runs: no
Markdown, no templates, no worker. This module imports nothing heavy on purpose.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from blogbuild import fingerprints
from blogbuild.content.discover import Discovered, discover
from blogbuild.content.jobs import SourceJob
from blogbuild.content.walk import ignored
from blogbuild.fingerprints import digest_of, may_execute
from blogbuild.output.entries import OutputEntry, files_known, files_under, intact
from blogbuild.output.outdir import MARKER
from blogbuild.pipeline.outcome import BuildReport
from blogbuild.pipeline.state import save_pickle, state_key, state_path
from blogbuild.quarto import freeze_folders
from blogbuild.themefiles import theme_static, theme_templates

if TYPE_CHECKING:
    from blogbuild.outline import SiteOptions


@dataclass(frozen=True)
class RenderJob:
    """A source to render, with its bytes and their digest."""

    job: SourceJob
    data: bytes | None  # None: unreadable (the render reports the error with the file)
    digest: str
    feed: bool  # the feed variant is needed too


@dataclass(frozen=True)
class Stamp:
    """A source file as a build read it: its stat, when it was read, the digest of its
    bytes. A later build takes the digest without reading the file when the stat is the
    same and the file had been written well before it was read (`trusted`)."""

    size: int
    mtime_ns: int
    ctime_ns: int
    inode: int
    read_ns: int  # the clock when it was read
    digest: str

    def trusted(self, now: tuple[int, int, int, int]) -> bool:
        """The file is as it was read. A write in the same tick of the file system's clock
        as the one before leaves the stat as it was, so a file written less than
        `RACY_NS` before it was read is read again, as git does with its index."""
        return (now == (self.size, self.mtime_ns, self.ctime_ns, self.inode)
                and self.mtime_ns < self.read_ns - RACY_NS
                and self.ctime_ns < self.read_ns - RACY_NS)


#: Sources written this close before a build read them are read again by the next build.
RACY_NS = 2_000_000_000


@dataclass
class Sources:
    """What the check read, handed on to the engine when the check finds work to do."""

    found: Discovered
    items: dict[str, RenderJob]
    #: How each source was read (none for a source that may run code at build time: its
    #: digest also depends on the environment, so it is always read).
    stamps: dict[str, Stamp] = field(default_factory=dict)
    templates: str = ""  # fingerprint of the template files, once read
    inputs: bytes = b""  # fingerprint of everything the build reads, once worked out
    #: The sources that the last build's stamps do not name: new since (none when the
    #: stamps were not given).
    new: set[str] = field(default_factory=set)
    #: The files the check found in the output folder (None: not looked): the commit
    #: removes those the site no longer has without walking the folder again.
    outputs: set[str] | None = None

    def template_files(self, config: SiteOptions) -> str:
        if not self.templates:
            self.templates = template_files(config)
        return self.templates


def read_sources(config: SiteOptions, known: dict[str, Stamp] | None = None) -> Sources:
    """Every source and the digest of its bytes. The sources that `known` stamps (the last
    build's reading, made with the same options and code) and that did not change since
    are not read: their `data` is None until a render needs it (`with_bytes`). An
    unreadable source has the digest ""."""
    found = discover(config.content_path, config.root)
    items: dict[str, RenderJob] = {}
    stamps: dict[str, Stamp] = {}
    for job in found.documents:
        try:
            st = found.stats.get(str(job.path)) or os.stat(job.path)
            now: tuple[int, int, int, int] | None = (st.st_size, st.st_mtime_ns,
                                                     st.st_ctime_ns, st.st_ino)
        except OSError:
            now = None
        stamp = known.get(job.rel) if known else None
        if stamp is not None and now is not None and stamp.trusted(now):
            items[job.rel] = RenderJob(job, None, stamp.digest, False)
            stamps[job.rel] = stamp
            continue
        read_ns = time.time_ns()
        try:
            data: bytes | None = job.path.read_bytes()
        except OSError:
            data = None
        digest = digest_of(data, config) if data is not None else ""
        items[job.rel] = RenderJob(job, data, digest, False)
        if data is not None and now is not None and not may_execute(data, config):
            stamps[job.rel] = Stamp(*now, read_ns, digest)
    new = {rel for rel in stamps if rel not in known} if known is not None else set()
    return Sources(found, items, stamps, new=new)


def stamps_key(config: SiteOptions) -> str:
    """What the digests of stamped sources were made with (`digest_of`): the options a
    render reads, the code, the readers and stages."""
    return hashlib.sha256(f"{config.render_fingerprint()}\0{fingerprints.code_fingerprint()}"
                          f"\0{fingerprints.extensions()}".encode()).hexdigest()


def without_bytes(items: dict[str, RenderJob]) -> dict[str, RenderJob]:
    """`items` without the bytes of their files: a build that has rendered them lets go
    of them (80 MiB for 5,000 posts) before it templates and indexes, and reads a file
    again in the rare case a render is lost (`with_bytes`)."""
    return {rel: item if item.data is None else replace(item, data=None)
            for rel, item in items.items()}


def with_bytes(item: RenderJob, config: SiteOptions) -> RenderJob:
    """`item` with the bytes of its file, read again when it was let go of (the digest
    too: the file may have changed since, and a render is stored under its bytes')."""
    if item.data is not None:
        return item
    try:
        data = item.job.path.read_bytes()
    except OSError:
        return item  # the render says it cannot read the file
    return replace(item, data=data, digest=digest_of(data, config))


@dataclass
class Summary:
    """What a build left: the fingerprint of its inputs, its files and its report, and how
    it read its sources (with what `stamps_key`)."""

    key: str
    inputs: bytes
    outputs: dict[str, OutputEntry]
    report: BuildReport
    stamps: dict[str, Stamp] = field(default_factory=dict)
    stamps_key: str = ""
    #: The times of the output's folders once it was written, and the clock then
    #: (`output.entries.folder_times`): while they hold, its files are `outputs`'.
    folders: dict[str, int] = field(default_factory=dict)
    folders_ns: int = 0


def present(output: Path, summary: Summary) -> set[str] | None:
    """The files of the output, known without listing every folder when they are still
    those the summary names (None: unknown)."""
    files = set(summary.outputs) | {MARKER}
    return files if files_known(output, files, summary.folders, summary.folders_ns) else None


def template_files(config: SiteOptions) -> str:
    """A fingerprint of every template file a build can load (site and theme)."""
    h = hashlib.sha256()
    for prefix, folder in (("site", config.root / "templates"), ("theme", theme_templates())):
        _tree(h, prefix, folder, contents=True)
    return h.hexdigest()


def _tree(h: hashlib._Hash, prefix: str, folder: Path, *, contents: bool) -> None:
    """Names and contents (or sizes and times) of every file under `folder`."""
    if not folder.is_dir():
        return
    for base, dirs, names in os.walk(folder, followlinks=True):
        dirs[:] = sorted(d for d in dirs if not ignored(d))
        for name in sorted(n for n in names if not ignored(n)):
            path = os.path.join(base, name)
            h.update(f"{prefix}/{os.path.relpath(path, folder)}\0".encode())
            try:
                if contents:
                    with open(path, "rb") as fh:
                        h.update(fh.read())
                else:
                    st = os.stat(path)
                    h.update(f"{st.st_size}:{st.st_mtime_ns}".encode())
            except OSError:
                h.update(b"unreadable")


def inputs_fingerprint(config: SiteOptions, sources: Sources, *, drafts: bool,
                       extra_head: str) -> bytes:
    """One fingerprint of everything a build reads (kept in `sources`, made once)."""
    if sources.inputs:
        return sources.inputs
    h = hashlib.sha256(f"{config.shown}\0{drafts}\0{extra_head}\0".encode())
    h.update(fingerprints.extensions().encode())
    h.update(sources.template_files(config).encode())
    for rel, item in sources.items.items():
        h.update(f"doc {rel}\0{item.digest}\0".encode())
    found = sources.found
    for path, rel in found.assets:
        try:
            st = path.stat()
            h.update(f"asset {rel}\0{st.st_size}:{st.st_mtime_ns}\0".encode())
        except OSError:
            h.update(f"asset {rel}\0?".encode())
    for path_text in found.aside:  # what a document may read besides itself
        try:
            st = os.stat(path_text)
            h.update(f"aside {path_text}\0{st.st_size}:{st.st_mtime_ns}\0".encode())
        except OSError:
            h.update(f"aside {path_text}\0?".encode())
    for problem in found.diagnostics:
        h.update(repr(problem).encode())
    _tree(h, "theme", theme_static(), contents=False)
    _tree(h, "static", config.root / "static", contents=False)
    for folder in freeze_folders(config.root, config.content_dir):  # Quarto's outputs
        if not folder.is_relative_to(config.content_path):  # content's: among `aside`
            _tree(h, f"freeze {folder}", folder, contents=False)
    if config.search:  # a new Pagefind makes a new index
        from blogbuild.stages.search.program import versions

        h.update(versions().encode())
    sources.inputs = h.digest()
    return sources.inputs


def summary_path(cache: Path, key: str) -> Path:
    return state_path(cache, key).with_suffix(".summary")


def save_summary(cache: Path, summary: Summary) -> None:
    save_pickle(summary_path(cache, summary.key), summary)


def listing(output: Path, outputs: dict[str, OutputEntry]) -> dict[str, tuple[int, int]]:
    """Size and modification time of every file of the output folder, from what the build
    knows of its files (`outputs`) and the marker's."""
    found = {rel: (entry.size, entry.mtime_ns) for rel, entry in outputs.items()}
    try:
        st = (output / MARKER).stat()
        found[MARKER] = (st.st_size, st.st_mtime_ns)
    except OSError:
        pass
    return found


def up_to_date(config: SiteOptions, cache: Path, output: Path, *, drafts: bool,
               extra_head: str = "") -> tuple[BuildReport | None, Sources | None]:
    """The last build's report when nothing it read or wrote changed since (else None), and
    the sources it read to know (None when it could tell sooner). The code fingerprint
    was recalled from `cache` first (blogbuild.pipeline.settings.outline does it)."""
    key = state_key(fingerprints.code_fingerprint(), output, drafts)
    try:
        with open(summary_path(cache, key), "rb") as fh:
            summary = pickle.load(fh)
    except Exception:  # missing or damaged: the full build decides
        return None, None
    if not isinstance(summary, Summary) or summary.key != key:
        return None, None
    if not (output / MARKER).is_file():
        return None, None
    known = summary.stamps if summary.stamps_key == stamps_key(config) else None
    sources = read_sources(config, known)
    if any(not item.digest for item in sources.items.values()):  # unreadable
        return None, sources
    inputs = inputs_fingerprint(config, sources, drafts=drafts, extra_head=extra_head)
    sources.outputs = present(output, summary)  # the build's commit needs them too
    if inputs != summary.inputs:
        return None, sources
    seen: dict[str, os.stat_result | None] | None = None
    if sources.outputs is None:
        seen = {}
        sources.outputs = files_under(output, seen)
    if sources.outputs != set(summary.outputs) | {MARKER}:
        return None, sources
    if not all(intact(output, rel, entry, seen) for rel, entry in summary.outputs.items()):
        return None, sources
    report = summary.report
    report.outputs = listing(output, summary.outputs)
    report.seconds = 0.0
    report.rendered = 0
    report.templated = set()
    report.cached = report.sources
    report.changed, report.removed, report.fresh = set(), set(), False
    report.executions = {}
    report.images_encoded = 0
    return report, sources
