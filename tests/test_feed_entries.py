"""A post's entry in the feeds is templated once and shown in every feed that has it
(`feed_entry(post)`, blogbuild.pipeline.items): within a build, and from one build to the
next while nothing it shows changed. Whatever changed, the output is the one a clean
build writes (test_incremental's rebuild checks it)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from xml.etree import ElementTree

import pytest

from blogbuild.commands.build import build
from blogbuild.themefiles import FEED_ENTRY_TEMPLATE
from test_incremental import POSTS, edit, post_text, posts
from test_incremental import site as site  # the fixture
from test_list_items import Made, add, count_renders, rebuild

ATOM = "{http://www.w3.org/2005/Atom}"


@pytest.fixture
def entries(monkeypatch: pytest.MonkeyPatch) -> Iterator[Made]:
    yield count_renders(monkeypatch, FEED_ENTRY_TEMPLATE)


def feed(site: Path, rel: str = "feed.xml") -> list[ElementTree.Element]:
    return ElementTree.parse(site / "_site" / rel).getroot().findall(f"{ATOM}entry")


def test_a_new_post_templates_its_own_feed_entry(
        site: Path, tmp_path: Path, entries: Made) -> None:
    # It tops the site's feed and its tag's: the other entries are the last build's.
    report = rebuild(site, add(site, "p7", "2024-01-07", ["a"]), tmp_path, entries)
    assert {"feed.xml", "tags/a/feed.xml"} <= report.templated
    assert entries == ["posts/2024-01-07-p7.md"]
    assert [e.findtext(f"{ATOM}title") for e in feed(site)] == ["Post p7", "Post p6"]


def test_a_clean_build_templates_each_feed_entry_once(tmp_path: Path,
                                                      entries: Made) -> None:
    root = tmp_path / "site"
    (root / "content" / "posts").mkdir(parents=True)
    (root / "site.yaml").write_text('title: "T"\nbase_url: "https://example.org/"\n')
    for name, (date, tags) in POSTS.items():
        (root / "content" / "posts" / f"{date}-{name}.md").write_text(
            post_text(name, date, tags))
    build(root / "site.yaml", jobs=1)
    # In the site's feed and in one or two tags' feeds each: templated once.
    assert sorted(entries) == sorted(f"posts/{d}-{n}.md" for n, (d, _) in POSTS.items())


def test_an_edited_body_reaches_every_feed_that_has_the_post(
        site: Path, tmp_path: Path, entries: Made) -> None:
    report = rebuild(site, edit(posts(site, "p6"), "More words.", "Other words."), tmp_path,
                     entries)
    assert entries == ["posts/2024-01-06-p6.md"]
    assert {"feed.xml", "tags/c/feed.xml"} <= report.templated
    for rel in ("feed.xml", "tags/c/feed.xml"):
        assert "Other words." in (feed(site, rel)[0].findtext(f"{ATOM}content") or "")


def test_a_site_can_write_its_own_feed_entry(site: Path, tmp_path: Path,
                                             entries: Made) -> None:
    def change() -> None:
        (site / "templates" / "partials").mkdir(parents=True)
        (site / "templates" / "partials" / "feed_entry.xml").write_text(
            "<entry><title>{{ post.title }} by {{ config.author or 'nobody' }}</title>"
            "<id>{{ post.url | absolute_url }}</id></entry>\n")
    rebuild(site, change, tmp_path, entries)
    assert feed(site)[0].findtext(f"{ATOM}title") == "Post p6 by nobody"
    # What an entry read of the config is checked too: a new author reaches every entry.
    entries.clear()
    rebuild(site, edit(site / "site.yaml", 'title: "Incremental"',
                       'title: "Incremental"\nauthor: "Ada"'), tmp_path, entries)
    assert [e.findtext(f"{ATOM}title") for e in feed(site)] == ["Post p6 by Ada",
                                                                 "Post p5 by Ada"]
    assert entries and len(entries) == len(set(entries))


def test_feed_entry_of_something_else_than_a_post_says_so(site: Path) -> None:
    from blogbuild.diagnostics import BlogbuildError

    (site / "templates").mkdir()
    (site / "templates" / "feed.xml").write_text('<feed>{{ feed_entry("p1") }}</feed>\n')
    with pytest.raises(BlogbuildError) as failed:
        build(site / "site.yaml")
    assert "feed_entry() shows a post, not str" in str(failed.value)


def test_what_is_made_from_an_entry_is_searched_for_characters_xml_forbids() -> None:
    """An entry is not searched again (its values were), but a theme that adds text to it
    gets plain Markup back, which is."""
    from markupsafe import Markup

    from blogbuild.output.templating import Templated, _printable

    entry = Templated("<entry>ok</entry>")
    assert _printable(entry) is entry and isinstance(entry, Markup)
    for made in (entry + "\x0b", "\x0b" + entry, entry.replace("ok", "o\x0bk"),
                 Markup("").join([entry, "\x0b"])):
        assert "\x0b" not in str(_printable(made)) and "\ufffd" in str(_printable(made))
