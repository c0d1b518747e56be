"""Front matter: YAML parsing, dates, tags, and errors with file and line."""

from __future__ import annotations

import datetime as dt

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
