"""GitHub task lists (`- [x] done`): the checkbox gets an accessible name.

markdown-it writes a bare disabled `<input type="checkbox">` in front of the item's
text. A form control without a name fails accessibility checks, and a screen reader
announces only "checkbox". The box says what it shows, "done" or "to do"; the item's
text follows it as before.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.token import Token
from markdown_it.utils import OptionsDict

from blogbuild.markdown.env import Env


def _list_item_open(self: Any, tokens: Sequence[Token], idx: int, options: OptionsDict,
                    env: Env) -> str:
    token = tokens[idx]
    html = str(self.renderToken(tokens, idx, options, env))
    if not token.meta or "checked" not in token.meta:
        return html
    if token.meta["checked"]:
        return html + ('<input class="task-list-item-checkbox" type="checkbox" disabled'
                       ' checked aria-label="done"> ')
    return html + '<input class="task-list-item-checkbox" type="checkbox" disabled' \
                  ' aria-label="to do"> '


def tasks_plugin(md: MarkdownIt) -> None:
    md.options["tasklists"] = True
    md.add_render_rule("list_item_open", _list_item_open)
