"""The index files blogbuild writes for Pagefind's search box.

- They hold what Pagefind's own index of the same pages holds: every word, on every page,
  at every location and weight, with its diacritic variants and meta fields.
- After any edit they are the bytes a clean build writes.
- An edit gives Pagefind only the edited page and rewrites only the chunks of its words.
"""

from __future__ import annotations

import array
import base64
import dataclasses
import gzip
import io
import json
import os
import pickle
import shlex
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import cbor2
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from blogbuild.commands.build import build
from blogbuild.diagnostics import BuildFailed
from blogbuild.pipeline.store import RenderCache
from blogbuild.search import cuts, splice
from blogbuild.search import format as fmt
from blogbuild.search.chunks import Chunk
from process_helpers import build_in_a_new_process
from search_helpers import pagefinds_own_index

SITE_YAML = 'title: "Index"\nbase_url: "https://example.org/blog/"\nposts_per_page: 5\n'
WORDS = ("latency", "throughput", "gradient", "tensor", "kernel", "cache", "café", "naïve",
         "résumé", "Zürich", "東京", "e-mail", "don't", "x86_64", "3.14159")


def post_text(n: int) -> str:
    pick = [WORDS[(n * 7 + k) % len(WORDS)] for k in range(6)]
    return (f"---\ntitle: Post {n} on {pick[0]}\ntags: [t{n % 3}]\n---\n\n"
            f"# Heading about {pick[1]}\n\nA paragraph with {' '.join(pick)} and number {n}.\n\n"
            f"## Part {n}\n\nInline $x_{n}^2$ math, `code_{n}` and more {pick[2]} text.\n\n"
            f"```python\ndef f_{n}(x):\n    return x * {n}\n```\n")


def make_site(root: Path, posts: int) -> Path:
    (root / "content" / "posts").mkdir(parents=True)
    (root / "site.yaml").write_text(SITE_YAML)
    for n in range(posts):
        day = 1 + n % 28
        (root / "content" / "posts" / f"2024-{1 + n // 28:02d}-{day:02d}-p{n}.md").write_text(
            post_text(n))
    (root / "content" / "about.md").write_text("---\ntitle: About\n---\n\nAbout café things.\n")
    return root


@pytest.fixture
def small_chunks(monkeypatch: pytest.MonkeyPatch, index_here: None) -> None:
    """Chunks of a few words, so that a small site has many (in this process: the index
    is made here)."""
    monkeypatch.setattr(cuts, "MIN_UNITS", 40)
    monkeypatch.setattr(cuts, "EVERY", 4)
    monkeypatch.setattr(cuts, "MAX_UNITS", 160)


def _unpack(path: Path) -> Any:
    return cbor2.loads(gzip.decompress(path.read_bytes())[len(fmt.SIGNATURE):])


def read_index(folder: Path) -> tuple[dict[str, Any], dict[str, Any]]:
    """Pages by URL (word count, fragment), and every word's postings by URL, with meta
    fields by name: what a search can find, independent of page numbers and chunking."""
    entry = json.loads((folder / "pagefind-entry.json").read_text())
    ((_lang, info),) = entry["languages"].items()
    meta = _unpack(folder / f"pagefind.{info['hash']}.pf_meta")
    _version, pages, chunks, _filters, _sorts, fields = meta
    urls, found = [], {}
    for name, count in pages:
        data = gzip.decompress((folder / "fragment" / f"{name}.pf_fragment").read_bytes())
        page = json.loads(data[len(fmt.SIGNATURE):])
        urls.append(page["url"])
        found[page["url"]] = (count, page)
    assert info["page_count"] == len(pages)

    def postings(entries: list[Any]) -> dict[str, Any]:
        out, number = {}, 0
        for delta, locs, meta_locs in entries:
            number += delta
            out[urls[number]] = (locs, [fields[-m - 1] if m < 0 else m for m in meta_locs])
        return out

    words: dict[str, Any] = {}
    for _from, _to, name in chunks:
        for word, entries, variants in _unpack(folder / "index" / f"{name}.pf_index")[0]:
            assert word not in words
            words[word] = (postings(entries), {v: postings(p) for v, p in variants})
    return found, words


