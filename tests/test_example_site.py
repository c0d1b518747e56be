"""The example blog in content/ builds cleanly under --strict and every page is valid HTML5."""

from __future__ import annotations

from pathlib import Path

import html5lib
import pytest

ROOT = Path(__file__).resolve().parent.parent

pytestmark = pytest.mark.xdist_group("example")  # with the other users of `example_clean`


def test_every_page_is_valid_html5(example_clean: Path) -> None:
    pages = sorted(example_clean.rglob("*.html"))
    assert len(pages) > 10
    for page in pages:
        try:
            html5lib.HTMLParser(strict=True).parse(page.read_bytes())
        except Exception as exc:  # html5lib raises ParseError with the position
            pytest.fail(f"{page.relative_to(example_clean)}: {exc}")


def test_every_post_is_listed_and_linked(example_clean: Path) -> None:
    posts = sorted(p.parent.name for p in (example_clean / "posts").glob("*/index.html"))
    archive = (example_clean / "archive/index.html").read_text()
    for slug in posts:
        assert f'href="/blogbuild/posts/{slug}/"' in archive


def test_no_draft_in_the_build(example_clean: Path) -> None:
    assert not (example_clean / "posts/draft-ideas").exists()


def test_feed_carries_mathml_without_katex_layout_spans(example_clean: Path) -> None:
    """A feed entry has no KaTeX stylesheet: it keeps the MathML and drops the HTML layer."""
    import xml.etree.ElementTree as ET

    ns = {"a": "http://www.w3.org/2005/Atom"}
    feed = ET.parse(example_clean / "feed.xml").getroot()
    contents = {e.findtext("a:id", namespaces=ns): e.findtext("a:content", namespaces=ns) or ""
                for e in feed.findall("a:entry", ns)}
    math = next(html for url, html in contents.items() if url and url.endswith("/posts/math/"))
    assert math.count("<math") >= 10
    assert "katex-html" not in math
    page = (example_clean / "posts/math/index.html").read_text()
    assert page.count('class="katex-html"') >= 10  # the page itself keeps both layers




def test_check_finds_nothing_broken_in_the_example_blog() -> None:
    """Every link, anchor, image and asset of every built page resolves (`blogbuild check`)."""
    from blogbuild.check.run import Options, check

    outcome = check(ROOT / "site.yaml", options=Options(portability=False, use_cache=False))
    assert [f.format() for f in outcome.findings] == []
