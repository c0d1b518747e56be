"""The build's state on disk: shards of which an edit rewrites only those that changed, an
index written last, and a cold start (never a wrong build) from anything damaged."""

from __future__ import annotations

from pathlib import Path

import pytest

from blogbuild import fingerprints
from blogbuild.commands.build import build
from blogbuild.output.outdir import CACHE_DIR
from blogbuild.pipeline.state import state_key
from blogbuild.pipeline.state_files import INDEX, load_state, save_state

POST = "---\ntitle: Post {n}\ndate: 2024-01-{n:02d}\ntags: [t{tag}]\n---\n\nWords of {n}.\n"


@pytest.fixture
def site(tmp_path: Path) -> Path:
    root = tmp_path / "site"
    (root / "content" / "posts").mkdir(parents=True)
    (root / "site.yaml").write_text('title: "S"\nbase_url: "https://example.org/"\n'
                                    "posts_per_page: 3\nsearch: false\n")
    for n in range(1, 21):
        (root / "content" / "posts" / f"p{n}.md").write_text(POST.format(n=n, tag=n % 3))
    build(root / "site.yaml")
    return root


def folder(site: Path) -> Path:
    (found,) = [p for p in (site / CACHE_DIR / "state").iterdir() if p.is_dir()]
    return found


def files(site: Path) -> set[str]:
    return {p.name for p in folder(site).iterdir()}


def key(site: Path) -> str:
    return state_key(fingerprints.code_fingerprint(), (site / "_site").resolve(), False)


def test_an_edit_rewrites_the_shards_of_what_changed(site: Path) -> None:
    before = files(site)
    post = site / "content" / "posts" / "p7.md"
    post.write_text(post.read_text() + "\nMore words.\n")
    build(site / "site.yaml")
    after = files(site)
    written = sorted(name.rsplit("-", 1)[0] for name in after - before if name != INDEX)
    # The post's record, its fingerprint and its values; the pages templated again.
    assert {"sources", "posts", "values"} <= {name.split("-")[0] for name in written}
    assert len(written) < len(after) // 4
    assert len(after) == len(before)  # the shards replaced are gone


def test_a_state_saved_and_loaded_is_the_same(site: Path) -> None:
    cache = site / CACHE_DIR
    state = load_state(cache, key(site))
    assert state is not None and state.sources and state.pages and state.values
    again = load_state(cache, key(site))
    assert again == state
    assert save_state(cache, again, state)
    assert load_state(cache, key(site)) == state


def test_a_refreshed_output_time_is_saved(site: Path) -> None:
    """`intact` refreshes an entry's time in place (the bytes are the same): the shard that
    holds it is written again, although its entries are the same objects."""
    cache = site / CACHE_DIR
    state = load_state(cache, key(site))
    assert state is not None
    rel, entry = next(iter(state.pages.items()))
    entry.out.mtime_ns += 1
    before = files(site)
    assert save_state(cache, state, state)
    assert len(files(site) - before) == 1  # the shard (the index is replaced)
    loaded = load_state(cache, key(site))
    assert loaded is not None and loaded.pages[rel].out.mtime_ns == entry.out.mtime_ns


@pytest.mark.parametrize("damage", ["index", "shard", "missing shard"])
def test_a_damaged_state_is_a_cold_start_with_the_same_output(site: Path, damage: str,
                                                              tmp_path: Path) -> None:
    target = folder(site) / INDEX
    if damage != "index":
        target = next(p for p in folder(site).iterdir() if p.name.startswith("sources-"))
    if damage == "missing shard":
        target.unlink()
    else:
        target.write_bytes(b"\x80\x05K\x01." if damage == "shard" else b"(((")
    assert load_state(site / CACHE_DIR, key(site)) is None
    post = site / "content" / "posts" / "p7.md"
    post.write_text(post.read_text() + "\nMore words.\n")  # past the check for no change
    assert build(site / "site.yaml").fresh  # as if there were no state
    assert load_state(site / CACHE_DIR, key(site)) is not None
    build(site / "site.yaml", output=tmp_path / "clean", use_cache=False)
    assert tree(site / "_site") == tree(tmp_path / "clean")


def tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*") if p.is_file()}
