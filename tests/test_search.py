"""Search: what the Pagefind index holds, when it is made again, and a build without Pagefind."""

from __future__ import annotations

import gzip
import json
import shutil
from pathlib import Path
from typing import Any

import html5lib
import pytest

from blogbuild.cli import main
from blogbuild.commands.build import build

SITE_YAML = 'title: "Search"\nbase_url: "https://example.org/blog/"\nposts_per_page: 1\n'
POSTS = {
    "2024-01-01-first.md": "---\ntitle: First, with a comma\ntags: [a]\n---\n\n"
                           "The aardvark lives here.\n\n## Part two\n\nMore words.\n\n"
                           "<div data-pagefind-ignore>Ignored quokka.</div>\n\n"
                           '<img src="data:image/png;base64,iVBORw0KGgo2468013579" '
                           'alt="A plot">\n',
    "2024-01-02-second.md": "---\ntitle: Second\ntags: [a, b]\n---\n\nInline $x^2$ math and "
                            "code:\n\n```python\nprint('hi')\n```\n",
}


@pytest.fixture
def site(tmp_path: Path) -> Path:
    root = tmp_path / "site"
    (root / "content" / "posts").mkdir(parents=True)
    (root / "site.yaml").write_text(SITE_YAML)
    for name, text in POSTS.items():
        (root / "content" / "posts" / name).write_text(text)
    (root / "content" / "about.md").write_text("---\ntitle: About\n---\n\nAbout this blog.\n")
    return root


def fragments(out: Path) -> dict[str, dict[str, Any]]:
    """The index's pages by URL, read from its fragment files."""
    found = {}
    for path in (out / "pagefind" / "fragment").iterdir():
        data = gzip.decompress(path.read_bytes())
        page = json.loads(data[data.index(b"{"):])
        found[page["url"]] = page
    return found


