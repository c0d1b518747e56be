"""Footnote definitions that would be lost: nothing refers to them, or a second one has
their label.

mdit-py-plugins' footnote plugin shows a definition only when a reference uses it, and of
two definitions of one label it keeps the last. Both are left as the plugin has them, as
Pandoc does (an unused note is not shown: a numbered note no text leads to, with a back
link to nowhere, would puzzle a reader), but neither goes silently: each is a warning at
the definition's line, saying what to write.
"""

from __future__ import annotations

from markdown_it import MarkdownIt
from markdown_it.rules_core import StateCore
from markdown_it.token import Token

from blogbuild.markdown.env import report, token_line


def _unused_footnotes(state: StateCore) -> None:
    refs = state.env.get("footnotes", {}).get("refs")
    if not refs:  # no footnote defined: most posts stop here
        return
    seen: dict[str, Token] = {}
    for token in state.tokens:
        if token.type != "footnote_reference_open":
            continue
        label = token.meta["label"]
        line = token_line(state.env, token)
        if label in seen:
            report(state.env, token_line(state.env, seen[label]),
                   f"the footnote [^{label}] is defined again at line {line}, and only that "
                   "definition is shown; remove one of them or give it another label")
        elif refs.get(":" + label, -1) < 0:
            report(state.env, line,
                   f"the footnote [^{label}] is defined here but nothing refers to it; "
                   f"refer to it with [^{label}] or remove it")
        seen[label] = token


def footnotes_plugin(md: MarkdownIt) -> None:
    """Install after the footnote plugin: the rule runs before it gathers the notes."""
    md.core.ruler.before("footnote_tail", "unused_footnotes", _unused_footnotes)
