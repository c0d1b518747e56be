"""blogbuild: a Markdown-to-static-site generator for technical blogs."""

from __future__ import annotations

from blogbuild.diagnostics import BlogbuildError, Diagnostic

__version__ = "0.3.0.dev0"

__all__ = ["BlogbuildError", "Diagnostic", "__version__"]
