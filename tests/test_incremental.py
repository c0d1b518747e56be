"""Incremental builds: after each kind of change, exactly the right sources are rendered and
the right pages templated, and the output is what a clean build writes.

"Right" is checked two ways for every scenario: every page whose bytes differ from the last
build was templated (and what a test names as left alone was), and the whole output folder
equals that of a build from scratch. The files written are exactly those whose bytes
changed.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from blogbuild import fingerprints
from blogbuild.commands.build import BuildReport, build
from css_helpers import page_stylesheet, parts, stylesheets

#: (date, tags) of the posts p1 … p6; two posts per list page, two entries per feed.
POSTS = {
    "p1": ("2024-01-01", ["a"]),
    "p2": ("2024-01-02", ["a", "b"]),
    "p3": ("2024-01-03", ["b"]),
    "p4": ("2024-01-04", ["a"]),
    "p5": ("2024-01-05", ["b"]),
    "p6": ("2024-01-06", ["c"]),
}
SITE_YAML = ('title: "Incremental"\nbase_url: "https://example.org/"\nposts_per_page: 2\n'
             "feed_entries: 2\n")


def post_text(name: str, date: str, tags: list[str], body: str = "") -> str:
    return (f"---\ntitle: Post {name}\ndate: {date}\ntags: [{', '.join(tags)}]\n---\n\n"
            f"The summary of {name}.\n\n## A section\n\n{body or 'More words.'}\n")


@pytest.fixture
def site(tmp_path: Path) -> Path:
    root = tmp_path / "site"
    (root / "content" / "posts").mkdir(parents=True)
    (root / "static" / "css").mkdir(parents=True)
    (root / "site.yaml").write_text(SITE_YAML)
    for name, (date, tags) in POSTS.items():
        (root / "content" / "posts" / f"{date}-{name}.md").write_text(post_text(name, date, tags))
    (root / "content" / "about.md").write_text("---\ntitle: About\n---\n\nAbout us.\n")
    (root / "static" / "css" / "custom.css").write_text("body { margin: 0; }\n")
    build(root / "site.yaml")
    return root


def tree(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes()
            for p in folder.rglob("*") if p.is_file()}


def rebuild(site: Path, change: Callable[[], None], tmp_path: Path) -> BuildReport:
    """Apply `change`, build, and check the two properties of the module's docstring."""
    before = tree(site / "_site")
    change()
    report = build(site / "site.yaml")
    after = tree(site / "_site")
    differ = {rel for rel in after.keys() & before.keys() if after[rel] != before[rel]}
    pages = set(report.written)
    assert report.templated >= (differ | (after.keys() - before.keys())) & pages
    assert report.changed == differ | (after.keys() - before.keys())
    assert report.removed == before.keys() - after.keys()
    assert after == tree(build_clean(site, tmp_path))
    return report


def build_clean(site: Path, tmp_path: Path) -> Path:
    clean = tmp_path / "clean"
    shutil.rmtree(clean, ignore_errors=True)
    build(site / "site.yaml", output=clean, use_cache=False)
    return clean


def edit(path: Path, old: str, new: str) -> Callable[[], None]:
    def change() -> None:
        text = path.read_text()
        assert old in text
        path.write_text(text.replace(old, new))
    return change


def posts(site: Path, name: str) -> Path:
    return site / "content" / "posts" / f"{POSTS[name][0]}-{name}.md"


def test_nothing_changed(site: Path, tmp_path: Path) -> None:
    report = rebuild(site, lambda: None, tmp_path)
    assert (report.rendered, report.templated, report.changed) == (0, set(), set())
    assert report.cached == len(POSTS) + 1 and report.seconds > 0  # the summary says so


def test_the_body_of_a_post_no_feed_lists(site: Path, tmp_path: Path) -> None:
    report = rebuild(site, edit(posts(site, "p1"), "More words.", "Other words."), tmp_path)
    assert report.rendered == 1
    assert report.templated == {"posts/p1/index.html"}


