#!/usr/bin/env python3
"""Measure: of the pages built from real Quarto documents, the share that show no Quarto
syntax left as text, and every callout rendered.

Usage: python bench/quarto_share.py DIR [DIR ...] [--jobs N] [--worst 10] [--keep FOLDER]

Each DIR is a Quarto project (a blog, or the Quarto documentation). It is imported into a
new temporary site with `blogbuild import quarto`, built with `blogbuild build --drafts`
(pictures published as they are, no social cards or search index: the measure reads
text), and every page built from a `.qmd` document is parsed. A page is clean when its text
(outside <pre>, <code>, <script> and <style>) holds no line starting with `:::`, no raw
cross-reference (`@fig-x`, `@tbl-x`, `@eq-x`, `@sec-x`, …), no raw cell brace (a
```` ```{python} ```` fence, an inline `` `{r} x` `` cell, a code block whose language is
`{r}`) and no raw shortcode (`{{<`), and when it holds at least as many callouts as the
document has callout divs (`::: {.callout-note}`, `::: callout-tip`). A document whose
page was not built (the build failed, or the page is missing) is not clean. Prints the
share of clean pages per source, the count of each leftover, and the worst pages. A
document the build refuses is set aside (replaced by a stub) and the site built again, so
that the other pages are measured; it counts as an error.
"""

from __future__ import annotations

import argparse
import os
import posixpath
import re
import subprocess
import sys
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from xml.etree.ElementTree import Element

import html5lib

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "src"))

from blogbuild.config import Config  # noqa: E402
from blogbuild.content.discover import POSTS_DIR  # noqa: E402
from blogbuild.content.frontmatter import meta_hint  # noqa: E402
from blogbuild.content.linkmap import document_url  # noqa: E402
from blogbuild.content.walk import ignored_path  # noqa: E402
from blogbuild.importers.frontmatter import split  # noqa: E402
from blogbuild.urls import output_path  # noqa: E402

KINDS = ("div", "xref", "cell", "shortcode", "callout", "error", "not built")
#: Builds of one site at most: the first, then again without the documents that failed.
ROUNDS = 4
_CULPRIT = re.compile(r"^content/(.+?):\d+(?::\d+)?: error: (.*)$")
_DIV = re.compile(r"^\s*:::")
_XREF = re.compile(r"(?<![\w@./-])@(?:fig|tbl|eq|sec|thm|lem|cor|prp|cnj|def|exm|exr|lst|"
                   r"tip|nte|wrn|imp|cau)-[\w-]+")
_CELL_TEXT = re.compile(r"```+\s*\{\{?[A-Za-z]")
_CELL_INLINE = re.compile(r"^\{(?:python|r|julia|ojs)\}\s")
_SHORTCODE = re.compile(r"\{\{<")
_CALLOUT = re.compile(r"^\s*:{3,}\s*(?:\{[^}\n]*\.callout-(?:note|tip|warning|important|"
                      r"caution)\b|callout-(?:note|tip|warning|important|caution)\b)")
_FENCE = re.compile(r"^\s*(`{3,}|~{3,})")
_ERROR = re.compile(r"^.*?: error: ")
_SKIPPED = {"pre", "code", "script", "style", "template", "noscript"}
#: Added to each imported site.yaml: the measure reads text, so the pictures are published
#: as they are (hundreds of photographs per blog would take most of the time), and neither
#: social cards nor a search index are made.
FAST = "images: false\nsocial_cards: false\nsearch: false\n"


@dataclass
class Page:
    """One document's page and what was left on it."""

    rel: str
    left: Counter[str] = field(default_factory=Counter)
    examples: list[str] = field(default_factory=list)

    @property
    def clean(self) -> bool:
        return not self.left


