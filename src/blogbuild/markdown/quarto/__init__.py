"""Quarto's Markdown: what a `.qmd` page (blogbuild.readers.qmd) adds to the site's dialect.

Each plugin here is installed in the one parser every page uses, and does nothing on a
page whose environment holds no `quarto` (a `.md` post parses as before).
"""

from __future__ import annotations

from collections.abc import MutableMapping
from typing import Any

from markdown_it import MarkdownIt

from blogbuild.config import Config

__all__ = ["is_quarto", "quarto_plugin"]


def is_quarto(env: MutableMapping[str, Any]) -> bool:
    """Whether the page being parsed is a Quarto document."""
    return env.get("quarto") is not None


def quarto_plugin(md: MarkdownIt, *, config: Config) -> None:
    """Quarto's additions, each gated by `is_quarto`."""
