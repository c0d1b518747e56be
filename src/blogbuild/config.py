"""site.yaml → a frozen, validated Config. The classes and their defaults are in
blogbuild.config_model (they load no YAML) and are named here too."""

from __future__ import annotations

import dataclasses
import types
import typing
from pathlib import Path
from typing import Any

from yaml.nodes import MappingNode, Node, SequenceNode

from blogbuild.callout_kinds import CalloutType
from blogbuild.config_checks import check_base_url, validate
from blogbuild.config_citations import bibliography_paths, files_digest
from blogbuild.config_model import (
    _NOT_KEYS,
    CheckConfig,
    CitationsConfig,
    CommentsConfig,
    Config,
    ImagesConfig,
    MathConfig,
    NavLink,
    NotebooksConfig,
    RunnableConfig,
    SocialConfig,
    StatementsConfig,
)
from blogbuild.diagnostics import ConfigError
from blogbuild.fileio import read_at_most
from blogbuild.sitefile import CONFIG_NAME, MAX_CONFIG_BYTES, config_file
from blogbuild.sourcetext import decode_source
from blogbuild.yamlcore import (
    BOOL,
    INT,
    MAP,
    Document,
    compose,
    describe,
    is_null,
    text_of,
    to_python,
)

__all__ = [
    "CONFIG_NAME",
    "CalloutType",
    "CheckConfig",
    "CitationsConfig",
    "CommentsConfig",
    "Config",
    "ImagesConfig",
    "MathConfig",
    "NavLink",
    "NotebooksConfig",
    "RunnableConfig",
    "SocialConfig",
    "StatementsConfig",
    "load_config",
]



def _type_name(tp: Any) -> str:
    return getattr(tp, "__name__", str(tp))


class _Reader:
    """Builds the Config from site.yaml's nodes, noting the line of every key it reads."""

    def __init__(self, doc: Document) -> None:
        self.doc = doc
        self.lines: dict[str, int] = {}  # dotted key ("math.output", "nav[0].url") -> line

    def build(self, cls: type[Any], node: MappingNode, prefix: str = "") -> Any:
        hints = typing.get_type_hints(cls)
        fields = [f for f in dataclasses.fields(cls) if f.name not in _NOT_KEYS]
        names = [f.name for f in fields]
        kwargs: dict[str, Any] = {}
        for key_node, value in node.value:
            key = str(key_node.value)
            if key not in names:
                close = [n for n in names if _similar(key, n)]
                hint = f" (did you mean '{prefix}{close[0]}'?)" if close else ""
                raise self.doc.fail(f"unknown key '{prefix}{key}'{hint}; known keys: "
                                    f"{', '.join(names)}", key_node)
            self.lines[prefix + key] = self.doc.line(key_node)
            if is_null(value) and text_of(value) is None:
                continue  # `key:` with no value keeps the default
            kwargs[key] = self.coerce(value, hints[key], prefix + key)
        for f in fields:
            required = f.default is dataclasses.MISSING and \
                f.default_factory is dataclasses.MISSING
            if required and f.name not in kwargs:
                raise self.doc.fail(f"'{prefix.rstrip('.')}' needs '{f.name}' (each item is "
                                    f"{{{', '.join(n + ': …' for n in names)}}})", node)
        return cls(**kwargs)

    def coerce(self, node: Node, tp: Any, key: str) -> Any:
        """Check `node` against the annotation `tp`; nested mappings become dataclasses."""
        origin = typing.get_origin(tp)
        args = typing.get_args(tp)
        fail = self.doc.fail
        if origin in (typing.Union, types.UnionType):
            if is_null(node) and text_of(node) is None and type(None) in args:
                return None
            return self.coerce(node, next(a for a in args if a is not type(None)), key)
        if dataclasses.is_dataclass(tp) and isinstance(tp, type):
            if is_null(node) and text_of(node) is None:
                return tp()
            # `images: false` is `images: {enabled: false}`
            if node.tag == BOOL and "enabled" in {f.name for f in dataclasses.fields(tp)}:
                return tp(enabled=to_python(node, self.doc))  # type: ignore[call-arg]
            if not isinstance(node, MappingNode):
                raise fail(f"'{key}' must be a mapping (indented 'key: value' lines), not "
                           f"{describe(node)}", node)
            return self.build(tp, node, prefix=key + ".")
        if origin is tuple:
            if not isinstance(node, SequenceNode):
                raise fail(f"'{key}' must be a list ('- item' lines), not {describe(node)}",
                           node)
            items = []
            for i, item in enumerate(node.value):
                self.lines[f"{key}[{i}]"] = self.doc.line(item)
                items.append(self.coerce(item, args[0], f"{key}[{i}]"))
            return tuple(items)
        if origin is dict:
            if not isinstance(node, MappingNode):
                raise fail(f"'{key}' must be a mapping (indented 'key: value' lines), not "
                           f"{describe(node)}", node)
            out = {}
            for k, v in node.value:
                self.lines[f"{key}.{k.value}"] = self.doc.line(k)
                out[str(k.value)] = self.coerce(v, args[1], f"{key}.{k.value}")
            return out
        if tp is Any:
            return to_python(node, self.doc)
        if tp is bool:
            if node.tag != BOOL:
                raise fail(f"'{key}' must be true or false, not {describe(node)}", node)
            return to_python(node, self.doc)
        if tp is int:
            if node.tag != INT:
                raise fail(f"'{key}' must be a whole number (an integer), not "
                           f"{describe(node)}", node)
            return to_python(node, self.doc)
        if tp in (str, Path):
            text = text_of(node)
            if text is None:
                raise fail(f"'{key}' must be a string, not "
                           f"{'empty' if is_null(node) else describe(node)}", node)
            return tp(text)
        raise fail(f"'{key}' has an unsupported type {_type_name(tp)}", node)


