"""The build's state on disk: shards of which an edit writes only those that changed, into
one new pack; an index written last; packs gathered before they pile up; and a cold start
(never a wrong build) from anything damaged."""

from __future__ import annotations

import pickle
import shutil
from pathlib import Path
from typing import Any

import pytest

from blogbuild import fingerprints
from blogbuild.commands.build import build
from blogbuild.output.outdir import CACHE_DIR
from blogbuild.pipeline.state import state_key
from blogbuild.pipeline.state_files import INDEX, MAX_PACKS, load_state, save_state

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


def index(site: Path) -> dict[str, Any]:
    with open(folder(site) / INDEX, "rb") as fh:
        found: dict[str, Any] = pickle.load(fh)
    return found


def edit(site: Path, n: int = 7) -> None:
    post = site / "content" / "posts" / f"p{n}.md"
    post.write_text(post.read_text() + "\nMore words.\n")


def test_an_edit_writes_the_shards_of_what_changed_into_one_pack(site: Path) -> None:
    before = index(site)
    edit(site)
    build(site / "site.yaml")
    after = index(site)
    new = set(after["packs"]) - set(before["packs"])
    assert len(new) == 1 and new <= files(site)
    written = {name for name, (pack, _, _) in after["places"].items() if pack in new}
    # The post's record, its fingerprint and its values; the pages templated again.
    assert {"sources", "posts", "values"} <= {name.split("-")[0] for name in written}
    assert 0 < len(written) < len(after["places"]) // 4
    # The other shards are where they were, and each file is a pack of the index.
    assert all(after["places"][name] == place for name, place in before["places"].items()
               if name not in written)
    assert files(site) == {INDEX, *after["packs"]}


def test_packs_are_gathered_before_they_pile_up(site: Path) -> None:
    """Edits leave shards nobody reads in older packs: the state folder stays within
    `MAX_PACKS` files and about twice its live bytes, and loads as a clean build's."""
    live = []
    for round_ in range(3 * MAX_PACKS):
        edit(site, 1 + round_ % 20)
        build(site / "site.yaml")
        found = index(site)
        assert len(found["packs"]) <= MAX_PACKS
        assert files(site) == {INDEX, *found["packs"]}
        used = sum(length for _, _, length in found["places"].values())
        assert sum(found["packs"].values()) <= 2 * used + max(
            length for _, _, length in found["places"].values()) * 8
        live.append(len(found["packs"]))
    assert max(live) > 2 and min(live[MAX_PACKS:]) == 1  # they grew, and were gathered
    state = load_state(site / CACHE_DIR, key(site))
    assert state is not None
    clean = site.parent / "clean"
    shutil.copytree(site, clean, ignore=shutil.ignore_patterns(CACHE_DIR, "_site"))
    build(clean / "site.yaml")
    again = load_state(clean / CACHE_DIR, state_key(fingerprints.code_fingerprint(),
                                                     (clean / "_site").resolve(), False))
    assert again is not None
    assert set(again.sources) == set(state.sources) and again.values == state.values


def test_a_state_saved_and_loaded_is_the_same(site: Path) -> None:
    cache = site / CACHE_DIR
    state = load_state(cache, key(site))
    assert state is not None and state.sources and state.pages and state.values
    again = load_state(cache, key(site))
    assert again == state
    assert save_state(cache, again, state)
    assert load_state(cache, key(site)) == state


def test_list_and_feed_entries_stay_packed_until_a_build_templates_them(site: Path) -> None:
    """The feeds' entries (megabytes for a large blog), and the lists', are loaded as
    their pickles; a build that templates no feed keeps them as they were, and one that
    does unpickles them."""
    cache = site / CACHE_DIR
    config = site / "site.yaml"
    config.write_text(config.read_text() + "feed_entries: 2\n")  # p1 is in no feed
    build(site / "site.yaml")
    state = load_state(cache, key(site))
    assert state is not None and state.feed_items == {} and state.items == {}
    assert {n.rsplit("-", 1)[0] for n in state.packed} == {"feed_items", "items"}
    entries = state.part("feed_items")
    assert "posts/p20.md" in entries and not state.packed_of("feed_items")
    assert state.packed_of("items") and state.items == {}
    assert "posts/p20.md" in state.part("items") and not state.packed
    before = index(site)["places"]
    edit(site, 1)  # the oldest post: in no feed
    build(site / "site.yaml")
    after = index(site)["places"]
    assert {n: p for n, p in after.items() if n.startswith("feed_items-")} == {
        n: p for n, p in before.items() if n.startswith("feed_items-")}
    again = load_state(cache, key(site))
    assert again is not None and again.part("feed_items") == entries
    edit(site, 20)  # the newest: in the feeds
    build(site / "site.yaml")
    last = load_state(cache, key(site))
    assert last is not None
    assert "More words." in last.part("feed_items")["posts/p20.md"].html
    assert last.part("feed_items")["posts/p17.md"] == entries["posts/p17.md"]
    # A packed shard that cannot be read leaves its entries out; a feed makes them again.
    spoiled = load_state(cache, key(site))
    assert spoiled is not None
    spoiled.packed = {name: b"not a pickle" for name in spoiled.packed}
    assert spoiled.part("feed_items") == {}


def test_a_refreshed_output_time_is_saved(site: Path) -> None:
    """`intact` refreshes an entry's time in place (the bytes are the same): the shard that
    holds it is written again, although its entries are the same objects."""
    cache = site / CACHE_DIR
    state = load_state(cache, key(site))
    assert state is not None
    rel, entry = next(iter(state.pages.items()))
    entry.out.mtime_ns += 1
    before = index(site)
    assert save_state(cache, state, state)
    after = index(site)
    (new,) = set(after["packs"]) - set(before["packs"])  # the shard's
    assert [name for name, place in after["places"].items() if place[0] == new] == [
        name for name, place in after["places"].items() if before["places"][name] != place]
    loaded = load_state(cache, key(site))
    assert loaded is not None and loaded.pages[rel].out.mtime_ns == entry.out.mtime_ns


@pytest.mark.parametrize("damage", ["index", "pack", "pack cut short", "missing pack"])
def test_a_damaged_state_is_a_cold_start_with_the_same_output(site: Path, damage: str,
                                                              tmp_path: Path) -> None:
    edit(site, 3)
    build(site / "site.yaml")  # two packs: the damage is in the one of the sources' shard
    target = folder(site) / INDEX
    if damage != "index":
        places = index(site)["places"]
        target = folder(site) / places[min(n for n in places if n.startswith("sources-"))][0]
    if damage == "missing pack":
        target.unlink()
    elif damage == "pack cut short":
        target.write_bytes(target.read_bytes()[:-1])
    elif damage == "pack":
        data = target.read_bytes()
        target.write_bytes(b"\x80\x05K\x01." + data[7:])
    else:
        target.write_bytes(b"(((")
    assert load_state(site / CACHE_DIR, key(site)) is None
    edit(site)  # past the check for no change
    assert build(site / "site.yaml").fresh  # as if there were no state
    assert load_state(site / CACHE_DIR, key(site)) is not None
    build(site / "site.yaml", output=tmp_path / "clean", use_cache=False)
    assert tree(site / "_site") == tree(tmp_path / "clean")


def tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*") if p.is_file()}
