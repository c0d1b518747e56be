"""Runnable blocks in real headless Chromium: a built site served on 127.0.0.1, every other
host blocked. One page per site is shared by the tests of this module, because starting
Pyodide takes seconds; each test runs the blocks it needs itself."""

from __future__ import annotations

import contextlib
import re
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from blogbuild.commands.build import build
from blogbuild.runtimes import pyodide
from conftest import serve_directory

# One xdist worker runs the whole module, so the two Pyodide pages start once each.
pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("runnable-browser")]

RUNTIME_TIMEOUT_MS = 90_000  # first Run: fetch and start 13.5 MB of WebAssembly

BLOCKS = {
    "hello": """\
import sys
# block: hello
print("hello from", sys.implementation.name)
print("sum:", sum(range(10)))
print("careful", file=sys.stderr)
""",
    "expression": """\
# block: expression
values = {"a": 1, "b": [2, 3]}
values
""",
    "define": """\
# block: define
shared_value = 6 * 7
def double(x):
    return 2 * x
""",
    "use": """\
# block: use
print("shared:", shared_value, double(shared_value))
""",
    "boom": """\
# block: boom
def divide(a, b):
    return a / b

print("before the error")
divide(1, 0)
""",
    "loop": """\
# block: loop
while True: pass
""",
    "asleep": """\
import asyncio
# block: asleep
state = "before the await"
await asyncio.sleep(60)
state = "after the await"
""",
    "woke": """\
# block: woke
print("state:", state)
""",
    "numpy": """\
# block: numpy
import numpy as np
print(np.arange(3))
""",
    "table": """\
# block: table
class Table:
    def _repr_html_(self):
        return ("<table><thead><tr><th>x</th><th>y</th></tr></thead>"
                "<tbody><tr><td>1</td><td>a &amp; b</td></tr></tbody></table>")
    def __repr__(self):
        return "Table()"

print("a table:")
Table()
""",
    "png": """\
# block: png
import struct, zlib

def chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

class Dots:
    def _repr_png_(self):
        rows = b"".join(b"\\x00" + b"\\xff\\x00\\x00" * 3 for _ in range(2))
        header = struct.pack(">IIBBBBB", 3, 2, 8, 2, 0, 0, 0)
        return (b"\\x89PNG\\r\\n\\x1a\\n" + chunk(b"IHDR", header)
                + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))

print("dots:")
Dots()
""",
}

ISOLATED = """\
# block: isolated
print("sees shared:", "shared_value" in globals(), "sees own:", "own" in globals())
own = 1
"""

#: Runs when the site is built (CPython) and again when the reader presses Run (Pyodide).
BUILT = """\
# block: built
import sys
print("ran on", sys.platform)
"""


def _post() -> str:
    parts = ["---", "title: Runnable blocks under test", "date: 2024-01-01", "---", ""]
    for code in BLOCKS.values():
        parts += ['<div class="runnable" data-lang="python" markdown="1">', "", "```python",
                  code.rstrip("\n"), "```", "", "</div>", ""]
    parts += ['<div class="runnable" data-lang="python" data-isolated="true" markdown="1">', "",
              "```python", ISOLATED.rstrip("\n"), "```", "", "</div>", ""]
    parts += ['<div class="runnable" data-lang="python" data-execute="build">', "",
              "```python", BUILT.rstrip("\n"), "```", "", "</div>", ""]
    return "\n".join(parts)


def _build_site(root: Path, base_url: str, extra_config: str = "") -> Path:
    site = root / "site"
    (site / "content" / "posts").mkdir(parents=True)
    (site / "site.yaml").write_text(
        f'title: "Runnable"\nbase_url: "{base_url}"\n{extra_config}', encoding="utf-8"
    )
    (site / "content" / "posts" / "blocks.md").write_text(_post(), encoding="utf-8")
    out = root / "_site"
    build(site / "site.yaml", output=out)
    return out


