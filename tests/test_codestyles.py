"""The generated code stylesheet: every token colour readable on the code background, in
light and in dark (where the light rules still apply unless the dark ones override)."""

from __future__ import annotations

import re

import pytest

from blogbuild.output.codestyles import CODE_BACKGROUNDS, code_css, contrast, readable
from blogbuild.themefiles import theme_static

DARK_JS = ':root[data-theme="dark"] '
DARK_NO_JS = ':root:not([data-theme="light"]) '
RULE = re.compile(r"^\s*([.:][^{}@]*?) \{ (.*?) \}$", re.M)

Rules = dict[str, dict[str, str]]


def parse(css: str) -> Rules:
    return {sel: dict(d.split(": ", 1) for d in decls.split("; ")) for sel, decls in
            RULE.findall(css)}


def theme_vars() -> tuple[dict[str, str], dict[str, str]]:
    """The custom properties of main.css: light (:root) and dark (data-theme="dark")."""
    css = (theme_static() / "css" / "main.css").read_text()

    def block(selector: str) -> dict[str, str]:
        body = css[css.index(selector + " {") + len(selector) + 2:]
        body = body[: body.index("}")]
        return dict(re.findall(r"(--[\w-]+):\s*([^;]+);", body))

    return block(":root"), block(':root[data-theme="dark"]')


def split(css: str) -> tuple[Rules, Rules, Rules]:
    light_part, _, rest = css.partition(DARK_JS)
    rest = DARK_JS + rest
    dark_part, _, media = rest.partition("@media (prefers-color-scheme: dark) {")
    light = parse(light_part)
    dark = {s.removeprefix(DARK_JS): p for s, p in parse(dark_part).items()}
    no_js = {s.removeprefix(DARK_NO_JS): p for s, p in parse(media).items()}
    return light, dark, no_js


def effective(light: Rules, dark: Rules, selector: str, code_fg: str) -> tuple[str, str]:
    """The colour and background a token has in dark mode (both rule sets apply)."""
    props = {**light.get(selector, {}), **dark.get(selector, {})}
    color = props.get("color", "inherit")
    back = props.get("background-color", "transparent")
    return (code_fg if color == "inherit" else color), back


def test_the_code_background_is_the_themes() -> None:
    light_vars, dark_vars = theme_vars()
    assert (light_vars["--code-bg"], dark_vars["--code-bg"]) == CODE_BACKGROUNDS


def test_every_token_colour_reaches_4_5_to_1_in_light_and_dark() -> None:
    light_vars, dark_vars = theme_vars()
    light, dark, no_js = split(code_css())
    assert len(light) > 50 and len(dark) > 50
    assert dark == no_js  # the reader's choice and the system's preference look the same
    light_bg, dark_bg = light_vars["--code-bg"], dark_vars["--code-bg"]
    checked = 0
    for selector, props in light.items():
        if "color" in props:
            back = props.get("background-color", light_bg)
            assert contrast(props["color"], back) >= 4.5, (selector, props)
            checked += 1
    for selector in {*light, *dark}:
        color, back = effective(light, dark, selector, dark_vars["--code-fg"])
        back = dark_bg if back == "transparent" else back
        assert contrast(color, back) >= 4.5, (selector, color, back)
        checked += 1
    assert checked > 120
    # the comment colour Lighthouse flagged (4.45:1) is now readable
    assert contrast(light[".highlight .c"]["color"], light_bg) >= 4.5


def test_light_only_styling_does_not_leak_into_dark() -> None:
    light, dark, _ = split(code_css())
    # default makes keywords bold and errors boxed; github-dark does neither
    assert light[".highlight .k"]["font-weight"] == "bold"
    assert dark[".highlight .k"]["font-weight"] == "inherit"
    assert dark[".highlight .err"]["border"] == "0"


@pytest.mark.parametrize(("color", "background"), [
    ("#3D7B7B", "#f4f5f7"), ("#666", "#ffffff"), ("#6E7681", "#1e2127"), ("#ff0", "#fff"),
])
def test_readable_keeps_good_colours_and_fixes_poor_ones(color: str, background: str) -> None:
    fixed = readable(color, background)
    assert contrast(fixed, background) >= 4.5
    if contrast(color, background) >= 4.5:
        assert fixed == color


def test_the_stylesheet_is_the_same_on_every_build() -> None:
    assert code_css() == code_css()
