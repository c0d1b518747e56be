"""The stylesheet stage: one stylesheet per set of needs of the site's pages, joined from the
theme's parts (blogbuild.output.bundles says which files go in) and named by a hash of its
bytes (`css/bundle.HASH.css`). A stylesheet whose parts did not change keeps its name
without a part being read."""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from blogbuild.diagnostics import BlogbuildError
from blogbuild.output.bundles import bundle_name, join, parts_of
from blogbuild.output.claims import Owner
from blogbuild.output.entries import FileEntry
from blogbuild.output.files import FileSpec, generated
from blogbuild.output.plan import PlannedPage, page_needs
from blogbuild.stages import Step
from blogbuild.stages.context import BuildContext, StageBase


def page_stylesheets(chosen: dict[str, FileSpec], pages: list[PlannedPage],
                     last: Mapping[str, FileEntry],
                     ) -> tuple[dict[frozenset[str], str], list[FileSpec]]:
    """Every page's stylesheet: (a page's needs -> the stylesheet's path, the stylesheets).

    A stylesheet whose parts all have the size and time (or generated key) they had at the
    last build keeps that build's name unread; one with a changed part is joined here to be
    named. An edit of css/main.css renames every page's stylesheet (so every page is
    templated again), one of css/callouts.css only those of pages with callouts."""
    known = {entry.source: rel for rel, entry in last.items()}
    names: dict[frozenset[str], str] = {}
    made: dict[tuple[str, ...], FileSpec] = {}
    for needs in sorted({n for p in pages if (n := page_needs(p)) is not None}, key=sorted):
        parts = parts_of(needs, chosen)
        if parts not in made:
            made[parts] = _stylesheet(parts, chosen, known)
        names[needs] = made[parts].rel
    return names, list(made.values())


def _stylesheet(parts: tuple[str, ...], chosen: dict[str, FileSpec],
                known: dict[str, str]) -> FileSpec:
    key = _parts_key(parts, chosen)
    make: Callable[[], bytes] = functools.partial(_joined, parts, chosen)
    rel = known.get(generated(key))
    if rel is None:
        data = make()
        rel = bundle_name(data)
        make = functools.partial(bytes, data)
    return FileSpec(rel, None, Owner("the page stylesheet", ""), make, key)


def _parts_key(parts: tuple[str, ...], chosen: dict[str, FileSpec]) -> str:
    """Changes when a part may have: its path, its source's size and time, or its key."""
    h = hashlib.sha256()
    for rel in parts:
        spec = chosen[rel]
        stamp = spec.key
        if spec.source is not None:
            try:
                st = spec.source.stat()
                stamp = f"{spec.source}:{st.st_size}:{st.st_mtime_ns}"
            except OSError:
                stamp = "unreadable"
        h.update(f"{rel}\0{stamp}\0".encode())
    return f"stylesheet:{h.hexdigest()}"


def _joined(parts: tuple[str, ...], chosen: dict[str, FileSpec]) -> bytes:
    return join([(rel, _bytes_of(chosen[rel])) for rel in parts])


def _bytes_of(spec: FileSpec) -> bytes:
    if spec.source is None:
        assert spec.make is not None
        return spec.make()
    try:
        return spec.source.read_bytes()
    except OSError as exc:
        raise BlogbuildError(f"cannot read {spec.source}: {exc.strerror or exc}",
                             file=spec.owner.file or None) from None


@dataclass
class Stylesheets:
    """Each set of needs' stylesheet (its output path), and the stylesheets' files."""

    names: dict[frozenset[str], str]
    specs: list[FileSpec]


class StylesheetsStage(StageBase):
    """One stylesheet per set of needs of the planned pages, joined from the files claimed
    before it (the theme's and the site's)."""

    name = "stylesheets"
    step = Step.SITE

    def decide(self, ctx: BuildContext) -> list[PlannedPage]:
        return ctx.pages

    def make(self, ctx: BuildContext, plan: list[PlannedPage]) -> Stylesheets:
        made = Stylesheets(*page_stylesheets(ctx.chosen, plan, ctx.last_files))
        ctx.stylesheets = made.names  # the pages name theirs (pipeline.pages, templating)
        return made

    def files(self, ctx: BuildContext, made: Stylesheets) -> list[FileSpec]:
        return made.specs


STAGE = StylesheetsStage()

