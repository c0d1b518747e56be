"""Injection property: hostile text in every field never becomes a script, handler or bad URL.

Random payloads built from known-nasty fragments go into front matter, Markdown syntax
(link texts and targets, alt text, figure captions, footnotes, callout titles, code), widget
attributes and site.yaml. The site is built for real and every output file is parsed
(HTML with html5lib, XML with ElementTree, and the HTML inside feed entries too). Raw HTML
in a post passes through by design, so the generator writes none: `<` in text is escaped
the Markdown way (`\\<`), and widget attribute values are entity-encoded as an author would.
"""

from __future__ import annotations

import html
import json
import re
import tempfile
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import html5lib
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from blogbuild.commands.build import build
from blogbuild.diagnostics import BlogbuildError
from blogbuild.themefiles import theme_templates

NASTY = [
    "<script>alert(1)</script>", '"><img src=x onerror=alert(1)>', "javascript:alert(1)",
    "' onmouseover='x", "]]>", "</title><script>", "{{7*7}}", "{% raw %}", "\x01\x0b\x1b",
    "\u2028\u2029", "&#x6a;avascript:alert(1)", " JaVaScRiPt:x", "java\tscript:x",
    "vbscript:x", "data:text/html,<b>x</b>", "<!--", "-->", "&amp;", "\\", "`", "*_[]()",
    "café 图", "plain",
]
ALLOWED = {"", "http", "https", "mailto"}
URL_ATTRS = {"href", "src", "action", "formaction", "poster", "srcset", "xlink:href",
             "data", "data-embed", "data-src", "data-pyodide-url", "data-packages-url"}
_SCHEME = re.compile(r"^([a-zA-Z][a-zA-Z0-9+.\-]*):")
_MD_PUNCT = re.compile(r"([!-/:-@\[-`{-~])")

payload = st.lists(st.sampled_from(NASTY), min_size=1, max_size=3).map("".join)
#: Payloads for URL fields in the first test: no ':' (no scheme), so the build goes through
#: and what is checked is how the path is encoded.
path_payload = payload.filter(lambda p: ":" not in p)


def md_text(text: str) -> str:
    """Text as an author writes it in Markdown: punctuation backslash-escaped, one line."""
    return _MD_PUNCT.sub(r"\\\1", " ".join(text.split()) or "x")


def md_dest(text: str) -> str:
    text = re.sub(r"[\r\n]", "", text)
    return "<" + re.sub(r"([<>\\])", r"\\\1", text) + ">"


def attr(text: str) -> str:
    return html.escape(text, quote=True)


def site_files(p: dict[str, str], nav_url: str, image: str | None) -> dict[str, str]:
    meta: dict[str, Any] = {"title": p["title"], "description": p["description"],
                            "tags": [p["tag"], "ok"], "author": p["author"]}
    if image is not None:
        meta["image"] = image
    front = yaml.safe_dump(meta, allow_unicode=True)
    body = f"""
## {md_text(p['heading'])}

See [{md_text(p['link_text'])}]({md_dest(p['link'])}) and `{p['code'].replace('`', "'")}`
and a note[^1].

![{md_text(p['alt'])}]({md_dest(p['image'])} "{md_text(p['caption'])}")

> [!note] {md_text(p['callout'])}
> {md_text(p['text'])}

```python
{p['code']}
```

<div class="collapsible" data-label="{attr(p['label'])}">

Inside.

</div>

<div class="video-embed" data-src="{attr(p['video'])}" data-caption="{attr(p['caption'])}"></div>

<div class="image-compare" data-before="{attr(p['image'])}" data-after="b.png"
     data-caption="{attr(p['caption'])}"></div>

<div class="hf-space" data-src="https://huggingface.co/spaces/a/b"
     data-caption="{attr(p['caption'])}"></div>

[^1]: {md_text(p['footnote'])}
"""
    config = {"title": p["site_title"], "description": p["site_description"],
              "author": p["site_author"], "base_url": "https://example.org/blog/",
              "nav": [{"title": p["nav_title"], "url": nav_url}]}
    return {
        "site.yaml": yaml.safe_dump(config, allow_unicode=True),
        "content/posts/2024-01-01-a.md": f"---\n{front}---\n{body}",
        "content/posts/2024-01-02-b.md": "---\ntitle: B\n---\n\nB.\n",
    }


FIELDS = ["title", "description", "tag", "author", "heading", "link_text", "alt", "caption",
          "callout", "text", "code", "label", "footnote", "site_title", "site_description",
          "site_author", "nav_title"]
texts = st.fixed_dictionaries({name: payload for name in FIELDS})


def build_or_refuse(files: dict[str, str]) -> dict[str, bytes] | None:
    """Build in a fresh folder; the output files, or None when the build refused the input
    with a message naming a file (never another exception)."""
    with tempfile.TemporaryDirectory() as tmp:
        site = Path(tmp) / "site"
        for rel, text in files.items():
            path = site / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        try:
            build(site / "site.yaml", output=site / "_site", use_cache=False)
        except BlogbuildError as exc:
            diagnostics = getattr(exc, "diagnostics", None) or [exc]
            assert all(getattr(d, "file", None) for d in diagnostics), str(exc)
            return None
        out = site / "_site"
        return {p.relative_to(out).as_posix(): p.read_bytes()
                for p in out.rglob("*") if p.is_file() and p.suffix in (".html", ".xml")}


