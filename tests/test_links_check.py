"""Local link targets: missing images, files, posts and #anchors are warnings with file:line."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from blogbuild.commands.build import build
from blogbuild.diagnostics import BuildFailed
from image_helpers import tiny_png

BASIC = Path(__file__).parent / "sites" / "basic"


@pytest.fixture
def site(tmp_path: Path) -> Path:
    dest = tmp_path / "site"
    shutil.copytree(BASIC, dest, ignore=shutil.ignore_patterns("expected"))
    posts = dest / "content/posts"
    (posts / "target.md").write_text(
        "---\ntitle: Target\ndate: 2024-05-01\n---\n\n## Known section\n\n"
        "Text[^n] with $x$ and <span id='raw-id'>raw</span>.\n\n[^n]: A note.\n")
    return dest


def messages(site: Path, body: str) -> list[str]:
    (site / "content/posts/source.md").write_text(
        "---\ntitle: Source\ndate: 2024-05-02\n---\n\n## Here\n\n" + body + "\n")
    report = build(site / "site.yaml")
    return [d.format() for d in report.diagnostics if d.file == "content/posts/source.md"]


@pytest.mark.parametrize("link", [
    "[a](#here)", "[a](#top)", "[a](target.md)", "[a](target.md#known-section)",
    "[a](target.md#raw-id)", "[a](target.md#fn1)", "[a](/posts/target/#known-section)",
    "[a](/posts/target/)", "[a](https://example.com/#anything)",
    "[a](../posts/target.md#known-section)",
])
def test_existing_targets_are_quiet(site: Path, link: str) -> None:
    assert messages(site, link) == []


@pytest.mark.parametrize(("link", "expected"), [
    ("[a](#nowhere)", "link to a missing anchor: #nowhere is not an id in this page"),
    ("[a](target.md#gone)",
     "link to a missing anchor: #gone is not an id in content/posts/target.md"),
    ("[a](/posts/target/#gone)",
     "link to a missing anchor: #gone is not an id in content/posts/target.md"),
    ("[a](missing-post.md)", "link target not found: content/posts/missing-post.md"),
    ("[a](files/report.pdf)", "link target not found: content/posts/files/report.pdf"),
    ("![a](figure.png)", "image target not found: content/posts/figure.png"),
    ("![a](/images/none.png)", "missing image: /images/none.png"),
    ("[a](/no/such/page/)", "broken link: nothing is built at /no/such/page/"),
])
def test_missing_targets_are_warnings_with_line(site: Path, link: str, expected: str) -> None:
    found = messages(site, "Some text.\n\n" + link)
    assert len(found) == 1, found
    assert found[0].startswith("content/posts/source.md:10: warning: " + expected), found
    assert (site / "_site/posts/source/index.html").is_file()  # built all the same


def test_missing_targets_fail_under_strict(site: Path) -> None:
    (site / "content/posts/2024-06-01-source.md").write_text("![a](gone.png)\n\n[b](#nope)\n")
    with pytest.raises(BuildFailed) as caught:
        build(site / "site.yaml", strict=True)
    assert caught.value.strict
    assert [d.line for d in caught.value.diagnostics if d.file.endswith("source.md")] == [1, 3]


@pytest.mark.parametrize(("link", "expected"), [
    ("![a](../../../../../etc/passwd)", "image target not found: '../../../../../etc/passwd' "
     "leads above the site's folder, and only files under content/ and static/ are "
     "published; fix the path (it is relative to this file)"),
    ("[a](../../../../etc/passwd)", "link target not found: '../../../../etc/passwd' leads "
     "above the site's folder"),
    ("![a](../../site.yaml)", "image target not found: '../../site.yaml' leads out of "
     "content/, and only files"),
    ("![a](../../static/logo.png)", "image target not found: '../../static/logo.png' leads "
     "out of content/, to static/logo.png: the files of static/ are published at the "
     "site's root, so write /logo.png"),
    ("![a](C:/Users/me/a.png)", "image target not found: 'C:/Users/me/a.png' is a path on "
     "your computer, not in the site; copy the file into content/"),
    ("[a](C:\\Users\\me\\a.pdf)", "link target not found: 'C:\\\\Users\\\\me\\\\a.pdf' is a path"),
    ("![a](/../../etc/passwd)", "missing image: /../../etc/passwd is not in content/ or "
     "static/"),
    ("![a](../posts)", "image target not found: content/posts/ is a folder, not a file; name "
     "a file in it"),
    ("![a](../)", "image target not found: content/ is a folder, not a file"),
    ("![a](we%01ird%20%3C%3E.png)",
     "image target not found: content/posts/we\\x01ird <>.png does not exist"),
])
def test_targets_that_no_file_of_the_site_can_be_are_warnings_with_line(
        site: Path, link: str, expected: str) -> None:
    (site / "static").mkdir(exist_ok=True)
    (site / "static/logo.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    found = messages(site, "Some text,\nand on its second line " + link)
    assert len(found) == 1, found
    assert found[0].startswith("content/posts/source.md:9: warning: " + expected), found
    assert (site / "_site/posts/source/index.html").is_file()  # built all the same


def test_nothing_outside_the_site_is_read_or_published(site: Path) -> None:
    secret = site.parent / "secret.png"
    secret.write_bytes(tiny_png())
    found = messages(site, "![s](../../../secret.png) [t](../../../secret.png)")
    assert len(found) == 2 and all("leads above the site's folder" in f for f in found)
    outputs = [p for p in (site / "_site").rglob("*") if p.is_file()]
    assert not [p for p in outputs if p.name == "secret.png" or p.read_bytes() == tiny_png()]
    page = (site / "_site/posts/source/index.html").read_text()
    assert 'src="../../../secret.png"' in page  # left as written: it leads nowhere on the host
