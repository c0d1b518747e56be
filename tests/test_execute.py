"""Runnable blocks that run at build time: real builds, a real Python subprocess, the
output panel in the built page, the errors, the timeout and the cache."""

from __future__ import annotations

import base64
import dataclasses
import logging
import shutil
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import html5lib
import pytest
from PIL import Image

from blogbuild import fingerprints
from blogbuild.commands.build import BuildReport, build
from blogbuild.config import Config, RunnableConfig, load_config
from blogbuild.diagnostics import BuildFailed, ConfigError
from blogbuild.fingerprints import digest_of
from blogbuild.markdown.widgets.outputs import output_panel
from blogbuild.serve.session import Session
from serve_helpers import fetch, wait_for

SITE_YAML = "title: Runs\nbase_url: https://example.org/\nrunnable:\n  timeout: {timeout}\n{more}"


def block(code: str, attrs: str = 'data-execute="build"') -> str:
    return (f'<div class="runnable" data-lang="python" {attrs}>\n\n```python\n{code}\n```\n\n'
            "</div>\n")


def post(*blocks: str) -> str:
    return "---\ntitle: P\ndate: 2024-01-01\n---\n\nSome prose.\n\n" + "\n".join(blocks)


def make_site(root: Path, body: str, *, timeout: int = 10, more: str = "") -> Path:
    site = root / "site"
    (site / "content" / "posts").mkdir(parents=True, exist_ok=True)
    (site / "site.yaml").write_text(SITE_YAML.format(timeout=timeout, more=more),
                                    encoding="utf-8")
    (site / "content" / "posts" / "p.md").write_text(body, encoding="utf-8")
    return site


def run_build(site: Path, out: Path | None = None) -> tuple[BuildReport, str]:
    out = out or site.parent / "out"
    report = build(site / "site.yaml", output=out)
    return report, (out / "posts" / "p" / "index.html").read_text(encoding="utf-8")


def panels(page: str) -> list[Any]:
    doc = html5lib.parse(page, treebuilder="etree", namespaceHTMLElements=False)
    found = []
    for div in doc.iter("div"):
        if "runnable" in (div.get("class") or "").split():
            found.append(next((d for d in div.iter("div")
                               if d.get("class") == "runnable-output"), None))
    return found


def text(element: Any, cls: str) -> str:
    return "".join("".join(e.itertext()) for e in element.iter()
                   if cls in (e.get("class") or "").split())


def failure(site: Path) -> str:
    with pytest.raises(BuildFailed) as caught:
        build(site / "site.yaml", output=site.parent / "out")
    return "\n".join(d.format() for d in caught.value.diagnostics)


def test_a_figure_becomes_a_png_image_in_the_page(tmp_path: Path) -> None:
    code = ("import matplotlib.pyplot as plt\nplt.plot([1, 3, 2])\nplt.title('Rise and fall')\n"
            "print('drawn')")
    site = make_site(tmp_path, post(block(code)))
    report, page = run_build(site)
    panel = panels(page)[0]
    assert panel is not None and panel.get("role") == "region"
    assert text(panel, "runnable-caption") == "Output from the build"
    assert text(panel, "runnable-stdout") == "drawn\n"
    images = [img for img in panel.iter("img")]
    assert len(images) == 1
    # A file beside the page, in the copies the site's pictures have (not a data: URL).
    src = images[0].get("src")
    assert src.startswith("/posts/p/output-") and src.endswith(".png")
    picture = Image.open(report.output / src.lstrip("/"))
    assert picture.format == "PNG"
    assert picture.size == (int(images[0].get("width")), int(images[0].get("height")))
    assert images[0].get("alt") == "Rise and fall"
    assert images[0].get("loading") == "lazy"
    assert "Software" not in picture.info  # nothing that changes from one install to another
    [source] = [s for s in panel.iter("source")]
    assert source.get("type") == "image/webp"
    for candidate in source.get("srcset").split(", "):
        url, width = candidate.split()
        with Image.open(report.output / url.lstrip("/")) as copy:
            assert (copy.format, f"{copy.width}w") == ("WEBP", width)


