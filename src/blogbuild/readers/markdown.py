"""The reader of Markdown files (`.md`): YAML front matter between `---` lines, then the body
the Markdown pipeline renders."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import yaml

from blogbuild.config_model import Config
from blogbuild.content import frontmatter
from blogbuild.content.dates import BadDate
from blogbuild.content.frontmatter import FrontMatter, parse_meta, split_front_matter
from blogbuild.content.jobs import SourceJob
from blogbuild.content.linkmap import DocumentInfo
from blogbuild.diagnostics import ContentError, error, warning
from blogbuild.readers import Document, Unreadable, stem
from blogbuild.sourcetext import decode_source
from blogbuild.stages.context import Folders

#: What a document that cannot be read quickly raises (the render then says why).
UNREADABLE = (UnicodeDecodeError, ContentError, ValueError, TypeError, yaml.YAMLError,
              RecursionError, BadDate)


class MarkdownReader:
    """Front matter and body of a Markdown file."""

    def info(self, job: SourceJob, data: bytes, *, fast: bool) -> DocumentInfo | None:
        """`fast`: the front matter by `frontmatter.quick_front_matter`, the fields that place
        the document only (`meta_hint`)."""
        try:
            text = data.decode("utf-8")
            if "\r" in text:
                text = text.replace("\r\n", "\n").replace("\r", "\n")
            return front_info(job, text, fast=fast, quick=lambda front: front,
                              full=lambda text: split_front_matter(text, job.display))
        except UNREADABLE:
            return None

    def read(self, job: SourceJob, data: bytes, config: Config, folders: Folders) -> Document:
        try:
            text = decode_source(data, job.display)
            fm = split_front_matter(text, job.display)
            refuse_surrogates(fm, job.display)
            meta = parse_meta(fm, job.display, stem(job.path.name))
        except ContentError as exc:
            raise Unreadable(error(job.display, exc.line, exc.message)) from None
        problems = []
        if not fm.body.strip():
            what = "is empty" if not text.strip() else "has no text after its front matter"
            problems.append(warning(job.display, fm.body_line_offset + 1 if text.strip() else 0,
                                    f"the file {what}; write the post below the front matter"))
        return Document(job.display, fm, meta, fm.body, fm.body_line_offset, problems=problems)


def front_info(job: SourceJob, text: str, *, fast: bool,
               quick: Callable[[dict[str, Any]], dict[str, Any]],
               full: Callable[[str], FrontMatter]) -> DocumentInfo:
    """What the link map knows of a document whose text starts with YAML front matter:
    `fast`, the front matter as plain data (`quick` makes it the reader's: Quarto's dates,
    directory metadata) and the fields that place it; else the front matter as the render
    reads it (`full`). Raises what `UNREADABLE` names when the text cannot be read."""
    name = stem(job.path.name)
    if fast:
        front, front_text = frontmatter.quick_front_matter(text)
        meta = frontmatter.meta_hint(quick(front), name)
        body = text[len(front_text):]
    else:
        fm = full(text)
        meta = parse_meta(fm, job.display, name)
        body = fm.body
    return DocumentInfo(job.rel, job.kind, meta, meta.title or first_heading(body))


READER = MarkdownReader()

#: An ATX `# Title` line; the render makes the title of the first block when it is an H1.
_H1 = re.compile(r" {0,3}#[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*")


def first_heading(body: str) -> str | None:
    """The title a body's first line gives, read without Markdown (a hint: the render's
    title is the truth, and a different one makes the build look again)."""
    for line in body.lstrip("\n").split("\n", 1)[:1]:
        match = _H1.fullmatch(line)
        if match:
            return match[1].strip() or None
    return None


def refuse_surrogates(fm: FrontMatter, file: str) -> None:
    """A YAML escape such as "\\ud800" makes a lone surrogate: no page could hold it."""
    def bad(value: Any) -> bool:
        if isinstance(value, str):
            return any("\ud800" <= char <= "\udfff" for char in value)
        if isinstance(value, dict):
            return any(bad(k) or bad(v) for k, v in value.items())
        return isinstance(value, list) and any(bad(v) for v in value)

    for key, value in fm.data.items():
        if bad(value):
            node = fm.nodes.get(str(key))
            line = fm.doc.line(node) if fm.doc is not None and node is not None else 0
            raise ContentError(
                f"'{key}' holds an escaped UTF-16 surrogate (like \\ud800), which is not a "
                "character; write the character itself", file=file, line=line)
