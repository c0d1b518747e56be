"""Import a source folder into a site: find, convert, place, check, then write (or not)."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from blogbuild.config import Config, load_config
from blogbuild.content.discover import POSTS_DIR
from blogbuild.diagnostics import BlogbuildError
from blogbuild.importers import hugo, jekyll, obsidian
from blogbuild.importers.links import Index, Resolver
from blogbuild.importers.meta import as_date
from blogbuild.importers.model import Converted, FoundSite, Line, Note, SourcePost
from blogbuild.importers.placement import existing_slugs, place, unique_slug
from blogbuild.importers.rewrite import restore
from blogbuild.importers.scan import BlockRule, InlineRule, Outcome, rewrite_body
from blogbuild.importers.write import conflicts, write_all


class Source(Protocol):
    """What a source module offers (jekyll, hugo, obsidian)."""

    def find(self, root: Path) -> FoundSite: ...

    def front(self, post: SourcePost, root: Path, outcome: Outcome) -> Converted: ...

    def prepare(self, lines: list[Line], outcome: Outcome) -> list[Line]: ...

    def rules(self, resolver: Resolver, root: Path, files: list[Path]) -> tuple[
        list[BlockRule], list[InlineRule]]: ...

    def residue(self, text: str, line: int, outcome: Outcome) -> None: ...


SOURCES: dict[str, Source] = {"jekyll": jekyll, "hugo": hugo, "obsidian": obsidian}


@dataclass
class ImportReport:
    """What an import did (or, with dry_run, would do)."""

    source: Path  # as the user gave it
    posts: list[Converted]
    files: dict[Path, str]  # each file copied -> its content-relative path
    skipped: list[Note]
    dry_run: bool
    content: Path = field(default_factory=Path)
    #: Why the import cannot write (files it would overwrite, slugs taken); with dry_run only.
    blocked: list[str] = field(default_factory=list)


def import_site(kind: str, source: Path, *, config_path: Path | str | None = None,
                dry_run: bool = False, force: bool = False) -> ImportReport:
    """Convert the `kind` site in `source` into posts of the site of `config_path`."""
    config = load_config(config_path)
    root = _source_root(source, config)
    module = SOURCES[kind]
    found = module.find(root)
    posts = [_front(module, post, root) for post in found.posts]
    posts.sort(key=lambda c: (str(c.date), c.source.rel))
    _same_tag_spelling(posts)
    index = _index(root, found, posts, names=kind == "obsidian")
    for post in posts:  # first pass: which files each post uses
        _convert(module, index, post, root, found.files)
    _name_posts(posts)
    index.placement = place(posts, found, root)
    index.final = True
    for post in posts:
        _convert(module, index, post, root, found.files)
        _drop_own_url(post, config)
    files = {path: index.placement[path] for post in posts for path in post.assets}
    report = ImportReport(source, posts, dict(sorted(files.items(), key=lambda kv: kv[1])),
                          found.skipped, dry_run, config.content_path)
    report.blocked = _slug_conflicts(posts, existing_slugs(config.content_path / POSTS_DIR),
                                     config.content_path)
    report.blocked += conflicts(config.content_path, posts, report.files, force=force)
    if report.blocked and not dry_run:
        shown = "\n  ".join(report.blocked)
        raise BlogbuildError("nothing was written: move these away or rename them (--force "
                             f"overwrites the files that exist):\n  {shown}")
    if not dry_run:
        write_all(config.content_path, posts, report.files)
    return report


def _source_root(source: Path, config: Config) -> Path:
    root = source.resolve()
    if not root.is_dir():
        raise BlogbuildError(f"{source} is not a folder; give the folder of the site or vault "
                             "to import")
    content = config.content_path.resolve()
    if root == content or root.is_relative_to(content) or content.is_relative_to(root):
        raise BlogbuildError(f"{source} and this site's {config.content_dir}/ folder overlap; "
                             "import from a folder outside the site")
    return root


def _front(module: Source, post: SourcePost, root: Path) -> Converted:
    outcome = Outcome()
    converted = module.front(post, root, outcome)
    converted.front_notes = outcome.notes
    converted.source_image = converted.meta.get("image")
    return converted


def _same_tag_spelling(posts: list[Converted]) -> None:
    """One spelling per tag, the first post's: `Python` and `python` would be one tag with
    a warning at every build."""
    spelling: dict[str, str] = {}
    for post in posts:
        tags = post.meta.get("tags")
        if isinstance(tags, list):
            post.meta["tags"] = list(dict.fromkeys(
                spelling.setdefault(str(t).lower(), str(t)) for t in tags))


def _index(root: Path, found: FoundSite, posts: list[Converted], *, names: bool) -> Index:
    index = Index(root, found.roots, {os.path.normpath(p): p for p in found.files},
                  {os.path.normpath(c.source.path): c for c in posts})
    for post in posts:
        for alias in post.meta.get("aliases", []):
            index.old_urls.setdefault(alias, post)
    if names:
        for path in found.files:
            index.names.setdefault(path.name.lower(), path)
    return index


def _convert(module: Source, index: Index, post: Converted, root: Path,
             files: list[Path]) -> None:
    """Rewrite the body and the image of `post` (the first pass only records what it uses)."""
    post.assets = {}
    resolver = Resolver(index, post)
    if post.source.bundle is not None:
        folder = str(root / post.source.bundle) + os.sep
        for path in files:  # a bundle's Markdown files are its resources, not posts
            if str(path).startswith(folder) and path.suffix != ".md":
                resolver.use(path)
    outcome = Outcome()
    lines = module.prepare(list(post.source.body), outcome)
    blocks, inline = module.rules(resolver, root, files)
    body, outcome = _merge(outcome, rewrite_body(lines, blocks, inline, module.residue))
    image = post.source_image
    if image is not None and "://" not in image:
        target = resolver.find(image)
        if isinstance(target, Path):
            post.meta["image"] = resolver.use(target, "image")
            outcome.counts["image"] += 1
        else:
            outcome.note(1, f"the image {image} is not a file of the source; kept as written")
    if index.final:
        post.body = restore(body).strip("\n") + "\n"
        post.counts = outcome.counts
        post.notes = post.front_notes + outcome.notes


def _merge(first: Outcome, result: tuple[str, Outcome]) -> tuple[str, Outcome]:
    body, second = result
    second.counts.update(first.counts)
    second.notes[:0] = first.notes
    return body, second


def _name_posts(posts: list[Converted]) -> None:
    """Give each post a slug no other imported post has."""
    used: set[str] = set()
    for post in posts:
        slug = unique_slug(post.slug, used)
        if slug != post.slug:
            post.front_notes.append(Note(1, f"another imported post has the slug "
                                            f"{post.slug!r}: this one is {slug!r}"))
            post.slug = slug
        used.add(slug)


def _slug_conflicts(posts: list[Converted], taken: dict[str, Path], content: Path) -> list[str]:
    """Posts of the site, other than the files the import writes, that have an imported slug."""
    return [f"{taken[post.slug]} has the slug {post.slug!r} too: rename one of the two "
            "(--force does not replace a post of another name)"
            for post in posts
            if post.slug in taken and taken[post.slug] != content / post.dest]


def _drop_own_url(post: Converted, config: Config) -> None:
    """An alias equal to the post's new URL would redirect the post to itself."""
    date = as_date(post.meta.get("date"))
    if date is None or "aliases" not in post.meta:
        return
    url = config.permalink.format(slug=post.slug, year=f"{date.year:04d}",
                                  month=f"{date.month:02d}", day=f"{date.day:02d}")
    aliases = [a for a in post.meta["aliases"] if a != url]
    if aliases:
        post.meta["aliases"] = aliases
    else:
        del post.meta["aliases"]

