"""`blogbuild import quarto`: a Quarto blog made in the test becomes a site that builds."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from xml.etree.ElementTree import Element

import html5lib
import pytest
from PIL import Image

from blogbuild import yamlcore
from blogbuild.cli import main
from blogbuild.commands.build import build
from blogbuild.diagnostics import BlogbuildError
from blogbuild.importers.quarto import import_quarto


def write(folder: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if name.endswith(".jpg"):
            Image.new("RGB", (40, 30), (200, 90, 30)).save(path)
        else:
            path.write_text(text, encoding="utf-8")
    return folder


#: The blog `quarto create project blog` makes (as quarto-web's screenshot example has it).
TEMPLATE = {
    "_quarto.yml": """project:
  type: website
format:
  html:
    theme:
      light: cosmo
      dark: darkly
    css: styles.css
website:
  title: "myblog"
  navbar:
    background: primary
    right:
      - about.qmd
      - icon: github
        href: https://github.com
      - icon: bluesky
        href: https://bsky.app
""",
    "styles.css": "/* css styles */\n",
    "about.qmd": '---\ntitle: "About"\n---\n\nAbout this blog.\n',
    "index.qmd": """---
title: "myblog"
listing:
  contents: posts
  feed: true
  sort: "date desc"
  type: default
  categories: true
  sort-ui: false
  filter-ui: false
page-layout: full
---
""",
    "posts/_metadata.yml": "# options for all posts\nfreeze: true\ntitle-block-banner: true\n",
    "posts/first-post/index.qmd": """---
title: "Post With Code"
author: "Finley Malloc"
date: "2024-09-10"
categories: [news, code, analysis]
image: "image.jpg"
---

This is a post with executable code.

```{r}
1 + 1
```
""",
    "posts/first-post/image.jpg": "",
    "posts/welcome/index.qmd": """---
title: "Welcome To My Blog"
author: "Finley Malloc"
date: "2024-09-12"
categories: [news]
---

This is the first post in a Quarto blog. Welcome!

![](thumbnail.jpg)
""",
    "posts/welcome/thumbnail.jpg": "",
}


def snapshot(folder: Path) -> dict[str, tuple[bytes, int]]:
    return {p.relative_to(folder).as_posix(): (p.read_bytes(), p.stat().st_mtime_ns)
            for p in sorted(folder.rglob("*")) if p.is_file()}


def files_of(folder: Path) -> set[str]:
    return {p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()}


def settings(site: Path) -> dict[str, object]:
    data = yamlcore.safe_load((site / "site.yaml").read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def page(site: Path, url: str) -> Element:
    root: Element = html5lib.parse((site / "_site" / url.strip("/") / "index.html")
                                   .read_text(encoding="utf-8"), namespaceHTMLElements=False)
    return root


def built(site: Path) -> None:
    report = build(site / "site.yaml", jobs=1)
    assert not [d for d in report.diagnostics if d.is_error]


def test_the_command_makes_a_site_of_the_blog_template(tmp_path: Path) -> None:
    src = write(tmp_path / "myblog", TEMPLATE)
    before = snapshot(src)
    site = tmp_path / "site"
    site.mkdir()
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parents[1] / "src")}
    result = subprocess.run([sys.executable, "-m", "blogbuild", "import", "quarto", str(src)],
                            cwd=site, env=env, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert snapshot(src) == before, "the source was changed"
    assert files_of(site) == {
        "site.yaml", "content/about.qmd", "content/posts/_metadata.yml",
        "content/posts/first-post/index.qmd", "content/posts/first-post/image.jpg",
        "content/posts/welcome/index.qmd", "content/posts/welcome/thumbnail.jpg"}
    assert (site / "content/posts/welcome/index.qmd").read_bytes() == \
        (src / "posts/welcome/index.qmd").read_bytes()
    assert settings(site) == {"title": "myblog", "nav": [
        {"title": "About", "url": "/about/"}, {"title": "Github", "url": "https://github.com"},
        {"title": "Bluesky", "url": "https://bsky.app"}]}
    out = result.stdout
    assert "imported 2 posts, 1 page and 3 other files" in out
    for left in ("_quarto.yml:5: format html theme", "_quarto.yml:8: format html css",
                 "_quarto.yml:12: navbar background",
                 "index.qmd:3: listing customisation sort-ui",
                 "posts/first-post/index.qmd:11: 1 r cell with no results in _freeze/"):
        assert left in out, left
    built(site)
    nav = {a.get("href") for a in page(site, "/").iter("a")}
    assert {"/about/", "/posts/welcome/", "/posts/first-post/"} <= nav
    assert page(site, "/posts/welcome/").find(".//title") is not None


QUARTO_YML = """project:
  type: website
  output-dir: docs
