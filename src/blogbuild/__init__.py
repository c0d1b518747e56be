"""blogbuild: a Markdown-to-static-site generator for technical blogs."""

from __future__ import annotations

from blogbuild.diagnostics import BlogbuildError, Diagnostic

__version__ = "0.2.0"

__all__ = ["BlogbuildError", "Diagnostic", "__version__"]
