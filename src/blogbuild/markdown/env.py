"""The per-document `env` contract shared by every plugin: needs, diagnostics, refs.

A plugin never raises on author input and never does I/O; it reports:

- ``report(env, line, message)`` appends a Diagnostic (file and line in the *source
  file*, i.e. corrected for the front matter above the body);
- ``need(env, "math")`` asks the page template and the writer for an asset bundle;
- ``add_ref(env, kind, target, line, rel=…)`` records a link/image to check after assembly.

Keys of env (all optional; ``render_markdown`` fills them):
  file: str            the source path shown in messages
  line_offset: int     source lines above the Markdown body (front matter)
  source_dir: str|None content-relative folder of the file (None: not in a site)
  diagnostics: list[Diagnostic]
  needs: set[str]
  refs: list[Ref]
  links: LinkMap|None  where every document and file of the site will be (blogbuild.content.linkmap)
  feed_base: str|None  this document's absolute URL (in-page links of its feed entry)
  feed: bool           True while the feed variant is rendered (blogbuild.markdown.feed)
  resolved: dict[str, str|None]  relative targets resolved through `links`
  wiki: dict[str, str]  wiki names looked up through `links` (blogbuild.markdown.wikilinks)
  xrefs: dict[str, str]  other documents' ids looked up through `links` (markdown.xrefs)
  images: dict[str, str|None]  pictures looked up through `links` (blogbuild.markdown.images)
  cover: bool          the page shows a cover picture above the body
  xref_labels: dict[str, tuple[str, str]]  this page's labelled ids -> (kind, label)
  bibliography: Library|None  the entries citations find (blogbuild.bib.library)
  citation_style: str  the CSL style: "author-year", "numeric" or a .csl path
  source_path, site_root: Path  the document's file and the site's folder (a chart's data
                       files are read beside the document by the chart stage)
  inputs: dict[str, str]  files other than the source a stage read: path from the site
                       folder -> sha256 (blogbuild.content.records.Rendered.inputs)
  quarto: QuartoPage   set for a Quarto document only (blogbuild.readers.qmd): what the
                       Quarto plugins read and note (`is_quarto`)
"""

from __future__ import annotations

from collections.abc import MutableMapping
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.renderer import RendererHTML
from markdown_it.token import Token

from blogbuild.content.models import Ref
from blogbuild.diagnostics import Diagnostic, Severity

Env = MutableMapping[str, Any]


def is_quarto(env: Env) -> bool:
    """Whether the page being parsed is a Quarto document: the test every Quarto plugin
    starts with (blogbuild.markdown.quarto)."""
    return env.get("quarto") is not None


def source_line(env: Env, body_line: int) -> int:
    """1-based source-file line for a 0-based line of the Markdown body."""
    return int(env.get("line_offset", 0)) + body_line + 1


def token_line(env: Env, token: Token | None) -> int:
    if token is not None and token.map:
        return source_line(env, token.map[0])
    return source_line(env, 0) if env.get("line_offset") else 0


def report(
    env: Env,
    line: int,
    message: str,
    *,
    severity: Severity = Severity.WARNING,
    column: int = 0,
) -> None:
    """Record a diagnostic; `line` is already a 1-based source-file line."""
    diagnostics = env.setdefault("diagnostics", [])
    diagnostics.append(Diagnostic(str(env.get("file", "<input>")), line, column, severity, message))


def report_error(env: Env, line: int, message: str, *, column: int = 0) -> None:
    report(env, line, message, severity=Severity.ERROR, column=column)


def need(env: Env, name: str) -> None:
    env.setdefault("needs", set()).add(name)


def add_ref(env: Env, kind: str, target: str, line: int, *, rel: str | None = None) -> None:
    env.setdefault("refs", []).append(Ref(kind, target, line, rel))


def html_renderer(md: MarkdownIt) -> RendererHTML:
    """The parser's HTML renderer, typed (MarkdownIt declares only a protocol)."""
    renderer = md.renderer
    assert isinstance(renderer, RendererHTML)
    return renderer
