"""`blogbuild init` and `new`: the files they write, what they refuse, the site they build."""

from __future__ import annotations

import dataclasses
import datetime as dt
import re
import subprocess
import sys
import typing
from pathlib import Path
from typing import Any
from xml.etree.ElementTree import Element

import html5lib
import pytest

from blogbuild import __version__
from blogbuild.cli import main
from blogbuild.commands.build import build
from blogbuild.commands.init import init
from blogbuild.commands.new import new
from blogbuild.config import _NOT_KEYS, Config, load_config
from blogbuild.content.frontmatter import split_front_matter
from blogbuild.diagnostics import BlogbuildError
from image_helpers import tiny_png

DAY = dt.date(2024, 5, 6)
HOSTILE = 'Notes: "A" & B #1 <script>alert(1)</script> \\ it\'s'
FILES = ["site.yaml", "content/posts/2024-05-06-hello-world.md", "content/about.md",
         ".gitignore", "requirements.txt", ".github/workflows/deploy.yml"]
# The smallest PNG there is: one transparent pixel.
PIXEL = tiny_png()  # a real picture: the image stage reads it


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "blogbuild", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=120)


def parse(path: Path) -> Element:
    root: Element = html5lib.parse(path.read_text(encoding="utf-8"),
                                   namespaceHTMLElements=False)
    return root


def with_class(root: Element, name: str) -> list[Element]:
    return [e for e in root.iter() if name in (e.get("class") or "").split()]


def text(element: Element) -> str:
    return "".join(element.itertext())


def front_matter(path: Path) -> dict[str, Any]:
    return split_front_matter(path.read_text(encoding="utf-8"), str(path)).data


@pytest.fixture
def blog(tmp_path: Path) -> Path:
    root = tmp_path / "blog"
    init(root, title="Test blog", base_url="https://someone.github.io/my-blog/", today=DAY)
    return root


# init ------------------------------------------------------------------------------------------


def test_init_writes_every_file_and_pins_this_version(tmp_path: Path) -> None:
    report = init(tmp_path / "new-blog", today=DAY)
    assert report.root == (tmp_path / "new-blog").resolve()
    assert [p.as_posix() for p in report.written] == FILES
    for rel in FILES:
        assert (tmp_path / "new-blog" / rel).is_file(), rel
    requirements = (tmp_path / "new-blog/requirements.txt").read_text()
    pins = [line for line in requirements.splitlines() if line and not line.startswith("#")]
    assert pins == [f"blogbuild=={__version__}"]
    ignored = (tmp_path / "new-blog/.gitignore").read_text().split()
    assert {"_site/", ".blogbuild-cache/", ".venv/", "venv/", "__pycache__/"} <= set(ignored)
    assert not (tmp_path / "new-blog/templates").exists()  # the theme stays in the package
    meta = front_matter(tmp_path / "new-blog" / FILES[1])
    assert meta["date"] == DAY.isoformat()  # YAML 1.2: a date in the data stays text


@pytest.mark.parametrize("title", [HOSTILE, "Zoë’s blog — 数学", "yes", "1.0", "- [x]: {a}", ""])
def test_site_yaml_keeps_the_values_given(tmp_path: Path, title: str) -> None:
    init(tmp_path, title=title, author="O'Brien: \"Al\" #2", base_url="https://a.example/b")
    config = load_config(tmp_path / "site.yaml")
    assert config.title == title
    assert config.author == "O'Brien: \"Al\" #2"
    assert config.base_url == "https://a.example/b/"  # a trailing slash is added
    assert [(n.title, n.url) for n in config.nav] == [
        ("Posts", "/"), ("Tags", "/tags/"), ("Archive", "/archive/"), ("About", "/about/")]


def test_defaults_come_from_the_config(tmp_path: Path) -> None:
    init(tmp_path)
    config = load_config(tmp_path / "site.yaml")
    defaults = Config()
    assert (config.title, config.base_url, config.author) == (
        defaults.title, defaults.base_url, defaults.author)


