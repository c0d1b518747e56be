"""Which Pagefind program is installed, told without importing or running anything: the
check that nothing changed asks it (a new Pagefind makes a new index)."""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

#: The packages that carry a Pagefind program, in the order the `pagefind` package tries them.
PACKAGES = ("pagefind_bin_extended", "pagefind_bin")
#: The names of the program on the PATH, in that order (tried after the packages).
PROGRAMS = ("pagefind_extended", "pagefind")


def versions() -> str:
    """Which Pagefind program makes the index: the size and time of PAGEFIND_BINARY_PATH
    and of the programs the `pagefind_bin` packages carry, or when there are none, of
    those on the PATH."""
    found = []
    named = os.environ.get("PAGEFIND_BINARY_PATH")
    places = [Path(named)] if named else []
    for package in PACKAGES:
        spec = importlib.util.find_spec(package)
        if spec is not None and spec.origin is not None:
            folder = Path(spec.origin).parent
            places += sorted(p for p in folder.iterdir() if p.name.startswith("pagefind"))
    if not places:  # the program on the PATH, as `pagefind.executable` finds it last
        import shutil

        places = [Path(program) for name in PROGRAMS
                  if (program := shutil.which(name)) is not None]
    for path in places:
        try:
            st = path.stat()
            found.append(f"{path}:{st.st_size}:{st.st_mtime_ns}")
        except OSError:
            found.append(f"{path}:?")
    return ";".join(found)
