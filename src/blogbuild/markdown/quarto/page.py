"""Whether the page being parsed is a Quarto document: the test every Quarto plugin starts
with, in a module of its own so that the plugins (imported by the package's
`quarto_plugin`) do not import the package back."""

from __future__ import annotations

from collections.abc import MutableMapping
from typing import Any

__all__ = ["is_quarto"]


def is_quarto(env: MutableMapping[str, Any]) -> bool:
    """Whether the page being parsed is a Quarto document."""
    return env.get("quarto") is not None
