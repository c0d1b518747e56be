"""The one stylesheet of each page: the theme's CSS and that of the page's needs, joined at
build time into a file whose name carries a hash of its bytes (so it can be cached forever).

Which files go into a page's stylesheet, in cascade order:

1. ``css/main.css``, then every file of `THEME_PARTS`;
2. for each need of the page (the code styles first, the rest by name): the files of
   `NEED_PARTS`, or ``css/<need>.css``;
3. ``css/custom.css``, the site's own rules, last so they win.

A file is taken only when the build has it (theme or site static, generated, or a vendored
bundle the page needs); a site's ``static/X`` replaces the theme's ``X`` here as everywhere.
"""

from __future__ import annotations

import hashlib
import posixpath
import re
from collections.abc import Container, Iterable, Sequence

from blogbuild.themefiles import CUSTOM_CSS

#: Where page stylesheets are written; url()s of parts elsewhere are rewritten for it.
FOLDER = "css"
MAIN_CSS = "css/main.css"
#: The generated stylesheet of code blocks.
CODE_CSS = "css/pygments.css"
#: Stylesheets every page gets after css/main.css, in this order. A feature of the theme
#: that every page shows (a header widget, the footer) puts its CSS file here.
THEME_PARTS: tuple[str, ...] = ("css/nav.css", "css/search.css")
#: Needs whose stylesheets are not (only) css/<need>.css.
NEED_PARTS: dict[str, tuple[str, ...]] = {
    "code": (CODE_CSS,),
    "math": ("vendor/katex/katex.min.css", "css/math.css"),
    "notebook": ("css/notebook.css", "css/ansi.css"),  # tracebacks keep their colours
}


def parts_of(needs: Iterable[str], present: Container[str]) -> tuple[str, ...]:
    """The files of a page with these needs, in cascade order, each once; only those in
    `present` (the paths the build writes)."""
    wanted = [MAIN_CSS, *THEME_PARTS]
    # The code styles come first, as they always did; they do not depend on other needs.
    for need in sorted(needs, key=lambda n: (n != "code", n)):
        wanted += NEED_PARTS.get(need, (f"{FOLDER}/{need}.css",))
    wanted.append(CUSTOM_CSS)
    return tuple(dict.fromkeys(rel for rel in wanted if rel in present))


def join(parts: Sequence[tuple[str, bytes]]) -> bytes:
    """One stylesheet of (path, bytes) parts. Each part is headed by a comment naming it;
    the ``@import`` rules a part starts with move to the top (a browser ignores them
    anywhere else); url()s of a part outside css/ are rewritten to reach the same files."""
    imports: list[bytes] = []
    bodies = []
    for rel, data in parts:
        found, rest = _leading_imports(data)
        imports += found
        bodies.append(b"/* %s */\n%s\n" % (rel.encode(), _relocated(rel, rest).strip()))
    return b"".join(rule + b"\n" for rule in imports) + b"".join(bodies)


def bundle_name(data: bytes) -> str:
    """The output path of a page stylesheet with these bytes."""
    return f"{FOLDER}/bundle.{hashlib.sha256(data).hexdigest()[:12]}.css"


#: What may stand before a stylesheet's first rule: space, comments, @charset, @import.
_HEAD = re.compile(rb"\s+|/\*.*?\*/|@charset\s[^;]*;|(@import\s[^;]*;)", re.S | re.I)


def _leading_imports(data: bytes) -> tuple[list[bytes], bytes]:
    """(the @import rules at the start of `data`, `data` without them)."""
    imports: list[bytes] = []
    kept = b""
    pos = 0
    while (match := _HEAD.match(data, pos)) and match.end() > pos:
        if match.group(1):
            imports.append(match.group(1))
        else:
            kept += match.group(0)
        pos = match.end()
    return imports, (kept + data[pos:] if imports else data)


_URL = re.compile(rb"""url\(\s*(["']?)([^"')\s]+)\1\s*\)""")
_SCHEME = re.compile(rb"[a-zA-Z][a-zA-Z0-9+.-]*:")


def _relocated(rel: str, data: bytes) -> bytes:
    """`data` with its relative url()s made relative to FOLDER instead of `rel`'s folder
    (KaTeX's ``url(fonts/…)`` becomes ``url(../vendor/katex/fonts/…)``)."""
    folder = posixpath.dirname(rel)
    if folder == FOLDER:
        return data

    def moved(match: re.Match[bytes]) -> bytes:
        quote, target = match.group(1), match.group(2)
        if target.startswith((b"/", b"#")) or _SCHEME.match(target):
            return match.group(0)
        path = posixpath.normpath(posixpath.join(folder, target.decode()))
        return b"url(%s%s%s)" % (quote, posixpath.relpath(path, FOLDER).encode(), quote)

    return _URL.sub(moved, data)
