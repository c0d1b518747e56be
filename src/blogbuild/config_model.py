"""What site.yaml holds once read: the Config and its sections, frozen, with every default
(here and nowhere else). blogbuild.config reads site.yaml into them; importing these does not
load YAML, so a build that finds its settings remembered never does."""

from __future__ import annotations

import dataclasses
import functools
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from blogbuild.callout_kinds import CalloutType

if TYPE_CHECKING:
    from blogbuild.outline import Runs
    from blogbuild.urls import UrlBuilder

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
        from blogbuild.urls import UrlBuilder

        return UrlBuilder(self.base_url)

    @property
    def content_path(self) -> Path:
        return self.root / self.content_dir

    @property
    def runs(self) -> Runs:
        """What decides whether a source runs code at build time, and how (blogbuild.outline)."""
        return (self.notebooks.execute, self.runnable.execute, self.runnable.timeout)

    @property
    def shown(self) -> str:
        """The whole Config as text: what the fingerprint of a build's inputs hashes."""
        return repr(self)

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
