"""Incremental builds of wiki links: a post that links [[Another title]] is rendered again
when what that name finds changes (a title, a slug, a post that appears or goes, an
attachment), and only then; the output always equals a clean build."""

from __future__ import annotations

from pathlib import Path

import pytest

from blogbuild.commands.build import build
from test_incremental import POSTS, SITE_YAML, edit, post_text, posts, rebuild

LINKS = "See [[Post p3]], [[Heading title|the other one]], [[Post p9]] and ![[pic.png|200]]."


@pytest.fixture
def site(tmp_path: Path) -> Path:
    """The posts of test_incremental; p1 links p3 by its title, a page by its H1, a post
    that does not exist yet, and an image nobody has yet."""
    root = tmp_path / "site"
    (root / "content" / "posts").mkdir(parents=True)
    (root / "site.yaml").write_text(SITE_YAML)
    for name, (date, tags) in POSTS.items():
        body = LINKS if name == "p1" else ""
        (root / "content" / "posts" / f"{date}-{name}.md").write_text(
            post_text(name, date, tags, body))
    (root / "content" / "notes.md").write_text("# Heading title\n\nA page.\n")
    build(root / "site.yaml")
    return root


def page(site: Path, name: str = "p1") -> str:
    return (site / "_site" / "posts" / name / "index.html").read_text()


def test_links_resolve(site: Path) -> None:
    html = page(site)
    assert 'href="/posts/p3/"' in html and 'href="/notes/"' in html
    assert '<span class="wikilink wikilink-missing">Post p9</span>' in html


def test_an_unrelated_edit_leaves_the_linking_post(site: Path, tmp_path: Path) -> None:
    report = rebuild(site, edit(posts(site, "p2"), "More words.", "Other words."), tmp_path)
    assert report.rendered == 1


def test_the_title_it_names_changes(site: Path, tmp_path: Path) -> None:
    report = rebuild(site, edit(posts(site, "p3"), "title: Post p3", "title: Renamed"),
                     tmp_path)
    assert report.rendered == 2 and "posts/p1/index.html" in report.templated
    assert '<span class="wikilink wikilink-missing">Post p3</span>' in page(site)
    assert any("[[Post p3]]" in d.message and d.file.endswith("2024-01-01-p1.md")
               for d in report.diagnostics)


def test_the_url_it_links_changes(site: Path, tmp_path: Path) -> None:
    report = rebuild(site, edit(posts(site, "p3"), "title: Post p3", "title: Post p3\nslug: x"),
                     tmp_path)
    assert report.rendered == 2
    assert 'href="/posts/x/"' in page(site)


def test_a_post_with_the_name_appears_and_goes(site: Path, tmp_path: Path) -> None:
    new = site / "content" / "posts" / "2024-01-09-p9.md"
    report = rebuild(site, lambda: new.write_text(post_text("p9", "2024-01-09", ["a"])),
                     tmp_path)
    assert report.rendered == 2 and 'href="/posts/p9/"' in page(site)
    report = rebuild(site, new.unlink, tmp_path)
    assert report.rendered == 1
    assert '<span class="wikilink wikilink-missing">Post p9</span>' in page(site)


def test_a_second_post_with_the_title_makes_it_ambiguous(site: Path, tmp_path: Path) -> None:
    twin = site / "content" / "twin.md"
    report = rebuild(site, lambda: twin.write_text("---\ntitle: Post p3\n---\nTwin.\n"),
                     tmp_path)
    assert report.rendered == 2
    assert '<span class="wikilink wikilink-missing">Post p3</span>' in page(site)


def test_a_title_from_the_first_heading(site: Path, tmp_path: Path) -> None:
    notes = site / "content" / "notes.md"
    report = rebuild(site, edit(notes, "# Heading title", "# Another heading"), tmp_path)
    assert report.rendered == 2 and 'href="/notes/"' not in page(site)
    # A setext heading is not seen before the render: the build looks again after it.
    report = rebuild(site, edit(notes, "# Another heading", "Heading title\n==="), tmp_path)
    assert report.rendered == 2 and 'href="/notes/"' in page(site)


def test_an_attachment_appears(site: Path, tmp_path: Path) -> None:
    def add() -> None:
        (site / "content" / "attachments").mkdir()
        (site / "content" / "attachments" / "pic.png").write_bytes(b"\x89PNG")
    report = rebuild(site, add, tmp_path)
    assert report.rendered == 1
    assert '<img src="/attachments/pic.png" alt="pic" width="200" />' in page(site)


def test_an_image_of_static_appears(site: Path, tmp_path: Path) -> None:
    def add() -> None:
        (site / "static" / "img").mkdir(parents=True)
        (site / "static" / "img" / "pic.png").write_bytes(b"\x89PNG")
    report = rebuild(site, add, tmp_path)
    assert report.rendered == 1
    assert '<img src="/img/pic.png" alt="pic" width="200" />' in page(site)
