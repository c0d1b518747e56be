"""Front matter: YAML parsing, dates, tags, and errors with file and line."""

from __future__ import annotations

import datetime as dt
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from blogbuild.content.frontmatter import parse_meta, slug_from_filename, split_front_matter
from blogbuild.diagnostics import ContentError


def meta_of(text: str, name: str = "post"):  # type: ignore[no-untyped-def]
    fm = split_front_matter(text, "p.md")
    return parse_meta(fm, "p.md", name)


def test_no_front_matter() -> None:
    fm = split_front_matter("# Title\n", "p.md")
    assert fm.data == {} and fm.body == "# Title\n" and fm.body_line_offset == 0


def test_body_offset_counts_the_delimiters() -> None:
    fm = split_front_matter("---\ntitle: x\n---\nbody\n", "p.md")
    assert fm.body == "body\n" and fm.body_line_offset == 3


def test_every_key() -> None:
    meta = meta_of("""---
title: "Why softmax saturates"
date: 2024-12-17T09:30:00+01:00
updated: 2025-01-02
author: Ada
description: One line.
tags: [transformers, math]
math: true
comments: true
draft: true
slug: custom-url-part
image: /assets/cover.png
series: intro
---
""")
    assert meta.title == "Why softmax saturates"
    assert meta.date == dt.datetime(2024, 12, 17, 9, 30, tzinfo=dt.timezone(dt.timedelta(hours=1)))
    assert meta.updated == dt.datetime(2025, 1, 2)
    assert meta.tags == ("transformers", "math")
    assert meta.draft and meta.math and meta.comments
    assert meta.slug == "custom-url-part"
    assert meta.extra == {"series": "intro"}


def test_tags_as_comma_string_and_date_as_string() -> None:
    meta = meta_of('---\ntags: "a, b ,,c"\ndate: "2024-12-17"\n---\n')
    assert meta.tags == ("a", "b", "c")
    assert meta.date == dt.datetime(2024, 12, 17)


def test_date_from_file_name() -> None:
    assert meta_of("x", "2024-12-17-some-title").date == dt.datetime(2024, 12, 17)
    assert slug_from_filename("2024-12-17-some-title") == "some-title"


def test_broken_yaml_has_file_and_line() -> None:
    with pytest.raises(ContentError) as info:
        split_front_matter("---\ntitle: ok\ntags: [a, b\ndate: x\n---\n", "p.md")
    assert info.value.file == "p.md" and info.value.line >= 3


def test_unclosed_front_matter() -> None:
    with pytest.raises(ContentError, match="no closing"):
        split_front_matter("---\ntitle: x\n", "p.md")


def test_date_that_is_not_a_date_names_its_line() -> None:
    with pytest.raises(ContentError, match="'date' is not a date: 'next tuesday'") as info:
        meta_of("---\ntitle: x\ndate: next tuesday\n---\n")
    assert info.value.line == 3


def test_title_that_is_not_a_string() -> None:
    with pytest.raises(ContentError, match="'title' must be a string") as info:
        meta_of("---\ntitle: [a, b]\n---\n")
    assert info.value.line == 2


def test_draft_must_be_boolean() -> None:
    with pytest.raises(ContentError, match="'draft' must be true or false"):
        meta_of("---\ndraft: maybe\n---\n")


def test_front_matter_that_is_a_list() -> None:
    with pytest.raises(ContentError, match="'key: value' lines, not a list"):
        split_front_matter("---\n- a\n---\n", "p.md")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.mark.server
def test_serve_starts_with_an_impossible_date_and_names_it(tmp_path: Path) -> None:
    posts = tmp_path / "content" / "posts"
    posts.mkdir(parents=True)
    (tmp_path / "site.yaml").write_text("title: T\nbase_url: https://example.org/\n")
    (posts / "2024-01-01-bad.md").write_text("---\ntitle: Bad\ndate: 2024-02-30\n---\nx\n")
    (posts / "2024-01-02-good.md").write_text("---\ntitle: Good\n---\nGood body.\n")
    port = _free_port()
    proc = subprocess.Popen([sys.executable, "-m", "blogbuild", "serve", "--port", str(port),
                             "--no-watch"], cwd=tmp_path, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/posts/good/") as reply:
                    assert "Good body." in reply.read().decode()
                    break
            except OSError:
                assert proc.poll() is None and time.monotonic() < deadline
                time.sleep(0.1)
    finally:
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=20)
    assert "content/posts/2024-01-01-bad.md:3: error: 'date' is not a valid date: February " \
           "2024 has 29 days, not 30" in err
    assert "internal error" not in err and "Traceback" not in err


def test_yaml_1_2_keeps_strings_where_strings_are_expected() -> None:
    meta = meta_of("---\ntitle: no\ntags: [no, on, yes, off, y, n, 010]\nslug: 1e3\n"
                   "description: 1:20\nauthor: 010\nseries: [on, 1]\n---\n")
    assert meta.title == "no" and meta.slug == "1e3" and meta.description == "1:20"
    assert meta.tags == ("no", "on", "yes", "off", "y", "n", "010") and meta.author == "010"
    assert meta.extra == {"series": ["on", 1]}


def test_booleans_are_only_true_and_false() -> None:
    assert meta_of("---\ndraft: TRUE\nmath: false\n---\n").draft is True
    with pytest.raises(ContentError, match="only true and false are booleans") as info:
        meta_of("---\ntitle: T\nmath: on\n---\n")
    assert info.value.line == 3


def test_toml_front_matter_is_explained() -> None:
    with pytest.raises(ContentError, match="TOML") as info:
        split_front_matter('+++\ntitle = "x"\n+++\nbody\n', "p.md")
    assert info.value.line == 1


def test_huge_front_matter_is_refused_quickly() -> None:
    text = "---\ntitle: T\nx: " + "a" * 2_000_000 + "\n---\nbody\n"
    start = time.perf_counter()
    with pytest.raises(ContentError, match="longer than 100,000 characters"):
        split_front_matter(text, "p.md")
    assert time.perf_counter() - start < 0.5


def test_duplicate_keys_name_both_lines() -> None:
    with pytest.raises(ContentError, match=r"duplicate key 'tags' \(lines 2 and 4\)") as info:
        split_front_matter("---\ntags: [a]\ntitle: T\ntags: [b]\n---\n", "p.md")
    assert info.value.line == 4

