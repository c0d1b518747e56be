"""The math plugin's core pass: number equations, resolve \\eqref/\\ref, render with KaTeX.

Two passes over every math token of the post: the first hands out equation numbers and
records labels (so references may come before their equation), the second rewrites
references, renders, and reports errors at their line:col in the source file.
"""

from __future__ import annotations

import bisect
import functools
import re

from markdown_it.common.utils import escapeHtml
from markdown_it.rules_core import StateCore
from markdown_it.token import Token

from blogbuild.markdown.env import Env, need, report, report_error, source_line
from blogbuild.markdown.math.advice import advice
from blogbuild.markdown.math.links import check_urls, feed_tex
from blogbuild.markdown.math.macros import PageMacros
from blogbuild.markdown.math.tex import (
    ENV_RE,
    LABEL_RE,
    REF_RE,
    DisplayPlan,
    Rewrite,
    label_id,
    plan_display,
    utf16_to_index,
)
from blogbuild.markdown.previews import PREVIEWS
from blogbuild.runtimes import katex

#: (body line 0-based, column 0-based) where each line of a token's TeX starts.
Where = list[tuple[int, int]]
#: KaTeX's error for an environment it sets only in display mode ({CD}, {align}, …).
_DISPLAY_ONLY_ERROR = re.compile(r"^\{([A-Za-z]+\*?)\} can be used only in display mode")


def _display_only_message(env_name: str, open_: str) -> str:
    where = "between $$ lines" if open_ in ("$", "$$") else "between \\[ and \\]"
    return (f"{{{env_name}}} works only in display math, so this formula is shown as "
            f"display math: write it {where}")


class Locator:
    """Finds inline math in the body's lines; cursors keep repeated formulas apart."""

    def __init__(self, src: str) -> None:
        self.lines = src.split("\n")
        self.cursor: dict[int, int] = {}
        # Per inline source: its newline offsets and lines, computed once, not once per
        # formula (a paragraph of thousands of formulas would take quadratic time).
        self.sources: dict[int, tuple[str, list[int], list[str]]] = {}

    def _source(self, src: str) -> tuple[list[int], list[str]]:
        entry = self.sources.get(id(src))
        if entry is None or entry[0] is not src:
            newlines = [m.start() for m in re.finditer("\n", src)]
            entry = self.sources[id(src)] = (src, newlines, src.split("\n"))
        return entry[1], entry[2]

    def place(self, token: Token, owner: Token | None) -> Where:
        """Where each line of `token` starts in the body: (line, column). Display math
        knows its lines; inline math is found in the lines of `owner`, its inline token,
        or in the whole body when it has none left (a footnote nothing refers to is
        dropped after its text was parsed)."""
        meta = token.meta
        if owner is None and "lines" in meta:
            return list(meta["lines"])
        src, start, opener = meta["src"], meta["start"], meta["open"]
        newlines, src_lines = self._source(src)
        before = bisect.bisect_left(newlines, start)
        inline_col = start - (newlines[before - 1] + 1 if before else 0)
        content = meta.get("raw", token.content)
        markup = opener + content + meta["close"]
        first_line = markup.split("\n", 1)[0]
        if owner is not None and owner.map:
            first: int | None = owner.map[0] + before
            candidates = range(first, min(owner.map[1], len(self.lines)))  # type: ignore[arg-type]
        else:
            first, candidates = None, range(len(self.lines))
        line, col = (first or 0), inline_col
        for number in candidates:
            lower = max(self.cursor.get(number, 0), inline_col if number == first else 0)
            at = self.lines[number].find(first_line, lower)
            if at >= 0:
                line, col = number, at
                self.cursor[number] = at + len(first_line)
                break
        where = [(line, col + len(opener))]
        for extra in range(1, content.count("\n") + 1):
            here = self.lines[line + extra] if line + extra < len(self.lines) else ""
            text = src_lines[before + extra] if before + extra < len(src_lines) else ""
            source, inline = here.rstrip(), text.rstrip()
            if source.endswith(inline):
                where.append((line + extra, len(source) - len(inline)))
            else:
                where.append((line + extra, max(source.find(inline), 0)))
        return where


