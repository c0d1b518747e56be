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


# --- raw TeX is never silent -------------------------------------------------------------

_TEX_PIECES = ["\\frac{a}{b}", "\\sqrt{2}", "\\alpha", "x", "=", "^2", "_i", " "]
_COMMANDS = re.compile(r"\\(?:frac|sqrt|alpha)")
#: How authors write a formula (`{}` is the TeX), and how they get it wrong.
_STYLES = ["${}$", "$ {} $", "$${}$$", "\\({}\\)", "\n$${}$$\n", "$$ {} $$"]
_MISTAKES = ["${}", "{}$", "$ {} $5", "$ {} $x", "$ {}", "${}$5", "$ {}\n$"]
#: Prose around formulas: prices, lone dollar signs, shell variables, words (no TeX).
_PROSE = ["costs $5", "and $10", "word", "$ and", "$HOME", "x", "—", "between $ and €",
          "$ 5 or $ 10", "$ ls -la", "=", "\n", "\n\n"]


def _formula(styles: list[str]) -> st.SearchStrategy[str]:
    return st.tuples(
        st.sampled_from(styles),
        st.lists(st.sampled_from(_TEX_PIECES), min_size=0, max_size=4),
        st.sampled_from(_TEX_PIECES[:3]),
    ).map(lambda t: t[0].replace("{}", "".join(t[1]) + t[2]))


#: Words, prices and formulas, with at most one mistake (two mistakes side by side,
#: `$\alpha $ \beta`, can be read more than one way).
_segments = st.tuples(
    st.lists(st.one_of(_formula(_STYLES), st.sampled_from(_PROSE)), min_size=0, max_size=7),
    st.lists(_formula(_MISTAKES), max_size=1),
    st.integers(min_value=0, max_value=7),
).map(lambda t: t[0][: t[2]] + t[1] + t[0][t[2] :])


def _visible_text(html: str) -> str:
    """The page's text outside code, rendered formulas and formulas shown as errors."""
    fragment = html5lib.HTMLParser(strict=False, namespaceHTMLElements=False) \
        .parseFragment(html)
    out: list[str] = []

    def walk(element: object) -> None:
        classes = element.attrib.get("class", "").split()  # type: ignore[attr-defined]
        if element.tag == "code" or "katex" in classes or "math-error" in classes:  # type: ignore[attr-defined]
            out.append(element.tail or "")  # type: ignore[attr-defined]
            return
        out.append(element.text or "")  # type: ignore[attr-defined]
        for child in element:  # type: ignore[attr-defined]
            walk(child)
        out.append(element.tail or "")  # type: ignore[attr-defined]

    walk(fragment)
    return "".join(out)


@settings(max_examples=400, deadline=None)
@given(segments=_segments, joiner=st.sampled_from([" ", "\n"]))
def test_tex_left_on_the_page_always_has_a_diagnostic(segments: list[str], joiner: str) -> None:
    """Prose holds no TeX command, so one on the page is a formula that was not rendered:
    the build said so, with a line (syntax.md: never silently raw TeX)."""
    source = joiner.join(segments) + "\n"
    html, env = render(source)
    if _COMMANDS.search(_visible_text(html)):
        diagnostics = env.get("diagnostics", [])
        assert diagnostics and all(d.line >= 1 for d in diagnostics), (source, html)
