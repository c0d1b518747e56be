"""`blogbuild check`: every kind of broken local link, at the right file:line, and the
user's output folder left exactly as it was."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from blogbuild.check.report import SCHEMA_VERSION
from blogbuild.check.run import Options, check
from blogbuild.commands.build import build
from image_helpers import tiny_png

SRC = Path(__file__).resolve().parent.parent / "src"
SOURCE = "content/posts/2024-01-02-source.md"

POST = """\
---
title: Source
---

## Here

[missing post](no-such-post.md)

[same page](#nowhere)

[other post](2024-01-01-target.md#gone)

![missing image](missing.png)

<a href="/blog/files/report.pdf">raw report</a>

<img src="/blog/img/raw.png" alt="raw">

[ok](2024-01-01-target.md#known) [ok2](#here) <a href="/blog/posts/target/#known">ok</a>

<a href="/blog/posts/target/#raw-gone">raw anchor</a>

<a href="/outside/">outside the base path</a>

![fine](/img/there.png) <img srcset="/blog/img/there.png 1x, /blog/img/gone@2x.png 2x">
"""


def make_site(root: Path, post: str = POST) -> Path:
    (root / "content/posts").mkdir(parents=True)
    (root / "templates/partials").mkdir(parents=True)
    (root / "static/img").mkdir(parents=True)
    (root / "static/img/there.png").write_bytes(tiny_png())
    (root / "site.yaml").write_text('title: Check\nbase_url: "https://example.org/blog/"\n')
    (root / "templates/partials/footer.html").write_text(
        "<footer><a href=\"{{ '/colophon/' | url }}\">Colophon</a>\n"
        "<a href=\"{{ '/' | url }}\">Home</a></footer>\n")
    (root / "content/posts/2024-01-01-target.md").write_text(
        "---\ntitle: Target\n---\n\n## Known\n\nText.\n")
    (root / SOURCE).write_text(post)
    return root


@pytest.fixture
def site(tmp_path: Path) -> Path:
    return make_site(tmp_path / "site")


def places(site: Path, **options: object) -> set[tuple[str, int, str, str]]:
    outcome = check(site / "site.yaml", options=Options(portability=False, **options))  # type: ignore[arg-type]
    return {(f.file, f.line, f.severity, f.kind) for f in outcome.findings}


def test_each_broken_link_at_its_line(site: Path) -> None:
    assert places(site) == {
        (SOURCE, 7, "error", "link"),  # a post that does not exist
        (SOURCE, 9, "error", "anchor"),  # #id missing on the same page
        (SOURCE, 11, "error", "anchor"),  # #id missing in another post
        (SOURCE, 13, "error", "image"),  # Markdown image
        (SOURCE, 15, "error", "asset"),  # raw HTML link to a file that is not built
        (SOURCE, 17, "error", "image"),  # raw HTML image
        (SOURCE, 21, "error", "anchor"),  # raw HTML link to a missing id
        (SOURCE, 23, "error", "link"),  # outside the base path
        (SOURCE, 25, "error", "image"),  # a srcset candidate
        ("_site/index.html", 1 + _footer_line(site), "error", "link"),  # the template's link
    }


def _footer_line(site: Path) -> int:
    """The line of the footer's first link in the built home page, less one."""
    build(site / "site.yaml", output=site / "_probe")
    lines = (site / "_probe/index.html").read_text().splitlines()
    return next(n for n, line in enumerate(lines) if "/blog/colophon/" in line)


def test_template_link_is_reported_once_for_every_page(site: Path) -> None:
    outcome = check(site / "site.yaml", options=Options(portability=False))
    shared = [f for f in outcome.findings if f.file.startswith("_site/")]
    assert len(shared) == 1
    assert shared[0].target == "/blog/colophon/"
    assert "more built page(s)" in shared[0].message


def test_a_clean_site_has_no_findings(tmp_path: Path) -> None:
    site = make_site(tmp_path / "site", "---\ntitle: Fine\n---\n\n[t](2024-01-01-target.md)\n")
    (site / "templates/partials/footer.html").unlink()
    assert places(site) == set()


def test_ignore_patterns_from_the_config_and_the_option(site: Path) -> None:
    (site / "site.yaml").write_text(
        'title: Check\nbase_url: "https://example.org/blog/"\n'
        "check:\n  ignore:\n    - https://example.org/blog/colophon/*\n")
    found = places(site, ignore=("*/files/report.pdf", "no-such-*"))
    assert not any(f[0].startswith("_site/") for f in found)
    assert (SOURCE, 15, "error", "asset") not in found  # raw HTML, found by the crawl
    assert (SOURCE, 7, "error", "link") not in found  # Markdown, found by the build
    assert (SOURCE, 9, "error", "anchor") in found


def _snapshot(folder: Path) -> dict[str, tuple[bytes, int]]:
    return {p.relative_to(folder).as_posix(): (p.read_bytes(), p.stat().st_mtime_ns)
            for p in sorted(folder.rglob("*")) if p.is_file()}


def run_cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    return subprocess.run([sys.executable, "-m", "blogbuild", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=180)


def test_cli_text_json_exit_codes_and_the_output_folder_untouched(site: Path) -> None:
    build(site / "site.yaml")
    before = _snapshot(site / "_site")
    state = _snapshot(site / ".blogbuild-cache" / "state")

    text = run_cli("check", "--no-portability", cwd=site)
    assert text.returncode == 1, text.stderr
    assert f"{SOURCE}:9: error: link to a missing anchor: #nowhere" in text.stdout
    assert text.stdout.rstrip().splitlines()[-1].startswith("checked 6 pages: 10 error(s)")

    proc = run_cli("check", "--format", "json", cwd=site)
    report = json.loads(proc.stdout)
    assert proc.returncode == 1
    assert report["version"] == SCHEMA_VERSION
    assert set(report["summary"]) == {"error", "warning", "info", "pages"}
    for finding in report["findings"]:
        assert set(finding) == {"file", "line", "column", "severity", "kind", "message",
                                "target"}
        assert finding["severity"] in ("error", "warning", "info")
        assert finding["kind"] in ("link", "anchor", "image", "asset", "external",
                                   "portability", "build")
        assert isinstance(finding["line"], int) and isinstance(finding["column"], int)
    missing = [f for f in report["findings"] if f["file"] == SOURCE and f["line"] == 7]
    assert missing == [{"file": SOURCE, "line": 7, "column": 0, "severity": "error",
                        "kind": "link", "message": missing[0]["message"],
                        "target": "no-such-post.md"}]
    assert missing[0]["message"].startswith("link target not found: content/posts/no-such")

    assert _snapshot(site / "_site") == before  # bytes and modification times
    assert _snapshot(site / ".blogbuild-cache" / "state") == state
    assert not build(site / "site.yaml").changed  # the next build still has nothing to do
    assert run_cli("check", "--no-such-option", cwd=site).returncode == 2


def test_warnings_fail_only_under_strict(tmp_path: Path) -> None:
    site = make_site(tmp_path / "site", "---\ntitle: W\n---\n\nIt cost $5, then $10.\n")
    (site / "templates/partials/footer.html").unlink()
    assert run_cli("check", cwd=site).returncode == 0
    strict = run_cli("check", "--strict", cwd=site)
    assert strict.returncode == 1
    assert f"{SOURCE}:5: warning: GitHub and Obsidian may read" in strict.stdout
    assert run_cli("check", "--no-portability", "--strict", cwd=site).returncode == 0
    assert not (site / "_site").exists()  # check never makes the output folder


def test_a_failing_build_is_reported_as_findings(tmp_path: Path) -> None:
    site = make_site(tmp_path / "site", "---\ntitle: [unclosed\n---\n\nText.\n")
    proc = run_cli("check", cwd=site)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert f"{SOURCE}:3: error: invalid YAML" in proc.stdout
    assert "the build failed, so no page was checked" in proc.stdout


def test_a_broken_template_is_a_finding(tmp_path: Path) -> None:
    site = make_site(tmp_path / "site", "---\ntitle: T\n---\n\nText.\n")
    (site / "templates/partials/footer.html").write_text("<footer>{{ nope( }}</footer>\n")
    outcome = check(site / "site.yaml", options=Options(portability=False))
    assert outcome.pages is None
    assert [(f.file, f.severity, f.kind) for f in outcome.findings] == [
        ("templates/partials/footer.html", "error", "build")]


def test_a_wiki_link_that_finds_nothing_is_a_broken_link(tmp_path: Path) -> None:
    site = make_site(tmp_path / "site", "---\ntitle: W\n---\n\nSee [[No such note]].\n")
    found = places(site)
    assert (SOURCE, 5, "error", "link") in found


def test_a_url_whose_host_or_port_cannot_be_read_is_a_finding(tmp_path: Path) -> None:
    """urllib raises ValueError for these (an IPv6 host without ']', a port of letters);
    check reports each at its line instead of stopping."""
    site = make_site(tmp_path / "site", (
        '---\ntitle: U\n---\n\n<a href="http://[::1/x">raw</a>\n\n'
        '<a href="https://[zz::1]/">raw</a>\n\n<img src="http://example.org:abc/a.png" alt="p">\n'))
    (site / "templates/partials/footer.html").unlink()
    outcome = check(site / "site.yaml", options=Options(portability=False))
    found = {(f.file, f.line, f.severity): f.message for f in outcome.findings}
    assert set(found) == {(SOURCE, 5, "error"), (SOURCE, 7, "error"), (SOURCE, 9, "error")}
    assert "has no closing ']'" in found[SOURCE, 5, "error"]
    assert "'[zz::1]' is not an IPv6 address" in found[SOURCE, 7, "error"]
    assert "the port 'abc'" in found[SOURCE, 9, "error"]


def test_a_target_that_leaves_the_site_is_found_once_at_its_line(tmp_path: Path) -> None:
    site = make_site(tmp_path / "site", "---\ntitle: Out\n---\n\nText, and\n"
                     "![p](../../../../../etc/passwd) [q](../../../secret.md)\n")
    outcome = check(site / "site.yaml", options=Options(portability=False))
    found = [(f.line, f.kind, f.message.split(":")[0]) for f in outcome.findings
             if f.file == SOURCE]
    assert sorted(found) == [(6, "image", "image target not found"),
                             (6, "link", "link target not found")]