def test_the_body_of_a_post_in_feeds(site: Path, tmp_path: Path) -> None:
    report = rebuild(site, edit(posts(site, "p6"), "More words.", "Other words."), tmp_path)
    assert report.rendered == 1
    assert report.templated == {"posts/p6/index.html", "feed.xml", "tags/c/feed.xml"}


def test_a_summary_shows_in_the_lists(site: Path, tmp_path: Path) -> None:
    report = rebuild(site, edit(posts(site, "p3"), "The summary of p3.", "New start."),
                     tmp_path)
    assert report.rendered == 1
    assert {"posts/p3/index.html", "page/2/index.html", "tags/b/index.html",
            "tags/b/feed.xml"} <= report.templated
    assert "posts/p1/index.html" not in report.templated


def test_a_title(site: Path, tmp_path: Path) -> None:
    report = rebuild(site, edit(posts(site, "p3"), "title: Post p3", "title: Renamed"),
                     tmp_path)
    assert report.rendered == 1
    # Its page, its neighbours (their prev/next links), its list page, its tag, the archive.
    assert {"posts/p3/index.html", "posts/p2/index.html", "posts/p4/index.html",
            "page/2/index.html", "tags/b/index.html", "archive/index.html"} <= report.templated
    assert "posts/p1/index.html" not in report.templated
    assert "tags/a/index.html" not in report.templated


def test_a_date_that_reorders(site: Path, tmp_path: Path) -> None:
    report = rebuild(site, edit(posts(site, "p1"), "date: 2024-01-01", "date: 2024-02-01"),
                     tmp_path)
    assert report.rendered == 1
    assert {"index.html", "page/2/index.html", "page/3/index.html", "feed.xml",
            "posts/p1/index.html", "posts/p6/index.html"} <= report.templated


def test_tags(site: Path, tmp_path: Path) -> None:
    report = rebuild(site, edit(posts(site, "p3"), "tags: [b]", "tags: [c, d]"), tmp_path)
    assert report.rendered == 1
    assert {"tags/b/index.html", "tags/c/index.html", "tags/d/index.html",
            "tags/d/feed.xml", "tags/index.html"} <= report.templated
    assert "tags/a/index.html" not in report.templated


def test_a_new_post(site: Path, tmp_path: Path) -> None:
    new = site / "content" / "posts" / "2024-01-07-p7.md"
    report = rebuild(site, lambda: new.write_text(post_text("p7", "2024-01-07", ["a"])),
                     tmp_path)
    assert report.rendered == 1
    assert {"posts/p7/index.html", "posts/p6/index.html", "index.html",
            "feed.xml", "tags/a/index.html"} <= report.templated


def test_a_deleted_post(site: Path, tmp_path: Path) -> None:
    report = rebuild(site, posts(site, "p6").unlink, tmp_path)
    assert report.rendered == 0
    assert "posts/p6/index.html" in report.removed
    assert "tags/c/index.html" in report.removed  # its only tag is gone
    assert {"posts/p5/index.html", "index.html", "feed.xml"} <= report.templated


def test_a_template_rewrites_the_pages_that_use_it(site: Path, tmp_path: Path) -> None:
    def change() -> None:
        (site / "templates").mkdir()
        (site / "templates" / "tag.html").write_text(
            '{% extends "theme/tag.html" %}{% block title %}Tagged {{ tag.name }}'
            "{% endblock %}")
    report = rebuild(site, change, tmp_path)
    assert report.rendered == 0
    assert report.templated == {f"tags/{t}/index.html" for t in "abc"}


def test_a_partial_rewrites_every_page_that_includes_it(site: Path, tmp_path: Path) -> None:
    def change() -> None:
        (site / "templates" / "partials").mkdir(parents=True)
        (site / "templates" / "partials" / "footer.html").write_text("<footer>F</footer>\n")
    report = rebuild(site, change, tmp_path)
    html = {rel for rel, t in report.written.items() if t.endswith(".html")}
    assert report.rendered == 0 and report.templated == html


