"""The build summary: pages by kind, output size, page weight (HTML + what the page loads)."""

from __future__ import annotations

import re
import shutil
from html.parser import HTMLParser
from io import StringIO
from pathlib import Path
from urllib.parse import urljoin, urlsplit

import pytest

from blogbuild.commands.build import BuildReport, build
from blogbuild.commands.summary import (
    PageWeight,
    Summary,
    human_bytes,
    kind_of,
    page_weight,
    summarize,
    summary_lines,
)
from blogbuild.diagnostics import warning
from blogbuild.progress import TerminalBar
from css_helpers import stylesheets
from image_helpers import tiny_png

BASIC = Path(__file__).parent / "sites" / "basic"
PNG = tiny_png()  # a real picture: the image stage reads it
MATH_POST = """\
---
title: "Heavy"
date: 2024-05-01
tags: [python]
---

Euler: $e^{i\\pi} + 1 = 0$.

```python
print("code")
```

![A dot](/assets/dot.png)

<div class="runnable" data-lang="python" markdown="1">

```python
print(1 + 1)
```

</div>
"""


def all_files(folder: Path) -> dict[str, int]:
    return {p.relative_to(folder).as_posix(): p.stat().st_size
            for p in folder.rglob("*") if p.is_file()}


@pytest.fixture(scope="module")
def heavy_site(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, BuildReport]:
    """The basic site plus a post with math, code, a PNG and a Run button, built once."""
    site = tmp_path_factory.mktemp("heavy") / "site"
    shutil.copytree(BASIC, site, ignore=shutil.ignore_patterns("expected"))
    (site / "content/assets/dot.png").write_bytes(PNG)
    (site / "content/posts/2024-05-01-heavy.md").write_text(MATH_POST)
    report = build(site / "site.yaml", output=site / "_site", use_cache=False)
    return site / "_site", report


def test_pages_by_kind_and_output_size(heavy_site: tuple[Path, BuildReport]) -> None:
    out, report = heavy_site
    summary = summarize(out, report.written, report.base_url)
    tag_dirs = [p for p in (out / "tags").iterdir() if (p / "index.html").is_file()]
    assert summary.kinds == {
        "post": len([p for p in (out / "posts").iterdir() if p.is_dir()]),  # 4
        "page": 1,  # about
        "tag": len(tag_dirs),
        "list": 2 + 1 + 1,  # 4 posts at 2 a page, /tags/, /archive/
        "feed": 1 + len(tag_dirs),
        "other": 3,  # 404.html, sitemap.xml, robots.txt
    }
    assert summary.kinds["post"] == 4 and summary.kinds["tag"] == 3
    files = all_files(out)
    assert summary.output_files == len(files)
    assert summary.output_bytes == sum(files.values())


def test_the_heaviest_page_is_the_one_with_math_and_an_image(
    heavy_site: tuple[Path, BuildReport],
) -> None:
    out, report = heavy_site
    summary = summarize(out, report.written, report.base_url)
    assert len(summary.heaviest) == 5
    top = summary.heaviest[0]
    assert top.path == "posts/heavy/index.html" and top.url == "/blogs/posts/heavy/"
    assert [w.total for w in summary.heaviest] == sorted(
        (w.total for w in summary.heaviest), reverse=True)
    weights = [page_weight(out, path, report.base_url).total
               for path in report.written if path.endswith(".html")]
    assert summary.heaviest[4].total == sorted(weights, reverse=True)[4]


def test_page_weight_of_a_built_page_is_an_exact_sum_of_its_files(
    heavy_site: tuple[Path, BuildReport],
) -> None:
    out, report = heavy_site
    files = all_files(out)
    fonts = sorted(f for f in files if f.startswith("vendor/katex/fonts/"))
    assert fonts and all(f.endswith(".woff2") for f in fonts)  # the first format of each face
    [sheet] = stylesheets(out / "posts/heavy/index.html")
    loaded = [sheet.removeprefix("/blogs/"), "js/copy.js", "js/runnable.js", "js/search.js",
              "js/widgets.js",
              "assets/dot.png",
              *fonts]  # the stylesheet has KaTeX's, which names every font
    weight = page_weight(out, "posts/heavy/index.html", report.base_url)
    html = files["posts/heavy/index.html"]
    assert weight.html == html
    assert weight.total == html + sum(files[f] for f in loaded)
    # The Python runtime is in the output but only fetched on Run: not part of the weight.
    assert "vendor/pyodide/pyodide.mjs" in files


