"""Range and format checks of site.yaml values; every error names the key and its line."""

from __future__ import annotations

import datetime as dt
import re
import string
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from blogbuild.callout_kinds import build_kinds
from blogbuild.diagnostics import ConfigError
from blogbuild.urls import (
    has_scheme,
    is_allowed_url,
    output_path,
    scheme_of,
    unsafe_path,
    url_problem,
)

if TYPE_CHECKING:
    from blogbuild.config_model import CommentsConfig, Config

PERMALINK_FIELDS = ("slug", "year", "month", "day")
MATH_OUTPUTS = ("html", "htmlAndMathml", "mathml")
DOUBLE_DOLLAR_MODES = ("inline", "display")
EXECUTE_MODES = ("browser", "build")
_LANGUAGE = re.compile(r"[A-Za-z]{2,3}(?:-[A-Za-z0-9]{1,8})*")
_MACRO_NAME = re.compile(r"\\(?:[A-Za-z@]+|[^A-Za-z@\s])")
_PARENT = re.compile(r"(?:\.[^.\[]*|\[\d+\])$")
_UNSAFE_URL_CHARS = re.compile(r"[\x00-\x20\"'<>\\^`{|}\x7f]")
#: giscus' page-to-discussion mappings; "number" is refused (each post would need its own).
COMMENT_MAPPINGS = ("pathname", "url", "title", "og:title", "specific")
COMMENT_REQUIRED = ("repo", "repo_id", "category", "category_id")
#: The smallest `comments:` block of site.yaml, as messages show it (one line of YAML).
COMMENTS_EXAMPLE = ("comments: {repo: OWNER/NAME, repo_id: R_ID, category: Announcements, "
                    "category_id: DIC_ID}")
_REPO = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})/[A-Za-z0-9._-]{1,100}")
_GISCUS_ID = re.compile(r"[A-Za-z0-9_=-]+")
_GISCUS_THEME = re.compile(r"[A-Za-z0-9_-]+")


class _Checker:
    def __init__(self, source: str, lines: dict[str, int]) -> None:
        self.source = source
        self.lines = lines

    def line_of(self, key: str) -> int:
        """The line of `key`, else of its nearest parent ("nav[0].url" → "nav[0]" → "nav")."""
        while key not in self.lines:
            parent = _PARENT.sub("", key)
            if parent == key:
                return 0
            key = parent
        return self.lines[key]

    def fail(self, key: str, message: str) -> ConfigError:
        return ConfigError(f"'{key}' {message}", file=self.source, line=self.line_of(key))

    def at_least(self, key: str, value: int, low: int) -> None:
        if value < low:
            raise self.fail(key, f"must be at least {low}, not {value}")


def check_base_url(url: str, where: str) -> None:
    """Raise ConfigError naming `where` (an option) if `url` cannot be the site's address."""
    problem = base_url_problem(url)
    if problem is not None:
        raise ConfigError(f"{where} {problem}")


def base_url_problem(url: str) -> str | None:
    example = "e.g. https://example.org/ or https://you.github.io/blog/"
    if _UNSAFE_URL_CHARS.search(url):
        return f"must be a URL without spaces, quotes or brackets ({example}), not {url!r}"
    problem = url_problem(url)
    if problem is not None:
        return f"must be a URL whose host and port can be read, not {url!r}: {problem}"
    parts = urlsplit(url)
    if parts.scheme.lower() not in ("http", "https") or not parts.netloc:
        return f"must be an absolute http(s) URL ({example}), not {url!r}"
    if parts.query or parts.fragment:
        return f"must not have a '?query' or '#fragment' ({example}), not {url!r}"
    return None


#: An X/Twitter account as link previews name it.
_HANDLE = re.compile(r"@[A-Za-z0-9_]{1,15}")
WEB = ("http", "https")


