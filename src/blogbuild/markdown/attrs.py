"""kramdown block attribute lists and heading ids: `{: .class #id key="value"}`, `## T {#id}`.

    A paragraph.                     ->  <p class="lead" id="intro">A paragraph.</p>
    {: .lead #intro}

The list on the line right after a block (paragraph, heading, list, blockquote, callout,
table, code, definition list) gives that block its attributes. Alone between a blank line
and a block it gives them to that block, as kramdown does. `## Title {#id}` at the end of a
heading (kramdown, Pandoc, Hugo) sets the heading's id; the TOC keeps ids unique.

Only attributes that cannot run code or change where a link goes are kept (`SAFE`, `data-*`;
never one whose value is a `javascript:`, `data:` or `file:` URL); the others are refused
with a warning naming them. kramdown's `* TOC` list marked `{:toc}` is dropped: every page
has its own table of contents.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from markdown_it import MarkdownIt
from markdown_it.rules_block import StateBlock
from markdown_it.rules_core import StateCore
from markdown_it.token import Token

from blogbuild.markdown.env import Env, report, source_line
from blogbuild.urls import is_safe_url

__all__ = ["SAFE", "UNSAFE_STYLE", "attrs_plugin", "parse_attributes", "report_problems"]

SAFE = frozenset({"class", "id", "title", "lang", "dir", "width", "height", "align"})
_DATA = re.compile(r"data-[a-z0-9][a-z0-9._:-]*")
#: What a `style` may not hold: anything that loads a resource or runs code (old IE), and
#: backslashes, which could spell those in CSS escapes.
UNSAFE_STYLE = re.compile(r"url\s*\(|image-set|expression|@import|javascript|behavior|\\",
                           re.IGNORECASE)
# `{: …}` (kramdown) or `{.class …}` / `{#id …}` (Pandoc, Hugo); not `{::ext}`, `{:/ext}` nor
# `{:ref: …}`.
_LINE = re.compile(r"\{(?::(?![:\w-]*:|/)|(?=[.#]))[ \t]*(.*?)[ \t]*\}[ \t]*$")
_HEADING_ID = re.compile(r"[ \t]+\{[ \t]*([.#][^{}]*?|-)[ \t]*\}[ \t]*$")
_ITEM = re.compile(
    r"""\.([\w-]+)|\#([\w:.-]+)|([A-Za-z_][\w:.-]*)=(?:"([^"]*)"|'([^']*)'|([^\s"'}]+))|([\w-]+)"""
)
_TARGETS = ("paragraph_open", "heading_open", "bullet_list_open", "ordered_list_open",
            "blockquote_open", "callout_open", "table_open", "dl_open", "fence", "code_block",
            "hr", "math_block", "math_block_eqno")


class Attributes:
    """What one attribute list says: the attributes kept, names refused, references, leftovers."""

    def __init__(self, text: str) -> None:
        self.attrs: dict[str, str] = {}
        self.refused: list[str] = []
        self.refs: list[str] = []
        self.file = ""  # Chirpy's `{: file="path" }` under a code block: its title
        #: Pandoc's and Quarto's `fig-alt="…"` after a picture: its alt text, where the
        #: bracketed text is its caption (None: not given).
        self.alt: str | None = None
        pos, rest = 0, []
        for match in _ITEM.finditer(text):
            rest.append(text[pos : match.start()])
            pos = match.end()
            self._add(match)
        rest.append(text[pos:])
        self.unread = " ".join(part.strip() for part in rest if part.strip())

    def _add(self, match: re.Match[str]) -> None:
        cls, ident, name, *values, ref = match.groups()
        if cls:
            self.attrs["class"] = f"{self.attrs.get('class', '')} {cls}".strip()
        elif ident:
            self.attrs["id"] = ident
        elif name:
            value = next((v for v in values if v is not None), "")
            if name.lower() == "file":
                self.file = value.replace('"', "")
            elif name.lower() == "fig-alt":
                self.alt = value
            elif name.lower() == "id" and (not value or len(value.split()) != 1):
                self.refused.append(name)  # an id is one word
            elif not is_safe_url(value.strip()):
                self.refused.append(name)  # `data-href="javascript:…"`: no value runs code
            elif name.lower() == "style" and not UNSAFE_STYLE.search(value):
                self.attrs["style"] = value.strip()
            elif name.lower() in SAFE or _DATA.fullmatch(name.lower()):
                key = name.lower()
                joined = f"{self.attrs.get(key, '')} {value}" if key == "class" else value
                self.attrs[key] = joined.strip()
            else:
                self.refused.append(name)
        elif ref == "-":
            self.attrs["class"] = f"{self.attrs.get('class', '')} unnumbered".strip()
        else:
            self.refs.append(ref)


def parse_attributes(text: str) -> Attributes:
    """Read the inside of an attribute list (`.class #id key="value" ref`)."""
    return Attributes(text)


def report_problems(env: Env, line: int, written: str, found: Attributes) -> None:
    if found.refused:
        report(env, line, f"attribute list {written}: refused {', '.join(found.refused)} (only "
               "class, id, title, lang, dir, width, height, align, data-* and a style that loads "
               "nothing are kept; write raw HTML for anything else)")
    refs = [ref for ref in found.refs if ref != "toc"]
    if refs or found.unread:
        what = ", ".join([*refs, *([found.unread] if found.unread else [])])
        report(env, line, f"attribute list {written}: cannot read {what} (blogbuild reads "
               '.class, #id and key="value"; attribute list definitions are not supported)')


