"""The one URL function: sub-path prefixing, absolute URLs, unsafe schemes."""

from __future__ import annotations

import pytest

from blogbuild.urls import UrlBuilder, is_safe_url

SUB = UrlBuilder("https://user.github.io/blogs/")
ROOT = UrlBuilder("https://example.com")


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("/", "/blogs/"),
        ("/about/", "/blogs/about/"),
        ("/assets/x.png", "/blogs/assets/x.png"),
        ("/blogs/assets/x.png", "/blogs/assets/x.png"),  # already prefixed: not twice
        ("/blogs", "/blogs"),
        ("/blogsphere/", "/blogs/blogsphere/"),  # a prefix of the name is not the sub-path
        ("relative/x.png", "relative/x.png"),
        ("#frag", "#frag"),
        ("https://other.org/x", "https://other.org/x"),
        ("//cdn.example/x.js", "//cdn.example/x.js"),
        ("mailto:a@b.c", "mailto:a@b.c"),
    ],
)
def test_url_under_a_subpath(path: str, expected: str) -> None:
    assert SUB.url(path) == expected


def test_url_at_the_domain_root_is_unchanged() -> None:
    assert ROOT.base_path == "/"
    assert ROOT.url("/about/") == "/about/"


def test_base_path_always_has_slashes() -> None:
    assert UrlBuilder("https://u.github.io/blogs").base_path == "/blogs/"
    assert UrlBuilder("https://u.github.io/a/b/").base_path == "/a/b/"


def test_absolute_urls_for_feeds_and_canonical_links() -> None:
    assert SUB.absolute("/posts/x/") == "https://user.github.io/blogs/posts/x/"
    assert SUB.absolute("feed.xml") == "https://user.github.io/blogs/feed.xml"
    assert SUB.absolute("/blogs/feed.xml") == "https://user.github.io/blogs/feed.xml"
    assert ROOT.absolute("/") == "https://example.com/"


@pytest.mark.parametrize(
    ("url", "safe"),
    [
        ("https://x.org", True),
        ("/local", True),
        ("x.md", True),
        ("mailto:a@b.c", True),
        ("javascript:alert(1)", False),
        ("JAVASCRIPT:alert(1)", False),
        (" javascript:alert(1)", False),
        ("java\tscript:alert(1)", False),
        ("vbscript:x", False),
        ("file:///etc/passwd", False),
        ("data:text/html,<b>", False),
        ("data:image/png;base64,AA", True),
    ],
)
def test_unsafe_schemes(url: str, safe: bool) -> None:
    assert is_safe_url(url) is safe