def validate(config: Config, source: str, lines: dict[str, int]) -> None:
    """Raise ConfigError for the first value out of range; `lines` maps dotted keys to lines."""
    check = _Checker(source, lines)
    check.at_least("posts_per_page", config.posts_per_page, 1)
    check.at_least("feed_entries", config.feed_entries, 1)
    check.at_least("toc_min_headings", config.toc_min_headings, 1)
    if config.feed_content not in ("full", "summary"):
        raise check.fail("feed_content", f"must be full (whole posts in the feeds) or summary, "
                                         f"not {config.feed_content!r}")
    if config.statements.counters not in ("shared", "per-type"):
        raise check.fail("statements.counters", "must be shared (Theorem 1, Lemma 2) or "
                         f"per-type (Theorem 1, Lemma 1), not {config.statements.counters!r}")
    problem = base_url_problem(config.base_url)
    if problem is not None:
        raise check.fail("base_url", problem)
    _check_permalink(check, config.permalink)
    if not _LANGUAGE.fullmatch(config.language):
        raise check.fail("language", f"must be a language tag such as en, fr or pt-BR, not "
                                     f"{config.language!r}")
    _check_date_format(check, config.date_format)
    for i, item in enumerate(config.nav):
        if not item.title.strip():
            raise check.fail(f"nav[{i}].title", "must not be empty")
        if not is_allowed_url(item.url) or scheme_of(item.url) == "data":
            raise check.fail(f"nav[{i}].url", f"must be a site path such as /about/ or an "
                                              f"http(s) or mailto: link, not {item.url!r}")
        problem = url_problem(item.url)
        if problem is not None:
            raise check.fail(f"nav[{i}].url", f"is not a URL that can be read, "
                                              f"{item.url!r}: {problem}")
    _check_images(check, config)
    _check_notebooks(check, config)
    if config.math.output not in MATH_OUTPUTS:
        raise check.fail("math.output", f"must be {', '.join(MATH_OUTPUTS[:-1])} or "
                                        f"{MATH_OUTPUTS[-1]}, not {config.math.output!r}")
    if config.math.inline_double_dollar not in DOUBLE_DOLLAR_MODES:
        raise check.fail("math.inline_double_dollar", "must be inline (kramdown: $$…$$ in a "
                         "sentence is inline math) or display (Pandoc, Obsidian), not "
                         f"{config.math.inline_double_dollar!r}")
    for name in config.math.macros:
        if not _MACRO_NAME.fullmatch(name):
            raise check.fail(f"math.macros.{name}", "is not a TeX command name; write it "
                                                    "with a backslash, e.g. \"\\\\RR\"")
    _check_plugins(check, config)
    if config.comments is not None:
        _check_comments(check, config.comments)
    _check_social(check, config)


def _check_social(check: _Checker, config: Config) -> None:
    twitter = config.social.twitter
    if twitter and not _HANDLE.fullmatch(twitter):
        raise check.fail("social.twitter", f"must be an X/Twitter account as @name (letters, "
                                           f"digits and _, at most 15), not {twitter!r}")
    image = config.social.image
    site_path = image.startswith("/") and not image.startswith("//")
    if image and not (is_allowed_url(image) and (site_path or scheme_of(image) in WEB)):
        raise check.fail("social.image", f"must be a site path such as /assets/card.png or an "
                                         f"https URL, not {image!r}")
    problem = url_problem(image) if image else None
    if problem is not None:
        raise check.fail("social.image", f"is not a URL that can be read, {image!r}: {problem}")


def missing_comment_keys(comments: CommentsConfig | None) -> list[str]:
    """The giscus settings a post with comments needs and site.yaml does not give."""
    if comments is None:
        return [f"comments.{key}" for key in COMMENT_REQUIRED]
    return [f"comments.{key}" for key in COMMENT_REQUIRED if not getattr(comments, key).strip()]


