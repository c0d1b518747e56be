"""site.yaml → a frozen, validated Config; defaults live here and nowhere else."""

from __future__ import annotations

import dataclasses
import functools
import types
import typing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from yaml.nodes import MappingNode, Node, SequenceNode

from blogbuild.callout_kinds import CalloutType
from blogbuild.config_checks import check_base_url, validate
from blogbuild.config_citations import bibliography_paths, files_digest
from blogbuild.diagnostics import ConfigError
from blogbuild.fileio import read_at_most
from blogbuild.sourcetext import decode_source
from blogbuild.urls import UrlBuilder
from blogbuild.yamlcore import (
    BOOL,
    INT,
    MAP,
    Document,
    compose,
    describe,
    is_null,
    text_of,
    to_python,
)

CONFIG_NAME = "site.yaml"


@dataclass(frozen=True)
class NavLink:
    """A link of the site's navigation bar (`nav:` in site.yaml)."""

    title: str
    url: str


@dataclass(frozen=True)
class MathConfig:
    """How formulas are found and typeset (`math:` in site.yaml)."""

    enabled: bool = True
    inline_dollar: bool = True
    # kramdown's rule: $$…$$ with text beside it in a paragraph is inline math; "display"
    # keeps Pandoc's and Obsidian's habit of a display formula inside the sentence.
    inline_double_dollar: str = "inline"
    # MathML next to the HTML lets screen readers speak formulas; it costs some bytes only.
    output: str = "htmlAndMathml"
    macros: dict[str, str] = field(default_factory=dict)
    numbering: bool = True


@dataclass(frozen=True)
class StatementsConfig:
    """Numbered statements (Theorem, Lemma, … and the callout types marked `numbered`)."""

    #: "shared": one counter for all (Theorem 1, Lemma 2); "per-type": one per title.
    counters: str = "shared"


@dataclass(frozen=True)
class RunnableConfig:
    """How runnable code blocks run (`runnable:` in site.yaml)."""

    # None means Pyodide's public package index for the vendored version.
    packages_url: str | None = None
    #: "browser": blocks run when the reader presses Run; "build": every block also runs
    #: when the site is built (a block may say otherwise with data-execute).
    execute: str = "browser"
    timeout: int = 30  # seconds a block may run at build time


@dataclass(frozen=True)
class CheckConfig:
    """What `blogbuild check` leaves alone (`check:` in site.yaml)."""

    #: URLs `blogbuild check` leaves alone (shell-style patterns: `https://example.com/*`).
    ignore: tuple[str, ...] = ()


@dataclass(frozen=True)
class CommentsConfig:
    """giscus (GitHub Discussions) comments; the ids come from https://giscus.app."""

    repo: str = ""  # owner/name
    repo_id: str = ""
    category: str = ""
    category_id: str = ""
    mapping: str = "pathname"
    strict: bool = False
    reactions: bool = True
    input_position: str = "bottom"
    #: A fixed giscus theme; None follows the page with `theme_light` and `theme_dark`.
    theme: str | None = None
    theme_light: str = "light"
    theme_dark: str = "dark"
    lang: str | None = None  # None: the site's `language`
    #: Whether a post without `comments:` in its front matter shows them.
    enabled_by_default: bool = True


@dataclass(frozen=True)
class SocialConfig:
    """What link previews of the site use besides each page's own title and picture."""

    twitter: str = ""  # the site's X/Twitter account, @name
    image: str = ""  # the picture of pages without their own: a site path or https URL


@dataclass(frozen=True)
class CitationsConfig:
    """How citations are styled (`citations:` in site.yaml)."""

    #: "author-year", "numeric", or a .csl file (a path from the folder of site.yaml).
    style: str = "author-year"


@dataclass(frozen=True)
class ImagesConfig:
    """How pictures are published (`images: false`: as they are, nothing else done)."""

    enabled: bool = True
    #: The widths (pixels) of the copies made of each picture, never wider than it is.
    widths: tuple[int, ...] = (480, 800, 1200, 1600)
    #: Formats made besides the picture's own (which every browser shows): webp, avif.
    formats: tuple[str, ...] = ("webp",)
    quality: int = 80  # 1–100, of the lossy formats
    #: Pictures with more pixels are published as they are (decoding them costs too much).
    max_pixels: int = 120_000_000


@dataclass(frozen=True)
class NotebooksConfig:
    """Jupyter notebooks (.ipynb under content/) as posts and pages."""

    #: never (show the outputs each notebook stored), auto (run the notebooks that stored
    #: none) or always (run every Python notebook on every change; config_checks); a
    #: notebook's own `execute:` wins.
    execute: str = "never"
    #: Whether outputs may run their scripts in the reader's browser (interactive plots,
    #: widgets' HTML). Off, their HTML is cleaned and a static form shown instead.
    scripts: bool = False
    download: bool = True  # a "Download the notebook" link under each notebook post
    #: An "Open in Colab" link, when `repository` says where the notebooks are on GitHub.
    colab: bool = True
    repository: str = ""  # owner/name on GitHub
    branch: str = "main"
    folder: str = ""  # the site's folder inside the repository ("": its root)


