"""The image stage: every JPEG, PNG, WebP, AVIF and GIF picture of content/ and static/
is probed, and the variants of the still ones made, before any post is rendered, so that
the markup a render writes (`blogbuild.markdown.images`) names only files that exist and
gives every picture its size.

A picture is probed once per change of its file (size, time, inode; memo in the result
cache) and encoded once per change of its bytes or of the options (files under
`.blogbuild-cache/images/<key>/`, made in the worker pool). The published copy of the
picture itself has its metadata taken out (blogbuild.images.strip, and blogbuild.images.
avif for an AVIF); its variants never had any. A picture that cannot be read is published
as it is, and every post that shows it says so at its line.
"""

from __future__ import annotations

import functools
import json
import posixpath
import time
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

from blogbuild import diskcache
from blogbuild.config_model import Config
from blogbuild.images.cache import complete, folder_of, make
from blogbuild.images.process import (
    ENCODER_VERSION,
    IMAGE_SUFFIXES,
    ImageInfo,
    Options,
    Probe,
    Variant,
    key_of,
    options_of,
    plan,
    probe,
    published,
)
from blogbuild.images.strip import Unreadable
from blogbuild.output.claims import Owner
from blogbuild.output.files import FileSpec
from blogbuild.pool import run_jobs
from blogbuild.stages import Step
from blogbuild.stages.context import BuildContext, StageBase

#: The result cache's table of probes, by file path, size, time and inode.
TABLE = "image_probes"
#: A file changed this recently may change again within the same tick of its clock: its
#: probe is not remembered (git's "racy" files).
_SETTLE_NS = 2_000_000_000
#: Below these many pictures to encode the work stays in this process.
IMAGE_POOL_MIN = 2


@dataclass
class ImageTable:
    """Pictures by their source: a content path (`posts/a/photo.jpg`) or `static/…`."""

    images: dict[str, ImageInfo] = field(default_factory=dict)
    #: The cache folder of each usable picture's files.
    folders: dict[str, Path] = field(default_factory=dict)
    #: Each picture's file and probe (None: it could not be read).
    files: dict[Path, tuple[str, Probe | None]] = field(default_factory=dict)
    #: Each picture file's size in bytes, as the stage found it (-1: it could not tell).
    sizes: dict[str, int] = field(default_factory=dict)
    encoded: int = 0  # pictures encoded by this build (the others came from the cache)


def candidates(config: Config, assets: list[tuple[Path, str]], statics: list[str],
               ) -> dict[str, Path]:
    """The pictures the stage looks at, by source key."""
    found = {rel: path for path, rel in assets if Path(rel).suffix.lower() in IMAGE_SUFFIXES}
    for rel in statics:
        if Path(rel).suffix.lower() in IMAGE_SUFFIXES:
            found["static/" + rel] = config.root / "static" / rel
    return dict(sorted(found.items()))


def _probe_memo(path: Path, options: Options) -> tuple[str, Probe | None, int]:
    """The memo key of a file as it is now, its remembered probe (None: probe it) and its
    size (-1: none to tell; the summary names the largest pictures)."""
    try:
        st = path.stat()
    except OSError:
        return "", None, -1
    key = (f"{path}\0{st.st_size}\0{st.st_mtime_ns}\0{st.st_ino}\0{options.max_pixels}\0"
           f"{ENCODER_VERSION}")
    if time.time_ns() - st.st_mtime_ns < _SETTLE_NS:
        return "", None, st.st_size
    found = diskcache.get(TABLE, key)
    if found is None:
        return key, None, st.st_size
    try:
        return key, Probe(**json.loads(found)), st.st_size
    except (TypeError, ValueError):
        return key, None, st.st_size


#: A picture whose copies are to be made: (source, its file, its probe, the copies, the
#: cache folder they go in, the options).
Job = tuple[str, str, Probe, tuple[Variant, ...], str, Options]


@dataclass
class Plan:
    """What `ImagesStage.decide` found: every picture probed, and the copies to make."""

    table: ImageTable
    todo: list[Job]


def probe_all(config: Config, assets: list[tuple[Path, str]], statics: list[str], *,
              cache: Path | None, scratch: Callable[[], Path]) -> Plan:
    """Probe every picture (or take its probe from the memo); the copies the cache lacks."""
    options = options_of(config)
    table = ImageTable()
    todo: list[Job] = []
    if options is None:
        return Plan(table, todo)
    waiting: dict[str, str] = {}  # cache folder -> the picture it is made from
    for source, path in candidates(config, assets, statics).items():
        shown = source if source.startswith("static/") else f"{config.content_dir}/{source}"
        memo_key, found, table.sizes[source] = _probe_memo(path, options)
        if found is None:
            try:
                data = path.read_bytes()
            except OSError as exc:
                table.images[source] = ImageInfo(shown, problem=f"cannot be read: "
                                                 f"{exc.strerror or exc}")
                table.files[path] = (source, None)
                continue
            found = probe(data, path.suffix, options.max_pixels)
            if memo_key:
                diskcache.put(TABLE, memo_key, json.dumps(asdict(found)))
        table.files[path] = (source, found)
        if not found.usable:
            # An animation, a GIF or a BMP, or a file with a problem: as it is.
            table.images[source] = ImageInfo(shown, found.width, found.height, (),
                                             found.problem, found.misnamed, found.digest,
                                             found.metadata, found.advice)
            continue
        stem = Path(source).stem
        variants = tuple(plan(found, stem, options))
        key = key_of(found, options)
        table.images[source] = ImageInfo(shown, found.width, found.height, variants, "",
                                         found.misnamed, key, found.metadata)
        target = folder_of(cache if cache is not None else scratch(), key)
        table.folders[source] = target
        if not complete(target, variants) and str(target) not in waiting:
            waiting[str(target)] = source
            todo.append((source, str(path), found, variants, str(target), options))
    return Plan(table, todo)


