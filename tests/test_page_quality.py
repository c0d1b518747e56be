"""The example blog as Lighthouse and the W3C Nu checker see it.

Lighthouse runs with its defaults (a phone on a throttled connection, simulated) against
the blog served the way GitHub Pages serves a project site: under a sub-path, gzip, a
ten-minute max-age. The Nu checker reads every HTML page of the built blog.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterator
from pathlib import Path

import pytest

from conftest import ROOT, build_site, showcase_site
from quality_tools import (
    calibrated_slowdown,
    failing_audits,
    lighthouse,
    nu_errors,
    pages_server,
    scores,
)

pytestmark = [pytest.mark.browser, pytest.mark.server, pytest.mark.xdist_group("lighthouse")]

#: The home page, the post that shows the everyday Markdown, and the math post (and, in
#: its own test, the showcase page with every widget).
PAGES = ["", "posts/writing-a-technical-post/", "posts/math/"]
SUB = "blogbuild/"
PERFORMANCE = 0.95


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    root = tmp_path_factory.mktemp("pages")
    with pages_server(root) as url:
        build_site(ROOT, root / SUB.rstrip("/"), base_url=url + SUB)
        yield url + SUB


def test_every_page_of_the_example_blog_passes_the_nu_checker(example_site: Path,
                                                               example_site_subpath: Path,
                                                               ) -> None:
    for site in (example_site, example_site_subpath):
        assert len(list(site.rglob("*.html"))) > 10
        errors = nu_errors(site)
        assert errors == [], "\n".join(
            f"{e.get('url', '')}:{e.get('lastLine', '')}: {e['message']}" for e in errors[:20])


@pytest.fixture(scope="module")
def served_showcase(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The showcase page with every widget (tests/sites/showcase), served the same way."""
    root = tmp_path_factory.mktemp("showcase-pages")
    with pages_server(root) as url:
        build_site(showcase_site(tmp_path_factory.mktemp("showcase-site")),
                   root / SUB.rstrip("/"), base_url=url + SUB)
        yield url + SUB


@pytest.mark.parametrize("path", PAGES)
def test_lighthouse_scores(served: str, path: str, tmp_path: Path) -> None:
    check_scores(served, path, tmp_path)


def test_lighthouse_scores_of_the_showcase(served_showcase: str, tmp_path: Path) -> None:
    check_scores(served_showcase, "posts/showcase/", tmp_path)


def check_scores(served: str, path: str, tmp_path: Path) -> None:
    report = lighthouse(served + path, tmp_path / "report.json")
    got = scores(report)
    if got["performance"] < PERFORMANCE:
        # Timings move with the machine's load (the other test process builds sites beside
        # this one): judge performance on the median of three, the next two with the CPU
        # slowdown calibrated to the machine as the run before measured it (the default 4 x
        # on a quiet machine here, whose benchmark index is 2,000 to 2,800).
        more = [report]
        for n in (1, 2):
            more.append(lighthouse(served + path, tmp_path / f"again{n}.json",
                                   calibrated_slowdown(more[-1])))
        got["performance"] = statistics.median(scores(r)["performance"] for r in more)
    wanted = {"performance": PERFORMANCE, "accessibility": 1.0, "best-practices": 1.0,
              "seo": 1.0}
    low = {name: got[name] for name, least in wanted.items() if got[name] < least}
    assert not low, f"{path or 'home'}: {low}\n" + "\n".join(failing_audits(report))