@dataclass
class Session:
    page: Any
    base: str
    site: Path
    requests: list[str] = field(default_factory=list)
    external: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    before_run: list[str] = field(default_factory=list)

    def block(self, name: str) -> Any:
        return self.page.locator(".runnable", has_text=f"# block: {name}")

    def run(self, name: str, timeout: float = RUNTIME_TIMEOUT_MS) -> tuple[str, str]:
        """Click Run on a block and wait until it is no longer busy: (status, output)."""
        block = self.block(name)
        block.locator(".runnable-run").click()
        return self.wait(name, timeout)

    def stop_while_running(self, name: str) -> tuple[str, str]:
        """Run a block, press Stop once its code runs, and wait until it is no longer busy:
        (status, output)."""
        block = self.block(name)
        block.locator(".runnable-run").click()
        block.locator(".runnable-status").filter(has_text="Running").wait_for(
            timeout=RUNTIME_TIMEOUT_MS
        )
        self.page.wait_for_timeout(300)
        block.locator(".runnable-stop").click()
        return self.wait(name, 10_000)

    def wait(self, name: str, timeout: float) -> tuple[str, str]:
        block = self.block(name)
        block.and_(self.page.locator(".runnable:not(.runnable-busy)")).wait_for(timeout=timeout)
        status = block.locator(".runnable-status").inner_text()
        output = block.locator(".runnable-output")
        return status, output.text_content() or ""


@contextlib.contextmanager
def _session(browser: Any, site: Path, prefix: str, isolate: bool) -> Iterator[Session]:
    with serve_directory(site, prefix, isolate=isolate) as base:
        context = browser.new_context()
        page = context.new_page()
        session = Session(page, base, site)

        def route(route: Any) -> None:
            url = route.request.url
            if (urlsplit(url).hostname or "") == "127.0.0.1" or url.startswith(("data:", "blob:")):
                session.requests.append(url)
                route.continue_()
            else:
                session.external.append(url)
                route.abort()

        context.route("**/*", route)  # also sees the worker's requests
        page.on("console", lambda m: session.errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda exc: session.errors.append(str(exc)))
        page.goto(base + "posts/blocks/")
        page.wait_for_selector(".runnable-toolbar")
        page.wait_for_load_state("networkidle")
        session.before_run = list(session.requests)
        try:
            yield session
        finally:
            context.close()


@pytest.fixture(scope="module")
def root_session(browser: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Session]:
    """The site at the root of its host, without isolation headers (like GitHub Pages)."""
    out = _build_site(tmp_path_factory.mktemp("runnable-root"), "http://127.0.0.1/")
    with _session(browser, out, "/", isolate=False) as session:
        yield session


@pytest.fixture(scope="module")
def sub_session(browser: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Session]:
    """A project site under /blog/, served with COOP/COEP, with its own package folder."""
    out = _build_site(
        tmp_path_factory.mktemp("runnable-sub"),
        "http://127.0.0.1/blog/",
        "runnable:\n  packages_url: /wheels/\n",
    )
    with _session(browser, out, "/blog/", isolate=True) as session:
        yield session


# --- at the root, no isolation headers -------------------------------------------------------


def test_widgets_are_built_and_no_runtime_is_fetched_before_run(root_session: Session) -> None:
    page = root_session.page
    count = len(BLOCKS) + 2
    assert page.locator(".runnable.runnable-ready").count() == count
    assert page.locator(".runnable-toolbar").count() == count
    assert page.locator(".runnable-output:visible").count() == 1  # the build's output
    assert page.locator(".runnable-editor:visible").count() == 0
    assert page.locator(".runnable .codeblock:visible").count() == count
    fetched = [u for u in root_session.before_run if "pyodide" in u or "runnable-worker" in u]
    assert fetched == []
    assert any(u.endswith("/js/runnable.js") for u in root_session.before_run)
    assert root_session.external == []
    assert page.evaluate("crossOriginIsolated") is False


def test_stdlib_block_prints_its_output(root_session: Session) -> None:
    status, _ = root_session.run("hello")
    assert re.fullmatch(r"Done in \d+ ms", status), status
    block = root_session.block("hello")
    assert block.locator(".runnable-stdout").text_content() == (
        "hello from cpython\nsum: 45\n"
    )
    assert block.locator(".runnable-stderr").text_content() == "careful\n"
    runtime = [u for u in root_session.requests if "/vendor/pyodide/" in u]
    assert any(u.endswith("/vendor/pyodide/pyodide.asm.wasm") for u in runtime)
    assert all(u.startswith(root_session.base + "vendor/pyodide/") for u in runtime)
    assert root_session.external == []


def test_final_expression_shows_its_repr(root_session: Session) -> None:
    status, _ = root_session.run("expression")
    assert status.startswith("Done in")
    result = root_session.block("expression").locator(".runnable-result")
    assert result.text_content() == "Out: {'a': 1, 'b': [2, 3]}"


