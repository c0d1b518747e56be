"""Directory metadata: the `_metadata.yml` of a document's folder and of each folder above
it up to content/, merged under the document's own front matter as Quarto merges them.
A text that names a file beside a `_metadata.yml` (`bibliography: refs.bib`) is that file
for every document under it, as in Quarto.

The nearer file wins over the farther, the document over them all; mappings merge key by
key, lists join (the outer file's items first, each once), any other value is replaced.
Each file is read as front matter is (blogbuild.yamlcore, its values checked as a
document's are, every error at its own line) and recorded among the render's inputs, a
file that is not there too: one written, edited or removed later renders the documents
under it again. The quick look reads the same files as plain data (`quick_layers`).
"""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path
from typing import Any

from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from blogbuild.content.frontmatter import FrontMatter, parse_meta
from blogbuild.diagnostics import ContentError, Diagnostic, warning
from blogbuild.quarto.front import Modified, quarto_front
from blogbuild.sourcetext import decode_source
from blogbuild.yamlcore import STR, Document, compose, describe, safe_load, to_python

METADATA = "_metadata.yml"
#: Larger directory metadata is refused, as front matter is (it is metadata).
MAX_METADATA = 100_000


def metadata_paths(path: Path, rel: str) -> list[Path]:
    """The `_metadata.yml` files that apply to the document at `path` (`rel` under
    content/), the outermost (content/'s) first; none when `path` is not the document's
    file under its content folder (a file read on its own)."""
    if not str(path).replace(os.sep, "/").endswith("/" + rel):
        return []
    folder = path.parent
    found = []
    for _ in range(rel.count("/") + 1):
        found.append(folder / METADATA)
        folder = folder.parent
    return found[::-1]


def shown(path: Path, root: Path) -> str:
    """A path as messages and the render's inputs name it: from the site folder."""
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return path.as_posix()


def merged_front(fm: FrontMatter, file: str, paths: list[Path], root: Path,
                 inputs: dict[str, str], modified: Modified) -> FrontMatter:
    """`fm` (already Quarto's values made ours) over the directory metadata of `paths`;
    each file read is recorded in `inputs` (path from `root` -> digest). Raises
    ContentError at the line of the file it is about."""
    from blogbuild.bib.library import MISSING, digest_of

    layers: list[tuple[MappingNode, list[dict[str, str]] | None]] = []
    for path in paths:
        name = shown(path, root)
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            inputs[name] = MISSING
            continue
        except OSError as exc:
            raise ContentError(f"cannot read {name}: {exc.strerror or exc}; fix its "
                               "permissions or remove it", file=file) from None
        inputs[name] = digest_of(data)
        layer = _layer(data, name, modified)
        if layer is not None and paths:
            _relocate(layer[0], path.parent, paths[-1].parent)
        if layer is not None:
            layers.append(layer)
    if not layers:
        return fm
    root_node: MappingNode | None = None
    for node, _ in layers:
        root_node = node if root_node is None else _merge(root_node, node)
    own = MappingNode("tag:yaml.org,2002:map", [(ScalarNode("tag:yaml.org,2002:str", key),
                                                 value) for key, value in fm.nodes.items()])
    assert root_node is not None
    top = _merge(root_node, own)
    doc = _Layered(fm.doc, file, {id(n) for node, _ in layers for n in _walk(node)})
    nodes = {str(key.value): value for key, value in top.value}
    values = {key: to_python(value, doc) for key, value in nodes.items()}
    # The authors as written (quarto_front's, not a node): the nearest file's that has any.
    authors = [found for _, found in layers if found is not None]
    if "authors" in fm.data or authors:
        values["authors"] = fm.data.get("authors", authors[-1] if authors else None)
    return replace(fm, nodes=nodes, data=values, doc=doc)


def _layer(data: bytes, name: str, modified: Modified,
           ) -> tuple[MappingNode, list[dict[str, str]] | None] | None:
    """One `_metadata.yml` as nodes, its values checked as a document's front matter."""
    if len(data) > MAX_METADATA:
        raise ContentError(f"the file is larger than {MAX_METADATA:,} bytes, which is not "
                           "metadata; keep shared front matter short", file=name, line=1)
    text = decode_source(data, name)
    doc = compose(text, name, ContentError)
    if doc.root is None:
        return None
    if not isinstance(doc.root, MappingNode):
        raise doc.fail(f"{METADATA} must be 'key: value' lines, not {describe(doc.root)}",
                       doc.root)
    nodes = {str(key.value): value for key, value in doc.root.value}
    fm = FrontMatter({k: to_python(v, doc) for k, v in nodes.items()}, "", 0, nodes, doc)
    fm = quarto_front(fm, name, modified)
    parse_meta(fm, name, "")  # each value checked where it is written
    fixed = MappingNode(doc.root.tag, [(ScalarNode("tag:yaml.org,2002:str", key), value)
                                       for key, value in fm.nodes.items()],
                        doc.root.start_mark, doc.root.end_mark)
    return fixed, fm.data.get("authors")


