"""What a build produced: pages by kind, output size and the heaviest pages, read from the output.

Page weight is what a reader's browser downloads to show a page: its HTML plus the local
stylesheets (and what they @import), scripts (and the modules they import statically),
images (<img> src or its largest srcset candidate, <video> posters) and fonts it loads.
Fonts are counted as the stylesheets declare them: every @font-face, with the first url() of
its src (the format a current browser picks), whether or not the page uses that face.
The scripts of widgets, which js/widgets.js imports as the reader scrolls near them, are
counted (a reader who reads the page to its end fetches them). Resources loaded on demand
(the Python runtime of a Run button, a video after a click) and URLs outside the site are
not counted. The written HTML is only read here, never changed.
"""

from __future__ import annotations

import html
import os
import posixpath
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import unquote, urljoin, urlsplit

from blogbuild.commands.page_tags import PageTags, Stamp
from blogbuild.urls import url_problem

if TYPE_CHECKING:
    from blogbuild.commands.build import BuildReport

#: Page kinds in the order the summary names them; the template of a planned page decides.
KINDS: dict[str, tuple[str, str]] = {  # kind -> (singular, plural)
    "post": ("post", "posts"),
    "page": ("page", "pages"),
    "tag": ("tag page", "tag pages"),
    "list": ("list page", "list pages"),
    "feed": ("feed", "feeds"),
    "other": ("other file", "other files"),
}
_TEMPLATE_KINDS = {
    "post.html": "post", "page.html": "page", "tag.html": "tag",
    "index.html": "list", "tags.html": "list", "archive.html": "list", "feed.xml": "feed",
}
HEAVIEST = 5  # pages the summary lists

# One pass over each page, skipping comments so that tags inside them do not count.
# Tag names are matched as blogbuild and markdown-it write them, in lower case: ignoring case
# makes this pass (most of the summary's time) about half again as slow. A tag ends at the
# next `<` at the latest, and a comment is looked for once: thousands of unclosed `<img` or
# `<!--` in a post would otherwise take quadratic time.
_TAG = re.compile(rb"<(link|script|img|video)\b([^<>]*)>")
_ATTR = re.compile(rb"""([a-zA-Z_:][-a-zA-Z0-9_:.]*)\s*=\s*("[^"]*"|'[^']*'|[^\s"'=<>`]+)""")
_FONT_FACE = re.compile(rb"@font-face\s*\{([^}]*)\}", re.I)
_FONT_SRC = re.compile(rb"""\bsrc\s*:[^;}]*?url\(\s*(?:"([^"]*)"|'([^']*)'|([^)\s]*))\s*\)""", re.I)
_CSS_IMPORT = re.compile(rb"""@import\s+(?:url\(\s*)?(?:"([^"]*)"|'([^']*)'|([^)\s;]+))""", re.I)
_CSS_COMMENT = re.compile(rb"/\*.*?\*/", re.S)
_JS_IMPORT = re.compile(
    rb"""(?:^|[;}\s])(?:import|export)\s*(?:[\w$*{}\s,]+?\s*from\s*)?["']([^"'\n]+)["']""", re.M
)


def _tags(data: bytes) -> Iterator[re.Match[bytes]]:
    """The tags of `_TAG` outside comments (an unclosed comment runs to the end)."""
    pos = 0
    while True:
        start = data.find(b"<!--", pos)
        yield from _TAG.finditer(data, pos, len(data) if start < 0 else start)
        if start < 0:
            return
        end = data.find(b"-->", start + 4)
        if end < 0:
            return
        pos = end + 3


@dataclass(frozen=True)
class PageWeight:
    """The bytes a reader downloads for one page: its HTML, and everything it loads."""

    path: str  # in the output folder
    url: str  # URL path, with the site's sub-path
    html: int  # bytes of the HTML file
    total: int  # HTML plus every resource counted


@dataclass(frozen=True)
class Summary:
    """What the output folder holds: pages by kind, its size, its heaviest pages."""

    kinds: dict[str, int]  # kind (a key of KINDS) -> pages written, zero counts left out
    output_bytes: int  # every file under the output folder
    output_files: int
    heaviest: list[PageWeight]


def kind_of(template: str) -> str:
    """The kind of a planned page, from its template name."""
    return _TEMPLATE_KINDS.get(template, "other")


