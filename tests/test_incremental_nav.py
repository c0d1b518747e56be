"""Incremental builds of what a post shows of other posts: its series box, its related
posts and the cover images of lists. Editing another post (its title, tags or series) or a
cover image file re-templates exactly the pages that show it; the output always equals a
clean build (checked by `rebuild`)."""

from __future__ import annotations

from pathlib import Path

import pytest
from PIL import Image

from blogbuild.commands.build import build
from test_incremental import POSTS, SITE_YAML, edit, post_text, posts, rebuild

#: Extra front matter: p1 and p2 are a series, p5 has a cover image.
EXTRA = {"p1": "series: Tour\n", "p2": "series: Tour\n",
         "p5": "image: /assets/cover.png\nimage_alt: A cover\n"}


def png(path: Path, size: tuple[int, int]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    Image.new("RGB", size, (200, 80, 40)).save(path)


@pytest.fixture
def site(tmp_path: Path) -> Path:
    root = tmp_path / "site"
    (root / "content" / "posts").mkdir(parents=True)
    (root / "site.yaml").write_text(SITE_YAML)
    for name, (date, tags) in POSTS.items():
        text = post_text(name, date, tags).replace("---\n\n", EXTRA.get(name, "") + "---\n\n", 1)
        (root / "content" / "posts" / f"{date}-{name}.md").write_text(text)
    png(root / "content" / "assets" / "cover.png", (120, 80))
    build(root / "site.yaml")
    return root


def html(site: Path, path: str) -> str:
    return (site / "_site" / path).read_text()


def test_a_title_shows_in_the_series_box_of_the_other_parts(site: Path,
                                                              tmp_path: Path) -> None:
    assert "Part 1 of 2" in html(site, "posts/p1/index.html")
    report = rebuild(site, edit(posts(site, "p1"), "title: Post p1", "title: Renamed"),
                     tmp_path)
    assert "posts/p2/index.html" in report.templated
    assert "Renamed" in html(site, "posts/p2/index.html")
    assert "posts/p6/index.html" not in report.templated  # shares nothing with p1


def test_joining_a_series_updates_its_other_parts(site: Path, tmp_path: Path) -> None:
    report = rebuild(site, edit(posts(site, "p3"), "tags: [b]", "tags: [b]\nseries: Tour"),
                     tmp_path)
    assert {"posts/p1/index.html", "posts/p2/index.html"} <= report.templated
    assert "Part 3 of 3" in html(site, "posts/p3/index.html")


def test_tags_of_another_post_change_the_related_posts(site: Path, tmp_path: Path) -> None:
    assert "Post p6" not in html(site, "posts/p4/index.html").split('class="related"')[1]
    report = rebuild(site, edit(posts(site, "p6"), "tags: [c]", "tags: [a]"), tmp_path)
    assert "posts/p4/index.html" in report.templated  # p6 now shares its tag
    assert "Post p6" in html(site, "posts/p4/index.html").split('class="related"')[1]


def test_a_new_image_size_rewrites_the_lists_and_the_post(site: Path, tmp_path: Path) -> None:
    assert 'width="120" height="80"' in html(site, "index.html")
    report = rebuild(site, lambda: png(site / "content" / "assets" / "cover.png", (300, 100)),
                     tmp_path)
    assert {"index.html", "posts/p5/index.html", "tags/b/index.html"} <= report.templated
    assert 'width="300" height="100"' in html(site, "index.html")
    assert "posts/p4/index.html" not in report.templated