def _similar(a: str, b: str) -> bool:
    import difflib

    return difflib.SequenceMatcher(None, a.lower(), b.lower()).ratio() >= 0.75


def load_config(path: Path | str | None = None, *, base_url: str | None = None) -> Config:
    """Read and validate site.yaml (default: ./site.yaml)."""
    cfg_path = config_file(path)
    if not cfg_path.is_file():
        raise ConfigError(
            f"no {cfg_path.name} found at {cfg_path}, so this is not a blog folder: run "
            "blogbuild in the folder that holds your site.yaml (or pass --config PATH), or "
            "start a blog with `blogbuild init`",
        )
    source = str(cfg_path)
    try:
        data = read_at_most(cfg_path, MAX_CONFIG_BYTES)
    except OSError as exc:
        raise ConfigError(f"cannot read the file: {exc.strerror or exc}", file=source) from None
    if data is None:
        raise ConfigError(f"the file is larger than {MAX_CONFIG_BYTES:,} bytes; site.yaml "
                          "holds settings only", file=source)
    doc = compose(decode_source(data, source, ConfigError), source, ConfigError)
    if doc.root is None:
        doc.root = MappingNode(MAP, [])
    if not isinstance(doc.root, MappingNode):
        raise doc.fail(f"site.yaml must be 'key: value' lines, not {describe(doc.root)}",
                       doc.root)
    reader = _Reader(doc)
    config: Config = reader.build(Config, doc.root)
    config = dataclasses.replace(config, root=cfg_path.parent.resolve())
    validate(config, source, reader.lines)
    bibliography = bibliography_paths(config.bibliography, source, reader.lines)
    config = dataclasses.replace(config, bibliography=bibliography, citation_files=files_digest(
        config.root, bibliography, config.citations.style, source, reader.lines),
        bibliography_lines=tuple(reader.lines.get(f"bibliography[{i}]",
                                                  reader.lines.get("bibliography", 0))
                                 for i in range(len(bibliography))))
    if base_url is not None:
        check_base_url(base_url, "--base-url")
        config = dataclasses.replace(config, base_url=base_url)
    return config
