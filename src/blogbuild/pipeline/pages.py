"""Which output pages and files are stale, and templating the stale pages.

A page is templated again when its template (or one it extends or includes) changed, when
what it is made of changed (its URL, the posts it lists, in which order), when a value it
read last time differs now (`blogbuild.pipeline.deps`), or when its file in the output is
not what the last build wrote. Everything else keeps its file untouched.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from blogbuild import __version__, fingerprints
from blogbuild.config_model import Config
from blogbuild.content.models import Post, Site
from blogbuild.content.records import SourceEntry
from blogbuild.fileio import file_digest
from blogbuild.memory import Kept
from blogbuild.output.entries import FileEntry, OutputEntry
from blogbuild.output.plan import PlannedPage, page_needs
from blogbuild.pipeline.deps import (
    CONFIG,
    SITE,
    Dep,
    Reads,
    fingerprint,
    other_value,
    post_fingerprint,
    post_value,
)
from blogbuild.pipeline.items import STATE_FIELDS, next_items
from blogbuild.pipeline.quick import template_files
from blogbuild.pipeline.state import PageEntry, State
from blogbuild.pipeline.workers import PageDone
from blogbuild.runtimes import pyodide
from blogbuild.themefiles import CUSTOM_JS, THEME_PREFIX

#: The templates a template's source may load, among the templates there are: parsing a
#: theme's templates took a tenth of a small site's build, again in each build of a process.
_REFERENCES: Kept[tuple[str, ...], list[str | None]] = Kept(512)


def closures(config: Config, names: Iterable[str]) -> dict[str, bytes]:
    """Per template: a fingerprint of it and of every template it extends, includes or
    imports, followed through site overrides and `theme/` names. A name built while
    rendering (``"needs/" ~ need ~ ".html"``) stands for every template it can start
    with; one Jinja cannot foresee at all makes the template depend on every template."""
    from jinja2 import TemplateError

    from blogbuild.output.templating import create_environment

    env = create_environment(config)
    everything = template_files(config).encode()
    known = env.list_templates()
    memo: dict[str, bytes] = {}

    def one(name: str, seen: frozenset[str]) -> bytes:
        if name in memo:
            return memo[name]
        h = hashlib.sha256(name.encode())
        try:
            source, _, _ = env.loader.get_source(env, name)  # type: ignore[union-attr]
            key = (source, *known)
            refs = _REFERENCES.get(key)
            if refs is None:
                refs = _REFERENCES.keep(key, list(_references(env.parse(source), known)))
        except (TemplateError, OSError, RecursionError, UnicodeDecodeError):
            return everything  # the templating reports the error itself
        h.update(source.encode())
        for ref in refs:
            if ref is None:
                return everything
            if ref not in seen:
                h.update(one(ref, seen | {ref}))
        memo[name] = h.digest()
        return memo[name]

    return {name: one(name, frozenset({name})) for name in sorted(set(names))}


def _references(ast: Any, known: list[str]) -> Iterator[str | None]:
    """Names of the templates `ast` (a parsed template) may load; None for one that could
    be any template. A call of `list_item` (`feed_entry`) loads the item (feed entry)
    template."""
    import jinja2.nodes

    from blogbuild.themefiles import ENTRY_TEMPLATES

    called = set()
    for call in ast.find_all(jinja2.nodes.Call):  # a post's entry is an include, made once
        if isinstance(call.node, jinja2.nodes.Name) and call.node.name in ENTRY_TEMPLATES:
            called.add(call.node.name)
    yield from (ENTRY_TEMPLATES[function] for function in sorted(called))
    for node in ast.find_all((jinja2.nodes.Extends, jinja2.nodes.FromImport,
                              jinja2.nodes.Import, jinja2.nodes.Include)):
        target = node.template
        if isinstance(target, jinja2.nodes.Const) and isinstance(target.value, str):
            yield target.value
        elif isinstance(target, jinja2.nodes.Tuple | jinja2.nodes.List):
            for item in target.items:
                ok = isinstance(item, jinja2.nodes.Const) and isinstance(item.value, str)
                yield item.value if ok else None  # type: ignore[attr-defined]
        elif (isinstance(target, jinja2.nodes.Concat) and target.nodes
              and isinstance(target.nodes[0], jinja2.nodes.Const)
              and isinstance(target.nodes[0].value, str) and target.nodes[0].value):
            prefix = target.nodes[0].value
            yield from (name for name in known if name.startswith(prefix))
        else:
            yield None


def globals_fingerprint(config: Config, extra_head: str) -> bytes:
    """What every page may show that is not read through an attribute: the filters' settings,
    the version, the files the theme links when they exist, the live server's snippet."""
    return fingerprint((
        __version__, config.base_url, config.date_format, extra_head,
        (config.root / "static" / CUSTOM_JS).is_file(),
        pyodide.packages_url(config), THEME_PREFIX,
    ))