def test_without_a_cache_a_figure_is_the_same_file_as_with_one(tmp_path: Path) -> None:
    code = "import matplotlib.pyplot as plt\nplt.plot([1, 3, 2])"
    site = make_site(tmp_path, post(block(code)))
    build(site / "site.yaml", output=tmp_path / "out", use_cache=False)
    build(site / "site.yaml", output=tmp_path / "cached")
    page = (tmp_path / "out" / "posts" / "p" / "index.html").read_text(encoding="utf-8")
    [image] = [img for img in panels(page)[0].iter("img")]
    src = image.get("src")
    assert not src.startswith("data:")
    with Image.open(tmp_path / "out" / src.lstrip("/")) as picture:
        assert picture.size == (int(image.get("width")), int(image.get("height")))

    def files(folder: Path) -> dict[str, bytes]:
        return {p.relative_to(folder).as_posix(): p.read_bytes()
                for p in folder.rglob("*") if p.is_file()}
    assert files(tmp_path / "out") == files(tmp_path / "cached")  # the cache changes nothing


def test_a_dataframe_is_a_table_and_state_is_shared_but_not_with_isolated_blocks(
    tmp_path: Path,
) -> None:
    body = post(
        block("import pandas as pd\nx = 41\nsecret = 'kept'"),
        block("pd.DataFrame({'a': [1, 2], 'b': [x, x + 1]})"),
        block("print('secret' in globals(), x + 1 if 'x' in globals() else None)\n3 * 3"),
        block("print('isolated sees secret:', 'secret' in globals())",
              'data-execute="build" data-isolated="true"'),
    )
    _, page = run_build(make_site(tmp_path, body))
    first, table, shared, isolated = panels(page)
    assert first is None  # no output, no panel: the browser makes its own
    tables = [t for div in table.iter("div") if div.get("class") == "runnable-html"
              for t in div.iter("table")]
    assert len(tables) == 1
    cells = ["".join(td.itertext()) for td in tables[0].iter("td")]
    assert cells == ["1", "41", "2", "42"]
    assert text(shared, "runnable-stdout") == "True 42\n"
    assert text(shared, "runnable-result") == "Out: 9"
    assert text(isolated, "runnable-stdout") == "isolated sees secret: False\n"


def test_an_exception_fails_the_build_at_its_line(tmp_path: Path) -> None:
    body = post(block("def divide(a, b):\n    return a / b\n\nprint('before')\ndivide(1, 0)"),
                block("print('after')"))
    site = make_site(tmp_path, body)
    messages = failure(site)
    lines = body.splitlines()
    statement = lines.index("    return a / b") + 1  # the deepest line of the block
    assert (f"content/posts/p.md:{statement}: error: the Python block raised "
            "ZeroDivisionError: division by zero (line 2 of the block)") in messages
    follower = lines.index("print('after')") + 1
    assert f"content/posts/p.md:{follower}: warning: this Python block was not run" in messages
    assert not (tmp_path / "out").exists()


def test_a_missing_package_says_where_to_install_it(tmp_path: Path) -> None:
    body = post(block("import surely_not_installed_zq"))
    messages = failure(make_site(tmp_path, body))
    line = body.splitlines().index("import surely_not_installed_zq") + 1
    assert (f"content/posts/p.md:{line}: error: the Python block raised ModuleNotFoundError: "
            "No module named 'surely_not_installed_zq' (line 1 of the block); install the "
            "package in the Python that runs blogbuild") in messages


def test_with_allow_error_the_traceback_is_the_output(tmp_path: Path) -> None:
    body = post(block("print('before')\n1 / 0", 'data-execute="build" data-allow-error="true"'),
                block("print('after')"))
    report, page = run_build(make_site(tmp_path, body))
    failed, after = panels(page)
    assert text(failed, "runnable-stdout") == "before\n"
    traceback = text(failed, "runnable-error")
    assert 'File "block 1", line 2' in traceback
    assert traceback.rstrip().endswith("ZeroDivisionError: division by zero")
    assert text(after, "runnable-stdout") == "after\n"
    assert not [d for d in report.diagnostics if d.is_error]


