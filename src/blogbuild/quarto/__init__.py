"""What Quarto reads around a `.qmd` file and what its pages share: the page's state
(`QuartoPage`, the render environment's `quarto`) and the helpers of blogbuild.readers.qmd.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["QuartoPage"]


@dataclass
class QuartoPage:
    """What the Quarto plugins of one page share (`env["quarto"]`, set by the reader).

    Each capability keeps its own fields here (defaults for a page that has none)."""
