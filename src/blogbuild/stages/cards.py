"""Social cards in a build: which posts get one, drawing the missing ones in worker processes
into the site's cache, and the files that copy them from there into the output.

A card is cached as `<key>.png`, its key covering its text and everything else it is drawn
with, so a clean output folder with a warm cache copies cards without drawing one, and an
edited title draws that post's card only.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from blogbuild import diskcache
from blogbuild.config_model import Config
from blogbuild.content.models import Post, Site
from blogbuild.diagnostics import Diagnostic, warning
from blogbuild.fileio import write_atomically
from blogbuild.output.cards import SITE_CARD, Card, card_rel, draw_card, missing_glyphs
from blogbuild.output.claims import Owner
from blogbuild.output.files import FileSpec
from blogbuild.pool import run_jobs
from blogbuild.stages import Step
from blogbuild.stages.context import KEEP_SECONDS, BuildContext, StageBase
from blogbuild.urls import split_url

_CARD_FIX = ("rename the other file, or give the post an 'image:' of its own (then it gets "
             "no card) or set 'social_cards: false' in site.yaml")
_SITE_CARD_FIX = (f"rename your file, or make it the picture of the site's pages with "
                  f"'social: {{image: /{SITE_CARD}}}' in site.yaml (the site's card is then "
                  "not drawn), or set 'social_cards: false'")
#: Below these many cards to draw, they are drawn in this process.
CARD_POOL_MIN = 32


def _date(post: Post, config: Config) -> str:
    if post.date is None:
        return ""
    try:
        return post.date.strftime(config.date_format)
    except ValueError:
        return post.date.strftime("%Y-%m-%d")


def _address(config: Config) -> str:
    """The site's address as a reader types it: `example.org/blog`."""
    parts = split_url(config.base_url)
    return (parts.netloc + parts.path).rstrip("/")


def site_cards(config: Config, site: Site) -> tuple[list[Card], list[Diagnostic]]:
    """A card for every post without `image:`, and the site's own card unless site.yaml
    names a `social.image` (none when `social_cards` is off); warnings for titles with
    letters the card font cannot draw (they are left out of the card)."""
    if not config.social_cards:
        return [], []
    cards, problems = [], []
    if not config.social.image:
        cards.append(Card(SITE_CARD, config.title, _address(config), ""))
    for post in site.posts:
        if post.meta.image:
            continue
        cards.append(Card(card_rel(post.url), post.title, config.title, _date(post, config),
                          tuple(tag.name for tag in post.tags)))
        lacking = missing_glyphs(post.title)
        if lacking:
            problems.append(warning(post.display, post.meta.title_line, (
                f"the social card font has no glyph for {lacking!r} in the title; the card "
                "leaves them out. Set 'image:' to share a picture of your own")))
    return cards, problems


def _draw_one(item: tuple[Card, str]) -> None:
    """Draw one card into the cache; written under a temporary name, then renamed, so a
    card that is there is whole (another build may share the cache)."""
    card, path = item
    write_atomically(Path(path), draw_card(card), mode=0o644)


def _no_setup(*_: object) -> None:
    """The card workers need nothing but the module (the fonts load on first use)."""


def make_cards(cards: list[Card], folder: Path, scratch: Callable[[], Path],
               jobs: int) -> Path:
    """Draw the cards `folder` does not have; returns the folder that has them all: one in
    `scratch()` (all drawn afresh) when `folder` cannot be written, which only costs time."""
    try:  # one listing, not a look-up per card (a thousand for a thousand posts)
        present = set(os.listdir(folder))
    except OSError:
        present = set()
    todo = {card.key: card for card in cards if f"{card.key}.png" not in present}
    if not todo:
        return folder
    try:
        folder.mkdir(parents=True, exist_ok=True)
        _draw_one((next(iter(todo.values())), str(folder / f"{next(iter(todo))}.png")))
    except OSError:
        folder = scratch() / "cards"
        folder.mkdir(parents=True, exist_ok=True)
        todo = {card.key: card for card in cards}
    items = [(card, str(folder / f"{key}.png")) for key, card in sorted(todo.items())
             if not (folder / f"{key}.png").is_file()]
    for _ in run_jobs(items, _draw_one, _no_setup, (), jobs=jobs, minimum=CARD_POOL_MIN):
        pass
    return folder


def card_files(cards: list[Card], folder: Path, site: Site) -> list[FileSpec]:
    """The output files of the cards: copies of the cached PNGs."""
    by_rel = {card_rel(post.url): post for post in site.posts}
    specs = []
    for card in cards:
        post = by_rel.get(card.rel)
        owner = Owner("the site's social card", "", fix=_SITE_CARD_FIX) if post is None \
            else Owner(f"the social card of {post.display}", post.display,
                       post.meta.title_line, fix=_CARD_FIX)
        specs.append(FileSpec(card.rel, folder / f"{card.key}.png", owner, addressed=True))
    return specs


def prune_cards(folder: Path, cards: list[Card], *, older_than: float) -> None:
    """Remove cached cards this build does not use and that no build wrote for `older_than`
    seconds (another output folder may still use a recent one). Never fails."""
    keep = frozenset(f"{card.key}.png" for card in cards)
    diskcache.prune_folder(folder, older_than=older_than, keep=keep)


@dataclass
class Cards:
    """The social cards of a run, and the folder that holds them all."""

    cards: list[Card]
    folder: Path


class CardsStage(StageBase):
    """A card for every post without a picture of its own, and one for the site, drawn
    where the cache lacks them."""

    name = "cards"
    step = Step.SITE

    def decide(self, ctx: BuildContext) -> list[Card]:
        assert ctx.site is not None
        cards, problems = site_cards(ctx.config, ctx.site)
        ctx.diagnostics += problems
        return cards

    def make(self, ctx: BuildContext, plan: list[Card]) -> Cards:
        ctx.progress("drawing social cards", 0, 0)
        folder = make_cards(plan, self._folder(ctx), ctx.scratch, ctx.jobs)
        return Cards(plan, folder)

    def files(self, ctx: BuildContext, made: Cards) -> list[FileSpec]:
        assert ctx.site is not None
        return card_files(made.cards, made.folder, ctx.site)

    def prune(self, ctx: BuildContext) -> None:
        made = ctx.made_by(self.name)
        if isinstance(made, Cards) and ctx.folders.due("cards"):
            prune_cards(self._folder(ctx), made.cards, older_than=KEEP_SECONDS)

    @staticmethod
    def _folder(ctx: BuildContext) -> Path:
        """Where cards are cached (in the scratch folder without a cache)."""
        assert ctx.folders.files is not None
        return ctx.folders.files / "cards"


STAGE = CardsStage()
