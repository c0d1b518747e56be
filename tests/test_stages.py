"""Stages: the registry runs them at their step, in order; a new stage is added through the
protocol alone (nothing of the engine is touched): it publishes a file whose path is
claimed like any other, and prunes its cache after a build that succeeded."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from pathlib import Path

import pytest

from blogbuild import stages
from blogbuild.commands.build import build
from blogbuild.diagnostics import BuildFailed
from blogbuild.output.claims import Owner
from blogbuild.output.files import FileSpec
from blogbuild.stages import Step
from blogbuild.stages.context import BuildContext, StageBase


class TitlesStage(StageBase):
    """Publishes `titles.txt`, the site's post titles, made in a cache file named by its
    bytes; prunes the cache files this build did not use."""

    name = "titles"
    step = Step.SITE

    def __init__(self) -> None:
        self.calls: list[str] = []

    def decide(self, ctx: BuildContext) -> list[str] | None:
        self.calls.append("decide")
        assert ctx.site is not None and ctx.pages  # the site is assembled, its pages planned
        return [post.title for post in ctx.site.posts] or None

    def make(self, ctx: BuildContext, plan: list[str]) -> Path:
        self.calls.append("make")
        data = "\n".join(plan).encode() + b"\n"
        assert ctx.folders.cache is not None
        folder = ctx.folders.cache / "titles"
        folder.mkdir(parents=True, exist_ok=True)
        made = folder / f"{hashlib.sha256(data).hexdigest()[:16]}.txt"
        made.write_bytes(data)
        return made

    def files(self, ctx: BuildContext, made: Path) -> list[FileSpec]:
        self.calls.append("files")
        return [FileSpec("titles.txt", made, Owner("the list of titles", ""))]

    def prune(self, ctx: BuildContext) -> None:
        self.calls.append("prune")
        made = ctx.made_by(self.name)
        assert ctx.folders.cache is not None
        for path in (ctx.folders.cache / "titles").glob("*.txt"):
            if path != made:
                path.unlink()


@pytest.fixture
def titles() -> Iterator[TitlesStage]:
    stage = TitlesStage()
    stages.register(stage)
    try:
        yield stage
    finally:
        stages.unregister(stage.name)


def _site(tmp_path: Path) -> Path:
    (tmp_path / "site.yaml").write_text("title: T\nbase_url: https://example.org/\n"
                                        "search: false\nsocial_cards: false\n")
    posts = tmp_path / "content" / "posts"
    posts.mkdir(parents=True)
    (posts / "2024-01-01-a.md").write_text("---\ntitle: Alpha\n---\n\nA.\n")
    (posts / "2024-01-02-b.md").write_text("---\ntitle: Beta\n---\n\nB.\n")
    return tmp_path / "site.yaml"


def test_the_built_in_stages_run_in_their_order() -> None:
    names = {step: [stage.name for stage in stages.stages(step)] for step in Step}
    assert names[Step.SOURCES] == ["images"]
    assert names[Step.FRONT] == ["bibliography"] and names[Step.CELLS] == ["notebook-run"]
    assert names[Step.PARSED] == ["diagrams", "execution", "charts"]
    assert names[Step.SITE] == ["covers", "cards", "stylesheets"]
    assert names[Step.PAGES] == ["search"]
    assert all(stage.step is step for step in Step for stage in stages.stages(step))


def test_a_stage_added_through_the_registry_publishes_a_file_and_prunes_its_cache(
        tmp_path: Path, titles: TitlesStage) -> None:
    config = _site(tmp_path)
    build(config, jobs=1)
    out = tmp_path / "_site"
    assert (out / "titles.txt").read_text() == "Beta\nAlpha\n"
    assert titles.calls == ["decide", "make", "files", "prune"]
    cache = tmp_path / ".blogbuild-cache" / "titles"
    [first] = cache.iterdir()

    post = tmp_path / "content" / "posts" / "2024-01-01-a.md"
    post.write_text(post.read_text().replace("Alpha", "Gamma"))
    report = build(config, jobs=1)
    assert (out / "titles.txt").read_text() == "Beta\nGamma\n"
    assert "titles.txt" in report.changed
    [second] = cache.iterdir()  # the first one was pruned
    assert second != first

    assert build(config, jobs=1).changed == set()  # nothing changed: nothing written
    stages.unregister(titles.name)
    build(config, jobs=1)
    assert not (out / "titles.txt").exists()  # the site no longer publishes it


def test_a_stages_file_is_claimed_like_any_other(tmp_path: Path, titles: TitlesStage) -> None:
    config = _site(tmp_path)
    (tmp_path / "content" / "titles.txt").write_text("mine")
    with pytest.raises(BuildFailed) as failed:
        build(config, jobs=1)
    [problem] = [d for d in failed.value.diagnostics if d.is_error]
    assert problem.file == "content/titles.txt"
    assert "the list of titles" in problem.message and "both want titles.txt" in problem.message


def test_a_stage_registered_before_another_runs_before_it(titles: TitlesStage) -> None:
    stages.register(titles, before="cards")
    assert [s.name for s in stages.stages(Step.SITE)] == ["covers", "titles", "cards",
                                                          "stylesheets"]
    stages.unregister("cards")  # a built-in stage cannot be lost: it comes back in its place
    assert [s.name for s in stages.stages(Step.SITE)] == ["covers", "titles", "cards",
                                                          "stylesheets"]
