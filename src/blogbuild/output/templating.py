"""The Jinja environment: site templates first, the bundled theme second; filters use one URL fn.

A site's ``templates/NAME`` replaces the theme's template of that name; the theme's own
version stays reachable as ``theme/NAME``, so an override can ``{% extends "theme/NAME" %}``
and change only some blocks.
"""

from __future__ import annotations

import datetime as dt
import os
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any

import jinja2
from markupsafe import Markup

from blogbuild import __version__
from blogbuild.config_model import Config
from blogbuild.content.bodies import MissingBody
from blogbuild.content.models import Post
from blogbuild.diagnostics import TemplateError
from blogbuild.memory import Kept
from blogbuild.output.cards import card_url
from blogbuild.runtimes import pyodide
from blogbuild.sourcetext import decode_source
from blogbuild.themefiles import (
    CUSTOM_JS,
    ENTRY_TEMPLATES,
    THEME_PREFIX,
    theme_templates,
)


def _og_locale(language: str) -> str:
    """OpenGraph's locale (`pt_BR`) for a language tag with a region (`pt-BR`); "" for a
    bare language (`en`): OpenGraph has no form for it, and guessing a region is wrong."""
    parts = language.replace("_", "-").split("-")
    if len(parts) < 2 or len(parts[0]) != 2 or len(parts[1]) != 2:
        return ""
    return f"{parts[0].lower()}_{parts[1].upper()}"


def _isodate(value: dt.datetime | dt.date | None) -> str:
    if value is None:
        return ""
    if isinstance(value, dt.datetime):
        return value.isoformat() if value.tzinfo else value.strftime("%Y-%m-%d") if (
            value.hour == value.minute == value.second == 0) else value.isoformat()
    return value.isoformat()


def _rfc3339(value: dt.datetime | dt.date | None) -> str:
    """Atom needs a full timestamp with a zone; naive dates are taken as UTC midnight."""
    if value is None:
        return "1970-01-01T00:00:00Z"
    if not isinstance(value, dt.datetime):
        value = dt.datetime(value.year, value.month, value.day)
    if value.tzinfo is None:
        return value.strftime("%Y-%m-%dT%H:%M:%SZ")
    return value.isoformat()


def _newest(values: Iterable[dt.datetime | None]) -> dt.datetime | None:
    """The latest of some dates (None: there are none): a feed's `<updated>` is its most
    recently updated entry, not its newest post. Naive dates count as UTC, as in Atom."""
    def instant(value: dt.datetime) -> dt.datetime:
        return value if value.tzinfo else value.replace(tzinfo=dt.UTC)

    dates = [v for v in values if v is not None]
    return max(dates, key=instant) if dates else None


#: Characters no XML document may hold, not even as &#…; references (and that HTML
#: calls parse errors): C0 controls but tab and newlines, DEL is allowed, U+FFFE/U+FFFF.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


class Templated(Markup):
    """What a template wrote (a post's entry, shown by the page that calls `list_item` or
    `feed_entry`): every value in it went through `_printable` already. What is made from
    it (`+`, `replace`, …) is plain Markup, searched as any other value: Markup makes its
    results with `self.__class__`."""

    __slots__ = ()

    @property  # type: ignore[misc]
    def __class__(self) -> type[Markup]:  # type: ignore[override]
        return Markup

    def __reduce__(self) -> tuple[type[Markup], tuple[str]]:
        return Markup, (str(self),)


def _printable(value: object) -> object:
    """Jinja's `finalize`: every value a template outputs loses the characters above (shown
    as U+FFFD), so a stray control character in a title cannot make feed.xml unreadable.
    Autoescaping still happens after this, once; HTML marked safe stays marked safe."""
    if type(value) is Templated:  # a feed's entries: megabytes searched again
        return value
    if isinstance(value, str) and _NOT_XML.search(value):
        return type(value)(_NOT_XML.sub("\ufffd", value))  # str stays str, Markup Markup
    return value




@dataclass(frozen=True)
class CompiledTemplates:
    """Where a build keeps the templates Jinja compiled: in this process's memory under
    `name`, which stands for the settings Jinja folds into compiled code (`Engine.
    compiled_templates`), and in the site's cache folder `folder` when it has one."""

    name: str
    folder: Path | None = None


