"""Navigation between posts: the series box, related posts and cover images, read from the
built pages as a browser parses them."""

from __future__ import annotations

import datetime as dt
import random
import xml.etree.ElementTree as ET
from pathlib import Path
from types import SimpleNamespace as NS
from typing import Any

import html5lib
import pytest
from PIL import Image

from blogbuild.commands.build import BuildReport, build
from blogbuild.diagnostics import BuildFailed
from blogbuild.pipeline.nav import Ranking, related_posts
from blogbuild.stages.covers import image_size

SITE_YAML = 'title: "Nav"\nbase_url: "https://example.org/blog/"\nposts_per_page: 20\n'


def write_post(root: Path, name: str, front: str, body: str = "Some words.") -> Path:
    path = root / "content" / "posts" / f"{name}.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"---\ntitle: {name.title()}\n{front}\n---\n\n{body}\n")
    return path


def make_site(tmp_path: Path, posts: dict[str, str]) -> Path:
    root = tmp_path / "site"
    (root / "content").mkdir(parents=True, exist_ok=True)
    (root / "site.yaml").write_text(SITE_YAML)
    for name, front in posts.items():
        write_post(root, name, front)
    return root


def run(root: Path, *, strict: bool = False) -> BuildReport:
    return build(root / "site.yaml", strict=strict, use_cache=False)


def page(root: Path, path: str) -> ET.Element:
    html = (root / "_site" / path).read_bytes()
    tree: ET.Element = html5lib.parse(html, namespaceHTMLElements=False)
    return tree


def text(element: ET.Element) -> str:
    return " ".join("".join(element.itertext()).split())


def messages(report: BuildReport) -> list[str]:
    return [d.format() for d in report.diagnostics]


SERIES = {  # the numbers place the parts, not the dates
    "intro": "date: 2024-03-01\nseries: Deep dive\nseries_order: 1",
    "middle": "date: 2024-02-01\nseries: [Deep dive]\nseries_part: 2",  # Hugo's list form
    "finale": "date: 2024-01-15\nseries: {name: Deep dive, part: 3}",
    "aside": "date: 2024-03-01",
}


def test_of_several_series_the_first_counts_with_a_warning(tmp_path: Path) -> None:
    root = make_site(tmp_path, {"a": "date: 2024-01-01\nseries: [One, Two]",
                                "b": "date: 2024-01-02\nseries: One"})
    report = run(root)
    assert "content/posts/a.md:4: warning: a post is in one series: only the first of these " \
        "2 is used" in messages(report)
    assert page(root, "posts/b/index.html").find(".//nav[@class='series']") is not None


def test_series_box_lists_the_parts_in_order_and_marks_this_one(tmp_path: Path) -> None:
    root = make_site(tmp_path, SERIES)
    run(root)
    box = page(root, "posts/middle/index.html").find(".//nav[@class='series']")
    assert box is not None and box.get("aria-label") == "Series: Deep dive"
    assert "Part 2 of 3" in text(box)
    items = box.findall("./ol/li")
    assert [text(li) for li in items] == ["Intro", "Middle", "Finale"]
    assert [li.get("aria-current") for li in items] == [None, "page", None]
    assert items[1].find("a") is None
    assert [li.find("a").get("href") for li in (items[0], items[2])] == [  # type: ignore
        "/blog/posts/intro/", "/blog/posts/finale/"]
    assert page(root, "posts/aside/index.html").find(".//nav[@class='series']") is None


def test_the_series_page_lists_the_parts_in_reading_order(tmp_path: Path) -> None:
    root = make_site(tmp_path, SERIES)
    run(root)
    box = page(root, "posts/intro/index.html").find(".//nav[@class='series']//a")
    assert box is not None and box.get("href") == "/blog/series/deep-dive/"
    listing = page(root, "series/deep-dive/index.html")
    assert [text(h) for h in listing.findall(".//h2[@class='post-item-title']")] == [
        "Intro", "Middle", "Finale"]
    assert "https://example.org/blog/series/deep-dive/" in (
        root / "_site" / "sitemap.xml").read_text()


