"""The one URL function: every URL in the output is made here, knowing the site's sub-path."""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import urlsplit

_SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.\-]*:")

#: Schemes that run code or read local files when a reader follows them (markdown-it's list).
UNSAFE_SCHEMES = frozenset({"javascript", "vbscript", "file", "data"})
_SAFE_DATA = re.compile(r"^data:image/(gif|png|jpeg|webp);", re.IGNORECASE)


def has_scheme(url: str) -> bool:
    return bool(_SCHEME.match(url)) or url.startswith("//")


def scheme_of(url: str) -> str:
    match = _SCHEME.match(url.strip())
    return match.group(0)[:-1].lower() if match else ""


def is_safe_url(url: str) -> bool:
    """False for javascript:, vbscript:, file: and data: (but data:image/png etc.) URLs."""
    cleaned = re.sub(r"[\x00-\x20]", "", url)
    scheme = scheme_of(cleaned)
    if scheme == "data":
        return bool(_SAFE_DATA.match(cleaned))
    return scheme not in UNSAFE_SCHEMES


@dataclass(frozen=True)
class UrlBuilder:
    """Builds site URLs from site-root paths; `base_url` may carry a sub-path (…/blog/)."""

    base_url: str

    @property
    def base_path(self) -> str:
        """The sub-path the site lives under, always with leading and trailing slash."""
        path = urlsplit(self.base_url).path or "/"
        if not path.endswith("/"):
            path += "/"
        return path

    @property
    def origin(self) -> str:
        parts = urlsplit(self.base_url)
        return f"{parts.scheme}://{parts.netloc}" if parts.netloc else ""

    def url(self, path: str) -> str:
        """Site URL for `path`.

        Root paths (`/x`) get the sub-path prefix unless they already start with it;
        relative paths, fragments and URLs with a scheme pass through unchanged.
        """
        if not path.startswith("/") or path.startswith("//"):
            return path
        prefix = self.base_path
        if prefix == "/":
            return path
        if path == prefix.rstrip("/") or path.startswith(prefix):
            return path
        return prefix + path[1:]

    def absolute(self, path: str) -> str:
        """Absolute URL (scheme and host) for feeds, canonical links and the sitemap."""
        if has_scheme(path):
            return path
        return self.origin + self.url(path if path.startswith("/") else "/" + path)

    def output_path(self, path: str) -> str:
        """File path inside the output folder for a site-root URL path (pretty URLs)."""
        rel = path.lstrip("/")
        if rel == "" or rel.endswith("/"):
            rel += "index.html"
        return rel