def _check_comments(check: _Checker, comments: CommentsConfig) -> None:
    """Every value goes into an attribute of the page and to giscus: only plain forms."""
    if comments.repo and not _REPO.fullmatch(comments.repo):
        raise check.fail("comments.repo", f"must be a GitHub repository as owner/name (e.g. "
                                          f"ada/blog-comments), not {comments.repo!r}")
    for key in ("repo_id", "category_id"):
        value = getattr(comments, key)
        if value and not _GISCUS_ID.fullmatch(value):
            raise check.fail(f"comments.{key}", f"must be the id giscus.app shows (letters, "
                                                f"digits, '_', '-'), not {value!r}")
    if comments.mapping not in COMMENT_MAPPINGS:
        hint = " ('number' needs one discussion number per post; use specific)" \
            if comments.mapping == "number" else ""
        raise check.fail("comments.mapping", f"must be one of {', '.join(COMMENT_MAPPINGS)}"
                                             f"{hint}, not {comments.mapping!r}")
    if comments.input_position not in ("top", "bottom"):
        raise check.fail("comments.input_position", f"must be top or bottom, not "
                                                    f"{comments.input_position!r}")
    for key in ("theme", "theme_light", "theme_dark"):
        value = getattr(comments, key)
        if value is not None and not _GISCUS_THEME.fullmatch(value) and \
                not (value.startswith("https://") and base_url_problem(value) is None):
            raise check.fail(f"comments.{key}", f"must be a giscus theme name such as light, "
                                                f"dark or dark_dimmed, or an https:// URL of "
                                                f"a theme stylesheet, not {value!r}")
    if comments.lang is not None and not _LANGUAGE.fullmatch(comments.lang):
        raise check.fail("comments.lang", f"must be a language tag such as en, fr or zh-CN, "
                                          f"not {comments.lang!r}")
    missing = missing_comment_keys(comments)
    if comments.enabled_by_default and missing:
        raise check.fail(missing[0], "is missing: every post shows comments (comments."
                                     "enabled_by_default is true), and giscus needs repo, "
                                     "repo_id, category and category_id (giscus.app shows "
                                     "them); add it, or set enabled_by_default: false")


def _check_date_format(check: _Checker, fmt: str) -> None:
    # The C library prints an unknown "%Q" or a lone "%" as is, so the codes are checked here.
    codes = re.sub(r"%[-_0^#]?[EO]?[aAbBcCdDeFgGhHIjklmMnpPrRsStTuUVwWxXyYzZ%+]", "", fmt)
    try:
        dt.datetime(2024, 12, 17, 9, 30).strftime(fmt)
        bad = "%" in codes
    except ValueError:
        bad = True
    if bad:
        raise check.fail("date_format", f"is not a date format: {fmt!r}; use strftime codes "
                                        "such as \"%B %-d, %Y\" or \"%Y-%m-%d\"")


def _check_permalink(check: _Checker, permalink: str) -> None:
    example = "e.g. /posts/{slug}/ or /{year}/{month}/{slug}/"
    if not permalink.startswith("/"):
        raise check.fail("permalink", f"must start with '/' ({example}), not {permalink!r}")
    try:
        parts = list(string.Formatter().parse(permalink))
    except ValueError:
        raise check.fail("permalink", f"has a '{{' or '}}' without its pair ({example}), "
                                      f"not {permalink!r}") from None
    fields = [(name, spec, conv) for _, name, spec, conv in parts if name is not None]
    literal = "".join(text for text, _, _, _ in parts)
    known = ", ".join("{" + name + "}" for name in PERMALINK_FIELDS)
    for name, spec, conv in fields:
        if name not in PERMALINK_FIELDS or spec or conv:
            raise check.fail("permalink", f"has an unknown placeholder {{{name}}}; the known "
                                          f"ones are {known} ({example})")
    if "slug" not in [name for name, _, _ in fields]:
        raise check.fail("permalink", f"must contain {{slug}} ({example}), not {permalink!r}")
    if ".." in permalink.split("/") or _UNSAFE_URL_CHARS.search(literal) or \
            re.search(r"[?#%]", literal):
        raise check.fail("permalink", f"may hold only path characters, no '..' part, spaces, "
                                      f"'?', '#' or '%' ({example}), not {permalink!r}")
    sample = permalink.format(slug="slug", year="2024", month="01", day="01")
    problem = unsafe_path(output_path(sample))
    if problem is None and sample.startswith("//"):
        problem = "it starts with '//', which names another host"
    if problem is not None:
        raise check.fail("permalink", f"must be a plain path inside the site ({problem}), "
                                      f"{example}")


