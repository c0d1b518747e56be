"""Pictures drawn for a page (a Matplotlib figure of a build-time block, a notebook's stored
output): published as files beside the page, in the same copies as the site's own pictures,
instead of a data: URL that every reader downloads in full with the page's HTML.

The render of the page makes them (it runs in the worker pool), in the cache folder of
the picture's bytes and the options, under the build's folder of made files (the site's
cache folder, or with --no-cache the engine's scratch folder: the page names files either
way, so a build without the cache writes the same output; blogbuild.stages.context.
Folders); the render records which files its page needs (`Rendered.files`), and the build
publishes them beside the page.
"""

from __future__ import annotations

from pathlib import Path

from blogbuild.images.cache import complete, folder_of, make
from blogbuild.images.process import (
    ImageInfo,
    Options,
    key_of,
    plan,
    probe,
)


def made_picture(data: bytes, cache: Path, options: Options, *,
                 suffix: str = ".png") -> tuple[ImageInfo, Path] | None:
    """The copies of the picture `data` (a PNG, or what `suffix` says) in the cache folder
    under `cache` (made when missing), or None when they cannot be: the caller then shows
    the picture as a data: URL."""
    found = probe(data, suffix, options.max_pixels)
    if not found.usable or found.misnamed:
        return None
    stem = f"output-{found.digest[:8]}"
    variants = tuple(plan(found, stem, options))
    key = key_of(found, options)
    folder = folder_of(cache, key)
    if not complete(folder, variants) and make(folder, data, found, variants, options):
        return None
    return ImageInfo("", found.width, found.height, variants, key=key), folder
