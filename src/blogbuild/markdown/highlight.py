"""Fenced code: Pygments at build time, language label, copy button, titles, line highlights
and line numbers (the info string is read in fenceinfo.py, the numbers in linenums.py).

Highlighted blocks are kept in the site's cache file (blogbuild.diskcache), keyed on the
code fingerprint (blogbuild's code, Pygments' version), the language, the highlighted lines,
the line numbers and the code. A rebuild after a prose edit renders the page again but
finds its code there: Pygments is imported only on a miss, and compiling a lexer's
patterns in a fresh process costs far more than the lookup (~90 ms for Python's).
"""

from __future__ import annotations

import copy
import dataclasses
import hashlib
from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from markdown_it import MarkdownIt
from markdown_it.common.utils import escapeHtml, unescapeAll
from markdown_it.token import Token
from markdown_it.utils import OptionsDict

from blogbuild import diskcache, timings
from blogbuild.fingerprints import code_fingerprint
from blogbuild.markdown.env import Env, report, token_line
from blogbuild.markdown.fenceinfo import FenceInfo, parse_fence
from blogbuild.markdown.linenums import LineNumbers, line_numbers, numbered

if TYPE_CHECKING:
    from pygments.formatters.html import HtmlFormatter
    from pygments.lexer import Lexer

#: Names shown in the label when they differ from the fence's language name.
_LABELS = {"py": "python", "js": "javascript", "ts": "typescript", "sh": "shell"}
#: The cache file's table of highlighted blocks.
_TABLE = "code"


@lru_cache(maxsize=1)
def _builtin_aliases() -> frozenset[str]:
    from pygments.lexers._mapping import LEXERS

    return frozenset(alias for entry in LEXERS.values() for alias in entry[2])


@lru_cache(maxsize=256)
def _lexer(lang: str) -> Lexer | None:
    # An alias Pygments does not ship would make get_lexer_by_name import every lexer
    # plugin installed (seconds, once per process): unknown languages are plain text.
    if not lang or lang not in _builtin_aliases():
        return None
    from pygments.lexers import get_lexer_by_name
    from pygments.util import ClassNotFound

    try:
        return get_lexer_by_name(lang, stripnl=False, ensurenl=False)
    except ClassNotFound:
        return None


def highlight_code(code: str, lang: str, hl_lines: Sequence[int] = (), *,
                   numbers: LineNumbers | None = None) -> str:
    """HTML (no wrapper) of `code`; plain escaped text when the language is unknown."""
    lang = lang.lower()
    if not lang:  # no language: nothing for Pygments to do, nothing worth keeping
        return _plain(code, hl_lines, numbers)
    if not diskcache.enabled():  # --no-cache, tests: no key to compute
        return _highlight(code, lang, hl_lines, numbers)
    key = _cache_key(code, lang, hl_lines, numbers)
    html = diskcache.get(_TABLE, key) if key is not None else None
    if html is None:
        html = _highlight(code, lang, hl_lines, numbers)
        if key is not None:
            diskcache.put(_TABLE, key, html)
    return html


def _cache_key(code: str, lang: str, hl_lines: Sequence[int],
               numbers: LineNumbers | None) -> str | None:
    """Everything the HTML depends on (Pygments' version is in the code fingerprint);
    None for text sqlite cannot store (a lone surrogate, never read from a UTF-8 file)."""
    shown = f"{numbers.start}/{numbers.step}" if numbers else ""
    raw = "\0".join([code_fingerprint(), lang, ",".join(map(str, hl_lines)), shown, code])
    try:
        return hashlib.sha256(raw.encode("utf-8")).hexdigest()
    except UnicodeEncodeError:
        return None


def _highlight(code: str, lang: str, hl_lines: Sequence[int],
               numbers: LineNumbers | None) -> str:
    lexer = _lexer(lang)
    if lexer is None:
        return _plain(code, hl_lines, numbers)
    from pygments import highlight as pygments_highlight

    formatter = _formatter(tuple(hl_lines))
    if numbers is not None:  # a copy: the cached one keeps its style's class table
        formatter = copy.copy(formatter)
        formatter.numbering = (numbers, code.count("\n") + (not code.endswith("\n")))  # type: ignore[attr-defined]
    return str(pygments_highlight(code, lexer, formatter))


def _plain(code: str, hl_lines: Sequence[int], numbers: LineNumbers | None) -> str:
    if not hl_lines and numbers is None:
        return escapeHtml(code)
    lines = [escapeHtml(line) for line in code.splitlines(keepends=True)]
    if numbers is not None:
        lines = list(numbered(lines, numbers, len(lines)))
    return "".join(f'<span class="hll">{line}</span>' if number in hl_lines else line
                   for number, line in enumerate(lines, 1))


#: How code text is escaped, whatever the Pygments version: Pygments 2.21 stopped escaping
#: quotes, which changed every highlighted page (and the render cache cannot tell).
_ESCAPES = {ord("&"): "&amp;", ord("<"): "&lt;", ord(">"): "&gt;", ord('"'): "&quot;",
            ord("'"): "&#39;"}


