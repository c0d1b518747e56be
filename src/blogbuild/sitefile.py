"""Which file holds a site's settings: its name, the size it may have, the one a command reads.

A base module: a build that finds its settings remembered needs these and nothing of the
Config's classes (blogbuild.config_model) or of YAML (blogbuild.config)."""

from __future__ import annotations

from pathlib import Path

CONFIG_NAME = "site.yaml"
#: A site.yaml larger than this is refused before parsing (it is a few dozen lines).
MAX_CONFIG_BYTES = 1_000_000


def config_file(path: Path | str | None) -> Path:
    """The site.yaml a command reads: `path` (a folder means its site.yaml), or the one in
    the current folder."""
    found = Path(path) if path is not None else Path(CONFIG_NAME)
    return found / CONFIG_NAME if found.is_dir() else found