def create_environment(config: Config, bytecode: CompiledTemplates | None = None,
                       stylesheets: Mapping[frozenset[str], str] | None = None,
                       *, reload: bool = True) -> jinja2.Environment:
    """The environment pages are templated in; `bytecode` says where compiled templates
    are kept between builds (a template is compiled again when its source changes; None:
    nowhere); `stylesheets` maps a page's needs to the path of its stylesheet. `reload`:
    look at a template's file each time it is used (an environment that outlives an edit
    of a template); without, every `{% include %}` of every page would."""
    theme = jinja2.FileSystemLoader(str(theme_templates()))
    loaders: list[jinja2.BaseLoader] = []
    site_templates = config.root / "templates"
    if site_templates.is_dir() and site_templates.resolve() != theme_templates().resolve():
        _check_readable(site_templates, config.root)
        loaders.append(jinja2.FileSystemLoader(str(site_templates)))
    loaders += [theme, jinja2.PrefixLoader({THEME_PREFIX: theme})]
    loader: jinja2.BaseLoader = jinja2.ChoiceLoader(loaders)
    env = jinja2.Environment(
        loader=loader if reload else _KnownMissing(loader),
        autoescape=jinja2.select_autoescape(["html", "xml", "j2"], default_for_string=True),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        finalize=_printable,
        bytecode_cache=_bytecode_cache(bytecode),
        auto_reload=reload,
    )
    urls = config.urls

    def date_filter(value: dt.datetime | dt.date | None, fmt: str | None = None) -> str:
        if value is None:
            return ""
        fmt = fmt or config.date_format
        try:
            return value.strftime(fmt)
        except ValueError:
            return value.strftime("%Y-%m-%d")

    env.filters["url"] = urls.url
    env.filters["absolute_url"] = urls.absolute
    env.filters["date"] = date_filter
    env.filters["isodate"] = _isodate
    env.filters["og_locale"] = _og_locale
    env.filters["card_url"] = card_url
    env.filters["rfc3339"] = _rfc3339
    env.filters["newest"] = _newest
    env.globals["config"] = config
    env.globals["blogbuild_version"] = __version__
    env.globals["pyodide_packages_url"] = lambda: pyodide.packages_url(config)
    env.globals["stylesheet"] = _stylesheet(stylesheets or {}, urls.url)
    env.globals["custom_js"] = (config.root / "static" / CUSTOM_JS).is_file()

    def entry(function: str, template: str) -> Callable[[Any], Markup]:
        def show(post: Any) -> Markup:
            """A post's entry (in a list, in a feed): `template`, seeing `post` and the
            globals."""
            if not isinstance(post, Post):
                raise TypeError(f"{function}() shows a post, not {type(post).__name__}")
            return Templated(env.get_template(template).render(post=post))
        return show

    for function, template in ENTRY_TEMPLATES.items():
        env.globals[function] = entry(function, template)
    return env


class _KnownMissing(jinja2.BaseLoader):
    """`loader`, remembering the templates it does not have. Jinja keeps the templates
    it found, not the ones it did not: every page's `{% include "needs/…" ignore missing %}`
    would look for the same absent files in every template folder again."""

    def __init__(self, loader: jinja2.BaseLoader) -> None:
        self.loader = loader
        self.missing: set[str] = set()

    def get_source(self, environment: jinja2.Environment, template: str,
                   ) -> tuple[str, str | None, Callable[[], bool] | None]:
        if template in self.missing:
            raise jinja2.TemplateNotFound(template)
        try:
            return self.loader.get_source(environment, template)
        except jinja2.TemplateNotFound:
            self.missing.add(template)
            raise

    def list_templates(self) -> list[str]:
        return self.loader.list_templates()


def _stylesheet(stylesheets: Mapping[frozenset[str], str],
                url: Callable[[str], str]) -> Callable[..., str]:
    """The template function `stylesheet()`: the URL of the page's one stylesheet, which
    the build made of the theme's CSS and that of the page's `needs`."""

    @jinja2.pass_context
    def stylesheet(context: jinja2.runtime.Context) -> str:
        needs = frozenset(context.get("needs", ()))
        if needs not in stylesheets:
            raise LookupError(f"no stylesheet was made for a page with the needs {sorted(needs)}")
        return url("/" + stylesheets[needs])

    return stylesheet


def _bytecode_cache(where: CompiledTemplates | None) -> jinja2.BytecodeCache | None:
    if where is None:
        return None
    folder = where.folder
    if folder is not None:
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError:
            folder = None  # a cache that cannot be written only costs speed
    return _Compiled(where.name, folder)


#: Compiled templates this process has loaded or made, by the name of the settings they
#: were compiled with, the template and the checksum of its source (`_Compiled`).
_COMPILED: Kept[tuple[str, str, str], Any] = Kept(512)


