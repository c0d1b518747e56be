"""Fenced code: Pygments at build time, language label, copy button, titles, line highlights.

Highlighted blocks are kept in the site's cache file (blogbuild.diskcache), keyed on the
code fingerprint (blogbuild's code, Pygments' version), the language, the highlighted lines
and the code. A rebuild after a prose edit renders the page again but finds its code
there: Pygments is imported only on a miss, and compiling a lexer's patterns in a fresh
process costs far more than the lookup (~90 ms for Python's).
"""

from __future__ import annotations

import hashlib
import re
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

if TYPE_CHECKING:
    from pygments.formatters.html import HtmlFormatter
    from pygments.lexer import Lexer

_ATTR = re.compile(r"""(\w[\w-]*)\s*=\s*(?:"([^"]*)"|'([^']*)'|(\S+))""")
_BRACES = re.compile(r"\{([\d,\s\-]+)\}")
_HUGO_OPTIONS = re.compile(r"\{((?:\s*\w+\s*=\s*(?:\[[^\]]*\]|\"[^\"]*\"|[^,{}\s]*)\s*,?)+)\}")
_HUGO_OPTION = re.compile(r"(\w+)\s*=\s*(\[[^\]]*\]|\"[^\"]*\"|[^,{}\s]*)")

#: Names shown in the label when they differ from the fence's language name.
_LABELS = {"py": "python", "js": "javascript", "ts": "typescript", "sh": "shell"}
#: The cache file's table of highlighted blocks.
_TABLE = "code"


def _hugo_options(rest: str) -> tuple[str, list[str], str]:
    """Hugo's `{linenos=table,hl_lines=[8,"15-17"]}`: (its line spec, the options nothing
    reads, `rest` without it)."""
    match = _HUGO_OPTIONS.search(rest)
    if match is None:
        return "", [], rest
    spec, unread = "", []
    for option in _HUGO_OPTION.finditer(match.group(1)):
        if option.group(1) == "hl_lines":
            spec += " " + re.sub(r"[\[\]\"',]", " ", option.group(2))
        else:
            unread.append(option.group(0))
    return spec, unread, rest[: match.start()] + rest[match.end() :]


_CLASS = re.compile(r"(?<![^\s{])\.([\w+#-]+)")


def _split_info(info: str) -> tuple[str, str]:
    """(language, the rest) of an info string: ``python {2} title="a.py"``, ``python{2}``,
    ``title="a.py"`` (no language), and the attribute form of Pandoc and Python-Markdown,
    ``{ .yaml .no-copy title="a.yml" }``, whose first class is the language."""
    info = info.strip()
    if info.startswith("{") and info.endswith("}") and _CLASS.search(info):
        inner = info[1:-1]
        first = _CLASS.search(inner)
        assert first is not None
        return first.group(1), inner[: first.start()] + inner[first.end() :]
    lang, _, rest = info.partition(" ")
    if "=" in lang:  # ``title="a.py"``: no language
        return "", info
    if "{" in lang:  # "python{2}"
        lang, _, tail = lang.partition("{")
        rest = "{" + tail + " " + rest
    return lang, rest


def parse_info(info: str) -> tuple[str, dict[str, str], list[int]]:
    """Split a fence info string into (language, attributes, highlighted line numbers).

    Accepts ``python {2,4-6} title="model.py"``, ``python hl_lines="2 4-6"``, Hugo's
    ``go {hl_lines=[2,"4-6"]}`` and ``{ .python title="model.py" }``.
    """
    lang, rest = _split_info(info)
    spec, _, rest = _hugo_options(rest)
    attrs = {m.group(1): next(g for g in m.groups()[1:] if g is not None)
             for m in _ATTR.finditer(rest)}
    braces = _BRACES.search(_ATTR.sub("", rest))
    if braces:
        spec += " " + braces.group(1)
    if "hl_lines" in attrs:
        spec += " " + attrs.pop("hl_lines")
    return lang, attrs, parse_line_spec(spec)


#: The `key=value` words of an info string that a code block shows.
_READ_ATTRS = frozenset({"title", "hl_lines"})
_INFO_WORD = re.compile(rf"{_ATTR.pattern}|{_BRACES.pattern}|\S+")


def unread_info(info: str) -> list[str]:
    """The words of an info string after the language that nothing reads (`linenos`,
    Hugo's `linenos=table`), in their order: shown to the author, since they change
    nothing."""
    _, rest = _split_info(info)
    _, unread, rest = _hugo_options(rest)
    for match in _INFO_WORD.finditer(rest):
        attr = _ATTR.fullmatch(match.group(0))
        if _BRACES.fullmatch(match.group(0)) or (attr and attr.group(1) in _READ_ATTRS):
            continue
        unread.append(match.group(0))
    return unread


def parse_line_spec(spec: str) -> list[int]:
    lines: set[int] = set()
    for part in re.split(r"[,\s]+", spec.strip()):
        if not part:
            continue
        start, _, end = part.partition("-")
        if not start.isdigit() or (end and not end.isdigit()):
            continue
        lo, hi = int(start), int(end or start)
        lines.update(range(lo, min(hi, lo + 10_000) + 1))
    return sorted(lines)


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


