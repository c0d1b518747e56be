"""Math (syntax.md §3) — being written; see issue 4."""

from __future__ import annotations

from markdown_it import MarkdownIt

from blogbuild.config import MathConfig


def math_plugin(md: MarkdownIt, *, config: MathConfig | None = None) -> None:
    return None