def templates_name(config: Config, extra_head: str) -> str:
    """The name of what compiled templates depend on besides their sources: the code, and
    the settings Jinja folds into them (filters of constants, `"/x/" | url`: the base URL,
    the date format). Compiled templates are kept under it (`Engine.compiled_templates`)."""
    key = hashlib.sha256(fingerprints.code_fingerprint().encode()
                         + globals_fingerprint(config, extra_head))
    return key.hexdigest()[:16]


@dataclass
class Values:
    """Fingerprints of the values pages read, computed once per build as they are asked."""

    site: Site
    config: Config
    documents: dict[str, Post]
    #: The last build's, by source and attribute, for sources that did not change.
    known: dict[str, dict[str, bytes]]
    changed: set[str]  # sources whose posts changed (or appeared, or went)
    cache: dict[Dep, bytes] = field(default_factory=dict)

    def __call__(self, dep: Dep) -> bytes:
        found = self.cache.get(dep)
        if found is not None:
            return found
        source, attribute = dep
        if source in (SITE, CONFIG):
            value = other_value(self.site, self.config, source, attribute)
        else:
            known = self.known.get(source) if source not in self.changed else None
            found = known.get(attribute) if known is not None else None
            value = found if found is not None else post_value(self.documents.get(source),
                                                                attribute)
        self.cache[dep] = value
        return value


def changed_posts(documents: dict[str, Post], state: State) -> tuple[set[str], dict[str, bytes]]:
    """Sources whose post differs from the last build's in anything a template could read."""
    prints = {source: post_fingerprint(post) for source, post in documents.items()}
    changed = {s for s, fp in prints.items() if state.posts.get(s) != fp}
    changed |= set(state.posts) - set(prints)
    return changed, prints


def stale_pages(pages: list[PlannedPage], inputs: dict[str, bytes], state: State,
                values: Values, intact: Callable[[str], bool]) -> list[str]:
    """Paths of the pages to template again (see the module's docstring)."""
    moved: dict[str, set[str]] = {}
    for source, known in state.values.items():
        if source in (SITE, CONFIG) or source in values.changed:
            for attribute, value in known.items():
                if values((source, attribute)) != value:
                    moved.setdefault(source, set()).add(attribute)
    stale = []
    for page in pages:
        last = state.pages.get(page.path)
        if (last is None or last.inputs != inputs[page.path]
                or (moved and any(source in moved and not moved[source].isdisjoint(read)
                                  for source, read in last.deps))
                or not intact(page.path)):
            stale.append(page.path)
    return stale


def page_inputs(page: PlannedPage, template: bytes, globals_fp: bytes,
                stylesheets: dict[frozenset[str], str]) -> bytes:
    """What a page is made of besides the values it reads: a new name of its stylesheet
    (a part of it was edited) is a new page."""
    needs = page_needs(page)
    sheet = "" if needs is None else stylesheets[needs]
    return fingerprint((template, globals_fp, page.template, page.url, page.context, sheet))


def made_with(config: Config, closures: dict[str, bytes], globals_fp: bytes,
              stylesheets: dict[frozenset[str], str]) -> bytes:
    """What every page is made with besides its own context: the templates and what they
    load, the globals, the stylesheets' names, the config."""
    return fingerprint((sorted(closures.items()), globals_fp, config.shown,
                        sorted((sorted(needs), name) for needs, name in stylesheets.items())))


