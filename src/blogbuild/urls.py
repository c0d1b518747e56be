"""The one URL function: every URL in the output is made here, knowing the site's sub-path."""

from __future__ import annotations

import functools
import html
import ipaddress
import re
import unicodedata
from dataclasses import dataclass
from urllib.parse import SplitResult, quote, urlsplit

import mdurl

_SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.\-]*:")
_CONTROL = re.compile(r"[\x00-\x20\x7f]")
_DRIVE = re.compile(r"^[A-Za-z]:")

#: Schemes that run code or read local files when a reader follows them.
UNSAFE_SCHEMES = frozenset({"javascript", "vbscript", "file", "data"})
#: The only schemes a URL from front matter or site.yaml may have (plus data:image/…).
ALLOWED_SCHEMES = frozenset({"http", "https", "mailto"})
_SAFE_DATA = re.compile(r"^data:image/(gif|png|jpeg|webp)[;,]", re.IGNORECASE)


def has_scheme(url: str) -> bool:
    return bool(_SCHEME.match(url)) or url.startswith("//")


def _as_browser_reads(url: str) -> str:
    """The URL as a browser parses the attribute: entities decoded, and (stricter than a
    browser, which only drops tabs and newlines inside) no control character or space."""
    return _CONTROL.sub("", html.unescape(url))


def is_disk_path(url: str) -> bool:
    """`C:/…` or `C:\\…`: a file on a Windows disk, not a URL (no scheme has one letter)."""
    return bool(_DRIVE.match(url))


def scheme_of(url: str) -> str:
    match = _SCHEME.match(_as_browser_reads(url))
    return match.group(0)[:-1].lower() if match else ""


def is_safe_url(url: str) -> bool:
    """False for URLs that run code or read local files when followed: javascript:,
    vbscript:, file:, and data: other than data:image/png etc. Any other scheme (irc:, a
    made-up one) is only a link, as CommonMark has it."""
    cleaned = _as_browser_reads(url)
    scheme = scheme_of(cleaned)
    if scheme == "data":
        return bool(_SAFE_DATA.match(cleaned))
    return scheme not in UNSAFE_SCHEMES


def is_allowed_url(url: str) -> bool:
    """The stricter rule for URLs taken from front matter and site.yaml (og:image, nav):
    a path, http:, https:, mailto: or data:image/png etc., nothing else."""
    scheme = scheme_of(url)
    return is_safe_url(url) and (scheme in ALLOWED_SCHEMES or scheme in ("", "data"))


def unsafe_url_message(url: str, what: str) -> str:
    return (f"unsafe URL scheme '{scheme_of(url)}:' in {url!r}; {what} may not run code "
            "(javascript:, vbscript:, data:, file:)")


#: The host and port of a URL with a "//" part, as urllib finds them (after any "user@").
_AUTHORITY = re.compile(r"^(?:[A-Za-z][A-Za-z0-9+.\-]*:)?//(?:[^/?#@]*@)?([^/?#]*)")
_PORT = re.compile(r"[0-9]{1,5}")


class UrlError(ValueError):
    """A URL whose host or port cannot be read; the message says why in an author's terms."""


def url_problem(url: str) -> str | None:
    """Why `url`'s host or port cannot be read (an IPv6 host with a bracket missing, a port
    that is no number), or None. urllib raises ValueError for these, from `urlsplit`,
    `urljoin` or later from `.port`: call this (or `split_url`) on any URL an author wrote
    before handing it to urllib."""
    cleaned = _as_browser_reads(url)
    match = _AUTHORITY.match(cleaned)
    if match is not None:
        problem = _authority_problem(match.group(1))
        if problem is not None:
            return problem
    try:
        urlsplit(cleaned).port  # noqa: B018 - reading .port is what raises
        urlsplit(url).port  # noqa: B018
    except ValueError:
        return "its host or port cannot be read (a host is a name such as example.org " \
               "or an IPv6 address in brackets such as [2001:db8::1])"
    return None


