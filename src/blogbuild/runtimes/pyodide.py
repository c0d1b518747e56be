"""The vendored Pyodide runtime (runnable code blocks): its files, version and package index."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from blogbuild.config_checks import packages_url_problem
from blogbuild.diagnostics import BlogbuildError, ConfigError
from blogbuild.urls import has_scheme

if TYPE_CHECKING:
    from blogbuild.config_model import Config

#: The pinned release; scripts/vendor_pyodide.py fetches exactly this one from npm.
PYODIDE_VERSION = "314.0.7"

VENDOR_DIR = Path(__file__).resolve().parent.parent / "vendor" / "pyodide"

#: What a browser fetches to start the interpreter (13.5 MB, 6.3 MB gzipped).
RUNTIME_FILES = (
    "pyodide.mjs",
    "pyodide.asm.mjs",
    "pyodide.asm.wasm",
    "python_stdlib.zip",
    "pyodide-lock.json",
)

#: Copied next to the runtime so the published site keeps the licence and the version.
NOTICE_FILES = ("LICENSE", "VERSION")

#: Where the site's pages find the runtime (the writer copies site_files() there).
SITE_FOLDER = "/vendor/pyodide/"


def default_packages_url(version: str = PYODIDE_VERSION) -> str:
    """Pyodide's public package index (jsDelivr) for `version`: numpy & co. as wheels."""
    return f"https://cdn.jsdelivr.net/pyodide/v{version}/full/"


def vendored_version() -> str:
    """The version recorded in vendor/pyodide/VERSION ("" when the runtime is not vendored)."""
    try:
        return (VENDOR_DIR / "VERSION").read_text(encoding="utf-8").strip()
    except OSError:
        return ""


def site_files() -> list[tuple[Path, str]]:
    """(source file, path under the site's vendor/pyodide/) for every file the site serves."""
    files = [(VENDOR_DIR / name, name) for name in (*RUNTIME_FILES, *NOTICE_FILES)]
    missing = [rel for src, rel in files if not src.is_file()]
    if missing:
        raise BlogbuildError(
            f"the vendored Pyodide runtime is incomplete (missing {', '.join(missing)} in "
            f"{VENDOR_DIR}); run `python3 scripts/vendor_pyodide.py` in a blogbuild checkout"
        )
    return files


def packages_url(config: Config) -> str:
    """The folder readers' browsers load Pyodide packages from (always ends with '/').

    `runnable.packages_url` in site.yaml: an http(s) URL, or a site path such as
    /wheels/ (the sub-path rule applies); unset means Pyodide's public index for the
    vendored version. The config check has refused any other value.
    """
    configured = (config.runnable.packages_url or "").strip()
    if not configured:
        return default_packages_url()
    problem = packages_url_problem(configured)
    if problem is not None:
        raise ConfigError(f"'runnable.packages_url' {problem}",
                          file=str(config.root / "site.yaml"))
    url = configured if has_scheme(configured) else config.urls.url(configured)
    return url if url.endswith("/") else url + "/"
