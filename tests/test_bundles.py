"""Page stylesheets: which files go in, in which order, how they are joined and named, and
that two builds of the same sources write the same stylesheets under the same names."""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from urllib.parse import urljoin

import pytest

from blogbuild.commands.build import build
from blogbuild.output import bundles
from blogbuild.output.bundles import bundle_name, join, parts_of
from css_helpers import page_stylesheet, parts, stylesheets

BASIC = Path(__file__).parent / "sites" / "basic"
EVERYTHING = {"css/main.css", "css/pygments.css", "css/callouts.css", "css/math.css",
              "css/video.css", "vendor/katex/katex.min.css", "css/custom.css"}


def test_parts_in_cascade_order() -> None:
    needs = {"video", "math", "code", "callouts", "footnotes"}
    assert parts_of(needs, EVERYTHING) == (
        "css/main.css", "css/pygments.css", "css/callouts.css",
        "vendor/katex/katex.min.css", "css/math.css", "css/video.css", "css/custom.css")
    # Only what the build has: no custom.css, no stylesheet for footnotes.
    assert parts_of({"footnotes"}, {"css/main.css"}) == ("css/main.css",)


def test_theme_parts_follow_main_css(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bundles, "THEME_PARTS", ("css/nav.css", "css/main.css"))
    present = {*EVERYTHING, "css/nav.css"}
    assert parts_of({"code"}, present) == (
        "css/main.css", "css/nav.css", "css/pygments.css", "css/custom.css")  # each once


def test_join_names_each_part_and_keeps_its_bytes() -> None:
    css = join([("css/main.css", b"body { margin: 0 }\n"), ("css/x.css", b"\n\na { b: c }")])
    assert css == b"/* css/main.css */\nbody { margin: 0 }\n/* css/x.css */\na { b: c }\n"


def test_imports_move_to_the_top() -> None:
    """A browser ignores @import after other rules: a part's leading ones go first."""
    custom = (b'/* fonts */\n@charset "utf-8";\n@import url("https://f.example/a.css");\n'
              b"@import 'b.css' screen;\nbody { font-family: A }\n@import 'late.css';\n")
    css = join([("css/main.css", b"p { x: y }\n"), ("css/custom.css", custom)]).decode()
    assert css.startswith('@import url("https://f.example/a.css");\n@import \'b.css\' screen;\n'
                          "/* css/main.css */\n")
    assert css.endswith('/* css/custom.css */\n/* fonts */\n@charset "utf-8";\n\n\n'
                        "body { font-family: A }\n@import 'late.css';\n")  # not a leading one


def test_urls_of_a_part_outside_css_are_rewritten() -> None:
    katex = (b"@font-face{src:url(fonts/KaTeX_Main-Regular.woff2) format(\"woff2\")}"
             b".a{background:url('img/x.png')}.b{background:url(/abs.png)}"
             b".c{background:url(data:image/png;base64,AAAA)}.d{background:url(https://e.x/y)}")
    css = join([("vendor/katex/katex.min.css", katex)]).decode()
    assert "url(../vendor/katex/fonts/KaTeX_Main-Regular.woff2)" in css
    assert "url('../vendor/katex/img/x.png')" in css
    for kept in ("url(/abs.png)", "url(data:image/png;base64,AAAA)", "url(https://e.x/y)"):
        assert kept in css
    own = b".x{background:url(img/y.png)}"
    assert join([("css/custom.css", own)]).endswith(own + b"\n")  # already beside the bundle


def test_the_name_carries_a_hash_of_the_bytes() -> None:
    assert re.fullmatch(r"css/bundle\.[0-9a-f]{12}\.css", bundle_name(b"a"))
    assert bundle_name(b"a") == bundle_name(b"a") != bundle_name(b"b")


# -- in a build ---------------------------------------------------------------------------

