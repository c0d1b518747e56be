"""The front matter of a Quarto document that words its cross-references:
`number-sections:` and the words of `crossref:` (`fig-title`, `tbl-prefix`, `title-delim`, …,
and `ref-hyperlink: false`, kept as "false").

Read by the Quarto reader into the page's `QuartoPage`; the Markdown plugins
(blogbuild.markdown.quarto.labels) use the words.
"""

from __future__ import annotations

from blogbuild.content.frontmatter import FrontMatter
from blogbuild.diagnostics import Diagnostic, warning
from blogbuild.quarto import QuartoPage

__all__ = ["WORD_KEYS", "read_crossref"]

#: The reference types whose words `crossref:` may change (`fig-title`, `fig-prefix`).
TYPES = ("fig", "tbl", "lst", "eq", "sec", "thm", "lem", "cor", "prp", "cnj", "def", "exm",
         "exr", "sol", "rem", "alg", "nte", "tip", "wrn", "imp", "cau")
#: Every `crossref:` key read: a type's caption word and reference word, and the delimiters.
WORD_KEYS = frozenset({*(f"{t}-title" for t in TYPES), *(f"{t}-prefix" for t in TYPES),
                       "title-delim", "ref-delim"})


def _line(front: FrontMatter, key: str, sub: str | None = None) -> int:
    """The file's line of `key` (or of `key`'s `sub` key), 0 when unknown."""
    node = front.nodes.get(key)
    if front.doc is None or node is None:
        return 0
    if sub is not None and isinstance(node.value, list):
        for pair in node.value:
            if isinstance(pair, tuple) and getattr(pair[0], "value", None) == sub:
                return front.doc.line(pair[0])
    return front.doc.line(node)


def read_crossref(page: QuartoPage, front: FrontMatter, file: str) -> list[Diagnostic]:
    """Put `number-sections` and the `crossref:` words of `front` in `page`; what cannot
    be used is a warning (the default words stay)."""
    problems: list[Diagnostic] = []
    data = front.data
    numbered = data.get("number-sections", False)
    if isinstance(numbered, bool):
        page.number_sections = numbered
    else:
        problems.append(warning(file, _line(front, "number-sections"),
                                f"'number-sections' is {numbered!r}, not true or false; "
                                "write 'number-sections: true' (the headings stay unnumbered)"))
    options = data.get("crossref")
    if options is None or options is False:
        return problems
    if not isinstance(options, dict):
        problems.append(warning(file, _line(front, "crossref"),
                                "'crossref' is not a mapping; write its options below it, "
                                "as 'crossref:' then '  fig-title: Fig.' (Quarto's words stay)"))
        return problems
    for key, value in options.items():
        if key in WORD_KEYS and isinstance(value, str | int | float) \
                and not isinstance(value, bool):
            page.crossref[key] = str(value)
            continue
        if key == "ref-hyperlink" and isinstance(value, bool):
            page.crossref[key] = "true" if value else "false"
            continue
        line = _line(front, "crossref", str(key))
        if key == "ref-hyperlink":
            problems.append(warning(file, line, f"'crossref.ref-hyperlink' is {value!r}, not "
                                    "true or false; write 'ref-hyperlink: false' for "
                                    "references that are not links (they stay links)"))
            continue
        fix = ("a word or two ('Fig.')" if key in WORD_KEYS else
               "blogbuild reads the words of a type (fig-title, fig-prefix, …), title-delim, "
               "ref-delim and ref-hyperlink")
        problems.append(warning(file, line, f"'crossref.{key}' is not used: {fix}; Quarto's "
                                "default stays"))
    return problems
