"""The files a site copies into its output: the theme's static files, the generated code
styles, the site's static/ folder, files under content/, the runtimes pages need, and
the files renders made beside their pages."""

from __future__ import annotations

import posixpath
from collections.abc import Mapping
from pathlib import Path

from blogbuild.config_model import Config
from blogbuild.content.models import Site
from blogbuild.content.records import SourceEntry
from blogbuild.content.walk import ignored, shown, walk_files
from blogbuild.diagnostics import Diagnostic
from blogbuild.output.bundles import CODE_CSS
from blogbuild.output.claims import SITE_STATIC, THEME, Owner
from blogbuild.output.codestyles import code_css, code_css_key
from blogbuild.output.files import FileSpec
from blogbuild.output.writer import bundle_files
from blogbuild.themefiles import theme_dir, theme_static


def _tree(source: Path, root: Path, *, rank: int, label: str = "",
          ) -> tuple[list[FileSpec], list[Diagnostic]]:
    """A static folder's files; and warnings about the entries skipped.

    `root` is the folder symbolic links may point into and messages are relative to;
    `label` is put before the shown path (the theme's files have no site path)."""
    allowed = [root.resolve(), source.resolve()]
    files, problems = walk_files(source, allowed, root=root, skip=ignored)
    specs = []
    for path in files:
        where = shown(path, root)
        # The theme's files are no file of the site: report collisions at the other one.
        owner = Owner(f"{label}{where}", "" if rank == THEME else where, rank=rank)
        specs.append(FileSpec(path.relative_to(source).as_posix(), path, owner))
    return specs, problems


def static_rels(config: Config) -> list[str]:
    """The paths under static/ of the files a build copies from there (what wiki embeds
    may name); the entries skipped are reported by `site_files`."""
    site_static = config.root / "static"
    if not site_static.is_dir() or site_static.resolve() == theme_static().resolve():
        return []
    specs, _ = _tree(site_static, config.root, rank=SITE_STATIC)
    return [spec.rel for spec in specs]


def site_files(config: Config, site: Site, assets: list[tuple[Path, str]],
               ) -> tuple[list[FileSpec], list[Diagnostic]]:
    """Every file to copy, in claiming order (a site's static file replaces the theme's)."""
    specs, problems = _tree(theme_static(), theme_dir(), rank=THEME, label="the theme's ")
    specs.append(FileSpec(CODE_CSS, None, Owner("the generated code styles", "", rank=THEME),
                          lambda: code_css().encode(), code_css_key()))
    site_static = config.root / "static"
    if site_static.is_dir() and site_static.resolve() != theme_static().resolve():
        more, more_problems = _tree(site_static, config.root, rank=SITE_STATIC)
        specs += more
        problems += more_problems
    for path, rel in assets:
        where = shown(path, config.root)
        specs.append(FileSpec(site.assets[rel].lstrip("/"), path, Owner(where, where)))
    needs = sorted({n for p in [*site.posts, *site.pages] for n in p.needs})
    for need in needs:
        for source, rel in bundle_files(need):
            specs.append(FileSpec(rel, source, Owner(f"the {need} bundle", "")))
    return specs, problems


def made_files(site: Site, entries: Mapping[str, SourceEntry]) -> list[FileSpec]:
    """The files renders made for their pages (images.outputs), beside each page."""
    specs = []
    for post in [*site.posts, *site.pages]:
        entry = entries.get(post.source)
        rendered = entry.result.rendered if entry is not None else None
        if rendered is None or not rendered.files:
            continue
        base = post.url if post.url.endswith("/") else posixpath.dirname(post.url) + "/"
        owner = Owner(f"a picture drawn by a block of {post.display}", "")
        for name, made in rendered.files:
            specs.append(FileSpec(f"{base.lstrip('/')}{name}", Path(made), owner))
    return specs