def test_a_page_where_the_series_page_goes_is_an_error(tmp_path: Path) -> None:
    root = make_site(tmp_path, SERIES)
    (root / "content" / "series").mkdir()
    (root / "content" / "series" / "deep-dive.md").write_text("# Mine\n")
    with pytest.raises(BuildFailed) as failed:
        run(root)
    assert any("series/deep-dive/index.html" in d.message and "Deep dive" in d.message
               for d in failed.value.diagnostics)


def test_series_order_places_parts_and_a_shared_number_is_a_warning(tmp_path: Path) -> None:
    root = make_site(tmp_path, {
        "one": "date: 2024-03-01\nseries: Tour\nseries_order: 1",
        "two": "date: 2024-01-01\nseries: Tour\nseries_order: 2",
        "three": "date: 2024-02-01\nseries: Tour\nseries_order: 2",
    })
    report = run(root)
    box = page(root, "posts/one/index.html").find(".//nav[@class='series']")
    assert box is not None
    assert [text(li) for li in box.findall("./ol/li")] == ["One", "Two", "Three"]
    assert any(m.startswith("content/posts/three.md:5: warning: part 2 of the series 'Tour' "
                            "is also content/posts/two.md") for m in messages(report))


def test_a_series_of_one_post_shows_no_box_and_warns(tmp_path: Path) -> None:
    root = make_site(tmp_path, {"solo": "date: 2024-01-01\nseries: Alone"})
    report = run(root)
    assert page(root, "posts/solo/index.html").find(".//nav[@class='series']") is None
    assert any(m.startswith("content/posts/solo.md:4: warning: the series 'Alone' has only "
                            "this post") for m in messages(report))


@pytest.mark.parametrize("front, says", [
    ("series: [[A]]", "'series' must be a name, not a list"),
    ("series: A\nseries_order: two", "a post's place in its series must be a whole number"),
    ("series: {part: 2}", "'series' needs a 'name:'"),
])
def test_a_wrong_series_is_an_error_with_its_line(tmp_path: Path, front: str,
                                                  says: str) -> None:
    root = make_site(tmp_path, {"bad": "date: 2024-01-01\n" + front})
    with pytest.raises(BuildFailed) as failed:
        run(root)
    assert any(d.file == "content/posts/bad.md" and d.line > 0 and says in d.message
               for d in failed.value.diagnostics)


def related(root: Path, name: str) -> list[str]:
    aside = page(root, f"posts/{name}/index.html").find(".//aside[@class='related']")
    if aside is None:
        return []
    assert aside.get("aria-label") == "Related posts"
    return [text(a) for a in aside.findall(".//li/a")]


def test_related_posts_rank_by_shared_tags_then_closeness_in_date_then_title(
        tmp_path: Path) -> None:
    root = make_site(tmp_path, {
        "base": "date: 2024-01-10\ntags: [a, b, c]",
        "two-far": "date: 2024-03-01\ntags: [a, b]",
        "two-near": "date: 2024-01-08\ntags: [b, c]",
        "one-before": "date: 2024-01-05\ntags: [a]",  # five days either side: the newer
        "one-after": "date: 2024-01-15\ntags: [c]",
        "one-old": "date: 2023-01-01\ntags: [a]",
        "none": "date: 2024-06-01\ntags: [z]",
        "draft": "date: 2024-01-10T01:00:00\ntags: [a, b, c]\ndraft: true",
        # its older and newer neighbours: linked below the post already
        "older": "date: 2024-01-09T12:00:00\ntags: [a, b, c]",
        "newer": "date: 2024-01-10T06:00:00\ntags: [a, b, c]",
        # as close and as new: by title
        "t-base": "date: 2025-01-01\ntags: [q]",
        "t-b": "date: 2025-01-03\ntags: [q]",
        "t-a": "date: 2025-01-03\ntags: [q]",
        "t-c": "date: 2024-12-30\ntags: [q]",
        "gap-1": "date: 2024-12-31\ntags: [gap]",
        "gap-2": "date: 2025-01-02\ntags: [gap]",
    })
    run(root)
    assert related(root, "base") == ["Two-Near", "Two-Far", "One-After"]
    assert related(root, "t-base") == ["T-A", "T-B", "T-C"]
    assert related(root, "none") == []
    assert "Draft" not in related(root, "two-near")


