"""The bibliography stage: the .bib files a document cites from (its own `bibliography:`,
from its folder, or the site's), read once its front matter is (`Step.FRONT`), for the
citations its render formats (`posts`, loaded when a document cites)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from blogbuild.stages import Step
from blogbuild.stages.context import Page, StageBase

if TYPE_CHECKING:
    from blogbuild.content.frontmatter import FrontMatter
    from blogbuild.stages.bibliography.posts import PostBibliography


class BibliographyStage(StageBase):
    """The library of the document's bibliography into its render's environment
    (`bibliography`), and what is wrong with the files into its problems."""

    name = "bibliography"
    step = Step.FRONT

    def decide(self, page: Page) -> FrontMatter | None:
        if page.front is None or page.job is None or page.config is None:
            return None
        if page.front.data.get("bibliography") is None and not page.config.bibliography:
            return None
        return page.front

    def make(self, page: Page, plan: FrontMatter) -> PostBibliography:
        from blogbuild.stages.bibliography.posts import post_bibliography

        assert page.job is not None and page.config is not None
        made = post_bibliography(page.job, plan, page.config)
        page.env["bibliography"] = made.library
        page.problems += made.problems
        return made


STAGE = BibliographyStage()


def still_same(files: Any, root: Path, memo: dict[str, str | None]) -> bool:
    """True when every (file, sha256) a render read has the same bytes now, and every
    file it found missing (digest MISSING) is missing still."""
    for shown, digest in files:
        if shown not in memo:
            from blogbuild.bib.library import current_digest

            memo[shown] = current_digest(root / shown)
        if memo[shown] != digest:
            return False
    return True