def test_site_yaml(site: Path, tmp_path: Path) -> None:
    report = rebuild(site, edit(site / "site.yaml", "Incremental", "Renamed blog"), tmp_path)
    assert report.rendered == 0  # the title is not a render option
    assert "posts/p1/index.html" in report.templated and "feed.xml" in report.templated
    report = rebuild(site, edit(site / "site.yaml", "posts_per_page: 2", "posts_per_page: 3"),
                     tmp_path)
    assert report.rendered == 0
    assert "posts/p1/index.html" not in report.templated
    assert "page/3/index.html" in report.removed


def test_a_static_file(site: Path, tmp_path: Path) -> None:
    (site / "static" / "notes.txt").write_text("one\n")
    build(site / "site.yaml")
    report = rebuild(site, edit(site / "static" / "notes.txt", "one", "two"), tmp_path)
    assert (report.rendered, report.templated) == (0, set())
    assert report.changed == {"notes.txt"}


def html_pages(out: Path) -> set[str]:
    return {p.relative_to(out).as_posix() for p in out.rglob("*.html")}


def test_custom_css_renames_every_page_stylesheet(site: Path, tmp_path: Path) -> None:
    out = site / "_site"
    old = {sheet for page in html_pages(out) for sheet in stylesheets(out / page)}
    report = rebuild(site, edit(site / "static" / "css" / "custom.css", "0", "1em"), tmp_path)
    assert report.rendered == 0
    assert report.templated == html_pages(out)  # each links its stylesheet by a new name
    new = {sheet for page in html_pages(out) for sheet in stylesheets(out / page)}
    assert len(new) == len(old) == 1 and not new & old
    assert report.removed == {sheet.lstrip("/") for sheet in old}
    assert report.changed == html_pages(out) | {"css/custom.css", *(s.lstrip("/") for s in new)}
    assert "body { margin: 1em; }" in page_stylesheet(out, "index.html")


def test_a_need_stylesheet_renames_only_the_stylesheet_of_its_pages(site: Path,
                                                                     tmp_path: Path) -> None:
    out = site / "_site"
    rebuild(site, edit(posts(site, "p2"), "More words.", "> [!note]\n> A callout."), tmp_path)
    assert "css/callouts.css" in parts(page_stylesheet(out, "posts/p2/index.html"))
    home = stylesheets(out / "index.html")
    mine = site / "static" / "css" / "callouts.css"  # the site's replaces the theme's
    report = rebuild(site, lambda: mine.write_text(".callout { border: 0; }\n"), tmp_path)
    assert report.templated == {"posts/p2/index.html"}
    assert stylesheets(out / "index.html") == home
    assert page_stylesheet(out, "posts/p2/index.html").count(".callout { border: 0; }") == 1


def test_a_render_option_renders_every_post_again(site: Path, tmp_path: Path) -> None:
    change = edit(site / "site.yaml", "feed_entries: 2\n",
                  "feed_entries: 2\nmath:\n  macros:\n    \\R: \\mathbb{R}\n")
    report = rebuild(site, change, tmp_path)
    assert report.rendered == len(POSTS) + 1
    assert report.changed == set()  # nothing in these posts uses the macro