def _relocate(node: Node, folder: Path, document: Path) -> None:
    """Every text of a `_metadata.yml` that names a file of its `folder` made the path of
    that file from the `document`'s folder, as Quarto does (`bibliography: refs.bib` in
    posts/_metadata.yml is posts/refs.bib for every post under it)."""
    for item in _walk(node):
        if not isinstance(item, ScalarNode) or item.tag != STR:
            continue
        text = str(item.value)
        if not text or len(text) > 300 or "\n" in text or ":" in text or text.startswith(
                ("/", "#")):
            continue
        try:
            found = (folder / text).is_file()
        except (OSError, ValueError):
            continue
        if found and folder != document:
            item.value = os.path.relpath(folder / text, document).replace(os.sep, "/")


def _merge(base: MappingNode, over: MappingNode) -> MappingNode:
    """`over` merged over `base` as Quarto merges configurations."""
    pairs = {str(key.value): (key, value) for key, value in base.value}
    for key, value in over.value:
        name = str(key.value)
        old = pairs.get(name)
        if old is None:
            pairs[name] = (key, value)
        elif isinstance(old[1], MappingNode) and isinstance(value, MappingNode):
            pairs[name] = (key, _merge(old[1], value))
        elif isinstance(old[1], SequenceNode) or isinstance(value, SequenceNode):
            pairs[name] = (key, _joined(old[1], value))
        else:
            pairs[name] = (key, value)
    return MappingNode(over.tag, list(pairs.values()), over.start_mark, over.end_mark)


def _joined(base: Node, over: Node) -> SequenceNode:
    """Two values as one list: the items of each (a value that is no list is one item),
    each scalar once."""
    items: list[Node] = []
    seen: set[tuple[str, str]] = set()
    for node in (base, over):
        for item in node.value if isinstance(node, SequenceNode) else [node]:
            if isinstance(item, ScalarNode):
                if (item.tag, str(item.value)) in seen:
                    continue
                seen.add((item.tag, str(item.value)))
            items.append(item)
    return SequenceNode("tag:yaml.org,2002:seq", items, over.start_mark, over.end_mark)


def _walk(node: Node) -> list[Node]:
    found, stack = [], [node]
    while stack:
        item = stack.pop()
        found.append(item)
        if isinstance(item, SequenceNode):
            stack.extend(item.value)
        elif isinstance(item, MappingNode):
            stack.extend(v for _, v in item.value)
    return found


class _Layered(Document):
    """The document's own YAML with values from directory metadata among its nodes: a
    message about one of those (checked in its own file already) has no line here."""

    def __init__(self, own: Document | None, file: str, foreign: set[int]) -> None:
        super().__init__(None, "", file, ContentError, 1)
        self.own = own
        self.foreign = foreign

    def line(self, node: Node) -> int:
        if id(node) in self.foreign or self.own is None:
            return 0
        return self.own.line(node)


def quick_layers(paths: list[Path]) -> dict[str, Any]:
    """The directory metadata of `paths` as plain data, merged (the quick look: a file that
    cannot be read counts as empty; the full reading says why)."""
    merged: dict[str, Any] = {}
    for path in paths:
        try:
            data = path.read_bytes()
        except OSError:
            continue
        if len(data) > MAX_METADATA:
            continue
        loaded = safe_load(data.decode("utf-8", "replace"))
        if isinstance(loaded, dict):
            merged = merge_plain(merged, {str(k): v for k, v in loaded.items()})
    return merged


def merge_plain(base: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    """`_merge` of plain data."""
    out = dict(base)
    for key, value in over.items():
        old = out.get(key)
        if key not in out:
            out[key] = value
        elif isinstance(old, dict) and isinstance(value, dict):
            out[key] = merge_plain(old, value)
        elif isinstance(old, list) or isinstance(value, list):
            items = [*(old if isinstance(old, list) else [old]),
                     *(value if isinstance(value, list) else [value])]
            out[key] = [v for i, v in enumerate(items) if not _seen_before(items, i)]
        else:
            out[key] = value
    return out


def _seen_before(items: list[Any], index: int) -> bool:
    value = items[index]
    return not isinstance(value, (dict, list)) and any(
        not isinstance(v, (dict, list)) and type(v) is type(value) and v == value
        for v in items[:index])


VARIABLES = "_variables.yml"


def read_variables(content: Path, root: Path, inputs: dict[str, str],
                   ) -> tuple[dict[str, Any] | None, Diagnostic | None]:
    """The site's `_variables.yml` (content/'s, for `{{< var key >}}`), recorded among
    the render's inputs; None and a warning when it cannot be read."""
    from blogbuild.bib.library import MISSING, digest_of

    path = content / VARIABLES
    name = shown(path, root)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        inputs[name] = MISSING
        return None, None
    except OSError as exc:
        return None, warning(name, 0, f"cannot read the file: {exc.strerror or exc}")
    inputs[name] = digest_of(data)
    try:
        doc = compose(decode_source(data, name), name, ContentError)
        value = to_python(doc.root, doc) if doc.root is not None else {}
    except ContentError as exc:
        return None, warning(name, exc.line, f"{exc.message}; its variables are not read")
    if not isinstance(value, dict):
        return None, warning(name, 1, f"{VARIABLES} must be 'key: value' lines; its "
                             "variables are not read")
    return value, None
