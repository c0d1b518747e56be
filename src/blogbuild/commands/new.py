"""`blogbuild new`: start a post (or a page) with its front matter filled in."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from pathlib import Path

from blogbuild import scaffold
from blogbuild.config import load_config
from blogbuild.content.discover import POSTS_DIR
from blogbuild.diagnostics import BlogbuildError


def _tag_list(tags: Sequence[str] | str) -> list[str]:
    """"a, b" or ["a", "b, c"] → ["a", "b", "c"]: names trimmed, empty ones and repeats dropped."""
    parts = [tags] if isinstance(tags, str) else list(tags)
    names = [name.strip() for part in parts for name in part.split(",")]
    return list(dict.fromkeys(name for name in names if name))


def _front_matter(title: str, *, day: dt.date | None, tags: list[str], draft: bool,
                  slug: str | None) -> str:
    lines = ["---", f"title: {scaffold.yaml_string(title)}"]
    if day is not None:
        lines.append(f"date: {day.isoformat()}")
        lines.append(f"tags: {scaffold.yaml_list(tags)}")
    if slug is not None:
        # The file name alone would give another URL (see site.py's slug rules).
        lines.append(f"slug: {slug}")
    if draft:
        lines.append("draft: true  # left out of `blogbuild build` until you remove this line")
    lines.append("---")
    return "\n".join(lines) + "\n"


def _body(*, page: bool, bundle: bool) -> str:
    if page:
        return "\nWrite the page here in Markdown.\n"
    text = ("\nWrite the post here in Markdown. Its first paragraph is its summary on the "
            "front page.\n")
    if bundle:
        text += ("\nPut this post's images and files in its folder, beside `index.md`, and link "
                 "them by name, for example `![A plot](plot.png)`.\n")
    return text


def new(
    title: str,
    *,
    config_path: Path | str | None = None,
    tags: Sequence[str] | str = (),
    draft: bool = False,
    bundle: bool = False,
    page: bool = False,
    today: dt.date | None = None,
) -> Path:
    """Write a new post (or page) titled `title` in the site of `config_path`; returns its path.

    A post is content/posts/YYYY-MM-DD-slug.md, with `bundle` content/posts/slug/index.md
    (a folder for its images too); a page is content/slug.md. Never overwrites a file.
    `today` dates the post (default: the local date).
    """
    config = load_config(config_path)  # no site.yaml: an error that points to `init`
    if page and bundle:
        raise BlogbuildError("--page and --bundle do not go together; a bundle is a post")
    slug = scaffold.title_slug(title)
    if not slug:
        raise BlogbuildError(
            f"the title {title!r} has no letters or digits to make a file name from; give a "
            "title with words (you can change the title in the front matter afterwards)"
        )
    day = today or dt.date.today()
    if page:
        path = config.content_path / f"{slug}.md"
        stem = slug
    elif bundle:
        path = config.content_path / POSTS_DIR / slug / "index.md"
        stem = slug
    else:
        path = config.content_path / POSTS_DIR / scaffold.dated_name(day, slug)
        stem = path.stem
    if path.exists() or path.is_symlink():
        raise BlogbuildError(f"{path} exists already; choose another title (nothing was written)")
    explicit = slug if scaffold.derived_slug(stem) != slug else None
    text = _front_matter(title, day=None if page else day, tags=_tag_list(tags), draft=draft,
                         slug=explicit) + _body(page=page, bundle=bundle)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "x", encoding="utf-8", newline="\n") as fh:
            fh.write(text)
    except FileExistsError:
        raise BlogbuildError(f"{path} exists already; choose another title") from None
    except OSError as exc:
        raise BlogbuildError(f"cannot write {path}: {exc.strerror or exc}") from None
    return path
