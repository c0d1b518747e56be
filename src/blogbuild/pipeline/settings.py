"""The site's settings as the last build read them, kept in the cache.

A build whose site.yaml has the same bytes, read with the same options by the same code,
takes the Config the last build read from it instead of reading the YAML again. Loading
YAML and the checks of every key was a tenth of a build with nothing to do; this module
loads neither. The note holds the Config's `Outline` (blogbuild.outline) as plain values
and the Config pickled beside it: the check of a build with nothing to do reads the
Outline, and loading the Config's classes waits until there is work.

The note's key covers everything `load_config` reads: the bytes of site.yaml (read whole,
so a write in the same tick of the clock is seen), the folder it is in, `--base-url` and
the code fingerprint (blogbuild's code and the libraries it parses with). The files
site.yaml names (bibliographies, a .csl style) are read and hashed again, as `load_config`
does. Anything else, a damaged note or an error, reads site.yaml as usual: that reports
what is wrong with it.
"""

from __future__ import annotations

import contextlib
import hashlib
import pickle
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from blogbuild import fingerprints
from blogbuild.fileio import read_at_most
from blogbuild.outline import Outline
from blogbuild.output.outdir import CACHE_DIR
from blogbuild.pipeline.state import save_pickle
from blogbuild.sitefile import MAX_CONFIG_BYTES, config_file

if TYPE_CHECKING:
    from blogbuild.config_model import Config

NOTE = "settings.pickle"


def _read(site_yaml: Path) -> tuple[bytes, Path] | None:
    """site.yaml's bytes and the folder it is in, resolved (None: it cannot be read or is
    too big; reading it again says why)."""
    try:
        data = read_at_most(site_yaml, MAX_CONFIG_BYTES)
        root = site_yaml.parent.resolve()
    except OSError:
        return None
    return (data, root) if data is not None else None


def _key(data: bytes, root: Path, base_url: str | None) -> str:
    """What the note of settings read from `data` must name."""
    h = hashlib.sha256(f"{fingerprints.code_fingerprint()}\0{root}\0{base_url!r}\0".encode())
    h.update(data)
    return h.hexdigest()


def load(path: Path | str | None, base_url: str | None) -> Config:
    """The settings of site.yaml at `path` with this `--base-url` (see `outline`)."""
    return outline(path, base_url).config()


def outline(path: Path | str | None, base_url: str | None) -> Outline:
    """The settings of site.yaml at `path` with this `--base-url`: those the last build
    read, when nothing they were read from changed since (their Config unpickled when
    asked for); else read now and remembered. First, `code_fingerprint` recalls its value
    from the site's cache (the key needs it; so does the rest of the build)."""
    site_yaml = config_file(path)
    read = _read(site_yaml)
    cache = read[1] / CACHE_DIR if read is not None else None
    key = ""

    def again() -> Config:
        """site.yaml read as usual, and remembered when it had the bytes of the key."""
        from blogbuild.config import load_config  # YAML: only when site.yaml is read

        config = load_config(path, base_url=base_url)
        if cache is not None and _read(site_yaml) == read:
            save_pickle(cache / NOTE, (key, Outline.values_of(config),
                                       pickle.dumps(config, protocol=pickle.HIGHEST_PROTOCOL)))
        return config

    if read is not None and cache is not None:  # a blog's folder: its cache may be made
        with contextlib.suppress(OSError):
            fingerprints.recall_code_fingerprint(cache / "code-fingerprint.pickle")
        key = _key(*read, base_url)
        found = _remembered(key, cache, again)
        if found is not None and (not found.cites or _files_hold(found.config(), site_yaml)):
            return found
    return Outline.of(again())


def _remembered(key: str, cache: Path, again: Callable[[], Config]) -> Outline | None:
    """The note's Outline when its key is `key` (the Config in it is only checked when
    it is unpickled: `Outline.config`)."""
    try:
        with open(cache / NOTE, "rb") as fh:
            note = pickle.load(fh)
        if not (isinstance(note, tuple) and len(note) == 3 and note[0] == key
                and isinstance(note[1], tuple) and isinstance(note[2], bytes)):
            return None
        return Outline(note[1], None, note[2], again)
    except Exception:  # none yet, or damaged: site.yaml is read
        return None


def _files_hold(config: Config, site_yaml: Path) -> bool:
    """The files site.yaml names hash as they did when it was read."""
    from blogbuild.config_citations import files_digest

    try:
        digest = files_digest(config.root, config.bibliography, config.citations.style,
                              str(site_yaml), {})
    except Exception:  # unreadable now: reading site.yaml says so, at its line
        return False
    return digest == config.citation_files