class _Loads(HTMLParser):
    """A second, independent reading of a page with the standard library's HTML parser."""

    def __init__(self) -> None:
        super().__init__()
        self.urls: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if tag == "link" and "stylesheet" in a.get("rel", "").split():
            self.urls.append(a["href"])
        elif tag in ("script", "img") and a.get("src"):
            self.urls.append(a["src"])
        elif tag == "script" and a.get("data-widget-script"):  # imported when a widget is near
            self.urls.append(a["data-widget-script"])


def _reference_weight(out: Path, path: str, base_path: str) -> int:
    parser = _Loads()
    data = (out / path).read_bytes()
    parser.feed(data.decode())
    found: set[str] = set()
    for url in parser.urls:
        target = urlsplit(urljoin(base_path + path, url)).path
        if not target.startswith(base_path) or not (out / target[len(base_path):]).is_file():
            continue
        rel = target[len(base_path):]
        found.add(rel)
        if rel.endswith(".css"):
            css = (out / rel).read_text()
            for first in re.findall(r"@font-face\{[^}]*?url\(([^)]*)\)", css):
                found.add(urlsplit(urljoin(rel, first)).path)
        if rel.endswith(".js"):
            for dep in re.findall(r'from "(\./[^"]+)"', (out / rel).read_text()):
                found.add(urljoin(rel, dep))
    return len(data) + sum((out / f).stat().st_size for f in found)


def test_every_page_agrees_with_an_html_parser(heavy_site: tuple[Path, BuildReport]) -> None:
    out, report = heavy_site
    pages = [p for p in report.written if p.endswith(".html")]
    assert len(pages) == 13
    for path in pages:
        assert page_weight(out, path, report.base_url).total == \
            _reference_weight(out, path, "/blogs/"), path


def _write(folder: Path, rel: str, size: int, text: str = "") -> int:
    target = folder / rel
    target.parent.mkdir(parents=True, exist_ok=True)
    data = text.encode()
    assert len(data) <= size
    target.write_bytes(data + b"/" * (size - len(data)))
    return size