def scheme(url: str) -> str:
    cleaned = re.sub(r"[\x00-\x20\x7f]", "", url)  # what a browser skips, and more
    match = _SCHEME.match(cleaned)
    return match.group(1).lower() if match else ""


#: <meta> tags whose content is a URL (link previews follow them).
URL_METAS = {"og:url", "og:image", "og:image:url", "og:image:secure_url", "twitter:image"}
#: The theme's one inline script (it sets the reader's light or dark theme before the first
#: paint), as base.html writes it: the same on every page, whatever the content.
THEME_SCRIPT = re.search(r"<script>(.*?)</script>",
                         (theme_templates() / "base.html").read_text(encoding="utf-8"),
                         re.S).group(1)  # type: ignore[union-attr]


def check_script(el: Any, where: str) -> None:
    """A script is one of ours: a file of the theme or a runtime, the theme's inline
    script, a theme script listed for the widget loader to import (an inert, empty data
    block naming the file), or JSON-LD data that parses and holds no markup."""
    src, text = el.get("src") or "", el.text or ""
    if el.get("type") == "application/ld+json":
        assert not src and "<" not in text, f"{where}: JSON-LD {text!r}"
        json.loads(text)
        return
    if el.get("type") == "text/plain":  # a widget's script, listed for js/widgets.js
        module = el.get("data-widget-script") or ""
        assert not src and not text.strip(), f"{where}: data block {text!r}"
        assert module.startswith("/blog/js/"), f"{where}: widget script {module!r}"
        return
    if not src:
        assert text == THEME_SCRIPT, f"{where}: inline script {text!r}"
        return
    assert src.startswith(("/blog/js/", "/blog/vendor/")) and not text.strip(), \
        f"{where}: script {src!r} {text!r}"


def check_html(text: str, where: str) -> None:
    doc = html5lib.parse(text, namespaceHTMLElements=False)
    for el in doc.iter():
        if not isinstance(el.tag, str):
            continue
        tag = el.tag.lower()
        if tag == "script":
            check_script(el, where)
        for name, value in el.attrib.items():
            name = name.lower()
            assert not name.startswith("on"), f"{where}: <{tag} {name}={value!r}>"
            values = [value]
            if name == "srcset":
                values = [part.split()[0] for part in value.split(",") if part.split()]
            elif name == "content" and (el.get("property") or el.get("name")) in URL_METAS:
                pass
            elif name not in URL_ATTRS:
                continue
            for url in values:
                found = scheme(url)
                ok = found in ALLOWED or (tag == "img" and name == "src" and found == "data"
                                          and url.lower().startswith("data:image/"))
                assert ok, f"{where}: <{tag} {name}={url!r}>"


def check_outputs(outputs: dict[str, bytes]) -> None:
    assert "posts/b/index.html" in outputs
    for rel, data in outputs.items():
        text = data.decode("utf-8")
        if rel.endswith(".xml"):
            root = ET.fromstring(data)
            for el in root.iter():
                for name, value in el.attrib.items():
                    if name in ("href", "{http://www.w3.org/XML/1998/namespace}base"):
                        assert scheme(value) in ("http", "https"), f"{rel}: {name}={value!r}"
                if el.tag.endswith("}content") and el.get("type") == "html":
                    check_html(el.text or "", rel + " (entry)")
                if el.tag.endswith(("}title", "}summary")) and el.get("type") == "html":
                    check_html(el.text or "", rel + " (title)")
        else:
            check_html(text, rel)


@settings(max_examples=40, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(texts=texts, link=path_payload, image=path_payload, video=path_payload,
       og=st.none() | path_payload)
def test_text_fields_never_inject(texts: dict[str, str], link: str, image: str, video: str,
                                  og: str | None) -> None:
    fields = {**texts, "link": link, "image": image + ".png", "video": video + ".mp4"}
    outputs = build_or_refuse(site_files(fields, "/about/", og))
    assert outputs is not None  # nothing here is refused: every field is only text
    check_outputs(outputs)


URL_FIELDS = ["link", "image", "video", "nav", "og"]


@settings(max_examples=40, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(field=st.sampled_from(URL_FIELDS), url=payload)
def test_url_fields_never_carry_an_executable_url(field: str, url: str) -> None:
    """A hostile URL in one URL field: refused with file and line, or written harmless."""
    fields = {name: "plain" for name in FIELDS}
    fields.update(link="b.md", image="b.png", video="https://youtu.be/dQw4w9WgXcQ")
    if field in fields:
        fields[field] = url + ".mp4" if field == "video" else url
    files = site_files(fields, url if field == "nav" else "/about/",
                       url if field == "og" else None)
    outputs = build_or_refuse(files)
    if outputs is not None:
        check_outputs(outputs)


def test_the_checks_see_a_script_and_a_handler() -> None:
    """The checker itself catches what it looks for (so the properties can fail)."""
    for bad in ('<script>alert(1)</script>', '<img src=x onerror="alert(1)">',
                '<a href="java\tscript:alert(1)">x</a>', '<iframe src="data:text/html,x">'):
        try:
            check_html(bad, "probe")
        except AssertionError:
            continue
        raise AssertionError(f"not caught: {bad}")