def summarize(output: Path, written: Mapping[str, str], base_url: str, *,
              cache: Path | None = None,
              files: Mapping[str, tuple[int, int]] | None = None) -> Summary:
    """Count `written` (output path -> template) by kind and weigh its HTML pages in `output`.

    With a `cache` folder, a page whose file is as the last summary saw it is not read
    again (blogbuild.commands.page_tags). `files`: the size and modification time of every
    file in `output`, when the build knows them (else the folder is walked)."""
    counts = {kind: 0 for kind in KINDS}
    for template in written.values():
        counts[kind_of(template)] += 1
    if files is None:
        sizes, stamps = _file_stats(output)
    else:
        sizes = {rel: size for rel, (size, _) in files.items()}
        stamps = {rel: stamp for rel, stamp in files.items() if rel.endswith(".html")}
    resources = _Resources(output, sizes, base_url)
    known = PageTags.load(cache, output)
    weights = []
    for path in sorted(written):
        if path.endswith(".html"):
            stamp = stamps.get(path)
            tags = known.get(path, stamp) if stamp is not None else None
            if tags is None:
                tags = resources.tags(path)
                if stamp is not None:
                    known.put(path, stamp, tags)
            weights.append(resources.weigh(path, tags))
    known.save()
    weights.sort(key=lambda w: (-w.total, w.path))
    return Summary(
        kinds={kind: n for kind, n in counts.items() if n},
        output_bytes=sum(sizes.values()),
        output_files=len(sizes),
        heaviest=weights[:HEAVIEST],
    )


def page_weight(output: Path, path: str, base_url: str) -> PageWeight:
    """The weight of the one page `path` (relative to `output`)."""
    resources = _Resources(output, file_sizes(output), base_url)
    return resources.weigh(path, resources.tags(path))


def file_sizes(folder: Path) -> dict[str, int]:
    """Size of every file under `folder`, keyed by its POSIX path relative to it."""
    return _file_stats(folder)[0]


def _file_stats(folder: Path) -> tuple[dict[str, int], dict[str, Stamp]]:
    """`file_sizes`, and the size and time of every HTML file (one stat each)."""
    sizes: dict[str, int] = {}
    stamps: dict[str, Stamp] = {}
    stack = [(str(folder), "")]
    while stack:
        top, prefix = stack.pop()
        with os.scandir(top) as entries:
            for entry in entries:
                if entry.is_dir(follow_symlinks=False):
                    stack.append((entry.path, prefix + entry.name + "/"))
                elif entry.is_file():
                    st = entry.stat()
                    sizes[prefix + entry.name] = st.st_size
                    if entry.name.endswith(".html"):
                        stamps[prefix + entry.name] = (st.st_size, st.st_mtime_ns)
    return sizes, stamps