@dataclass(frozen=True)
class Config:
    """The site's configuration. `root` is the folder holding site.yaml."""

    root: Path = Path(".")
    title: str = "My blog"
    base_url: str = "http://localhost:8000/"
    author: str = ""
    description: str = ""
    language: str = "en"
    permalink: str = "/posts/{slug}/"
    posts_per_page: int = 10
    nav: tuple[NavLink, ...] = ()
    date_format: str = "%B %-d, %Y"
    content_dir: str = "content"
    output_dir: str = "_site"
    feed_entries: int = 20
    #: "full": feed entries carry the whole post; "summary": only its summary.
    feed_content: str = "full"
    toc_min_headings: int = 3
    search: bool = True  # a Pagefind index and the search box in the header
    callouts: dict[str, CalloutType] = field(default_factory=dict)
    statements: StatementsConfig = field(default_factory=StatementsConfig)
    math: MathConfig = field(default_factory=MathConfig)
    runnable: RunnableConfig = field(default_factory=RunnableConfig)
    check: CheckConfig = field(default_factory=CheckConfig)
    #: None: no `comments:` block, so the theme shows no comments.
    comments: CommentsConfig | None = None
    #: Footnotes also shown in the margin beside their reference on wide screens.
    sidenotes: bool = False
    #: Draw a social card image for every post without its own `image:`.
    social_cards: bool = True
    social: SocialConfig = field(default_factory=SocialConfig)
    images: ImagesConfig = field(default_factory=ImagesConfig)
    notebooks: NotebooksConfig = field(default_factory=NotebooksConfig)
    #: The .bib files every post cites from (paths from the site folder; a post's own
    #: `bibliography:` replaces them). One path or a list in site.yaml, a tuple here.
    bibliography: Any = ()
    citations: CitationsConfig = field(default_factory=CitationsConfig)
    #: A hash of the bytes of those files and of a .csl style (not a key of site.yaml).
    citation_files: str = ""
    #: The line of site.yaml that names each of `bibliography` (for a missing file's
    #: warning; the digest above covers it when a file is missing).
    bibliography_lines: tuple[int, ...] = ()
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def urls(self) -> UrlBuilder:
        return UrlBuilder(self.base_url)

    @property
    def content_path(self) -> Path:
        return self.root / self.content_dir

    def render_fingerprint(self) -> str:
        """The parts of the config that change how a post renders (the cache key uses it).

        Exactly what the parser reads (tests/test_cache.py checks every field): more would
        only re-render every post when, say, the permalink pattern changes."""
        return self._render_fingerprint

    @functools.cached_property
    def _render_fingerprint(self) -> str:  # computed once: every source's digest uses it
        relevant = {
            "base_url": self.base_url,
            "callouts": {k: dataclasses.asdict(v) for k, v in sorted(self.callouts.items())},
            "math": dataclasses.asdict(self.math),
            "statements": dataclasses.asdict(self.statements),
            "bibliography": tuple(self.bibliography),
            "citations": dataclasses.asdict(self.citations),
            "citation_files": self.citation_files,
            "notebooks": dataclasses.asdict(self.notebooks),
        }
        return repr(sorted(relevant.items()))


_NOT_KEYS = {"root", "citation_files", "bibliography_lines"}
#: A site.yaml larger than this is refused before parsing (it is a few dozen lines).
MAX_CONFIG_BYTES = 1_000_000


def _type_name(tp: Any) -> str:
    return getattr(tp, "__name__", str(tp))


