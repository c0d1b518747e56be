"""The build's context: one typed object that says what a run of the engine is configured
with and what its steps have made so far. Every stage (blogbuild.stages) is handed it; the
commands that look at a build afterwards (`check`, the live server) read it instead of the
engine's own attributes.

The engine (blogbuild.pipeline.engine) makes one per run. The first group of fields is the
engine's for its whole life (the configuration, the folders, what stages keep between
runs); the steps fill in the rest, in order: the sources read, their render records and
the link map, the assembled site, the planned pages and the files claimed, the writer's
stage. The engine keeps the context of its last run (`Engine.context`) and that of the
last run that completed (`Engine.last`: what the output holds now).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from blogbuild.config_model import Config, RunnableConfig
from blogbuild.diagnostics import Diagnostic, Severity
from blogbuild.progress import Progress, no_progress

if TYPE_CHECKING:
    from markdown_it.token import Token

    from blogbuild.content.bodies import Bodies
    from blogbuild.content.frontmatter import FrontMatter
    from blogbuild.content.jobs import SourceJob
    from blogbuild.content.linkmap import LinkMap
    from blogbuild.content.models import Post, Site
    from blogbuild.content.notebooks.read import Notebook
    from blogbuild.content.records import Execution, RenderResult, SourceEntry
    from blogbuild.output.entries import FileEntry, Seen
    from blogbuild.output.files import FileSpec
    from blogbuild.output.plan import PlannedPage
    from blogbuild.output.templating import CompiledTemplates
    from blogbuild.output.writer import Stage as Writer
    from blogbuild.pipeline.quick import Sources
    from blogbuild.runtimes.katex_process import KatexProcess
    from blogbuild.stages import Stage

#: What a cache keeps that no build of this output used lately: this long (other output
#: folders, a drafts build, may still use it).
KEEP_SECONDS = 14 * 24 * 3600
#: How often a cache is looked through for what may go.
TIDY_SECONDS = 24 * 3600


@dataclass
class Folders:
    """Where a build keeps what it makes, in whichever process it runs: the site's cache
    folder (None: `--no-cache`; formulas, highlighted code and runs are then not kept) and
    the folder of made files (the cache, or the engine's scratch folder: a page names
    files either way). Small and plain: it goes to the workers."""

    cache: Path | None = None
    #: Where made files are kept (cards, copies of drawn pictures): the cache folder, or a
    #: scratch folder without one.
    files: Path | None = None

    @property
    def runs(self) -> Path | None:
        """Where the results of build-time Python are kept."""
        return self.cache / "exec" if self.cache is not None else None

    def due(self, what: str) -> bool:
        """Whether the cache of `what` is due for tidying: at most once per TIDY_SECONDS
        (listing a cache folder takes a tenth of an edit's build); never without a cache."""
        from blogbuild.diskcache import due

        return self.cache is not None and due(self.cache / "tidied" / what, TIDY_SECONDS)


def _unset(*_: Any) -> Any:
    raise RuntimeError("the engine sets this when its run begins")


@dataclass
class BuildContext:
    """One run of the engine (see the module's docstring)."""

    config: Config
    output: Path
    folders: Folders
    #: A folder of the engine's, removed when it closes (made when first asked for).
    scratch: Callable[[], Path]
    jobs: int = 1
    drafts: bool = False
    #: The live server's runs: a broken source keeps its last good version, a broken page
    #: its last file; nothing fails.
    lenient: bool = False
    progress: Progress = no_progress
    extra_head: str = ""  # what every page's head gets besides (the live server's script)
    #: Where compiled templates are kept (None: nowhere).
    bytecode: CompiledTemplates | None = None
    #: Where rendered bodies are read from when a template shows one (the render store).
    bodies: Bodies | None = None
    #: What a stage keeps from one run of the engine to the next, by the stage's name (the
    #: search index's layout in the live server; a process the command started ahead); an
    #: object with a `close()` is closed with the engine.
    kept: dict[str, Any] = field(default_factory=dict)
    #: KaTeX's runtime loading in a process of its own, started by the command ahead of a
    #: new post's formulas: the renders in the build's process render them there
    #: (blogbuild.runtimes.katex.use_process); the engine ends it when it closes.
    katex: KatexProcess | None = None

    # -- what the run's steps made, in order ----------------------------------------------
    #: No earlier state: every page and file is made anew.
    fresh: bool = True
    sources: Sources | None = None  # every source read, and how (the first step)
    assets: list[tuple[Path, str]] = field(default_factory=list)  # content/ files: (path, rel)
    statics: list[str] = field(default_factory=list)  # static/ files, from there
    #: What each stage made this run, by its name.
    made: dict[str, Any] = field(default_factory=dict)
    #: Every source's record (digest, render record), by content path, once rendered.
    entries: Mapping[str, SourceEntry] = field(default_factory=dict)
    links: LinkMap | None = None  # where every document and file is published
    #: What renders ran at build time, by the file as messages name it.
    executions: Mapping[str, Execution] = field(default_factory=dict)
    site: Site | None = None
    pages: list[PlannedPage] = field(default_factory=list)
    #: Every file claimed so far, by output path (a stylesheet is joined from these).
    chosen: dict[str, FileSpec] = field(default_factory=dict)
    #: The stylesheet of each set of needs (the stylesheet stage names them).
    stylesheets: dict[frozenset[str], str] = field(default_factory=dict)
    #: The files the last build left, by output path, and their stats as the run took them.
    last_files: Mapping[str, FileEntry] = field(default_factory=dict)
    seen: Seen = field(default_factory=dict)
    #: Where new files go, once the writing begins.
    writer: Writer | None = None
    #: What stages report (a warning about a card's title, a cover not found).
    diagnostics: list[Diagnostic] = field(default_factory=list)
    #: Files a stage wrote into the writer's stage itself (the search index): their
    #: records, by output path.
    staged: dict[str, FileEntry] = field(default_factory=dict)
    #: What stages of `Step.PAGES` report once the site was checked (the search index could
    #: not be made): warnings, and the output is not recorded as up to date (the next
    #: build tries again).
    notes: list[Diagnostic] = field(default_factory=list)

    # -- what the engine offers stages ----------------------------------------------------
    #: The post or page of a render record, as the site shows it (not linked to others).
    post_of: Callable[[RenderResult], Post] = field(default=_unset, repr=False)
    #: Render again the sources whose bodies the render store lost (by their digests);
    #: safe to call from another thread.
    render_again: Callable[[set[str]], None] = field(default=_unset, repr=False)

    @property
    def records(self) -> dict[str, RenderResult]:
        """The render record of every source, by content path."""
        return {rel: entry.result for rel, entry in self.entries.items()}

    def made_by(self, stage: str) -> Any:
        """What the stage `stage` made this run (None: it did not run)."""
        return self.made.get(stage)


@dataclass
class Page:
    """A document in its render, as the stages of the render see it, in whichever process
    renders it: its file as messages name it, the render's environment (what the Markdown
    plugins reported) and folders, and what each step of the render adds: the front matter
    (`Step.FRONT`), a notebook's cells (`Step.CELLS`), the parsed tokens (`Step.PARSED`).
    Stages put what they make into it: the environment's keys, `problems`, `execution`."""

    file: str
    env: dict[str, Any] = field(default_factory=dict)
    folders: Folders = field(default_factory=Folders)
    job: SourceJob | None = None
    config: Config | None = None
    front: FrontMatter | None = None
    notebook: Notebook | None = None
    execute: str = "never"  # a notebook's `execute` (never, auto, always)
    tokens: list[Token] = field(default_factory=list)
    runnable: RunnableConfig | None = None  # site.yaml's `runnable:` (None: no block runs)
    #: What the stages found to tell the author.
    problems: list[Diagnostic] = field(default_factory=list)
    #: What ran at build time (build-time blocks, a notebook's cells).
    execution: Execution | None = None
    #: A notebook's: a line of one of its cells made a message at that line of the file:
    #: (cell, line of the cell, message, severity) -> the message.
    place: Callable[[int, int, str, Severity], Diagnostic] | None = None


class StageBase:
    """What a stage need not write: no files, no cache to prune, nothing to do before its
    step. `begin` is told the run starts (a stage may start what takes long to load);
    `rendered` the records of the sources just rendered, before the site is assembled
    (`new`: one of them is a source the last build did not have)."""

    name = ""

    def files(self, ctx: Any, made: Any) -> list[FileSpec]:
        return []

    def prune(self, ctx: BuildContext) -> None:
        return None

    def begin(self, ctx: BuildContext) -> None:
        return None

    def rendered(self, ctx: BuildContext, records: list[RenderResult], *, new: bool) -> None:
        return None


def run_stage(stage: Stage[Any, Any, Any], ctx: Any) -> Any:
    """`stage`'s decide and make; what it made (None when it decided there is nothing to
    do)."""
    plan = stage.decide(ctx)
    return None if plan is None else stage.make(ctx, plan)
