"""The benchmark notices code that changes while it runs (bench/corpora.py's `code_stamp`):
a run's figures would mix two versions, and the first build of the new one rebuilds
everything, its cache being keyed on the code."""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Callable
from pathlib import Path

BENCH = Path(__file__).resolve().parent.parent / "bench"
FILES = ("src/blogbuild/engine.py", "templates/base.html", "static/css/site.css")


def load_code_stamp() -> Callable[[Path], str]:
    spec = importlib.util.spec_from_file_location("bench_corpora", BENCH / "corpora.py")
    assert spec is not None and spec.loader is not None
    module = sys.modules.get(spec.name)
    if module is None:  # its dataclasses look their module up there
        module = sys.modules[spec.name] = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    stamp: Callable[[Path], str] = module.code_stamp
    return stamp


def checkout(root: Path) -> Path:
    for rel in FILES:
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("first")
    (root / "content").mkdir()
    return root


def test_a_change_of_the_code_or_the_theme_changes_the_stamp(tmp_path: Path) -> None:
    stamp, root = load_code_stamp(), checkout(tmp_path)
    for rel in FILES:
        before = stamp(root)
        (root / rel).write_text("second, longer")
        assert stamp(root) != before, rel
    before = stamp(root)
    (root / "src/blogbuild/added.py").write_text("")
    assert stamp(root) != before
    before = stamp(root)
    (root / "src/blogbuild/added.py").unlink()
    assert stamp(root) != before


def test_bytecode_and_the_blog_leave_the_stamp_alone(tmp_path: Path) -> None:
    stamp, root = load_code_stamp(), checkout(tmp_path)
    before = stamp(root)
    assert stamp(root) == before
    compiled = root / "src/blogbuild/__pycache__/engine.cpython-311.pyc"
    compiled.parent.mkdir()
    compiled.write_bytes(b"written by the runs")
    (root / "content/post.md").write_text("the benchmark's own edits")
    assert stamp(root) == before


def test_the_stamp_reads_every_folder_it_names_and_they_hold_what_a_build_runs() -> None:
    """A folder renamed in the checkout would leave the stamp reading nothing there."""
    load_code_stamp()
    folders: tuple[str, ...] = sys.modules["bench_corpora"].CODE_FOLDERS
    repo = BENCH.parent
    for folder in folders:
        files = [p for p in (repo / folder).rglob("*")
                 if p.is_file() and "__pycache__" not in p.parts]
        assert files, f"{folder} holds no file"
    import blogbuild
    from blogbuild.themefiles import theme_templates

    ran = [Path(blogbuild.__file__).resolve(), theme_templates().resolve() / "base.html"]
    for path in ran:
        if path.is_relative_to(repo):  # blogbuild runs from this checkout
            assert any(path.is_relative_to(repo / folder) for folder in folders), path
