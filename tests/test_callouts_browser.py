"""Callouts in real headless Chromium: folding by mouse and keyboard, styling, CSS off."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.browser

POST = "posts/callouts/"


def is_open(details: Any) -> bool:
    return bool(details.evaluate("d => d.open"))


@pytest.fixture
def page(example_site: Path, http_server: Callable[..., str], browser_page: Any) -> Any:
    browser_page.goto(http_server(example_site) + POST)
    browser_page.wait_for_load_state("load")
    yield browser_page
    assert browser_page.console_errors == []
    assert browser_page.external_requests == []


def test_folded_callout_opens_and_closes_on_click(page: Any) -> None:
    folded = page.locator("details.callout-proof").first
    body = folded.locator(":scope > .callout-body")
    assert not is_open(folded) and not body.is_visible()
    folded.locator(":scope > summary.callout-title").click()
    assert is_open(folded) and body.is_visible()
    assert "∎" in body.inner_text()
    folded.locator(":scope > summary.callout-title").click()
    assert not is_open(folded) and not body.is_visible()


def test_folded_callout_opens_on_enter_and_space(page: Any) -> None:
    details = page.locator("details.callout")
    folded, unfolded = details.nth(0), details.nth(1)
    assert not is_open(folded) and is_open(unfolded)  # `-` closed, `+` open
    summary = folded.locator(":scope > summary")
    summary.focus()
    # Real keyboard navigation: Tab from the first title reaches the next one (the closed
    # body holds nothing focusable), and the focus ring shows.
    page.keyboard.press("Tab")
    active = unfolded.locator(":scope > summary")
    assert active.evaluate("s => s === document.activeElement && s.matches(':focus-visible')")
    assert active.evaluate("s => getComputedStyle(s).outlineStyle") == "solid"
    page.keyboard.press("Enter")
    assert not is_open(unfolded)
    page.keyboard.press("Enter")
    assert is_open(unfolded)
    page.keyboard.press("Shift+Tab")
    page.keyboard.press("Enter")
    assert is_open(folded) and folded.locator(":scope > .callout-body").is_visible()
    page.keyboard.press(" ")
    assert not is_open(folded)


def test_nested_folded_callout_reveals_the_third_level(page: Any) -> None:
    outer = page.locator(".callout-question", has_text="Can callouts nest?")
    inner = outer.locator("details.callout-tip")
    deepest = inner.locator(".callout-proof")
    assert not is_open(inner) and not deepest.is_visible()
    inner.locator(":scope > summary").click()
    assert deepest.is_visible()
    assert "you are reading one" in deepest.inner_text()


def test_types_get_their_own_colours_and_the_proof_mark_sits_right(page: Any) -> None:
    colours = page.evaluate(
        """() => Object.fromEntries([...document.querySelectorAll('.post-body > .callout')]
            .map(el => [el.dataset.callout, getComputedStyle(el).borderLeftColor]))"""
    )
    for kind in ("note", "tip", "important", "warning", "caution", "abstract", "info", "todo",
                 "success", "question", "failure", "danger", "bug", "example", "quote",
                 "definition", "proof", "critical"):
        assert kind in colours, kind
    assert len(set(colours.values())) == len(colours)  # 18 distinct colours
    qed = page.locator("div.callout-proof span.callout-qed").first
    body = page.locator("div.callout-proof .callout-body").first
    qed_box, body_box = qed.bounding_box(), body.bounding_box()
    assert qed_box is not None and body_box is not None
    body_right = body_box["x"] + body_box["width"]
    assert body_right - (qed_box["x"] + qed_box["width"]) < 24  # right-aligned in the body


def test_readable_and_foldable_with_css_off(page: Any) -> None:
    page.evaluate("document.querySelectorAll('link[rel=stylesheet], style')"
                  ".forEach(e => e.remove())")
    icon = page.locator(".callout-note .callout-icon svg").first
    box = icon.bounding_box()
    assert box is not None and box["width"] < 30 and box["height"] < 30  # 1em, not 300×150
    assert page.locator(".callout-note .callout-title-text").first.evaluate(
        "el => Number(getComputedStyle(el).fontWeight) >= 600"
    )
    folded = page.locator("details.callout-proof").first
    folded.locator(":scope > summary").click()
    assert is_open(folded)
