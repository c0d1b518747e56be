"""What a KaTeX render takes and gives: the options that change output, the result, warnings.

Plain data, apart from the runtime: a result travels to and from the formula cache as JSON.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass, field
from typing import Any

__all__ = ["KatexOptions", "KatexResult", "KatexWarning"]


@dataclass(frozen=True)
class KatexOptions:
    """The KaTeX settings that change output; `fingerprint` keys the cache."""

    output: str = "htmlAndMathml"
    macros: tuple[tuple[str, str], ...] = ()
    #: TeX run before the formula: the page's own definitions in force (\\gdef's made by
    #: blogbuild.markdown.math.macros), which win over `macros`.
    defined: str = ""

    @classmethod
    def make(cls, output: str, macros: dict[str, str]) -> KatexOptions:
        return cls(output, tuple(sorted(macros.items())))

    @functools.cached_property
    def fingerprint(self) -> str:
        """Worked out once per options (a page's formulas share them, but for the macros a
        page defines before one): a formula's cache keys read it two or three times."""
        # The last item names how results are made: a formula that \gdef-ed a macro it had
        # \newcommand-ed was an error when the feed's MathML was a second render.
        return json.dumps([self.output, self.macros, self.defined, "mathml-from-page-render"],
                          separators=(",", ":"))

    def data(self) -> dict[str, Any]:
        """The options as KaTeX's functions take them (katex_render.js)."""
        return {"output": self.output, "macros": dict(self.macros), "defined": self.defined}


@dataclass(frozen=True)
class KatexWarning:
    """A strict-mode complaint (KaTeX rendered it, LaTeX would not have), or code
    "untrusted": a \\href, \\url or \\includegraphics whose URL the link rules refuse (or
    a \\htmlStyle that would load something), which KaTeX showed as red text."""

    code: str
    message: str
    position: int | None  # JS (UTF-16) offset into the TeX, when KaTeX knows it


@dataclass(frozen=True)
class KatexResult:
    """Either `html`, or an error `message` at `position` (UTF-16 offset, may be None)."""

    html: str | None = None
    message: str = ""
    mathml: str | None = None  # MathML only (feeds), when `html` has KaTeX's HTML layer too
    position: int | None = None
    length: int | None = None
    warnings: tuple[KatexWarning, ...] = field(default_factory=tuple)

    @property
    def ok(self) -> bool:
        return self.html is not None

    def to_json(self) -> str:
        return json.dumps(
            {
                "html": self.html,
                "mathml": self.mathml,
                "message": self.message,
                "position": self.position,
                "length": self.length,
                "warnings": [[w.code, w.message, w.position] for w in self.warnings],
            },
            separators=(",", ":"),
        )

    @classmethod
    def from_data(cls, data: dict[str, Any]) -> KatexResult:
        warnings = data.get("warnings") or []
        return cls(
            html=data.get("html"),
            mathml=data.get("mathml"),
            message=str(data.get("message") or ""),
            position=data.get("position"),
            length=data.get("length"),
            warnings=tuple(_warning(w) for w in warnings),
        )


def _warning(raw: Any) -> KatexWarning:
    """A warning as KaTeX reports it (an object) or as the cache keeps it (a list)."""
    if isinstance(raw, dict):
        return KatexWarning(str(raw["code"]), str(raw["message"]), raw.get("position"))
    code, message, position = raw
    return KatexWarning(str(code), str(message), position)
