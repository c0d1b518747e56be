"""Old URLs of a post (Hugo's `aliases`, Jekyll's `redirect_from`): checked paths, one rule.

A blog that moves keeps its old links working: for every old path the build writes a small
page that sends the reader on to the post. The path is read here, once, into a site-root
path that either names a file (`/2019/05/old.html`) or a folder (`/old/post/`); where it is
written is then `urls.output_path`, like every other page.
"""

from __future__ import annotations

import re
from urllib.parse import unquote

from blogbuild.urls import has_scheme, output_path, unsafe_path

#: Old URLs that name an HTML file keep that name; any other path becomes a folder with an
#: index.html, which every static host serves at the path with and without the slash.
_HTML_FILE = re.compile(r"\.html?$", re.IGNORECASE)


class BadRedirect(ValueError):
    """The path cannot be a redirect; the message says why (callers add the key)."""


def redirect_path(written: str) -> str:
    """The site-root path (`/a/b/` or `/a/b.html`) of an old URL as written in front matter."""
    text = written.strip()
    if not text:
        raise BadRedirect("is empty")
    if has_scheme(text):
        raise BadRedirect(f"is {text!r}: write a path on this site (like /old/post/), "
                          "without a scheme or host")
    if "?" in text or "#" in text:
        raise BadRedirect(f"is {text!r}: a static page cannot answer to a query or a "
                          "fragment; write the path alone")
    path = unquote(text)  # old URLs are often copied percent-encoded
    if not path.startswith("/"):
        path = "/" + path
    if path != "/" and not path.endswith("/") and not _HTML_FILE.search(path):
        path += "/"
    bad = unsafe_path(output_path(path))
    if bad is not None or path == "/":
        raise BadRedirect(f"is {text!r}, which cannot be written in the site folder "
                          f"({bad or 'it is the home page'})")
    return path


def site_relative(path: str, base_path: str) -> str:
    """`path` with the site's sub-path taken off when it starts with it (as links are)."""
    if base_path != "/" and path.startswith(base_path):
        return "/" + path[len(base_path):]
    return path