def packages_url_problem(configured: str) -> str | None:
    """What is wrong with `runnable.packages_url` (an http(s) URL or a site path), or None."""
    if has_scheme(configured):
        if configured.startswith("//") or scheme_of(configured) not in ("http", "https"):
            return (f"must be an http(s) URL or a site path like /wheels/, not "
                    f"{configured!r}")
        problem = url_problem(configured)
        return None if problem is None else f"is not a URL that can be read, " \
            f"{configured!r}: {problem}"
    if not configured.startswith("/"):
        return (f"must start with http://, https:// or / (a folder of the site), not "
                f"{configured!r}")
    return None


def _check_plugins(check: _Checker, config: Config) -> None:
    """The callout types of site.yaml, checked the way the callout plugin reads them."""
    configured = (config.runnable.packages_url or "").strip()
    problem = packages_url_problem(configured) if configured else None
    if problem is not None:
        raise check.fail("runnable.packages_url", problem)
    if config.runnable.execute not in EXECUTE_MODES:
        raise check.fail("runnable.execute", "must be browser (blocks run when the reader "
                         "presses Run) or build (they also run when the site is built), not "
                         f"{config.runnable.execute!r}")
    if not 1 <= config.runnable.timeout <= 3600:
        raise check.fail("runnable.timeout", "must be a number of seconds from 1 to 3600, "
                         f"not {config.runnable.timeout}")
    if not config.callouts:
        return
    try:
        build_kinds(config.callouts)
    except ConfigError as exc:
        named = re.match(r"'([^']+)'", exc.message)
        key = named[1] if named else ""
        raise ConfigError(exc.message, file=check.source,
                          line=check.line_of(key) if key else 0) from None


_REPOSITORY = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})/[A-Za-z0-9._-]{1,100}")
_BRANCH = re.compile(r"[A-Za-z0-9._/-]{1,200}")


#: What `notebooks.execute` (and a notebook's `execute:`) may say.
NOTEBOOK_EXECUTE = ("never", "auto", "always")


def _check_notebooks(check: _Checker, config: Config) -> None:
    notebooks = config.notebooks
    if notebooks.execute not in NOTEBOOK_EXECUTE:
        raise check.fail("notebooks.execute", "must be never (show the outputs each notebook "
                         "stored), auto (run the notebooks that stored none) or always (run "
                         f"every Python notebook), not {notebooks.execute!r}")
    repo = notebooks.repository
    if repo and (not _REPOSITORY.fullmatch(repo) or repo.split("/")[1] in (".", "..")):
        raise check.fail("notebooks.repository", f"must be a GitHub repository as owner/name "
                         f"(e.g. jane/blog), not {repo!r}")
    if not _BRANCH.fullmatch(notebooks.branch) or ".." in notebooks.branch:
        raise check.fail("notebooks.branch", f"must be a branch name, not {notebooks.branch!r}")
    folder = notebooks.folder.strip("/")
    if folder and (not _BRANCH.fullmatch(folder) or ".." in folder.split("/")):
        raise check.fail("notebooks.folder", "must be the site's folder inside the "
                         f"repository (e.g. blog), not {notebooks.folder!r}")


#: The formats `images.formats` may name.
IMAGE_FORMATS = ("webp", "avif")


def _check_images(check: _Checker, config: Config) -> None:
    images = config.images
    for i, width in enumerate(images.widths):
        if not 16 <= width <= 8192:
            raise check.fail(f"images.widths[{i}]", f"must be a width in pixels from 16 to "
                                                    f"8192, not {width}")
    for i, fmt in enumerate(images.formats):
        if fmt not in IMAGE_FORMATS:
            raise check.fail(f"images.formats[{i}]", f"must be webp or avif (the picture's "
                                                     f"own format is always made), not {fmt!r}")
    if not 1 <= images.quality <= 100:
        raise check.fail("images.quality", f"must be from 1 to 100, not {images.quality}")
    if images.max_pixels < 1_000_000:
        raise check.fail("images.max_pixels", f"must be at least 1000000, not "
                                              f"{images.max_pixels}")
