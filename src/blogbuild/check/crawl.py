"""Check every URL in the built pages: templates, raw HTML and Markdown alike.

Each built HTML file is parsed (to read it, never to change it) for the URLs a browser
would load or follow and for the ids a `#fragment` can point at. A URL inside the site must
name a file the build wrote, under the site's base path, and its fragment must be an id of
that page. Links to other sites are collected for the external check.
"""

from __future__ import annotations

import fnmatch
import os
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urljoin, urlsplit

from blogbuild.urls import output_path, url_problem

#: (tag, attribute) pairs that hold a URL; `*` is any tag.
_URL_ATTRS = frozenset({
    ("*", "href"), ("*", "src"), ("video", "poster"), ("object", "data"),
    ("img", "srcset"), ("source", "srcset"),
})
#: `<link rel=…>` values that name a host to connect to, not a resource.
_HINT_RELS = frozenset({"preconnect", "dns-prefetch"})
#: Tags whose URL shows or loads as a picture.
_IMAGE_TAGS = frozenset({"img", "picture", "source", "video", "svg", "image"})
#: Fragments every page answers to without an id.
_FREE_FRAGMENTS = frozenset({"", "top"})
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:")
_SKIPPED_SCHEMES = frozenset({"mailto", "tel", "javascript", "data", "blob", "about", "sms"})


@dataclass(frozen=True)
class Use:
    """One URL as a page holds it: where it is written, and in which tag and attribute."""

    value: str
    tag: str
    attr: str
    line: int
    column: int


@dataclass
class Page:
    """What the crawl found on one page: the ids it holds and the URLs it uses."""

    ids: set[str] = field(default_factory=set)
    uses: list[Use] = field(default_factory=list)


class _Reader(HTMLParser):
    """Collects ids and URL attributes with their line and column."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.page = Page()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        line, column = self.getpos()
        values = {name: value for name, value in attrs if value is not None}
        if "id" in values:
            self.page.ids.add(values["id"])
        if tag == "a" and "name" in values:
            self.page.ids.add(values["name"])
        if tag == "base" or (tag == "link" and _HINT_RELS & set(values.get("rel", "").split())):
            return
        for name, value in values.items():
            if ("*", name) in _URL_ATTRS or (tag, name) in _URL_ATTRS:
                for url in _srcset(value) if name == "srcset" else [value.strip()]:
                    self.page.uses.append(Use(url, tag, name, line, column + 1))

    handle_startendtag = handle_starttag


def _srcset(value: str) -> list[str]:
    """The URLs of a srcset (each candidate is `URL [descriptor]`, comma separated)."""
    return [part.split()[0] for part in value.split(",") if part.split()]


def read_page(path: Path) -> Page:
    reader = _Reader()
    reader.feed(path.read_text(encoding="utf-8", errors="replace"))
    reader.close()
    return reader.page


def output_files(output: Path) -> set[str]:
    """Every file the build wrote, as POSIX paths relative to the output folder."""
    found = set()
    for folder, _, names in os.walk(output):
        for name in names:
            found.add((Path(folder) / name).relative_to(output).as_posix())
    return found


def page_url(rel: str) -> str:
    """The site-root URL a built file answers at (`posts/x/index.html` -> `/posts/x/`)."""
    return "/" + (rel[: -len("index.html")] if rel.endswith("index.html") else rel)


@dataclass(frozen=True)
class Target:
    """Where a URL leads: a file of this site (`rel`, `fragment`) or somewhere else (`url`)."""

    rel: str | None
    fragment: str
    url: str
    outside_base: bool = False
    #: Why the URL cannot be read (an IPv6 host without its ']', a port that is no number).
    malformed: str = ""


def resolve(value: str, page_rel: str, base_url: str, base_path: str) -> Target | None:
    """Where `value`, written in the page `page_rel`, leads; None for URLs not checked."""
    problem = url_problem(value)
    if problem is not None:
        return Target(None, "", value, malformed=problem)
    scheme = urlsplit(value).scheme.lower()
    if scheme in _SKIPPED_SCHEMES:
        return None
    site = urlsplit(base_url)
    absolute = urljoin(f"{site.scheme}://{site.netloc}{base_path}" + page_url(page_rel)[1:],
                       value)
    parts = urlsplit(absolute)
    if parts.scheme not in ("http", "https"):
        return None
    if parts.netloc.lower() != site.netloc.lower():
        return Target(None, parts.fragment, absolute)
    path = unquote(parts.path) or "/"
    if not (path + "/").startswith(base_path):
        return Target(None, parts.fragment, absolute, outside_base=True)
    return Target(output_path(path[len(base_path) - 1:]), unquote(parts.fragment), absolute)


def checked_key(target: Target) -> tuple[str, str] | None:
    """What names `target` among the targets the build checked already (see check_uses):
    the file and fragment of a page of the site, the URL of one above the site's root."""
    if target.outside_base:
        return target.url, ""
    return (target.rel, target.fragment) if target.rel is not None else None


