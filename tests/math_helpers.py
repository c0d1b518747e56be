"""Helpers for the math tests: render with the real factory, abbreviate KaTeX's output."""

from __future__ import annotations

import re
from typing import Any

from blogbuild.markdown import create_markdown

_ANNOTATION = re.compile(r'<annotation encoding="application/x-tex">(.*?)</annotation>', re.S)
_SPAN = re.compile(r"<span\b|</span>")
MD = create_markdown()


def _span_end(html: str, start: int) -> int:
    """Index just past the </span> closing the <span> that opens at `start`."""
    depth = 0
    for match in _SPAN.finditer(html, start):
        depth += 1 if match.group(0) == "<span" else -1
        if depth == 0:
            return match.end()
    raise AssertionError(f"unbalanced <span> at {start}")


def abbreviate(html: str) -> str:
    """Write each KaTeX formula as [K:tex] (inline) or [KD:tex] (display), tex as KaTeX saw it.

    The TeX comes from the MathML annotation, so the fixtures also show the rewriting
    (\\tag{n} for numbered rows, \\href for references). Tests elsewhere check the markup.
    """
    out = []
    pos = 0
    pattern = re.compile(r'<span class="katex-display">|<span class="katex">')
    while True:
        match = pattern.search(html, pos)
        if match is None:
            out.append(html[pos:])
            return "".join(out)
        end = _span_end(html, match.start())
        body = html[match.start() : end]
        tex = _ANNOTATION.search(body)
        assert tex is not None, body[:200]
        kind = "KD" if "katex-display" in match.group(0) else "K"
        out.append(html[pos : match.start()])
        out.append(f"[{kind}:{tex.group(1)}]")
        pos = end


def without_svg(html: str) -> str:
    """Icons of other plugins (callouts) are not this test's business."""
    return re.sub(r"<svg\b.*?</svg>", "[svg]", html, flags=re.S)


def render(source: str, md: Any = MD, **env: Any) -> tuple[str, dict[str, Any]]:
    env_out: dict[str, Any] = {"file": "post.md", **env}
    return md.render(source, env_out), env_out


def render_fixture(source: str) -> str:
    """Abbreviated HTML followed by one comment per diagnostic (severity, line:col, text)."""
    html, env = render(source)
    lines = [without_svg(abbreviate(html)).rstrip("\n")]
    for diag in sorted(env.get("diagnostics", [])):
        lines.append(f"<!-- {diag.severity.value} {diag.line}:{diag.column} {diag.message} -->")
    return "\n".join(lines) + "\n"
