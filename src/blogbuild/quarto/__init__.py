"""What Quarto reads around a `.qmd` file and what its pages share: the page's state
(`QuartoPage`, the render environment's `quarto`) and the helpers of blogbuild.readers.qmd.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from blogbuild.quarto.model import PageCells

__all__ = ["QuartoPage", "freeze_folders"]


@dataclass
class QuartoPage:
    """What the Quarto plugins of one page share (`env["quarto"]`, set by the reader).

    Each capability keeps its own fields here (defaults for a page that has none)."""

    # xrefs (blogbuild.markdown.quarto.xrefs, .labels): Quarto's cross-references.
    #: `number-sections: true`: the headings show their numbers ("1.2 Methods").
    number_sections: bool = False
    #: `crossref:` words as written: `fig-title`, `eq-prefix`, `title-delim`, …, and
    #: `ref-hyperlink` ("true" or "false").
    crossref: dict[str, str] = field(default_factory=dict)
    #: id -> (type, number) of each numbered thing of the page (`fig-a` -> ("fig", "1")),
    #: filled while the page is parsed, for its references.
    xref_numbers: dict[str, tuple[str, str]] = field(default_factory=dict)

    # files: the merged front matter ({{< meta key >}}) and the site's _variables.yml
    # ({{< var key >}}; None: the file is not there or not read).
    meta: dict[str, Any] = field(default_factory=dict)
    variables: dict[str, Any] | None = None

    # cells (blogbuild.quarto.cells, .model): the page's executable cells, their options
    # and outputs.
    cells: PageCells | None = None


def freeze_folders(root: Path, content_dir: str) -> list[Path]:
    """The folders that may hold Quarto's freeze files, in the order they are looked in
    (here, not in .freeze: a build that changed nothing looks at their files' sizes and
    times, blogbuild.pipeline.quick, and must not load the freeze reader for it)."""
    return [root / "_freeze", root / content_dir / "_freeze"]