class _Reader:
    """Builds the Config from site.yaml's nodes, noting the line of every key it reads."""

    def __init__(self, doc: Document) -> None:
        self.doc = doc
        self.lines: dict[str, int] = {}  # dotted key ("math.output", "nav[0].url") -> line

    def build(self, cls: type[Any], node: MappingNode, prefix: str = "") -> Any:
        hints = typing.get_type_hints(cls)
        fields = [f for f in dataclasses.fields(cls) if f.name not in _NOT_KEYS]
        names = [f.name for f in fields]
        kwargs: dict[str, Any] = {}
        for key_node, value in node.value:
            key = str(key_node.value)
            if key not in names:
                close = [n for n in names if _similar(key, n)]
                hint = f" (did you mean '{prefix}{close[0]}'?)" if close else ""
                raise self.doc.fail(f"unknown key '{prefix}{key}'{hint}; known keys: "
                                    f"{', '.join(names)}", key_node)
            self.lines[prefix + key] = self.doc.line(key_node)
            if is_null(value) and text_of(value) is None:
                continue  # `key:` with no value keeps the default
            kwargs[key] = self.coerce(value, hints[key], prefix + key)
        for f in fields:
            required = f.default is dataclasses.MISSING and \
                f.default_factory is dataclasses.MISSING
            if required and f.name not in kwargs:
                raise self.doc.fail(f"'{prefix.rstrip('.')}' needs '{f.name}' (each item is "
                                    f"{{{', '.join(n + ': …' for n in names)}}})", node)
        return cls(**kwargs)

    def coerce(self, node: Node, tp: Any, key: str) -> Any:
        """Check `node` against the annotation `tp`; nested mappings become dataclasses."""
        origin = typing.get_origin(tp)
        args = typing.get_args(tp)
        fail = self.doc.fail
        if origin in (typing.Union, types.UnionType):
            if is_null(node) and text_of(node) is None and type(None) in args:
                return None
            return self.coerce(node, next(a for a in args if a is not type(None)), key)
        if dataclasses.is_dataclass(tp) and isinstance(tp, type):
            if is_null(node) and text_of(node) is None:
                return tp()
            # `images: false` is `images: {enabled: false}`
            if node.tag == BOOL and "enabled" in {f.name for f in dataclasses.fields(tp)}:
                return tp(enabled=to_python(node, self.doc))  # type: ignore[call-arg]
            if not isinstance(node, MappingNode):
                raise fail(f"'{key}' must be a mapping (indented 'key: value' lines), not "
                           f"{describe(node)}", node)
            return self.build(tp, node, prefix=key + ".")
        if origin is tuple:
            if not isinstance(node, SequenceNode):
                raise fail(f"'{key}' must be a list ('- item' lines), not {describe(node)}",
                           node)
            items = []
            for i, item in enumerate(node.value):
                self.lines[f"{key}[{i}]"] = self.doc.line(item)
                items.append(self.coerce(item, args[0], f"{key}[{i}]"))
            return tuple(items)
        if origin is dict:
            if not isinstance(node, MappingNode):
                raise fail(f"'{key}' must be a mapping (indented 'key: value' lines), not "
                           f"{describe(node)}", node)
            out = {}
            for k, v in node.value:
                self.lines[f"{key}.{k.value}"] = self.doc.line(k)
                out[str(k.value)] = self.coerce(v, args[1], f"{key}.{k.value}")
            return out
        if tp is Any:
            return to_python(node, self.doc)
        if tp is bool:
            if node.tag != BOOL:
                raise fail(f"'{key}' must be true or false, not {describe(node)}", node)
            return to_python(node, self.doc)
        if tp is int:
            if node.tag != INT:
                raise fail(f"'{key}' must be a whole number (an integer), not "
                           f"{describe(node)}", node)
            return to_python(node, self.doc)
        if tp in (str, Path):
            text = text_of(node)
            if text is None:
                raise fail(f"'{key}' must be a string, not "
                           f"{'empty' if is_null(node) else describe(node)}", node)
            return tp(text)
        raise fail(f"'{key}' has an unsupported type {_type_name(tp)}", node)


def _similar(a: str, b: str) -> bool:
    import difflib

    return difflib.SequenceMatcher(None, a.lower(), b.lower()).ratio() >= 0.75


def load_config(path: Path | str | None = None, *, base_url: str | None = None) -> Config:
    """Read and validate site.yaml (default: ./site.yaml)."""
    cfg_path = Path(path) if path is not None else Path(CONFIG_NAME)
    if cfg_path.is_dir():
        cfg_path = cfg_path / CONFIG_NAME
    if not cfg_path.is_file():
        raise ConfigError(
            f"no {cfg_path.name} found at {cfg_path}, so this is not a blog folder: run "
            "blogbuild in the folder that holds your site.yaml (or pass --config PATH), or "
            "start a blog with `blogbuild init`",
        )
    source = str(cfg_path)
    try:
        data = read_at_most(cfg_path, MAX_CONFIG_BYTES)
    except OSError as exc:
        raise ConfigError(f"cannot read the file: {exc.strerror or exc}", file=source) from None
    if data is None:
        raise ConfigError(f"the file is larger than {MAX_CONFIG_BYTES:,} bytes; site.yaml "
                          "holds settings only", file=source)
    doc = compose(decode_source(data, source, ConfigError), source, ConfigError)
    if doc.root is None:
        doc.root = MappingNode(MAP, [])
    if not isinstance(doc.root, MappingNode):
        raise doc.fail(f"site.yaml must be 'key: value' lines, not {describe(doc.root)}",
                       doc.root)
    reader = _Reader(doc)
    config: Config = reader.build(Config, doc.root)
    config = dataclasses.replace(config, root=cfg_path.parent.resolve())
    validate(config, source, reader.lines)
    bibliography = bibliography_paths(config.bibliography, source, reader.lines)
    config = dataclasses.replace(config, bibliography=bibliography, citation_files=files_digest(
        config.root, bibliography, config.citations.style, source, reader.lines),
        bibliography_lines=tuple(reader.lines.get(f"bibliography[{i}]",
                                                  reader.lines.get("bibliography", 0))
                                 for i in range(len(bibliography))))
    if base_url is not None:
        check_base_url(base_url, "--base-url")
        config = dataclasses.replace(config, base_url=base_url)
    return config
