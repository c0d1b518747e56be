"""Diagnostics (file:line:col messages) and the small exception hierarchy."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum
from operator import attrgetter
from pathlib import Path


class Severity(StrEnum):
    WARNING = "warning"
    ERROR = "error"


def location(file: str, line: int, column: int) -> str:
    """`file:line:column` as compilers write it; a 0 line or column is left out."""
    if not line:
        return file
    return f"{file}:{line}:{column}" if column else f"{file}:{line}"


@dataclass(frozen=True, order=True)
class Diagnostic:
    """One problem found in an author's file; line and column are 1-based (0 = unknown)."""

    file: str
    line: int
    column: int
    severity: Severity
    message: str

    def format(self) -> str:
        return f"{location(self.file, self.line, self.column)}: {self.severity.value}: " \
            f"{self.message}"

    @property
    def is_error(self) -> bool:
        return self.severity is Severity.ERROR


#: A diagnostic's place in a report: its fields in order, as a tuple (compared in C, where
#: the dataclass's own comparison calls Python for each pair).
ORDER = attrgetter("file", "line", "column", "severity", "message")


def in_order(diagnostics: Iterable[Diagnostic]) -> list[Diagnostic]:
    """Each of `diagnostics` once, in order (`sorted(set(diagnostics))`, by their keys: a
    post with 100,000 unclosed formulas has as many warnings, which the dataclass's hash
    and comparisons took 0.6 s to sort, twice per build)."""
    unique = {ORDER(d): d for d in diagnostics}
    return [unique[key] for key in sorted(unique)]


def warning(file: str | Path, line: int, message: str, column: int = 0) -> Diagnostic:
    return Diagnostic(str(file), line, column, Severity.WARNING, message)


def error(file: str | Path, line: int, message: str, column: int = 0) -> Diagnostic:
    return Diagnostic(str(file), line, column, Severity.ERROR, message)


class BlogbuildError(Exception):
    """Base of every error an author or user can cause; the CLI prints it without a traceback."""

    def __init__(self, message: str, *, file: str | Path | None = None, line: int = 0) -> None:
        self.message = message
        self.file = str(file) if file is not None else None
        self.line = line
        super().__init__(self.format())

    def format(self) -> str:
        if self.file is None:
            return self.message
        where = f"{self.file}:{self.line}" if self.line else self.file
        return f"{where}: {self.message}"


class ConfigError(BlogbuildError):
    """site.yaml is missing, unreadable or invalid."""


class ContentError(BlogbuildError):
    """A source file cannot be read or its front matter is invalid."""


class TemplateError(BlogbuildError):
    """A theme template failed to load or render."""


class BuildFailed(BlogbuildError):
    """The build found error diagnostics (or warnings under --strict)."""

    def __init__(self, diagnostics: Iterable[Diagnostic], *, strict: bool = False) -> None:
        self.diagnostics = sorted(diagnostics, key=ORDER)
        errors = sum(d.is_error for d in self.diagnostics)
        warnings = len(self.diagnostics) - errors
        what = f"{errors} error(s)" if errors else f"{warnings} warning(s) under --strict"
        super().__init__(f"build failed: {what}")
        self.strict = strict