def test_a_block_that_runs_too_long_is_stopped_and_named(tmp_path: Path) -> None:
    body = post(block("print('start')\nwhile True:\n    pass"))
    site = make_site(tmp_path, body, timeout=1)
    start = time.monotonic()
    messages = failure(site)
    assert time.monotonic() - start < 1 + 8
    first_line = body.splitlines().index("print('start')") + 1
    assert (f"content/posts/p.md:{first_line}: error: the Python block was still running "
            "after 1 s and was stopped") in messages


def test_the_cache_runs_nothing_again_and_a_cold_cache_gives_the_same_bytes(
    tmp_path: Path,
) -> None:
    code = ("import matplotlib.pyplot as plt\nplt.plot([1, 2])\n"
            "print({'pear', 'apple', 'fig', 'kiwi'})")
    body = post(block(code), block("value = 2"), block("value * 21"))
    site = make_site(tmp_path, body)
    report, page = run_build(site)
    name = "content/posts/p.md"
    assert report.executions[name].executed == 3
    assert report.execution_lines()[0].startswith(f"executed 3 blocks in {name} (")

    # Prose edited, code not: the page renders again, nothing runs.
    source = site / "content" / "posts" / "p.md"
    source.write_text(body.replace("Some prose.", "Other prose."), encoding="utf-8")
    report, again = run_build(site)
    assert report.rendered == 1 and report.executions[name].executed == 0
    assert report.execution_lines() == ["reused 3 executed blocks from the cache"]
    assert again == page.replace("Some prose.", "Other prose.")

    # No cache at all: the same bytes (PNG, set order) as the first build.
    shutil.rmtree(site / ".blogbuild-cache")
    source.write_text(body, encoding="utf-8")
    report, cold = run_build(site, tmp_path / "cold")
    assert report.executions[name].executed == 3
    assert cold == page

    # Code edited: the page's blocks run again.
    source.write_text(body.replace("value * 21", "value * 20"), encoding="utf-8")
    report, edited = run_build(site)
    assert report.executions[name].executed == 3
    assert text(panels(edited)[2], "runnable-result") == "Out: 40"


def test_site_setting_runs_every_block_but_those_left_to_the_browser(tmp_path: Path) -> None:
    marker = tmp_path / "ran-in-browser-block"
    body = post(block("print('site-wide')", ""),
                block(f"open({str(marker)!r}, 'w').close()", 'data-execute="browser"'))
    site = make_site(tmp_path, body, more="  execute: build\n")
    _, page = run_build(site)
    ran, left = panels(page)
    assert text(ran, "runnable-stdout") == "site-wide\n"
    assert left is None and not marker.exists()


