"""`blogbuild init`: write a ready blog (config, a first post, a page, the deploy workflow)."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from blogbuild import __version__, scaffold
from blogbuild.config_model import Config
from blogbuild.diagnostics import BlogbuildError
from blogbuild.scaffold import pin
from blogbuild.sitefile import CONFIG_NAME
from blogbuild.urls import url_problem

FIRST_POST_SLUG = "hello-world"


@dataclass(frozen=True)
class InitReport:
    """What `blogbuild init` wrote, and where."""

    root: Path  # the blog's folder (absolute)
    written: tuple[Path, ...]  # the files written, relative to root, in writing order
    #: Why the deploy workflow cannot install requirements.txt as written (a development
    #: version of blogbuild), or None.
    warning: str | None = None


def normalize_base_url(url: str) -> str:
    """An absolute http(s) URL ending in '/'; anything else is an error that says what to give."""
    problem = url_problem(url.strip())
    parts = urlsplit(url.strip()) if problem is None else None
    if parts is None or parts.scheme not in ("http", "https") or not parts.netloc:
        raise BlogbuildError(
            f"--base-url must be an absolute http(s) URL such as "
            f"https://you.github.io/blog/, not {url!r}" + (f": {problem}" if problem else "")
        )
    url = url.strip()
    return url if url.endswith("/") else url + "/"


def _files(title: str, base_url: str, author: str, today: dt.date,
           requirements: str) -> dict[str, str]:
    """Relative path → text of every file that init writes."""
    post_name = scaffold.dated_name(today, FIRST_POST_SLUG)
    site_yaml = scaffold.fill(scaffold.read("site.yaml"), {
        "title": scaffold.yaml_string(title),
        "base_url": scaffold.yaml_string(base_url),
        "author": scaffold.yaml_string(author),
    })
    post = scaffold.fill(scaffold.read("first-post.md"), {
        "date": today.isoformat(),
        "file_name": post_name,
    })
    return {
        CONFIG_NAME: site_yaml,
        f"content/posts/{post_name}": post,
        "content/about.md": scaffold.read("about.md"),
        ".gitignore": scaffold.read("gitignore.txt"),
        "requirements.txt": requirements,
        ".github/workflows/deploy.yml": scaffold.read("deploy.yml"),
    }


def init(
    directory: Path | str = ".",
    *,
    title: str | None = None,
    base_url: str | None = None,
    author: str | None = None,
    force: bool = False,
    today: dt.date | None = None,
) -> InitReport:
    """Write a new blog into `directory` (created if missing); never overwrites unless `force`.

    Raises BlogbuildError, having written nothing, when a file it would write exists.
    `today` dates the first post (default: the local date).
    """
    root = Path(directory).resolve()
    if root.exists() and not root.is_dir():
        raise BlogbuildError(f"{directory} is a file, not a folder; give a folder for the blog")
    defaults = Config()
    pinned = pin.requirements(__version__, pin.installed_commit())
    files = _files(
        title if title is not None else defaults.title,
        normalize_base_url(base_url) if base_url is not None else defaults.base_url,
        author if author is not None else defaults.author,
        today or dt.date.today(),
        pinned.text,
    )
    existing = [rel for rel in files if (root / rel).exists() or (root / rel).is_symlink()]
    if existing and not force:
        listing = "".join(f"\n  {Path(directory) / rel}" for rel in existing)
        raise BlogbuildError(
            f"{len(existing)} of the files a new blog needs exist already, so nothing was "
            f"written:{listing}\nrun again with --force to overwrite them, or give another folder"
        )
    for rel in existing:
        if (root / rel).is_dir():
            raise BlogbuildError(f"{root / rel} is a folder; move it away to start a blog here")
    written = []
    for rel, text in files.items():
        path = root / rel
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8", newline="\n")
        except OSError as exc:
            raise BlogbuildError(f"cannot write {path}: {exc.strerror or exc}") from None
        written.append(Path(rel))
    return InitReport(root, tuple(written), pinned.warning)
