"""Where embedded media lives: YouTube/Vimeo/file video URLs and Hugging Face Space addresses.

Pure functions, no I/O: each parser returns a description of the embed or raises
``EmbedError`` with a message the author can act on (the div plugin turns it into a
build diagnostic).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import parse_qs, quote, urlencode, urlsplit

from blogbuild.urls import has_scheme, is_safe_url, scheme_of, url_problem

_YOUTUBE_HOSTS = frozenset({
    "youtube.com", "www.youtube.com", "m.youtube.com", "music.youtube.com",
    "youtube-nocookie.com", "www.youtube-nocookie.com",
})
_YOUTUBE_ID = re.compile(r"^[A-Za-z0-9_-]{4,64}$")
_YOUTUBE_PATHS = re.compile(r"^/(?:embed|shorts|live|v|e)/([^/?#]+)/?$")
_VIMEO_HOSTS = frozenset({"vimeo.com", "www.vimeo.com", "player.vimeo.com"})
# vimeo.com/ID, /ID/HASH, /channels/x/ID, /groups/x/videos/ID, /showcase/x/video/ID, /video/ID
_VIMEO_PATH = re.compile(
    r"^/(?:(?:channels|album|showcase)/[^/]+/(?:video/)?|groups/[^/]+/videos/|video/)?"
    r"(\d+)(?:/([0-9a-f]+))?/?$"
)
_TIME_HMS = re.compile(r"^(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s?)?$")
_TIME_CLOCK = re.compile(r"^(?:(\d+):)?(\d{1,2}):(\d{2})$")
VIDEO_TYPES = {".mp4": "video/mp4", ".m4v": "video/mp4", ".webm": "video/webm",
               ".ogv": "video/ogg"}

#: One part of a Hub repo id: letters, digits, '-', '_', '.', not starting or ending with '-'/'.'.
_HF_PART = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9._-]{0,94}[A-Za-z0-9])?$")
_HF_PAGE = re.compile(r"^https?://(?:www\.)?huggingface\.co/spaces/([^/?#]+)/([^/?#]+)/?(?:[?#].*)?$")


class EmbedError(ValueError):
    """An embed URL that cannot be used; the message says what to write instead."""


@dataclass(frozen=True)
class Video:
    """A video to embed: where it lives and where its player loads from."""

    provider: str  # "youtube", "vimeo" or "file"
    page_url: str  # where the video lives (the no-JS link); for files the file itself
    embed_url: str  # iframe address loaded on click ("" for files)
    start: int  # seconds
    mime: str = ""  # files only


def parse_start(value: str) -> int | None:
    """Seconds from `90`, `90s`, `1m30s`, `1h2m3s`, `1:30` or `1:02:03`; None when malformed."""
    value = value.strip().lower()
    if not value:
        return None
    clock = _TIME_CLOCK.match(value)
    if clock:
        hours, minutes, seconds = (int(g) if g else 0 for g in clock.groups())
        return hours * 3600 + minutes * 60 + seconds
    hms = _TIME_HMS.match(value)
    if hms and any(hms.groups()):
        hours, minutes, seconds = (int(g) if g else 0 for g in hms.groups())
        return hours * 3600 + minutes * 60 + seconds
    return None


def _start_from(query: dict[str, list[str]], fragment: str) -> int:
    """The start time of a video URL: `t=`/`start=` in the query or `#t=` in the fragment."""
    candidates = [*query.get("t", []), *query.get("start", [])]
    frag = parse_qs(fragment)
    candidates += [*frag.get("t", []), *frag.get("start", [])]
    for raw in candidates:
        seconds = parse_start(raw)
        if seconds is not None:
            return seconds
    if candidates:
        raise EmbedError(
            f"cannot read the start time {candidates[0]!r}; write seconds (90) or 1m30s"
        )
    return 0


def _youtube(host: str, path: str, query: dict[str, list[str]], fragment: str) -> Video:
    video_id = ""
    if host == "youtu.be":
        video_id = path.strip("/")
    elif path in ("/watch", "/watch/"):
        video_id = (query.get("v") or [""])[0]
    else:
        match = _YOUTUBE_PATHS.match(path)
        video_id = match.group(1) if match else ""
    if not _YOUTUBE_ID.match(video_id):
        raise EmbedError(
            "cannot find the video id in this YouTube URL; use "
            "https://www.youtube.com/watch?v=ID, https://youtu.be/ID or /shorts/ID"
        )
    start = _start_from(query, fragment)
    params = {"autoplay": "1"}
    page = f"https://www.youtube.com/watch?v={video_id}"
    if start:
        params["start"] = str(start)
        page += f"&t={start}s"
    embed = f"https://www.youtube-nocookie.com/embed/{video_id}?{urlencode(params)}"
    return Video("youtube", page, embed, start)


def _vimeo(host: str, path: str, query: dict[str, list[str]], fragment: str) -> Video:
    match = _VIMEO_PATH.match(path)
    if not match:
        raise EmbedError(
            "cannot find the video id in this Vimeo URL; use https://vimeo.com/123456789"
        )
    video_id, private_hash = match.group(1), match.group(2) or (query.get("h") or [""])[0]
    start = _start_from(query, fragment)
    params = {"autoplay": "1", "dnt": "1"}  # dnt: no tracking cookies in the player
    page = f"https://vimeo.com/{video_id}"
    if private_hash:
        if not re.fullmatch(r"[0-9a-f]+", private_hash):
            raise EmbedError(f"the Vimeo privacy hash {private_hash!r} is not valid")
        params = {"h": private_hash, **params}
        page += f"/{private_hash}"
    suffix = f"#t={start}s" if start else ""
    embed = f"https://player.vimeo.com/video/{video_id}?{urlencode(params)}{suffix}"
    return Video("vimeo", page + suffix, embed, start)


def parse_video(url: str) -> Video:
    """Describe the video behind `url` (YouTube, Vimeo, or a .mp4/.webm file)."""
    url = url.strip()
    if not url:
        raise EmbedError('the video needs a data-src="…" (a YouTube or Vimeo URL, or a .mp4 file)')
    if not is_safe_url(url):
        raise EmbedError(f"unsafe URL scheme '{scheme_of(url)}:' in data-src {url!r}")
    if url.startswith("//"):
        url = "https:" + url
    problem = url_problem(url)
    if problem is not None:
        raise EmbedError(f"the video URL {url!r} cannot be read: {problem}")
    parts = urlsplit(url)
    if has_scheme(url) and parts.scheme.lower() not in ("http", "https"):
        raise EmbedError(f"a video must be an http(s) URL or a site path, not {url!r}")
    host = (parts.hostname or "").lower()
    query = parse_qs(parts.query)
    suffix = "." + parts.path.rsplit(".", 1)[-1].lower() if "." in parts.path else ""
    if suffix in VIDEO_TYPES:
        start = _start_from({}, parts.fragment)
        return Video("file", url, "", start, VIDEO_TYPES[suffix])
    if host in _YOUTUBE_HOSTS or host == "youtu.be":
        return _youtube(host, parts.path, query, parts.fragment)
    if host in _VIMEO_HOSTS:
        return _vimeo(host, parts.path, query, parts.fragment)
    where = host or url
    raise EmbedError(
        f"unsupported video source {where!r}: use a YouTube or Vimeo URL, or a .mp4/.webm file"
    )


@dataclass(frozen=True)
class Space:
    """A Hugging Face Space, by owner and name."""

    owner: str
    name: str

    @property
    def repo_id(self) -> str:
        return f"{self.owner}/{self.name}"

    @property
    def subdomain(self) -> str:
        """Hugging Face's host name rule: lower-case, and '/', '.', '_' become '-'."""
        return re.sub(r"[/._]", "-", self.repo_id.lower())

    @property
    def app_url(self) -> str:
        return f"https://{self.subdomain}.hf.space"

    @property
    def page_url(self) -> str:
        return f"https://huggingface.co/spaces/{quote(self.owner)}/{quote(self.name)}"


def parse_space(src: str) -> Space:
    """`owner/name` (or the Space's huggingface.co page URL) → Space."""
    src = src.strip()
    page = _HF_PAGE.match(src)
    parts = list(page.groups()) if page else src.split("/")
    if len(parts) != 2 or not all(_HF_PART.match(p) for p in parts) or any(
        ".." in p or "--" in p for p in parts
    ):
        raise EmbedError(
            f"data-src={src!r} is not a Space id: write owner/space-name "
            "(as in https://huggingface.co/spaces/owner/space-name)"
        )
    return Space(parts[0], parts[1])
