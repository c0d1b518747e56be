"""Front matter written for Jekyll and Hugo: published, tags and categories, the keys other
generators use for ours, old URLs (aliases, redirect_from) and what is not read."""

from __future__ import annotations

import datetime as dt

import pytest

from blogbuild.content.frontmatter import PostMeta, parse_meta, split_front_matter
from blogbuild.content.redirects import BadRedirect, redirect_path, site_relative
from blogbuild.diagnostics import ContentError
from blogbuild.readers import read_info


def meta_of(text: str, name: str = "post") -> PostMeta:
    return parse_meta(split_front_matter(text, "p.md"), "p.md", name)


@pytest.mark.parametrize(("front", "draft"), [
    ("published: false", True), ("published: true", False),
    ("draft: true\npublished: true", True),  # either one holding the post back wins
    ("draft: false\npublished: false", True),
    ("draft: false", False),
])
def test_published_false_is_a_draft(front: str, draft: bool) -> None:
    assert meta_of(f"---\n{front}\n---\n").draft is draft


def test_published_must_be_a_boolean_or_a_date() -> None:
    with pytest.raises(ContentError, match=r"'published' must be true or false") as info:
        meta_of("---\ntitle: x\npublished: no\n---\n")
    assert info.value.line == 3
    hugo = meta_of("---\npublished: 2024-03-01\n---\n")  # Hugo's publish date
    assert hugo.date == dt.datetime(2024, 3, 1) and not hugo.draft


@pytest.mark.parametrize(("front", "tags"), [
    ("tags: python machine-learning", ("python", "machine-learning")),  # Jekyll
    ('tags: "deep learning, math"', ("deep learning", "math")),
    ("tag: python", ("python",)),
    ("categories: [ml, python]\ntags: [python, jax]", ("python", "jax", "ml")),
    ("category: notes", ("notes",)),
    ("categories: blog ml", ("blog", "ml")),
    ("tags: []\ncategories: [a]", ("a",)),
])
def test_tags_and_categories(front: str, tags: tuple[str, ...]) -> None:
    assert meta_of(f"---\n{front}\n---\n").tags == tags


def test_a_category_that_is_not_a_name_is_an_error() -> None:
    with pytest.raises(ContentError, match=r"each category must be a name") as info:
        meta_of("---\ncategories:\n  - [a, b]\n---\n")
    assert info.value.line == 3


def test_keys_of_other_generators_stand_in_for_ours() -> None:
    meta = meta_of("---\nlastmod: 2024-02-02\nsummary: Short.\npublishDate: 2024-01-01\n---\n")
    assert meta.updated == dt.datetime(2024, 2, 2) and meta.description == "Short."
    assert meta.date == dt.datetime(2024, 1, 1)
    jekyll = meta_of("---\nlast_modified_at: 2024-02-03\nexcerpt: Jekyll's.\n---\n")
    assert jekyll.updated == dt.datetime(2024, 2, 3) and jekyll.description == "Jekyll's."
    ours = meta_of("---\nupdated: 2024-05-05\nlastmod: 2024-02-02\ndescription: Ours.\n"
                   "summary: Theirs.\ndate: 2023-01-01\npublishDate: 2024-01-01\n---\n")
    assert ours.updated == dt.datetime(2024, 5, 5) and ours.description == "Ours."
    assert ours.date == dt.datetime(2023, 1, 1)
    assert ours.extra["lastmod"] == "2024-02-02"  # still reachable as before
    with pytest.raises(ContentError, match=r"'lastmod' is not a date"):
        meta_of("---\nlastmod: soon\n---\n")


def test_old_urls() -> None:
    meta = meta_of("---\nredirect_from: /2019/05/old-name.html\naliases:\n  - /old/post\n"
                   "  - old/other/\n  - /old/post/\npermalink: /2019/old.html\n---\n")
    assert meta.aliases == (("/old/post/", 4), ("/old/other/", 5),
                            ("/2019/05/old-name.html", 2), ("/2019/old.html", 7))
    assert meta.notes == ()


def test_permalink_with_placeholders_is_a_warning() -> None:
    meta = meta_of("---\ntitle: x\npermalink: /:year/:title/\nredirect_to: /x/\n---\n")
    assert meta.aliases == ()
    assert [line for line, _ in meta.notes] == [3, 4]
    assert "placeholders" in meta.notes[0][1] and "'redirect_to'" in meta.notes[1][1]


@pytest.mark.parametrize(("written", "path"), [
    ("/old/post", "/old/post/"), ("/old/post/", "/old/post/"), ("old", "/old/"),
    ("/2019/05/x.html", "/2019/05/x.html"), ("/X.HTM", "/X.HTM"),
    ("/caf%C3%A9/", "/café/"), ("/v1.2", "/v1.2/"), (" /spaced/ ", "/spaced/"),
])
def test_redirect_paths(written: str, path: str) -> None:
    assert redirect_path(written) == path


@pytest.mark.parametrize(("written", "why"), [
    ("../../etc/x", "cannot be written"), ("/a/%2e%2e/b", "cannot be written"),
    ("javascript:alert(1)", "without a scheme"), ("https://old.example/p/", "without a scheme"),
    ("//old.example/p/", "without a scheme"), ("/p?id=3", "query"), ("/p#top", "fragment"),
    ("/", "home page"), ("", "empty"), ("/a//b/", "cannot be written"),
    ("/a\\b/", "cannot be written"), ("/a%00b/", "cannot be written"),
])
def test_bad_redirect_paths(written: str, why: str) -> None:
    with pytest.raises(BadRedirect, match=why):
        redirect_path(written)


def test_a_bad_alias_is_an_error_at_its_line() -> None:
    with pytest.raises(ContentError, match=r"'aliases' is '\.\./x'") as info:
        meta_of("---\ntitle: t\naliases:\n  - /fine/\n  - ../x\n---\n")
    assert info.value.line == 5
    with pytest.raises(ContentError, match=r"'redirect_from' must be a path or a list"):
        meta_of("---\nredirect_from: {a: b}\n---\n")


def test_the_sub_path_is_taken_off() -> None:
    assert site_relative("/blog/old/", "/blog/") == "/old/"
    assert site_relative("/old/", "/blog/") == "/old/"
    assert site_relative("/blog/old/", "/") == "/blog/old/"


def test_the_quick_reading_agrees() -> None:
    """The link map's quick reading places documents as the full one does."""
    text = b"---\npublished: false\ntags: a b\ncategories: [c]\n---\n"
    quick = read_info("posts/x.md", "post", "x.md", text, "2024-01-01-x", fast=True)
    full = read_info("posts/x.md", "post", "x.md", text, "2024-01-01-x")
    assert quick is not None and full is not None
    assert (quick.meta.draft, quick.meta.tags) == (full.meta.draft, full.meta.tags) \
        == (True, ("a", "b", "c"))


def test_a_permalink_that_cannot_be_a_redirect_is_a_warning() -> None:
    assert meta_of("---\npermalink: /\n---\n").notes == ()  # a Jekyll home page
    meta = meta_of("---\ntitle: x\nurl: /search?q=1\n---\n")
    assert meta.aliases == () and meta.notes[0][0] == 3
    assert "'url' is '/search?q=1'" in meta.notes[0][1]