lang: fr
filters:
  - lightbox
execute:
  freeze: auto
release: "1.2"
website:
  title: "Notes"
  site-url: https://ada.example.org/notes
  description: "Notes on   things."
  repo-url: https://github.com/ada/notes
  favicon: icon.png
  navbar:
    left:
      - href: blog.qmd
        text: Blog
      - text: Talks
        href: talks/index.qmd
      - text: More
        menu: [about.qmd]
    right:
      - icon: rss
        href: blog.xml
format:
  html:
    toc: true
"""


def blog(tmp_path: Path) -> Path:
    """A project whose listing (blog.qmd) lists blog/posts/, with a freeze folder."""
    return write(tmp_path / "notes", {
        "_quarto.yml": QUARTO_YML,
        "_variables.yml": "version: 1.2\n",
        "_extensions/x/_extension.yml": "title: x\n",
        "docs/index.html": "<p>Quarto's output</p>\n",
        "README.md": "# the repository\n",
        "index.qmd": "---\ntitle: Home\n---\n\nHello.\n",
        "blog.qmd": "---\ntitle: Blog\nlisting:\n  contents: blog/posts\n  page-size: 5\n"
                    "  feed:\n    items: 7\n    type: partial\n  sort: title\n---\n",
        "talks/index.qmd": "---\ntitle: Talks\n---\n\nSoon.\n",
        "talks/2019.md": "---\ntitle: In 2019\n---\n\n::: {.callout-note}\nA note.\n:::\n",
        "blog/posts/_metadata.yml": "categories: [notes]\n",
        "blog/posts/2021-03-04-first/index.qmd": "---\ntitle: First\ndate: 2021-03-04\n---\n\n"
                                                 "```{r}\nplot(1)\n```\n\n"
                                                 "```{julia}\n1\n```\n",
        "blog/posts/2021-03-04-first/refs.bib": "@book{k, title={T}}\n",
        "blog/posts/plain/index.qmd": "---\ntitle: Plain\ndate: 2022-01-02\n---\n\n"
                                      "```{r}\n1\n```\n\n```{ojs}\n1\n```\n",
        "_freeze/blog/posts/plain/index/execute-results/html.json": "{}\n",
        "old.Rmd": "---\ntitle: Old\n---\n",
        "blog/_footer.Rmd": "Thanks for reading.\n",
    })


def test_site_yaml_posts_freeze_and_metadata(tmp_path: Path) -> None:
    src = blog(tmp_path)
    site = tmp_path / "site"
    report = import_quarto(src, config_path=site / "site.yaml")
    assert settings(site) == {
        "title": "Notes", "base_url": "https://ada.example.org/notes/",
        "description": "Notes on things.", "language": "fr", "posts_per_page": 5,
        "feed_entries": 7, "feed_content": "summary",
        "nav": [{"title": "Blog", "url": "/"}, {"title": "Talks", "url": "/talks/"},
                {"title": "Rss", "url": "/feed.xml"}],
        "extra": {"repo_url": "https://github.com/ada/notes"},
        "notebooks": {"repository": "ada/notes"}}
    assert files_of(site) == {
        "site.yaml", "content/_variables.yml", "content/_metadata.yml", "content/home.qmd",
        "content/talks/index.qmd", "content/talks/2019.qmd",
        "content/posts/_metadata.yml", "content/posts/2021-03-04-first/index.qmd",
        "content/posts/2021-03-04-first/refs.bib", "content/posts/plain/index.qmd",
        "content/blog/_footer.Rmd", "_freeze/posts/plain/index/execute-results/html.json"}
    assert report.posts == 2
    metadata = yamlcore.safe_load((site / "content/_metadata.yml").read_text(encoding="utf-8"))
    assert metadata == {"execute": {"freeze": "auto"}, "release": "1.2"}
    said = [(r.file, r.line, r.what) for r in report.remarks]
    for file, line, start in [
            ("_quarto.yml", 5, "filters (Lua) are not run here"),
            ("_quarto.yml", 15, "website favicon: not carried over"),
            ("_quarto.yml", 22, "the navbar menu 'More' has no counterpart"),
            ("_quarto.yml", 29, "format html toc: not carried over"),
            ("_extensions", 0, "Quarto extensions (their shortcodes, filters and formats)"),
            ("old.Rmd", 0, "an R Markdown document: not imported"),
            ("blog.qmd", 3, "listing sort 'title': the posts are listed newest first"),
            ("blog.qmd", 3, "the posts of blog/posts/ are under posts/ here"),
            ("blog/posts/2021-03-04-first/index.qmd", 6, "1 r cell with no results in _freeze/"),
            ("blog/posts/2021-03-04-first/index.qmd", 10,
             "1 julia cell with no results in _freeze/"),
            ("blog/posts/plain/index.qmd", 10, "1 ojs cell: Observable JS is not run")]:
        assert any((f, n) == (file, line) and w.startswith(start) for f, n, w in said), start
    assert not [r for r in report.remarks if r.file == "blog/posts/plain/index.qmd"
                and " r cell" in r.what], "a frozen post's R cells have their results"
    text = (site / "content/posts/2021-03-04-first/index.qmd").read_text(encoding="utf-8")
    assert text.startswith('---\ntitle: First\ndate: 2021-03-04\naliases: '
                           '["/blog/posts/2021-03-04-first/"]\n---\n')
    built(site)
    moved = (site / "_site/blog/posts/2021-03-04-first/index.html").read_text(encoding="utf-8")
    assert "/notes/posts/first/" in moved, "the old address leads to the post"


def test_dry_run_conflicts_and_force(tmp_path: Path,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    src = write(tmp_path / "myblog", TEMPLATE)
    site = tmp_path / "site"
    site.mkdir()
    config = str(site / "site.yaml")
    assert main(["import", "quarto", str(src), "--config", config, "--dry-run"]) == 0
    assert "dry run: nothing was written" in capsys.readouterr().out
    assert files_of(site) == set()
    (site / "site.yaml").write_text("title: mine\n", encoding="utf-8")
    assert main(["import", "quarto", str(src), "--config", config]) == 1
    assert "site.yaml exists" in capsys.readouterr().err
    assert files_of(site) == {"site.yaml"}
    assert main(["import", "quarto", str(src), "--config", config, "--dry-run"]) == 1
    assert main(["import", "quarto", str(src), "--config", config, "--force"]) == 0
    assert settings(site)["title"] == "myblog"
    capsys.readouterr()
    assert main(["import", "quarto", str(src), "--config", config]) == 0, \
        "a second import of the same project finds the same files"


def test_refusals(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = write(tmp_path / "myblog", TEMPLATE)
    inside = str(src / "site" / "site.yaml")
    assert main(["import", "quarto", str(src), "--config", inside]) == 1
    assert "overlap" in capsys.readouterr().err
    assert not (src / "site").exists()
    plain = write(tmp_path / "plain", {"index.md": "# hi\n"})
    assert main(["import", "quarto", str(plain), "--config", str(tmp_path / "s")]) == 1
    assert "no _quarto.yml" in capsys.readouterr().err
    broken = write(tmp_path / "broken", {"_quarto.yml": "website:\n  title: [a\n"})
    assert main(["import", "quarto", str(broken), "--config", str(tmp_path / "s")]) == 1
    assert "broken/_quarto.yml:3: invalid YAML" in capsys.readouterr().err
    empty = write(tmp_path / "empty", {"_quarto.yml": "project:\n  type: website\n"})
    with pytest.raises(BlogbuildError, match="no document"):
        import_quarto(empty, config_path=tmp_path / "s2" / "site.yaml")
    assert not (tmp_path / "s2").exists()


def test_a_link_out_of_the_project_is_not_followed(tmp_path: Path) -> None:
    secret = write(tmp_path / "secret", {"key.txt": "do not copy\n"})
    src = write(tmp_path / "myblog", TEMPLATE)
    (src / "posts" / "welcome" / "key.txt").symlink_to(secret / "key.txt")
    site = tmp_path / "site"
    report = import_quarto(src, config_path=site)
    assert "content/posts/welcome/key.txt" not in files_of(site)
    assert any(r.file == "posts/welcome/key.txt" and r.what.startswith("symbolic link")
               for r in report.remarks)


def test_a_listing_of_undated_pages_is_no_blog(tmp_path: Path) -> None:
    """A documentation site: its listings are tables of contents, its `_` files includes."""
    src = write(tmp_path / "docs", {
        "_quarto.yml": "project:\n  type: website\nwebsite:\n  navbar:\n    left:\n"
                       "      - guide/index.qmd\n      - text: \"{{< fa rss title='News' >}}\"\n"
                       "        href: https://example.org/news\n",
        "guide/index.qmd": "---\ntitle: The Guide\nlisting:\n  contents: '*.qmd'\n---\n",
        "guide/install.qmd": "---\ntitle: Install\n---\n\n{{< include _steps.qmd >}}\n",
        "guide/_steps.qmd": "1. Download.\n",
        "_archive/posts/2020-01-01-old/index.qmd": "---\ntitle: Old\ndate: 2020-01-01\n---\n",
        "_archive/index.qmd": "---\nlisting:\n  contents: posts\n---\n",
    })
    site = tmp_path / "site"
    report = import_quarto(src, config_path=site)
    assert report.posts == 0
    assert sorted(report.documents) == [("guide/index.qmd", "content/guide/index.qmd"),
                                        ("guide/install.qmd", "content/guide/install.qmd")]
    assert "content/guide/_steps.qmd" in files_of(site)
    assert "content/_archive/posts/2020-01-01-old/index.qmd" in files_of(site)
    assert settings(site)["nav"] == [{"title": "The Guide", "url": "/guide/"},
                                     {"title": "News", "url": "https://example.org/news"}]


def test_a_site_folder_that_leads_elsewhere_is_refused(tmp_path: Path) -> None:
    src = write(tmp_path / "myblog", TEMPLATE)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    site = tmp_path / "site"
    site.mkdir()
    (site / "content").symlink_to(elsewhere)
    with pytest.raises(BlogbuildError, match="leads outside"):
        import_quarto(src, config_path=site)
    assert files_of(elsewhere) == set()
    assert files_of(site) == set()


def test_only_the_documents_quarto_renders(tmp_path: Path) -> None:
    src = write(tmp_path / "myblog", {
        **TEMPLATE,
        "_quarto.yml": "project:\n  type: website\n  render:\n    - index.qmd\n"
                       "    - posts/*/index.qmd\n    - '!posts/first-post/'\n",
    })
    report = import_quarto(src, config_path=tmp_path / "site")
    assert [name for name, _ in report.documents] == ["posts/welcome/index.qmd"]
    assert any(r.file == "_quarto.yml" and r.line == 3 and r.what.startswith(
        "2 document(s) not in project.render") for r in report.remarks)
