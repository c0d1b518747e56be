"""Runnable blocks without a browser: the markup runnable.js reads, the vendored Pyodide
runtime, the package index URL, the template partial and what the build copies."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import ModuleType
from typing import Any

import html5lib
import pytest
from markdown_it.utils import read_fixture_file

from blogbuild.commands.build import build
from blogbuild.config import Config, RunnableConfig, load_config
from blogbuild.diagnostics import ConfigError
from blogbuild.markdown import create_markdown
from blogbuild.output.templating import create_environment
from blogbuild.output.writer import bundle_files
from blogbuild.runtimes import pyodide
from blogbuild.runtimes.capture import capture_source
from css_helpers import page_stylesheet, parts

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).parent / "fixtures" / "runnable.md"


def contract(html: str, env: dict[str, Any]) -> str:
    """What runnable.js relies on, one line per fact: each runnable div (in order), its
    language and isolation, how many code blocks it holds and the code's text as the
    widget reads it (textContent of the first `pre code`, without the final newline)."""
    doc = html5lib.parse(html, treebuilder="etree", namespaceHTMLElements=False)
    lines = []
    for div in doc.iter("div"):
        if "runnable" not in (div.get("class") or "").split():
            continue
        codes = [code for pre in div.iter("pre") for code in pre.iter("code")]
        isolated = "true" if div.get("data-isolated") == "true" else "false"
        lines.append(
            f"runnable lang={div.get('data-lang')} isolated={isolated} codeblocks={len(codes)}"
        )
        text = "".join(codes[0].itertext()) if codes else ""
        text = text.removesuffix("\n")
        lines.extend("| " + line for line in text.split("\n"))
    needs = "yes" if "runnable" in env.get("needs", set()) else "no"
    lines.append(f"needs runnable: {needs}")
    return "\n".join(line.rstrip() for line in lines)


@pytest.mark.parametrize(
    ("line", "title", "source", "expected"),
    read_fixture_file(FIXTURES),
    ids=[f"{case[0]}-{case[1]}" for case in read_fixture_file(FIXTURES)],
)
def test_markup_contract(line: int, title: str, source: str, expected: str) -> None:
    env: dict[str, Any] = {}
    html = create_markdown().render(source, env)
    expected_lines = "\n".join(row.rstrip() for row in expected.rstrip("\n").split("\n"))
    assert contract(html, env) == expected_lines, html


def test_code_is_the_highlighted_block_inside_the_div() -> None:
    """The widget hides `.codeblock` while editing and reads `pre.highlight code`."""
    html = create_markdown().render(
        '<div class="runnable" data-lang="python" markdown="1">\n\n```python\nx = 1\n```\n\n'
        "</div>\n"
    )
    doc = html5lib.parse(html, treebuilder="etree", namespaceHTMLElements=False)
    div = next(d for d in doc.iter("div") if d.get("class") == "runnable")
    children = list(div)
    assert [c.get("class") for c in children] == ["codeblock"]
    pre = children[0].find("pre")
    assert pre is not None and pre.get("class") == "highlight"
    code = pre.find("code")
    assert code is not None and code.get("class") == "language-python"


# --- the vendored runtime -------------------------------------------------------------


def test_vendored_files_present_and_version_pinned() -> None:
    vendor = pyodide.VENDOR_DIR
    for name in (*pyodide.RUNTIME_FILES, *pyodide.NOTICE_FILES):
        assert (vendor / name).is_file(), name
    assert pyodide.vendored_version() == pyodide.PYODIDE_VERSION
    # The loader knows its own version: a stale pyodide.mjs next to a new VERSION is caught.
    loader = (vendor / "pyodide.mjs").read_text(encoding="utf-8")
    assert f'"{pyodide.PYODIDE_VERSION}"' in loader
    assert (vendor / "pyodide.asm.wasm").read_bytes()[:4] == b"\0asm"
    lock = json.loads((vendor / "pyodide-lock.json").read_text(encoding="utf-8"))
    assert "numpy" in lock["packages"]  # the example post imports it
    assert lock["info"]["python"].startswith("3.")
    licence = (vendor / "LICENSE").read_text(encoding="utf-8")
    assert "Mozilla Public License Version 2.0" in licence
    assert pyodide.PYODIDE_VERSION in licence
    size = sum((vendor / name).stat().st_size for name in pyodide.RUNTIME_FILES)
    assert 10e6 < size < 20e6  # 13.5 MB for 314.0.7; a gross change means a wrong package


def test_site_files_lists_runtime_and_notices() -> None:
    files = pyodide.site_files()
    assert sorted(rel for _, rel in files) == sorted(
        [*pyodide.RUNTIME_FILES, *pyodide.NOTICE_FILES]
    )
    for source, rel in files:
        assert source.is_file()
        assert source.name == rel
    # The writer puts them under vendor/pyodide/, where the template points the script.
    assert sorted(rel for _, rel in bundle_files("runnable")) == sorted(
        f"vendor/pyodide/{name}" for name in (*pyodide.RUNTIME_FILES, *pyodide.NOTICE_FILES)
    )


def test_site_files_names_the_fix_when_the_runtime_is_missing(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(pyodide, "VENDOR_DIR", tmp_path)
    with pytest.raises(Exception, match=r"scripts/vendor_pyodide\.py"):
        pyodide.site_files()


def _vendor_script() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "vendor_pyodide", ROOT / "scripts" / "vendor_pyodide.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_vendor_script_writes_a_licence_when_the_package_has_none(tmp_path: Path) -> None:
    script = _vendor_script()
    package = tmp_path / "package"
    package.mkdir()
    (package / "package.json").write_text(
        json.dumps({"name": "pyodide", "version": "9.9.9", "license": "MPL-2.0"})
    )
    mpl = tmp_path / "MPL-2.0"
    mpl.write_text("Mozilla Public License Version 2.0\n(full text)\n")
    text = script.licence_text(package, mpl)
    assert text.startswith("Pyodide 9.9.9")
    assert text.endswith("Mozilla Public License Version 2.0\n(full text)\n")
    # A package that ships its own licence keeps it verbatim.
    (package / "LICENSE").write_text("the package's own licence\n")
    assert script.licence_text(package, mpl) == "the package's own licence\n"
    assert script.PYODIDE_SHA1 and len(script.PYODIDE_SHA1) == 40


# --- the package index ------------------------------------------------------------------


def _config(packages_url: str | None, base_url: str = "https://example.org/") -> Config:
    return Config(base_url=base_url, runnable=RunnableConfig(packages_url=packages_url))


def test_default_packages_url_is_the_public_index_of_the_vendored_version() -> None:
    url = pyodide.packages_url(_config(None))
    assert url == f"https://cdn.jsdelivr.net/pyodide/v{pyodide.PYODIDE_VERSION}/full/"
    assert pyodide.packages_url(_config("")) == url


@pytest.mark.parametrize(
    ("configured", "base_url", "expected"),
    [
        ("https://mirror.example.org/pyodide", "https://example.org/",
         "https://mirror.example.org/pyodide/"),
        ("https://mirror.example.org/pyodide/", "https://example.org/",
         "https://mirror.example.org/pyodide/"),
        ("/wheels/", "https://example.org/", "/wheels/"),
        ("/wheels", "https://me.github.io/blog/", "/blog/wheels/"),
        ("/blog/wheels/", "https://me.github.io/blog/", "/blog/wheels/"),
        ("http://localhost:9000/full/", "https://example.org/", "http://localhost:9000/full/"),
    ],
)
def test_configured_packages_url(configured: str, base_url: str, expected: str) -> None:
    assert pyodide.packages_url(_config(configured, base_url)) == expected


@pytest.mark.parametrize(
    "configured", ["wheels/", "ftp://example.org/wheels/", "javascript:alert(1)", "//cdn/x/"]
)
def test_bad_packages_url_is_a_config_error(configured: str) -> None:
    with pytest.raises(ConfigError, match=r"runnable\.packages_url"):
        pyodide.packages_url(_config(configured))


def test_site_yaml_runnable_packages_url(tmp_path: Path) -> None:
    (tmp_path / "site.yaml").write_text(
        "base_url: https://me.github.io/blog/\nrunnable:\n  packages_url: /wheels/\n"
    )
    config = load_config(tmp_path / "site.yaml")
    assert pyodide.packages_url(config) == "/blog/wheels/"
    (tmp_path / "site.yaml").write_text("runnable:\n  package_url: /wheels/\n")
    with pytest.raises(ConfigError, match=r"runnable\.packages_url"):
        load_config(tmp_path / "site.yaml")


# --- the template partial and the build --------------------------------------------------


def _partial(config: Config, placement: str) -> Any:
    env = create_environment(config)
    html = env.get_template("needs/runnable.html").render(placement=placement)
    return html5lib.parse(html, treebuilder="etree", namespaceHTMLElements=False)


def test_partial_tells_the_script_where_runtime_and_packages_are() -> None:
    config = _config("/wheels/", "https://me.github.io/blog/")
    assert list(_partial(config, "head").iter("link")) == []  # CSS: in the page stylesheet
    scripts = list(_partial(config, "body").iter("script"))
    assert len(scripts) == 1
    script = scripts[0]
    # A data block: js/widgets.js imports the script when a runnable block comes near.
    assert script.get("type") == "text/plain" and script.get("src") is None
    assert script.get("data-widget-script") == "/blog/js/runnable.js"
    assert script.get("data-near") == ".runnable"
    assert script.get("data-pyodide-url") == "/blog/vendor/pyodide/"
    assert script.get("data-packages-url") == "/blog/wheels/"
    default = next(_partial(_config(None), "body").iter("script"))
    assert default.get("data-pyodide-url") == "/vendor/pyodide/"
    assert default.get("data-packages-url") == pyodide.default_packages_url()


POST = """\
---
title: {title}
date: 2024-01-0{day}
---

