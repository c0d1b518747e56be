"""Callouts (syntax.md §2) — being written; see issue 3."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from markdown_it import MarkdownIt


def callouts_plugin(md: MarkdownIt, *, types: Mapping[str, Any] | None = None) -> None:
    md.options["alerts"] = True