def test_page_weight_counts_exactly_what_the_page_loads(tmp_path: Path) -> None:
    out = tmp_path / "out"
    counted = [
        _write(out, "css/site.css", 600, '@import url("more.css");\n'
               "/* @font-face{src:url(../fonts/commented.woff2)} */\n"
               '@font-face{font-family:A;src:local("A"),url(../fonts/a.woff2) format("woff2"),'
               'url(../fonts/a.woff) format("woff")}\n'
               ".hero{background:url(../img/bg.png)}\n"),
        _write(out, "css/more.css", 200, '@font-face{font-family:B;src:url("/s/fonts/b.ttf")}'),
        _write(out, "fonts/a.woff2", 1_000),
        _write(out, "fonts/b.ttf", 2_000),
        _write(out, "js/app.js", 400, 'import { x } from "./dep.js";\nimport("./lazy.js");\n'),
        _write(out, "js/dep.js", 50, 'export * from "../js/app.js";\n'),  # a cycle ends
        _write(out, "js/classic.js", 70),
        _write(out, "img/photo-2x.png", 8_000),
        _write(out, "posts/p/poster.jpg", 900),
        _write(out, "posts/p/local.png", 600),
        _write(out, "img/a&b.png", 30),
    ]
    for rel, size in [("fonts/a.woff", 1_500), ("img/bg.png", 5_000),  # in the output, but
                      ("fonts/commented.woff2", 100), ("js/lazy.js", 3_000),  # not loaded
                      ("img/photo.png", 4_000), ("img/hidden.png", 7_000),  # to show the page
                      ("favicon.svg", 90), ("vendor/big.wasm", 9_000)]:
        _write(out, rel, size)
    page = (
        "<!DOCTYPE html><html><head>\n"
        '<link rel="icon" href="/s/favicon.svg">\n'
        '<link rel="stylesheet" href="/s/css/site.css?v=1">\n'
        "<link rel='stylesheet' href='https://cdn.example.com/x.css'>\n"
        '<link rel="stylesheet" href="https://example.org/s/css/more.css">\n'
        '<script type="module" src="/s/js/app.js"></script>\n'
        '<script src="/s/js/classic.js" defer></script>\n'
        "</head><body>\n"
        '<img src="/s/img/photo.png" srcset="/s/img/photo.png 1x, /s/img/photo-2x.png 2x" alt="">\n'
        '<video poster="poster.jpg" preload="none"><source src="/s/vendor/big.wasm"></video>\n'
        '<img src="local.png"><img src="./local.png"><img src="data:image/png;base64,AAAA">\n'
        '<img src="/s/img/a&amp;b.png"><img src="/s/img/missing.png">\n'
        '<!-- <img src="/s/img/hidden.png"> -->\n'
        "<pre><code>&lt;img src=&quot;/s/img/hidden.png&quot;&gt;</code></pre>\n"
        '<a href="/s/vendor/big.wasm">download</a>\n'
        "</body></html>\n"
    )
    (out / "posts/p/index.html").write_text(page)
    weight = page_weight(out, "posts/p/index.html", "https://example.org/s/")
    html = len(page.encode())
    assert weight == PageWeight("posts/p/index.html", "/s/posts/p/", html, html + sum(counted))


def test_kinds_come_from_templates() -> None:
    assert [kind_of(t) for t in ("post.html", "page.html", "tag.html", "index.html",
                                 "tags.html", "archive.html", "feed.xml", "sitemap.xml",
                                 "404.html", "robots.txt")] == [
        "post", "page", "tag", "list", "list", "list", "feed", "other", "other", "other"]


def test_human_bytes() -> None:
    assert [human_bytes(n) for n in (0, 999, 1000, 18_400, 999_949, 999_950, 18_400_000,
                                     3_200_000_000)] == [
        "0 B", "999 B", "1.0 kB", "18.4 kB", "999.9 kB", "1.0 MB", "18.4 MB", "3.2 GB"]


def test_summary_lines() -> None:
    report = BuildReport(output=Path("/x/_site"), seconds=2.314, rendered=10, cached=2,
                         diagnostics=[warning("content/a.md", 3, "w")])
    summary = Summary(
        kinds={"post": 12, "page": 1, "tag": 9, "list": 4, "feed": 10, "other": 3},
        output_bytes=18_400_000, output_files=1_234,
        heaviest=[PageWeight("posts/a/index.html", "/posts/attention/", 38_100, 412_300),
                  PageWeight("index.html", "/", 9_000, 99_000)],
    )
    assert summary_lines(report, summary, "_site/") == [
        "built 12 posts, 1 page, 9 tag pages, 4 list pages, 10 feeds and 3 other files "
        "in 2.31 s (10 rendered, 2 cached)",
        "0 errors, 1 warning · output 18.4 MB in 1,234 files → _site/",
        "heaviest pages (HTML + the CSS, JS, fonts and images it loads; "
        "fonts as its stylesheets declare them):",
        "  412.3 kB  /posts/attention/  (HTML 38.1 kB)",
        "   99.0 kB  /                  (HTML 9.0 kB)",
    ]


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_bar_waits_for_the_delay_then_redraws_at_most_ten_times_a_second() -> None:
    clock, stream = Clock(), StringIO()
    bar = TerminalBar(stream, delay=1.0, interval=0.1, clock=clock, width=60)
    for done in range(1, 50):
        bar("rendering posts", done, 100)
        clock.now += 0.01  # 0.49 s in all: a fast build
    assert stream.getvalue() == ""
    bar.close()
    assert stream.getvalue() == ""  # nothing drawn, nothing to erase
    clock.now += 0.6
    for done in range(50, 101):
        bar("rendering posts", done, 100)
        clock.now += 0.01
    frames = stream.getvalue().count("\r")
    assert 5 <= frames <= 8  # 0.5 s at most every 0.1 s, plus the final 100/100
    assert stream.getvalue().endswith(
        "\rrendering posts  [" + "#" * 30 + "]  100/100\x1b[K")
    bar("writing pages", 0, 0)  # within 0.1 s of the last frame: skipped
    assert stream.getvalue().count("\r") == frames
    bar.close()
    assert stream.getvalue().endswith("\r\x1b[K")