{body}
"""

RUNNABLE_BODY = """\
<div class="runnable" data-lang="python" markdown="1">

```python
import pathlib
pathlib.Path(r"{marker}").write_text("the build ran me")
```

</div>
"""


def _site(tmp_path: Path, posts: dict[str, str]) -> Path:
    site = tmp_path / "site"
    (site / "content" / "posts").mkdir(parents=True)
    (site / "site.yaml").write_text('title: "Runnable test"\nbase_url: "http://127.0.0.1/"\n')
    for day, (slug, body) in enumerate(sorted(posts.items()), start=1):
        (site / "content" / "posts" / f"{slug}.md").write_text(
            POST.format(title=slug, day=day, body=body)
        )
    return site


def _build(site: Path, out: Path) -> Path:
    build(site / "site.yaml", output=out)
    return out


def test_build_copies_the_runtime_only_when_a_page_needs_it(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    site = _site(tmp_path, {"runs": RUNNABLE_BODY.format(marker=marker), "plain": "Just text."})
    out = _build(site, tmp_path / "out")
    for name in (*pyodide.RUNTIME_FILES, *pyodide.NOTICE_FILES):
        built = out / "vendor" / "pyodide" / name
        assert built.read_bytes() == (pyodide.VENDOR_DIR / name).read_bytes()
    assert (out / "js" / "runnable.js").is_file()
    assert (out / "js" / "runnable-worker.js").is_file()
    # The worker fetches the capture module from beside itself.
    assert (out / "js" / "runnable_capture.py").read_bytes() == capture_source().read_bytes()
    assert not (out / "js" / "__pycache__").exists()
    assert (out / "css" / "runnable.css").is_file()
    assert not marker.exists(), "the build must never execute runnable code"
    page = (out / "posts" / "runs" / "index.html").read_text(encoding="utf-8")
    assert 'data-pyodide-url="/vendor/pyodide/"' in page
    assert "css/runnable.css" in parts(page_stylesheet(out, "posts/runs/index.html"))
    plain = (out / "posts" / "plain" / "index.html").read_text(encoding="utf-8")
    assert "runnable" not in plain
    assert "css/runnable.css" not in parts(page_stylesheet(out, "posts/plain/index.html"))

    site2 = _site(tmp_path / "b", {"plain": "No code to run here."})
    out2 = _build(site2, tmp_path / "out2")
    assert not (out2 / "vendor" / "pyodide").exists()


def test_example_post_has_every_kind_of_block() -> None:
    text = (ROOT / "content" / "posts" / "runnable.md").read_text(encoding="utf-8")
    env: dict[str, Any] = {}
    html = create_markdown().render(text.split("---", 2)[2], env)
    summary = contract(html, env)
    assert summary.count("runnable lang=python") >= 6
    assert "isolated=true" in summary
    assert "| import numpy as np" in summary
    assert "needs runnable: yes" in summary
