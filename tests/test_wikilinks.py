"""Wiki links and embeds (Obsidian, Quartz): fixture cases rendered inside a small vault,
the name rules, and the cases CommonMark decides."""

from __future__ import annotations

from pathlib import Path

import html5lib
import pytest
from markdown_it.utils import read_fixture_file

from blogbuild.config import Config
from blogbuild.content.linkmap import LinkMap, build_link_map, wiki_key
from blogbuild.content.wikinames import file_index, note_index
from blogbuild.markdown import create_markdown
from blogbuild.pipeline.render import render_markdown
from blogbuild.readers import read_info

FIXTURES = Path(__file__).parent / "fixtures" / "wikilinks.md"
MD = create_markdown(Config(base_url="https://example.org/blog/"))
#: The vault the fixtures are rendered in, as the build's link map describes it; the
#: fixtures are posts/2024-03-01-x.md of it.
VAULT = LinkMap(
    documents={
        "posts/2024-01-02-attention.md": "/posts/why-attention/",
        "posts/2024-02-03-softmax.md": "/posts/softmax/",
        "posts/2023-05-05-notes.md": "/posts/notes/",
        "reading/notes.md": "/reading/notes/",
        "about.md": "/about/",
    },
    assets={
        "posts/plot.png": "/posts/plot.png",
        "attachments/cat.jpg": "/attachments/cat.jpg",
        "attachments/my diagram.svg": "/attachments/my diagram.svg",
        "a/dup.png": "/a/dup.png",
        "b/dup.png": "/b/dup.png",
        "files/paper.pdf": "/files/paper.pdf",
    },
    drafts=frozenset({"posts/2024-09-09-wip.md"}),
    statics=frozenset({"images/banner.png", "images/cat.jpg", "favicon.svg"}),
    labels={
        "posts/2024-01-02-attention.md": ("why-attention", "Why attention works"),
        "posts/2024-02-03-softmax.md": ("softmax", "Softmax saturates"),
        "posts/2023-05-05-notes.md": ("notes", "Reading notes"),
        "reading/notes.md": ("notes", "Reading notes"),
        "about.md": ("about", "About me"),
        "posts/2024-09-09-wip.md": ("wip", "Work in progress"),
    },
)


def render(source: str) -> str:
    """The HTML, then one line per diagnostic: `! LINE: message`."""
    rendered = render_markdown(MD, source, file="content/posts/2024-03-01-x.md",
                               source_dir="posts", links=VAULT)
    notes = "".join(f"! {d.line}: {d.message}\n" for d in rendered.diagnostics)
    return rendered.html + notes


@pytest.mark.parametrize(
    ("line", "title", "source", "expected"),
    read_fixture_file(FIXTURES),
    ids=[f"{case[0]}-{case[1]}" for case in read_fixture_file(FIXTURES)],
)
def test_fixture(line: int, title: str, source: str, expected: str) -> None:
    output = render(source)
    assert output == expected
    html = output.split("\n! ")[0]
    parser = html5lib.HTMLParser(strict=True, namespaceHTMLElements=False)
    parser.parseFragment(html)  # strict HTML5: raises on any parse error


def test_fixture_file_has_dozens_of_cases() -> None:
    assert len(read_fixture_file(FIXTURES)) >= 40


def test_rules_are_tried_in_order_and_the_first_that_finds_decides() -> None:
    index = note_index({
        "posts/2024-01-02-intro.md": ("start", "Getting started"),
        "intro-notes.md": ("intro", "Intro"),  # its slug is the first post's file name
        "posts/start.md": ("start-2", "Start"),
    })
    assert index.find("intro").rels == ("posts/2024-01-02-intro.md",)  # file name first
    assert index.find("intro").rule == "file name"
    assert index.find("start").rels == ("posts/start.md",)  # a file name beats a slug
    assert index.find("START-2").rule == "slug"
    assert index.find("  getting   STARTED ").rule == "title"
    assert index.find("posts/2024-01-02-intro.md").rule == "path"
    assert index.find("Nothing").rels == ()


