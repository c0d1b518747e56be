"""Links to other sites: does each answer, politely and without asking twice a week.

Each URL gets a HEAD request, and a GET when the server refuses HEAD (405, 403, 501).
Redirects are followed by hand so that a permanent one (301, 308) can be reported: the
link still works, but the new address is the one to write. Requests to one host are spaced
by `interval` seconds and a 429 answer's Retry-After is honoured; a few hosts are asked in
parallel. Working links are remembered for a week in a small JSON file, failures are asked
again on the next run.
"""

from __future__ import annotations

import json
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from email.message import Message
from pathlib import Path
from urllib.parse import quote, urljoin, urlsplit, urlunsplit

from blogbuild import __version__
from blogbuild.fileio import write_atomically
from blogbuild.urls import url_problem

USER_AGENT = f"blogbuild/{__version__} (link check; +https://pypi.org/project/blogbuild/)"
#: A working link is not asked again for this long.
KEEP_SECONDS = 7 * 24 * 3600
#: Hosts asked at the same time.
PARALLEL_HOSTS = 4
_MAX_REDIRECTS = 10
_MAX_RETRIES = 2
#: A Retry-After longer than this is not waited for: the link is reported as unchecked.
_MAX_RETRY_AFTER = 60.0
_PERMANENT = frozenset({301, 308})
_TRY_GET = frozenset({403, 405, 501})


@dataclass(frozen=True)
class Result:
    """What one URL answered; `severity` is "" when there is nothing to report."""

    status: int  # the last HTTP status, 0 when no answer came
    severity: str
    message: str
    final: str = ""  # where a permanent redirect led
    checked: float = 0.0  # when (time.time()), for the cache


class ResultCache:
    """Working links and when they were checked, in one JSON file."""

    def __init__(self, path: Path, keep: float = KEEP_SECONDS) -> None:
        self.path = path
        self.keep = keep
        self.lock = threading.Lock()
        try:
            loaded = json.loads(path.read_text(encoding="utf-8"))
            self.entries: dict[str, dict[str, object]] = loaded if isinstance(loaded, dict) \
                else {}
        except (OSError, ValueError):
            self.entries = {}

    def get(self, url: str, now: float) -> Result | None:
        entry = self.entries.get(url)
        try:
            result = Result(**entry) if isinstance(entry, dict) else None  # type: ignore[arg-type]
        except TypeError:
            return None
        if result is None or now - result.checked > self.keep:
            return None
        return result

    def put(self, url: str, result: Result) -> None:
        if result.severity in ("", "info"):
            with self.lock:
                self.entries[url] = asdict(result)

    def save(self, now: float) -> None:
        """Write the file (atomically), without the entries that have expired."""
        kept = {u: e for u, e in sorted(self.entries.items())
                if now - float(e.get("checked", 0)) <= self.keep}  # type: ignore[arg-type]
        self.path.parent.mkdir(parents=True, exist_ok=True)
        write_atomically(self.path, json.dumps(kept, indent=1).encode("utf-8"), mode=0o644)


class HostLimiter:
    """At most one request per `interval` seconds to each host, across threads."""

    def __init__(self, interval: float, clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], None] = time.sleep) -> None:
        self.interval = interval
        self.clock, self.sleep = clock, sleep
        self.guard = threading.Lock()
        self.locks: dict[str, threading.Lock] = {}
        self.next: dict[str, float] = {}

    def wait(self, host: str, extra: float = 0.0) -> None:
        """Block until a request to `host` may go; `extra` pushes the next one back too."""
        with self.guard:
            lock = self.locks.setdefault(host, threading.Lock())
        with lock:
            now = self.clock()
            ready = max(self.next.get(host, now), now + extra)
            if ready > now:
                self.sleep(ready - now)
            self.next[host] = max(ready, self.clock()) + self.interval


class _NoRedirects(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: object, **kwargs: object) -> None:
        return None  # the checker follows redirects itself, to see which were permanent


