"""giscus comments: site.yaml's `comments:` block, a post's `comments:`, the section they make."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import html5lib
import pytest

from blogbuild.commands.build import build
from blogbuild.config import load_config
from blogbuild.diagnostics import ConfigError

BLOCK = """comments:
  repo: ada/blog-comments
  repo_id: R_kgDOAbc123
  category: Announcements
  category_id: DIC_kwDOAbc123
"""


def make_site(root: Path, yaml: str, posts: dict[str, str]) -> Path:
    (root / "content/posts").mkdir(parents=True)
    (root / "site.yaml").write_text(f"title: T\nbase_url: https://e.org/\n{yaml}",
                                    encoding="utf-8")
    for name, front in posts.items():
        (root / "content/posts" / name).write_text(f"---\ntitle: {name}\n{front}---\n\nHi.\n",
                                                   encoding="utf-8")
    return root


def run_build(site: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parent.parent / "src")}
    return subprocess.run([sys.executable, "-m", "blogbuild", "build"], cwd=site, env=env,
                          capture_output=True, text=True, timeout=120, check=False)


def section(out: Path, slug: str) -> html5lib.treebuilders.base.Node | None:
    page = (out / "posts" / slug / "index.html").read_text(encoding="utf-8")
    doc = html5lib.parse(page, namespaceHTMLElements=False)
    return doc.find(".//section[@id='post-comments']")


def test_defaults_and_the_site_default_for_posts(tmp_path: Path) -> None:
    config = load_config(make_site(tmp_path, BLOCK, {}) / "site.yaml")
    assert config.comments is not None
    assert (config.comments.mapping, config.comments.reactions, config.comments.theme,
            config.comments.enabled_by_default) == ("pathname", True, None, True)
    assert load_config(make_site(tmp_path / "b", "", {}) / "site.yaml").comments is None


def test_posts_follow_the_default_and_their_own_key(tmp_path: Path) -> None:
    site = make_site(tmp_path, BLOCK, {"2024-01-01-on.md": "", "2024-01-02-off.md":
                                       "comments: false\n"})
    build(site / "site.yaml", output=tmp_path / "out")
    frame = section(tmp_path / "out", "on")
    assert frame is not None
    assert section(tmp_path / "out", "off") is None
    off = (tmp_path / "out/posts/off/index.html").read_text(encoding="utf-8")
    assert "comments.js" not in off and "comments.css" not in off
    box = frame.find(".//div[@data-comments]")
    assert box is not None and box.get("data-giscus-repo") == "ada/blog-comments"
    assert box.get("data-giscus-lang") == "en" and box.get("data-theme-dark") == "dark"
    (link,) = frame.iter("a")
    assert link.get("href") == "https://github.com/ada/blog-comments/discussions"


def test_opt_in_when_the_default_is_off(tmp_path: Path) -> None:
    site = make_site(tmp_path, BLOCK + "  enabled_by_default: false\n  mapping: specific\n",
                     {"2024-01-01-on.md": "comments: true\n", "2024-01-02-off.md": ""})
    build(site / "site.yaml", output=tmp_path / "out")
    assert section(tmp_path / "out", "off") is None
    frame = section(tmp_path / "out", "on")
    assert frame is not None
    box = frame.find(".//div[@data-comments]")
    assert box is not None and box.get("data-giscus-term") == "on"  # the post's slug


def test_asking_for_comments_without_a_block_says_what_to_add(tmp_path: Path) -> None:
    site = make_site(tmp_path, "", {"2024-01-01-on.md": "date: 2024-01-01\ncomments: true\n",
                                    "2024-01-02-off.md": "date: 2024-01-02\ncomments: false\n",
                                    "2024-01-03-quiet.md": "date: 2024-01-03\n"})
    report = build(site / "site.yaml", output=tmp_path / "out")
    [warning] = report.diagnostics
    assert (warning.file, warning.line, warning.severity) == (
        "content/posts/2024-01-01-on.md", 4, "warning")
    assert "site.yaml has no 'comments:' block" in warning.message
    assert section(tmp_path / "out", "on") is None
    # The block the message shows, pasted into site.yaml as it is, is a working one.
    block = warning.message.split("there, ")[1].split(" (giscus.app")[0]
    (site / "site.yaml").write_text((site / "site.yaml").read_text() + block + "\n")
    report = build(site / "site.yaml", output=tmp_path / "out")
    assert report.diagnostics == []
    assert section(tmp_path / "out", "on") is not None
    assert section(tmp_path / "out", "off") is None


def test_a_post_asking_without_the_ids_fails_at_its_line(tmp_path: Path) -> None:
    site = make_site(tmp_path, "comments:\n  repo: ada/c\n  enabled_by_default: false\n",
                     {"2024-01-01-x.md": "date: 2024-01-01\ncomments: true\n"})
    proc = run_build(site)
    assert proc.returncode == 1, proc.stderr
    assert ("content/posts/2024-01-01-x.md:4: error: comments: true needs comments.repo_id "
            "in site.yaml") in proc.stderr
    assert "Traceback" not in proc.stderr


def test_the_default_asking_without_the_ids_fails_at_site_yaml(tmp_path: Path) -> None:
    site = make_site(tmp_path, "nav: []\ncomments:\n  repo: ada/c\n  repo_id: R_1\n", {})
    proc = run_build(site)
    assert proc.returncode != 0
    assert "error: site.yaml:4: 'comments.category' is missing" in proc.stderr, proc.stderr
    assert "Traceback" not in proc.stderr


@pytest.mark.parametrize(("line", "key"), [
    ("mapping: issue", "comments.mapping"),
    ("mapping: number", "comments.mapping"),
    ("input_position: middle", "comments.input_position"),
    ("theme: 'x\" onload=\"alert(1)'", "comments.theme"),
    ("theme_dark: javascript:alert(1)", "comments.theme_dark"),
    ("lang: '<b>'", "comments.lang"),
    ("repo: 'ada/c\"><script>alert(1)</script>'", "comments.repo"),
    ("repo: ada", "comments.repo"),
    ("repo: ../../x/y", "comments.repo"),
    ("repo_id: 'R_1\" onclick=\"x'", "comments.repo_id"),
    ("category_id: ' '", "comments.category_id"),
])
def test_bad_values_are_refused_naming_the_key(tmp_path: Path, line: str, key: str) -> None:
    name = line.split(":")[0]
    kept = [k for k in BLOCK.splitlines() if not k.startswith(f"  {name}:")]
    path = make_site(tmp_path, "\n".join([*kept, f"  {line}", ""]), {}) / "site.yaml"
    with pytest.raises(ConfigError) as info:
        load_config(path)
    assert info.value.message.startswith(f"'{key}'"), info.value.message
    assert info.value.line > 0


def test_hostile_category_text_stays_inside_its_attribute(tmp_path: Path) -> None:
    hostile = "A \\\"><script>alert(1)</script> & 'b'"
    site = make_site(tmp_path, BLOCK.replace("Announcements", f'"{hostile}"'),
                     {"2024-01-01-on.md": ""})
    build(site / "site.yaml", output=tmp_path / "out")
    page = (tmp_path / "out/posts/on/index.html").read_text(encoding="utf-8")
    doc = html5lib.parse(page, namespaceHTMLElements=False)
    box = doc.find(".//div[@data-comments]")
    assert box is not None
    assert box.get("data-giscus-category") == "A \"><script>alert(1)</script> & 'b'"
    assert "<script>alert(1)" not in page
    assert not [s for s in doc.iter("script") if "alert" in (s.text or "")]
