"""Terminal text of notebook outputs as HTML (markdown/notebook/ansi.py), its stylesheet."""

from __future__ import annotations

import re
from pathlib import Path
from xml.etree.ElementTree import Element

import html5lib
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from blogbuild.markdown.notebook.ansi import ansi_html, ansi_plain

ROOT = Path(__file__).resolve().parents[1]
ESC = "\x1b"

# A ZeroDivisionError as IPython 8 colours it (Neutral scheme, without the source lines' own
# colouring): red rules and exception names, green file names, bold frame markers.
TRACEBACK = (
    "\x1b[0;31m---------------------------------------------------------------------------"
    "\x1b[0m\n"
    "\x1b[0;31mZeroDivisionError\x1b[0m                         Traceback (most recent call last)\n"
    "Cell \x1b[0;32mIn[1], line 3\x1b[0m\n"
    "\x1b[1;32m      1\x1b[0m \x1b[38;5;28;01mdef\x1b[39;00m \x1b[38;5;21mf\x1b[39m(x):\n"
    "\x1b[0;32m----> 3\x1b[0m \x1b[43mf\x1b[49m(1 < 2 & 3)\n"
    "\x1b[0;31mZeroDivisionError\x1b[0m: division by zero"
)


def fragment(markup: str) -> Element:
    return html5lib.parseFragment(markup, container="div", namespaceHTMLElements=False)


def spans(markup: str) -> list[tuple[str, str, str]]:
    """(class, style, text) of every span, in order."""
    return [(s.get("class") or "", s.get("style") or "", "".join(s.itertext()))
            for s in fragment(markup).iter("span")]


def text_of(markup: str) -> str:
    return "".join(fragment(markup).itertext())


def test_traceback_colours_and_escaping() -> None:
    out = ansi_html(TRACEBACK)
    found = spans(out)
    assert ("ansi-red-fg", "", "ZeroDivisionError") in found
    assert ("ansi-green-fg", "", "In[1], line 3") in found
    assert ("ansi-bold ansi-green-fg", "", "      1") in found
    assert ("ansi-bold ansi-rgb-fg", "--ansi-fg:#008700", "def") in found  # 38;5;28 with 01
    assert ("ansi-rgb-fg", "--ansi-fg:#0000ff", "f") in found  # 38;5;21
    assert ("ansi-yellow-bg", "", "f") in found
    assert "1 &lt; 2 &amp; 3" in out  # escaped once
    assert "&amp;lt;" not in out and ESC not in out
    assert text_of(out) == ansi_plain(TRACEBACK)
    assert ansi_plain(TRACEBACK).splitlines()[-1] == "ZeroDivisionError: division by zero"


def test_spans_never_nest_and_close_at_line_end() -> None:
    out = ansi_html(f"{ESC}[1mbold {ESC}[31mred\nstill{ESC}[22m not bold{ESC}[0m plain")
    root = fragment(out)
    assert all(not list(span) for span in root.iter("span"))  # no span inside a span
    assert spans(out) == [("ansi-bold", "", "bold "), ("ansi-bold ansi-red-fg", "", "red"),
                          ("ansi-bold ansi-red-fg", "", "still"), ("ansi-red-fg", "", " not bold")]
    assert out.endswith("</span> plain")


@pytest.mark.parametrize(("codes", "classes"), [
    ("31", "ansi-red-fg"), ("42", "ansi-green-bg"), ("93", "ansi-bright-yellow-fg"),
    ("104", "ansi-bright-blue-bg"), ("2;3;4", "ansi-faint ansi-italic ansi-underline"),
    ("1;4;24", "ansi-bold"), ("3;23", ""), ("31;39", ""), ("41;49", ""), ("1;2;22", ""),
    ("38;5;1", "ansi-red-fg"), ("48;5;9", "ansi-bright-red-bg"), ("4:3", "ansi-underline"),
    ("7", "ansi-inverse"), ("7;31", "ansi-inverse ansi-red-bg"),
    ("7;44", "ansi-inverse ansi-blue-fg"), ("7;27;31", "ansi-red-fg"), ("31;0", ""),
    ("", ""), ("99999999999999999999", ""), ("38;5", ""), ("38;5;300", ""),
])
def test_sgr(codes: str, classes: str) -> None:
    found = spans(ansi_html(f"{ESC}[{codes}mX"))
    assert found == ([(classes, "", "X")] if classes else [])


