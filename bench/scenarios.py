"""The timed scenarios: what state a build starts from, what changed, which command runs.

Every run starts from the state its scenario names and is timed in a fresh process; a
change is undone after the timed build, and an untimed build then puts output and cache
back, so that every run of a scenario starts from the same state. The sites take turns
run by run, so that a change in the machine's load hits both tools alike.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from dataclasses import dataclass

from corpora import Command, Site
from proctree import Measure, measure, run_quietly

Undo = Callable[[], None]


def settle(site: Site) -> None:
    """Bring output and cache up to date with the sources (untimed)."""
    if not site.settled:
        argv, env = site.build()
        run_quietly(argv, cwd=site.root, env=env)
        site.settled = True


def only_cache(site: Site) -> None:
    """A warm cache and no output folder: a CI job that restored its cache."""
    settle(site)
    site.remove_output()


def nonce() -> str:
    """Makes each run's edit new text, so a render cache cannot answer it from a past run."""
    return f"{time.time_ns() % 0xFFFFFFF:07x}"


def middle_post(site: Site) -> tuple[str, bytes]:
    """The post edited in every run (the same file name in both corpora) and its text."""
    posts = sorted(site.posts.glob("post-*.md"))
    path = posts[len(posts) // 2]
    return path.name, path.read_bytes()


def rewrite(site: Site, name: str, text: str, original: bytes) -> Undo:
    path = site.posts / name
    path.write_text(text, encoding="utf-8")

    def undo() -> None:
        path.write_bytes(original)
    return undo


def edit_body(site: Site, run: int, spare: list[str]) -> Undo:
    name, original = middle_post(site)
    text = original.decode() + f"\nOne more sentence, added in run {run} ({nonce()}).\n"
    return rewrite(site, name, text, original)


def edit_title(site: Site, run: int, spare: list[str]) -> Undo:
    name, original = middle_post(site)
    text = original.decode().replace('title: "', f'title: "Revised ({nonce()}): ', 1)
    return rewrite(site, name, text, original)


def add_post(site: Site, run: int, spare: list[str]) -> Undo:
    """A post no build has seen (one per run), dated after every other post: it tops the
    front page and the feeds and moves every listing page by one."""
    text = re.sub(r"(?m)^date: .*$", "date: 2031-01-01T08:00:00", spare[run % len(spare)],
                  count=1)
    text = text.replace('title: "', f'title: "New ({nonce()}): ', 1)
    path = site.posts / "bench-new-post.md"
    path.write_text(text, encoding="utf-8")
    return lambda: path.unlink(missing_ok=True)


def delete_post(site: Site, run: int, spare: list[str]) -> Undo:
    """The edited post deleted: the listings that showed it change, and every post after
    it in the search index's order (from the oldest) moves up a place."""
    name, original = middle_post(site)
    path = site.posts / name
    path.unlink()
    return lambda: path.write_bytes(original)


@dataclass(frozen=True)
class Scenario:
    key: str
    label: str
    setup: Callable[[Site], None]
    command: Callable[[Site], Command]
    change: Callable[[Site, int, list[str]], Undo] | None = None
    clean: bool = False  # the command starts from nothing (and may leave the cache empty)


def clean_build(site: Site) -> Command:
    """With `--timings`: blogbuild's table of where the time went (perf_counter around a
    few calls per post: a negligible cost)."""
    return site.clean_build(timings=True)


def clean_build_one_job(site: Site) -> Command:
    return site.clean_build(jobs=1)


def build(site: Site) -> Command:
    return site.build()


SCENARIOS = [
    Scenario("clean", "clean build, no cache", Site.forget, clean_build, clean=True),
    Scenario("cold", "cold build, warm cache", only_cache, build),
    Scenario("nochange", "no-change rebuild", settle, build),
    Scenario("edit", "one post edited", settle, build, edit_body),
    Scenario("title", "one title changed", settle, build, edit_title),
    Scenario("new", "one new post", settle, build, add_post),
    Scenario("delete", "one post deleted", settle, build, delete_post),
    Scenario("jobs1", "clean build, --jobs 1", Site.forget, clean_build_one_job, clean=True),
]


def run_once(scenario: Scenario, site: Site, run: int, spare: list[str]) -> Measure:
    scenario.setup(site)
    undo = scenario.change(site, run, spare) if scenario.change else None
    argv, env = scenario.command(site)
    try:
        result = measure(argv, cwd=site.root, env=env)
    finally:
        if undo is not None:
            undo()
            site.settled = False
    if undo is not None:
        settle(site)
    else:
        site.settled = not scenario.clean or site.clean_fills_cache
    return result


def run_scenario(scenario: Scenario, sites: list[Site], runs: int,
                 spare: list[str]) -> dict[str, list[Measure]]:
    """`runs` measures per site, the sites taking turns."""
    results: dict[str, list[Measure]] = {site.name: [] for site in sites}
    for run in range(runs):
        for site in sites:
            results[site.name].append(run_once(scenario, site, run, spare))
    return results
