"""Callout types: the built-in ones, their aliases, and those a site adds in site.yaml.

Read by the config check (a bad colour or alias is reported at its line of site.yaml) and
by the callout plugin (how each type renders)."""

from __future__ import annotations

import dataclasses
import html
import re
from collections.abc import Mapping
from dataclasses import dataclass

from blogbuild.callout_icons import ICONS
from blogbuild.diagnostics import ConfigError


@dataclass(frozen=True)
class CalloutType:
    """A callout type added or changed by site.yaml (`callouts:`)."""

    title: str | None = None
    icon: str | None = None
    color: str | None = None
    alias_of: str | None = None
    #: A numbered statement ("Theorem 2"); None keeps the type's own (or its target's) choice.
    numbered: bool | None = None


BUILTIN_TYPES: tuple[str, ...] = (
    *("note", "tip", "important", "warning", "caution"),  # GitHub's
    *("abstract", "info", "todo", "success", "question", "failure"),  # Obsidian's
    *("danger", "bug", "example", "quote"),
    *("definition", "proof", "critical"),  # this blog's own
)

# alias -> (type it is styled as, default title). Obsidian's, plus theorem-like names.
_ALIASES: dict[str, tuple[str, str]] = {
    "summary": ("abstract", "Summary"),
    "tldr": ("abstract", "TL;DR"),
    "hint": ("tip", "Hint"),
    "check": ("success", "Check"),
    "done": ("success", "Done"),
    "help": ("question", "Help"),
    "faq": ("question", "FAQ"),
    "attention": ("warning", "Attention"),
    "fail": ("failure", "Fail"),
    "missing": ("failure", "Missing"),
    "error": ("danger", "Error"),
    "cite": ("quote", "Cite"),
    "theorem": ("definition", "Theorem"),
    "lemma": ("definition", "Lemma"),
    "corollary": ("definition", "Corollary"),
    "proposition": ("definition", "Proposition"),
    "exercise": ("definition", "Exercise"),
    "remark": ("definition", "Remark"),
}

#: The types numbered per post ("Theorem 2"), one counter shared by all unless site.yaml's
#: `statements.counters` is `per-type`.
STATEMENT_TYPES: tuple[str, ...] = ("theorem", "lemma", "proposition", "corollary",
                                    "definition", "example", "exercise", "remark")

_NAME = re.compile(r"[^\W\d][\w-]*$")
_COLOR = re.compile(
    r"#[0-9a-fA-F]{3,8}|[a-zA-Z]+|(?:rgba?|hsla?|hwb|lab|lch|oklab|oklch|color|var)\([^;{}<>\"']*\)"
)


@dataclass(frozen=True)
class Kind:
    """How one type name renders: canonical type (CSS class), default title, icon, colour."""

    type: str
    title: str
    icon: str  # HTML for the icon span
    color: str | None = None  # a site.yaml colour; None: the stylesheet's colour for the type
    numbered: bool = False  # a statement: its title gets the next number of the post


def title_of(name: str) -> str:
    return re.sub(r"[-_]+", " ", name).strip().capitalize() or name


def _check_color(key: str, value: str) -> str:
    if not _COLOR.fullmatch(value.strip()):
        raise ConfigError(
            f"'callouts.{key}.color' must be a CSS colour such as \"#0969da\" or "
            f"\"rgb(9 105 218)\", not {value!r}"
        )
    return value.strip()


def _check_icon(key: str, value: str) -> str:
    text = value.strip()
    if text.startswith("<svg"):
        return text  # the site author's own drawing, trusted like their templates
    if text.lower() in ICONS:
        return ICONS[text.lower()]
    if text and len(text) <= 8 and not re.search(r"[A-Za-z0-9<>&]", text):
        return html.escape(text)  # an emoji or symbol
    raise ConfigError(
        f"'callouts.{key}.icon' must be an icon name ({', '.join(ICONS)}), inline <svg> "
        f"markup or an emoji, not {value!r}"
    )


def _override(kind: Kind, key: str, spec: CalloutType) -> Kind:
    return dataclasses.replace(
        kind,
        title=spec.title if spec.title is not None else kind.title,
        icon=_check_icon(key, spec.icon) if spec.icon is not None else kind.icon,
        color=_check_color(key, spec.color) if spec.color is not None else kind.color,
        numbered=spec.numbered if spec.numbered is not None else kind.numbered,
    )


def build_kinds(types: Mapping[str, CalloutType] | None) -> dict[str, Kind]:
    """The lower-case type names an author may write → how each renders (built-ins + site.yaml)."""
    kinds = {name: Kind(name, title_of(name), ICONS[name]) for name in BUILTIN_TYPES}
    for alias, (target, title) in _ALIASES.items():
        kinds[alias] = dataclasses.replace(kinds[target], title=title)
    for name in STATEMENT_TYPES:
        kinds[name] = dataclasses.replace(kinds[name], numbered=True)
    specs = {str(key).lower(): spec for key, spec in (types or {}).items()}
    for key in specs:
        if not _NAME.match(key):
            raise ConfigError(f"'callouts.{key}': a callout type name is letters, digits, - or _")
    for key, spec in specs.items():
        if spec.alias_of is None:
            base = kinds.get(key) or Kind(key, title_of(key), ICONS["neutral"])
            kinds[key] = _override(base, key, spec)
    pending = {key: spec for key, spec in specs.items() if spec.alias_of is not None}
    while pending:  # aliases may point at each other: resolve them in dependency order
        ready = [k for k, s in pending.items() if str(s.alias_of).lower() not in pending]
        if not ready:
            raise ConfigError(f"'callouts': the aliases {', '.join(sorted(pending))} form a cycle")
        for key in ready:
            spec = pending.pop(key)
            target = str(spec.alias_of).lower()
            if target not in kinds:
                raise ConfigError(
                    f"'callouts.{key}.alias_of': unknown callout type {spec.alias_of!r}"
                )
            title = kinds[key].title if key in kinds else title_of(key)
            kinds[key] = _override(dataclasses.replace(kinds[target], title=title), key, spec)
    return kinds


