"""The files a site copies into its output: the theme's static files, the generated code
styles, the site's static/ folder, files under content/ and the runtimes pages need."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from blogbuild.config import Config
from blogbuild.content.models import Site
from blogbuild.content.walk import ignored, shown, walk_files
from blogbuild.diagnostics import Diagnostic
from blogbuild.output.claims import SITE_STATIC, THEME, Claims, Owner
from blogbuild.output.plan import code_css
from blogbuild.output.theme import theme_dir, theme_static
from blogbuild.output.writer import bundle_files

#: The generated stylesheet of code blocks.
CODE_CSS = "css/pygments.css"


@dataclass(frozen=True)
class FileSpec:
    rel: str  # path in the output folder
    source: Path | None  # None: generated (`data`)
    owner: Owner
    data: bytes = b""


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


def site_files(config: Config, site: Site, assets: list[tuple[Path, str]],
               ) -> tuple[list[FileSpec], list[Diagnostic]]:
    """Every file to copy, in claiming order (a site's static file replaces the theme's)."""
    specs, problems = _tree(theme_static(), theme_dir(), rank=THEME, label="the theme's ")
    specs.append(FileSpec(CODE_CSS, None, Owner("the generated code styles", "", rank=THEME),
                          code_css().encode()))
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


def claim_files(claims: Claims, specs: list[FileSpec]) -> dict[str, FileSpec]:
    """Claim every file's path; the winner of each path (site static over theme)."""
    chosen: dict[str, FileSpec] = {}
    for spec in specs:
        if claims.claim(spec.rel, spec.owner):
            chosen[spec.rel] = spec
    return chosen
