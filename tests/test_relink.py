"""After the renders, the link map is brought up to date from the one the renders used: only
the sources whose records changed are read again. It must be the map a reading of every
record makes, whatever the edit (a new post, a deleted one, a renamed title, a heading that
a cross-reference shows, front matter that no longer parses in the live server)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from blogbuild.config import load_config
from blogbuild.content.linkmap import LinkMap
from blogbuild.pipeline import sources
from blogbuild.pipeline.engine import Engine


def post(title: str, body: str, date: str = "2024-01-01") -> str:
    return f"---\ntitle: {title}\ndate: {date}\ntags: [t]\n---\n\n{body}\n"


@pytest.fixture
def checked(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Every link map made after the renders is compared with one made from every record."""
    made: list[int] = []  # per call: the maps it made (0: the map before it, reused)
    original: Callable[[sources.Relinker], LinkMap] = sources.Relinker.__call__
    build = sources.build_link_map
    built: list[int] = []

    def counted(*args: Any, **kwargs: Any) -> LinkMap:
        built.append(1)
        return build(*args, **kwargs)

    monkeypatch.setattr(sources, "build_link_map", counted)

    def relink(self: sources.Relinker) -> LinkMap:
        built.clear()
        patched = original(self)
        made.append(len(built))
        full = sources.LinkInputs.of(self.entries).link_map(*self.args)
        assert patched == full
        assert patched.snippets.digests == full.snippets.digests  # type: ignore[union-attr]
        return patched

    monkeypatch.setattr(sources.Relinker, "__call__", relink)
    return made


EDITS: list[tuple[str, str, str | None]] = [  # (what, file, its new text or None: deleted)
    ("a new post", "c.md", post("Gamma", "## Third\n\nSee [](a.md#first).", "2024-03-01")),
    ("a heading that a cross-reference shows", "a.md",
     post("Alpha", "## First, renamed\n\nText.")),
    ("a title from the first heading", "b.md",
     "---\ndate: 2024-02-01\n---\n\n# Beta by its heading\n\n[[Alpha]]\n"),
    ("front matter that does not parse", "b.md", "---\ntitle: [unclosed\n---\n\nBroken.\n"),
    ("the front matter mended", "b.md", post("Beta again", "Back. [[Gamma]]", "2024-02-01")),
    ("a deleted post", "c.md", None),
    ("a body only", "a.md", post("Alpha", "## First, renamed\n\nOther text.")),
    ("text that no label or preview shows", "b.md",
     post("Beta again", "Back, with more words. [[Gamma]]", "2024-02-01")),
]


@pytest.mark.parametrize("lenient", [False, True], ids=["build", "live server"])
def test_the_updated_link_map_is_the_one_every_record_makes(
        tmp_path: Path, checked: list[int], lenient: bool) -> None:
    site = tmp_path / "site"
    content = site / "content" / "posts"
    content.mkdir(parents=True)
    (site / "site.yaml").write_text('title: "L"\nbase_url: "https://example.org/"\n'
                                    "search: false\n")
    (content / "a.md").write_text(post("Alpha", "## First\n\nText."))
    (content / "b.md").write_text(post("Beta", "See [](a.md#first) and [[Alpha]].",
                                       "2024-02-01"))
    engine = Engine(load_config(site / "site.yaml"), lenient=lenient)
    try:
        engine.run()
        for what, name, text in EDITS:
            if not lenient and what == "front matter that does not parse":
                continue  # a build fails on it (tested elsewhere)
            if text is None:
                (content / name).unlink()
            else:
                (content / name).write_text(text)
            before = len(checked)
            engine.run()
            if what == "a new post":
                # Its headings are new labels: the map is made again once, and the round
                # after the renders it asked for compares with that map, not the first.
                assert checked[before:] == [1, 0]
    finally:
        engine.close()
    assert len(checked) >= len(EDITS)
    # An edit that changes nothing the map holds (a body only) reuses the first map; the
    # others make it again.
    assert 0 in checked and 1 in checked
