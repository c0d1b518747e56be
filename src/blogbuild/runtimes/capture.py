"""The Python that turns a runnable block's output into items (matplotlib figures, tables,
values, errors). One file serves the browser's worker and CPython: it ships with the
theme's scripts (js/runnable_capture.py) and is loaded here from there."""

from __future__ import annotations

import sys
import types
from functools import cache
from pathlib import Path

from blogbuild.themefiles import theme_static

#: The name the module has in both interpreters (matplotlib's backend setting uses it).
MODULE_NAME = "runnable_capture"


def capture_source() -> Path:
    """The module's file: the theme's js/runnable_capture.py."""
    return theme_static() / "js" / f"{MODULE_NAME}.py"


@cache
def load_capture() -> types.ModuleType:
    """The module, imported once into this interpreter as ``runnable_capture``.

    Executed from its source rather than imported from the theme folder so that no
    __pycache__ folder appears among the theme's static files."""
    if MODULE_NAME in sys.modules:
        return sys.modules[MODULE_NAME]
    path = capture_source()
    module = types.ModuleType(MODULE_NAME)
    module.__file__ = str(path)
    sys.modules[MODULE_NAME] = module
    try:
        exec(compile(path.read_text(encoding="utf-8"), str(path), "exec"), module.__dict__)
    except BaseException:
        del sys.modules[MODULE_NAME]
        raise
    return module