class _Compiled(jinja2.BytecodeCache):
    """A build's compiled templates, in this process's memory and in the site's cache
    folder when it has one: a second build in one process (a new Engine of the live
    server, a program that builds several sites, with their caches or without) takes them
    from memory, where each build read and unmarshalled them again, or compiled them (a
    one-post site built after another: 0.5 s before, 0.2 s from memory; without a cache,
    0.21 s and 0.08 s). The code depends on the template's name and file, its source, the
    environment's options, which `create_environment` alone sets, the same for every site,
    and the settings Jinja folds into it, which `name` stands for (`Engine.
    compiled_templates`)."""

    def __init__(self, name: str, folder: Path | None) -> None:
        self.name = name
        self.disk = jinja2.FileSystemBytecodeCache(str(folder)) if folder is not None else None

    def load_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        code = _COMPILED.get(self._key(bucket))
        if code is not None:
            bucket.code = code
            if self.disk is not None and not os.path.exists(
                    self.disk._get_cache_filename(bucket)):
                self.disk.dump_bytecode(bucket)  # this site's cache holds it too
            return
        if self.disk is not None:
            self.disk.load_bytecode(bucket)
            if bucket.code is not None:
                _COMPILED.keep(self._key(bucket), bucket.code)

    def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        _COMPILED.keep(self._key(bucket), bucket.code)
        if self.disk is not None:
            self.disk.dump_bytecode(bucket)

    def _key(self, bucket: jinja2.bccache.Bucket) -> tuple[str, str, str]:
        return self.name, bucket.key, bucket.checksum


def _check_readable(folder: Path, root: Path) -> None:
    """A site template that is not UTF-8 or cannot be read is the author's to fix: say so
    up front with its file and line (Jinja would fail later, outside any template frame)."""
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        shown = path.relative_to(root).as_posix() if path.is_relative_to(root) else str(path)
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise TemplateError(f"cannot read the template: {exc.strerror or exc}",
                                file=shown) from None
        decode_source(data, shown, TemplateError)


def render_template(env: jinja2.Environment, name: str, *, url_path: str = "",
                    **context: Any) -> str:
    """Render one template; any problem in a template becomes a TemplateError that names the
    template file and line and the page being rendered."""
    page = context.get("page")
    where = f"while rendering {url_path or name}"
    source = getattr(page, "display", None)
    if source:
        where += f" ({source})"
    try:
        return env.get_template(name).render(url_path=url_path, **context)
    except jinja2.TemplateSyntaxError as exc:
        raise TemplateError(f"template syntax error: {exc.message} ({where})",
                            file=_shown(exc.filename) or name, line=exc.lineno or 0) from None
    except jinja2.TemplateNotFound as exc:
        file, line = _innermost_template(exc.__traceback__)
        raise TemplateError(f"template not found: {exc.name} ({where}); a site template "
                            f"can extend the theme's as \"{THEME_PREFIX}/NAME\"",
                            file=file or _template_file(env, name), line=line) from None
    except RecursionError as exc:
        file, line = _innermost_template(exc.__traceback__)
        raise TemplateError(
            f"a template includes or extends itself ({where}); to build on the theme's "
            f"version of a template, use {{% extends \"{THEME_PREFIX}/NAME\" %}}",
            file=file or _template_file(env, name), line=line) from None
    except (TemplateError, MissingBody):
        raise
    except Exception as exc:
        file, line = _innermost_template(exc.__traceback__)
        if file is None:
            raise  # not in a template: our bug, reported as one
        message = exc.message if isinstance(exc, jinja2.TemplateError) and exc.message \
            else f"{type(exc).__name__}: {exc}"
        raise TemplateError(f"template error: {message} ({where})", file=file, line=line) \
            from None


def _shown(filename: str | None) -> str | None:
    """A template path as messages show it: relative to the working folder when inside it."""
    if not filename:
        return None
    path = Path(filename)
    try:
        return str(path.resolve().relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def _innermost_template(tb: TracebackType | None) -> tuple[str | None, int]:
    """The last traceback frame that runs template code (Jinja maps frames to its lines)."""
    found: tuple[str | None, int] = (None, 0)
    while tb is not None:
        if "__jinja_exception__" in tb.tb_frame.f_globals:  # a frame made by jinja2.debug
            found = (_shown(tb.tb_frame.f_code.co_filename), tb.tb_lineno)
        tb = tb.tb_next
    return found


def _template_file(env: jinja2.Environment, name: str) -> str:
    try:
        source = env.get_template(name).filename
    except (jinja2.TemplateError, RecursionError):
        return name
    return _shown(source) or name
