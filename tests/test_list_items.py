"""A post's entry in the lists of posts is templated once and shown on every list page
(blogbuild.pipeline.items): within a build, and from one build to the next while nothing
it shows changed. Whatever changed, the output is the one a clean build writes."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import jinja2
import pytest

from blogbuild.commands.build import BuildReport, build
from blogbuild.themefiles import ITEM_TEMPLATE
from test_incremental import POSTS, edit, post_text, posts
from test_incremental import rebuild as checked_rebuild
from test_incremental import site as site  # the fixture


class Made(list[str]):
    """The sources whose list entry was templated, in order (by this process: a build of a
    handful of pages templates them in its own process); `paused` while a test's clean
    build checks the output."""

    paused = False


def count_renders(monkeypatch: pytest.MonkeyPatch, template: str) -> Made:
    """The sources of the posts whose entry `template` writes from now on."""
    made = Made()
    render = jinja2.Template.render

    def counted(self: jinja2.Template, *args: object, **kwargs: object) -> str:
        if self.name == template and not made.paused:
            made.append(kwargs["post"].source)  # type: ignore[attr-defined]
        return render(self, *args, **kwargs)

    monkeypatch.setattr(jinja2.Template, "render", counted)
    return made


@pytest.fixture
def entries(monkeypatch: pytest.MonkeyPatch) -> Iterator[Made]:
    yield count_renders(monkeypatch, ITEM_TEMPLATE)


def rebuild(site: Path, change: Callable[[], None], tmp_path: Path,
            entries: Made) -> BuildReport:
    """test_incremental's rebuild (the output is a clean build's), counting the entries
    its build templated and not those of the clean build."""
    import test_incremental

    clean = test_incremental.build_clean

    def uncounted(site: Path, tmp_path: Path) -> Path:
        entries.paused = True
        try:
            return clean(site, tmp_path)
        finally:
            entries.paused = False

    original, test_incremental.build_clean = test_incremental.build_clean, uncounted
    try:
        return checked_rebuild(site, change, tmp_path)
    finally:
        test_incremental.build_clean = original


def add(site: Path, name: str, date: str, tags: list[str]) -> Callable[[], None]:
    def change() -> None:
        (site / "content" / "posts" / f"{date}-{name}.md").write_text(
            post_text(name, date, tags))
    return change


def test_a_new_post_templates_its_own_entry(
        site: Path, tmp_path: Path, entries: Made) -> None:
    # It tops the front page: every list page moves by one, the entries do not change.
    report = rebuild(site, add(site, "p7", "2024-01-07", ["a"]), tmp_path, entries)
    assert {"index.html", "page/2/index.html", "page/3/index.html",
            "tags/a/index.html"} <= report.templated
    # p6's older/newer links changed, and the related posts of those tagged "a": not what
    # their entries show. p7's entry is templated once for the front page and its tag's.
    assert entries == ["posts/2024-01-07-p7.md"]


def test_a_clean_build_templates_each_entry_once(tmp_path: Path,
                                                 entries: Made) -> None:
    root = tmp_path / "site"
    (root / "content" / "posts").mkdir(parents=True)
    (root / "site.yaml").write_text('title: "T"\nbase_url: "https://example.org/"\n')
    for name, (date, tags) in POSTS.items():
        (root / "content" / "posts" / f"{date}-{name}.md").write_text(
            post_text(name, date, tags))
    build(root / "site.yaml", jobs=1)
    # On the front page and on one or two tag pages each: templated once.
    assert sorted(entries) == sorted(f"posts/{d}-{n}.md" for n, (d, _) in POSTS.items())


def test_an_entry_shows_a_changed_summary_everywhere(site: Path, tmp_path: Path,
                                                     entries: Made) -> None:
    rebuild(site, add(site, "p7", "2024-01-07", ["a"]), tmp_path, entries)  # entries kept
    entries.clear()
    report = rebuild(site, edit(posts(site, "p2"), "The summary of p2.", "Changed."),
                     tmp_path, entries)
    assert entries == ["posts/2024-01-02-p2.md"]
    assert {"tags/a/index.html", "tags/b/index.html"} <= report.templated
    for page in ("tags/a/index.html", "tags/b/index.html"):
        assert '<p class="post-item-summary">Changed.</p>' in (site / "_site" / page).read_text()


def test_an_edit_of_what_an_entry_includes_reaches_the_lists(site: Path,
                                                             tmp_path: Path) -> None:
    def change() -> None:
        (site / "templates" / "partials").mkdir(parents=True)
        (site / "templates" / "partials" / "post_meta.html").write_text(
            '<p class="meta">{{ post.date | date }}</p>\n')
    report = checked_rebuild(site, change, tmp_path)
    assert {"index.html", "page/2/index.html", "tags/a/index.html"} <= report.templated
    assert '<p class="meta">' in (site / "_site" / "index.html").read_text()


def test_a_site_can_write_its_own_entry(site: Path, tmp_path: Path,
                                        entries: Made) -> None:
    def change() -> None:
        (site / "templates" / "partials").mkdir(parents=True)
        (site / "templates" / "partials" / "post_item.html").write_text(
            '<li class="mine">{{ post.title }} by {{ config.author or "nobody" }}</li>\n')
    rebuild(site, change, tmp_path, entries)
    assert '<li class="mine">Post p6 by nobody</li>' in (
        site / "_site" / "index.html").read_text()
    assert len(entries) == len(set(entries)) == len(POSTS)
    # What an entry read of the config is checked too: a new author reaches every entry.
    entries.clear()
    rebuild(site, edit(site / "site.yaml", 'title: "Incremental"',
                       'title: "Incremental"\nauthor: "Ada"'), tmp_path, entries)
    assert '<li class="mine">Post p6 by Ada</li>' in (site / "_site" / "index.html").read_text()
    assert len(entries) == len(POSTS)


def test_an_entry_that_uses_the_page_is_an_error_that_names_it(site: Path) -> None:
    from blogbuild.diagnostics import BlogbuildError

    (site / "templates" / "partials").mkdir(parents=True)
    (site / "templates" / "partials" / "post_item.html").write_text(
        "<li>{{ post.title }}</li>\n<li>{{ paginator.number }}</li>\n")
    with pytest.raises(BlogbuildError) as failed:
        build(site / "site.yaml")
    assert failed.value.file is not None and failed.value.file.endswith("post_item.html")
    assert "paginator" in str(failed.value)


def test_list_item_of_something_else_than_a_post_says_so(site: Path) -> None:
    from blogbuild.diagnostics import BlogbuildError

    (site / "templates").mkdir()
    (site / "templates" / "index.html").write_text(
        '{% extends "theme/index.html" %}{% block content %}{{ list_item("p1") }}'
        "{% endblock %}\n")
    with pytest.raises(BlogbuildError) as failed:
        build(site / "site.yaml")
    assert failed.value.file == "templates/index.html" or str(failed.value.file).endswith(
        "templates/index.html")
    assert "list_item() shows a post, not str" in str(failed.value)


def test_entries_templated_by_worker_processes_are_not_kept(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A clean build of many pages templates them in workers, which keep their entries to
    themselves (the build's memory); the next build that templates a list makes them."""
    from blogbuild import fingerprints
    from blogbuild.output.outdir import CACHE_DIR
    from blogbuild.pipeline import writing
    from blogbuild.pipeline.state import state_key
    from blogbuild.pipeline.state_files import load_state

    root = tmp_path / "site"
    (root / "content" / "posts").mkdir(parents=True)
    (root / "site.yaml").write_text('title: "T"\nbase_url: "https://example.org/"\n'
                                    "posts_per_page: 1\n")
    for n in range(12):
        (root / "content" / "posts" / f"2024-01-{n + 1:02d}-q{n}.md").write_text(
            post_text(f"q{n}", f"2024-01-{n + 1:02d}", ["a"]))

    def state() -> dict[str, object]:
        found = load_state(root / CACHE_DIR, state_key(fingerprints.code_fingerprint(),
                                                       (root / "_site").resolve(), False))
        assert found is not None
        return dict(found.part("items"))  # loaded when asked for, as the build does

    monkeypatch.setattr(writing, "PAGE_POOL_MIN", 2)  # every page in the workers
    build(root / "site.yaml", jobs=2)
    assert state() == {}
    add(root, "q12", "2024-01-20", ["a"])()
    build(root / "site.yaml", jobs=1)  # templated in this process: entries kept
    assert len(state()) == 13
