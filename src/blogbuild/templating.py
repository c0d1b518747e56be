"""The Jinja environment: site templates first, the bundled theme second; filters use one URL fn."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

import jinja2

from blogbuild import __version__, pyodide
from blogbuild.config import Config
from blogbuild.diagnostics import TemplateError
from blogbuild.feedhtml import feed_html
from blogbuild.theme import theme_templates


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


def create_environment(config: Config) -> jinja2.Environment:
    loaders: list[jinja2.BaseLoader] = []
    site_templates = config.root / "templates"
    if site_templates.is_dir() and site_templates.resolve() != theme_templates().resolve():
        loaders.append(jinja2.FileSystemLoader(str(site_templates)))
    loaders.append(jinja2.FileSystemLoader(str(theme_templates())))
    env = jinja2.Environment(
        loader=jinja2.ChoiceLoader(loaders),
        autoescape=jinja2.select_autoescape(["html", "xml", "j2"], default_for_string=True),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
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
    env.filters["feed_html"] = feed_html
    env.filters["absolute_url"] = urls.absolute
    env.filters["date"] = date_filter
    env.filters["isodate"] = _isodate
    env.filters["rfc3339"] = _rfc3339
    env.globals["config"] = config
    env.globals["blogbuild_version"] = __version__
    env.globals["pyodide_packages_url"] = lambda: pyodide.packages_url(config)
    return env


def render_template(env: jinja2.Environment, name: str, **context: Any) -> str:
    """Render one template; template problems become TemplateError with file and line."""
    try:
        return env.get_template(name).render(**context)
    except jinja2.TemplateSyntaxError as exc:
        raise TemplateError(f"template syntax error: {exc.message}",
                            file=exc.filename or name, line=exc.lineno or 0) from None
    except jinja2.TemplateNotFound as exc:
        raise TemplateError(f"template not found: {exc.name}", file=name) from None
    except jinja2.UndefinedError as exc:
        raise TemplateError(f"template error: {exc.message}", file=_template_file(env, name)) \
            from None


def _template_file(env: jinja2.Environment, name: str) -> str:
    try:
        source = env.get_template(name).filename
    except jinja2.TemplateError:
        return name
    return str(Path(source)) if source else name