def highlight_code(code: str, lang: str, hl_lines: Sequence[int] = ()) -> str:
    """HTML (no wrapper) of `code`; plain escaped text when the language is unknown."""
    lang = lang.lower()
    if not lang:  # no language: nothing for Pygments to do, nothing worth keeping
        return _plain(code, hl_lines)
    if not diskcache.enabled():  # --no-cache, tests: no key to compute
        return _highlight(code, lang, hl_lines)
    key = _cache_key(code, lang, hl_lines)
    html = diskcache.get(_TABLE, key) if key is not None else None
    if html is None:
        html = _highlight(code, lang, hl_lines)
        if key is not None:
            diskcache.put(_TABLE, key, html)
    return html


def _cache_key(code: str, lang: str, hl_lines: Sequence[int]) -> str | None:
    """Everything the HTML depends on (Pygments' version is in the code fingerprint);
    None for text sqlite cannot store (a lone surrogate, never read from a UTF-8 file)."""
    raw = "\0".join([code_fingerprint(), lang, ",".join(map(str, hl_lines)), code])
    try:
        return hashlib.sha256(raw.encode("utf-8")).hexdigest()
    except UnicodeEncodeError:
        return None


def _highlight(code: str, lang: str, hl_lines: Sequence[int]) -> str:
    lexer = _lexer(lang)
    if lexer is None:
        return _plain(code, hl_lines)
    from pygments import highlight as pygments_highlight

    return str(pygments_highlight(code, lexer, _formatter(tuple(hl_lines))))


def _plain(code: str, hl_lines: Sequence[int]) -> str:
    if not hl_lines:
        return escapeHtml(code)
    out = []
    for number, line in enumerate(code.splitlines(keepends=True), 1):
        text = escapeHtml(line)
        out.append(f'<span class="hll">{text}</span>' if number in hl_lines else text)
    return "".join(out)


#: How code text is escaped, whatever the Pygments version: Pygments 2.21 stopped escaping
#: quotes, which changed every highlighted page (and the render cache cannot tell).
_ESCAPES = {ord("&"): "&amp;", ord("<"): "&lt;", ord(">"): "&gt;", ord('"'): "&quot;",
            ord("'"): "&#39;"}


@lru_cache(maxsize=64)
def _formatter(hl_lines: tuple[int, ...]) -> HtmlFormatter:  # type: ignore[type-arg]
    # Building a formatter computes the style's class table: do it once, not per block.
    from pygments.formatters.html import HtmlFormatter

    class Formatter(HtmlFormatter):  # type: ignore[type-arg]
        def _translate_parts(self, value: str) -> list[str]:
            return value.translate(_ESCAPES).split("\n")

    return Formatter(nowrap=True, hl_lines=list(hl_lines))


def _box_attrs(extra: Mapping[str, str | int | float]) -> str:
    """The outer div's attributes: its class (plus the author's) and the author's others."""
    classes = " ".join(["codeblock", *str(extra.get("class", "")).split()])
    others = "".join(f' {name}="{escapeHtml(str(value))}"'
                     for name, value in extra.items() if name != "class")
    return f'class="{escapeHtml(classes)}"{others}'


def render_codeblock(
    code: str, info: str, extra: Mapping[str, str | int | float] | None = None
) -> str:
    """The full code block: header (title, language label, copy button) and highlighted body.

    `extra` holds attributes from a block attribute list (`{: .wide}`) for the outer div."""
    lang, attrs, hl_lines = parse_info(info)
    body = highlight_code(code, lang, hl_lines)
    label = _LABELS.get(lang.lower(), lang.lower())
    title = attrs.get("title", "")
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
    return (
        f'<div {_box_attrs(extra or {})}{lang_attr}>{"".join(header)}'
        f'<pre class="highlight"><code{code_class}>{body}</code></pre></div>\n'
    )


def _fence(
    self: Any, tokens: Sequence[Token], idx: int, options: OptionsDict, env: Env
) -> str:
    token = tokens[idx]
    # The feed renders the page's tokens a second time (feed.py): highlight only once.
    html = token.meta.get("codeblock_html") if token.meta else None
    if html is None:
        info = unescapeAll(token.info)
        warned = env.setdefault("unread_info", set())
        fresh = [word for word in unread_info(info) if word not in warned]
        if fresh:  # each word once per file: a post repeats its habits
            warned.update(fresh)
            words = " ".join(fresh)
            report(env, token_line(env, token),
                   f"the code block's info string has {words!r}, which blogbuild does not "
                   "read; write the language, then {2,4-6} or hl_lines=\"2 4-6\" to highlight "
                   'lines and title="file.py" for a file name (not repeated for the other '
                   "code blocks of this file)")
        with timings.section("highlighting"):
            html = render_codeblock(token.content, info, token.attrs)
        token.meta = {**(token.meta or {}), "codeblock_html": html}
    return str(html)


def highlight_plugin(md: MarkdownIt) -> None:
    """Replace the fence renderer; indented code blocks stay CommonMark's plain `<pre>`."""
    md.add_render_rule("fence", _fence)


def pygments_css(style: str, selector: str) -> str:
    """CSS of one Pygments style scoped to `selector` (the theme writes light and dark)."""
    from pygments.formatters.html import HtmlFormatter

    return str(HtmlFormatter(style=style).get_style_defs(selector))  # type: ignore[no-untyped-call]
