"""What a code cell asks of the page: Jupyter tags and Quarto's `#|` option lines.

Tags are the ones Jupyter Book and nbconvert's tag preprocessor read (`remove-input`,
`hide-output`, …; underscores are read as hyphens). Quarto writes options as YAML in
comment lines at the top of the cell (`#| echo: false`); they are read here and removed
from the code the reader sees. Options this module does not know (Quarto has dozens, for
its own layout) are left alone; a value of the wrong type is a warning at its line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import yaml

from blogbuild import yamlcore

#: `#| key: value` at the top of a cell (Quarto; `//|` and `--|` in other languages).
_OPTION_LINE = re.compile(r"(?:#|//|--)\|[ \t]?(.*)")


@dataclass(frozen=True)
class CellOptions:
    """How one code cell is shown and run; `code` is its source without option lines."""

    code: str
    #: Lines of the cell's source above `code` (the option lines): the cell's line n is
    #: the code's line n - skipped.
    skipped: int = 0
    show: bool = True  # remove-cell, `include: false`
    input: bool = True  # remove-input, `echo: false`
    output: bool = True  # remove-output, `output: false`
    #: hide-input, `code-fold: true` fold the code ("closed"); `code-fold: show` folds it
    #: open; None shows it.
    fold_input: str | None = None
    fold_output: bool = False  # hide-output
    evaluate: bool = True  # `eval: false`, skip-execution: never run, no outputs shown
    allow_error: bool = False  # raises-exception, `error: true`
    asis: bool = False  # `output: asis`: printed text is Markdown of the page
    code_summary: str = "Code"  # `code-summary`: the label of folded code
    #: `fig-cap`: the caption of the cell's figure, or one per figure (a list).
    fig_cap: tuple[str, ...] = ()
    fig_subcap: tuple[str, ...] = ()  # `fig-subcap`: one caption per figure
    fig_alt: tuple[str, ...] = ()  # `fig-alt`: what the cell's figure (each) shows
    label: str = ""  # `label`: the id of the cell's figure (`fig-...`) or table (`tbl-...`)
    tbl_cap: str = ""  # `tbl-cap`: the caption of the cell's table (a Quarto page's)
    lst_label: str = ""  # `lst-label`: the id of the cell's code as a listing (`lst-...`)
    lst_cap: str = ""  # `lst-cap`: the caption of that listing
    #: `echo: fenced`: the code is shown with its cell's fence and option lines (Quarto).
    fenced: bool = False
    warnings: bool = True  # `warning: false`: what the code writes to stderr is not shown
    #: Warnings: (line in the cell, 1-based; message).
    problems: tuple[tuple[int, str], ...] = ()

    def caption(self, index: int, count: int) -> str:
        """The caption of the cell's figure `index` of `count` ("" for none): its own from
        a list, else the one caption under the last figure."""
        if self.fig_subcap:
            own = self.fig_subcap[index] if index < len(self.fig_subcap) else ""
            if index == count - 1 and len(self.fig_cap) == 1:
                return f"{own} {self.fig_cap[0]}".strip() if own else self.fig_cap[0]
            return own
        if len(self.fig_cap) > 1:
            return self.fig_cap[index] if index < len(self.fig_cap) else ""
        return self.fig_cap[0] if self.fig_cap and index == count - 1 else ""

    def alt(self, index: int) -> str:
        if len(self.fig_alt) == 1:
            return self.fig_alt[0]
        return self.fig_alt[index] if index < len(self.fig_alt) else ""


_TAGS = {
    "remove-cell": ("show", False),
    "remove-input": ("input", False),
    "remove-output": ("output", False),
    "hide-input": ("fold_input", "closed"),
    "hide-output": ("fold_output", True),
    "hide-cell": ("fold_input", "closed"),
    "raises-exception": ("allow_error", True),
    "skip-execution": ("evaluate", False),
}


#: fastpages' flags, a comment alone on a code cell's first line.
_FASTPAGES: dict[str, dict[str, Any]] = {
    "#hide": {"show": False},
    "#hide-input": {"input": False},
    "#hide-output": {"output": False},
    "#collapse": {"fold_input": "closed"},
    "#collapse-hide": {"fold_input": "closed"},
    "#collapse-show": {"fold_input": "open"},
    "#collapse-output": {"fold_output": True},
}


def cell_options(source: str, tags: tuple[str, ...], *,
                 defaults: dict[str, Any] | None = None) -> CellOptions:
    """The options of a code cell from its tags and its leading `#|` lines; `defaults`:
    the fields a document sets for all its cells (Quarto's `execute:`), which those
    override."""
    values: dict[str, Any] = dict(defaults or {})
    for tag in tags:
        known = _TAGS.get(tag.strip().lower().replace("_", "-"))
        if known is not None:
            values[known[0]] = known[1]
    if tags and "hide-cell" in {t.lower().replace("_", "-") for t in tags}:
        values["fold_output"] = True
    lines = source.split("\n")
    skipped = 0
    flag = _FASTPAGES.get(lines[0].strip().lower().replace(" ", "").replace("_", "-"))
    if flag is not None:  # fastpages' first-line flag (`#hide`), not code the reader sees
        values.update(flag)
        skipped = 1
    options: list[str] = []
    for line in lines[skipped:]:
        match = _OPTION_LINE.fullmatch(line)
        if match is None:
            break
        options.append(match[1])
    problems: list[tuple[int, str]] = []
    if options:
        values.update(_quarto(options, problems, first=skipped + 1))
    skipped += len(options)
    return CellOptions(code="\n".join(lines[skipped:]), skipped=skipped,
                       problems=tuple(problems), **values)


def _quarto(lines: list[str], problems: list[tuple[int, str]], *,
            first: int = 1) -> dict[str, Any]:
    """The options of the `#|` lines `lines` (the first is line `first` of the cell)."""
    found: list[tuple[int, str]] = []
    out = _read_quarto(lines, found)
    problems.extend((line + first - 1, message) for line, message in found)
    return out


def _read_quarto(lines: list[str], problems: list[tuple[int, str]]) -> dict[str, Any]:
    try:
        data = yamlcore.safe_load("\n".join(lines))
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 1 if mark is not None else 1
        problems.append((line, "the cell's '#|' options are not valid YAML "
                               f"({getattr(exc, 'problem', None) or exc}); they are ignored: "
                               "write one 'key: value' per line, as '#| echo: false'"))
        return {}
    if data is None:
        return {}
    if not isinstance(data, dict):
        problems.append((1, "the cell's '#|' lines must be 'key: value' options (as "
                            "'#| echo: false'); they are ignored"))
        return {}
    where = {str(key): i for i, text in enumerate(lines, 1)
             for key in data if text.lstrip().startswith(f"{key}:")}
    return quarto_values(data, where, problems)


def quarto_values(data: dict[Any, Any], where: dict[str, int],
                  problems: list[tuple[int, str]], *, prefix: str = "#| ") -> dict[str, Any]:
    """The fields of CellOptions that Quarto's options `data` set (a cell's `#|` lines, or
    a document's `execute:`); `where`: the line of each key, for the warnings about a value
    of the wrong type (`prefix`: how the author wrote the key)."""
    out: dict[str, Any] = {}

    def flag(key: str) -> bool | None:
        value = data.get(key)
        if value is None or isinstance(value, bool):
            return value
        what = "true, false or fenced" if key == "echo" else "true or false"
        problems.append((where.get(key, 1), f"'{prefix}{key}:' must be {what}, not "
                                            f"{value!r}; it is ignored"))
        return None

    if data.get("echo") == "fenced":
        out["fenced"] = True
        data = {k: v for k, v in data.items() if k != "echo"}
    for key, field in (("echo", "input"), ("include", "show"), ("eval", "evaluate"),
                       ("error", "allow_error"), ("warning", "warnings")):
        value = flag(key)
        if value is not None:
            out[field] = value
    output = data.get("output")
    if output == "asis":
        out["asis"] = True
    elif output is not None:
        value = flag("output")
        if value is not None:
            out["output"] = value
    fold = data.get("code-fold")
    if fold is True:
        out["fold_input"] = "closed"
    elif fold == "show":
        out["fold_input"] = "open"
    elif fold is not None and fold is not False:
        problems.append((where.get("code-fold", 1), f"'{prefix}code-fold:' must be true, false "
                                                     f"or show, not {fold!r}; it is ignored"))
    for key, field in (("code-summary", "code_summary"), ("label", "label"),
                       ("fig-cap", "fig_cap"), ("fig-subcap", "fig_subcap"),
                       ("fig-alt", "fig_alt"), ("tbl-cap", "tbl_cap"),
                       ("lst-label", "lst_label"), ("lst-cap", "lst_cap")):
        value = data.get(key)
        many = field.startswith("fig_")  # one text, or one per figure
        if _is_text(value):
            out[field] = (str(value).strip(),) if many else str(value).strip()
        elif many and isinstance(value, list) and all(_is_text(v) for v in value):
            out[field] = tuple(str(v).strip() for v in value)
        elif value is not None:
            what = "text or a list of texts" if many else "text"
            problems.append((where.get(key, 1), f"'{prefix}{key}:' must be {what}, not "
                                                f"{type(value).__name__}; it is ignored"))
    return out


def _is_text(value: Any) -> bool:
    return isinstance(value, str | int | float) and not isinstance(value, bool)
