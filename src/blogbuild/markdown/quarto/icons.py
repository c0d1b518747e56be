"""Font Awesome icons on a Quarto page: `{{< fa name >}}`, as Quarto's fontawesome extension
writes them (`{{< fa brands github >}}`, `size=`, `title=`, `label=`).

Each icon is drawn as an inline SVG picture from Font Awesome Free's outlines (vendored by
scripts/vendor_fontawesome.py): no web font and no script, a page without an icon loads
nothing more, and the icon takes the colour of the text around it. The picture is named
for screen readers as the extension names it (its `label`, else the icon's name); a
`title` is also its tooltip. Font Awesome's attribution goes with each picture, as in
Font Awesome's own SVG files.
"""

from __future__ import annotations

import functools
import gzip
import json
from pathlib import Path
from typing import Any

from markdown_it.common.utils import escapeHtml

__all__ = ["icon_svg"]

FOLDER = Path(__file__).resolve().parent.parent.parent / "vendor" / "fontawesome"
#: Font Awesome Free's styles; the extension's default is solid.
STYLES = ("solid", "regular", "brands")
#: `size=`: LaTeX's names (as the extension takes them, relative to the normal size) and
#: Font Awesome's, in em.
SIZES = {"tiny": 0.5, "scriptsize": 0.7, "footnotesize": 0.8, "small": 0.9,
         "normalsize": 1.0, "large": 1.2, "Large": 1.44, "LARGE": 1.728, "huge": 2.074,
         "Huge": 2.488, "2xs": 0.625, "xs": 0.75, "sm": 0.875, "lg": 1.25, "xl": 1.5,
         "2xl": 2.0, **{f"{n}x": float(n) for n in range(1, 11)}}


@functools.cache
def _icons() -> dict[str, dict[str, Any]]:
    """{style: {name: [width, height, path]}, "aliases": {old name: name}}; empty when the
    file is missing (a source checkout that has not run the vendoring script)."""
    try:
        found: dict[str, dict[str, Any]] = json.loads(
            gzip.decompress((FOLDER / "icons.json.gz").read_bytes()))
    except (OSError, ValueError):
        return {}
    return found


@functools.cache
def _attribution() -> str:
    try:
        version = (FOLDER / "VERSION").read_text(encoding="utf-8").strip()
    except OSError:
        version = ""
    return (f"<!--! Font Awesome Free {version} by @fontawesome - https://fontawesome.com "
            "License - https://fontawesome.com/license/free (Icons: CC BY 4.0) -->")


def _find(style: str | None, name: str) -> tuple[str, list[Any]] | None:
    """The icon `name` (or the icon an older name stands for) in `style`, else in the first
    style that has it (a brand's icon written without `brands` is still that icon)."""
    icons = _icons()
    names = (name, icons.get("aliases", {}).get(name))
    for each in ((style,) if style else ()) + STYLES:
        for candidate in names:
            outline = icons.get(each, {}).get(candidate) if candidate else None
            if outline is not None:
                return each, outline
    return None


def icon_svg(args: list[str], named: dict[str, str]) -> tuple[str, list[str]]:
    """The SVG picture of `{{< fa [style] name … >}}` (its words `args`, its `key=value`s
    `named`), and what the author should hear about (an unknown icon: no picture)."""
    style = args[0] if len(args) > 1 and args[0] in STYLES else None
    name, *rest = args[1:] if style else (args or [""])
    problems: list[str] = []
    if rest:  # Quarto's extension reads a style and a name, and no more words
        problems.append(f"{{{{< fa {' '.join(args)} >}}}} has more words than a style and a "
                        f"name: {' '.join(rest)!r} is left out (options are written "
                        "key=value: size=2x, title=…, label=…)")
    found = _find(style, name) if name else None
    if found is None:
        what = f"'{name}'" if name else "no name"
        problems.append(f"{{{{< fa >}}}} has {what}, which is not an icon of Font Awesome "
                        "Free: check its name at fontawesome.com/icons (brands: "
                        "{{< fa brands github >}}); it is shown as written")
        return "", problems
    each, (width, height, path) = found
    size = named.get("size", "")
    style_attr = ""
    if size and size not in SIZES:
        problems.append(f"{{{{< fa {name} >}}}} has size={size!r}, which is not a size: "
                        "write one of tiny, small, large, Large, huge, Huge, or lg, xl, "
                        "2xl, 2x…10x; it is shown at the text's size")
    elif size and SIZES[size] != 1.0:
        style_attr = f' style="font-size:{SIZES[size]:g}em"'
    label = named.get("label") or name
    title = named.get("title", "")
    shown = f"<title>{escapeHtml(title)}</title>" if title else ""
    svg = (f'<svg class="fa-icon fa-{escapeHtml(each)}" viewBox="0 0 {int(width)} '
           f'{int(height)}" width="{width / height:.4g}em" height="1em"{style_attr} '
           f'role="img" aria-label="{escapeHtml(label)}">{_attribution()}{shown}'
           f'<path fill="currentColor" d="{escapeHtml(path)}"/></svg>')
    return svg, problems