def _keys(cls: type[Any], prefix: str = "") -> list[str]:
    keys = []
    hints = typing.get_type_hints(cls)
    for f in dataclasses.fields(cls):
        if f.name in _NOT_KEYS:  # read from elsewhere, not written in site.yaml
            continue
        keys.append(prefix + f.name)
        inner = [a for a in (hints[f.name], *typing.get_args(hints[f.name]))
                 if dataclasses.is_dataclass(a)]
        for sub in inner:
            assert isinstance(sub, type)
            keys += _keys(sub, f"{prefix}{f.name}.")
    return keys


def _uncommented(site_yaml: str) -> str:
    """site.yaml with every commented-out setting ("# key: ...") switched on."""
    return "\n".join(re.sub(r"^# ( *(?:[a-z_]+|\\R):)", r"\1", line)
                     for line in site_yaml.splitlines())


def test_site_yaml_shows_every_key_with_an_explanation(tmp_path: Path) -> None:
    init(tmp_path)
    lines = (tmp_path / "site.yaml").read_text().splitlines()
    for key in _keys(Config):
        *parents, name = key.split(".")
        if not parents:  # a top-level key, explained by the comment line above it
            (i,) = [i for i, line in enumerate(lines) if re.match(rf"^(# )?{name}:", line)]
            assert re.match(r"^# [A-Z]", lines[i - 1]), key
            continue
        found = [line for line in lines if re.match(rf"^(# )? +(- )?{name}:", line)]
        assert found, key
        if parents != ["nav"]:  # nested settings carry their explanation on the line
            assert any(" # " in line.partition(":")[2] for line in found), key


def test_every_commented_setting_is_valid(tmp_path: Path) -> None:
    init(tmp_path, today=DAY)
    site_yaml = tmp_path / "site.yaml"
    site_yaml.write_text(_uncommented(site_yaml.read_text()))
    # The one setting that names a file of yours: the bibliography.
    (tmp_path / "content" / "refs.bib").write_text("@book{k, title={T}, year={2020}}\n")
    config = load_config(site_yaml)
    assert config.math.macros == {"\\R": "\\mathbb{R}"}
    assert config.callouts["lemma"].alias_of == "theorem"
    report = build(site_yaml, strict=True)
    assert report.posts == 1


def test_first_post_builds_strict_and_shows_the_features(tmp_path: Path) -> None:
    root = tmp_path / "blog"
    init(root, title=HOSTILE, author="Ada", base_url="https://someone.github.io/my-blog")
    proc = run("build", "--strict", cwd=root)
    assert proc.returncode == 0, proc.stderr
    assert ": warning:" not in proc.stderr and ": error:" not in proc.stderr
    index = parse(root / "_site/index.html")
    assert text(with_class(index, "site-title")[0]) == HOSTILE
    assert text(index.find(".//title")) == HOSTILE  # type: ignore[arg-type]
    # Escaped, not markup: only the JSON-LD data holds the title, with its < written \u003c.
    scripts = [s for s in index.iter("script") if "alert" in text(s)]
    assert [s.get("type") for s in scripts] == ["application/ld+json"]
    assert "<" not in text(scripts[0])
    (item,) = with_class(index, "post-item-title")
    assert text(item).strip() == "Hello, world"
    assert item.find("a").get("href") == "/my-blog/posts/hello-world/"  # type: ignore[union-attr]
    post = parse(root / "_site/posts/hello-world/index.html")
    (callout,) = with_class(post, "callout")
    assert "callout-tip" in callout.get("class", "")
    assert "blogbuild new" in text(callout)
    assert with_class(post, "katex-display") and len(with_class(post, "katex")) >= 2
    (code,) = [c for c in post.iter("code") if c.get("class") == "language-python"]
    assert with_class(code, "nf")  # Pygments marked the function name
    about = parse(root / "_site/about/index.html")
    assert "Tell your readers" in text(with_class(about, "post")[0])


