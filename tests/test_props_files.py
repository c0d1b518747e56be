"""Random slugs, permalinks, tag names and file names: the build writes only inside its output
folder, never touches a source, and fails, if at all, with a diagnostic (never a traceback)."""

from __future__ import annotations

import string
import tempfile
from pathlib import Path

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from blogbuild.commands.build import build
from blogbuild.diagnostics import BlogbuildError
from blogbuild.output.outdir import MARKER
from blogbuild.output.writer import wait_for_cleanup

SETTINGS = settings(max_examples=50, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow])

#: Pieces that make paths dangerous, mixed with ordinary text.
NASTY = ["..", ".", "/", "//", "\\", "C:", "\x00", "\n", "~", "%2e", "%00", "{", "}", "?", "#",
         " ", "é", "日本", "+", "&", "<", ">", '"', "'"]
text_piece = st.one_of(st.sampled_from(NASTY),
                       st.text(alphabet=string.ascii_letters + string.digits + "-_.", max_size=8),
                       st.text(max_size=4))
nasty_text = st.lists(text_piece, min_size=1, max_size=6).map("".join)
safe_slugs = st.from_regex(r"[a-z0-9][a-z0-9-]{0,10}", fullmatch=True)
#: Around "{slug}": the shape site.yaml asks for, with the dangerous segments in it, so the
#: path checks are reached (random text alone nearly always fails the simpler checks).
before_slug = st.sampled_from(["", "../", "./", "../../", "posts/../../", "{year}/", "%2e%2e/",
                               "C:/", "a\\", "a\\..\\", "{month}/../", "~/"])
after_slug = st.sampled_from(["/", "", "/..", "/../x/", "?", "#x", "/./", "/{day}/", "\\"])
permalinks = st.one_of(
    st.tuples(before_slug, after_slug).map(lambda p: f"/{p[0]}{{slug}}{p[1]}"),
    st.lists(st.one_of(st.sampled_from(["{slug}", "{other}", "{", "}", "/"]), text_piece),
             max_size=6).map("".join),
)
file_names = st.lists(
    st.one_of(st.sampled_from(["..", ".", "index", "feed.xml", "tags", "a.md", "~", "#", "%"]),
              st.text(alphabet=string.ascii_letters + "-_.+&é ", min_size=1, max_size=8)),
    min_size=1, max_size=3,
).map("".join).filter(lambda n: n not in (".", "..") and "/" not in n and "\x00" not in n)


def document(title: str, **meta: object) -> bytes:
    front = yaml.safe_dump({"title": title, **meta}, allow_unicode=True)
    return f"---\n{front}---\n\nBody of {title}.\n".encode()


def snapshot(folder: Path) -> dict[str, bytes | None]:
    return {p.relative_to(folder).as_posix(): (p.read_bytes() if p.is_file() else None)
            for p in folder.rglob("*")}


def check_build(files: dict[str, bytes], site_yaml: dict[str, object]) -> None:
    """Build a site made of `files`; assert the invariants whatever the outcome."""
    with tempfile.TemporaryDirectory() as tmp:
        top = Path(tmp)
        site = top / "site"
        (site / "content" / "posts").mkdir(parents=True)
        (site / "site.yaml").write_text(
            yaml.safe_dump({"title": "T", "base_url": "https://example.org/", **site_yaml}))
        for rel, data in files.items():
            path = site / rel
            if path.is_dir() or any(p.is_file() for p in path.parents):
                continue  # the names drawn clash on the disk already (a file and a folder)
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
        before = snapshot(top)
        try:
            build(site / "site.yaml", use_cache=False)
        except BlogbuildError as exc:  # a diagnostic: fine, as long as nothing leaked
            assert exc.format()
        finally:
            wait_for_cleanup()
        output = site / "_site"
        after = snapshot(top)
        outside = {rel: data for rel, data in after.items()
                   if not (top / rel).is_relative_to(output)}
        assert outside == before, "something outside the output folder changed"
        if output.exists():
            assert (output / MARKER).is_file()
            for path in output.rglob("*"):
                assert not path.is_symlink()
                assert path.resolve().is_relative_to(output.resolve())


@SETTINGS
@given(slugs=st.lists(safe_slugs, min_size=1, max_size=3), permalink=permalinks)
def test_permalinks_stay_inside_the_output(slugs: list[str], permalink: str) -> None:
    files = {f"content/posts/2024-01-0{i + 1}-p.md": document(f"P{i}", slug=slug)
             for i, slug in enumerate(slugs)}
    check_build(files, {"permalink": permalink})


@SETTINGS
@given(slugs=st.lists(st.one_of(safe_slugs, nasty_text), min_size=1, max_size=3),
       tags=st.lists(nasty_text, max_size=4))
def test_slugs_and_tags_stay_inside_the_output(slugs: list[str], tags: list[str]) -> None:
    files = {f"content/posts/2024-01-0{i + 1}-p.md": document(f"P{i}", slug=slug, tags=tags)
             for i, slug in enumerate(slugs)}
    files["content/page.md"] = document("Page", slug=slugs[0], tags=tags)
    check_build(files, {})


@SETTINGS
@given(names=st.lists(file_names, min_size=1, max_size=4),
       folders=st.lists(file_names, max_size=2))
def test_any_file_names_stay_inside_the_output(names: list[str], folders: list[str]) -> None:
    files: dict[str, bytes] = {}
    for i, name in enumerate(names):
        where = "/".join(["content", *folders[: i % (len(folders) + 1)], name])
        files[where] = document(f"N{i}", tags=[name]) if name.endswith(".md") else b"data"
        files[f"static/{name}"] = b"static"
    check_build(files, {})
