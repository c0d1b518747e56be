"""A renderer's SVG made fit for a page, through an XML parser (never text edits of it):

- nothing that runs or loads: no <script>, <foreignObject>, <image>, <use> of another
  file, event handler or style attribute that loads a resource; a link only when our link
  rules accept its URL (`javascript:` never);
- ids unique on the page: each is prefixed (a page holds several diagrams, and Mermaid
  names every root `merman`), with the references to them (`url(#…)`, `#…` links, the
  selectors of its <style>) renamed with them;
- accessible: `role="img"`, a <title> (the fence's `title=`, else what the diagram says
  of itself: Mermaid's `accTitle`) and a <desc> (`accDescr`), named by `aria-labelledby`;
- as wide as it wants to be, never wider than its box: no fixed width or height, a
  `max-width` from its view box.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from blogbuild.urls import has_scheme, is_safe_url

SVG = "http://www.w3.org/2000/svg"
XLINK = "http://www.w3.org/1999/xlink"
ET.register_namespace("", SVG)
ET.register_namespace("xlink", XLINK)

_DROPPED = {f"{{{SVG}}}{name}" for name in ("script", "foreignObject", "image", "iframe",
                                             "object", "embed", "audio", "video",
                                             "animate", "set", "animateTransform")}
_HREFS = ("href", f"{{{XLINK}}}href")
_URL_REF = re.compile(r"url\(\s*['\"]?#([^'\")\s]+)['\"]?\s*\)")
_LOADS = re.compile(r"url\(\s*['\"]?(?!#)|@import|expression|javascript", re.IGNORECASE)


#: Attributes renderers write where SVG has none (Mermaid's `name` on shapes, text
#: positions on groups): dropped, so that the page stays valid HTML.
_NOWHERE = {"name"}
_NOT_ON = {
    f"{{{SVG}}}g": {"x", "y", "dx", "dy", "width", "height", "viewBox", "title", "overflow"},
    f"{{{SVG}}}circle": {"x", "y", "width", "height", "viewBox", "overflow"},
    f"{{{SVG}}}ellipse": {"x", "y", "width", "height", "viewBox", "overflow"},
    f"{{{SVG}}}path": {"x", "y", "width", "height", "viewBox"},
    f"{{{SVG}}}line": {"x", "y", "width", "height", "viewBox"},
    f"{{{SVG}}}polygon": {"x", "y", "width", "height", "viewBox"},
}
_BASELINES = {"auto", "text-bottom", "alphabetic", "ideographic", "middle", "central",
              "mathematical", "hanging", "text-top", "use-script", "no-change",
              "reset-size"}


class BadSvg(ValueError):
    """The renderer's output is not SVG."""


def _safe_link(url: str) -> bool:
    url = url.strip()
    if url.startswith("#"):
        return True
    if not is_safe_url(url):
        return False
    return not has_scheme(url) or url.lower().startswith(("http:", "https:", "mailto:"))


def adapt(svg: str, prefix: str, *, title: str = "", desc: str = "",
          fixed: bool = False, renumber: bool = False) -> str:
    """`svg` for a page (see the module's docstring); `prefix` makes its ids unique;
    `fixed`: it keeps the size it was drawn at (a chart, made live at that size), its box
    scrolls when the column is narrower; `renumber`: its ids are numbered in the order
    they come (a renderer that counts its ids across drawings, as Vega does its clip
    paths, would give the same drawing other ids in another process)."""
    try:
        root = ET.fromstring(svg)
    except ET.ParseError as exc:
        raise BadSvg(f"the renderer wrote no valid SVG ({exc})") from None
    if root.tag != f"{{{SVG}}}svg":
        raise BadSvg("the renderer wrote no SVG")
    _clean(root)
    renamed: dict[str, str] = {}
    taken: set[str] = set()
    for element in root.iter():
        ident = element.get("id")
        if ident is not None:
            new = f"{prefix}-{len(taken) + 1}" if renumber else f"{prefix}-{ident}"
            while new in taken:  # a renderer that names two elements alike (mind maps)
                new += "-"
            taken.add(new)
            renamed.setdefault(ident, new)
            element.set("id", new)
    for element in root.iter():
        for name, value in list(element.attrib.items()):
            if "url(" in value:
                element.set(name, _URL_REF.sub(
                    lambda m: f"url(#{renamed.get(m[1], m[1])})", value))
            elif name in _HREFS and value.startswith("#"):
                element.set(name, "#" + renamed.get(value[1:], value[1:]))
        if element.tag == f"{{{SVG}}}style" and element.text:
            element.text = _rename_selectors(element.text, renamed)
    _label(root, prefix, title, desc)
    if not fixed:
        _size(root)
    return ET.tostring(root, encoding="unicode", short_empty_elements=True)


def _clean(root: ET.Element) -> None:
    for parent in list(root.iter()):
        for child in list(parent):
            if child.tag in _DROPPED or not isinstance(child.tag, str):
                parent.remove(child)
    for element in root.iter():
        for name in list(element.attrib):
            value = element.attrib[name]
            local = name.rsplit("}", 1)[-1].lower()
            if (local.startswith("on") or (name in _HREFS and not _safe_link(value))
                    or (local == "style" and _LOADS.search(value)) or name in _NOWHERE
                    or name in _NOT_ON.get(element.tag, ())
                    or (name == "dominant-baseline" and value not in _BASELINES)):
                del element.attrib[name]
        if element.tag == f"{{{SVG}}}style" and element.text and _LOADS.search(
                element.text.replace("url(#", "")):
            element.text = ""  # a style sheet that loads something: none at all


def _rename_selectors(css: str, renamed: dict[str, str]) -> str:
    """The selectors `#id` of a style sheet, renamed (longest ids first)."""
    if not renamed:
        return css
    names = sorted(renamed, key=len, reverse=True)
    pattern = re.compile(r"#(" + "|".join(re.escape(n) for n in names) + r")(?![\w-])")
    return pattern.sub(lambda m: "#" + renamed[m[1]], css)


def _label(root: ET.Element, prefix: str, title: str, desc: str) -> None:
    root.set("role", "img")
    for name in ("aria-roledescription",):
        root.attrib.pop(name, None)
    own_title = root.find(f"{{{SVG}}}title")
    own_desc = root.find(f"{{{SVG}}}desc")
    if title:
        if own_title is None:
            own_title = ET.Element(f"{{{SVG}}}title")
            root.insert(0, own_title)
        own_title.text = title
    if desc and own_desc is None:
        own_desc = ET.Element(f"{{{SVG}}}desc")
        root.insert(1 if own_title is not None else 0, own_desc)
        own_desc.text = desc
    named = []
    for part, suffix in ((own_title, "title"), (own_desc, "desc")):
        if part is not None and (part.text or "").strip():
            part.set("id", f"{prefix}-{suffix}")
            named.append(f"{prefix}-{suffix}")
    for name in ("aria-labelledby", "aria-describedby"):
        root.attrib.pop(name, None)
    if named:
        root.set("aria-labelledby", " ".join(named))


def _size(root: ET.Element) -> None:
    box = (root.get("viewBox") or "").replace(",", " ").split()
    for name in ("width", "height"):
        root.attrib.pop(name, None)
    root.set("width", "100%")
    if len(box) == 4:
        try:
            width = float(box[2])
        except ValueError:
            return
        # As wide as drawn, at most the column; never narrower than its text can be read
        # at (then its box scrolls, on a phone).
        root.set("style", f"max-width: {width:.0f}px; min-width: min({width:.0f}px, 36rem)")
