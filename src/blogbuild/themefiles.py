"""Where the bundled theme lives: inside the wheel, or at the repository root when editable."""

from __future__ import annotations

from functools import cache
from pathlib import Path

#: Prefix under which the bundled theme's templates stay reachable from a site's overrides.
THEME_PREFIX = "theme"

#: Files of a site's static/ that come after the theme's own CSS (in each page's
#: stylesheet) and JS (base.html loads it last).
CUSTOM_CSS = "css/custom.css"
CUSTOM_JS = "js/custom.js"

#: The template of a post's entry in a list of posts, and the template function that shows
#: one (`{{ list_item(post) }}`). A build templates each entry once (blogbuild.pipeline.items).
ITEM_TEMPLATE = "partials/post_item.html"
ITEM_FUNCTION = "list_item"
#: The same for a post's entry in a feed (`{{ feed_entry(post) }}` in feed.xml).
FEED_ENTRY_TEMPLATE = "partials/feed_entry.xml"
FEED_ENTRY_FUNCTION = "feed_entry"
#: The template functions that show one post's entry, and the template each shows.
ENTRY_TEMPLATES = {ITEM_FUNCTION: ITEM_TEMPLATE, FEED_ENTRY_FUNCTION: FEED_ENTRY_TEMPLATE}

_PACKAGE = Path(__file__).resolve().parent  # src/blogbuild


@cache
def theme_dir() -> Path:
    """Folder holding the default theme's `templates/` and `static/`."""
    bundled = _PACKAGE / "theme"
    if (bundled / "templates").is_dir():
        return bundled
    repo = _PACKAGE.parent.parent  # src/blogbuild -> repo root (editable install / checkout)
    if (repo / "templates" / "base.html").is_file():
        return repo
    raise RuntimeError(f"blogbuild's theme is missing (looked in {bundled} and {repo})")


def theme_templates() -> Path:
    return theme_dir() / "templates"


def theme_static() -> Path:
    return theme_dir() / "static"