class _Resources:
    """Resolves URLs to output files and remembers what each stylesheet and script pulls in."""

    def __init__(self, output: Path, sizes: dict[str, int], base_url: str) -> None:
        self.root = str(output) + os.sep
        self.sizes = sizes
        parts = urlsplit(base_url)
        self.base_path = parts.path if parts.path.endswith("/") else parts.path + "/"
        self.origin = f"{parts.scheme}://{parts.netloc}".lower() if parts.netloc else ""
        self.pulled: dict[str, frozenset[str]] = {}  # css/js file -> what it loads, itself too
        self.absolute: dict[str, str | None] = {}  # "/…" URL -> output file (pages share many)
        # A tag whose URLs do not depend on the page (most: the theme's <head>) -> the files
        # it loads; looked up once, not once per page.
        self.shared: dict[bytes, frozenset[str]] = {}
        self.sums: dict[frozenset[str], int] = {}  # files loaded -> their bytes

    def tags(self, path: str) -> tuple[bytes, ...]:
        """The distinct tags of the page that name a file to load, in the order they come
        (a `<link rel="canonical">` loads nothing, whatever the output holds)."""
        found = dict.fromkeys(match.group(0) for match in _tags(self.read(path)))
        return tuple(tag for tag in found if tag in self.shared or _loads_something(tag))

    def weigh(self, path: str, tags: tuple[bytes, ...]) -> PageWeight:
        """The page's weight from its `tags` and the sizes of the files they load."""
        page_url = self.base_path + path
        loaded: set[str] = set()
        for tag in tags:
            files = self.shared.get(tag)
            if files is None:
                match = _TAG.match(tag)
                files = self.files_of(match, page_url) if match is not None else frozenset()
            loaded |= files
        loaded.discard(path)
        url = self.base_path + (path[: -len("index.html")] if path.endswith("/index.html")
                                or path == "index.html" else path)
        size = self.sizes[path]
        key = frozenset(loaded)  # most pages load the same files: their sum is kept
        extra = self.sums.get(key)
        if extra is None:
            extra = self.sums[key] = sum(self.sizes[r] for r in loaded)
        return PageWeight(path, url, size, size + extra)

    def files_of(self, match: re.Match[bytes], page_url: str) -> frozenset[str]:
        """The files one tag (or comment: none) loads, with what they load in turn."""
        urls = _urls_of(match.group(1), match.group(2)) if match.group(1) else []
        files: set[str] = set()
        for url, kind in urls:
            rel = self.local(url, page_url)
            if rel is not None:
                files |= self.follow(rel, kind) if kind in ("css", "module") else {rel}
        found = frozenset(files)
        if all(url.startswith("/") or (url_problem(url) is None and urlsplit(url).scheme)
               for url, _ in urls):
            self.shared[match.group(0)] = found
        return found

    def read(self, rel: str) -> bytes:
        # os.read with the size known from the walk: a third quicker than Path.read_bytes
        # over a thousand pages (reading is a third of the summary's time).
        fd = os.open(self.root + rel, os.O_RDONLY)
        try:
            chunks = [os.read(fd, self.sizes.get(rel, 0) + 1)]
            while chunks[-1]:
                chunks.append(os.read(fd, 1 << 16))
        finally:
            os.close(fd)
        return b"".join(chunks)

    def local(self, url: str, base: str) -> str | None:
        """The output file that `url` (seen in the file at URL path `base`) names, if any."""
        if url.startswith("/") and not url.startswith("//"):
            if url not in self.absolute:
                self.absolute[url] = self._resolve(url, base)
            return self.absolute[url]
        return self._resolve(url, base)

    def _resolve(self, url: str, base: str) -> str | None:
        url = html.unescape(url.strip()) if "&" in url else url.strip()
        if not url or url.startswith(("data:", "#")):
            return None
        if url_problem(url) is not None:
            return None  # not a URL a browser could load
        parts = urlsplit(urljoin(base, url))
        origin = f"{parts.scheme}://{parts.netloc}".lower()
        if (parts.scheme or parts.netloc) and origin != self.origin:
            return None  # another site's URL
        path = unquote(parts.path)
        if not path.startswith(self.base_path):
            return None
        tail = path[len(self.base_path):]
        rel = posixpath.normpath(tail + "index.html" if tail == "" or tail.endswith("/") else tail)
        return rel if rel in self.sizes else None

    def follow(self, rel: str, kind: str) -> frozenset[str]:
        """`rel` and, transitively, the fonts and stylesheets (or modules) it loads."""
        known = self.pulled.get(rel)
        if known is not None:
            return known
        self.pulled[rel] = frozenset({rel})  # an import cycle ends here
        data = self.read(rel)
        base = self.base_path + rel
        found = {rel}
        if kind == "css":
            text = _CSS_COMMENT.sub(b"", data)
            for match in _CSS_IMPORT.finditer(text):
                child = self.local(_first_group(match), base)
                if child is not None:
                    found |= self.follow(child, "css")
            for face in _FONT_FACE.finditer(text):
                src = _FONT_SRC.search(face.group(1))
                font = self.local(_first_group(src), base) if src else None
                if font is not None:
                    found.add(font)
        else:
            for match in _JS_IMPORT.finditer(data):
                specifier = match.group(1).decode("utf-8", "replace")
                if specifier.startswith(("./", "../", "/")):
                    child = self.local(specifier, base)
                    if child is not None:
                        found |= self.follow(child, "module")
        result = frozenset(found)
        self.pulled[rel] = result
        return result


def _loads_something(tag: bytes) -> bool:
    """Whether the tag (a match of `_TAG`) names a URL to load at all."""
    match = _TAG.match(tag)
    return match is not None and bool(_urls_of(match.group(1), match.group(2)))


def _first_group(match: re.Match[bytes]) -> str:
    value = next((g for g in match.groups() if g is not None), b"")
    return value.decode("utf-8", "replace")


def _unquote(value: bytes) -> bytes:
    return value[1:-1] if value[:1] in (b'"', b"'") else value