def run(*args: str, cwd: Path, timeout: float) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO / "src")}
    return subprocess.run([sys.executable, "-m", "blogbuild", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=timeout, check=False)


def callouts_in(text: str) -> int:
    """The callout divs a document opens, outside its code blocks."""
    count, fence = 0, ""
    for line in text.split("\n"):
        match = _FENCE.match(line)
        if fence:
            if match is not None and match[1][0] == fence[0] and len(match[1]) >= len(fence) \
                    and not line.strip()[len(match[1]):].strip():
                fence = ""
        elif match is not None:
            fence = match[1]
        elif _CALLOUT.match(line):
            count += 1
    return count


def _texts(node: Element, out: list[str]) -> None:
    """The text of `node` outside code, scripts, styles and comments (an author's hidden
    notes: not on the page), in document order."""
    if not isinstance(node.tag, str) or node.tag in _SKIPPED:
        if node.tail:
            out.append(node.tail)
        return
    if node.text:
        out.append(node.text)
    for child in node:
        _texts(child, out)
    if node.tail:
        out.append(node.tail)


def inspect(html: Path, source: str, page: Page) -> None:
    root: Element = html5lib.parse(html.read_text(encoding="utf-8"),
                                   namespaceHTMLElements=False)
    body = root.find("body")
    if body is None:
        page.left["not built"] += 1
        return
    parts: list[str] = []
    _texts(body, parts)
    text = "".join(parts)

    def found(kind: str, what: str) -> None:
        page.left[kind] += 1
        if len(page.examples) < 3:
            page.examples.append(f"{kind}: {what.strip()[:70]!r}")

    for line in text.split("\n"):
        if _DIV.match(line):
            found("div", line)
    for pattern, kind in ((_XREF, "xref"), (_CELL_TEXT, "cell"), (_SHORTCODE, "shortcode")):
        for match in pattern.finditer(text):
            found(kind, text[max(0, match.start() - 10):match.end() + 30])
    parents = {child: parent for parent in body.iter() for child in parent}
    for code in body.iter("code"):
        inline = parents.get(code) is not None and parents[code].tag != "pre"
        if inline and _CELL_INLINE.match("".join(code.itertext())):
            found("cell", "`" + "".join(code.itertext()) + "`")
        if "{" in (code.get("class") or ""):
            found("cell", f"code block of class {code.get('class')}")
    wanted = callouts_in(source)
    made = sum(1 for e in body.iter() if e.get("data-callout") is not None)
    if made < wanted:
        found("callout", f"{wanted - made} of {wanted} callouts not rendered")


def page_of(site: Path, rel: str, text: str) -> Path:
    """The HTML file the build writes for the content document `rel` (of `text`)."""
    config = Config()
    try:
        front = split(text)[0]
        meta = meta_hint(front, posixpath.splitext(posixpath.basename(rel))[0])
    except Exception:  # a date or front matter the quick reading refuses
        meta = meta_hint({}, "")
    kind = "post" if rel.startswith(POSTS_DIR + "/") else "page"
    return site / "_site" / output_path(document_url(config, rel, kind, meta))


def measure(source: Path, work: Path, *, jobs: int, timeout: float) -> tuple[
        list[Page], str]:
    """Import, build and inspect one project: its pages and the build's first words.

    A document the build refuses (an error at one of its lines) is replaced by a stub with
    a title and no text, and the site built again (at most ROUNDS times), so that one
    broken post does not hide every other page: the stubbed documents count as errors."""
    site = work / source.name
    site.mkdir(parents=True)
    imported = run("import", "quarto", str(source), "--config", str(site / "site.yaml"),
                   cwd=site, timeout=timeout)
    if imported.returncode != 0:
        return [], "import failed: " + imported.stderr.strip()[-300:]
    with (site / "site.yaml").open("a", encoding="utf-8") as handle:
        handle.write(FAST)
    content = site / "content"
    texts = {p.relative_to(content).as_posix(): p.read_text(encoding="utf-8", errors="replace")
             for p in sorted(content.rglob("*.qmd"))}
    texts = {rel: text for rel, text in texts.items()
             if not ignored_path(rel.split("/"), in_content=True)}
    failed: dict[str, str] = {}
    status = ""
    for round_ in range(ROUNDS):
        built = run("build", "--drafts", "--quiet", "--jobs", str(jobs), "--no-cache",
                    cwd=site, timeout=timeout)
        errors = [line for line in built.stderr.splitlines() if ": error: " in line]
        if round_ == 0:
            said = Counter(_ERROR.sub("", line)[:90] for line in errors)
            warnings = sum(1 for line in built.stderr.splitlines() if ": warning: " in line)
            status = f"first build exit {built.returncode}, {len(errors)} errors, " \
                     f"{warnings} warnings" + "".join(f"\n    {n} x {what}"
                                                      for what, n in said.most_common(3))
        culprits = {m[1]: m[2] for m in map(_CULPRIT.match, errors)
                    if m is not None and m[1] in texts and m[1] not in failed}
        if built.returncode == 0 or not culprits:
            break
        for rel, message in culprits.items():
            failed[rel] = message
            # Each stub its own text: a post and a page of the same bytes fail the build.
            (content / rel).write_text(f"---\ntitle: Set aside\n---\n\n{rel}\n",
                                       encoding="utf-8")
    if failed:
        status += f"\n  {len(failed)} document(s) set aside for errors, then: build exit " \
                  f"{built.returncode}"
    pages = []
    for rel, text in texts.items():
        page = Page(rel)
        html = page_of(site, rel, text)
        if rel in failed:
            page.left["error"] += 1
            page.examples.append(f"error: {failed[rel][:70]!r}")
        elif built.returncode != 0 or not html.is_file():
            page.left["not built"] += 1
        else:
            inspect(html, text, page)
        pages.append(page)
    return pages, status


def report(name: str, pages: list[Page], status: str, worst: int) -> None:
    clean = sum(1 for p in pages if p.clean)
    share = 100 * clean / len(pages) if pages else 0.0
    built = sum(1 for p in pages if not p.left["error"] and not p.left["not built"])
    print(f"{name}: {clean}/{len(pages)} pages clean ({share:.0f}%), {clean}/{built} of the "
          f"pages built; {status}")
    kinds = Counter(k for p in pages for k in p.left if p.left[k])
    print("  pages with: " + ", ".join(f"{k} {kinds[k]}" for k in KINDS))
    for page in sorted(pages, key=lambda p: -sum(p.left.values()))[:worst]:
        if page.clean:
            break
        print(f"  {sum(page.left.values()):4d} {page.rel}: " + "; ".join(page.examples))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("sources", nargs="+", type=Path, help="Quarto project folders")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--worst", type=int, default=8, help="pages shown per source")
    parser.add_argument("--timeout", type=float, default=3600.0)
    parser.add_argument("--keep", type=Path, default=None,
                        help="make the sites in this folder and keep them")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="quarto-share-") as scratch:
        work = args.keep or Path(scratch)
        total: list[Page] = []
        for source in args.sources:
            pages, status = measure(source.resolve(), work, jobs=args.jobs,
                                    timeout=args.timeout)
            report(source.name, pages, status, args.worst)
            total += pages
        clean = sum(1 for p in total if p.clean)
        print(f"all: {clean}/{len(total)} pages clean "
              f"({100 * clean / len(total) if total else 0:.0f}%)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