def _position(env: Env, where: Where, content: str, index: int) -> tuple[int, int]:
    """1-based (source line, column) of content[index]."""
    index = max(0, min(index, len(content)))
    row = content.count("\n", 0, index)
    row_start = content.rfind("\n", 0, index) + 1
    body_line, col = where[min(row, len(where) - 1)]
    return source_line(env, body_line), col + index - row_start + 1


class _Job:
    def __init__(self, token: Token, where: Where, options: katex.KatexOptions) -> None:
        self.token = token
        self.where = where
        self.options = options  # with the macros the page defined before this formula
        self.hidden = False  # it only defines macros: the page shows nothing
        self.order = -1  # among the page's formulas (PageMacros)
        self.rewrite = Rewrite(token.content)
        self.ids: list[str] = []
        self.numbered = False
        self.refused: set[str] = set()  # URL refusals reported before KaTeX ran
        # Kramdown's \\(…\\) keeps the source (`raw`) and where each TeX character is in it.
        self.source: str = (token.meta or {}).get("raw", token.content)
        self.origin: list[int] | None = (token.meta or {}).get("origin")

    def at(self, env: Env, index: int) -> tuple[int, int]:
        """1-based (source line, column) of the TeX's character `index`."""
        if self.origin is not None:
            index = self.origin[max(0, min(index, len(self.origin) - 1))]
        return _position(env, self.where, self.source, index)

    def markup(self) -> str:
        meta = self.token.meta
        return f"{meta.get('open', '')}{self.source}{meta.get('close', '')}"


def _line_at(env: Env, job: _Job, index: int) -> int:
    return job.at(env, index)[0]


def _unique_id(env: Env, base: str) -> str:
    taken: set[str] = env.setdefault("math_ids", set())
    candidate, n = base, 1
    while candidate in taken:
        n += 1
        candidate = f"{base}-{n}"
    taken.add(candidate)
    return candidate


def _plan(env: Env, job: _Job, labels: dict[str, tuple[str, str]], numbering: bool,
          base_path: str) -> None:
    """Pass 1 for one token: URLs, tags, labels, environment names."""
    token, rewrite = job.token, job.rewrite
    content = token.content

    def warn(index: int, message: str) -> None:
        line, col = job.at(env, index)
        report(env, line, message, column=col)

    def refuse(index: int, message: str) -> None:
        line, col = job.at(env, index)
        report_error(env, line, message, column=col)
        job.refused.add(message)

    if token.type != "math_ref":
        check_urls(content, base_path, rewrite.replace, refuse)
    if token.type == "math_inline":
        whole = ENV_RE.fullmatch(content.strip())
        if whole is not None:
            # `$\begin{align}…\end{align}$`: KaTeX sets it only in display mode, so it
            # is display math, numbered like `$$\begin{align}…$$` in a sentence.
            token.type = "math_inline_double"
            line, col = job.at(env, 0)
            name = whole.group(1) + whole.group(2)
            report(env, line, _display_only_message(name, token.meta.get("open", "")),
                   column=col)
    if token.type == "math_inline":
        for match in LABEL_RE.finditer(content):
            rewrite.replace(match.start(), match.end(), "")
            warn(match.start(), f"\\label{{{match.group(1)}}} only works in display math")
        return
    if token.type == "math_ref":
        return
    plan = plan_display(content, numbering=numbering)
    for start, end, name in plan.renames:
        rewrite.replace(start, end, name)
    if _labelled(env, job, labels, plan):
        return
    for row in plan.rows:
        number = row.tag
        if number is None and not (row.blank or row.nonumber) and (plan.auto or row.labels):
            count = int(env.get("math_equation_count", 0)) + 1
            env["math_equation_count"] = count
            number = str(count)
            rewrite.insert(row.end, f"\\tag{{{count}}}")
        if number is not None:
            job.numbered = True
        for label, start, end in row.labels:
            rewrite.replace(start, end, "")
            if number is None:
                warn(start, f"\\label{{{label}}} is on a line without an equation number")
            elif label in labels:
                warn(start, f"duplicate equation label '{label}'")
            else:
                labels[label] = (number, _unique_id(env, label_id(label)))
                job.ids.append(labels[label][1])


