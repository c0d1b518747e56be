"""site.yaml → a frozen, validated Config; defaults live here and nowhere else."""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from blogbuild.diagnostics import ConfigError
from blogbuild.urls import UrlBuilder

CONFIG_NAME = "site.yaml"


@dataclass(frozen=True)
class NavLink:
    title: str
    url: str


@dataclass(frozen=True)
class CalloutType:
    """A callout type added or changed by site.yaml (`callouts:`)."""

    title: str | None = None
    icon: str | None = None
    color: str | None = None
    alias_of: str | None = None


@dataclass(frozen=True)
class MathConfig:
    enabled: bool = True
    inline_dollar: bool = True
    # MathML next to the HTML lets screen readers speak formulas; it costs some bytes only.
    output: str = "htmlAndMathml"
    macros: dict[str, str] = field(default_factory=dict)
    numbering: bool = True


@dataclass(frozen=True)
class RunnableConfig:
    # None means Pyodide's public package index for the vendored version.
    packages_url: str | None = None


@dataclass(frozen=True)
class Config:
    """The site's configuration. `root` is the folder holding site.yaml."""

    root: Path = Path(".")
    title: str = "My blog"
    base_url: str = "http://localhost:8000/"
    author: str = ""
    description: str = ""
    language: str = "en"
    permalink: str = "/posts/{slug}/"
    posts_per_page: int = 10
    nav: tuple[NavLink, ...] = ()
    date_format: str = "%B %-d, %Y"
    content_dir: str = "content"
    output_dir: str = "_site"
    feed_entries: int = 20
    toc_min_headings: int = 3
    callouts: dict[str, CalloutType] = field(default_factory=dict)
    math: MathConfig = field(default_factory=MathConfig)
    runnable: RunnableConfig = field(default_factory=RunnableConfig)
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def urls(self) -> UrlBuilder:
        return UrlBuilder(self.base_url)

    @property
    def content_path(self) -> Path:
        return self.root / self.content_dir

    def render_fingerprint(self) -> str:
        """The parts of the config that change how a post renders (the cache key uses it).

        Exactly what the parser reads (tests/test_cache.py checks every field): more would
        only re-render every post when, say, the permalink pattern changes."""
        relevant = {
            "base_url": self.base_url,
            "callouts": {k: dataclasses.asdict(v) for k, v in sorted(self.callouts.items())},
            "math": dataclasses.asdict(self.math),
        }
        return repr(sorted(relevant.items()))


_NOT_KEYS = {"root"}


def _type_name(tp: Any) -> str:
    return getattr(tp, "__name__", str(tp))


def _coerce(value: Any, tp: Any, key: str, source: str) -> Any:
    """Check `value` against the annotation `tp`, converting nested mappings to dataclasses."""
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if origin in (typing.Union, types.UnionType):
        if value is None and type(None) in args:
            return None
        inner = [a for a in args if a is not type(None)]
        return _coerce(value, inner[0], key, source)
    if dataclasses.is_dataclass(tp) and isinstance(tp, type):
        if not isinstance(value, Mapping):
            raise ConfigError(f"'{key}' must be a mapping", file=source)
        return _build(tp, value, source, prefix=key + ".")
    if origin is tuple:
        if not isinstance(value, list):
            raise ConfigError(f"'{key}' must be a list", file=source)
        return tuple(_coerce(v, args[0], f"{key}[{i}]", source) for i, v in enumerate(value))
    if origin is dict:
        if not isinstance(value, Mapping):
            raise ConfigError(f"'{key}' must be a mapping", file=source)
        return {
            str(k): _coerce(v if v is not None else {}, args[1], f"{key}.{k}", source)
            for k, v in value.items()
        }
    if tp is Any:
        return value
    if tp is bool:
        if not isinstance(value, bool):
            raise ConfigError(f"'{key}' must be true or false, not {value!r}", file=source)
        return value
    if tp is int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise ConfigError(f"'{key}' must be an integer, not {value!r}", file=source)
        return value
    if tp is str:
        if not isinstance(value, str | int | float) or isinstance(value, bool):
            raise ConfigError(f"'{key}' must be a string, not {value!r}", file=source)
        return str(value)
    if tp is Path:
        return Path(str(value))
    raise ConfigError(f"'{key}' has an unsupported type {_type_name(tp)}", file=source)


def _build(cls: type[Any], data: Mapping[str, Any], source: str, prefix: str = "") -> Any:
    hints = typing.get_type_hints(cls)
    names = [f.name for f in dataclasses.fields(cls) if f.name not in _NOT_KEYS]
    kwargs: dict[str, Any] = {}
    for key, value in data.items():
        if key not in names:
            close = [n for n in names if _similar(str(key), n)]
            hint = f" (did you mean '{prefix}{close[0]}'?)" if close else ""
            known = ", ".join(names)
            raise ConfigError(
                f"unknown key '{prefix}{key}'{hint}; known keys: {known}", file=source
            )
        if value is None:
            continue
        kwargs[key] = _coerce(value, hints[key], prefix + str(key), source)
    return cls(**kwargs)


def _similar(a: str, b: str) -> bool:
    import difflib

    return difflib.SequenceMatcher(None, a.lower(), b.lower()).ratio() >= 0.75


def load_config(path: Path | str | None = None, *, base_url: str | None = None) -> Config:
    """Read and validate site.yaml (default: ./site.yaml)."""
    cfg_path = Path(path) if path is not None else Path(CONFIG_NAME)
    if cfg_path.is_dir():
        cfg_path = cfg_path / CONFIG_NAME
    if not cfg_path.is_file():
        raise ConfigError(
            f"no {cfg_path.name} found at {cfg_path}; run blogbuild in the folder that holds "
            "your site.yaml, or pass --config PATH",
        )
    try:
        text = cfg_path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read the file: {exc}", file=cfg_path) from None
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 1 if mark is not None else 0
        problem = getattr(exc, "problem", None) or str(exc)
        raise ConfigError(f"invalid YAML: {problem}", file=cfg_path, line=line) from None
    if data is None:
        data = {}
    if not isinstance(data, Mapping):
        raise ConfigError("site.yaml must be a mapping of keys to values", file=cfg_path)
    if base_url is not None:
        data = {**data, "base_url": base_url}
    config: Config = _build(Config, data, str(cfg_path))
    config = dataclasses.replace(config, root=cfg_path.parent.resolve())
    _validate(config, str(cfg_path))
    return config


def _validate(config: Config, source: str) -> None:
    if config.posts_per_page < 1:
        raise ConfigError("'posts_per_page' must be at least 1", file=source)
    if "{slug}" not in config.permalink or not config.permalink.startswith("/"):
        raise ConfigError(
            "'permalink' must start with '/' and contain {slug}, e.g. /posts/{slug}/",
            file=source,
        )
    if config.math.output not in ("html", "htmlAndMathml", "mathml"):
        raise ConfigError("'math.output' must be html, htmlAndMathml or mathml", file=source)
    if not config.base_url.startswith(("http://", "https://")):
        raise ConfigError(
            f"'base_url' must be an absolute http(s) URL, not {config.base_url!r}", file=source
        )
