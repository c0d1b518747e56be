"""Quarto documents (`.qmd`): read by their own reader, built as posts and pages."""

from __future__ import annotations

from pathlib import Path

import html5lib

from blogbuild import readers
from blogbuild.commands.build import build
from blogbuild.content.linkmap import bundle_dir


def quarto_site(tmp_path: Path, files: dict[str, str]) -> Path:
    """A site of `files` (path -> text) in `tmp_path`, without search or social cards;
    its site.yaml."""
    (tmp_path / "site.yaml").write_text("title: Q\nbase_url: https://example.org/blog/\n"
                                        "search: false\nsocial_cards: false\n")
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    return tmp_path / "site.yaml"


def test_a_qmd_file_is_a_document_and_builds_as_a_post(tmp_path: Path) -> None:
    assert readers.is_document("posts/a.qmd") and readers.kind_of("a.qmd") == "Quarto"
    assert bundle_dir("posts/welcome/index.qmd") == "posts/welcome"
    site = quarto_site(tmp_path, {
        "content/posts/welcome/index.qmd": "---\ntitle: Welcome\ndate: 2024-01-02\n---\n\n"
                                           "Some *text*, and [a post](../b.md).\n",
        "content/posts/b.md": "---\ntitle: B\ndate: 2024-01-03\n---\n\n"
                              "[Back](welcome/index.qmd).\n",
    })
    report = build(site, jobs=1)
    assert report.diagnostics == [] and report.posts == 2
    out = tmp_path / "_site"
    page = (out / "posts" / "welcome" / "index.html").read_text()
    html5lib.HTMLParser(strict=True).parse(page)
    assert "<title>Welcome" in page and "Some <em>text</em>" in page
    assert 'href="/blog/posts/b/"' in page
    assert 'href="/blog/posts/welcome/"' in (out / "posts" / "b" / "index.html").read_text()
    assert not (out / "posts" / "welcome" / "index.qmd").exists()