def test_exception_shows_its_traceback(root_session: Session) -> None:
    status, _ = root_session.run("boom")
    assert status.startswith("ZeroDivisionError after")
    block = root_session.block("boom")
    assert block.locator(".runnable-stdout").text_content() == "before the error\n"
    error = block.locator(".runnable-error").text_content() or ""
    assert error.startswith("Traceback (most recent call last):\n")
    assert 'File "block 5", line 6, in <module>' in error
    assert 'File "block 5", line 3, in divide' in error
    assert "return a / b" in error  # the source line is shown
    assert error.rstrip().endswith("ZeroDivisionError: division by zero")
    assert "_pyodide" not in error and "CodeRunner" not in error  # no driver frames


def test_a_final_value_with_repr_html_is_shown_as_html(root_session: Session) -> None:
    status, _ = root_session.run("table")
    assert status.startswith("Done in")
    output = root_session.block("table").locator(".runnable-output")
    children = output.evaluate("o => [...o.children].map(c => c.tagName + '.' + c.className)")
    assert children == ["PRE.runnable-stdout", "DIV.runnable-html"]
    assert output.locator(".runnable-stdout").text_content() == "a table:\n"
    cells = output.locator(".runnable-html table td").all_text_contents()
    assert cells == ["1", "a & b"]
    assert output.locator(".runnable-result").count() == 0  # HTML instead of the repr


def test_a_final_value_with_repr_png_is_shown_as_an_image(root_session: Session) -> None:
    status, _ = root_session.run("png")
    assert status.startswith("Done in")
    output = root_session.block("png").locator(".runnable-output")
    assert output.locator(".runnable-stdout").text_content() == "dots:\n"
    img = output.locator("figure.runnable-figure > img")
    assert img.get_attribute("alt") == "Image"
    assert (img.get_attribute("width"), img.get_attribute("height")) == ("3", "2")
    assert (img.get_attribute("src") or "").startswith("data:image/png;base64,iVBORw0KGgo")
    img.evaluate("i => i.decode()")  # a PNG the browser can read
    assert img.evaluate("i => [i.naturalWidth, i.naturalHeight]") == [3, 2]
    assert output.locator(".runnable-result").count() == 0


def test_the_build_output_shows_until_run_and_reset_brings_it_back(
    root_session: Session,
) -> None:
    block = root_session.block("built")
    output = block.locator(".runnable-output")
    assert output.is_visible()
    assert output.get_attribute("id") == f"runnable-{len(BLOCKS) + 2}-output"
    assert block.locator(".runnable-caption").inner_text() == "Output from the build"
    assert block.locator(".runnable-stdout").text_content() == "ran on linux\n"
    assert block.locator(".runnable-reset").is_disabled()
    assert block.evaluate("b => b.querySelector('.runnable-toolbar').nextElementSibling"
                          " === b.querySelector('.runnable-output')")
    status, text = root_session.run("built")
    assert status.startswith("Done in")
    assert text == "ran on emscripten\n"  # the fresh output replaced the build's
    assert block.locator(".runnable-output").count() == 1
    block.locator(".runnable-reset").click()
    assert block.locator(".runnable-caption").is_visible()
    assert block.locator(".runnable-stdout").text_content() == "ran on linux\n"
    assert block.locator(".runnable-reset").is_disabled()


def test_state_carries_from_one_block_to_the_next(root_session: Session) -> None:
    assert root_session.run("define")[0].startswith("Done in")
    status, output = root_session.run("use")
    assert status.startswith("Done in")
    assert output == "shared: 42 84\n"


def test_isolated_block_has_a_namespace_of_its_own(root_session: Session) -> None:
    root_session.run("define")
    for _ in range(2):  # its own variables are gone on the next run too
        status, output = root_session.run("isolated")
        assert status.startswith("Done in")
        assert output == "sees shared: False sees own: False\n"
    badge = root_session.block("isolated").locator(".runnable-badge")
    assert badge.inner_text() == "isolated"


def test_edit_run_and_reset(root_session: Session) -> None:
    page = root_session.page
    block = root_session.block("expression")
    block.locator(".runnable-edit").click()
    editor = block.locator(".runnable-editor")
    assert editor.is_visible()
    assert not block.locator(".codeblock").is_visible()
    assert editor.input_value() == BLOCKS["expression"].rstrip("\n")
    assert editor.evaluate("e => e === document.activeElement")
    editor.fill("def f():\nreturn 'edited'")
    # Tab indents the second line by four spaces instead of leaving the editor.
    editor.evaluate("e => e.setSelectionRange(9, 9)")
    page.keyboard.press("Tab")
    assert editor.input_value() == "def f():\n    return 'edited'"
    editor.evaluate("e => e.setSelectionRange(e.value.length, e.value.length)")
    page.keyboard.type("\nf()")
    page.keyboard.press("Control+Enter")  # runs the edited code
    status, _ = root_session.wait("expression", RUNTIME_TIMEOUT_MS)
    assert status.startswith("Done in")
    result = block.locator(".runnable-result")
    assert result.text_content() == "Out: 'edited'"
    block.locator(".runnable-reset").click()
    assert not editor.is_visible()
    assert block.locator(".codeblock").is_visible()
    assert not block.locator(".runnable-output").is_visible()
    assert editor.input_value() == BLOCKS["expression"].rstrip("\n")