def test_related_posts_leave_out_the_series_parts(tmp_path: Path) -> None:
    root = make_site(tmp_path, {
        "p1": "date: 2024-01-01\ntags: [a]\nseries: S",
        "p2": "date: 2024-01-02\ntags: [a]\nseries: S",
        "p3": "date: 2024-01-03\ntags: [a]",
    })
    run(root)
    assert related(root, "p1") == ["P3"]


def make_png(path: Path, size: tuple[int, int]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    Image.new("RGB", size, (30, 120, 200)).save(path)


def key_of_png(path: Path) -> str:
    """The key that names the copies of the picture at `path`, with the default options."""
    from blogbuild.images.process import Options, key_of, probe

    return key_of(probe(path.read_bytes(), ".png", Options().max_pixels), Options())


def test_covers_in_lists_and_on_the_post(tmp_path: Path) -> None:
    root = make_site(tmp_path, {
        "local": "date: 2024-01-01\ntags: [a]\nimage: ../assets/cover.png\n"
                 "image_alt: A blue square",
        "site-path": "date: 2024-01-02\ntags: [a]\nimage: /assets/cover.png",
        "remote": "date: 2024-01-03\nimage: https://cdn.example.com/x.jpg",
        "plain": "date: 2024-01-04",
    })
    make_png(root / "content" / "assets" / "cover.png", (300, 200))
    assert run(root).diagnostics == []
    items = page(root, "index.html").findall(".//li[@class='post-item']")
    covers = {text(li.find(".//h2")): li.find(".//img[@class='post-item-cover']")  # type: ignore
              for li in items}
    local, site_path, remote = covers["Local"], covers["Site-Path"], covers["Remote"]
    assert covers["Plain"] is None and local is not None and site_path is not None
    # The picture's widest copy in its own format (blogbuild.stages.images).
    assert (local.get("src"), local.get("width"), local.get("height"), local.get("alt")) == (
        f"/blog/assets/cover.{key_of_png(root / 'content/assets/cover.png')}.300.png", "300",
        "200", "A blue square")
    assert (local.get("loading"), local.get("decoding")) == ("lazy", "async")
    assert site_path.get("alt") == "" and site_path.get("width") == "300"
    assert remote is not None and remote.get("src") == "https://cdn.example.com/x.jpg"
    assert remote.get("width") is None
    tag = page(root, "tags/a/index.html").find(".//img[@class='post-item-cover']")
    assert tag is not None and tag.get("width") == "300"
    cover = page(root, "posts/local/index.html").find(".//img[@class='post-cover']")
    assert cover is not None and cover.get("loading") is None
    assert cover.get("fetchpriority") == "high" and cover.get("height") == "200"


def test_a_missing_or_unreadable_cover_is_a_warning(tmp_path: Path) -> None:
    root = make_site(tmp_path, {"gone": "date: 2024-01-01\nimage: /nowhere.png",
                                "broken": "date: 2024-01-02\nimage: /junk.png"})
    (root / "static").mkdir()
    (root / "static" / "junk.png").write_bytes(b"not a picture")
    report = run(root)
    found = messages(report)
    assert any(m.startswith("content/posts/gone.md:4: warning: image '/nowhere.png' not "
                            "found") for m in found)
    assert any(m.startswith("content/posts/broken.md:4: warning: image '/junk.png' cannot "
                            "be read") for m in found)
    assert page(root, "index.html").find(".//img[@class='post-item-cover']") is None
    with pytest.raises(BuildFailed):
        run(root, strict=True)


def test_a_sideways_photo_reports_its_shown_size(tmp_path: Path) -> None:
    path = tmp_path / "photo.jpg"
    exif = Image.Exif()
    exif[0x0112] = 6  # rotated 90 degrees
    Image.new("RGB", (40, 30)).save(path, exif=exif)
    assert image_size(path) == (30, 40)


def brute_related(posts: list[Any], limit: int = 3) -> dict[str, tuple[Any, ...]]:
    """The definition, pair by pair."""
    out = {}
    for post in posts:
        own = {p.source for p in [post, post.previous, post.next,
                                  *(post.series.posts if post.series else [])] if p}
        mine = {t.slug for t in post.tags}
        when = post.date.timestamp()
        scored = [(-len(mine & {t.slug for t in o.tags}), abs(o.date.timestamp() - when),
                   -o.date.timestamp(), o.title, o.source, o)
                  for o in posts if o.source not in own and not o.meta.draft]
        best = [s[-1] for s in sorted(scored, key=lambda s: s[:-1]) if s[0] < 0][:limit]
        if best:
            out[post.source] = tuple(best)
    return out


def random_posts(rng: random.Random) -> list[Any]:
    """Sixty posts with random tags, dates, drafts and neighbours, four in a series."""
    posts: list[Any] = []
    for i in range(60):
        tags = [NS(slug=f"t{t}") for t in rng.sample(range(7), rng.randint(0, 5))]
        date = dt.datetime(2024, 1, 1) + dt.timedelta(days=rng.randint(0, 20))
        posts.append(NS(source=f"p{i}", title=f"T{rng.randint(0, 9)}{i}", date=date,
                        tags=tuple(tags), series=None, meta=NS(draft=rng.random() < 0.1)))
    for post in posts:
        post.previous, post.next = rng.choice(posts), rng.choice([None, *posts])
    series = NS(posts=posts[:4])
    for post in series.posts:
        post.series = series
    return posts


@pytest.mark.parametrize("seed", range(8))
def test_related_posts_match_the_pairwise_definition(seed: int) -> None:
    posts = random_posts(random.Random(seed))
    assert related_posts(posts) == brute_related(posts)


def by_source(related: dict[str, tuple[Any, ...]]) -> dict[str, list[str]]:
    """Related posts as sources: the posts link each other, and the repr pytest would
    show of a failed comparison never ends."""
    return {source: [p.source for p in others] for source, others in related.items()}


@pytest.mark.parametrize("seed", range(4))
def test_a_kept_ranking_is_reused_only_while_what_ranks_the_posts_holds(seed: int) -> None:
    rng = random.Random(seed)
    posts = random_posts(rng)
    expected = by_source(related_posts(posts))
    first = Ranking()
    found = by_source(first.rank(posts))
    assert found == expected
    kept = Ranking(first.kept)
    found = by_source(kept.rank(posts))
    assert found == expected
    assert kept.kept is first.kept  # reused, not ranked again
    changes = [
        lambda p: setattr(p, "tags", (*p.tags, NS(slug="t0"))),
        lambda p: setattr(p, "tags", p.tags[1:]),
        lambda p: setattr(p, "date", p.date + dt.timedelta(days=3)),
        lambda p: setattr(p, "title", "A0"),
        lambda p: setattr(p, "meta", NS(draft=not p.meta.draft)),
        lambda p: setattr(p, "next", rng.choice(posts)),
    ]
    for change in changes:
        change(rng.choice(posts))
        again = Ranking(kept.kept)
        found, expected = by_source(again.rank(posts)), by_source(brute_related(posts))
        assert found == expected
        kept = again