def pages_inputs(pages: list[PlannedPage], closures: dict[str, bytes], globals_fp: bytes,
                 stylesheets: dict[frozenset[str], str], changed: set[str],
                 last: State | None) -> dict[str, bytes]:
    """Each page's `page_inputs`. A document's own page (its context is its post and what
    the post needs) whose post did not change keeps the inputs `last` recorded: its URL,
    kind and needs are the post's, the rest is what every page is made with (`last` is
    None when that changed)."""
    found: dict[str, bytes] = {}
    for page in pages:
        if last is not None:
            source = _document_of(page)
            entry = last.pages.get(page.path)
            if (source is not None and source not in changed and entry is not None
                    and entry.template == page.template):
                found[page.path] = entry.inputs
                continue
        found[page.path] = page_inputs(page, closures[page.template], globals_fp, stylesheets)
    return found


def _document_of(page: PlannedPage) -> str | None:
    """The source of a document's own page, else None."""
    post = page.context.get("page")
    if type(post) is Post and len(page.context) == 2 and "needs" in page.context:
        return post.source
    return None


def next_state(last: State, entries: dict[str, SourceEntry], pages: list[PlannedPage],
               inputs: dict[str, bytes], closures: dict[str, bytes], templates_fp: str,
               done: list[PageDone], files: dict[str, FileEntry],
               prints: dict[str, bytes], values: Values, written: set[str],
               output: Path, item_keys: dict[str, bytes],
               shared: dict[frozenset[str], frozenset[str]]) -> State:
    """What this build knew, for the next: every page's inputs and reads, every file, the
    list entries."""
    state = State(last.key, sources=entries, templates=templates_fp,
                  closures=dict(closures), posts=prints)
    for function, part in STATE_FIELDS.items():
        made = [(source, entry) for d in done for kind, source, entry in d.items
                if kind == function]
        packed = last.packed_of(part)
        if packed and not made:  # no page asked for them: kept as they were loaded
            state.packed.update(packed)
            continue
        setattr(state, part, next_items(last.part(part), made, item_keys[function],
                                        prints, values, shared))
    templated = {d.path: d for d in done}
    for page in pages:
        result = templated.get(page.path)
        if result is None:
            state.pages[page.path] = last.pages[page.path]
            continue
        if result.out is None:  # a template error (lenient): try again next time
            continue
        out = result.out if result.written else last.pages[page.path].out \
            if page.path in last.pages else result.out
        state.pages[page.path] = PageEntry(page.template, inputs[page.path], result.deps,
                                           out)
    for rel in written:
        entry: PageEntry | FileEntry | None = state.pages.get(rel) or files.get(rel)
        if entry is not None:
            st = (output / rel).stat()
            entry.out = OutputEntry(entry.out.digest or file_digest((output / rel).read_bytes()),
                                    st.st_size, st.st_mtime_ns)
    state.files = files
    state.values = next_values(last.values, [state.pages[d.path].deps for d in done
                                             if d.path in state.pages], values)
    return state


def next_values(last: dict[str, dict[str, bytes]], reads: list[Reads],
                values: Values) -> dict[str, dict[str, bytes]]:
    """The fingerprints of what pages read, for the next build: those of the last build
    (the same dicts for the sources that did not change), those of the changed sources
    afresh, and those that the pages templated now read besides.

    The values of the pages kept are among the last build's. A value no page reads any
    more may stay (a source has a few dozen attributes): a page that reads it again is
    templated again, and reads it then; the values of a source that went are dropped."""
    found: dict[str, dict[str, bytes]] = {}
    for source, known in last.items():
        if source in (SITE, CONFIG) or (source in values.changed
                                        and source in values.documents):
            found[source] = {attribute: values((source, attribute)) for attribute in known}
        elif source not in values.changed:
            found[source] = known
    more: dict[str, set[str]] = {}
    for read in reads:
        for source, attributes in read:
            more.setdefault(source, set()).update(attributes)
    for source, wanted in more.items():
        current = found.get(source, {})
        missing = wanted.difference(current)
        if missing:
            found[source] = {**current,
                             **{attribute: values((source, attribute)) for attribute in missing}}
    return found