def tree(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def test_the_index_holds_what_pagefinds_own_index_holds(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, small_chunks: None) -> None:
    site = make_site(tmp_path / "site", 40)  # enough for two Pagefind processes
    build(site / "site.yaml")
    ours = read_index(site / "_site" / "pagefind")
    # Pagefind's own index of the same pages, read in one process, kept as it wrote it.
    theirs_folder = tmp_path / "theirs"
    pagefinds_own_index(monkeypatch, lambda: build(site / "site.yaml", output=tmp_path / "ref",
                                                   use_cache=False), theirs_folder)
    theirs = read_index(theirs_folder)
    assert len(ours[0]) == 41
    assert ours[0] == theirs[0]
    assert ours[1] == theirs[1]
    assert any(variants for _main, variants in ours[1].values())  # café, naïve, …
    assert len(list((site / "_site" / "pagefind" / "index").iterdir())) > 10


def fetched_for(folder: Path, word: str) -> int:
    """The bytes of index a search for `word` (a word of the index) reads before it shows
    results: the entry, the metadata and the chunk whose range holds the word."""
    entry = folder / "pagefind-entry.json"
    ((_lang, info),) = json.loads(entry.read_text())["languages"].items()
    meta = folder / f"pagefind.{info['hash']}.pf_meta"
    chunks = _unpack(meta)[2]
    # A chunk's bounds are prefixes: the shortest that tell it from its neighbours.
    (name,) = [name for low, high, name in chunks
               if low <= word[:len(low)] and word[:len(high)] <= high]
    chunk = folder / "index" / f"{name}.pf_index"
    return entry.stat().st_size + meta.stat().st_size + chunk.stat().st_size


def test_a_one_word_search_reads_at_most_twice_what_pagefinds_own_index_would(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, index_here: None) -> None:
    site = make_site(tmp_path / "site", 300)
    build(site / "site.yaml")
    ours = site / "_site" / "pagefind"
    theirs = tmp_path / "theirs"
    pagefinds_own_index(monkeypatch, lambda: build(site / "site.yaml", output=tmp_path / "ref",
                                                   use_cache=False), theirs)
    words = sorted(read_index(ours)[1])
    assert words == sorted(read_index(theirs)[1])
    assert len(_unpack(next(ours.glob("*.pf_meta")))[2]) > 1  # several chunks to choose from
    ratios = {word: fetched_for(ours, word) / fetched_for(theirs, word) for word in words}
    assert max(ratios.values()) <= 2, max(ratios.items(), key=lambda kv: kv[1])


EDITS = ("append", "top", "newest", "middle", "delete", "title", "page", "undo")


def edit(site: Path, step: str) -> None:
    posts = site / "content" / "posts"
    if step == "append":
        path = posts / "2024-01-03-p2.md"
        path.write_text(path.read_text() + "\nAn appended sentence about quasars.\n")
    elif step == "top":
        path = posts / "2024-01-02-p1.md"  # naïve, résumé, Zürich: diacritic variants
        text = path.read_text()
        cut = text.index("\n---\n", 4) + 5
        path.write_text(text[:cut] + "\nA new first paragraph moves every word.\n" + text[cut:])
    elif step == "newest":
        (posts / "2030-01-01-new.md").write_text(post_text(99))
    elif step == "middle":
        (posts / "2024-01-10-mid.md").write_text(post_text(98))
    elif step == "delete":
        (posts / "2024-01-07-p6.md").unlink()
    elif step == "title":
        path = posts / "2024-01-09-p8.md"
        path.write_text(path.read_text().replace("title: Post 8", "title: Renamed eight"))
    elif step == "page":
        (site / "content" / "zzz.md").write_text("---\ntitle: Colophon\n---\n\nNo date here.\n")
    elif step == "undo":
        (site / "content" / "zzz.md").unlink()
        (posts / "2030-01-01-new.md").unlink()


def test_every_edit_gives_the_bytes_of_a_clean_build(
        tmp_path: Path, small_chunks: None, pagefind_reads: list[list[str]]) -> None:
    site = make_site(tmp_path / "site", 12)
    build(site / "site.yaml")
    for n, step in enumerate(EDITS):
        edit(site, step)
        pagefind_reads.clear()
        build(site / "site.yaml")
        if step == "append":  # only the edited page is read again
            assert pagefind_reads == [["/posts/p2/"]]
        if step == "undo":  # both were read before: nothing is read
            assert pagefind_reads == []
        clean = tmp_path / f"clean-{n}"
        shutil.rmtree(clean, ignore_errors=True)
        build(site / "site.yaml", output=clean, use_cache=False)
        assert tree(site / "_site" / "pagefind") == tree(clean / "pagefind"), step


def pagefind_added(log: Path) -> list[str]:
    """The URLs of the pages sent to Pagefind, in the messages its standard input got
    (base64 JSON, each followed by a comma)."""
    messages = [json.loads(base64.b64decode(m)) for m in log.read_bytes().split(b",") if m]
    return [m["payload"]["url"] for m in messages if m["payload"]["type"] == "AddFile"]


def test_an_edit_in_a_new_process_gives_pagefind_the_edited_page_alone(tmp_path: Path) -> None:
    """What a deploy runs: each build a new `blogbuild build` process. The index's
    process starts before the engine does, and must keep its results where the engine
    does: then an edit has Pagefind read the edited page and no other, once (it is read
    ahead of the job, and the job finds it), a new post the new page once, and the index
    is the bytes of a clean build. (Pagefind is run through a script that copies what it
    is sent, named by PAGEFIND_BINARY_PATH as Pagefind's own tools name it.)"""
    from blogbuild.diskcache import CACHE_ENV
    from blogbuild.stages.search.pagefind import executable

    log = tmp_path / "sent-to-pagefind"
    program = tmp_path / "pagefind"
    program.write_text(f'#!/bin/sh\ntee -a {shlex.quote(str(log))} | '
                       f'{shlex.quote(str(executable()))} "$@"\n')
    program.chmod(0o755)
    env = {**os.environ, "PAGEFIND_BINARY_PATH": str(program)}
    env.pop(CACHE_ENV, None)  # named by this process's engines: a deploy's process has none
    site = make_site(tmp_path / "site", 12)

    def run() -> None:
        build_in_a_new_process(site, "--quiet", env=env)

    run()
    assert len(pagefind_added(log)) == 13  # a first build: every post and the page
    edit(site, "append")
    log.write_bytes(b"")
    run()
    assert pagefind_added(log) == ["/blog/posts/p2/"]  # once: read ahead, found by the job
    log.write_bytes(b"")
    run()  # nothing changed
    assert pagefind_added(log) == []
    before = tree(site / "_site" / "pagefind")
    edit(site, "newest")
    log.write_bytes(b"")
    run()
    assert pagefind_added(log) == ["/blog/posts/new/"]
    clean = tmp_path / "clean"
    build(site / "site.yaml", output=clean, use_cache=False)
    assert tree(site / "_site" / "pagefind") == tree(clean / "pagefind")
    # Removed again: the chunks that come back are the cache's files, linked.
    (site / "content" / "posts" / "2030-01-01-new.md").unlink()
    run()
    assert tree(site / "_site" / "pagefind") == before
    back = sorted((site / "_site" / "pagefind" / "index").iterdir())
    assert back and all(path.stat().st_nlink == 2 for path in back)


def test_pages_sent_ahead_are_read_before_the_job_and_not_again(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The index's process may be sent the pages of the sources a build has just rendered
    before its job (`Ahead`): Pagefind reads them at once, though no job came, and the job
    finds their parts in the result cache instead of reading them again."""
    from blogbuild import diskcache
    from blogbuild.childproc import framed
    from blogbuild.config import load_config
    from blogbuild.fingerprints import code_fingerprint
    from blogbuild.output.writer import Staging
    from blogbuild.search import pages as search_pages
    from blogbuild.stages.search import index as search_step
    from blogbuild.stages.search.child import _ChildStage, _serve
    from blogbuild.stages.search.documents import Doc, index_programs, page_keys
    from blogbuild.stages.search.index import Search
    from blogbuild.stages.search.process import Ahead

    monkeypatch.delenv(diskcache.CACHE_ENV, raising=False)
    site = make_site(tmp_path / "site", 1)
    config = load_config(site / "site.yaml")
    diskcache.set_cache_dir(tmp_path / "cache")
    try:
        doc = Doc("/posts/ahead/", "Quasars ahead of time", None, "body", "digest", None)
        search = Search(config, remember=False)
        _serve(io.BytesIO(framed(Ahead([doc], new=False))), io.BytesIO(), search,
               code_fingerprint())  # the stream ends: no job comes
        assert search.ahead is not None
        search.ahead.join()
        key = page_keys([doc], config, index_programs())[0]
        part = search_pages.decoded(search_pages.cached_bytes(key))
        assert part is not None and "quasar" in part.words  # stemmed

        reads: list[list[Doc]] = []
        real = search_step.read_pages
        monkeypatch.setattr(search_step, "read_pages",
                            lambda config, docs, *args: reads.append(docs) or real(config, docs,
                                                                                   *args))
        staged = _ChildStage(Staging(tmp_path / "stage", tree=True))
        entries, notes = search.stage(lambda: staged, [doc], {}, tmp_path / "out", True,
                                      lambda digests: None)
        assert reads == [] and notes == []
        assert "pagefind/pagefind-entry.json" in entries and staged.staged
    finally:
        diskcache.set_cache_dir(None)


def index_processes() -> list[int]:
    """This process's children that make a search index."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            if int(fields[1]) == os.getpid() and b"blogbuild.stages.search.child" in (
                    entry / "cmdline").read_bytes():
                found.append(int(entry.name))
        except (OSError, ValueError, IndexError):
            continue
    return found


@pytest.fixture
def answers(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """What the search index's process answered, build by build ("done", "lost",
    "failed")."""
    from blogbuild.stages.search.process import IndexProcess

    seen: list[str] = []
    real = IndexProcess.answer

    def answer(self: IndexProcess) -> Any:
        found = real(self)
        seen.append(found[0])
        return found

    monkeypatch.setattr(IndexProcess, "answer", answer)
    return seen


def test_the_index_process_runs_below_the_build_s_priority(tmp_path: Path) -> None:
    """It only loads until its job comes: the build's own process keeps its core."""
    import os

    from blogbuild.config import load_config
    from blogbuild.stages.search.process import NICER, IndexProcess

    site = make_site(tmp_path / "site", 2)
    child = IndexProcess.begin(load_config(site / "site.yaml"), None)
    assert child is not None
    try:
        assert os.getpriority(os.PRIO_PROCESS, child.process.pid) == \
            min(19, os.getpriority(os.PRIO_PROCESS, 0) + NICER)
    finally:
        child.end()


def test_an_update_makes_its_index_in_a_process_of_its_own(
        tmp_path: Path, answers: list[str]) -> None:
    """An update's index is made in a process of its own, beside the templating; after
    every kind of edit it is the bytes a clean build writes (made on a thread). The process
    writes the layout after its answer, while the build commits: the build waits for it,
    so the layout it leaves is the output's."""
    from blogbuild.fileio import file_digest

    site = make_site(tmp_path / "site", 40)
    build(site / "site.yaml")
    assert answers == []  # a first build makes its index after its pages, here
    for n, step in enumerate(EDITS):
        edit(site, step)
        build(site / "site.yaml")
        assert answers == ["done"] * (n + 1), step
        with open(site / ".blogbuild-cache" / "search-layout.pickle", "rb") as fh:
            _, layout = pickle.load(fh)
        served = site / "_site" / "pagefind" / "index"
        assert sorted(c.out for c in layout.chunks) == sorted(
            file_digest(p.read_bytes()) for p in served.iterdir()), step
        clean = tmp_path / f"clean-{n}"
        build(site / "site.yaml", output=clean, use_cache=False)
        assert tree(site / "_site" / "pagefind") == tree(clean / "pagefind"), step
    assert index_processes() == []


@pytest.mark.parametrize("answered", [True, False])
def test_a_process_that_answered_is_left_to_finish(answered: bool) -> None:
    """After a good answer the process writes the layout and the cache's rows: the build
    waits for it to end. A process that did not answer (a failed run) is killed."""

    from blogbuild.stages.search.process import IndexProcess, Offloaded

    process = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(0.5)"],
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    offloaded = Offloaded(IndexProcess(process), {}, lambda: None,  # type: ignore[arg-type]
                          lambda digests: None)
    offloaded.done = answered
    offloaded.abandon()
    assert process.returncode == (0 if answered else -9)  # ended on its own, or killed


def test_an_update_that_leaves_the_index_as_it_was_gets_the_processs_answer(
        tmp_path: Path, answers: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """A change no page of the index shows (a new static file) leaves the index as it was:
    the process answers at once, without waiting for the stage, and the build takes that
    answer, though the process is gone by the time the build has its stage."""
    from blogbuild.stages.search.process import Offloaded

    real = Offloaded.write_into

    def late(self: Offloaded, stage: Any) -> None:
        self.child.process.wait(timeout=60)
        real(self, stage)

    monkeypatch.setattr(Offloaded, "write_into", late)
    site = make_site(tmp_path / "site", 12)
    build(site / "site.yaml")
    before = tree(site / "_site" / "pagefind")
    (site / "static").mkdir()
    (site / "static" / "notes.txt").write_text("Not a page.\n")
    report = build(site / "site.yaml")
    assert "notes.txt" in report.changed
    assert answers == ["done"]
    assert tree(site / "_site" / "pagefind") == before


def test_the_process_keeps_the_parts_it_read_for_the_next_build(
        tmp_path: Path, answers: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """The part of the page Pagefind read for the process is in the cache once the build
    is done: made in this process later, the same page is not read again."""
    from blogbuild.stages.search import index as search
    from blogbuild.stages.search.process import IndexProcess

    site = make_site(tmp_path / "site", 12)
    build(site / "site.yaml")
    path = site / "content" / "posts" / "2024-01-03-p2.md"
    original = path.read_text()
    edit(site, "append")
    build(site / "site.yaml")  # the appended page is read, in the process
    assert answers == ["done"]
    appended = path.read_text()
    path.write_text(original)
    build(site / "site.yaml")
    path.write_text(appended)
    reads: list[list[str]] = []
    real = search.read_pages
    monkeypatch.setattr(IndexProcess, "begin", classmethod(lambda cls, *args: None))
    monkeypatch.setattr(search, "read_pages", lambda config, docs, *args: (
        reads.append([d.url for d in docs]), real(config, docs, *args))[1])
    build(site / "site.yaml")
    assert reads == []


def test_the_index_is_made_here_when_its_process_cannot(
        tmp_path: Path, answers: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """A body the render store lost is rendered again by the build, which then makes the
    index itself; so it does when the process runs other code, or does not run at all."""
    from blogbuild.stages.search import process as search_process

    site = make_site(tmp_path / "site", 12)
    build(site / "site.yaml")

    def same_as_a_clean_build(name: str) -> None:
        clean = tmp_path / name
        build(site / "site.yaml", output=clean, use_cache=False)
        assert tree(site / "_site" / "pagefind") == tree(clean / "pagefind")

    edit(site, "append")  # the process finds no body where the job (and what it is sent
    real_job = search_process.Job.__init__  # ahead of the job) says they are
    real_ahead = search_process.Ahead.__init__

    def losing(self: Any, *args: Any, **kwargs: Any) -> None:
        (real_job if isinstance(self, search_process.Job) else real_ahead)(self, *args, **kwargs)
        nowhere = RenderCache(tmp_path / "nowhere")
        self.docs = [dataclasses.replace(doc, bodies=nowhere) for doc in self.docs]

    def other_code(self: Any, *args: Any, **kwargs: Any) -> None:
        real_job(self, *args, **kwargs)
        self.code = "other"

    with monkeypatch.context() as patched:
        patched.setattr(search_process.Job, "__init__", losing)
        patched.setattr(search_process.Ahead, "__init__", losing)
        build(site / "site.yaml")
    assert answers == ["lost"]
    same_as_a_clean_build("clean-lost")

    edit(site, "title")
    with monkeypatch.context() as patched:  # the job names other code than the process runs
        patched.setattr(search_process.Job, "__init__", other_code)
        build(site / "site.yaml")
    assert answers[1:] == ["failed"]
    same_as_a_clean_build("clean-other-code")

    edit(site, "newest")
    with monkeypatch.context() as patched:  # no process: the index is made on a thread
        patched.setattr(sys, "executable", str(tmp_path / "no-python"))
        build(site / "site.yaml")
    assert answers[2:] == []
    same_as_a_clean_build("clean-no-process")
    assert index_processes() == []


def test_an_edit_after_the_render_cache_was_deleted_builds_what_a_clean_build_does(
        tmp_path: Path) -> None:
    """With the render cache gone (deleted, or restored in part) the state still names
    every body: the pages that show them render them again, all at once, and the build
    writes what a clean build writes."""
    site = make_site(tmp_path / "site", 30)
    build(site / "site.yaml")
    shutil.rmtree(site / ".blogbuild-cache" / "render")
    edit(site, "append")
    build(site / "site.yaml")
    clean = tmp_path / "clean"
    build(site / "site.yaml", output=clean, use_cache=False)
    assert tree(site / "_site") == tree(clean)


def test_a_build_that_fails_while_its_index_is_made_leaves_the_last_output(
        tmp_path: Path) -> None:
    """An update makes its index as soon as the site is assembled, beside the checks that
    may still fail it: a failure then stops the index, the output stays the last build's
    to the byte, and the next build's index is a clean build's."""
    site = make_site(tmp_path / "site", 12)
    build(site / "site.yaml")
    before = tree(site / "_site")
    kept = sorted(p.name for p in site.iterdir())
    edit(site, "append")
    path = site / "content" / "posts" / "2024-01-04-p3.md"
    text = path.read_text()
    path.write_text(text + "\nA [link](no-such-post.md) that goes nowhere.\n")
    with pytest.raises(BuildFailed):  # the missing target is a warning: --strict fails
        build(site / "site.yaml", strict=True)
    assert tree(site / "_site") == before
    assert sorted(p.name for p in site.iterdir()) == kept  # no stage left beside it
    assert "search-index" not in {t.name for t in threading.enumerate()}  # it stopped
    assert index_processes() == []
    path.write_text(text)
    build(site / "site.yaml")
    clean = tmp_path / "clean"
    build(site / "site.yaml", output=clean, use_cache=False)
    assert tree(site / "_site" / "pagefind") == tree(clean / "pagefind")


def test_a_chunk_keeps_its_words_through_the_layouts_file() -> None:
    """The layout's chunks pickle their words as one string; a word with a NUL (which
    Pagefind's words do not have) or no word at all come back as they were."""
    numbers = array.array("i", [1, 2])
    for words in (["alpha", "beta"], ["al\0pha", "beta"], [""], []):
        chunk = Chunk(list(words), numbers, numbers, numbers, numbers, "d", b"o", made=b"x",
                      raw=b"y")
        again = pickle.loads(pickle.dumps(chunk))
        assert again.words == words and again.made is None and again.raw is None
        assert again == chunk


def test_a_chunk_read_ahead_gives_its_words_once() -> None:
    """A chunk decompressed ahead (on another thread, while Pagefind reads a new page)
    gives the words it gives without, and lets go of the raw bytes once it has."""
    from blogbuild.search.chunks import _make

    items = [fmt.word_item(w, fmt.Word({n: fmt.posting([n + 1], []) for n in range(3)}, {}))
             for w in ("alpha", "beta", "gamma")]
    chunk = _make(items)
    plain = list(chunk.items())
    chunk.read_ahead()
    assert chunk.raw is not None
    assert list(chunk.items()) == plain == items
    assert chunk.raw is None


def test_an_appended_sentence_rewrites_few_chunks(tmp_path: Path, small_chunks: None) -> None:
    site = make_site(tmp_path / "site", 20)
    build(site / "site.yaml")
    chunks = len(list((site / "_site" / "pagefind" / "index").iterdir()))
    path = site / "content" / "posts" / "2024-01-03-p2.md"
    path.write_text(path.read_text() + "\nZebra.\n")
    report = build(site / "site.yaml")
    rewritten = {r for r in report.changed if r.startswith("pagefind/index/")}
    assert chunks > 20 and 1 <= len(rewritten) <= 3, (chunks, rewritten)
    # The fragment of the edited page, the metadata and the entry: nothing else.
    others = {r for r in report.changed if r.startswith("pagefind/")} - rewritten
    assert len(others) == 3, others


def test_a_fresh_process_without_the_layout_makes_the_same_index(tmp_path: Path,
                                                                  small_chunks: None) -> None:
    site = make_site(tmp_path / "site", 12)
    build(site / "site.yaml")
    before = tree(site / "_site" / "pagefind")
    (site / ".blogbuild-cache" / "search-layout.pickle").write_bytes(b"damaged")
    shutil.rmtree(site / "_site" / "pagefind")
    build(site / "site.yaml")
    assert tree(site / "_site" / "pagefind") == before


def test_the_layout_keeps_its_chunks_as_files_and_mends_a_lost_one(
        tmp_path: Path, small_chunks: None) -> None:
    """The chunks' files are kept in the cache, one per chunk, not inside the layout; an
    edit reads only those it changes, and one the cache lost (with the output's copy)
    makes the index anew, the bytes a clean build writes."""
    site = make_site(tmp_path / "site", 12)
    build(site / "site.yaml")
    cache = site / ".blogbuild-cache"
    served = {p.read_bytes() for p in (site / "_site" / "pagefind" / "index").iterdir()}
    kept = {p.read_bytes() for p in (cache / "search-chunks").iterdir()}
    assert kept == served and len(kept) > 10
    layout = (cache / "search-layout.pickle").read_bytes()
    assert not any(data in layout for data in kept)

    def lose_the_kept_chunks() -> None:
        for path in (cache / "search-chunks").iterdir():
            path.unlink()

    def same_as_a_clean_build(name: str) -> None:
        clean = tmp_path / name
        build(site / "site.yaml", output=clean, use_cache=False)
        assert tree(site / "_site" / "pagefind") == tree(clean / "pagefind")

    lose_the_kept_chunks()  # an edit's chunks cannot be read
    edit(site, "append")
    build(site / "site.yaml")
    same_as_a_clean_build("clean-1")
    lose_the_kept_chunks()  # nothing changed, but the output lacks the chunks too
    shutil.rmtree(site / "_site" / "pagefind" / "index")
    build(site / "site.yaml")
    same_as_a_clean_build("clean-2")
    edit(site, "newest")
    build(site / "site.yaml")
    same_as_a_clean_build("clean-3")
    # The cache's files are the output's, linked: one changed in place in the output no
    # longer has the digest that names it, and the edit that needs it makes the index anew.
    served = sorted((site / "_site" / "pagefind" / "index").iterdir())
    linked = [p for p in served if p.stat().st_nlink == 2]
    assert len(linked) > len(served) // 2
    for path in served:
        with path.open("r+b") as fh:
            fh.seek(-8, os.SEEK_END)
            fh.write(b"\0" * 8)  # gzip's CRC and size: still the same length
    edit(site, "newest")
    build(site / "site.yaml")
    same_as_a_clean_build("clean-4")
    # The files of replaced chunks leave the cache once unused for a day, at the hourly
    # pass; those of the index stay, however old.
    age(cache / "search-chunks", days=2)
    age(cache / "tidied", days=1.1)
    edit(site, "append")
    build(site / "site.yaml")
    assert ({p.read_bytes() for p in (cache / "search-chunks").iterdir()}
            == {p.read_bytes() for p in (site / "_site" / "pagefind" / "index").iterdir()})


def test_chunks_the_cache_holds_are_linked_into_the_output_not_written_again(
        tmp_path: Path, small_chunks: None) -> None:
    """A post added and then removed brings back the chunks the index had: their files are
    the cache's, linked (a new file costs more than a link, and the next update frees
    nothing), and the index is the bytes it was. A cache file whose bytes are not the
    chunk's is not linked: that chunk is written anew."""
    from blogbuild.fileio import file_digest

    site = make_site(tmp_path / "site", 12)
    build(site / "site.yaml")
    pagefind = site / "_site" / "pagefind"
    kept = site / ".blogbuild-cache" / "search-chunks"
    before = tree(pagefind)
    new_post = site / "content" / "posts" / "2030-01-01-new.md"
    new_post.write_text("---\ntitle: New\n---\n\n" + " ".join(WORDS) + " " + " ".join(
        f"{word}{n}" for n in range(30) for word in ("alpha", "mango", "zebra")) + "\n")
    build(site / "site.yaml")
    gone = [rel for rel in before if rel.startswith("index/") and not (pagefind / rel).exists()]
    assert len(gone) > 5, "the new post changes many chunks"
    spoiled = kept / file_digest(before[gone[0]]).hex()
    spoiled.unlink()  # the cache held it; now other bytes go by its name
    spoiled.write_bytes(b"not the chunk's bytes")
    new_post.unlink()
    build(site / "site.yaml")
    assert tree(pagefind) == before
    for rel in gone:
        linked = os.path.samefile(pagefind / rel, kept / file_digest(before[rel]).hex())
        assert linked == (rel != gone[0]), rel


def age(where: Path, *, days: float) -> None:
    """Make a file, or every file of a folder, look written `days` ago."""
    when = time.time() - days * 24 * 3600
    for path in where.iterdir() if where.is_dir() else [where]:
        os.utime(path, (when, when))


def test_a_build_with_drafts_beside_keeps_the_other_index_files(
        tmp_path: Path, small_chunks: None) -> None:
    """`serve` shows drafts and `build` does not: two indexes, one cache. Neither removes
    the chunk files of the other while they may be in use; a day unused, they go."""
    site = make_site(tmp_path / "site", 12)
    (site / "content" / "posts" / "2024-02-01-draft.md").write_text(
        "---\ntitle: Draft on zeppelins\ndraft: true\n---\n\nZeppelins and dirigibles.\n")
    cache = site / ".blogbuild-cache" / "search-chunks"
    build(site / "site.yaml")
    published = set((site / "_site" / "pagefind" / "index").iterdir())
    named = {p.read_bytes() for p in published}
    build(site / "site.yaml", output=tmp_path / "with-drafts", drafts=True)
    with_drafts = {p.read_bytes() for p in (tmp_path / "with-drafts" / "pagefind" / "index")
                   .iterdir()}
    assert with_drafts != named
    assert named | with_drafts <= {p.read_bytes() for p in cache.iterdir()}
    # The files of the index without drafts are read from the cache when an edit needs
    # them: the output lacks them here, and the result is a clean build's.
    for path in published:
        path.unlink()
    edit(site, "append")
    build(site / "site.yaml")
    clean = tmp_path / "clean"
    build(site / "site.yaml", output=clean, use_cache=False)
    assert tree(site / "_site" / "pagefind") == tree(clean / "pagefind")
    # The folder is tidied once an hour: before then, an old file stays.
    age(cache, days=2)
    edit(site, "top")
    build(site / "site.yaml")
    assert with_drafts <= {p.read_bytes() for p in cache.iterdir()}
    # At the next pass, what only the index with drafts named (its last list a day old)
    # is gone; the files in use stay, however old.
    age(cache, days=2)
    age(site / ".blogbuild-cache" / "tidied", days=1.1)
    edit(site, "top")
    build(site / "site.yaml")
    assert ({p.read_bytes() for p in cache.iterdir()}
            == {p.read_bytes() for p in (site / "_site" / "pagefind" / "index").iterdir()})
    # Each kind of index has its passes and its list: the index with drafts, named in the
    # last day, keeps its files through the other's pass, and loses them a day later.
    build(site / "site.yaml", output=tmp_path / "with-drafts", drafts=True)
    with_drafts = {p.read_bytes() for p in (tmp_path / "with-drafts" / "pagefind" / "index")
                   .iterdir()}
    age(cache, days=2)
    age(site / ".blogbuild-cache" / "tidied" / "search-chunks-published.names", days=1.1)
    edit(site, "append")
    build(site / "site.yaml")
    kept = {p.read_bytes() for p in cache.iterdir()}
    assert with_drafts <= kept
    age(cache, days=2)
    age(site / ".blogbuild-cache" / "tidied", days=1.1)
    edit(site, "top")
    build(site / "site.yaml")
    assert not (with_drafts - {p.read_bytes() for p in (site / "_site" / "pagefind" / "index")
                               .iterdir()}) & {p.read_bytes() for p in cache.iterdir()}


def test_a_chunk_file_that_cannot_be_linked_is_copied(tmp_path: Path) -> None:
    """The cache links the file staged for the output, in place of a file of that name
    that an output shares (whose link may have changed it); a copy no output shares stays.
    Where there is no staged file, or a link cannot be made (another file system), it
    writes a copy. Either way the file has the chunk's bytes under the name of their
    digest."""
    from blogbuild import diskcache
    from blogbuild.search.chunks import _make
    from blogbuild.search.kept import KEPT, keep_files

    items = [fmt.word_item(w, fmt.Word({n: fmt.posting([n + 1], []) for n in range(3)}, {}))
             for w in ("alpha", "beta", "gamma", "delta", "epsilon")]
    linked, copied, missing, shared, alone = (_make(items[i:i + 1]) for i in range(5))
    staged = tmp_path / "stage"
    staged.mkdir()
    for name, chunk in (("a", linked), ("b", shared), ("c", alone)):
        (staged / name).write_bytes(chunk.data)
    kept = tmp_path / "cache" / KEPT
    kept.mkdir(parents=True)
    (kept / shared.out.hex()).write_bytes(b"what an edit of the output made of it")
    os.link(kept / shared.out.hex(), tmp_path / "old-output-file")
    (kept / alone.out.hex()).write_bytes(alone.data)
    before = (kept / alone.out.hex()).stat().st_ino
    diskcache.set_cache_dir(tmp_path / "cache")
    try:
        keep_files([linked, copied, missing, shared, alone], "published",
                   {linked.out: staged / "a", missing.out: staged / "not-there",
                    shared.out: staged / "b", alone.out: staged / "c"})
    finally:
        diskcache.set_cache_dir(None)
    for chunk in (linked, copied, missing, shared, alone):
        assert (kept / chunk.out.hex()).read_bytes() == chunk.data
    assert (kept / linked.out.hex()).stat().st_ino == (staged / "a").stat().st_ino
    assert (kept / shared.out.hex()).stat().st_ino == (staged / "b").stat().st_ino
    assert (kept / alone.out.hex()).stat().st_ino == before
    assert (kept / copied.out.hex()).stat().st_nlink == 1
    assert sorted(p.name for p in kept.iterdir()) == sorted(
        c.out.hex() for c in (linked, copied, missing, shared, alone))


_ints = st.lists(st.integers(-300, 70_000), max_size=6)
_postings = st.dictionaries(st.integers(0, 5_000), st.tuples(_ints, _ints), max_size=5)


@given(st.text(min_size=1, max_size=12), _postings,
       st.dictionaries(st.text(min_size=1, max_size=8), _postings, max_size=3))
@settings(max_examples=200, deadline=None)
def test_a_word_is_written_as_cbor2_writes_it(word: str, main: dict[int, Any],
                                               variants: dict[str, dict[int, Any]]) -> None:
    def ours(p: dict[int, Any]) -> fmt.Postings:
        return {n: fmt.posting(locs, meta) for n, (locs, meta) in p.items()}

    def plain(p: dict[int, Any]) -> list[Any]:
        out, last = [], 0
        for n in sorted(p):
            out.append([n - last, *p[n]])
            last = n
        return out

    entry = fmt.Word(ours(main), {v: ours(p) for v, p in variants.items()})
    expected = [word, plain(main), [[v, plain(p)] for v, p in sorted(variants.items()) if p]]
    assert fmt.write_word(word, entry) == cbor2.dumps(expected)
    assert fmt.read_word(fmt.write_word(word, entry)) == fmt.Word(
        ours(main), {v: ours(p) for v, p in variants.items() if p})


@given(st.text(min_size=1, max_size=12), _postings,
       st.dictionaries(st.text(min_size=1, max_size=8), _postings, max_size=2),
       st.lists(st.tuples(st.integers(1, 300), st.tuples(_ints, _ints)), min_size=1,
                max_size=4))
@settings(max_examples=200, deadline=None)
def test_postings_appended_to_a_word_are_its_bytes_written_anew(
        word: str, main: dict[int, Any], variants: dict[str, dict[int, Any]],
        new: list[tuple[int, Any]]) -> None:
    """The splice a new post at the end takes gives the bytes, weight and last page of
    the word written whole with the new pages."""
    def ours(p: dict[int, Any]) -> fmt.Postings:
        return {n: fmt.posting(locs, meta) for n, (locs, meta) in p.items()}

    before = fmt.Word(ours(main), {v: ours(p) for v, p in variants.items()})
    start = max(main, default=-1) + 1
    numbers = []
    for gap, _lists in new:
        numbers.append((numbers[-1] if numbers else start - 1) + gap)
    added = [(n, fmt.posting(*lists)) for n, (_gap, lists) in zip(numbers, new, strict=True)]
    after = fmt.Word({**before.main, **dict(added)}, before.variants)
    assert splice.appended(fmt.word_item(word, before), added) == fmt.word_item(word, after)


_page_words = st.dictionaries(
    st.text(alphabet="abcdeéz東", min_size=1, max_size=4),
    st.tuples(st.none() | st.tuples(_ints, _ints),
              st.dictionaries(st.text(alphabet="xyz", min_size=1, max_size=2),
                              st.tuples(_ints, _ints), max_size=2)),
    max_size=12)


@given(st.lists(_page_words, min_size=1, max_size=30), st.integers(1, 12))
@settings(max_examples=100, deadline=None)
def test_the_chunks_are_the_same_whatever_the_passes_over_the_pages(
        pages: list[Any], per_pass: int) -> None:
    """A large site's words are gathered in several passes, a range of words each: the
    chunks are those of one pass."""
    from blogbuild.search import chunks
    from blogbuild.search.pages import PageIndex

    parts = [PageIndex(b"", "", 1, ["title"], {
        word: (None if main is None else fmt.posting(*main),
               {v: fmt.posting(*p) for v, p in others.items()})
        for word, (main, others) in words.items() if main is not None or others})
        for words in pages]

    def made(passes_of: int) -> list[tuple[str, bytes]]:
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(chunks, "PAGES_PER_PASS", passes_of)
            mp.setattr(cuts, "MIN_UNITS", 4)
            mp.setattr(cuts, "EVERY", 3)
            mp.setattr(cuts, "MAX_UNITS", 16)
            return [(c.digest, c.data)
                    for c in chunks.from_scratch(len(parts), parts.__getitem__, ["title"])]

    assert made(per_pass) == made(10**9)


def test_old_parts_leave_the_cache_and_current_ones_stay(
        tmp_path: Path, pagefind_reads: list[list[str]]) -> None:
    import sqlite3

    site = make_site(tmp_path / "site", 6)  # 7 pages: pruned past 2 × 8 + 16 rows
    build(site / "site.yaml")
    path = site / "content" / "posts" / "2024-01-03-p2.md"
    text = path.read_text()

    def rows() -> int:
        db = sqlite3.connect(next((site / ".blogbuild-cache").glob("*.sqlite")))
        try:
            return int(db.execute("SELECT count(*) FROM search_pages").fetchone()[0])
        finally:
            db.close()

    counts = []
    for n in range(30):
        path.write_text(text + f"\nEdit number {n}.\n")
        build(site / "site.yaml")
        counts.append(rows())
    # Each edit leaves its old part behind until there are more than 2 × 8 + 16 rows.
    assert counts[0] == 9 and max(counts) <= 2 * 8 + 16 + 1 and min(counts[1:]) < 10, counts
    pagefind_reads.clear()
    other = site / "content" / "posts" / "2024-01-04-p3.md"
    other.write_text(other.read_text() + "\nAnother edit.\n")
    build(site / "site.yaml")
    assert pagefind_reads == [["/posts/p3/"]]  # the other pages' parts were kept


@pytest.mark.parametrize("last", [None, ([4, 5], [-1, 0]), ([9] * 30, [])])
@pytest.mark.parametrize("pages", [[40], [3, 40], [0, 1, 2, 200, 70_000], list(range(0, 900, 7))])
def test_a_change_of_the_last_page_alone_is_spliced_from_the_end(
        pages: list[int], last: tuple[list[int], list[int]] | None) -> None:
    """The newest post's page is the last of every word on it: its edit replaces (or takes
    out) each word's last entry without a walk, and gives the word written whole."""
    before = fmt.Word({n: fmt.posting([n % 5, n % 7 + 9], []) for n in pages},
                      {"é": {pages[-1]: fmt.posting([2], [])}})
    after = fmt.Word(dict(before.main), {})
    change: splice.Change = {pages[-1]: (None if last is None else fmt.posting(*last), {})}
    if last is None:
        del after.main[pages[-1]]
    else:
        after.main[pages[-1]] = fmt.posting(*last)
    item = fmt.word_item("word", before)
    was = {pages[-1]: before.main[pages[-1]]}
    assert splice._last_replaced(item[2], 1 + len(fmt.cbor_text("word")), item[4], change,
                                 item[3], was) is not None  # no walk
    expected = None if after.empty() else fmt.word_item("word", after)
    assert splice.patched(item, change, was) == expected


def test_a_last_entry_whose_head_reads_two_ways_is_left_to_the_walk() -> None:
    """A delta of 33,541 is written 0x83 0x19 0x83 0x05, whose last two bytes also read as
    an entry's head (0x83, delta 5): the end cannot tell where the entry starts, so the
    list is walked, and the word is still the one written whole."""
    before = fmt.Word({10: fmt.posting([1], []), 33_551: fmt.posting([2, 3], [])}, {})
    change: splice.Change = {33_551: (fmt.posting([4], []), {})}
    after = fmt.Word({10: before.main[10], 33_551: fmt.posting([4], [])}, {})
    item = fmt.word_item("word", before)
    was = {33_551: before.main[33_551]}
    assert item[2].find(b"\x83\x19\x83\x05") > 0
    assert splice._last_replaced(item[2], 1 + len(fmt.cbor_text("word")), item[4], change,
                                 item[3], was) is None
    assert splice.patched(item, change, was) == fmt.word_item("word", after)


_one_change = st.tuples(st.one_of(st.none(), st.tuples(_ints, _ints)),
                        st.dictionaries(st.text(min_size=1, max_size=8),
                                        st.tuples(_ints, _ints), max_size=2))


@given(st.text(min_size=1, max_size=12), _postings,
       st.dictionaries(st.text(min_size=1, max_size=8), _postings, max_size=2), st.data())
@settings(max_examples=400, deadline=None)
def test_a_patched_word_is_its_bytes_written_anew(
        word: str, main: dict[int, Any], variants: dict[str, dict[int, Any]],
        data: st.DataObject) -> None:
    """An edit's splice (pages replaced, taken out or added anywhere, its first or last
    page too, variants as well) gives the bytes, weight and last page of the word written
    whole after the edit, with the changed pages' postings before given (a change of the
    last page alone is then found from the end) and without."""
    pages = sorted({*main, *(n for p in variants.values() for n in p)})
    number = st.integers(0, 5_100) | st.sampled_from(pages) if pages else st.integers(0, 5_100)
    change = data.draw(st.dictionaries(number, _one_change, min_size=1, max_size=5))

    def ours(p: dict[int, Any]) -> fmt.Postings:
        return {n: fmt.posting(locs, meta) for n, (locs, meta) in p.items()}

    before = fmt.Word(ours(main), {v: ours(p) for v, p in variants.items()})
    after = fmt.Word(dict(before.main), {v: dict(p) for v, p in before.variants.items()})
    ours_change: splice.Change = {}
    for number, (new_main, new_variants) in change.items():
        posting = None if new_main is None else fmt.posting(*new_main)
        others = {v: fmt.posting(*lists) for v, lists in new_variants.items()}
        ours_change[number] = (posting, others)
        if posting is None:
            after.main.pop(number, None)
        else:
            after.main[number] = posting
        for postings in after.variants.values():
            postings.pop(number, None)
        for variant, one in others.items():
            after.variants.setdefault(variant, {})[number] = one
    expected = None if after.empty() else fmt.word_item(word, after)
    was = {n: before.main[n] for n in ours_change if n in before.main}
    assert splice.patched(fmt.word_item(word, before), ours_change) == expected
    assert splice.patched(fmt.word_item(word, before), ours_change, was) == expected