def test_syntax_error_and_input_explain_themselves(root_session: Session) -> None:
    block = root_session.block("define")
    block.locator(".runnable-edit").click()
    editor = block.locator(".runnable-editor")
    editor.fill("# block: define\ndef f(:\n    pass")
    status, output = root_session.run("define")
    assert status.startswith("SyntaxError after")
    assert output.startswith('  File "block 3", line 2\n    def f(:\n')
    assert output.rstrip().endswith("SyntaxError: invalid syntax")
    assert "Traceback" not in output and "_pyodide" not in output
    editor.fill("# block: define\nname = input('name? ')")
    status, output = root_session.run("define")
    assert status.startswith("RuntimeError after")
    assert "input() cannot read from the keyboard" in output
    block.locator(".runnable-reset").click()
    assert editor.input_value() == BLOCKS["define"].rstrip("\n")


def test_stop_ends_a_runaway_loop_and_the_next_run_works(root_session: Session) -> None:
    root_session.run("hello")  # the runtime is up, so Stop meets running code
    # Without cross-origin isolation there is no interrupt: Stop ends the worker at once.
    # What it says tells that apart from a grace period's end, not a wall clock (a busy
    # machine may keep the page from answering for a while).
    stop_status, output = root_session.stop_while_running("loop")
    assert stop_status.startswith("Stopped after")
    assert "Python runtime was restarted" in output
    # The next Run starts a fresh interpreter and works.
    status_text, hello = root_session.run("hello")
    assert status_text.startswith("Done in")
    assert hello.startswith("hello from cpython\n")


def test_numpy_with_the_index_unreachable_says_so(root_session: Session) -> None:
    start = time.monotonic()
    status, output = root_session.run("numpy", timeout=60_000)
    assert time.monotonic() - start < 60
    assert status == "Packages could not be loaded"
    url = pyodide.default_packages_url()
    assert f"numpy could not be loaded from {url}\n" in output
    assert "The code was not run." in output
    assert "ImportError" not in output and "ModuleNotFoundError" not in output
    assert any(u.startswith(url + "numpy-") for u in root_session.external)
    # Blocked requests are the only external ones: the runtime itself came from the site.
    assert all(u.startswith(url) for u in root_session.external)


def test_no_console_errors_besides_blocked_requests(root_session: Session) -> None:
    unexpected = [e for e in root_session.errors if "ERR_FAILED" not in e and "jsdelivr" not in e]
    assert unexpected == []


def test_without_javascript_the_code_is_shown(browser: Any, root_session: Session) -> None:
    context = browser.new_context(java_script_enabled=False)
    try:
        page = context.new_page()
        page.goto(root_session.base + "posts/blocks/")
        code = page.locator(".runnable pre code").first
        assert code.is_visible()
        assert "hello from" in (code.text_content() or "")
        assert page.locator(".runnable-toolbar").count() == 0
        built = page.locator(".runnable", has_text="# block: built")
        assert built.locator(".runnable-output").is_visible()
        assert built.locator(".runnable-stdout").text_content() == "ran on linux\n"
    finally:
        context.close()


@contextlib.contextmanager
def _fresh_page(browser: Any, url: str, block: str) -> Iterator[Any]:
    """A page of its own whose requests outside 127.0.0.1 and for `block` are aborted."""
    context = browser.new_context()

    def route(route: Any) -> None:
        url = route.request.url
        if (urlsplit(url).hostname or "") != "127.0.0.1" or (block and block in url):
            route.abort()
        else:
            route.continue_()

    context.route("**/*", route)
    try:
        page = context.new_page()
        page.goto(url)
        page.wait_for_selector(".runnable-toolbar")
        yield page
    finally:
        context.close()


def test_a_runtime_that_cannot_load_is_reported(browser: Any, root_session: Session) -> None:
    url = root_session.base + "posts/blocks/"
    with _fresh_page(browser, url, "pyodide.asm.wasm") as page:
        block = page.locator(".runnable", has_text="# block: hello")
        block.locator(".runnable-run").click()
        block.and_(page.locator(".runnable:not(.runnable-busy)")).wait_for(timeout=30_000)
        assert block.locator(".runnable-status").inner_text() == (
            "The Python runtime could not be loaded"
        )
        output = block.locator(".runnable-error").text_content() or ""
        assert output.startswith(
            f"The Python runtime could not be loaded from {root_session.base}vendor/pyodide/"
        )