@pytest.fixture
def site(tmp_path: Path) -> Path:
    dest = tmp_path / "site"
    shutil.copytree(BASIC, dest, ignore=shutil.ignore_patterns("expected"))
    (dest / "content/posts/2024-06-01-math.md").write_text(
        "---\ntitle: Math\ndate: 2024-06-01\n---\n\n> [!note]\n> $x^2$ and `code`\n\n"
        "```python\nprint(1)\n```\n")
    return dest


def test_a_site_file_replaces_the_theme_file_in_the_stylesheet(site: Path) -> None:
    (site / "static/css").mkdir(parents=True)
    (site / "static/css/callouts.css").write_text(".callout { mine: 1 }\n")
    (site / "static/css/custom.css").write_text(".custom { mine: 2 }\n")
    build(site / "site.yaml")
    out = site / "_site"
    css = page_stylesheet(out, "posts/math/index.html", "/blogs/")
    assert parts(css) == ["css/main.css", "css/nav.css", "css/search.css", "css/pygments.css",
                          "css/callouts.css",
                          "vendor/katex/katex.min.css", "css/math.css", "css/custom.css"]
    assert "/* css/callouts.css */\n.callout { mine: 1 }\n" in css
    assert css.endswith("/* css/custom.css */\n.custom { mine: 2 }\n")
    theme_main = (out / "css/main.css").read_text().strip()
    assert css.startswith("/* css/main.css */\n" + theme_main + "\n")
    home = page_stylesheet(out, "index.html", "/blogs/")
    assert parts(home) == ["css/main.css", "css/nav.css", "css/search.css", "css/custom.css"]
    # Every url() of a stylesheet leads to a file of the output (KaTeX's fonts).
    [href] = stylesheets(out / "posts/math/index.html")
    fonts = re.findall(r"url\(([^)]+\.woff2)\)", css)
    assert len(fonts) >= 20
    for url in fonts:
        assert (out / urljoin(href, url).removeprefix("/blogs/")).is_file(), url


def test_two_builds_write_the_same_stylesheets(site: Path, tmp_path: Path) -> None:
    one = tmp_path / "one"
    build(site / "site.yaml", output=one, use_cache=False)
    moved = tmp_path / "moved"
    shutil.copytree(site, moved)  # other paths, other modification times
    two = tmp_path / "two"
    build(moved / "site.yaml", output=two)

    def sheets(out: Path) -> dict[str, bytes]:
        return {p.name: p.read_bytes() for p in (out / "css").glob("bundle.*.css")}

    assert sheets(one) == sheets(two) and len(sheets(one)) == 3  # plain, code, math
    for page in ("index.html", "posts/math/index.html"):
        assert (one / page).read_bytes() == (two / page).read_bytes()


def test_a_changed_part_changes_the_name(site: Path) -> None:
    build(site / "site.yaml")
    out = site / "_site"
    before = {p: stylesheets(out / p) for p in ("index.html", "posts/math/index.html")}
    (site / "static/css").mkdir(parents=True)
    (site / "static/css/math.css").write_text(".math-display { mine: 1 }\n")
    build(site / "site.yaml")
    assert stylesheets(out / "index.html") == before["index.html"]
    [new] = stylesheets(out / "posts/math/index.html")
    assert [new] != before["posts/math/index.html"]
    assert not (out / before["posts/math/index.html"][0].removeprefix("/blogs/")).exists()
    assert ".math-display { mine: 1 }" in (out / new.removeprefix("/blogs/")).read_text()


def test_a_site_file_at_a_stylesheet_path_is_a_collision(site: Path) -> None:
    from blogbuild.diagnostics import BuildFailed

    build(site / "site.yaml")
    [href] = stylesheets(site / "_site/index.html")
    mine = site / "static" / href.removeprefix("/blogs/")
    mine.parent.mkdir(parents=True)
    mine.write_text("/* mine */\n")
    with pytest.raises(BuildFailed) as failed:
        build(site / "site.yaml")
    message = failed.value.diagnostics[0].format()
    assert "the page stylesheet" in message and "rename or move yours" in message
