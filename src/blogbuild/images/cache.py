"""The cache folder of a picture's copies: `<cache>/images/<key[:2]>/<key>/`, one file
per copy (`Variant.file`), written whole or not at all."""

from __future__ import annotations

import contextlib
from pathlib import Path

from blogbuild.fileio import replace_folder
from blogbuild.images.process import EncodeError, Options, Probe, Variant, encode


def folder_of(cache: Path, key: str) -> Path:
    return cache / "images" / key[:2] / key


def complete(folder: Path, variants: tuple[Variant, ...] | list[Variant]) -> bool:
    """Every copy is there (a folder someone emptied is made again)."""
    return all((folder / v.file).is_file() for v in variants)


def write(folder: Path, files: dict[str, bytes], variants: tuple[Variant, ...]) -> bool:
    """Put `files` in `folder` through a temporary folder renamed into place (two
    processes may make the same one); False when the copies are not there after."""
    with contextlib.suppress(OSError):
        replace_folder(folder, files)
    return complete(folder, variants)


def make(folder: Path, data: bytes, found: Probe, variants: tuple[Variant, ...],
         options: Options) -> str:
    """Encode the copies of the picture `data` into `folder`; "" or why they could not be
    made."""
    try:
        files = encode(data, found, list(variants), options.quality, options.max_pixels)
    except EncodeError as exc:
        return f"cannot be decoded ({exc})"
    if not write(folder, files, variants):
        return "its copies could not be written to the cache folder"
    return ""
