"""`blogbuild import` end to end: sample sites imported into a new blog that then builds."""

from __future__ import annotations

import datetime as dt
import os
import re
import shutil
import struct
import subprocess
import sys
import time
import zlib
from collections.abc import Callable
from pathlib import Path
from xml.etree.ElementTree import Element

import html5lib
import pytest

from blogbuild.cli import main
from blogbuild.commands.build import build
from blogbuild.commands.init import init

SAMPLES = Path(__file__).parent / "sites" / "import"
DAY = dt.date(2024, 5, 6)
#: Copies a sample source into the test's folder (all files dated NOTE_TIME).
Copier = Callable[[str], Path]
NOTE_TIME = dt.datetime(2024, 2, 20, 12, 0).timestamp()


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parents[1] / "src")}
    return subprocess.run([sys.executable, "-m", "blogbuild", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=120)


def snapshot(folder: Path) -> dict[str, tuple[bytes, int]]:
    """Every file's bytes and modification time (links not followed)."""
    out = {}
    for path in sorted(folder.rglob("*")):
        if path.is_file() and not path.is_symlink():
            out[path.relative_to(folder).as_posix()] = (path.read_bytes(), path.stat().st_mtime_ns)
    return out


def parse(path: Path) -> Element:
    root: Element = html5lib.parse(path.read_text(encoding="utf-8"),
                                   namespaceHTMLElements=False)
    return root


def with_class(root: Element, name: str) -> list[Element]:
    return [e for e in root.iter() if name in (e.get("class") or "").split()]


def hrefs(root: Element) -> set[str]:
    return {e.get("href") or "" for e in root.iter("a")}


#: The pictures of the sample sites, made when a sample is copied (the repository holds no
#: binary test files): each a 1x1 PNG of its own colour, so copies can be told apart.
IMAGES = {
    "jekyll": ["assets/img/cover.png", "assets/img/only-third.png", "assets/img/shared.png",
               "assets/img/unused.png"],
    "hugo": ["content/posts/bundle-post/cover.png", "content/posts/bundle-post/plot.png",
             "static/images/diagram.png"],
    "obsidian": ["attachments/diagram.png", "attachments/shared.png"],
}


def tiny_png(shade: int) -> bytes:
    """A valid 1x1 grey PNG."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))
    header = struct.pack(">IIBBBBB", 1, 1, 8, 0, 0, 0, 0)
    pixels = zlib.compress(bytes([0, shade % 256]))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", pixels)
            + chunk(b"IEND", b""))


@pytest.fixture
def source(tmp_path: Path) -> Copier:
    def copy(kind: str) -> Path:
        dest = tmp_path / f"src-{kind}"
        shutil.copytree(SAMPLES / kind, dest)
        for shade, rel in enumerate(IMAGES[kind]):
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            (dest / rel).write_bytes(tiny_png(40 * shade))
        for path in dest.rglob("*"):
            os.utime(path, (NOTE_TIME, NOTE_TIME))
        return dest
    return copy


@pytest.fixture
def blog(tmp_path: Path) -> Path:
    init(tmp_path / "blog", title="Moved", today=DAY)
    return tmp_path / "blog"


def imported(kind: str, src: Path, blog: Path) -> subprocess.CompletedProcess[str]:
    before = snapshot(src)
    result = run("import", kind, str(src), cwd=blog)
    assert snapshot(src) == before, "the source was changed"
    assert result.returncode == 0, result.stderr
    return result


def built(blog: Path) -> Path:
    report = build(blog / "site.yaml", drafts=True)
    assert not [d for d in report.diagnostics if d.is_error]
    assert not [d for d in report.diagnostics if "differ only in case" in d.message]
    return blog / "_site"


def test_jekyll_round_trip(source: Copier, blog: Path) -> None:
    src = source("jekyll")
    result = imported("jekyll", src, blog)
    site = built(blog)
    first = parse(site / "posts" / "first-steps" / "index.html")
    code = with_class(first, "hll")
    assert [("".join(e.itertext())).strip() for e in code][:1] == ['message = f"Hello, {name}"']
    assert len(code) == 3
    videos = with_class(first, "video-embed")
    assert len(videos) == 1
    assert "/posts/second-post/" in hrefs(first)
    assert "Posts are plain Markdown files." in "".join(first.itertext())
    second = parse(site / "posts" / "second-post" / "index.html")
    assert "/posts/first-steps/" in hrefs(second)
    for image in ("assets/img/shared.png", "assets/img/cover.png", "posts/third/only-third.png"):
        assert (site / image).read_bytes() == (src / "assets" / "img" /
                                               Path(image).name).read_bytes()
    assert not (site / "assets" / "img" / "unused.png").exists()
    out = result.stdout
    assert "_posts/2021-03-04-first-steps.md:39: Liquid tag {% gist 9f3a2b1c %}" in out
    assert "_posts/2021-05-06-second-post.markdown:23: {% include missing.html %}" in out
    assert "imported 4 posts (2 drafts) and 3 files" in out.splitlines()[-1]
    text = (blog / "content/posts/2021-03-04-first-steps.md").read_text(encoding="utf-8")
    assert 'aliases: ["/python/tips/2021/03/04/first-steps/"]' in text
    assert "`{{ page.title }}` in a code span" in text and "raw" not in text
    assert "```liquid\n{% for post in site.posts %}{{ post.title }}{% endfor %}\n```" in text
    assert "    {{ indented.code }} stays as it is" in text


def picture_of(src: str | None) -> str:
    """The picture an <img> shows one copy of (`x.<key>.<width>.png` is a copy of x.png)."""
    return re.sub(r"\.[0-9a-f]{10}\.[0-9]+(\.[a-z]+)$", r"\1", src or "")


def test_hugo_round_trip(source: Copier, blog: Path) -> None:
    src = source("hugo")
    result = imported("hugo", src, blog)
    site = built(blog)
    first = parse(site / "posts" / "first-go" / "index.html")
    figures = [f for f in first.iter("figure") if "figure" in (f.get("class") or "").split()]
    assert "How the workers talk" in "".join(figures[0].itertext())
    assert picture_of(figures[0].find(".//img").get("src")) == "/assets/images/diagram.png"
    assert len(with_class(first, "video-embed")) == 1
    assert len(with_class(first, "hll")) == 3
    assert "/posts/go-part-two/" in hrefs(first)
    second = parse(site / "posts" / "go-part-two" / "index.html")
    assert "/posts/first-go/" in hrefs(second)
    assert "This paragraph was included from a file." in "".join(second.itertext())
    assert (site / "posts" / "go-part-two" / "plot.png").is_file()
    assert (site / "assets" / "images" / "diagram.png").is_file()
    json_post = parse(site / "posts" / "json-post" / "index.html")
    assert len(with_class(json_post, "video-embed")) == 1
    out = result.stdout
    assert "content/posts/first-go.md:32: Hugo shortcode {{< tweet" in out
    assert "content/posts/bundle-post/index.md:19: Hugo shortcode {{% notice info %}}" in out
    assert "content/about.md: a page, not a post; not imported" in out
    assert "content/posts/first-go.fr.md: a translation (fr); blogbuild builds one" in out
    assert "content/posts/bundle-post/index.fr.md: a translation (fr)" in out
    assert not (site / "posts" / "bundle-post" / "index.fr.md").exists()
    assert (site / "posts" / "release-notes-v12" / "index.html").is_file()
    text = (blog / "content/posts/2023-04-05-first-go.md").read_text(encoding="utf-8")
    assert 'aliases: ["/2023/04/first-go/", "/old/first-go/"]' in text
    assert "`{{< youtube ID >}}`" in text  # Hugo's escaped shortcode, as Hugo shows it


def test_obsidian_round_trip(source: Copier, blog: Path) -> None:
    src = source("obsidian")
    result = imported("obsidian", src, blog)
    site = built(blog)
    note = site / "posts" / "attention-is-all-you-need"
    assert (note / "diagram.png").is_file()
    assert (site / "assets" / "attachments" / "shared.png").is_file()
    page = parse(note / "index.html")
    sources = {picture_of(e.get("src")) for e in page.iter("img")}
    assert {"/posts/attention-is-all-you-need/diagram.png",
            "/assets/attachments/shared.png"} <= sources
    assert "/posts/softmax-notes/" in hrefs(page)
    out = result.stdout
    assert "Attention is all you need.md:22: ![[Softmax notes]]: embedding a note" in out
    assert "Attention is all you need.md:24: [[Missing note]]" in out
    assert "Softmax notes.md:1: no date in the front matter or the file name: dated " \
        "2024-02-20" in out
    assert "Templates/: 1 file(s) in the templates folder" in out
    assert not list((blog / "content").rglob("*Daily*"))
    assert (blog / "content/posts/2024-02-20-softmax-notes.md").is_file()


def test_dry_run_writes_nothing(source: Copier, blog: Path) -> None:
    before = snapshot(blog)
    result = run("import", "hugo", str(source("hugo")), "--dry-run", cwd=blog)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[-1].endswith("dry run: nothing was written")
    assert "would import 4 posts" in result.stdout
    assert snapshot(blog) == before


def test_refuses_to_overwrite_unless_forced(source: Copier, blog: Path) -> None:
    src = source("jekyll")
    assert run("import", "jekyll", str(src), cwd=blog).returncode == 0
    post = blog / "content/posts/2021-05-06-second-post.md"
    post.write_text("mine\n", encoding="utf-8")
    again = run("import", "jekyll", str(src), cwd=blog)
    assert again.returncode == 1
    assert "2021-05-06-second-post.md" in again.stderr and "--force" in again.stderr
    assert post.read_text(encoding="utf-8") == "mine\n"
    dry = run("import", "jekyll", str(src), "--dry-run", cwd=blog)
    assert dry.returncode == 1
    assert f"{post} exists" in dry.stdout and "would stop the import" in dry.stdout
    assert run("import", "jekyll", str(src), "--force", cwd=blog).returncode == 0
    assert post.read_text(encoding="utf-8").startswith("---\ntitle: Second post\n")


def test_exit_codes(tmp_path: Path, blog: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = str(blog / "site.yaml")
    empty = tmp_path / "empty"
    empty.mkdir()
    assert main(["import", "jekyll", str(empty), "--config", config]) == 1
    assert "no post could be imported" in capsys.readouterr().err
    assert main(["import", "jekyll", str(tmp_path / "missing"), "--config", config]) == 1
    assert "is not a folder" in capsys.readouterr().err
    with pytest.raises(SystemExit) as usage:
        main(["import", "wordpress", str(empty), "--config", config])
    assert usage.value.code == 2
    assert main(["import", "hugo", str(blog), "--config", config]) == 1
    assert "overlap" in capsys.readouterr().err


def test_hostile_source_never_writes_outside(tmp_path: Path, blog: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text("---\ntitle: Secret\n---\nsecret\n", encoding="utf-8")
    (outside / "secret.png").write_bytes(b"secret")
    src = tmp_path / "vault"
    src.mkdir()
    (src / "leak.md").symlink_to(outside / "secret.md")
    (src / "pictures").symlink_to(outside)
    (src / "huge.md").write_text("x" * 6_000_000, encoding="utf-8")
    (src / "Evil.md").write_text(
        "---\ndate: 2020-01-01\nslug: ../../../../escaped\ntitle: Evil\n---\n"
        "![a](../outside/secret.png) ![[secret.png]] [x](/../../outside/secret.md)\n",
        encoding="utf-8")
    before_outside = snapshot(outside)
    before_all = {p for p in tmp_path.rglob("*") if not p.is_relative_to(blog)}
    result = run("import", "obsidian", str(src), cwd=blog)
    assert result.returncode == 0, result.stderr
    assert snapshot(outside) == before_outside
    assert {p for p in tmp_path.rglob("*") if not p.is_relative_to(blog)} == before_all
    written = sorted(p.relative_to(blog / "content").as_posix()
                     for p in (blog / "content").rglob("*") if p.is_file())
    assert "posts/2020-01-01-escaped.md" in written
    assert not any("secret" in name for name in written)
    out = result.stdout
    assert "leak.md: symbolic link to a file outside the site" in out
    assert "pictures: symbolic link to a folder outside the site" in out
    assert "huge.md: 6,000,000 bytes" in out
    assert "the link target ../outside/secret.png is neither" in out


def test_refuses_a_content_folder_that_leads_outside(source: Copier, tmp_path: Path,
                                                     blog: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    shutil.rmtree(blog / "content" / "posts")
    (blog / "content" / "posts").symlink_to(elsewhere, target_is_directory=True)
    result = run("import", "jekyll", str(source("jekyll")), cwd=blog)
    assert result.returncode == 1
    assert "leads outside" in result.stderr
    assert not any(elsewhere.iterdir())


def test_a_post_made_to_be_slow_is_not(tmp_path: Path, blog: Path) -> None:
    """Thousands of openers that never close, on long lines and short: linear work."""
    src = tmp_path / "site"
    (src / "_posts").mkdir(parents=True)
    lines = ["{% highlight x %}"] * 20_000 + [
        "{%" * 50_000, "{{" * 50_000, "[" * 100_000, "![[" * 30_000, "{{<" * 30_000,
        "".join("`" * (i % 50 + 1) + "x" for i in range(20_000)), "<a " * 30_000,
    ] * 3
    (src / "_posts" / "2020-01-01-slow.md").write_text("\n".join(lines), encoding="utf-8")
    started = time.monotonic()
    result = run("import", "jekyll", str(src), "--dry-run", cwd=blog)
    assert result.returncode == 0, result.stderr
    assert time.monotonic() - started < 60


BOMB = "".join(f"  - &{n} [{', '.join([f'*{p}'] * 9 if p else ['lol'] * 9)}]\n"
               for p, n in zip(["", *"abcdefgh"], "abcdefghi", strict=True))


def test_an_alias_bomb_or_a_year_0_in_front_matter_is_a_note(tmp_path: Path, blog: Path) -> None:
    """The importers read front matter with yamlcore's bounded loader: a billion-laughs
    bomb in tags: is refused before anything walks it, a date in year 0 is no crash."""
    src = tmp_path / "site"
    (src / "_posts").mkdir(parents=True)
    (src / "_config.yml").write_text(f"title: X\nexclude:\n{BOMB}", encoding="utf-8")
    (src / "_posts" / "2020-01-01-bomb.md").write_text(
        f"---\ntitle: Bomb\ntags:\n{BOMB}---\nText.\n", encoding="utf-8")
    (src / "_posts" / "2020-01-02-year0.md").write_text(
        "---\ntitle: Zero\ndate: 0000-01-01\n---\nText.\n", encoding="utf-8")
    started = time.monotonic()
    result = run("import", "jekyll", str(src), "--dry-run", cwd=blog)
    assert time.monotonic() - started < 20
    assert "Traceback" not in result.stderr and "internal error" not in result.stderr
    out = result.stdout + result.stderr
    assert "more than 50000 values once aliases" in out
    assert "'0000-01-01' is not a valid date" in out
