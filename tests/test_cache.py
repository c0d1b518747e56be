"""The render cache: its key covers every option a render reads; damaged entries are rebuilt."""

from __future__ import annotations

import contextlib
import dataclasses
import os
import pickle
import shutil
import sqlite3
import time
from pathlib import Path
from typing import Any

import pytest

from blogbuild.commands.build import build
from blogbuild.config import (
    CalloutType,
    CheckConfig,
    CitationsConfig,
    CommentsConfig,
    Config,
    ImagesConfig,
    MathConfig,
    NavLink,
    NotebooksConfig,
    RunnableConfig,
    SocialConfig,
    StatementsConfig,
)
from blogbuild.content.records import Rendered, RenderResult
from blogbuild.fingerprints import digest_of
from blogbuild.pipeline.render import SourceJob, render_source
from blogbuild.pipeline.store import CACHE_DIR, RenderCache
from blogbuild.runtimes import katex
from process_helpers import build_in_a_new_process

ROOT = Path(__file__).resolve().parent.parent
BASIC = Path(__file__).parent / "sites" / "basic"

#: A post that uses everything a config option can change: math with a macro, numbered
#: equations, `$` math, a site callout type, links and images by absolute path, widgets.
POST = r"""---
title: Every option
---

Inline $\RR^n$, $$y$$ and \(x\) with a [link](/about/) and ![an image](/img/a.png).

\begin{equation}\label{eq:a}
a = b
\end{equation}

\begin{equation}
c = d
\end{equation}

See \eqref{eq:a}.

> [!DEFINITION]
> A defined term.

> [!THEOREM]
> A theorem.

> [!NOTE]
> A note.

<div class="collapsible" data-label="More">

Hidden text.

</div>

As [@knuth:tex/book] shows.
"""

#: For every Config field, another valid value. A field added to Config must be added here.
OTHER: dict[str, Any] = {
    "root": Path("/elsewhere"),
    "title": "Other title",
    "base_url": "https://example.org/sub/",
    "author": "Someone",
    "description": "Other description",
    "language": "de",
    "permalink": "/{year}/{slug}/",
    "posts_per_page": 3,
    "nav": (NavLink("Home", "/"),),
    "date_format": "%Y-%m-%d",
    "content_dir": "posts-here",
    "output_dir": "public",
    "feed_entries": 5,
    "feed_content": "summary",
    "toc_min_headings": 1,
    "search": False,
    "callouts": {"definition": CalloutType(title="Definition", color="#123456")},
    "statements": StatementsConfig(counters="per-type"),
    "math": MathConfig(macros={r"\RR": r"\mathbb{R}"}),
    "runnable": RunnableConfig(packages_url="https://example.org/pyodide/"),
    "check": CheckConfig(ignore=("https://example.org/*",)),
    "sidenotes": True,
    "social_cards": False,
    "social": SocialConfig(twitter="@other"),
    "images": ImagesConfig(enabled=False),  # the render records which pictures it shows
    "notebooks": NotebooksConfig(scripts=True),
    "extra": {"analytics": "x"},
    "bibliography": (str(Path(__file__).parent / "bib" / "refs.bib"),),
    "citations": CitationsConfig(style="numeric"),
    "citation_files": "another hash",
    "bibliography_lines": (7,),
    "comments": CommentsConfig(repo="a/b", repo_id="R", category="C", category_id="D"),
}
MATH_OTHER: dict[str, Any] = {
    "enabled": False,
    "inline_dollar": False,
    "inline_double_dollar": "display",
    "output": "html",
    "macros": {r"\RR": r"\mathbb{R}"},
    "numbering": False,
}


def _render(config: Config, source: Path) -> tuple[str, RenderResult]:
    data = source.read_bytes()
    job = SourceJob(source, "posts/every.md", "post", "content/posts/every.md")
    result = render_source(job, config, data)
    return digest_of(data, config), result


#: Options that change the key of every post though only posts that cite render otherwise
#: (the style, the bytes of the site's .bib files): a key that knew would need the render.
KEY_ONLY = {"citations", "citation_files",
            # Only notebooks read it; the key does not know which sources are notebooks.
            "notebooks"}


def _variants() -> list[tuple[str, Config]]:
    base = Config()
    found = [(name, dataclasses.replace(base, **{name: value})) for name, value in OTHER.items()]
    found += [(f"math.{name}", dataclasses.replace(
        base, math=dataclasses.replace(base.math, **{name: value})))
        for name, value in MATH_OTHER.items()]
    return found


def test_every_config_field_has_another_value_here() -> None:
    assert sorted(OTHER) == sorted(f.name for f in dataclasses.fields(Config))
    assert sorted(MATH_OTHER) == sorted(f.name for f in dataclasses.fields(MathConfig))


