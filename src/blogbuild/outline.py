"""The few settings a build with nothing to do reads, and a light copy of them.

The check that finds a build has nothing to do (blogbuild.pipeline.quick) reads little of
the Config: the site's folders, the options a render depends on, what decides whether a
source runs code at build time, whether there is a search index, and the Config's text,
which it fingerprints. A Config has them, and so has an `Outline` (`SiteOptions` is
either), taken from a Config when site.yaml is read and kept with it in the cache
(blogbuild.pipeline.settings). With the Outline the check loads none of the Config's
classes, a tenth of such a build; the Config itself is unpickled when there is work."""

from __future__ import annotations

import pickle
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from typing import TypeAlias

    from blogbuild.config_model import Config

    #: What the check of a build with nothing to do reads the settings from.
    SiteOptions: TypeAlias = "Config | Outline"

#: What decides whether a source runs code at build time and how: the notebooks'
#: `execute`, the runnable blocks' `execute` and their timeout (fingerprints.may_execute).
Runs = tuple[str, str, int]


class Outline:
    """The settings of a Config that the check reads, as plain values, and the Config
    (`config()`), pickled beside them until asked for. `cites`: site.yaml names files
    (bibliographies, a style) whose bytes the Config holds a digest of."""

    __slots__ = ("_again", "_config", "_pickled", "_render", "_values", "cites",
                 "content_dir", "output_dir", "root", "runs", "search", "shown")
    root: Path
    content_dir: str
    output_dir: str
    search: bool
    runs: Runs
    shown: str
    cites: bool
    _render: str

    def __init__(self, values: tuple[Any, ...], config: Config | None, pickled: bytes,
                 again: Callable[[], Config]) -> None:
        (root, self.content_dir, self.output_dir, self.search, self.runs, self.shown,
         self.cites, self._render) = values
        self.root = Path(root)
        self._values, self._config, self._pickled, self._again = values, config, pickled, again

    @staticmethod
    def values_of(config: Config) -> tuple[Any, ...]:
        """What an Outline of `config` holds, as plain values (picklable without any of
        blogbuild's classes)."""
        return (str(config.root), config.content_dir, config.output_dir, config.search,
                config.runs, config.shown, bool(config.citation_files),
                config.render_fingerprint())

    @classmethod
    def of(cls, config: Config) -> Outline:
        return cls(cls.values_of(config), config, b"", lambda: config)

    @property
    def content_path(self) -> Path:
        return self.root / self.content_dir

    def render_fingerprint(self) -> str:
        return self._render

    def config(self) -> Config:
        """The Config these values were taken from: unpickled, or when that fails or
        does not give it, `again()` (site.yaml read as usual)."""
        if self._config is None:
            self._config = self._unpickled() or self._again()
        return self._config

    def _unpickled(self) -> Config | None:
        from blogbuild.config_model import Config

        try:
            config = pickle.loads(self._pickled)
        except Exception:  # damaged
            return None
        if not isinstance(config, Config) or self.values_of(config) != self._values:
            return None
        return config