@pytest.mark.parametrize(("codes", "style"), [
    ("38;5;196", "--ansi-fg:#ff0000"), ("48;5;16", "--ansi-bg:#000000"),
    ("38;5;244", "--ansi-fg:#808080"), ("38;5;255", "--ansi-fg:#eeeeee"),
    ("38;2;18;52;86", "--ansi-fg:#123456"), ("48;2;1;2;999", "--ansi-bg:#0102ff"),
    ("38:2::18:52:86", "--ansi-fg:#123456"), ("38:5:21", "--ansi-fg:#0000ff"),
    ("7;38;2;1;2;3", "--ansi-bg:#010203"),
])
def test_256_and_truecolour(codes: str, style: str) -> None:
    [(classes, found, text)] = spans(ansi_html(f"{ESC}[{codes}mX"))
    assert (found, text) == (style, "X")
    assert f"ansi-rgb-{style[7:9]}" in classes.split()  # the class that applies it
    assert re.fullmatch(r"(--ansi-[fb]g:#[0-9a-f]{6};?)+", found)


@pytest.mark.parametrize("codes", ['38;2;"><script>', "38;2;1;2", "38;2;-1;2;3", "48;5;x"])
def test_colour_values_are_never_copied(codes: str) -> None:
    out = ansi_html(f"{ESC}[{codes}mX")
    assert "script" not in out.replace("&lt;script&gt;", "") and "style=" not in out


@pytest.mark.parametrize(("text", "shown"), [
    ("abc\rxy", "xyc"),  # overwrite from column 0, not "keep the last part"
    ("abc\r\ndef", "abc\ndef"),
    ("abc\r\r\ndef", "abc\ndef"),
    ("done\r", "done"),
    ("abc\b", "ab"),
    ("abc\b\bX", "aX"),
    ("\bX", "X"),
    ("abcdef\rxy\bZ", "xZcdef"),  # inside a rewritten line the cursor only moves
    ("progress 100%\r\x1b[Kdone", "done"),
    ("abc\x1b[2K\rd", "d"),
    ("abcdef\rxy\x1b[1K", "   def"),
    ("abcdef\r\x1b[2Cx", "xbcdef"),  # cursor moves are dropped, not played
    ("a\x07b\x00c\x0bd\x7fe\x85f\tg", "abcdef\tg"),
    ("\x1b]0;window title\x07visible", "visible"),
    ("\x1b]8;;https://example.com/\x1b\\link\x1b]8;;\x1b\\ after", "link after"),
    ("\x1b[2J\x1b[H\x1b[?25lclear\x1b[?25h\x1b(B\x1b7\x1b8", "clear"),
    ("cut\x1b[3", "cut"),
    ("lone \x1b", "lone "),
    ("\x1b]unterminated title\nnext", "\nnext"),
])
def test_terminal_controls(text: str, shown: str) -> None:
    assert ansi_plain(text) == shown
    assert text_of(ansi_html(text)) == shown


def test_tqdm_progress_shows_the_last_state() -> None:
    steps = [f"\r{p:3d}%|{'█' * (p // 10):<10}| {p}/100 [00:0{p // 25}<00:00, 99.9it/s]"
             for p in range(0, 101, 5)]
    text = f"{ESC}[32m" + "".join(steps) + f"{ESC}[0m\nTraining done\n"
    assert ansi_plain(text) == "100%|██████████| 100/100 [00:04<00:00, 99.9it/s]\nTraining done\n"
    [(classes, _, shown)] = spans(ansi_html(text))
    assert classes == "ansi-green-fg" and shown.startswith("100%|")