@pytest.mark.parametrize(("name", "config"), _variants(), ids=[n for n, _ in _variants()])
def test_cache_key_changes_iff_the_rendered_post_does(
    name: str, config: Config, tmp_path: Path
) -> None:
    source = tmp_path / "every.md"
    source.write_text(POST, encoding="utf-8")
    digest, result = _render(Config(), source)
    other_digest, other = _render(config, source)
    assert result.ok and other.ok
    changed = (other.rendered, other.meta) != (result.rendered, result.meta) \
        or name in KEY_ONLY
    assert (other_digest != digest) == changed, (
        f"{name}: the rendered post {'changed' if changed else 'did not change'} but the "
        f"cache key {'did not' if other_digest == digest else 'did'}")


def _site(tmp_path: Path) -> Path:
    site = tmp_path / "site"
    shutil.copytree(BASIC, site, ignore=shutil.ignore_patterns("expected"))
    return site


def _entries(site: Path) -> list[Path]:
    return sorted((site / CACHE_DIR / "render").rglob("*.pickle"))


def _older_class_entry(path: Path) -> bytes:
    """The entry as an older blogbuild wrote it: a Rendered without today's fields."""
    result = pickle.loads(path.read_bytes())
    rendered = object.__new__(Rendered)
    state = dict(vars(result.rendered))
    del state["word_count"], state["anchors"]
    object.__setattr__(rendered, "__dict__", state)
    return pickle.dumps(RenderResult(result.job, result.digest, result.meta, rendered,
                                     result.diagnostics))


