"""The one URL function: sub-path prefixing, absolute URLs, unsafe schemes."""

from __future__ import annotations

from urllib.parse import urljoin, urlsplit

import pytest

from blogbuild.urls import UrlBuilder, UrlError, is_safe_url, split_url, url_problem

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


@pytest.mark.parametrize("url", [
    "https://[::1/", "//[::1/x", "http://[fe80::1%25eth0]/", "https://[zz::1]/",
    "http://[::1]:99999/", "http://[::1]x/", "http://[192.0.2.1]/", "https://]x[/",
    "http://x:abc/", "http://x:-1/", "http://x:65536/", "https://exa\uff03mple/",
    "https://user@[::1/",
])
def test_urls_urllib_cannot_read_are_named(url: str) -> None:
    """Each of these makes urlsplit, urljoin or .port raise ValueError; url_problem says why
    and split_url raises UrlError (a ValueError) before urllib does."""
    problem = url_problem(url)
    assert problem is not None
    with pytest.raises(UrlError):
        split_url(url)


@pytest.mark.parametrize("url", [
    "http://[::1]/", "https://[2001:db8::1]:8080/x?y#z", "https://u:p@[::1]:80/x",
    "http://x:/", "http://example.org:0/", "http://example.org:65535/", "/a/b",
    "relative.md", "#x", "mailto:a@b.c", "irc://irc.example.org/", "data:image/png;base64,AA",
])
def test_urls_urllib_reads_pass(url: str) -> None:
    assert url_problem(url) is None
    parts = split_url(url)
    assert parts.port == urlsplit(url).port
    urljoin("https://example.org/", url)
