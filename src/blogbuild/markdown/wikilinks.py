"""Obsidian's wiki links and embeds: `[[Note]]`, `[[Note#Heading|text]]`, `![[plot.png|300]]`.

The inline rule only reads the syntax and leaves a `wikilink` token. A core rule right
after the inline parse finds what each names through the link map (see
blogbuild.content.wikinames) and turns it into the tokens Markdown would have made:
``link_open``/``link_close`` or ``image`` with a site-root URL, so the links plugin gives
them the sub-path prefix, the feed's absolute URL and the check that the target exists. A
name that finds nothing, or more than one thing, is shown as its text in a
``span.wikilink-missing`` with a warning. Every lookup is recorded in ``env["wiki"]``, so a
render is reused only while each name still finds the same.

Outside a site (no link map), `[[x]]` stays text, as CommonMark has it; so does `[[x]]`
when `[x]` is a link reference definition, which CommonMark makes a link.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass

from markdown_it import MarkdownIt
from markdown_it.common.utils import normalizeReference
from markdown_it.rules_core import StateCore
from markdown_it.rules_inline import StateInline
from markdown_it.token import Token

from blogbuild.content.linkmap import LinkMap, wiki_key
from blogbuild.content.wikinames import Match
from blogbuild.markdown.env import Env, report, token_line
from blogbuild.readers import is_document
from blogbuild.urls import encode_path, slugify

#: `[[…]]` or `![[…]]` on one line, with no bracket inside (Obsidian forbids them in names).
_WIKI = re.compile(r"(!?)\[\[([^\[\]\n]{1,1000})\]\]")
#: `|` separates the target from the text; `\|` too, as written inside a table cell.
_PIPE = re.compile(r"\\?\|")
_SIZE = re.compile(r"(\d{1,5})(?:x(\d{1,5}))?")
IMAGE_EXTENSIONS = frozenset({
    ".apng", ".avif", ".bmp", ".gif", ".ico", ".jpeg", ".jpg", ".png", ".svg", ".webp"})
_FIX_NOTE = "write [[Exact title]] or a link to the .md file"
#: A file name's extension, as attachments have them (`Node.js` is a note, though: notes
#: are tried first).
_EXTENSION = re.compile(r"\.[A-Za-z0-9]{1,8}$")


def wikilink(state: StateInline, silent: bool) -> bool:
    """`[[…]]` and `![[…]]`: a `wikilink` token holding the parts, resolved later."""
    src, pos = state.src, state.pos
    if src[pos] not in "![" or state.env.get("links") is None:
        return False
    match = _WIKI.match(src, pos, state.posMax)
    if match is None or (not match[1] and pos > 0 and src[pos - 1] == "["):
        return False  # `[[[x]]]` is no wiki link
    if src.startswith("(", match.end()):  # `[[1]](url)`: a link whose text is `[1]`
        return False
    embed, inner = bool(match[1]), match[2]
    if not embed and normalizeReference(inner) in state.env.get("references", {}):
        return False  # CommonMark: `[[x]]` with `[x]: /url` defined is a link in brackets
    parts = _PIPE.split(inner, 1)
    target = parts[0].strip()
    if not target.lstrip("#^"):
        return False
    if not silent:
        token = state.push("wikilink", "", 0)
        token.markup = match[0]
        token.meta = {"embed": embed, "target": target, "offset": pos,
                      "shown": parts[1].strip() if len(parts) > 1 else ""}
    state.pos = match.end()
    return True


@dataclass
class _Link:
    """One wiki link being resolved: where it is, and what its author wrote."""

    env: Env
    links: LinkMap
    line: int
    markup: str
    target: str
    shown: str

    def warn(self, message: str) -> None:
        report(self.env, self.line, f"{self.markup}: {message}")

    def find(self, name: str, source_dir: str | None = None) -> Match:
        """What `name` finds; the lookup is recorded so the render stays valid only as
        long as the same name finds the same."""
        key = wiki_key(name, source_dir)
        self.env.setdefault("wiki", {})[key] = self.links.outcome(key)
        return self.links.find(key)

    def choose(self, match: Match, files: bool) -> str:
        """This link written with the path of the first thing `match` found."""
        embed = self.markup.startswith("!")
        shown = self.shown or ("" if embed else self.target)
        first = match.rels[0]
        path = first.partition("/")[2] if files else posixpath.splitext(first)[0]
        return f"{'!' if embed else ''}[[{path}{'|' + shown if shown else ''}]]"

    def unique(self, match: Match, what: str, fix: str) -> str | None:
        """The one path `match` found, or None after a warning. `what` is "documents"
        (paths from content/) or "files" (paths from the site folder)."""
        if len(match.rels) == 1:
            return match.rels[0]
        files = what == "files"
        if match.rels:
            listed = ", ".join(rel if files else f"content/{rel}" for rel in match.rels)
            path = "more of its path" if files else "its path from content/"
            self.warn(f"{len(match.rels)} {what} have this {match.rule}: {listed}; "
                      f"write {path} to choose one, as {self.choose(match, files)}")
        else:
            self.warn(fix)
        return None


def _text(content: str) -> Token:
    token = Token("text", "", 0)
    token.content = content
    return token


def _link(href: str, text: str) -> list[Token]:
    opening = Token("link_open", "a", 1)
    opening.attrs = {"href": href, "class": "wikilink"}
    return [opening, _text(text), Token("link_close", "a", -1)]


def _missing(text: str) -> list[Token]:
    opening = Token("wikilink_missing_open", "span", 1)
    opening.attrs = {"class": "wikilink wikilink-missing"}
    return [opening, _text(text), Token("wikilink_missing_close", "span", -1)]


def _page_url(link: _Link, rel: str) -> str | None:
    """The site-root URL of a document a link found, or None (a draft: with a warning)."""
    url = link.links.documents.get(rel)
    if url is None:
        what = "a draft, built only with --drafts" if rel in link.links.drafts \
            else "not built (another file has its URL)"
        link.warn(f"content/{rel} is {what}; publish it or remove the link")
    return url


def _anchor(link: _Link, heading: str) -> str:
    """The `#id` of a heading named after `#` ('' for a block reference, with a warning)."""
    last = heading.split("#")[-1].strip()
    if last.startswith("^"):
        link.warn(f"block references ({'#' + last}) are not supported, so this links to the "
                  "whole page; link to a heading instead, as [[Note#Heading]]")
        return ""
    return "#" + slugify(last) if last else ""


def _looks_like_file(name: str) -> bool:
    return bool(_EXTENSION.search(name)) and not is_document(name.lower())


def _from_content(link: _Link, name: str) -> str:
    """A name written relative to this file (`./sibling`, `../notes/x`, as Quartz allows)
    as its path from content/; any other name as it is."""
    if not name.startswith(("./", "../")):
        return name
    return posixpath.normpath(posixpath.join(str(link.env.get("source_dir") or ""), name))


def _note(link: _Link) -> list[Token]:
    name, _, heading = (part.strip() for part in link.target.partition("#"))
    shown = link.shown or (f"{name} > {heading}" if name and heading
                           and not heading.startswith("^") else name or heading)
    fragment = _anchor(link, heading) if heading else ""
    if not name:  # [[#Heading]]: this page
        return _link(fragment, shown) if fragment else _missing(shown)
    match = link.find(_from_content(link, name))
    if not match.rels and _looks_like_file(name):  # [[report.pdf]]: a link to the file
        return _file_link(link, name, shown)
    rel = link.unique(match, "documents",
                      f"no post or page is named {name!r} (tried its path, file name, slug "
                      f"and title); {_FIX_NOTE}")
    url = _page_url(link, rel) if rel is not None else None
    if url is None:
        return _missing(shown)
    return _link(encode_path(url) + fragment, shown)


def _file(link: _Link, name: str) -> str | None:
    """The site-root URL of an attachment (under content/ or static/), or None after a
    warning."""
    source_dir = str(link.env.get("source_dir") or "")
    rel = link.unique(link.find(name, source_dir), "files",
                      f"no file named {name!r} is beside this file or anywhere under "
                      "content/ or static/; put it there or fix the name")
    return link.links.file_url(rel) if rel is not None else None


def _file_link(link: _Link, name: str, shown: str) -> list[Token]:
    url = _file(link, name)
    return _link(encode_path(url), shown) if url is not None else _missing(shown)


def _alt_and_size(options: list[str]) -> tuple[str, re.Match[str] | None]:
    """What follows the `|`s of an embed: alt text, then a size, each optional."""
    size = _SIZE.fullmatch(options[-1]) if options else None
    if size is not None:
        options = options[:-1]
    return "|".join(options).strip(), size


def _image(url: str, alt: str, size: re.Match[str] | None) -> list[Token]:
    image = Token("image", "img", 0)
    image.attrs = {"src": encode_path(url), "alt": ""}
    if size is not None:
        image.attrs["width"] = size[1]
        if size[2]:
            image.attrs["height"] = size[2]
    image.content = alt
    image.children = [_text(alt)]
    return [image]


def _embed(link: _Link) -> list[Token]:
    """An image; a link to another file or a note, with a warning; or the text."""
    name = link.target.partition("#")[0].strip()
    options = [*_PIPE.split(link.shown)] if link.shown else []
    if not _looks_like_file(name):
        link.warn("embedding a note's text is not supported, so it is shown as a link; "
                  f"copy the text in, or write [[{link.target}]] to link to it")
        return _note(link)
    alt, size = _alt_and_size(options)
    url = _file(link, name)
    if url is None:
        return _missing(alt or name)
    if posixpath.splitext(name)[1].lower() not in IMAGE_EXTENSIONS:
        link.warn(f"only images can be embedded, so it is shown as a link; write "
                  f"[{posixpath.basename(name)}]({url}) to link to it")
        return _link(encode_path(url), link.shown or name)
    return _image(url, alt or posixpath.splitext(posixpath.basename(name))[0], size)


def resolve_wikilinks(state: StateCore) -> None:
    """Turn every `wikilink` token into a link, an image or the text with a warning."""
    links: LinkMap | None = state.env.get("links")
    if links is None:
        return
    for block in state.tokens:
        if block.type != "inline" or not any(c.type == "wikilink" for c in block.children or []):
            continue
        children: list[Token] = []
        line, counted = token_line(state.env, block), 0  # lines up to offset `counted`
        depth = 0  # inside how many links: a link in a link would be invalid HTML
        for child in block.children or []:
            depth += {"link_open": 1, "link_close": -1}.get(child.type, 0)
            if child.type != "wikilink":
                children.append(child)
                continue
            meta = child.meta
            line += block.content.count("\n", counted, meta["offset"])  # offsets only grow
            counted = meta["offset"]
            link = _Link(state.env, links, line, child.markup, meta["target"], meta["shown"])
            made = _embed(link) if meta["embed"] else _note(link)
            if made:  # where the link starts, for the messages of the links plugin
                made[0].meta = {**(made[0].meta or {}), "offset": meta["offset"]}
            children += [t for t in made if t.type not in ("link_open", "link_close")] \
                if depth else made
        block.children = children


def wikilinks_plugin(md: MarkdownIt) -> None:
    # Before `link`: `[[x]]` would otherwise be read as a link label.
    md.inline.ruler.before("link", "wikilink", wikilink)
    # Right after the inline parse: headings, titles and the links plugin see the result.
    md.core.ruler.after("inline", "wikilinks", resolve_wikilinks)
