"""What to write instead, for the KaTeX errors that posts written for MathJax run into.

MathJax is laxer than KaTeX: it takes `x^\\vec{a}`, `\\tau_\\max`, `_` and `&` inside
`\\text{…}`. A post moved from a MathJax blog meets these first, so the error names the fix.
"""

from __future__ import annotations

import re

_ADVICE: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"Got function '(\\\w+)' with no arguments as (superscript|subscript)"),
     "put the command and its argument, if any, in braces: SIGN{COMMAND…} (MathJax "
     "accepts it without them, KaTeX does not)"),
    (re.compile(r"Expected 'EOF', got '&'"),
     "an & outside an align-like environment: write \\& for an ampersand, inside "
     "\\text{…} too"),
    (re.compile(r"Expected 'EOF', got '[_^]'|Expected group after '[_^]'"),
     "inside \\text{…} write \\_ for an underscore and \\^{} for a caret"),
)


def advice(message: str) -> str:
    """The fix for a KaTeX error `message`, or "" when there is nothing to add."""
    for pattern, text in _ADVICE:
        match = pattern.search(message)
        if match is None:
            continue
        groups = match.groups()
        if len(groups) == 2:  # a command as a superscript or subscript
            sign = "^" if groups[1] == "superscript" else "_"
            return text.replace("COMMAND", groups[0]).replace("SIGN", sign)
        return text
    return ""