DAMAGE = {
    "truncated": lambda path: path.read_bytes()[: len(path.read_bytes()) // 2],
    "empty": lambda path: b"",
    "random bytes": lambda path: bytes(range(256)) * 4,
    "another type": lambda path: pickle.dumps({"html": "<p>not a result</p>"}),
    "another digest": lambda path: pickle.dumps(
        dataclasses.replace(pickle.loads(path.read_bytes()), digest="0" * 64)),
    "older class": _older_class_entry,
    "a missing class": lambda path: b"cblogbuild.pipeline.render\nNoSuchClass\n.",
}


@pytest.mark.parametrize("damage", sorted(DAMAGE))
def test_a_damaged_entry_is_rendered_again_and_rewritten(damage: str, tmp_path: Path) -> None:
    site = _site(tmp_path)
    build(site / "site.yaml")
    good = {p: p.read_bytes() for p in (site / "_site").rglob("*.html")}
    entries = _entries(site)
    assert len(entries) == 5
    for entry in entries:
        entry.write_bytes(DAMAGE[damage](entry))
    shutil.rmtree(site / "_site")  # a restored cache and no output: every page needs a body
    report = build(site / "site.yaml")
    assert (report.rendered, report.cached) == (5, 0)
    assert {p: p.read_bytes() for p in good} == good
    shutil.rmtree(site / "_site")
    assert build(site / "site.yaml").cached == 5  # rewritten whole


def test_a_lost_body_is_rendered_again_when_a_page_needs_it(tmp_path: Path) -> None:
    """The build state says nothing changed, but a template did and the store lost the
    bodies the pages show: those sources are rendered again, nothing fails."""
    site = _site(tmp_path)
    build(site / "site.yaml")
    for entry in _entries(site):
        entry.write_bytes(b"")
    (site / "templates").mkdir(exist_ok=True)
    (site / "templates/page.html").write_text(
        '{% extends "theme/page.html" %}{% block title %}Page: {{ page.title }}'
        "{% endblock %}")
    report = build(site / "site.yaml")
    pages = [rel for rel, template in report.written.items() if template == "page.html"]
    assert report.rendered == len(pages) > 0
    assert report.templated == set(pages)
    for rel in pages:
        text = (site / "_site" / rel).read_text()
        assert "<title>Page: " in text and "</article>" in text


def test_unreadable_entries_and_a_cache_that_is_a_file(tmp_path: Path) -> None:
    site = _site(tmp_path)
    build(site / "site.yaml")
    for entry in _entries(site):
        entry.unlink()
        entry.mkdir()  # cannot be opened as a file, whoever runs the test
    shutil.rmtree(site / "_site")
    assert build(site / "site.yaml").rendered == 5
    shutil.rmtree(site / CACHE_DIR)
    (site / CACHE_DIR).write_text("not a folder")
    report = build(site / "site.yaml")
    assert report.rendered == 5 and (site / "_site/index.html").is_file()
    assert (site / CACHE_DIR).read_text() == "not a folder"


def test_render_cache_get_never_raises(tmp_path: Path) -> None:
    cache = RenderCache.of_site(tmp_path)
    digest = "ab" * 32
    path = tmp_path / CACHE_DIR / "render" / "ab" / f"{digest}.pickle"
    path.parent.mkdir(parents=True)
    for payload in (b"\x80\x05N.", b"\x80\x05K\x01.", b"(((((", pickle.dumps(RenderResult)):
        path.write_bytes(payload)
        assert cache.get(digest) is None


MATH_POST = "---\ntitle: M\ndate: 2024-01-01\n---\n\n$$\ne^{i\\pi} + 1 = 0\n$$\n"


def _math_site(tmp_path: Path) -> Path:
    site = tmp_path / "site"
    (site / "content/posts").mkdir(parents=True)
    (site / "site.yaml").write_text("title: T\nbase_url: https://example.org/\n")
    (site / "content/posts/m.md").write_text(MATH_POST)
    return site


def _formulas(db: Path) -> int:
    with contextlib.closing(sqlite3.connect(db)) as conn:
        return int(conn.execute("SELECT count(*) FROM formulas").fetchone()[0])


def _build_in_a_new_process(site: Path) -> None:
    """Each build in its own process: this one's workers would remember formulas."""
    build_in_a_new_process(site, env={**os.environ, "BLOGBUILD_WORKERS": "1"}, timeout=120)


@pytest.mark.parametrize("damage", ["garbage", "truncated", "empty"])
def test_a_damaged_formula_cache_is_replaced(damage: str, tmp_path: Path) -> None:
    site = _math_site(tmp_path)
    _build_in_a_new_process(site)
    db = site / CACHE_DIR / katex.CACHE_FILE
    assert _formulas(db) == 1
    first = (site / "_site/posts/m/index.html").read_bytes()
    data = db.read_bytes()
    db.write_bytes({"garbage": b"this is not a database" * 100,
                    "truncated": data[: len(data) // 3], "empty": b""}[damage])
    shutil.rmtree(site / CACHE_DIR / "render")
    shutil.rmtree(site / CACHE_DIR / "state")  # what the last build knew: render again
    _build_in_a_new_process(site)
    assert (site / "_site/posts/m/index.html").read_bytes() == first
    assert _formulas(db) == 1


def test_a_locked_formula_cache_does_not_fail_or_stall_the_build(tmp_path: Path) -> None:
    site = _math_site(tmp_path)
    cache = site / CACHE_DIR
    cache.mkdir()
    db = cache / katex.CACHE_FILE
    with contextlib.closing(sqlite3.connect(db)) as conn:
        conn.execute("CREATE TABLE formulas (key TEXT PRIMARY KEY, result TEXT)")
    with contextlib.closing(sqlite3.connect(db)) as conn:  # another program's lock
        conn.execute("PRAGMA locking_mode=EXCLUSIVE")
        conn.execute("BEGIN EXCLUSIVE")
        katex.clear_memo()
        started = time.perf_counter()
        report = build(site / "site.yaml")
        katex.close()
    assert time.perf_counter() - started < 15  # not a wait of 30 s per attempt
    assert report.posts == 1
    assert "katex" in (site / "_site/posts/m/index.html").read_text()


@pytest.mark.xdist_group("example")  # with the other users of `example_clean`
def test_two_clean_builds_of_the_example_blog_are_identical(example_clean: Path,
                                                             tmp_path: Path) -> None:
    first = example_clean
    second = tmp_path / "two"
    katex.clear_memo()
    build(ROOT / "site.yaml", output=second, use_cache=False)
    one = {p.relative_to(first).as_posix(): p for p in first.rglob("*") if p.is_file()}
    two = {p.relative_to(second).as_posix(): p for p in second.rglob("*") if p.is_file()}
    assert sorted(one) == sorted(two) and len(one) > 20
    for rel, path in one.items():
        assert path.read_bytes() == two[rel].read_bytes(), rel


def test_a_process_started_for_another_cache_folder_is_told_that_folder(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The environment of a process started before the engine names its folder (the search
    index's) names the given folder, whatever this process's names, or none."""
    from blogbuild import diskcache

    monkeypatch.setenv(diskcache.CACHE_ENV, str(tmp_path / "this-process"))
    base = {**os.environ, "OTHER": "kept"}
    told = diskcache.environment(tmp_path / "site" / ".." / "cache", base)
    assert told[diskcache.CACHE_ENV] == str((tmp_path / "cache").resolve())
    assert told["OTHER"] == "kept" and base[diskcache.CACHE_ENV] == str(tmp_path / "this-process")
    assert diskcache.CACHE_ENV not in diskcache.environment(None, base)
