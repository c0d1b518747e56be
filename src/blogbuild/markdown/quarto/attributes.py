"""Pandoc's attribute blocks, as fenced divs and bracketed spans write them.

    {#fig-plots .column-page layout-ncol=2 title="Two plots"}

`parse` reads the inside of the braces into an id, classes and key=value pairs, or gives
None when the text is not one (then the author's text stays text). `html_attributes` gives
what may go into the HTML: the id and the classes, the attributes of attrs.SAFE and `data-*`
as written, a `style` that loads nothing, and any other key as `data-KEY` (as Pandoc writes
them for HTML); never an `on…` handler nor a value holding an executable URL. The
renderer escapes the values when it writes them.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass, field

from blogbuild.markdown.attrs import SAFE, UNSAFE_STYLE
from blogbuild.markdown.env import Env, report
from blogbuild.urls import is_safe_url

__all__ = ["PandocAttrs", "html_attributes", "parse", "report_refused", "safe_attributes"]

_ITEM = re.compile(
    r"""[ \t\n]*(?:\#(?P<id>[^\s{}#."'=]+(?:[.:][^\s{}#."'=]+)*)"""
    r"""|\.(?P<cls>[^\s{}#."'=]+)"""
    r"""|(?P<key>[A-Za-z_][\w:.-]*)=(?:"(?P<dq>(?:[^"\\]|\\.)*)"|'(?P<sq>[^']*)'"""
    r"""|(?P<bare>[^\s"'{}]+))"""
    r"""|(?P<dash>-)(?=[ \t\n]|$))"""
)
_ESCAPE = re.compile(r"\\(.)")
_DATA = re.compile(r"data-[a-z0-9][a-z0-9._:-]*")
#: The most attributes one block may hold: a bigger one is not an author's attribute list.
MAX_ITEMS = 64


@dataclass
class PandocAttrs:
    """What one attribute block says: its id, classes and key=value pairs, in order."""

    ident: str | None = None
    classes: list[str] = field(default_factory=list)
    pairs: dict[str, str] = field(default_factory=dict)

    def get(self, key: str) -> str | None:
        return self.pairs.get(key)


def parse(text: str) -> PandocAttrs | None:
    """The attribute block inside `{…}` (braces excluded), or None: it does not parse."""
    found = PandocAttrs()
    pos, count = 0, 0
    while pos < len(text):
        if not text[pos:].strip():
            break
        match = _ITEM.match(text, pos)
        if match is None or match.end() == pos or count >= MAX_ITEMS:
            return None
        end = match.end()
        if end < len(text) and not text[end].isspace():
            return None  # `.a.b`, `#x"y"`: items are separated by space
        count += 1
        pos = end
        if match.group("id") is not None:
            found.ident = match.group("id")
        elif match.group("cls") is not None:
            found.classes.append(match.group("cls"))
        elif match.group("dash") is not None:
            found.classes.append("unnumbered")
        else:
            value = next((v for v in match.group("dq", "sq", "bare") if v is not None), "")
            if match.group("dq") is not None:
                value = _ESCAPE.sub(r"\1", value)
            found.pairs[match.group("key")] = value
    return found


def safe_attributes(found: PandocAttrs, *, used: Collection[str] = (),
                    classes: Collection[str] | None = None) -> tuple[dict[str, str], list[str]]:
    """(the attributes `found` may give an element, the keys refused): the keys in `used`
    mean something to blogbuild and are not written; `classes` replaces the author's
    classes when given. Refused: an event handler, an executable URL, a style that loads."""
    out: dict[str, str] = {}
    if found.ident:
        out["id"] = found.ident
    written = list(found.classes if classes is None else classes)
    if written:
        out["class"] = " ".join(dict.fromkeys(written))
    refused: list[str] = []
    for key, value in found.pairs.items():
        name = key.lower()
        if key in used:
            continue
        if name.startswith("on") or name in ("id", "class") or not is_safe_url(value.strip()):
            refused.append(key)
        elif name == "style":
            if UNSAFE_STYLE.search(value):
                refused.append(key)
            else:
                out["style"] = value.strip()
        elif name in SAFE or _DATA.fullmatch(name):
            out[name] = value
        else:
            out[f"data-{name}"] = value
    return out, refused


def report_refused(env: Env, line: int, refused: Collection[str]) -> None:
    if refused:
        report(env, line, f"attribute block: refused {', '.join(refused)} (an event handler, "
               "a value that is a javascript:, data: or file: URL and a style that loads "
               "something are never written into the page)")


def html_attributes(env: Env, line: int, found: PandocAttrs, *, used: Collection[str] = (),
                    classes: Collection[str] | None = None) -> dict[str, str]:
    """`safe_attributes`, what they refuse reported at `line`."""
    out, refused = safe_attributes(found, used=used, classes=classes)
    report_refused(env, line, refused)
    return out