def ignored(patterns: Iterable[str], *values: str) -> bool:
    """True when a `check.ignore` / `--ignore` pattern (shell-style: `*`, `?`) matches."""
    return any(fnmatch.fnmatchcase(v, p) for p in patterns for v in values)


@dataclass(frozen=True)
class Problem:
    """A broken URL found in a page, before it is placed in a source file or the page."""

    page: str
    use: Use
    kind: str
    message: str
    target: str


def _kind(use: Use, rel: str) -> str:
    if use.tag in _IMAGE_TAGS or use.attr in ("srcset", "poster"):
        return "image"
    if use.tag in ("a", "area") and (rel.endswith(".html") or "." not in rel.rsplit("/", 1)[-1]):
        return "link"
    return "asset"


def _exists(rel: str, files: set[str]) -> bool:
    return rel in files or f"{rel}/index.html" in files


def check_uses(pages: dict[str, Page], files: set[str], base_url: str, base_path: str,
               ignore: tuple[str, ...], skip: dict[str, set[tuple[str, str]]],
               ) -> tuple[list[Problem], dict[str, list[tuple[str, Use]]]]:
    """The broken internal URLs of every page, and the external URLs with where each is.

    `skip[page]` holds the (file, fragment) targets the build already checked in that
    page's Markdown (reported there with their source line)."""
    problems: list[Problem] = []
    external: dict[str, list[tuple[str, Use]]] = {}
    known: dict[tuple[str, str], Target | None] = {}  # the nav and footer repeat on every page
    for page_rel, page in sorted(pages.items()):
        for use in page.uses:
            absolute = use.value.startswith("/") or _SCHEME.match(use.value)
            key = (use.value, "" if absolute else page_rel)
            if key not in known:
                known[key] = resolve(use.value, page_rel, base_url, base_path)
            target = known[key]
            if target is None or ignored(ignore, use.value, target.url):
                continue
            if target.malformed:
                problems.append(Problem(page_rel, use, _kind(use, ""), (
                    f"malformed URL {use.value}: {target.malformed}"), use.value))
                continue
            if target.rel is None and not target.outside_base:
                external.setdefault(target.url.partition("#")[0], []).append((page_rel, use))
                continue
            problem = _problem(page_rel, use, target, pages, files, base_path,
                               skip.get(page_rel, set()))
            if problem is not None:
                problems.append(problem)
    return problems, external


def _problem(page_rel: str, use: Use, target: Target, pages: dict[str, Page],
             files: set[str], base_path: str, skip: set[tuple[str, str]]) -> Problem | None:
    if checked_key(target) in skip:
        return None
    if target.outside_base:
        return Problem(page_rel, use, "link", (
            f"{use.value} leads outside the site: the site lives under {base_path}; "
            "write the URL from the site's root with the base path, or a relative one"),
            use.value)
    assert target.rel is not None
    rel = target.rel
    if not _exists(rel, files):
        kind = _kind(use, rel)
        what = {"image": "missing image", "asset": "missing file"}.get(kind, "broken link")
        return Problem(page_rel, use, kind,
                       f"{what}: {use.value} (nothing is built at {page_url(rel)})", use.value)
    if rel not in files:
        rel += "/index.html"
    if target.fragment in _FREE_FRAGMENTS or not rel.endswith(".html") or rel not in pages:
        return None
    if target.fragment in pages[rel].ids:
        return None
    return Problem(page_rel, use, "anchor",
                   f"link to a missing anchor: #{target.fragment} is not an id in "
                   f"{page_url(rel)}", use.value)


#: Built pages below this many are read in the check's own process.
PARSE_POOL_MIN = 100
_OUTPUT: list[Path] = []  # the folder a worker reads pages from


def _init_reader(output: Path | None) -> None:
    _OUTPUT[:] = [output] if output is not None else []


def _read_one(rel: str) -> tuple[str, Page]:
    return rel, read_page(_OUTPUT[0] / rel)


def read_pages(output: Path, files: set[str], jobs: int) -> Iterator[tuple[str, Page]]:
    """Every built HTML page, read by `jobs` processes (the parser is pure Python: a page
    of formulas holds thousands of tags)."""
    from blogbuild.pool import run_jobs

    pages = sorted(rel for rel in files if rel.endswith(".html"))
    yield from run_jobs(pages, _read_one, _init_reader, (output,), jobs=jobs,
                        minimum=PARSE_POOL_MIN)