def apply(token: Token, attrs: Mapping[str, str | int | float]) -> None:
    """Give `token` the attributes: classes add to its own, the rest replace."""
    for name, value in attrs.items():
        if name == "class" and token.attrGet("class"):
            token.attrSet("class", f"{token.attrGet('class')} {value}")
        else:
            token.attrSet(name, value)


def give(target: Token, found: Attributes) -> None:
    """Give `target` what `found` says; a code block takes `file=` as its title."""
    apply(target, found.attrs)
    if found.file and target.type == "fence":
        target.info = f'{target.info} title="{found.file}"'


def _opener(tokens: Sequence[Token], level: int) -> int | None:
    """Index of the last complete block at `level` (the opener of a closed one), or None."""
    if not tokens or tokens[-1].level != level or tokens[-1].nesting > 0:
        return None
    last = len(tokens) - 1
    if tokens[last].nesting == 0:
        return last if tokens[last].block and tokens[last].type != "inline" else None
    for i in range(last - 1, -1, -1):
        if tokens[i].level == level and tokens[i].nesting == 1:
            return i
    return None


def _attach_before(state: StateBlock, start_line: int, found: Attributes) -> bool:
    """Attach to the block ending on the line above; True when there was one."""
    index = _opener(state.tokens, state.level)
    if index is None:
        return False
    target = state.tokens[index]
    if not target.map or target.map[1] != start_line or target.type not in _TARGETS:
        return False
    if "toc" in found.refs and target.type in ("bullet_list_open", "ordered_list_open"):
        del state.tokens[index:]  # kramdown's TOC placeholder: the page has its own TOC
    else:
        give(target, found)
    return True


def block_attrs(state: StateBlock, start_line: int, end_line: int, silent: bool) -> bool:
    if state.is_code_block(start_line):
        return False
    pos = state.bMarks[start_line] + state.tShift[start_line]
    if state.src[pos : pos + 1] != "{":
        return False
    match = _LINE.match(state.src, pos, state.eMarks[start_line])
    if match is None:
        return False
    if silent:
        return True
    env = state.env
    found = parse_attributes(match.group(1))
    report_problems(env, source_line(env, start_line), match.group(0).strip(), found)
    state.line = start_line + 1
    if _attach_before(state, start_line, found):
        return True
    if start_line + 1 < end_line and not state.isEmpty(start_line + 1):
        token = state.push("block_attrs", "", 0)  # for the next block: see attrs_forward
        token.meta = {"found": found}
        token.map = [start_line, start_line + 1]
    elif "toc" not in found.refs:
        report(env, source_line(env, start_line), f"attribute list {match.group(0).strip()} "
               "belongs to no block: write it on the line right after the block it is for")
    return True


def attrs_forward(state: StateCore) -> None:
    """Give each pending list (one written above a block) to the next block at its level."""
    pending: list[Token] = []
    kept: list[Token] = []
    for token in state.tokens:
        if token.type == "block_attrs":
            pending.append(token)
            continue
        if pending and token.block:
            for marker in pending:
                if marker.level == token.level and token.type in _TARGETS:
                    give(token, marker.meta["found"])
            pending = [marker for marker in pending if marker.level < token.level]
        kept.append(token)
    state.tokens = kept
    _lift_from_tight_items(kept)


def _lift_from_tight_items(tokens: list[Token]) -> None:
    """A tight list item shows no `<p>`: a list meant for its paragraph goes to the `<li>`."""
    open_blocks: list[Token] = []
    for token in tokens:
        if token.type == "paragraph_open" and token.hidden and token.attrs:
            if open_blocks and open_blocks[-1].type == "list_item_open":
                apply(open_blocks[-1], token.attrs)
            token.attrs = {}
        if token.nesting == 1:
            open_blocks.append(token)
        elif token.nesting == -1 and open_blocks:
            open_blocks.pop()


def heading_attrs(state: StateCore) -> None:
    """`## Title {#id .class}`: strip the list from the heading's text, give it to the heading."""
    tokens = state.tokens
    for i, token in enumerate(tokens[:-1]):
        inline = tokens[i + 1]
        if token.type != "heading_open" or inline.type != "inline":
            continue
        match = _HEADING_ID.search(inline.content)
        if match is None:
            continue
        found = parse_attributes(match.group(1))
        if found.refs or found.unread:
            continue  # `## A {#b c}`? not an attribute list: leave the text alone
        inline.content = inline.content[: match.start()]
        report_problems(state.env, source_line(state.env, token.map[0] if token.map else 0),
                         match.group(0).strip(), found)
        apply(token, found.attrs)


def attrs_plugin(md: MarkdownIt) -> None:
    """Read `{: …}` block attribute lists and `{#id}` at the end of headings."""
    md.block.ruler.before(
        "fence", "block_attrs", block_attrs, {"alt": ["paragraph", "blockquote", "list"]}
    )
    md.core.ruler.after("block", "attrs_forward", attrs_forward)
    md.core.ruler.before("inline", "heading_attrs", heading_attrs)
