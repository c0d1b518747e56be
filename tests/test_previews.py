"""The 'previews' need (footnote and equation references ask for it), what a page with it
loads, and the sidenotes option reaching the pages (also in an incremental build).
Behaviour in the browser: test_previews_browser.py."""

from __future__ import annotations

import shutil
from pathlib import Path

import html5lib
import pytest

from blogbuild.commands.build import build
from blogbuild.markdown import create_markdown
from blogbuild.pipeline.render import render_markdown
from css_helpers import page_stylesheet, parts

SITE = Path(__file__).parent / "sites" / "previews"


@pytest.mark.parametrize(("body", "wanted"), [
    ("Text[^1].\n\n[^1]: A note.\n", True),
    ("Inline note^[here].\n", True),
    ("$$ a \\label{eq:a} $$\n\nSee \\eqref{eq:a}.\n", True),
    ("$$ a \\label{eq:a} $$\n\nInside math: $\\ref{eq:a}$.\n", True),
    ("See \\eqref{eq:nowhere}.\n", False),  # nothing to preview: a warning, no need
    ("$$ a \\label{eq:a} $$\n\nNo reference; x^2 and [^1] in text.\n", False),
    ("`[^1]` in code.\n\n[^1]: Defined, never used.\n", False),
])
def test_references_ask_for_previews(body: str, wanted: bool) -> None:
    rendered = render_markdown(create_markdown(), body)
    assert ("previews" in rendered.needs) is wanted


def _scripts(page: Path) -> list[dict[str, str]]:
    doc = html5lib.parse(page.read_bytes(), namespaceHTMLElements=False)
    return [dict(script.attrib) for script in doc.iter("script")
            if script.get("src") or script.get("data-widget-script")]


def _url(script: dict[str, str]) -> str:
    """What a script loads: its src, or the widget script js/widgets.js imports."""
    return script.get("src") or script["data-widget-script"]


@pytest.fixture
def site(tmp_path: Path) -> Path:
    dest = tmp_path / "site"
    shutil.copytree(SITE, dest)
    (dest / "content" / "posts" / "plain.md").write_text(
        "---\ntitle: Plain\ndate: 2025-01-01\n---\n\nNothing to preview.\n", encoding="utf-8")
    return dest


def test_a_page_with_references_loads_the_script_and_styles(site: Path) -> None:
    build(site / "site.yaml")
    out = site / "_site"
    scripts = _scripts(out / "posts/refs/index.html")
    [script] = [s for s in scripts if "previews" in _url(s)]
    # A data block js/widgets.js reads: previews.js is imported when the browser is idle.
    assert script == {"type": "text/plain", "data-widget-script": "/js/previews.js",
                      "data-sidenotes": ""}
    assert {"type": "module", "src": "/js/widgets.js"} in scripts
    assert "css/previews.css" in parts(page_stylesheet(out, "posts/refs/index.html"))
    assert (out / "js" / "previews.js").is_file()
    assert not [s for s in _scripts(out / "posts/plain/index.html") if "previews" in _url(s)]
    assert "css/previews.css" not in parts(page_stylesheet(out, "posts/plain/index.html"))


def test_turning_sidenotes_off_rewrites_the_pages(site: Path) -> None:
    build(site / "site.yaml")
    config = site / "site.yaml"
    config.write_text(config.read_text().replace("sidenotes: true", "sidenotes: false"))
    report = build(config)
    assert report.rendered == 0  # not a render option: the template reads it
    assert "posts/refs/index.html" in report.templated
    [script] = [s for s in _scripts(site / "_site/posts/refs/index.html")
                if "previews" in _url(s)]
    assert "data-sidenotes" not in script