def _authority_problem(authority: str) -> str | None:
    example = "an IPv6 address is written in brackets, e.g. http://[2001:db8::1]:8080/"
    if authority.startswith("["):
        address, closed, rest = authority[1:].partition("]")
        if not closed:
            return f"the IPv6 host '[{address}' has no closing ']' ({example})"
        if "%" in address:
            return (f"the IPv6 host '[{address}]' names a network interface ('%…'), which "
                    f"a web address cannot hold ({example})")
        try:
            ipaddress.IPv6Address(address)
        except ValueError:
            return f"'[{address}]' is not an IPv6 address ({example})"
        if rest and not rest.startswith(":"):
            return (f"only ':PORT' may follow the ']' of the IPv6 host, not {rest!r} "
                    f"({example})")
        port = rest[1:]
    elif "[" in authority or "]" in authority:
        return (f"the host {authority!r} holds a '[' or ']', which may only enclose an "
                f"IPv6 address ({example})")
    else:
        port = authority.rpartition(":")[2] if ":" in authority else ""
    if port and not (_PORT.fullmatch(port) and int(port) <= 65535):
        return f"the port {port!r} must be a number from 0 to 65535"
    return None


def split_url(url: str) -> SplitResult:
    """`urlsplit(url)` whose `.port` and `.hostname` can be read; UrlError otherwise."""
    problem = url_problem(url)
    if problem is not None:
        raise UrlError(problem)
    return urlsplit(url)


@functools.lru_cache(maxsize=1 << 16)
def _site_url(base_url: str, path: str) -> str:
    """`UrlBuilder.url`, kept: list pages, tag pages and feeds ask for the same posts'
    URLs thousands of times in a run."""
    if not is_safe_url(path):
        return "#"  # refused with a message where the value was read; never written
    path = normalize(path)
    if not path.startswith("/") or path.startswith("//"):
        return path
    prefix = UrlBuilder(base_url).base_path
    if prefix == "/":
        return path
    if path == prefix.rstrip("/") or path.startswith(prefix):
        return path
    return prefix + path[1:]


def encode_path(path: str) -> str:
    """Percent-encode a raw site path made from file names (spaces, non-ASCII, `%`)."""
    return quote(path, safe="/!$&'()*+,;=:@-._~")


def normalize(url: str) -> str:
    """Percent-encode what may not appear raw in a URL, keeping `%XX` escapes as they are."""
    return str(mdurl.encode(url))


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
        return _site_url(self.base_url, path)

    def absolute(self, path: str) -> str:
        """Absolute URL (scheme and host) for feeds, canonical links and the sitemap."""
        if has_scheme(path) or not is_safe_url(path):
            return self.url(path)
        return self.origin + self.url(path if path.startswith("/") else "/" + path)


_NON_WORD = re.compile(r"[^\w\s-]", re.UNICODE)
_SPACES = re.compile(r"[\s_-]+")


def slugify(text: str, default: str = "section") -> str:
    """Lower-case words joined by "-"; letters of any script are kept (HTML5 ids allow them)."""
    text = unicodedata.normalize("NFKC", text).lower()
    text = _NON_WORD.sub("", text)
    text = _SPACES.sub("-", text).strip("-")
    return text or default


_PATH_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
#: A path with none of the faults `unsafe_path` names: no drive, segments of characters
#: other than controls, backslashes and slashes, none of them `.` or `..`, none empty but
#: the last. One match instead of six checks: a build asks for each of its 3,000 paths.
_SAFE_PATH = re.compile(r"(?![A-Za-z]:)(?:(?!\.\.?/)[^\x00-\x1f\x7f\\/]+/)*"
                        r"(?!\.\.?\Z)[^\x00-\x1f\x7f\\/]*")


def unsafe_path(rel: str) -> str | None:
    """Why the output-relative path `rel` could land outside the output folder, or None."""
    if rel and _SAFE_PATH.fullmatch(rel):
        return None
    if not rel:
        return "it is empty"
    if _PATH_CONTROL.search(rel):
        return "it holds a control character (NUL, newline, …)"
    if "\\" in rel:
        return "it holds a backslash"
    if rel.startswith("/") or _DRIVE.match(rel):
        return "it is an absolute path"
    parts = rel.split("/")
    if any(part in (".", "..") for part in parts):
        return "it holds a '.' or '..' segment"
    if any(part == "" for part in parts[:-1]):
        return "it holds an empty segment ('//')"
    return None


def output_path(url: str) -> str:
    """The file in the output folder for a site-root URL path (the one rule: pretty URLs
    end in a folder and get its index.html)."""
    rel = url.lstrip("/")
    if rel == "" or rel.endswith("/"):
        rel += "index.html"
    return rel
