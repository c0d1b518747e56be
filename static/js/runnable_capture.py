"""Rich output of runnable blocks: what a block's final value and its figures look like.

Plain Python with no third-party import at load time: the build's interpreter runs it
(blogbuild executes blocks marked to run at build time). Every function returns output
items, JSON-ready dicts:

    {"type": "stream", "name": "stdout" | "stderr", "text": ...}
    {"type": "image", "mime": "image/png", "data": base64, "width", "height", "alt"}
    {"type": "html", "html": ...}
    {"type": "result", "text": ...}
    {"type": "error", "name": ..., "text": ...}

Images are made byte-stable (no software name or date in the PNG), so two builds of the
same code give the same page.
"""

from __future__ import annotations

import base64
import io
import os
import sys
import warnings
from typing import Any

Item = dict[str, Any]

#: Pixels per inch of the figures; matplotlib's default size (6.4 x 4.8 in) makes 640 x 480.
DPI = 100


def prepare() -> None:
    """Set up the interpreter before the first block: figures draw off screen, and
    `plt.show()`, which cannot open a window here, is quiet (figures are collected after
    each block by `figure_items`)."""
    os.environ.setdefault("MPLBACKEND", "Agg")
    warnings.filterwarnings("ignore", message=".*non-interactive.*cannot be shown")
    warnings.filterwarnings("ignore", message=".*Matplotlib is currently using agg.*")


def result_items(value: Any) -> list[Item]:
    """The items that show a block's final expression (none for None)."""
    if value is None:
        return []
    if _is_plot(value):
        return []  # the figure is drawn by figure_items, with the other open figures
    html = _call(value, "_repr_html_")
    if isinstance(html, str) and html:
        return [{"type": "html", "html": html}]
    return [{"type": "result", "text": repr(value)}]


def figure_items() -> list[Item]:
    """Every open matplotlib figure as a PNG item, in the order they were made; closed after."""
    pyplot = sys.modules.get("matplotlib.pyplot")
    if pyplot is None:
        return []
    items = []
    for number in pyplot.get_fignums():
        figure = pyplot.figure(number)
        buffer = io.BytesIO()
        figure.savefig(buffer, format="png", dpi=DPI, metadata={"Software": None})
        width, height = (round(v) for v in figure.get_size_inches() * DPI)
        label = _figure_label(figure)
        items.append({"type": "image", "mime": "image/png",
                      "data": base64.b64encode(buffer.getvalue()).decode("ascii"),
                      "width": width, "height": height, "alt": label})
    pyplot.close("all")
    return items


def _figure_label(figure: Any) -> str:
    """A text alternative from what the figure says about itself: its titles."""
    titles = []
    suptitle = getattr(figure, "_suptitle", None)
    if suptitle is not None and suptitle.get_text():
        titles.append(suptitle.get_text())
    for axes in figure.get_axes():
        title = axes.get_title()
        if title:
            titles.append(title)
    return "; ".join(titles) or "A figure made by the code above"


def _call(value: Any, name: str) -> Any:
    method = getattr(type(value), name, None)
    if method is None:
        return None
    try:
        return method(value)
    except Exception:  # a broken _repr_html_ falls back to repr(), as notebooks do
        return None


def _is_plot(value: Any) -> bool:
    """A matplotlib object (a figure, axes, `plt.plot`'s list of lines): notebooks show
    the figure, not its repr."""
    values = value if isinstance(value, (list, tuple)) and value else [value]
    return all(type(v).__module__.startswith("matplotlib.") for v in values)
