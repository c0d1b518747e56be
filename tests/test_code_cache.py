"""The highlighted-code cache: a render after a prose edit finds its code without Pygments."""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from blogbuild import diskcache
from blogbuild.markdown.highlight import highlight_code
from blogbuild.markdown.linenums import LineNumbers

SRC = Path(__file__).resolve().parent.parent / "src"

DOC = """# Title

Some prose.

```python {2}
def f(x):
    return x + 1  # é
```

```text
plain <b>text</b>
```

```nosuchlanguage
kept & escaped
```
"""

#: Renders stdin as Markdown with the cache in argv[1] ("-": none); prints the HTML and
#: the Pygments modules this fresh process imported.
SCRIPT = """
import json, sys
from blogbuild import diskcache
from blogbuild.markdown import create_markdown
from blogbuild.pipeline.render import render_markdown
diskcache.set_cache_dir(None if sys.argv[1] == "-" else sys.argv[1])
html = render_markdown(create_markdown(), sys.stdin.read()).html
print(json.dumps({"html": html, "pygments": [m for m in sys.modules if m.startswith("pygments")]}))
"""


def render_fresh(cache: Path | None, text: str = DOC) -> dict[str, Any]:
    proc = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(cache) if cache else "-"], input=text,
        capture_output=True, text=True, timeout=60,
        env={"PYTHONPATH": str(SRC), "PATH": "/usr/bin:/bin"},
    )
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    return dict(json.loads(proc.stdout))


def code_rows(cache: Path) -> int:
    with contextlib.closing(sqlite3.connect(cache / diskcache.CACHE_FILE)) as db:
        return int(db.execute("SELECT count(*) FROM code").fetchone()[0])


def test_a_second_render_in_a_fresh_process_does_not_import_pygments(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    plain = render_fresh(None)
    first = render_fresh(cache)
    assert first["pygments"] and first["html"] == plain["html"]
    assert code_rows(cache) == 3
    second = render_fresh(cache, DOC.replace("Some prose.", "Other prose."))
    assert second["pygments"] == []
    assert second["html"] == plain["html"].replace("Some prose.", "Other prose.")
    assert '<span class="hll">' in second["html"] and "kept &amp; escaped" in second["html"]


@pytest.mark.parametrize("damage", ["garbage", "truncated", "empty"])
def test_a_damaged_cache_file_is_replaced(damage: str, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    first = render_fresh(cache)
    db = cache / diskcache.CACHE_FILE
    data = db.read_bytes()
    db.write_bytes({"garbage": b"this is not a database" * 100,
                    "truncated": data[: len(data) // 3], "empty": b""}[damage])
    for suffix in ("-wal", "-shm"):
        Path(f"{db}{suffix}").unlink(missing_ok=True)
    assert render_fresh(cache)["html"] == first["html"]
    assert code_rows(cache) == 3


def test_a_locked_cache_file_turns_the_cache_off(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    first = render_fresh(cache)
    with contextlib.closing(sqlite3.connect(cache / diskcache.CACHE_FILE)) as conn:
        conn.execute("PRAGMA locking_mode=EXCLUSIVE")
        conn.execute("BEGIN EXCLUSIVE")  # another program's lock
        started = time.perf_counter()
        again = render_fresh(cache)
    assert time.perf_counter() - started < 15
    assert again["html"] == first["html"] and again["pygments"]


@pytest.fixture
def restore_cache_env() -> Any:
    """Point the cache somewhere for one test; leave the environment as it was."""
    before = os.environ.get(diskcache.CACHE_ENV)
    yield
    diskcache.set_cache_dir(before)


def test_the_key_covers_language_and_highlighted_lines(tmp_path: Path,
                                                       restore_cache_env: None) -> None:
    diskcache.set_cache_dir(None)
    cases = [("x = 1\n", "python", ()), ("x = 1\n", "python", (1,)), ("x = 1\n", "ruby", ()),
             ("x = 1\n", "PYTHON", ()), ("x = 1\n", "text", (1,)), ("x = 2\n", "python", ())]
    uncached = [highlight_code(*case) for case in cases]
    diskcache.set_cache_dir(tmp_path)
    assert [highlight_code(*case) for case in cases] == uncached  # made and kept
    assert [highlight_code(*case) for case in cases] == uncached  # read back
    diskcache.flush()
    assert code_rows(tmp_path) == 5  # "PYTHON" is "python"


def test_the_key_covers_the_line_numbers(tmp_path: Path, restore_cache_env: None) -> None:
    diskcache.set_cache_dir(None)
    code = "x = 1\ny = 2\n"
    cases = [None, LineNumbers(1), LineNumbers(9), LineNumbers(1, 2)]
    uncached = [highlight_code(code, "python", numbers=numbers) for numbers in cases]
    assert len(set(uncached)) == 4
    diskcache.set_cache_dir(tmp_path)
    assert [highlight_code(code, "python", numbers=numbers) for numbers in cases] == uncached
    assert [highlight_code(code, "python", numbers=numbers) for numbers in cases] == uncached
    diskcache.flush()
    assert code_rows(tmp_path) == 4


def test_set_cache_dir_none_turns_the_cache_off(tmp_path: Path,
                                                restore_cache_env: None) -> None:
    diskcache.set_cache_dir(tmp_path)
    highlight_code("a = 1\n", "python")
    diskcache.set_cache_dir(None)  # writes what is pending, then keeps nothing
    highlight_code("b = 2\n", "python")
    diskcache.flush()
    assert code_rows(tmp_path) == 1


def test_worker_processes_share_the_cache(tmp_path: Path) -> None:
    """Above the pool threshold each worker writes its blocks before it exits (a pool's
    workers never run atexit): a rebuild after prose edits finds every block."""
    site = tmp_path / "site"
    posts = site / "content" / "posts"
    posts.mkdir(parents=True)
    (site / "site.yaml").write_text("title: T\nbase_url: https://example.org/\n")
    for i in range(30):
        (posts / f"2024-01-{i + 1:02d}-p{i}.md").write_text(
            f"---\ntitle: P{i}\ndate: 2024-01-{i + 1:02d}\n---\n\nProse {i}.\n\n"
            f"```python\nn = {i}\n```\n\n```python\nshared = True\n```\n")

    def build() -> None:
        proc = subprocess.run(
            [sys.executable, "-m", "blogbuild", "build", "-q"], cwd=site,
            capture_output=True, text=True, timeout=120,
            env={"PYTHONPATH": str(SRC), "PATH": "/usr/bin:/bin", "BLOGBUILD_WORKERS": "2"})
        assert proc.returncode == 0, proc.stderr

    build()
    cache = site / ".blogbuild-cache"
    assert code_rows(cache) == 31
    page = site / "_site" / "posts" / "p7" / "index.html"
    before = page.read_text(encoding="utf-8")
    for post in posts.iterdir():
        post.write_text(post.read_text().replace("Prose", "Edited prose"))
    build()
    assert code_rows(cache) == 31
    assert page.read_text(encoding="utf-8") == before.replace("Prose 7.", "Edited prose 7.")
