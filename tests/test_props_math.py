"""Injection property for math: KaTeX's trusted commands never yield a script, an event
handler or an executable URL, whatever an author writes in their arguments, and a URL the
link rules refuse is always reported."""

from __future__ import annotations

import re

import html5lib
from hypothesis import given, settings
from hypothesis import strategies as st

from blogbuild.urls import scheme_of
from math_helpers import render

NASTY = [
    "javascript:alert(1)", " JaVaScRiPt:x", "java\tscript:x", "&#x6a;avascript:x",
    "javascript&colon;x", "javascript&#58;x", "vbscript:x", "data:text/html,x", "data:image/png,x",
    '"', "'", "<script>", "><img src=x onerror=alert(1)>", " onclick=", "onclick=alert(1)",
    "=", ",", "{,}", "url(", "https://e.org/", "/site/path", "#frag", "mailto:a@b.c",
    "\\", "%", "x", " ",
]
payload = st.lists(st.sampled_from(NASTY), min_size=1, max_size=4).map("".join)
COMMANDS = [
    "\\href{{{}}}{{x}}", "\\url{{{}}}", "\\includegraphics{{{}}}",
    "\\htmlData{{{}=1}}{{x}}", "\\htmlData{{a={}}}{{x}}", "\\htmlId{{{}}}{{x}}",
    "\\htmlClass{{{}}}{{x}}", "\\htmlStyle{{{}}}{{x}}",
]
ALLOWED = {"", "http", "https", "mailto"}
_SCHEME = re.compile(r"^([a-zA-Z][a-zA-Z0-9+.\-]*):")


def _browser_scheme(value: str) -> str:
    """The scheme a browser follows for an attribute value already parsed from HTML: it
    drops leading spaces and controls, and tabs and newlines inside, decodes nothing."""
    cleaned = re.sub(r"[\t\n\r]", "", value).lstrip("\x00\x01\x02\x03\x04\x05\x06\x07\x08"
                                                    "\x0b\x0c\x0e\x0f\x10\x11\x12\x13"
                                                    "\x14\x15\x16\x17\x18\x19\x1a\x1b"
                                                    "\x1c\x1d\x1e\x1f ")
    match = _SCHEME.match(cleaned)
    return match.group(1).lower() if match else ""


def _check(fragment: object) -> None:
    for element in fragment.iter():  # type: ignore[attr-defined]
        assert element.tag not in ("script", "iframe", "object", "embed")
        for name, value in element.attrib.items():
            assert not str(name).lower().startswith("on"), (element.tag, name, value)
            if name in ("href", "src"):
                assert _browser_scheme(value) in ALLOWED, (element.tag, name, value)
            if name == "style":
                assert "url(" not in value.lower() and "javascript" not in value.lower()


@settings(max_examples=300, deadline=None)
@given(command=st.sampled_from(COMMANDS), text=payload,
       display=st.booleans())
def test_trusted_commands_never_inject(command: str, text: str, display: bool) -> None:
    tex = command.format(text.replace("\n", " "))
    source = f"$$\n{tex}\n$$\n" if display else f"Inline ${tex}$ here.\n"
    html, env = render(source)
    parser = html5lib.HTMLParser(strict=False, namespaceHTMLElements=False)
    _check(parser.parseFragment(html))
    if command.startswith(("\\href", "\\url", "\\includegraphics")) and "{" not in text \
            and "}" not in text and "\\" not in text and "%" not in text:
        url = text
        if scheme_of(url) not in ALLOWED or not url.strip():
            assert env.get("diagnostics"), (source, html)