def _labelled(env: Env, job: _Job, labels: dict[str, tuple[str, str]],
              plan: DisplayPlan) -> bool:
    """A display labelled after its closer (Quarto's `$$ … $$ {#eq-x}`, `meta["label"]`):
    one number for the whole display, its id the label. False: no such label, or the
    display numbers its rows itself (its `\\label`s and tags are read as usual)."""
    label = (job.token.meta or {}).get("label")
    if label is None or plan.auto or any(row.tag is not None or row.labels
                                         for row in plan.rows):
        return False
    if label in labels:
        line, col = job.at(env, 0)
        report(env, line, f"duplicate equation label '{label}'", column=col)
        return True
    count = int(env.get("math_equation_count", 0)) + 1
    env["math_equation_count"] = count
    job.rewrite.insert(len(job.token.content), f"\\tag{{{count}}}")
    job.numbered = True
    labels[label] = (str(count), _unique_id(env, label))
    job.ids.append(labels[label][1])
    return True


def _ref_tex(kind: str, target: tuple[str, str] | None) -> str:
    if target is None:
        return "\\text{(??)}" if kind == "eqref" else "\\text{??}"
    number, anchor = target
    text = f"({number})" if kind == "eqref" else number
    return f"\\href{{#{anchor}}}{{\\text{{{text}}}}}"


def _ref_html(kind: str, target: tuple[str, str] | None, options: katex.KatexOptions,
              base: str = "") -> tuple[str, str]:
    """The reference as the page shows it and as the feed does (`base`: the post's URL)."""
    if target is None:
        missing = "(??)" if kind == "eqref" else "??"
        html = f'<span class="math-ref math-ref-missing">{missing}</span>'
        return html, html
    number, anchor = target
    text = f"({number})" if kind == "eqref" else number
    inner = feed_inner = escapeHtml(text)
    if not number.isdigit():  # an author's \tag{…} is TeX: typeset it like the tag itself
        result = katex.render(f"\\text{{{text}}}", display=False, options=options)
        if result.ok:
            inner = str(result.html)
            feed_inner = str(result.mathml or result.html)
    page = f'<a class="math-ref" href="#{anchor}">{inner}</a>'
    return page, f'<a class="math-ref" href="{escapeHtml(base)}#{anchor}">{feed_inner}</a>'


