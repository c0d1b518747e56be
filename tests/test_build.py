"""Whole builds: the golden site, the pages a blog needs, sub-paths, drafts, atomic output."""

from __future__ import annotations

import os
import re
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path

import html5lib
import pytest

from blogbuild import __version__
from blogbuild.commands.build import build
from blogbuild.diagnostics import BuildFailed

SITES = Path(__file__).parent / "sites"
BASIC = SITES / "basic"
GOLDEN = BASIC / "expected"
GENERATED = (".html", ".xml", ".txt")
UPDATE = os.environ.get("BLOGBUILD_UPDATE_GOLDEN") == "1"


def files_of(root: Path) -> dict[str, Path]:
    return {p.relative_to(root).as_posix(): p for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def basic_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    site = tmp_path_factory.mktemp("basic") / "site"
    shutil.copytree(BASIC, site, ignore=shutil.ignore_patterns("expected"))
    build(site / "site.yaml", use_cache=False)
    return site / "_site"


def versionless(text: str) -> str:
    """`text` with blogbuild's version in the generator tags (HTML, Atom) written VERSION:
    the reviewed copies hold no version, so a release changes none of them."""
    return (text.replace(f'content="blogbuild {__version__}"', 'content="blogbuild VERSION"')
            .replace(f'<generator version="{__version__}">', '<generator version="VERSION">'))


def test_golden_site(basic_site: Path) -> None:
    """Every generated page equals the reviewed copy in tests/sites/basic/expected/, but for
    the version in the generator tags."""
    built = {rel: p for rel, p in files_of(basic_site).items() if rel.endswith(GENERATED)}
    if UPDATE:
        shutil.rmtree(GOLDEN, ignore_errors=True)
        for rel, path in built.items():
            (GOLDEN / rel).parent.mkdir(parents=True, exist_ok=True)
            (GOLDEN / rel).write_text(versionless(path.read_text()))
    expected = files_of(GOLDEN)
    assert sorted(built) == sorted(expected)
    for rel, path in built.items():
        assert versionless(path.read_text()) == expected[rel].read_text(), rel


def test_every_page_is_valid_html5(basic_site: Path) -> None:
    for path in basic_site.rglob("*.html"):
        parser = html5lib.HTMLParser(strict=True)
        parser.parse(path.read_bytes())  # raises on any parse error


def test_assets_sit_beside_their_pages(basic_site: Path) -> None:
    assert (basic_site / "posts/bundled/dot.svg").is_file()  # page bundle
    assert (basic_site / "assets/logo.svg").is_file()
    assert (basic_site / "css/main.css").is_file() and (basic_site / "css/pygments.css").is_file()
    bundled = (basic_site / "posts/bundled/index.html").read_text()
    assert 'src="/blogs/posts/bundled/dot.svg"' in bundled


def test_post_page_has_metadata_and_subpath_links(basic_site: Path) -> None:
    page = (basic_site / "posts/first/index.html").read_text()
    assert "<title>First post · Test Blog</title>" in page
    assert '<meta name="description" content="The first one.">' in page
    assert '<link rel="canonical" href="https://user.github.io/blogs/posts/first/">' in page
    assert '<time datetime="2024-01-05">January 5, 2024</time>' in page
    assert '<a class="tag" href="/blogs/tags/machine-learning/" rel="tag">Machine Learning</a>' \
        in page
    assert 'href="/blogs/posts/second/#details"' in page  # link to a .md source file
    assert '<img src="/blogs/assets/logo.svg" alt="Logo" />' in page
    assert re.search(r'<link rel="stylesheet" href="/blogs/css/bundle\.[0-9a-f]{12}\.css">', page)


def test_title_and_subtitle_from_the_body(basic_site: Path) -> None:
    page = (basic_site / "posts/second/index.html").read_text()
    assert '<h1 class="post-title">Second post</h1>' in page
    assert page.count("Second post</h1>") == 1
    assert '<p class="post-subtitle">A subtitle from italics.</p>' in page
    assert '<meta name="description" content="A subtitle from italics.">' in page


def test_index_is_paginated_newest_first(basic_site: Path) -> None:
    first = (basic_site / "index.html").read_text()
    second = (basic_site / "page/2/index.html").read_text()
    assert first.index("A page bundle") < first.index("Second post")
    assert "First post" not in first and "First post" in second
    assert 'href="/blogs/page/2/"' in first


def test_drafts_are_skipped_by_build(basic_site: Path) -> None:
    assert not (basic_site / "posts/draft").exists()
    assert "Unfinished" not in (basic_site / "feed.xml").read_text()


def test_drafts_option(tmp_path: Path) -> None:
    site = tmp_path / "site"
    shutil.copytree(BASIC, site, ignore=shutil.ignore_patterns("expected"))
    build(site / "site.yaml", drafts=True)
    assert (site / "_site/posts/draft/index.html").is_file()


def test_feeds_are_atom(basic_site: Path) -> None:
    ns = {"a": "http://www.w3.org/2005/Atom"}
    feed = ET.parse(basic_site / "feed.xml").getroot()
    ids = [e.findtext("a:id", namespaces=ns) for e in feed.findall("a:entry", ns)]
    assert ids == [
        "https://user.github.io/blogs/posts/bundled/",
        "https://user.github.io/blogs/posts/second/",
        "https://user.github.io/blogs/posts/first/",
    ]
    tag_feed = ET.parse(basic_site / "tags/python/feed.xml").getroot()
    assert len(tag_feed.findall("a:entry", ns)) == 2
    content = feed.find("a:entry/a:content", ns)
    assert content is not None and content.get("type") == "html"


def test_sitemap_and_robots(basic_site: Path) -> None:
    ns = {"s": "http://www.sitemaps.org/schemas/sitemap/0.9"}
    locs = [e.text for e in ET.parse(basic_site / "sitemap.xml").getroot().iterfind("s:url/s:loc",
                                                                                   ns)]
    assert "https://user.github.io/blogs/posts/first/" in locs
    assert "https://user.github.io/blogs/about/" in locs
    assert "Sitemap: https://user.github.io/blogs/sitemap.xml" in (
        basic_site / "robots.txt").read_text()


def test_tag_pages_archive_and_404(basic_site: Path) -> None:
    tags = (basic_site / "tags/index.html").read_text()
    assert 'href="/blogs/tags/python/"' in tags and 'href="/blogs/tags/testing/"' in tags
    archive = (basic_site / "archive/index.html").read_text()
    assert '<h2 id="year-2024">2024</h2>' in archive
    not_found = (basic_site / "404.html").read_text()
    assert 'href="/blogs/"' in not_found


def test_tags_of_emoji_or_symbols_alone_get_a_page_each(tmp_path: Path) -> None:
    site = tmp_path / "site"
    (site / "content/posts").mkdir(parents=True)
    (site / "site.yaml").write_text("title: T\nbase_url: https://example.org/\n")
    for name, tags in (("a", '["🚀", "python"]'), ("b", '["🎉"]'), ("c", '["!!!", "🚀"]')):
        (site / f"content/posts/2024-01-0{'abc'.index(name) + 1}-{name}.md").write_text(
            f"---\ntitle: Post {name}\ntags: {tags}\n---\n\nBody.\n")
    build(site / "site.yaml")
    out = site / "_site"
    pages = {"u1f680": ("🚀", ["/posts/c/", "/posts/a/"]), "u1f389": ("🎉", ["/posts/b/"]),
             "u21-21-21": ("!!!", ["/posts/c/"]), "python": ("python", ["/posts/a/"])}
    for slug, (name, posts) in pages.items():
        document = html5lib.parse((out / f"tags/{slug}/index.html").read_bytes(),
                                  namespaceHTMLElements=False)
        assert document.find(".//h1").text == f"Posts tagged “{name}”"
        listed = [a.get("href") for a in document.iter("a") if a.get("href", "").startswith(
            "/posts/") and a.get("href").count("/") == 3]
        assert list(dict.fromkeys(listed)) == posts, slug
    index = html5lib.parse((out / "tags/index.html").read_bytes(), namespaceHTMLElements=False)
    shown = {a.get("href"): "".join(a.itertext()) for a in index.iter("a")
             if a.get("href", "").startswith("/tags/") and a.get("href") != "/tags/"}
    assert {href: text.split()[0] for href, text in shown.items()} == {
        f"/tags/{slug}/": name for slug, (name, _) in pages.items()}
    assert not (out / "tags/tag").exists()


def test_same_inputs_same_bytes(tmp_path: Path, basic_site: Path) -> None:
    site = tmp_path / "site"
    shutil.copytree(BASIC, site, ignore=shutil.ignore_patterns("expected"))
    build(site / "site.yaml", use_cache=False)
    again = files_of(site / "_site")
    first = files_of(basic_site)
    assert sorted(again) == sorted(first)
    for rel in first:
        assert again[rel].read_bytes() == first[rel].read_bytes(), rel


def test_cache_reuses_unchanged_posts(tmp_path: Path) -> None:
    site = tmp_path / "site"
    shutil.copytree(BASIC, site, ignore=shutil.ignore_patterns("expected"))
    cold = build(site / "site.yaml")
    warm = build(site / "site.yaml")
    assert cold.rendered == 5 and cold.cached == 0
    assert warm.rendered == 0 and warm.cached == 5
    post = site / "content/posts/2024-01-05-first.md"
    post.write_text(post.read_text().replace("Hello from", "Hi from"))
    edited = build(site / "site.yaml")
    assert (edited.rendered, edited.cached) == (1, 4)
    assert "Hi from the first post" in (site / "_site/posts/first/index.html").read_text()


def test_cache_survives_moving_the_site_folder(tmp_path: Path) -> None:
    """A CI runner restores the cache into another checkout: the renders still count."""
    site = tmp_path / "site"
    shutil.copytree(BASIC, site, ignore=shutil.ignore_patterns("expected"))
    build(site / "site.yaml")
    first = (site / "_site/posts/first/index.html").read_bytes()
    moved = tmp_path / "elsewhere" / "blog"
    shutil.copytree(site, moved, ignore=shutil.ignore_patterns("_site"))
    post = moved / "content/posts/2024-01-05-first.md"
    report = build(moved / "site.yaml")
    assert (report.rendered, report.cached) == (0, 5)
    assert (moved / "_site/posts/first/index.html").read_bytes() == first
    post.write_text(post.read_text().replace("Hello from", "Hi from"))
    assert build(moved / "site.yaml").rendered == 1


def test_cache_key_covers_code_and_library_versions(monkeypatch: pytest.MonkeyPatch,
                                                    tmp_path: Path) -> None:
    import sys
    from importlib import metadata

    from blogbuild import fingerprints as render
    from blogbuild.config import Config

    assert render.versions_of(render.RENDER_LIBRARIES) == {
        name: metadata.version(name) for name in render.RENDER_LIBRARIES}
    before = render.digest_of(b"# post", Config())
    (tmp_path / "pygments-99.0.dist-info").mkdir()  # an upgrade, first on the import path
    monkeypatch.setattr(sys, "path", [str(tmp_path), *sys.path])
    render.code_fingerprint.cache_clear()
    try:
        assert render.digest_of(b"# post", Config()) != before  # a Pygments upgrade
    finally:
        monkeypatch.undo()
        render.code_fingerprint.cache_clear()
    assert render.digest_of(b"# post", Config()) == before
    monkeypatch.setattr(render, "__version__", "0.0.0-other")
    render.code_fingerprint.cache_clear()
    try:
        assert render.digest_of(b"# post", Config()) != before  # another blogbuild
    finally:
        monkeypatch.undo()
        render.code_fingerprint.cache_clear()


def test_cache_key_covers_javascript_but_not_vendored_runtimes() -> None:
    """KaTeX's entry points are JavaScript: an edit there must render again. The vendored
    runtimes are named by their VERSION files instead of hashed on every build."""
    from blogbuild import fingerprints

    names = {path.relative_to(fingerprints.PACKAGE).as_posix()
             for path in fingerprints._code_files()}
    assert {"runtimes/katex_render.js", "runtimes/katex.py", "fingerprints.py"} <= names
    assert not any(name.startswith("vendor/") for name in names)
    assert not any("__pycache__" in name for name in names)


def test_failed_build_leaves_previous_output(tmp_path: Path) -> None:
    site = tmp_path / "site"
    shutil.copytree(BASIC, site, ignore=shutil.ignore_patterns("expected"))
    build(site / "site.yaml")
    before = files_of(site / "_site")
    (site / "content/posts/broken.md").write_text("---\ntitle: [unclosed\n---\n")
    with pytest.raises(BuildFailed) as info:
        build(site / "site.yaml")
    assert info.value.diagnostics[0].file == "content/posts/broken.md"
    after = files_of(site / "_site")
    assert sorted(after) == sorted(before)
    leftovers = [p.name for p in site.iterdir() if p.name.startswith("._site.tmp")]
    assert leftovers == []


def test_site_templates_and_static_override_the_theme(tmp_path: Path) -> None:
    site = tmp_path / "site"
    shutil.copytree(BASIC, site, ignore=shutil.ignore_patterns("expected"))
    (site / "templates/partials").mkdir(parents=True)
    (site / "templates/partials/footer.html").write_text("<footer>custom footer</footer>\n")
    (site / "static/css").mkdir(parents=True)
    (site / "static/css/main.css").write_text("/* mine */\n")
    (site / "static/extra.txt").write_text("extra\n")
    build(site / "site.yaml")
    out = site / "_site"
    assert "<footer>custom footer</footer>" in (out / "index.html").read_text()
    assert (out / "css/main.css").read_text() == "/* mine */\n"
    assert (out / "extra.txt").is_file()
    assert (out / "css/pygments.css").is_file()  # the rest of the theme is still there


def test_permalink_with_date(tmp_path: Path) -> None:
    site = tmp_path / "site"
    shutil.copytree(BASIC, site, ignore=shutil.ignore_patterns("expected"))
    yaml = site / "site.yaml"
    yaml.write_text(yaml.read_text() + "permalink: /{year}/{month}/{slug}/\n")
    build(yaml)
    assert (site / "_site/2024/01/first/index.html").is_file()
    about = (site / "_site/about/index.html").read_text()
    assert 'href="/blogs/2024/01/first/"' in about


def test_site_at_the_domain_root(tmp_path: Path) -> None:
    site = tmp_path / "site"
    shutil.copytree(BASIC, site, ignore=shutil.ignore_patterns("expected"))
    build(site / "site.yaml", base_url="https://example.org/")
    page = (site / "_site/posts/first/index.html").read_text()
    assert 'href="/tags/python/"' in page and "/blogs/" not in page


def test_the_code_fingerprint_is_recalled_while_the_code_files_keep_their_stats(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A build with nothing to do takes the code's fingerprint from a note in the cache
    instead of reading every file of blogbuild, as long as none of them changed since."""
    import os as _os

    from blogbuild import fingerprints

    package = tmp_path / "package"
    package.mkdir()
    old = 1_600_000_000_000_000_000
    for name in ("a.py", "b.js"):
        (package / name).write_text(name)
        _os.utime(package / name, ns=(old, old))
    monkeypatch.setattr(fingerprints, "PACKAGE", package)
    monkeypatch.setattr(fingerprints, "_RECALLED", [])
    monkeypatch.setattr(fingerprints, "_HASHED", [])
    note = tmp_path / "cache" / "code-fingerprint.pickle"
    hashed: list[str] = []
    real = fingerprints._hashed
    monkeypatch.setattr(fingerprints, "_hashed",
                        lambda versions: hashed.append(versions) or real(versions))

    def recalled() -> str:
        fingerprints.recall_code_fingerprint(note)
        fingerprints.code_fingerprint.cache_clear()
        return fingerprints.code_fingerprint()

    first = recalled()
    assert note.is_file() and len(hashed) == 1
    assert recalled() == first and len(hashed) == 1  # from the note
    (package / "a.py").write_text("another a.py")  # changed, and just now (racy too)
    second = recalled()
    assert second != first and len(hashed) == 2
    assert recalled() == second and len(hashed) == 3  # too recent to trust its stat yet
    _os.utime(package / "a.py", ns=(old, old))
    note.unlink()
    assert recalled() == second and len(hashed) == 4
    assert recalled() == second and len(hashed) == 4
    note = tmp_path / "another-cache" / "code-fingerprint.pickle"  # another site's
    assert recalled() == second and len(hashed) == 4  # what this process worked out
    assert note.is_file()
    (package / "b.js").write_text("another b.js")
    _os.utime(package / "b.js", ns=(old, old))
    note.unlink()
    assert recalled() != second and len(hashed) == 5
    monkeypatch.setattr(fingerprints, "__version__", "0.0.0-other")
    assert recalled() != second and len(hashed) == 6  # another blogbuild
    fingerprints.code_fingerprint.cache_clear()
