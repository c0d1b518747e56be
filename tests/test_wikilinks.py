"""Wiki links and embeds (Obsidian, Quartz): fixture cases rendered inside a small vault,
the name rules, and the cases CommonMark decides."""

from __future__ import annotations

from pathlib import Path

import html5lib
import pytest
from markdown_it.utils import read_fixture_file

from blogbuild.config import Config
from blogbuild.content.linkmap import LinkMap, wiki_key
from blogbuild.content.wikinames import file_index, note_index
from blogbuild.markdown import create_markdown
from blogbuild.pipeline.render import render_markdown

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