def test_rewrite_keeps_the_colours_of_the_cells_it_leaves() -> None:
    out = ansi_html(f"{ESC}[31mabcdef{ESC}[0m\r{ESC}[32mxy")
    assert spans(out) == [("ansi-green-fg", "", "xy"), ("ansi-red-fg", "", "cdef")]


TERMINAL = st.text(alphabet=st.sampled_from(
    ["a", "<", "&", ">", " ", "\n", "\r", "\b", "\t", "\x00", "\x07", "\x1b", "[", "]", ";",
     "3", "8", "5", "2", "0", "1", "m", "K", "\\", ":", "é", "\x9b"]))


@settings(max_examples=300, deadline=None)
@given(st.one_of(TERMINAL, st.text()))
def test_any_text_gives_well_formed_html_with_the_plain_text(text: str) -> None:
    out = ansi_html(text)
    root = fragment(out)
    assert {el.tag for el in root.iter()} <= {"DOCUMENT_FRAGMENT", "span"}
    for span in root.iter("span"):
        assert set(span.keys()) <= {"class", "style"}
        assert re.fullmatch(r"ansi-[a-z-]+( ansi-[a-z-]+)*", span.get("class") or "ansi-x")
    assert "".join(root.itertext()) == ansi_plain(text)
    assert not re.search(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]", out)


# --- ansi.css: every colour readable on the code background of both themes ---

def _properties(css: str, selector: str) -> dict[str, str]:
    block = re.search(re.escape(selector) + r"\s*\{([^}]*)\}", css)
    assert block, selector
    return dict(re.findall(r"(--[\w-]+):\s*(#[0-9a-fA-F]{6})", block.group(1)))


def _luminance(colour: str) -> float:
    channels = [int(colour[i:i + 2], 16) / 255 for i in (1, 3, 5)]
    r, g, b = (c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: str, b: str) -> float:
    high, low = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


THEMES = [(":root", ":root"), (':root[data-theme="dark"]', ':root[data-theme="dark"]'),
          ("  :root:not([data-theme=\"light\"])", "  :root:not([data-theme=\"light\"])")]


@pytest.mark.parametrize(("main_selector", "ansi_selector"), THEMES)
def test_every_colour_has_aa_contrast_on_the_code_background(
        main_selector: str, ansi_selector: str) -> None:
    main = (ROOT / "static/css/main.css").read_text(encoding="utf-8")
    ansi = (ROOT / "static/css/ansi.css").read_text(encoding="utf-8")
    code_bg = _properties(main, main_selector)["--code-bg"]
    palette = _properties(ansi, ansi_selector)
    names = {f"--ansi-{bright}{c}" for bright in ("", "bright-")
             for c in ("black", "red", "green", "yellow", "blue", "magenta", "cyan", "white")}
    assert set(palette) == names
    ratios = {name: round(contrast(colour, code_bg), 2) for name, colour in palette.items()}
    assert min(ratios.values()) >= 4.5, ratios


def test_stylesheet_has_a_rule_for_every_class_the_module_writes() -> None:
    css = (ROOT / "static/css/ansi.css").read_text(encoding="utf-8")
    rules = set(re.findall(r"^\.(ansi-[a-z-]+) \{", css, re.M))
    colours = [f"{b}{c}" for b in ("", "bright-")
               for c in ("black", "red", "green", "yellow", "blue", "magenta", "cyan", "white")]
    expected = {f"ansi-{c}-{side}" for c in colours for side in ("fg", "bg")}
    expected |= {"ansi-bold", "ansi-faint", "ansi-italic", "ansi-underline", "ansi-inverse",
                 "ansi-rgb-fg", "ansi-rgb-bg"}
    assert rules == expected
    # A background is a tint over the code's background: text of the theme stays legible.
    assert all("color-mix" in rule for rule in re.findall(r"^\.ansi-[a-z-]+-bg \{[^}]*\}",
                                                          css, re.M))