def _urls_of(name: bytes, attributes: bytes) -> list[tuple[str, str]]:
    """The URLs a tag makes the browser load while showing the page, with their kind."""
    tag = name.decode("ascii")
    attrs = {key.decode("ascii").lower(): _unquote(value).decode("utf-8", "replace")
             for key, value in _ATTR.findall(attributes)}
    if tag == "link":
        rel = attrs.get("rel", "").lower().split()
        if "stylesheet" in rel:
            return [(attrs.get("href", ""), "css")]
        if "modulepreload" in rel:
            return [(attrs.get("href", ""), "module")]
        if "preload" in rel:
            return [(attrs.get("href", ""), "file")]
        return []
    if tag == "script":
        if "data-widget-script" in attrs:  # a widget's module, imported when it comes near
            return [(attrs["data-widget-script"], "module")]
        kind = "module" if attrs.get("type", "").lower() == "module" else "file"
        return [(attrs["src"], kind)] if "src" in attrs else []
    if tag == "video":
        return [(attrs["poster"], "file")] if "poster" in attrs else []
    srcset = attrs.get("srcset", "")
    return [(_largest_candidate(srcset) if srcset else attrs.get("src", ""), "file")]


def _largest_candidate(srcset: str) -> str:
    """The srcset candidate with the largest width or density (what a sharp screen loads)."""
    best, best_size = "", -1.0
    for candidate in srcset.split(","):
        words = candidate.split()
        if not words:
            continue
        descriptor = words[1] if len(words) > 1 else "1x"
        try:
            size = float(descriptor[:-1]) if descriptor[-1:] in ("w", "x") else 1.0
        except ValueError:
            size = 1.0
        if size > best_size:
            best, best_size = words[0], size
    return best


def summary_lines(report: BuildReport, summary: Summary, where: str) -> list[str]:
    """The summary the CLI prints after a build (`where`: the output folder as shown)."""
    kinds = [_count(n, *KINDS[kind]) for kind, n in summary.kinds.items()]
    built = ", ".join(kinds[:-1]) + " and " + kinds[-1] if len(kinds) > 1 else "".join(kinds)
    errors = sum(1 for d in report.diagnostics if d.is_error)
    warnings = len(report.diagnostics) - errors
    lines = [
        f"built {built} in {report.seconds:.2f} s "
        f"({report.rendered} rendered, {report.cached} cached)",
        f"{_count(errors, 'error', 'errors')}, {_count(warnings, 'warning', 'warnings')} · "
        f"output {human_bytes(summary.output_bytes)} in "
        f"{_count(summary.output_files, 'file', 'files')} → {where}",
    ]
    lines += report.execution_lines()
    if summary.heaviest:  # say how fonts are counted: a browser fetches only the faces in use
        lines.append("heaviest pages (HTML + the CSS, JS, fonts and images it loads; "
                     "fonts as its stylesheets declare them):")
        totals = [human_bytes(w.total) for w in summary.heaviest]
        width = max(len(t) for t in totals)
        url_width = max(len(w.url) for w in summary.heaviest)
        for weight, total in zip(summary.heaviest, totals, strict=True):
            lines.append(f"  {total:>{width}}  {weight.url:<{url_width}}  "
                         f"(HTML {human_bytes(weight.html)})")
    if report.images:
        lines.append("heaviest pictures (the file, and the widest copy a browser may load):")
        sizes = [(human_bytes(size), human_bytes(copy) if copy else "no copies")
                 for _, size, copy in report.images]
        width = max(len(size) for size, _ in sizes)
        copy_width = max(len(copy) for _, copy in sizes)
        for (shown, _, _), (size, copy) in zip(report.images, sizes, strict=True):
            lines.append(f"  {size:>{width}} → {copy:>{copy_width}}  {shown}")
    return lines


def _count(n: int, one: str, many: str) -> str:
    return f"{n:,} {one if n == 1 else many}"


def human_bytes(n: int) -> str:
    """``512 B``, ``18.4 kB``, ``3.2 MB`` (powers of 1000, as file managers show them)."""
    if n < 1000:
        return f"{n} B"
    value = n / 1000
    for unit in ("kB", "MB"):
        if value < 999.95:  # else it would print as 1000.0
            return f"{value:.1f} {unit}"
        value /= 1000
    return f"{value:.1f} GB"