class Checker:
    """Checks URLs, each host at its own pace; `check()` returns a Result per URL."""

    def __init__(self, *, timeout: float = 10.0, interval: float = 1.0,
                 cache: ResultCache | None = None, parallel: int = PARALLEL_HOSTS) -> None:
        self.timeout = timeout
        self.limiter = HostLimiter(interval)
        self.cache = cache
        self.parallel = parallel
        self.opener = urllib.request.build_opener(_NoRedirects())
        self.requests = 0  # sent, for tests and the curious

    def check(self, urls: list[str]) -> dict[str, Result]:
        results: dict[str, Result] = {}
        todo: dict[str, list[str]] = {}
        now = time.time()
        for url in urls:
            cached = self.cache.get(url, now) if self.cache is not None else None
            if cached is not None:
                results[url] = cached
            else:
                todo.setdefault(urlsplit(url).netloc.lower(), []).append(url)
        with ThreadPoolExecutor(max_workers=self.parallel) as pool:
            for found in pool.map(self._host, todo.values()):
                results.update(found)
        if self.cache is not None:
            for url, result in results.items():
                self.cache.put(url, result)
            self.cache.save(time.time())
        return results

    def _host(self, urls: list[str]) -> dict[str, Result]:
        return {url: self.check_one(url) for url in urls}

    def check_one(self, url: str) -> Result:
        """Follow `url` to its end; the first permanent redirect is what is reported."""
        current, moved = url, ""
        for _ in range(_MAX_REDIRECTS):
            status, headers, error = self._ask(current)
            if status in (301, 302, 303, 307, 308) and headers.get("Location"):
                location = headers["Location"]
                problem = url_problem(location)
                if problem is not None:
                    return Result(status, "error", f"{url} redirects to {location}, which "
                                  f"cannot be read ({problem}); fix or remove the link",
                                  checked=time.time())
                following = urljoin(current, location)
                if urlsplit(following).scheme not in ("http", "https"):  # never file: or ftp:
                    return Result(status, "error", f"{url} redirects to {following}, which is "
                                  "not a web address; fix or remove the link",
                                  checked=time.time())
                if status in _PERMANENT and not moved and current == url:
                    moved = following
                current = following
                continue
            return self._judge(url, status, error, moved)
        return Result(status, "error", f"{url} redirects more than {_MAX_REDIRECTS} times",
                      checked=time.time())

    def _judge(self, url: str, status: int, error: str, moved: str) -> Result:
        now = time.time()
        if 200 <= status < 300:
            if moved:
                return Result(status, "info", f"{url} has moved permanently to {moved}; "
                              "link to the new address", moved, now)
            return Result(status, "", "", checked=now)
        if status == 0:
            return Result(0, "error", f"{url} cannot be reached ({error}); fix or remove "
                          "the link, or add it to check.ignore", checked=now)
        if status == 429 or status >= 500:
            return Result(status, "warning", f"{url} answered HTTP {status} ({error}); it "
                          "may work later", checked=now)
        return Result(status, "error", f"broken external link: {url} answered HTTP {status} "
                      f"({error}); fix or remove it", checked=now)

    def _ask(self, url: str) -> tuple[int, Message, str]:
        """One URL's answer: HEAD, then GET if HEAD is refused; 429s are waited out."""
        method = "HEAD"
        status, headers, error = self._request(url, method)
        if status in _TRY_GET:
            method = "GET"
            status, headers, error = self._request(url, method)
        for _ in range(_MAX_RETRIES):
            if status != 429:
                break
            delay = _retry_after(headers)
            if delay is None or delay > _MAX_RETRY_AFTER:
                break
            status, headers, error = self._request(url, method, extra=delay)
        return status, headers, error

    def _request(self, url: str, method: str, extra: float = 0.0) -> tuple[int, Message, str]:
        self.limiter.wait(urlsplit(url).netloc.lower(), extra)
        self.requests += 1
        request = urllib.request.Request(_ascii(url), method=method, headers={
            "User-Agent": USER_AGENT, "Accept": "*/*"})
        try:
            with self.opener.open(request, timeout=self.timeout) as response:
                return response.status, response.headers, response.reason
        except urllib.error.HTTPError as exc:
            exc.close()
            return exc.code, exc.headers, str(exc.reason)
        except (urllib.error.URLError, OSError, ValueError) as exc:
            reason = getattr(exc, "reason", exc)
            text = "timed out" if isinstance(reason, TimeoutError) else str(reason)
            return 0, Message(), text


def _retry_after(headers: Message) -> float | None:
    """Seconds a 429 asks to wait (only the number form; a date is treated as absent)."""
    value = headers.get("Retry-After", "1")
    try:
        return max(0.0, float(value))
    except ValueError:
        return None


def _ascii(url: str) -> str:
    """`url` as it goes on the wire: a non-ASCII host in IDNA, other characters escaped."""
    if url_problem(url) is not None:
        return url  # refused by urllib, reported as not reachable
    parts = urlsplit(url)
    try:
        host = parts.hostname.encode("idna").decode("ascii") if parts.hostname else ""
    except UnicodeError:
        return url  # refused by urllib, reported as not reachable
    netloc = host + (f":{parts.port}" if parts.port else "")
    keep = "/%:@!$&'()*+,;=?~-._"
    return urlunsplit((parts.scheme, netloc, quote(parts.path, safe=keep),
                       quote(parts.query, safe=keep), ""))