def test_cli_prints_the_files_and_the_next_commands(tmp_path: Path) -> None:
    proc = run("init", "my blog", "--title", "T", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    today = dt.date.today().isoformat()
    assert [line for line in lines if line.startswith("wrote ")] == [
        f"wrote 'my blog/{rel.replace('2024-05-06', today)}'" for rel in FILES]
    commands = [line.strip() for line in lines if line.startswith("  ")]
    assert commands == ["cd 'my blog'", "blogbuild serve", 'blogbuild new "My next post"']
    (tmp_path / "here").mkdir()
    here = run("init", cwd=tmp_path / "here")
    assert here.returncode == 0, here.stderr
    assert "wrote site.yaml" in here.stdout.splitlines()
    assert "cd " not in here.stdout  # already in the blog's folder


def test_init_refuses_to_overwrite_and_lists_the_files(tmp_path: Path) -> None:
    (tmp_path / "content").mkdir()
    (tmp_path / "site.yaml").write_text("title: Mine\n")
    (tmp_path / "content/about.md").write_text("# Mine\n")
    proc = run("init", cwd=tmp_path)
    assert proc.returncode == 1
    assert "Traceback" not in proc.stderr
    assert proc.stdout == ""
    assert "site.yaml" in proc.stderr and "content/about.md" in proc.stderr
    assert "requirements.txt" not in proc.stderr  # only the files that exist are listed
    assert "--force" in proc.stderr
    assert sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*")) == [
        "content", "content/about.md", "site.yaml"]  # nothing was written
    assert (tmp_path / "site.yaml").read_text() == "title: Mine\n"
    forced = run("init", "--force", "--title", "Theirs", cwd=tmp_path)
    assert forced.returncode == 0, forced.stderr
    assert load_config(tmp_path / "site.yaml").title == "Theirs"
    assert "Tell your readers" in (tmp_path / "content/about.md").read_text()


@pytest.mark.parametrize("url", ["someone.github.io/blog", "ftp://x.example/", "https://", ""])
def test_init_rejects_a_base_url_that_is_not_http(tmp_path: Path, url: str) -> None:
    proc = run("init", "--base-url", url, cwd=tmp_path)
    assert proc.returncode == 1
    assert "--base-url must be an absolute http(s) URL" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert not list(tmp_path.iterdir())


def test_init_into_a_file_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "blog").write_text("")
    with pytest.raises(BlogbuildError, match="is a file, not a folder"):
        init(tmp_path / "blog")


# new -------------------------------------------------------------------------------------------


def test_new_writes_a_dated_post_and_prints_its_path(blog: Path) -> None:
    proc = run("new", HOSTILE, "--tags", "python, math,, python", cwd=blog)
    assert proc.returncode == 0, proc.stderr
    today = dt.date.today()
    slug = "notes-a-b-1-scriptalert1script-its"
    rel = f"content/posts/{today.isoformat()}-{slug}.md"
    assert proc.stdout == rel + "\n"
    meta = front_matter(blog / rel)
    assert meta == {"title": HOSTILE, "date": today.isoformat(), "tags": ["python", "math"]}
    report = build(blog / "site.yaml", strict=True)
    assert report.posts == 2
    page = parse(blog / f"_site/posts/{slug}/index.html")
    assert text(with_class(page, "post-title")[0]) == HOSTILE


def test_new_post_without_tags_has_an_empty_list(blog: Path) -> None:
    path = new("Plain", config_path=blog / "site.yaml", today=DAY)
    assert path == blog / "content/posts/2024-05-06-plain.md"
    assert front_matter(path) == {"title": "Plain", "date": DAY.isoformat(), "tags": []}


def test_a_draft_is_built_only_with_drafts(blog: Path, tmp_path: Path) -> None:
    proc = run("new", "Half done", "--draft", cwd=blog)
    assert proc.returncode == 0, proc.stderr
    assert front_matter(blog / proc.stdout.strip())["draft"] is True
    build(blog / "site.yaml", strict=True)
    assert not (blog / "_site/posts/half-done").exists()
    build(blog / "site.yaml", strict=True, drafts=True, output=tmp_path / "with-drafts")
    assert (tmp_path / "with-drafts/posts/half-done/index.html").is_file()