def test_without_opt_in_nothing_runs(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    site = make_site(tmp_path, post(block(f"open({str(marker)!r}, 'w').close()", "")))
    report, page = run_build(site)
    assert panels(page) == [None] and not marker.exists() and not report.executions
    assert "runnable-output" not in page


def test_blocks_run_in_a_temporary_folder_with_stdin_closed(tmp_path: Path) -> None:
    code = ("import os, sys\nprint(os.listdir('.'))\nprint(sys.stdin.read() == '')\n"
            "open('left-behind.txt', 'w').close()\nos.getcwd()")
    site = make_site(tmp_path, post(block(code)))
    _, page = run_build(site)
    panel = panels(page)[0]
    assert text(panel, "runnable-stdout") == "[]\nTrue\n"
    folder = text(panel, "runnable-result").removeprefix("Out: ").strip("'")
    assert not Path(folder).exists()
    assert not (site / "left-behind.txt").exists()


@pytest.mark.parametrize(("timeout", "more", "message"), [
    (10, "  execute: always\n", "site.yaml:5: 'runnable.execute' must be browser"),
    (0, "", "site.yaml:4: 'runnable.timeout' must be a number of seconds from 1 to 3600"),
])
def test_wrong_settings_name_their_line(tmp_path: Path, timeout: int, more: str,
                                        message: str) -> None:
    site = make_site(tmp_path, post(), timeout=timeout, more=more)
    with pytest.raises(ConfigError) as caught:
        load_config(site / "site.yaml")
    assert message in caught.value.format()


def test_the_panel_escapes_text_and_never_inlines_svg() -> None:
    html = output_panel([
        {"type": "stream", "name": "stdout", "text": "<script>alert(1)</script>"},
        {"type": "result", "text": "'<b>'"},
        {"type": "image", "mime": "image/svg+xml", "data": "<svg onload='x()'/>",
         "width": 10, "height": "10\" onerror=\"x()", "alt": "\"><script>"},
        {"type": "image", "mime": "image/png", "data": "not base64!\" onerror=\"x()"},
        {"type": "image", "mime": "text/html", "data": "PGI+"},
        {"type": "html", "html": "<table><tr><td>1</td></tr></table>"},
    ])
    assert "<script>" not in html and "&lt;script&gt;" in html
    assert "onerror" not in html and "onload" not in html
    svg = base64.b64encode(b"<svg onload='x()'/>").decode()
    assert f'<img src="data:image/svg+xml;base64,{svg}" alt="&quot;&gt;&lt;script&gt;" ' \
           'width="10">' in html
    assert html.count("<img") == 1
    assert '<div class="runnable-html">\n<table><tr><td>1</td></tr></table>\n</div>' in html
    assert output_panel([]) == ""


@pytest.mark.server
def test_serve_runs_blocks_on_save_and_a_runaway_block_does_not_hold_it(
    tmp_path: Path, start: Callable[..., Session], caplog: pytest.LogCaptureFixture,
) -> None:
    body = post(block("print('first version')"))
    site = make_site(tmp_path, body, timeout=1)
    session = start(site)
    url = session.url + "posts/p/"
    assert b"first version" in fetch(url)[2]
    source = site / "content" / "posts" / "p.md"

    before = session.updates
    with caplog.at_level(logging.INFO, logger="blogbuild.serve"):
        source.write_text(body.replace("first version", "second version"), encoding="utf-8")
        wait_for(lambda: session.updates > before and b"second version" in fetch(url)[2],
                 "the rebuild")
    # The save may reach the watcher as two events: the first runs the block, a second
    # one (same bytes) takes it from the cache.
    assert any(r.getMessage().startswith("executed 1 block in content/posts/p.md")
               for r in caplog.records)

    before = session.updates
    started = time.monotonic()
    source.write_text(post(block("while True:\n    pass")), encoding="utf-8")
    wait_for(lambda: session.updates > before, "the rebuild")
    assert time.monotonic() - started < 1 + 8
    update = session.last_update
    assert update is not None
    assert any("still running after 1 s" in d.message for d in update.errors)
    assert b"second version" in fetch(url)[2]  # the last good page stays


def test_the_render_key_of_a_page_that_runs_code_covers_the_python_it_runs_with(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    runs = post(block("print(1)")).encode()
    browser_only = post(block("print(1)", "")).encode()
    plain = post().encode()
    config = Config()
    site_wide = dataclasses.replace(config, runnable=RunnableConfig(execute="build"))
    longer = dataclasses.replace(config, runnable=RunnableConfig(timeout=60))
    before = {data: digest_of(data, config) for data in (runs, browser_only, plain)}
    assert digest_of(runs, longer) != before[runs]
    assert digest_of(browser_only, site_wide) != before[browser_only]
    assert digest_of(plain, site_wide) == before[plain]
    assert digest_of(browser_only, longer) == before[browser_only]
    # Another installed package, or another version of one: the pages that run code only.
    monkeypatch.setattr(fingerprints, "execution_fingerprint", lambda capture: "other")
    assert digest_of(runs, config) != before[runs]
    assert digest_of(plain, config) == before[plain]
    assert digest_of(browser_only, config) == before[browser_only]
