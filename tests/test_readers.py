"""Readers: one rule for what a document is, and a new kind of document added through the
reader registry alone (nothing of the engine, the link map or the render is touched)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import html5lib
import pytest

from blogbuild import readers
from blogbuild.commands.build import build
from blogbuild.config import Config
from blogbuild.content.frontmatter import (
    meta_hint,
    parse_meta,
    quick_front_matter,
    split_front_matter,
)
from blogbuild.content.jobs import SourceJob
from blogbuild.content.linkmap import DocumentInfo, bundle_dir
from blogbuild.diagnostics import BuildFailed, error
from blogbuild.readers import Document, Unreadable
from blogbuild.stages.context import Folders


class ToyReader:
    """`.toy` files: `Key: value` lines, a blank line, then the body as Markdown. A body
    line `!!` is refused (an error at its line)."""

    def info(self, job: SourceJob, data: bytes, *, fast: bool) -> DocumentInfo | None:
        text, name = self._yaml(data.decode()), readers.stem(job.path.name)
        meta = meta_hint(quick_front_matter(text)[0], name) if fast else parse_meta(
            split_front_matter(text, job.display), job.display, name)
        return DocumentInfo(job.rel, job.kind, meta, meta.title)

    def read(self, job: SourceJob, data: bytes, config: Config, folders: Folders) -> Document:
        text = data.decode()
        for number, line in enumerate(text.split("\n"), 1):
            if line == "!!":
                raise Unreadable(error(job.display, number, "a toy file may not shout; "
                                       "remove the line"))
        fm = split_front_matter(self._yaml(text), job.display)
        meta = parse_meta(fm, job.display, readers.stem(job.path.name))
        return Document(job.display, fm, meta, fm.body, fm.body_line_offset)

    @staticmethod
    def _yaml(text: str) -> str:
        head, _, body = text.partition("\n\n")
        return "---\n" + head + "\n---\n" + body


@pytest.fixture
def toy() -> Iterator[None]:
    readers.register(".toy", ToyReader(), kind="toy")
    try:
        yield
    finally:
        readers.unregister(".toy")


def test_one_rule_says_what_a_document_is() -> None:
    assert readers.is_document("posts/a.md") and readers.is_document("b.ipynb")
    assert not readers.is_document("posts/a.markdown") and not readers.is_document("a.MD")
    assert not readers.is_document("photo.png") and not readers.is_document("notes.md.txt")
    assert readers.stem("posts/2024-01-02-hello.md") == "2024-01-02-hello"
    assert readers.stem("nb/analysis.ipynb") == "analysis"
    assert bundle_dir("posts/trip/index.md") == "posts/trip"
    assert bundle_dir("posts/trip/index.ipynb") == "posts/trip"
    assert bundle_dir("posts/trip/index.html") is None and bundle_dir("index.md") is None
    assert readers.kind_of("a.md") == "Markdown" and readers.kind_of("a.png") == ""
    with pytest.raises(KeyError):
        readers.reader_for("photo.png")
    with pytest.raises(ValueError):
        readers.register("toy", ToyReader())


def test_a_registered_reader_makes_its_files_documents(toy: None) -> None:
    assert readers.is_document("posts/a.toy") and readers.kind_of("a.toy") == "toy"
    assert bundle_dir("posts/trip/index.toy") == "posts/trip"
    readers.unregister(".toy")
    assert not readers.is_document("posts/a.toy")
    readers.unregister(".md")  # a built-in reader comes back: it cannot be lost
    assert readers.is_document("posts/a.md")


def _site(tmp_path: Path, files: dict[str, str]) -> Path:
    (tmp_path / "site.yaml").write_text("title: Toys\nbase_url: https://example.org/blog/\n"
                                        "search: false\nsocial_cards: false\n")
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    return tmp_path / "site.yaml"


def test_a_toy_reader_builds_posts_through_the_registry_alone(
        tmp_path: Path, toy: None) -> None:
    site = _site(tmp_path, {
        "content/posts/2024-03-01-kite.toy": "title: A kite\ndate: 2024-03-01\ntags: toys\n\n"
                                             "It *flies*. See [the top](../posts/top/index.toy)"
                                             ".\n",
        "content/posts/top/index.toy": "title: A top\ndate: 2024-03-02\n\nIt spins.\n",
        "content/posts/top/spin.txt": "a file of the bundle",
        "content/posts/2024-03-03-md.md": "---\ntitle: Markdown\n---\n\n"
                                          "[The kite](2024-03-01-kite.toy).\n",
    })
    report = build(site, jobs=1)
    assert report.diagnostics == [] and report.posts == 3
    out = tmp_path / "_site"
    kite = (out / "posts" / "kite" / "index.html").read_text()
    html5lib.HTMLParser(strict=True).parse(kite)
    assert "<title>A kite" in kite and "It <em>flies</em>." in kite
    assert 'href="/blog/posts/top/"' in kite  # the link map placed the bundle's document
    assert (out / "posts" / "top" / "spin.txt").read_text() == "a file of the bundle"
    assert 'href="/blog/posts/kite/"' in (out / "posts" / "md" / "index.html").read_text()
    assert "A kite" in (out / "tags" / "toys" / "index.html").read_text()
    assert not (out / "posts" / "2024-03-01-kite.toy").exists()  # not copied as an asset


def test_a_toy_readers_error_is_a_message_at_its_line(tmp_path: Path, toy: None) -> None:
    site = _site(tmp_path, {"content/posts/a.toy": "title: A\n\nFine.\n!!\n"})
    with pytest.raises(BuildFailed) as failed:
        build(site, jobs=1)
    [problem] = failed.value.diagnostics
    assert (problem.file, problem.line) == ("content/posts/a.toy", 4)
    assert "may not shout" in problem.message


def test_without_the_reader_its_files_are_assets(tmp_path: Path) -> None:
    site = _site(tmp_path, {"content/posts/a.toy": "title: A\n\nFine.\n"})
    build(site, jobs=1)
    assert (tmp_path / "_site" / "posts" / "a.toy").read_text() == "title: A\n\nFine.\n"
