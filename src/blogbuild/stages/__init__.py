"""Stages: the work of a build beside reading, rendering and templating, each in a room of
its own behind one protocol, registered here and run by the engine at the step it names.

A stage is an object with a `name`, the `step` it runs at, and four methods:

- `decide(ctx)`: what is needed (cheap: nothing is drawn, encoded or run); a plan, or
  None when there is nothing to do;
- `make(ctx, plan)`: the work, in the worker pool when there is much of it; what it made;
- `files(ctx, made)`: the files to publish, as `FileSpec`s: the engine claims their paths
  (a collision is an error naming both owners) and the writer copies or makes them;
- `prune(ctx)`: after a build that succeeded, age the stage's cache.

`ctx` is the build's context (`BuildContext`): the site's configuration, the output and
cache folders, the worker count, and what the steps before made (the sources, the
records of their renders, the assembled site, the planned pages, the files claimed so far).
A stage of a document's render (`Step.FRONT`, `Step.CELLS`, `Step.PARSED`) is given the
document instead (`Page`), in the process that renders it.

Steps, in the order a build runs them:

- `SOURCES`: the sources are read and nothing is rendered yet (pictures: the markup a
  render writes names their copies);
- `FRONT`, `CELLS`, `PARSED`: inside each document's render: its front matter read (the
  bibliography it cites), a notebook's cells read (run at build time), its Markdown parsed
  (diagrams, build-time blocks) before the HTML is made;
- `SITE`: the site is assembled and its pages planned (covers, social cards, stylesheets);
- `PAGES`: beside the templating of the pages, committed with them (search).

The stages of a step run in the order they are registered. The built-in ones are named
here and loaded when their step first comes; `register` adds another (a stage of a
render must be registered by a module the worker processes import).
"""

from __future__ import annotations

import enum
import importlib
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

if TYPE_CHECKING:
    from blogbuild.content.records import RenderResult
    from blogbuild.output.files import FileSpec
    from blogbuild.stages.context import BuildContext

C = TypeVar("C", contravariant=True)
P = TypeVar("P")
M = TypeVar("M")


class Step(enum.Enum):
    """When a stage runs (see the module's docstring)."""

    SOURCES = "sources"
    FRONT = "front"
    CELLS = "cells"
    PARSED = "parsed"
    SITE = "site"
    PAGES = "pages"


class Stage(Protocol[C, P, M]):
    """One stage: its name, its step, the four methods of the module's docstring, and two
    hooks (`stages.context.StageBase` has them do nothing): `begin(ctx)` as a run starts,
    for a stage to start what takes long to load; `rendered(ctx, records, new=…)` with
    the records of the sources just rendered, before the site is assembled."""

    name: str
    step: Step

    def decide(self, ctx: C) -> P | None: ...

    def make(self, ctx: C, plan: P) -> M: ...

    def files(self, ctx: C, made: M) -> list[FileSpec]: ...

    def prune(self, ctx: BuildContext) -> None: ...

    def begin(self, ctx: BuildContext) -> None: ...

    def rendered(self, ctx: BuildContext, records: list[RenderResult], *, new: bool
                 ) -> None: ...


#: The built-in stages, in the order they run within a step: (name, step, the module whose
#: `STAGE` it is).
_BUILT_IN: list[tuple[str, Step, str]] = [
    ("images", Step.SOURCES, "blogbuild.stages.images"),
    ("bibliography", Step.FRONT, "blogbuild.stages.bibliography"),
    ("notebook-run", Step.CELLS, "blogbuild.stages.notebook_run"),
    ("diagrams", Step.PARSED, "blogbuild.stages.diagrams"),
    ("execution", Step.PARSED, "blogbuild.stages.execution"),
    ("charts", Step.PARSED, "blogbuild.stages.charts"),  # after execution: its charts too
    ("covers", Step.SITE, "blogbuild.stages.covers"),
    ("cards", Step.SITE, "blogbuild.stages.cards"),
    ("stylesheets", Step.SITE, "blogbuild.stages.stylesheets"),
    ("search", Step.PAGES, "blogbuild.stages.search.stage"),
]
#: Every stage, in order: a built-in one by its module's name (loaded when its step first
#: comes), another as the object registered.
_STAGES: list[tuple[str, Step, Any]] = list(_BUILT_IN)
#: The built-in stages loaded so far, by module.
_LOADED: dict[str, Stage[Any, Any, Any]] = {}
#: `fingerprint()`, remade when a stage is registered or removed.
_FINGERPRINT: list[str] = []


def stages(step: Step) -> list[Stage[Any, Any, Any]]:
    """The stages of `step`, in order."""
    found = []
    for _name, at, stage in _STAGES:
        if at is not step:
            continue
        if isinstance(stage, str):
            loaded = _LOADED.get(stage)
            if loaded is None:
                loaded = _LOADED[stage] = importlib.import_module(stage).STAGE
            stage = loaded
        found.append(stage)
    return found


def all_stages() -> list[Stage[Any, Any, Any]]:
    """Every stage, step by step (what `prune` runs over)."""
    return [stage for step in Step for stage in stages(step)]


#: The steps outside a document's render: their stages run in the build's process, and the
#: engine calls their hooks.
SITE_STEPS = (Step.SOURCES, Step.SITE, Step.PAGES)


def site_stages() -> list[Stage[Any, Any, Any]]:
    """The stages of `SITE_STEPS`, in order."""
    return [stage for step in SITE_STEPS for stage in stages(step)]


def register(stage: Stage[Any, Any, Any], *, before: str | None = None) -> None:
    """Run `stage` at its step: after the stages registered so far, or before the stage
    named `before` ("stylesheets": a stage whose files a stylesheet may include); it
    replaces a stage of the same name."""
    _STAGES[:] = [entry for entry in _STAGES if entry[0] != stage.name]
    names = [name for name, _, _ in _STAGES]
    at = names.index(before) if before in names else len(_STAGES)
    _STAGES.insert(at, (stage.name, stage.step, stage))
    _FINGERPRINT.clear()


def unregister(name: str) -> None:
    """Stop running the stage `name`; a built-in one goes back to its own (it cannot be
    lost)."""
    _STAGES[:] = [entry for entry in _STAGES if entry[0] != name]
    for index, entry in enumerate(_BUILT_IN):
        if entry[0] == name:
            after = {n for n, _, _ in _BUILT_IN[index + 1:]}
            at = next((i for i, (n, _, _) in enumerate(_STAGES) if n in after), len(_STAGES))
            _STAGES.insert(at, entry)
    _FINGERPRINT.clear()


def fingerprint() -> str:
    """What the stages are, in order (a stage registered or removed changes what a build
    writes, and what it renders): each one's name, step, and module (a built-in one) or
    class and `version`. Loads no stage."""
    if not _FINGERPRINT:
        parts = []
        for name, step, stage in _STAGES:
            what = stage if isinstance(stage, str) else (
                f"{type(stage).__module__}.{type(stage).__qualname__}"
                f":{getattr(stage, 'version', '')}")
            parts.append(f"{name}\0{step.value}\0{what}")
        _FINGERPRINT.append("\n".join(parts))
    return _FINGERPRINT[0]
