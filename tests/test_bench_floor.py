"""The floor of a rebuild (bench/floor.py): which modules a process imported, read from
what `python -X importtime` printed, and which of them are libraries."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

BENCH = Path(__file__).resolve().parent.parent / "bench"


@pytest.fixture(scope="module")
def floor() -> ModuleType:
    sys.path.insert(0, str(BENCH))  # its modules import each other by name, as scripts do
    try:
        import floor as module
    finally:
        sys.path.remove(str(BENCH))
    return module


def importtime(code: str) -> str:
    return subprocess.run([sys.executable, "-X", "importtime", "-c", code],
                          capture_output=True, text=True, check=True).stderr


def test_imported_names_what_a_process_imported(floor: ModuleType) -> None:
    names = floor.imported(importtime("import json, yaml, blogbuild.urls"))
    assert {"json", "json.decoder", "yaml", "yaml.reader", "blogbuild", "blogbuild.urls"} \
        <= set(names)
    assert len(names) == len(set(names))
    assert names.index("json.decoder") < names.index("json")  # a module after its imports


def test_imported_leaves_out_modules_only_looked_for(floor: ModuleType) -> None:
    # `copy` looks for Jython's module and goes on without it; -X importtime names it
    printed = importtime("import copy")
    names = floor.imported(printed + "import time:       100 |        100 | org\n")
    assert "copy" in names and "org" not in names


def test_imported_leaves_out_what_runs_a_program(floor: ModuleType) -> None:
    printed = ("import time:       100 |        100 | blogbuild.__main__\n"
               "import time:       100 |        100 | sitecustomize\n"
               "import time:       100 |        100 |   blogbuild.cli\n")
    assert floor.imported(printed) == ["blogbuild.cli"]


@pytest.mark.parametrize(("name", "library"), [
    ("markdown_it.rules_block", True), ("yaml", True), ("jinja2.nodes", True),
    ("blogbuild.pipeline.engine", False), ("json.decoder", False), ("_hashlib", False),
    ("importlib.resources", False), ("_distutils_hack", False),
])
def test_is_library(floor: ModuleType, name: str, library: bool) -> None:
    assert floor.is_library(name) is library