def encode_all(plan: Plan, jobs: int) -> ImageTable:
    """Make the copies `plan` lists, in the worker pool when there are several; a picture
    that cannot be encoded (nor any other of the same bytes) is shown without copies."""
    table = plan.table
    if not plan.todo:
        return table
    for source, problem in zip([t[0] for t in plan.todo],
                               run_jobs(plan.todo, _encode_job, _init, (), jobs=jobs,
                                        minimum=IMAGE_POOL_MIN), strict=True):
        if not problem:
            table.encoded += 1
            continue
        folder = table.folders[source]
        for other in [s for s, f in table.folders.items() if f == folder]:
            info = table.images[other]  # every picture with these bytes
            table.images[other] = replace(info, variants=(), problem=problem,
                                          key=info.key + "!")
            del table.folders[other]
    return table


def _init(*_: object) -> None:
    """Nothing to set up: each job carries what it needs."""


def _encode_job(job: tuple[str, str, Probe, tuple[Variant, ...], str, Options]) -> str:
    """Make one picture's variants in its cache folder; "" or why they could not be."""
    _source, path, found, variants, target, options = job
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        return f"cannot be read: {exc.strerror or exc}"
    return make(Path(target), data, found, variants, options)


def publish(specs: Iterable[FileSpec], table: ImageTable, asset_urls: dict[str, str],
            ) -> list[FileSpec]:
    """The picture files of `specs` made without their metadata (each under its spec's path
    and owner: it replaces it; a damaged one as far as its structure goes), and the copies
    of every usable picture beside it (`asset_urls`: content path -> site-root URL)."""
    out = []
    for spec in specs:
        known = table.files.get(spec.source) if spec.source is not None else None
        found = known[1] if known is not None else None
        if found is None or found.metadata != "stripped":
            continue  # a GIF, or a file the stripper cannot follow: as it is
        assert spec.source is not None
        out.append(FileSpec(spec.rel, None, spec.owner,
                            functools.partial(published_file, spec.source, found),
                            f"image:{found.digest}:{found.orientation}:{bool(found.problem)}:"
                            f"{ENCODER_VERSION}"))
    for source, folder in table.folders.items():
        info = table.images[source]
        url = "/" + source.removeprefix("static/") if source.startswith("static/") \
            else asset_urls.get(source)
        if url is None:
            continue
        base = posixpath.dirname(url).strip("/")
        owner = Owner(f"the variants of {info.source}", "")
        for variant in info.variants:
            rel = f"{base}/{variant.name}" if base else variant.name
            out.append(FileSpec(rel, folder / variant.file, owner, addressed=True))
    return out


def published_file(path: Path, found: Probe) -> bytes:
    """The picture's bytes without metadata, its orientation kept (as they are when the
    structure is not one the stripper follows: the probe reported such a file)."""
    data = path.read_bytes()
    try:
        return published(data, found)
    except Unreadable:
        return data


#: Pictures the build summary names.
HEAVIEST = 3


def heaviest(table: ImageTable, count: int = HEAVIEST) -> tuple[tuple[str, int, int], ...]:
    """The largest picture files: (as shown, bytes, bytes of its widest copy in the first
    format of its <picture>; 0 when it has no copies), largest first."""
    found = []
    files = [(source, size) for source, size in table.sizes.items() if size >= 0]
    files.sort(key=lambda f: (-f[1], table.images[f[0]].source))
    for source, size in files[:count]:
        info, folder = table.images[source], table.folders.get(source)
        copy = 0
        if folder is not None and info.variants:
            first = info.variants[0].format
            widest = [v for v in info.variants if v.format == first][-1]
            try:
                copy = (folder / widest.file).stat().st_size
            except OSError:
                copy = 0
        found.append((info.source, size, copy))
    return tuple(found)


class ImagesStage(StageBase):
    """Every picture probed, and its copies made, before any source renders."""

    name = "images"
    step = Step.SOURCES

    def decide(self, ctx: BuildContext) -> Plan:
        ctx.progress("preparing images", 0, 0)
        return probe_all(ctx.config, ctx.assets, ctx.statics, cache=ctx.folders.cache,
                         scratch=ctx.scratch)

    def make(self, ctx: BuildContext, plan: Plan) -> ImageTable:
        return encode_all(plan, ctx.jobs)

    def files(self, ctx: BuildContext, made: ImageTable) -> list[FileSpec]:
        """The published pictures without their metadata, in place of the files claimed
        for them (site files are claimed first), and their copies."""
        assert ctx.site is not None
        return publish(ctx.chosen.values(), made, ctx.site.assets)


STAGE = ImagesStage()


def table_of(ctx: BuildContext) -> ImageTable:
    """What this run's image stage found (an empty table before it ran)."""
    found = ctx.made_by(STAGE.name)
    return found if isinstance(found, ImageTable) else ImageTable()
