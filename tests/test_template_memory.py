"""A process that builds again (a new engine of the live server, a program building several
sites) takes compiled templates from memory, and still gives each site's cache folder its
own copy; settings Jinja folds into the code (the base URL) keep their own."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import jinja2
import pytest

from blogbuild.commands.build import build

SITE = "title: Memory\nbase_url: https://example.org/\n"
POST = "---\ntitle: One\ndate: 2024-01-01\n---\nText.\n"


def a_site(folder: Path) -> Path:
    (folder / "content" / "posts").mkdir(parents=True)
    (folder / "site.yaml").write_text(SITE)
    (folder / "content" / "posts" / "one.md").write_text(POST)
    return folder


@pytest.fixture
def compiled(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """The names of the templates Jinja compiles from their source."""
    names: list[str] = []
    compile_source = jinja2.Environment.compile

    def counted(self: jinja2.Environment, source: object, name: str | None = None,
                *args: object, **kwargs: object) -> object:
        names.append(str(name))
        return compile_source(self, source, name, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(jinja2.Environment, "compile", counted)
    yield names


def test_a_second_site_compiles_no_template_and_its_cache_holds_them(
        tmp_path: Path, compiled: list[str]) -> None:
    first, second = a_site(tmp_path / "first"), a_site(tmp_path / "second")
    build(first / "site.yaml")
    build(second / "site.yaml")  # the first build in this process may have compiled none
    compiled.clear()
    third = a_site(tmp_path / "third")
    build(third / "site.yaml")
    assert compiled == []
    held = {p.name for p in (second / ".blogbuild-cache" / "templates").rglob("*.cache")}
    assert held == {p.name for p in (third / ".blogbuild-cache" / "templates").rglob("*.cache")}
    assert held
    assert (third / "_site" / "posts" / "one" / "index.html").read_bytes() == \
        (second / "_site" / "posts" / "one" / "index.html").read_bytes()


def test_another_base_url_and_an_edited_template_are_compiled_anew(
        tmp_path: Path, compiled: list[str]) -> None:
    site = a_site(tmp_path / "site")
    (site / "templates").mkdir()
    override = site / "templates" / "post.html"
    override.write_text('{% extends "theme/post.html" %}{% block content %}FIRST{% endblock %}')
    build(site / "site.yaml")
    build(site / "site.yaml", output=tmp_path / "preview", base_url="https://example.org/pre/")
    page = (tmp_path / "preview" / "posts" / "one" / "index.html").read_text()
    assert 'href="/pre/feed.xml"' in page and 'href="/feed.xml"' not in page
    compiled.clear()
    override.write_text('{% extends "theme/post.html" %}{% block content %}SECOND{% endblock %}')
    build(site / "site.yaml")
    assert compiled == ["post.html"]
    assert "SECOND" in (site / "_site" / "posts" / "one" / "index.html").read_text()


def test_builds_without_a_cache_share_them_and_leave_no_cache(
        tmp_path: Path, compiled: list[str]) -> None:
    """A build without a cache (`--no-cache`, a program's clean builds) takes compiled
    templates from memory too, and still writes no cache folder."""
    first, second = a_site(tmp_path / "first"), a_site(tmp_path / "second")
    build(first / "site.yaml", use_cache=False)
    compiled.clear()
    build(second / "site.yaml", use_cache=False)
    assert compiled == []
    assert not (second / ".blogbuild-cache").exists()
    compiled.clear()
    cached = a_site(tmp_path / "cached")
    build(cached / "site.yaml")  # the same code from memory, written to its cache folder
    assert compiled == []
    assert list((cached / ".blogbuild-cache" / "templates").rglob("*.cache"))
    page = Path("_site", "posts", "one", "index.html")
    assert (second / page).read_bytes() == (first / page).read_bytes() == \
        (cached / page).read_bytes()


def test_without_a_cache_another_base_url_is_compiled_anew(
        tmp_path: Path, compiled: list[str]) -> None:
    site = a_site(tmp_path / "site")
    build(site / "site.yaml", use_cache=False)
    compiled.clear()
    build(site / "site.yaml", output=tmp_path / "preview", base_url="https://example.org/pre/",
          use_cache=False)
    assert "post.html" in compiled
    page = (tmp_path / "preview" / "posts" / "one" / "index.html").read_text()
    assert 'href="/pre/feed.xml"' in page and 'href="/feed.xml"' not in page