def tree(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def test_the_index_holds_posts_and_pages_with_the_sub_path(site: Path) -> None:
    build(site / "site.yaml")
    out = site / "_site"
    pages = fragments(out)
    assert set(pages) == {"/blog/posts/first/", "/blog/posts/second/", "/blog/about/"}
    first = pages["/blog/posts/first/"]
    assert first["meta"]["title"] == "First, with a comma"
    assert first["meta"]["date"] == "January 1, 2024"
    assert "aardvark" in first["content"] and "quokka" not in first["content"]
    assert [a["id"] for a in first["anchors"] if a["element"] == "h2"] == ["part-two"]
    # No picture taken from the body: it may be a data: URL (a figure made by the build),
    # kilobytes of base64 that searches for digits would match.
    assert first["meta"].get("image", "") == "" and "image_alt" not in first["meta"]
    index = b"".join(gzip.decompress(p.read_bytes()) for p in (out / "pagefind").rglob("*.pf_*"))
    assert b"2468013579" not in index
    second = pages["/blog/posts/second/"]["content"]
    # KaTeX's visual copy, the TeX source and the copy button are not text to search.
    assert "x2" in second and "x2x2" not in second and "x^2" not in second
    assert "Copy" not in second and "print('hi')" in second
    # Only what the search box loads.
    top = {p.name for p in (out / "pagefind").iterdir()}
    assert {"pagefind.js", "pagefind-worker.js", "pagefind-entry.json", "wasm.en.pagefind",
            "index", "fragment"} <= top
    assert not [name for name in top if "ui" in name or "highlight" in name]


def test_pages_carry_the_search_control(site: Path) -> None:
    build(site / "site.yaml")
    doc = html5lib.parse((site / "_site" / "posts" / "first" / "index.html").read_bytes(),
                         namespaceHTMLElements=False)
    link = doc.find(".//header//a[@class='search-link']")
    assert link is not None and link.get("href") == "/blog/archive/"
    assert link.get("data-pagefind") == "/blog/pagefind/pagefind.js"
    scripts = [s.get("src") for s in doc.iter("script")]
    assert "/blog/js/search.js" in scripts


def test_nothing_indexed_changed_keeps_the_index(site: Path,
                                                pagefind_reads: list[list[str]]) -> None:
    build(site / "site.yaml")
    assert pagefind_reads == [["/about/", "/posts/first/", "/posts/second/"]]
    before = tree(site / "_site" / "pagefind")
    build(site / "site.yaml")  # nothing changed at all
    # The pages change, the index does not: the engine runs and keeps the index's files.
    config = site / "site.yaml"
    config.write_text(config.read_text().replace('"Search"', '"Another title"'))
    report = build(site / "site.yaml")
    assert len(pagefind_reads) == 1
    assert report.templated and not {r for r in report.changed if r.startswith("pagefind/")}
    assert tree(site / "_site" / "pagefind") == before


def test_an_edit_reads_only_the_edited_page_again(site: Path,
                                                  pagefind_reads: list[list[str]]) -> None:
    build(site / "site.yaml")
    old = set(tree(site / "_site" / "pagefind"))
    source = site / "content" / "posts" / "2024-01-01-first.md"
    source.write_text(source.read_text().replace("aardvark", "okapi"))
    report = build(site / "site.yaml")
    assert pagefind_reads[1:] == [["/posts/first/"]]
    first = fragments(site / "_site")["/blog/posts/first/"]["content"]
    assert "okapi" in first and "aardvark" not in first
    now = set(tree(site / "_site" / "pagefind"))
    assert {f"pagefind/{r}" for r in old - now} <= report.removed
    clean = site.parent / "clean"
    build(site / "site.yaml", output=clean, use_cache=False)
    assert tree(site / "_site") == tree(clean)


def test_two_clean_builds_are_byte_identical(site: Path, tmp_path: Path) -> None:
    outs = []
    for name in ("one", "two"):
        shutil.rmtree(site / ".blogbuild-cache", ignore_errors=True)
        build(site / "site.yaml", output=tmp_path / name)
        outs.append(tree(tmp_path / name))
    assert any(rel.startswith("pagefind/index/") for rel in outs[0])
    assert outs[0] == outs[1]


def test_search_false_leaves_it_out(site: Path) -> None:
    (site / "site.yaml").write_text(SITE_YAML + "search: false\n")
    build(site / "site.yaml")
    out = site / "_site"
    assert not (out / "pagefind").exists()
    page = (out / "posts" / "first" / "index.html").read_text()
    assert "search.js" not in page and "search-link" not in page and "search.css" not in page


@pytest.mark.parametrize(("program", "said"), [
    ("no-such-program", "search: cannot run"),
    ("/bin/true", "search: Pagefind stopped"),  # starts, but answers nothing
])
def test_without_pagefind_the_build_warns_once_and_goes_on(
        site: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        program: str, said: str) -> None:
    monkeypatch.setenv("PAGEFIND_BINARY_PATH", str(site / program))
    assert main(["build", "--config", str(site / "site.yaml")]) == 0
    err = capsys.readouterr().err
    assert err.count("warning:") == 1 and said in err, err
    assert "Traceback" not in err and "pip install" in err
    assert not (site / "_site" / "pagefind").exists()
    assert (site / "_site" / "posts" / "first" / "index.html").is_file()
    # The next build tries again, and has the index once Pagefind is back.
    monkeypatch.delenv("PAGEFIND_BINARY_PATH")
    assert main(["build", "--config", str(site / "site.yaml")]) == 0
    assert "warning:" not in capsys.readouterr().err
    assert (site / "_site" / "pagefind" / "pagefind.js").is_file()


def test_search_is_a_boolean_in_site_yaml(site: Path, capsys: pytest.CaptureFixture[str],
                                          ) -> None:
    (site / "site.yaml").write_text(SITE_YAML + "search: yes please\n")
    assert main(["build", "--config", str(site / "site.yaml")]) != 0
    assert "'search' must be true or false" in capsys.readouterr().err


def test_a_failed_run_stops_the_index_made_beside_its_pages(
        site: Path, monkeypatch: pytest.MonkeyPatch, index_here: None) -> None:
    """The index is made in a thread while pages are templated: a template error fails the
    build at once, Pagefind's reading is stopped, and the last output stays as it was."""
    import threading
    import time

    from blogbuild import cancel
    from blogbuild.diagnostics import BlogbuildError
    from blogbuild.stages.search import index as search

    build(site / "site.yaml")
    before = tree(site / "_site")
    source = site / "content" / "posts" / "2024-01-01-first.md"
    source.write_text(source.read_text().replace("aardvark", "okapi"))
    (site / "templates").mkdir()
    (site / "templates" / "tag.html").write_text("{% extends 'base.html' %}"
                                                 "{% block content %}{{ nope.at_all }}"
                                                 "{% endblock %}\n")
    reading, stopped = threading.Event(), threading.Event()

    def slow_pagefind(*args: Any) -> Any:
        reading.set()
        token = cancel.current()
        deadline = time.monotonic() + 30
        while not token.cancelled and time.monotonic() < deadline:
            time.sleep(0.01)
        if token.cancelled:
            stopped.set()
        token.check()
        raise AssertionError("the index's thread was never stopped")

    monkeypatch.setattr(search, "read_pages", slow_pagefind)
    started = time.monotonic()
    with pytest.raises(BlogbuildError, match="nope"):
        build(site / "site.yaml")
    assert reading.is_set() and stopped.is_set()
    assert time.monotonic() - started < 20
    assert tree(site / "_site") == before
    assert not [t for t in threading.enumerate() if t.name == "search-index"]


def test_a_pagefind_on_the_path_keys_the_index(tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """Without PAGEFIND_BINARY_PATH or a pagefind_bin package, the program the build runs
    is the one on the PATH: another one there (an upgrade) makes a new index."""
    import importlib.util

    from blogbuild.stages.search import program as search_program

    folder = tmp_path / "bin"
    folder.mkdir()
    monkeypatch.delenv("PAGEFIND_BINARY_PATH", raising=False)
    monkeypatch.setenv("PATH", str(folder))
    monkeypatch.setattr(importlib.util, "find_spec", lambda name: None)
    assert search_program.versions() == ""  # none anywhere
    tool = folder / "pagefind"
    tool.write_text("#!/bin/sh\n")
    tool.chmod(0o755)
    first = search_program.versions()
    assert str(tool) in first
    tool.write_text("#!/bin/sh\n# a newer one\n")
    assert search_program.versions() not in ("", first)