def test_a_bundle_serves_its_images_beside_the_post(blog: Path) -> None:
    proc = run("new", "Plots: a tour", "--bundle", "--tags", "plots", cwd=blog)
    assert proc.returncode == 0, proc.stderr
    index = blog / "content/posts/plots-a-tour/index.md"
    assert proc.stdout == "content/posts/plots-a-tour/index.md\n"
    assert front_matter(index)["date"] == dt.date.today().isoformat()
    (index.parent / "plot.png").write_bytes(PIXEL)
    with index.open("a") as fh:
        fh.write("\n![A plot](plot.png)\n")
    assert run("build", "--strict", cwd=blog).returncode == 0
    page = parse(blog / "_site/posts/plots-a-tour/index.html")
    (img,) = [i for i in page.iter("img") if i.get("alt") == "A plot"]
    src = str(img.get("src"))  # one of the picture's copies, beside the post
    assert src.startswith("/my-blog/posts/plots-a-tour/plot.") and src.endswith(".2.png")
    assert (blog / "_site" / src.removeprefix("/my-blog/")).is_file()
    assert (blog / "_site/posts/plots-a-tour/plot.png").read_bytes() == PIXEL


def test_new_page(blog: Path) -> None:
    proc = run("new", "--page", "Talks & papers", "--draft", cwd=blog)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "content/talks-papers.md\n"
    assert front_matter(blog / "content/talks-papers.md") == {
        "title": "Talks & papers", "draft": True}
    build(blog / "site.yaml", strict=True, drafts=True)
    page = parse(blog / "_site/talks-papers/index.html")
    assert text(with_class(page, "post-title")[0]) == "Talks & papers"


@pytest.mark.parametrize("title", ["Écoles, Ünïcode & 数学", "2023-01-02 recap", "a_b  c--d"])
@pytest.mark.parametrize("bundle", [False, True])
def test_the_url_is_the_slug_of_the_title(blog: Path, title: str, bundle: bool) -> None:
    from blogbuild.urls import slugify

    new(title, config_path=blog / "site.yaml", bundle=bundle, today=DAY)
    # The card font has no CJK letters (a warning of its own, tested with the cards).
    config = blog / "site.yaml"
    config.write_text(config.read_text() + "social_cards: false\n")
    build(blog / "site.yaml", strict=True)
    assert (blog / "_site/posts" / slugify(title) / "index.html").is_file()


def test_new_refuses_to_overwrite(blog: Path) -> None:
    first = run("new", "Twice", cwd=blog)
    assert first.returncode == 0, first.stderr
    path = blog / first.stdout.strip()
    path.write_text("---\ntitle: Mine\n---\nmine\n")
    again = run("new", "Twice", cwd=blog)
    assert again.returncode == 1
    assert "exists already" in again.stderr and "Traceback" not in again.stderr
    assert again.stdout == ""
    assert path.read_text() == "---\ntitle: Mine\n---\nmine\n"
    new("Twice", config_path=blog, bundle=True, today=DAY)
    with pytest.raises(BlogbuildError, match="exists already"):
        new("Twice", config_path=blog, bundle=True, today=DAY)


def test_new_without_a_blog_says_to_run_init(tmp_path: Path) -> None:
    proc = run("new", "Lost", cwd=tmp_path)
    assert proc.returncode == 1
    assert "blogbuild init" in proc.stderr and "Traceback" not in proc.stderr
    assert not list(tmp_path.iterdir())


def test_a_title_without_letters_is_a_clear_error(blog: Path) -> None:
    proc = run("new", "🎉 !!", cwd=blog)
    assert proc.returncode == 1
    assert "no letters or digits" in proc.stderr and "Traceback" not in proc.stderr


@pytest.mark.parametrize(("command", "words"), [
    ("init", ["DIR", "--title", "--base-url", "--author", "--force", "Never overwrites"]),
    ("new", ["--tags", "--draft", "--bundle", "--page", "--config", "Never overwrites"]),
])
def test_help_explains_every_option(capsys: pytest.CaptureFixture[str], command: str,
                                    words: list[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main([command, "--help"])
    assert exit_.value.code == 0
    shown = " ".join(capsys.readouterr().out.split())
    for word in words:
        assert word in shown