def _render(
    env: Env,
    job: _Job,
    labels: dict[str, tuple[str, str]],
    macros: PageMacros,
) -> tuple[str, str]:
    """Pass 2 for one token: references, KaTeX, diagnostics; returns the HTML of the page
    and of the feed (MathML alone: no stylesheet travels with a feed entry)."""
    token, content, options = job.token, job.token.content, job.options

    def at(index: int) -> tuple[int, int]:
        return job.at(env, index)

    if token.type == "math_ref":
        kind, label = token.meta["kind"], token.meta["label"]
        if label not in labels:
            line, col = at(0)
            report(env, line, f"unknown equation label '{label}' in \\{kind}", column=col)
        else:
            need(env, PREVIEWS)
        return _ref_html(kind, labels.get(label), options, str(env.get("feed_base") or ""))
    for match in REF_RE.finditer(content):
        kind, label = match.group(1), match.group(2).strip()
        if label not in labels:
            line, col = at(match.start())
            report(env, line, f"unknown equation label '{label}' in \\{kind}", column=col)
        else:
            need(env, PREVIEWS)
        job.rewrite.replace(match.start(), match.end(), _ref_tex(kind, labels.get(label)))
    tex, _ = job.rewrite.apply()
    display = token.type != "math_inline"
    result = katex.render(tex, display=display, options=options)
    only = None if display or result.ok else _DISPLAY_ONLY_ERROR.match(str(result.message))
    if only is not None:
        # `$\begin{CD}…\end{CD}$`: the fix is known, so apply it and say so (an error in
        # the TeX itself is then reported as display math sees it).
        line, col = at(0)
        report(env, line, _display_only_message(only.group(1), token.meta.get("open", "")),
               column=col)
        result, display = katex.render(tex, display=True, options=options), True
    for warning in result.warnings:
        index = 0
        if warning.position is not None:
            index = job.rewrite.original_position(utf16_to_index(tex, warning.position))
        line, col = at(index)
        if warning.code == "untrusted":
            if warning.message not in job.refused:  # reported at its column already
                report_error(env, line, warning.message, column=col)
        else:
            message = f"KaTeX strict mode: {warning.message} [{warning.code}]"
            report(env, line, message, column=col)
    if result.ok and job.hidden:
        return "", ""
    if result.ok:
        html = str(result.html)
        feed = _feed_math(env, tex, display, options) or str(result.mathml or result.html)
    else:
        index = 0
        if result.position is not None:
            index = job.rewrite.original_position(utf16_to_index(tex, result.position))
        line, col = at(index)
        hint = advice(str(result.message)) or macros.defined_later(str(result.message),
                                                                    job.order)
        report_error(env, line, f"LaTeX error: {result.message}" + (f"; {hint}" if hint else ""),
                     column=col)
        source = escapeHtml(job.markup())
        title = escapeHtml(f"LaTeX error: {result.message}")
        extra = " math-error-display" if display else ""
        html = feed = f'<span class="math-error{extra}" title="{title}">{source}</span>'
    if not display:
        return html, feed
    classes = "math-display math-numbered" if job.numbered else "math-display"
    first_id = f' id="{job.ids[0]}"' if job.ids else ""
    anchors = "".join(f'<span class="math-anchor" id="{i}"></span>' for i in job.ids[1:])
    tag = "div" if token.type == "math_block" else "span"
    return (f'<{tag} class="{classes}"{first_id}>{anchors}{html}</{tag}>',
            f'<{tag} class="{classes}"{first_id}>{anchors}{feed}</{tag}>')


def _feed_math(env: Env, tex: str, display: bool, options: katex.KatexOptions) -> str | None:
    """The feed's MathML of a formula with links: rendered again from TeX whose URLs are
    absolute (its messages were reported for the page already); None: the page's will do."""
    absolute = feed_tex(tex, env.get("feed_base"))
    if absolute is None:
        return None
    result = katex.render(absolute, display=display, options=options)
    return str(result.mathml or result.html) if result.ok else None


def _final_tex(job: _Job, labels: dict[str, tuple[str, str]]) -> str:
    """The TeX `_render` will hand to KaTeX, computed without reporting anything."""
    rewrite = job.rewrite.copy()
    for match in REF_RE.finditer(job.token.content):
        target = labels.get(match.group(2).strip())
        rewrite.replace(match.start(), match.end(), _ref_tex(match.group(1), target))
    return rewrite.apply()[0]


def number_and_render(
    state: StateCore,
    found: list[tuple[Token, Token | None]],
    options: katex.KatexOptions,
    *,
    numbering: bool,
    base_path: str = "/",
) -> None:
    env = state.env
    labels: dict[str, tuple[str, str]] = env.setdefault("math_labels", {})
    locator = Locator(state.src)
    jobs = []
    macros = PageMacros()
    for token, owner in found:
        job = _Job(token, locator.place(token, owner), options)
        _plan(env, job, labels, numbering, base_path)
        if token.type != "math_ref":
            job.options, job.hidden, job.order = macros.take(
                token.content, job.rewrite, options,
                functools.partial(_line_at, env, job))
        jobs.append(job)
    # One V8 round trip for the whole document: a call costs far more than KaTeX itself.
    formulas = [(_final_tex(job, labels), job.token.type != "math_inline", job.options)
                for job in jobs if job.token.type != "math_ref"]
    linked = [(feed_tex(tex, env.get("feed_base")), display, opts)
              for tex, display, opts in formulas]
    katex.prefetch_each([*formulas, *((t, d, o) for t, d, o in linked if t is not None)])
    for job in jobs:
        job.token.meta["html"], job.token.meta["feed_html"] = _render(env, job, labels, macros)
        if job.ids:  # what a preview of the equation on another page renders
            job.token.meta["ids"] = tuple(job.ids)