def test_attachments_beside_the_post_come_first() -> None:
    files = file_index(["posts/fig.png", "img/fig.png", "img/only.png"],
                       ["img/fig.png", "logo.svg"])
    assert files.find("fig.png", "posts").rels == ("content/posts/fig.png",)
    assert files.find("fig.png", "drafts").rels == ("content/img/fig.png",
                                                    "content/posts/fig.png")
    assert files.find("img/fig.png", "posts").rels == ("content/img/fig.png",)
    assert files.find("only.png", "posts/deep").rels == ("content/img/only.png",)
    assert files.find("logo.svg", "posts").rels == ("static/logo.svg",)  # static/ last
    assert files.find("/logo.svg", "posts").rule == "path"


def test_lookups_are_recorded_and_stay_valid_while_they_find_the_same() -> None:
    rendered = render_markdown(MD, "[[softmax]] and ![[cat.jpg]]", source_dir="posts",
                               links=VAULT)
    keys = {key for key, _ in rendered.wiki}
    assert keys == {wiki_key("softmax"), wiki_key("cat.jpg", "posts")}
    assert VAULT.still_valid(rendered.resolved, rendered.wiki)
    moved = LinkMap({**VAULT.documents, "posts/2024-02-03-softmax.md": "/softmax/"},
                    VAULT.assets, VAULT.drafts, VAULT.labels, VAULT.statics)
    assert not moved.still_valid(rendered.resolved, rendered.wiki)


def test_outside_a_site_wiki_links_stay_text_as_in_commonmark() -> None:
    assert create_markdown().render("[[Note]] and ![[pic.png]]") == (
        "<p>[[Note]] and ![[pic.png]]</p>\n")


def test_commonmark_examples_with_double_brackets_inside_a_site() -> None:
    """What the spec's examples with `[[` give in a site: the ones with a link reference
    definition stay CommonMark; `![[foo]]` (no valid definition) is an embed there."""
    def site(source: str) -> str:
        return render_markdown(MD, source, source_dir="posts", links=VAULT).html

    assert site("[[*foo* bar]]\n\n[*foo* bar]: /url \"title\"\n") == (
        '<p>[<a href="/blog/url" title="title"><em>foo</em> bar</a>]</p>\n')
    assert site("[[bar [foo]\n\n[foo]: /url\n") == '<p>[[bar <a href="/blog/url">foo</a></p>\n'
    assert site("[[[foo]]]\n\n[[[foo]]]: /url\n") == "<p>[[[foo]]]</p>\n<p>[[[foo]]]: /url</p>\n"
    assert "wikilink-missing" in site('![[foo]]\n\n[[foo]]: /url "title"\n')


def test_the_feed_variant_has_absolute_urls() -> None:
    rendered = render_markdown(MD, "[[softmax]] ![[cat.jpg]]", source_dir="posts",
                               links=VAULT, feed_base="https://example.org/blog/posts/x/")
    assert rendered.feed_html is not None
    assert 'href="https://example.org/blog/posts/softmax/"' in rendered.feed_html
    assert 'src="https://example.org/blog/attachments/cat.jpg"' in rendered.feed_html


def test_a_heading_target_is_checked_like_any_link() -> None:
    rendered = render_markdown(MD, "[[softmax#No such part]]", source_dir="posts",
                               links=VAULT)
    assert [(r.kind, r.target) for r in rendered.refs] == [
        ("link", "/blog/posts/softmax/#no-such-part")]


def test_titles_come_from_front_matter_the_first_heading_or_the_file_name() -> None:
    files = {
        "posts/2024-01-01-a.md": b"---\ntitle: From the front matter\n---\n# Not this\n",
        "posts/2024-01-02-b.md": b"\n# From the heading #\n\nText.\n",
        "posts/2024-01-03-my-first-post.md": b"No title at all.\n",
    }
    infos = [read_info(rel, "post", rel, data, Path(rel).stem, fast=fast)
             for rel, data in files.items() for fast in (True, False)]
    for fast in (0, 1):
        links = build_link_map([i for i in infos[fast::2] if i is not None], [], Config(),
                               drafts=False)
        assert [links.find(wiki_key(t)).rels for t in (
            "from the front matter", "From the heading", "My first post")] == [
            (rel,) for rel in files]