def test_other_code_renders_everything_again(site: Path, tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """Another blogbuild or library version: nothing the last build knew is trusted."""
    monkeypatch.setattr(fingerprints, "code_fingerprint", lambda: "another version")
    report = build(site / "site.yaml")
    assert report.rendered == len(POSTS) + 1
    assert report.templated == set(report.written)


def test_a_damaged_output_is_repaired(site: Path, tmp_path: Path) -> None:
    out = site / "_site"

    def change() -> None:
        (out / "posts" / "p2" / "index.html").write_text("scribbled")
        (out / "archive" / "index.html").unlink()
        (out / "stray.txt").write_text("not ours")
    report = build(site / "site.yaml")
    change()
    report = build(site / "site.yaml")
    assert report.rendered == 0
    assert report.templated == {"posts/p2/index.html", "archive/index.html"}
    assert report.changed == report.templated and report.removed == {"stray.txt"}
    assert not (out / "stray.txt").exists()
    assert tree(out) == tree(build_clean(site, tmp_path))


def test_another_base_url_is_not_served_from_compiled_templates(site: Path,
                                                                tmp_path: Path) -> None:
    """Jinja folds `"/x/" | url` into compiled templates: a preview build under another
    base URL must not get the first build's links from the template cache."""
    preview = tmp_path / "preview"
    build(site / "site.yaml", output=preview, base_url="https://example.org/preview/")
    html = (preview / "posts" / "p1" / "index.html").read_text()
    assert 'href="/preview/feed.xml"' in html
    assert 'href="/feed.xml"' not in html


def test_old_renders_and_states_are_pruned(site: Path, tmp_path: Path) -> None:
    """Renders no source names any more go once they are old (looked for once a day);
    states of other output folders (previews) are kept only for the few most recent ones."""
    import os

    store = site / ".blogbuild-cache" / "render"

    def entries() -> set[str]:
        return {p.name for p in store.rglob("*.pickle")}

    first = entries()
    edit(posts(site, "p1"), "More words.", "Second words.")()
    build(site / "site.yaml")
    assert len(entries()) == len(first) + 1  # the earlier render of p1 is kept for now
    month_ago = os.stat(site / "site.yaml").st_mtime - 30 * 24 * 3600
    for path in store.rglob("*.pickle"):
        os.utime(path, (month_ago, month_ago))
    edit(posts(site, "p1"), "Second words.", "Third words.")()
    build(site / "site.yaml")
    # The store is looked through once a day: today's first build did it.
    assert len(entries()) == len(first) + 2
    stamp = site / ".blogbuild-cache" / "tidied" / "render"
    yesterday = stamp.stat().st_mtime - 25 * 3600
    os.utime(stamp, (yesterday, yesterday))
    for path in store.rglob("*.pickle"):
        os.utime(path, (month_ago, month_ago))
    edit(posts(site, "p1"), "Third words.", "Fourth words.")()
    build(site / "site.yaml")
    assert len(entries()) == len(first)  # one render per source, nothing older
    assert stamp.stat().st_mtime > yesterday + 24 * 3600
    assert build(site / "site.yaml", output=tmp_path / "again", use_cache=True).rendered == 0
    for n in range(6):
        build(site / "site.yaml", output=tmp_path / f"preview-{n}")
    states = {p.name.split(".")[0] for p in (site / ".blogbuild-cache" / "state").iterdir()}
    assert len(states) == 5  # this build's and the four most recent others


def test_old_urls_follow_the_post(site: Path, tmp_path: Path) -> None:
    """A redirect page goes with its alias, and points wherever the post lives now."""
    rebuild(site, edit(posts(site, "p2"), "tags: [a, b]",
                       "tags: [a, b]\naliases: [/old/p2/, /2019/p2.html]"), tmp_path)
    assert (site / "_site/old/p2/index.html").is_file()
    report = rebuild(site, edit(posts(site, "p2"), "aliases: [/old/p2/, /2019/p2.html]",
                                "aliases: [/old/p2/]"), tmp_path)
    assert report.removed == {"2019/p2.html"}
    assert "page/3/index.html" not in report.templated  # the list shows nothing new
    report = rebuild(site, edit(posts(site, "p2"), "aliases:", "slug: new-p2\naliases:"),
                     tmp_path)
    assert "old/p2/index.html" in report.changed
    assert 'url=/new-p2/"' not in (site / "_site/old/p2/index.html").read_text()
    assert 'url=/posts/new-p2/"' in (site / "_site/old/p2/index.html").read_text()


def test_a_summary_cut_with_more(site: Path, tmp_path: Path) -> None:
    report = rebuild(site, edit(posts(site, "p6"), "## A section",
                                "<!--more-->\n\n## A section"), tmp_path)
    assert {"index.html", "tags/c/index.html", "feed.xml"} <= report.templated
    assert '<div class="post-item-summary"><p>The summary of p6.</p>' in (
        site / "_site/index.html").read_text()


def test_feed_content_rewrites_the_feeds_and_only_them(site: Path, tmp_path: Path) -> None:
    to_summary = edit(site / "site.yaml", "feed_entries: 2\n",
                      "feed_entries: 2\nfeed_content: summary\n")
    report = rebuild(site, to_summary, tmp_path)
    feeds = {"feed.xml", "tags/a/feed.xml", "tags/b/feed.xml", "tags/c/feed.xml"}
    assert report.rendered == 0 and report.changed == feeds
    assert "<content" not in (site / "_site/feed.xml").read_text()
    report = rebuild(site, edit(site / "site.yaml", "feed_content: summary\n", ""), tmp_path)
    assert report.changed == feeds
    assert "<content" in (site / "_site/feed.xml").read_text()


COMMENTS = ("comments:\n  repo: ada/c\n  repo_id: R_1\n  category: C\n  category_id: DIC_1\n"
            "  enabled_by_default: false\n")


def test_comments_follow_the_site_default_and_the_post(site: Path, tmp_path: Path) -> None:
    report = rebuild(site, edit(site / "site.yaml", "feed_entries: 2\n",
                                "feed_entries: 2\n" + COMMENTS), tmp_path)
    assert report.rendered == 0 and report.changed == set()  # no post asks for them yet
    report = rebuild(site, edit(posts(site, "p3"), "tags:", "comments: true\ntags:"), tmp_path)
    assert "posts/p3/index.html" in report.changed
    assert "post-comments" in (site / "_site/posts/p3/index.html").read_text()
    report = rebuild(site, edit(site / "site.yaml", "enabled_by_default: false",
                                "enabled_by_default: true"), tmp_path)
    pages = {f"posts/{name}/index.html" for name in POSTS}
    assert report.changed - {"css/comments.css", "js/comments.js"} == pages - {
        "posts/p3/index.html"}
    report = rebuild(site, edit(site / "site.yaml", "repo: ada/c", "repo: ada/d"), tmp_path)
    assert report.changed == pages and report.rendered == 0


def test_a_document_page_keeps_its_inputs_only_while_they_hold(site: Path) -> None:
    """An update takes a document's page's inputs from the last state when its post and
    what every page is made with are the same; what it records is what working them out
    again gives, after an edit and after a change of what every page is made with."""
    from blogbuild.config import load_config
    from blogbuild.pipeline import pages as stale
    from blogbuild.pipeline.engine import Engine

    posts = site / "content" / "posts"
    first, post = next(posts.glob("*-p1.md")), next(posts.glob("*-p3.md"))
    for change in (lambda: first.write_text(first.read_text() + "\nSome math, $x$.\n"),
                   # p3's page needs what p1's does now: its stylesheet is one all know
                   lambda: post.write_text(post.read_text() + "\nOne more line, $x^2$.\n"),
                   lambda: post.write_text(post.read_text().replace("---\n\n",
                                                                    "slug: moved\n---\n\n")),
                   lambda: (site / "site.yaml").write_text(SITE_YAML + "date_format: '%d %B'\n")):
        change()
        engine = Engine(load_config(site / "site.yaml"))
        try:
            engine.run()
            ctx, state = engine.context, engine.state
            assert state is not None and ctx.site is not None
            globals_fp = stale.globals_fingerprint(ctx.config, ctx.extra_head)
            for page in ctx.pages:
                assert state.pages[page.path].inputs == stale.page_inputs(
                    page, state.closures[page.template], globals_fp, ctx.stylesheets)
        finally:
            engine.close()