def test_a_server_sending_wasm_with_the_wrong_type_is_named(
    browser: Any, root_session: Session
) -> None:
    wrong = "application/octet-stream"
    with serve_directory(root_session.site, "/", wasm_type=wrong) as base, \
            _fresh_page(browser, base + "posts/blocks/", "") as page:
        block = page.locator(".runnable", has_text="# block: hello")
        block.locator(".runnable-run").click()
        block.and_(page.locator(".runnable:not(.runnable-busy)")).wait_for(timeout=30_000)
        output = block.locator(".runnable-error").text_content() or ""
        assert f"could not be loaded from {base}vendor/pyodide/" in output
        assert "Expected 'application/wasm'" in output


def test_stop_while_the_runtime_loads(browser: Any, root_session: Session) -> None:
    url = root_session.base + "posts/blocks/"
    with _fresh_page(browser, url, "") as page:
        block = page.locator(".runnable", has_text="# block: hello")
        block.locator(".runnable-run").click()
        assert "Loading the Python runtime" in block.locator(".runnable-status").inner_text()
        block.locator(".runnable-stop").click()
        block.and_(page.locator(".runnable:not(.runnable-busy)")).wait_for(timeout=2000)
        assert block.locator(".runnable-status").inner_text().startswith("Stopped")
        note = block.locator(".runnable-note").text_content() or ""
        assert note.startswith("Stopped while loading")
        assert page.evaluate("document.querySelectorAll('.runnable-busy').length") == 0


# --- under /blog/, cross-origin isolated, a local package folder ----------------------------


def test_subpath_runs_with_the_runtime_under_the_prefix(sub_session: Session) -> None:
    assert sub_session.page.evaluate("crossOriginIsolated") is True
    assert [u for u in sub_session.before_run if "pyodide" in u] == []
    status, output = sub_session.run("hello")
    assert status.startswith("Done in")
    assert output.startswith("hello from cpython\nsum: 45\n")
    runtime = [u for u in sub_session.requests if "pyodide" in u]
    assert runtime and all(u.startswith(sub_session.base + "vendor/pyodide/") for u in runtime)
    assert sub_session.external == []


def test_subpath_stop_interrupts_and_keeps_state(sub_session: Session) -> None:
    # The interrupt is answered, not the worker ended (that comes after a grace of 3 s and
    # says "it did not answer the interrupt"). Pyodide empties its interrupt buffer with a
    # read and a separate write, so one Stop written between the two was lost now and then
    # on a loaded machine; Stop now writes it again until the block ends.
    for _ in range(3):
        assert sub_session.run("define")[0].startswith("Done in")
        status, output = sub_session.stop_while_running("loop")
        assert status.startswith("Stopped after")
        assert "did not answer the interrupt" not in output
        assert "Variables defined before the stop are kept." in output
        # The traceback ends in the block, not in the worker's interrupt handler.
        assert output.startswith("Traceback (most recent call last):\n")
        assert "KeyboardInterrupt" in output
        frames = re.findall(r'File "([^"]+)"', output)
        assert frames and set(frames) == {frames[0]} and frames[0].startswith("block ")
        # Same interpreter: what "define" made is still there.
        status, output = sub_session.run("use")
        assert status.startswith("Done in")
        assert output == "shared: 42 84\n"


def test_subpath_stop_ends_a_block_waiting_at_an_await(sub_session: Session) -> None:
    # While the block awaits, no Python runs to read the interrupt buffer: Stop's message
    # to the worker cancels the await, reported as the interrupt it stands for.
    status, output = sub_session.stop_while_running("asleep")
    assert status.startswith("Stopped after")
    assert "did not answer the interrupt" not in output
    assert "KeyboardInterrupt" in output
    assert "await asyncio.sleep(60)" in output
    assert "Variables defined before the stop are kept." in output
    status, output = sub_session.run("woke")
    assert status.startswith("Done in")
    assert output == "state: before the await\n"


def test_subpath_missing_package_in_the_site_folder(sub_session: Session) -> None:
    status, output = sub_session.run("numpy", timeout=60_000)
    assert status == "Packages could not be loaded"
    folder = sub_session.base + "wheels/"
    assert f"numpy could not be loaded from {folder}\n" in output
    assert "This site's package folder may not hold it." in output
    assert sub_session.external == []