@lru_cache(maxsize=64)
def _formatter(hl_lines: tuple[int, ...]) -> HtmlFormatter:  # type: ignore[type-arg]
    # Building a formatter computes the style's class table: do it once, not per block.
    from pygments.formatters.html import HtmlFormatter

    class Formatter(HtmlFormatter):  # type: ignore[type-arg]
        #: The line numbers to show and how many lines the code has (None: none shown).
        numbering: tuple[LineNumbers, int] | None = None

        def _translate_parts(self, value: str) -> list[str]:
            return value.translate(_ESCAPES).split("\n")

        def _format_lines(self, tokensource: Any) -> Any:
            # Each line Pygments yields is whole (its spans closed at the line's end), so
            # the number goes in front, inside the highlight of a highlighted line.
            lines = super()._format_lines(tokensource)  # type: ignore[misc]
            if self.numbering is None:
                return lines
            return ((1, line) for line in numbered((line for _, line in lines), *self.numbering))

    return Formatter(nowrap=True, hl_lines=list(hl_lines))


def _box_attrs(extra: Mapping[str, str | int | float]) -> str:
    """The outer div's attributes: its class (plus the author's) and the author's others."""
    classes = " ".join(["codeblock", *str(extra.get("class", "")).split()])
    others = "".join(f' {name}="{escapeHtml(str(value))}"'
                     for name, value in extra.items() if name != "class")
    return f'class="{escapeHtml(classes)}"{others}'


def render_codeblock(
    code: str, info: str | FenceInfo, extra: Mapping[str, str | int | float] | None = None,
    *, numbers: LineNumbers | None = None,
) -> str:
    """The full code block: header (title, language label, copy button) and highlighted body.

    `extra` holds attributes from a block attribute list (`{: .wide}`) for the outer div,
    which also takes Pandoc's `#id` from the info string when the list gives no id."""
    fence = parse_fence(info) if isinstance(info, str) else info
    body = highlight_code(code, fence.lang, fence.hl_lines, numbers=numbers)
    label = _LABELS.get(fence.lang.lower(), fence.lang.lower())
    title = fence.attrs.get("title", "")
    lang_attr = f' data-lang="{escapeHtml(label)}"' if label else ""
    code_class = f' class="language-{escapeHtml(label)}"' if label else ""
    header = ['<div class="codeblock-header">']
    if title:
        header.append(f'<span class="codeblock-title">{escapeHtml(title)}</span>')
    if label:
        header.append(f'<span class="codeblock-lang">{escapeHtml(label)}</span>')
    header.append(
        '<button class="copy-button" type="button" hidden aria-label="Copy code to clipboard">'
        "Copy</button></div>"
    )
    attrs = dict(extra or {})
    if fence.ident and "id" not in attrs:
        attrs["id"] = fence.ident
    pre_class = "highlight numbered" if numbers else "highlight"
    return (
        f'<div {_box_attrs(attrs)}{lang_attr}>{"".join(header)}'
        f'<pre class="{pre_class}"><code{code_class}>{body}</code></pre></div>\n'
    )


def _report_info(env: Env, token: Token, fence: FenceInfo) -> LineNumbers | None:
    """The words of the info string nothing reads (each once per file: a post repeats its
    habits) and the line numbers' bad values, at the fence's line; the numbers to show."""
    line = token_line(env, token)
    warned = env.setdefault("unread_info", set())
    fresh = [word for word in fence.unread if word not in warned]
    if fresh:
        warned.update(fresh)
        words = " ".join(fresh)
        report(env, line,
               f"the code block's info string has {words!r}, which blogbuild does not "
               "read; write the language, then {2,4-6} or hl_lines=\"2 4-6\" to highlight "
               'lines, title="file.py" for a file name and linenums="1" for line numbers '
               "(not repeated for the other code blocks of this file)")
    numbers, problems = line_numbers(fence.numbering)
    for problem in problems:
        report(env, line, problem)
    return numbers


def _listing(fence: FenceInfo, token: Token) -> FenceInfo:
    """A Quarto listing (`#lst-x` and `lst-cap="…"`, numbered by
    blogbuild.markdown.quarto.labels): its caption is the block's title."""
    title = (token.meta or {}).get("listing")
    if title is None:
        return fence
    unread = [word for word in fence.unread if not word.startswith("lst-cap=")]
    return dataclasses.replace(fence, attrs={**fence.attrs, "title": title}, unread=unread)


def _fence(
    self: Any, tokens: Sequence[Token], idx: int, options: OptionsDict, env: Env
) -> str:
    token = tokens[idx]
    # The feed renders the page's tokens a second time (feed.py): highlight only once.
    html = token.meta.get("codeblock_html") if token.meta else None
    if html is None:
        fence = _listing(parse_fence(unescapeAll(token.info)), token)
        numbers = _report_info(env, token, fence)
        with timings.section("highlighting"):
            html = render_codeblock(token.content, fence, token.attrs, numbers=numbers)
        token.meta = {**(token.meta or {}), "codeblock_html": html}
    return str(html)


def highlight_plugin(md: MarkdownIt) -> None:
    """Replace the fence renderer; indented code blocks stay CommonMark's plain `<pre>`."""
    md.add_render_rule("fence", _fence)


def pygments_css(style: str, selector: str) -> str:
    """CSS of one Pygments style scoped to `selector` (the theme writes light and dark)."""
    from pygments.formatters.html import HtmlFormatter

    return str(HtmlFormatter(style=style).get_style_defs(selector))  # type: ignore[no-untyped-call]
