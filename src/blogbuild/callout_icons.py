"""The callout icons: small 24×24 stroke drawings made for blogbuild, one per built-in type."""

from __future__ import annotations

__all__ = ["ICONS", "svg"]

# Only the inner shapes; `svg()` adds the frame. Drawn on a 24-unit grid with a 2-unit round
# stroke so they read at 1em and take the text colour (currentColor) of the callout title.
_SHAPES: dict[str, str] = {
    "note": '<path d="M4 20l1-5L16 4l4 4L9 19z"/><path d="M14 6l4 4"/>',
    "tip": (
        '<path d="M9 18h6M10 21h4"/>'
        '<path d="M8.5 14.5a6 6 0 1 1 7 0c-.8.7-1.5 1.5-1.5 2.5h-4c0-1-.7-1.8-1.5-2.5z"/>'
    ),
    "important": '<path d="M4 4h16v12h-8l-4 4v-4H4z"/><path d="M12 7v4M12 13.5v.01"/>',
    "warning": '<path d="M12 3 2.5 20h19z"/><path d="M12 9.5V14M12 17v.01"/>',
    "caution": (
        '<path d="M8.3 3h7.4L21 8.3v7.4L15.7 21H8.3L3 15.7V8.3z"/>'
        '<path d="M12 7.5v5M12 16v.01"/>'
    ),
    "abstract": '<path d="M9 4H6v17h12V4h-3"/><path d="M9 3h6v3H9zM9 10h6M9 14h6M9 18h3"/>',
    "info": '<circle cx="12" cy="12" r="9"/><path d="M12 11v6M12 7.5v.01"/>',
    "todo": '<rect x="3.5" y="3.5" width="17" height="17" rx="3"/><path d="m8 12 3 3 5-6"/>',
    "success": '<path d="M4 12.5 9.5 18 20 6"/>',
    "question": (
        '<circle cx="12" cy="12" r="9"/>'
        '<path d="M9.5 9.5a2.5 2.5 0 1 1 3.6 2.2c-.7.4-1.1 1-1.1 1.8v.5M12 17v.01"/>'
    ),
    "failure": '<path d="M6 6l12 12M18 6 6 18"/>',
    "danger": '<path d="M13 2 4 14h7l-1 8 9-12h-7z"/>',
    "bug": (
        '<ellipse cx="12" cy="14" rx="5" ry="6.5"/>'
        '<path d="M12 10v10M7 14H3M21 14h-4M7.6 10.5 5 8M16.4 10.5 19 8M7.6 17.5 5 20'
        'M16.4 17.5 19 20M10 7.8 8.5 4.5M14 7.8l1.5-3.3"/>'
    ),
    "example": (
        '<path d="M9 6h11M9 12h11M9 18h11"/>'
        '<path d="M4.5 6h.01M4.5 12h.01M4.5 18h.01" stroke-width="3"/>'
    ),
    "quote": (
        '<path d="M4 11h5v6H4zM4 11c0-3 1.5-5 4.5-5.5"/>'
        '<path d="M14 11h5v6h-5zM14 11c0-3 1.5-5 4.5-5.5"/>'
    ),
    "definition": (
        '<path d="M12 6.5C10 5 7 4.5 3 5v13.5c4-.5 7 0 9 1.5 2-1.5 5-2 9-1.5V5'
        'c-4-.5-7 0-9 1.5zM12 6.5V20"/>'
    ),
    # ∴ ("therefore"): three filled dots.
    "proof": (
        '<g fill="currentColor" stroke="none"><circle cx="12" cy="6.5" r="2.2"/>'
        '<circle cx="6" cy="17" r="2.2"/><circle cx="18" cy="17" r="2.2"/></g>'
    ),
    "critical": (
        '<path d="M12 2.5c.5 3.5 5.5 5.5 5.5 11a5.5 5.5 0 0 1-11 0c0-2.5 1.3-4 2.2-5.3'
        '.4 1.6 1.2 2.6 2.3 3.3-.7-2.5-.5-5.5 1-9z"/>'
    ),
    # A tag: the icon of a type the stylesheet does not know (site.yaml types, typos).
    "neutral": '<path d="M3 12V4h8l10 10-8 8z"/><path d="M7.5 8h.01" stroke-width="3"/>',
}


def svg(shapes: str) -> str:
    """Frame inner shapes as an inline icon; width/height keep it 1em even with CSS off."""
    return (
        '<svg class="callout-svg" viewBox="0 0 24 24" width="1em" height="1em" fill="none" '
        'stroke="currentColor" stroke-width="2" stroke-linecap="round" '
        f'stroke-linejoin="round" focusable="false">{shapes}</svg>'
    )


ICONS: dict[str, str] = {name: svg(shapes) for name, shapes in _SHAPES.items()}