def test_bar_line_fits_the_terminal() -> None:
    bar = TerminalBar(StringIO(), width=30)
    assert bar.line("writing pages", 5, 10) == "writing pages  [##---]  5/10"
    assert len(bar.line("writing pages", 5, 10)) <= 30
    assert TerminalBar(StringIO(), width=20).line("writing pages", 5, 10) == "writing pages 5/10"
    assert bar.line("copying files", 0, 0) == "copying files"


def test_no_files_means_no_pages(tmp_path: Path) -> None:
    (tmp_path / "out").mkdir()
    summary = summarize(tmp_path / "out", {}, "http://localhost/")
    assert summary == Summary(kinds={}, output_bytes=0, output_files=0, heaviest=[])


def test_the_summary_reads_again_only_the_pages_that_changed(
    heavy_site: tuple[Path, BuildReport], tmp_path: Path,
) -> None:
    """With a cache, a page whose file has its size, time and inode of last time is
    weighed from the tags kept for it; a rewritten page is read again."""
    from blogbuild.commands.page_tags import PageTags

    out, report = heavy_site
    copy = tmp_path / "out"
    shutil.copytree(out, copy)
    cache = tmp_path / "cache"
    plain = summarize(copy, report.written, report.base_url)
    assert summarize(copy, report.written, report.base_url, cache=cache) == plain
    assert PageTags.load(cache, copy).known  # kept for the next summary
    assert summarize(copy, report.written, report.base_url, cache=cache) == plain
    page = copy / "posts/heavy/index.html"
    page.write_bytes(page.read_bytes().replace(b'<img src="', b'<img src="x', 1))
    fresh = summarize(copy, report.written, report.base_url)
    assert fresh != plain
    assert summarize(copy, report.written, report.base_url, cache=cache) == fresh
    known = PageTags.load(cache, copy)
    assert known.get("posts/heavy/index.html", (0, 0)) is None


def test_the_files_a_build_knows_are_those_of_the_output(
    heavy_site: tuple[Path, BuildReport],
) -> None:
    """The summary takes sizes and times from the report instead of walking the folder:
    they must be exactly what is there."""
    out, report = heavy_site
    assert report.outputs is not None
    assert set(report.outputs) == set(all_files(out))
    assert {rel: size for rel, (size, _) in report.outputs.items()} == all_files(out)
    assert summarize(out, report.written, report.base_url, files=report.outputs) == \
        summarize(out, report.written, report.base_url)


def test_an_incremental_build_knows_its_files_too(tmp_path: Path) -> None:
    site = tmp_path / "site"
    shutil.copytree(BASIC, site, ignore=shutil.ignore_patterns("expected"))
    build(site / "site.yaml")
    post = next((site / "content/posts").glob("*.md"))
    post.write_text(post.read_text() + "\nOne more line.\n")
    for report in (build(site / "site.yaml"), build(site / "site.yaml")):  # edit, no change
        out = site / "_site"
        assert report.outputs is not None
        assert {rel: size for rel, (size, _) in report.outputs.items()} == all_files(out)
        assert {rel: t for rel, (_, t) in report.outputs.items()} == {
            p.relative_to(out).as_posix(): p.stat().st_mtime_ns
            for p in out.rglob("*") if p.is_file()}
