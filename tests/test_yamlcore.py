"""The YAML reader for authors' files: core schema, limits, lines; dates; source encodings."""

from __future__ import annotations

import datetime as dt
import math
import time
from typing import Any

import pytest
import yaml

from blogbuild import yamlcore
from blogbuild.content.dates import BadDate, instant, parse_date
from blogbuild.diagnostics import ContentError
from blogbuild.sourcetext import decode_source
from blogbuild.yamlcore import CoreLoader, Document, _compose, compose, to_python


def load(text: str) -> Any:
    doc = compose(text, "f.md", ContentError, first_line=2)
    return None if doc.root is None else to_python(doc.root, doc)


def error_of(text: str) -> ContentError:
    with pytest.raises(ContentError) as info:
        load(text)
    return info.value


@pytest.mark.parametrize(("text", "value"), [
    ("no", "no"), ("on", "on"), ("Yes", "Yes"), ("off", "off"), ("y", "y"), ("n", "n"),
    ("true", True), ("FALSE", False), ("~", None), ("null", None), ("", None),
    ("010", 10), ("0o17", 15), ("0x1F", 31), ("-5", -5), ("1e3", 1000.0), ("-.inf", -math.inf),
    ("1:20", "1:20"), ("2024-02-30", "2024-02-30"), ("0b101", "0b101"), ("1_000", "1_000"),
    ('"true"', "true"), ("'010'", "010"), ("!!str 5", "5"), ("!!int '7'", 7),
])
def test_core_schema_scalars(text: str, value: Any) -> None:
    assert load(f"k: {text}\n") == {"k": value}


def test_nan() -> None:
    assert math.isnan(load("k: .nan\n")["k"])


def test_libyaml_parses_when_it_is_installed() -> None:
    if yaml.__with_libyaml__:
        assert issubclass(CoreLoader, yaml.CSafeLoader)
    assert issubclass(CoreLoader, yaml.SafeLoader if not yaml.__with_libyaml__
                      else yaml.CSafeLoader)


def test_the_python_parser_composes_the_same_nodes() -> None:
    python_loader = type("PythonCore", (yaml.SafeLoader,),
                         {"yaml_implicit_resolvers": CoreLoader.yaml_implicit_resolvers})
    text = "a: [no, 010, 1e3]\nb: &x {c: true}\nd: *x\n"
    doc = Document(None, text, "f.md", ContentError, 1)
    doc.root = _compose(python_loader(text), doc, 1000)
    assert doc.root is not None
    assert to_python(doc.root, doc) == load(text)


def test_aliases_share_one_object() -> None:
    data = load("a: &x [1, 2]\nb: *x\n")
    assert data["a"] is data["b"]


@pytest.mark.parametrize(("text", "line", "message"), [
    ("a: 1\nb: 2\na: 3\n", 4, "duplicate key 'a' (lines 2 and 4)"),
    ("a: &x [1, *x]\n", 2, "alias '*x' refers to the list or mapping that holds it"),
    ("a: *nope\n", 2, "alias '*nope' refers to no '&' anchor above"),
    ("? [a]\n: 1\n", 2, "a key must be a plain name"),
    ("a: !!python/name:os.system\n", 2, "the YAML tag '!!python/name:os.system' is not"),
    ("a: !!timestamp 2024-01-01\n", 2, "the YAML tag '!!timestamp' is not supported"),
    ("a: !!int x\n", 2, "'x' is not a valid int"),
    ("a:\n\tb: 1\n", 3, "a tab indents this line"),
    ("a: b: c\n", 2, "invalid YAML: mapping values are not allowed"),
    ("a: 1\n---\nb: 2\n", 3, "more than one YAML document"),
    ("a: 1\nb: x\x1by\n", 3, "the control character U+001B, which YAML does not allow"),
    ("a: \u2028x\nb: [\n", 3, "invalid YAML"),  # U+2028 is no line break for us
])
def test_errors_name_the_line(text: str, line: int, message: str) -> None:
    exc = error_of(text)
    assert exc.file == "f.md" and exc.line == line and message in exc.message, exc.format()


def test_deep_nesting_is_refused_quickly() -> None:
    start = time.perf_counter()
    exc = error_of("a: " + "[" * 100_000 + "]" * 100_000 + "\n")
    assert "nest more than 50 levels" in exc.message
    assert time.perf_counter() - start < 0.5


def test_alias_bomb_is_refused_quickly() -> None:
    lines = ["a: &a [" + ", ".join("x" * 9) + "]"]
    for i in range(1, 20):
        lines.append(f"{chr(97 + i)}: &{chr(97 + i)} [" + ", ".join([f"*{chr(96 + i)}"] * 9)
                     + "]")
    start = time.perf_counter()
    exc = error_of("\n".join(lines) + "\n")
    assert "more than 50000 values once aliases" in exc.message and exc.line == 6
    assert time.perf_counter() - start < 0.5


@pytest.mark.parametrize(("text", "expected"), [
    ("2024-12-17", dt.datetime(2024, 12, 17)),
    ("2024-2-9", dt.datetime(2024, 2, 9)),
    ("2024-02-29", dt.datetime(2024, 2, 29)),
    ("2024-12-17T09:30", dt.datetime(2024, 12, 17, 9, 30)),
    ("2024-12-17 09:30:05.25", dt.datetime(2024, 12, 17, 9, 30, 5, 250000)),
    ("2024-12-17T09:30:00Z", dt.datetime(2024, 12, 17, 9, 30, tzinfo=dt.UTC)),
    ("2024-12-17 09:30:00 -5", dt.datetime(2024, 12, 17, 9, 30,
                                          tzinfo=dt.timezone(dt.timedelta(hours=-5)))),
    ("2024-12-17T09:30:00+0530", dt.datetime(2024, 12, 17, 9, 30,
                                            tzinfo=dt.timezone(dt.timedelta(hours=5.5)))),
])
def test_dates(text: str, expected: dt.datetime) -> None:
    assert parse_date(text) == expected


@pytest.mark.parametrize(("text", "why"), [
    ("2024-02-30", "February 2024 has 29 days, not 30"),
    ("2023-02-29", "February 2023 has 28 days, not 29"),
    ("2024-13-01", "there is no month 13"),
    ("2024-00-10", "there is no month 0"),
    ("0000-01-01", "the year must be between 1 and 9999, not 0000"),
    ("2024-01-01T24:00", "24:00:00 is not a time of day"),
    ("2024-01-01T10:00+25:00", "the time zone .25:00 is out of range"),
    ("yesterday", "is not a date: 'yesterday'"),
    ("17.12.2024", "is not a date"),
])
def test_impossible_dates(text: str, why: str) -> None:
    with pytest.raises(BadDate, match=why):
        parse_date(text)


@pytest.mark.parametrize(("data", "text"), [
    (b"\xef\xbb\xbfa\r\nb\rc\n", "a\nb\nc\n"),
    (b"", ""),
    ("é\n".encode(), "é\n"),
])
def test_decoding(data: bytes, text: str) -> None:
    assert decode_source(data, "f.md") == text


@pytest.mark.parametrize(("data", "line", "message"), [
    ("x\n".encode("utf-16"), 1, "it looks like UTF-16"),
    ("x\ny\n".encode("utf-16-le"), 1, "it looks like UTF-16"),
    ("x\n".encode("utf-32"), 1, "it looks like UTF-32"),
    ("ab\ncd\n".encode("utf-32-be"), 1, "it looks like UTF-32"),
    (b"ok\ncaf\xe9\n", 2, "it looks like Latin-1/Windows-1252"),
    (b"ok\n\x81\x8d\n", 2, "its encoding is unknown"),
])
def test_encodings_are_named(data: bytes, line: int, message: str) -> None:
    with pytest.raises(ContentError) as info:
        decode_source(data, "f.md")
    assert info.value.line == line and message in info.value.message
    assert "UTF-8" in info.value.message


def test_a_binary_file_is_not_called_utf16() -> None:
    data = bytes(range(256)) * 4 + b"\x00" * 300 + b"\x7fELF\x02\x01\x01" * 40
    with pytest.raises(ContentError, match="it looks like a binary file"):
        decode_source(data, "f.md")


BOMB = "".join(f"  - &{n} [{', '.join([f'*{p}'] * 9 if p else ['lol'] * 9)}]\n"
               for p, n in zip(["", *"abcdefgh"], "abcdefghi", strict=True))


@pytest.mark.parametrize("text", [
    f"tags:\n{BOMB}", f"aliases:\n{BOMB}", f"anything:\n  nested:\n{BOMB}",
    "a: &a [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{k}: &{k} [{', '.join([f'*{p}'] * 10)}]\n" for p, k in zip("abcdefg", "bcdefgh",
                                                                     strict=True)),
])
def test_every_yaml_reader_refuses_an_alias_bomb_at_once(text: str) -> None:
    """The exact reader (compose) and the quick one (safe_load: the link map's look at
    every post before rendering, the importers) share the bound; neither walks the bomb."""
    started = time.monotonic()
    with pytest.raises(ContentError, match="more than 50000 values"):
        yamlcore.compose(text, "a.md", ContentError)
    with pytest.raises(yamlcore.TooManyValues, match="more than 50000 values"):
        yamlcore.safe_load(text)
    assert time.monotonic() - started < 1


def test_the_quick_reader_refuses_recursion_and_impossible_dates() -> None:
    with pytest.raises(yamlcore.TooManyValues, match="refers to the list or mapping"):
        yamlcore.safe_load("a: &x [1, *x]\n")
    with pytest.raises(yamlcore.yaml.YAMLError, match="'0000-01-01' is not a valid date"):
        yamlcore.safe_load("date: 0000-01-01\n")
    assert yamlcore.safe_load("date: 2024-01-02\nok: yes\nn: &n [1, 2]\nm: [*n, *n]\n") == {
        "date": dt.date(2024, 1, 2), "ok": True, "n": [1, 2], "m": [[1, 2], [1, 2]]}


@pytest.mark.parametrize(("text", "why"), [
    ("0000-01-01", "the year must be between 1 and 9999, not 0000"),
    ("0000-01-01T00:00:00Z", "the year must be between 1 and 9999, not 0000"),
    ("10000-01-01", "the year must be between 1 and 9999, not 10000"),
    ("9999-12-31T23:59:59-00:01", "after the year 9999 in UTC"),
    ("9999-12-31T20:00:00-04:00", "after the year 9999 in UTC"),
    ("0001-01-01T00:00:00+14:00", "before the year 1 in UTC"),
    ("9999-12-31T23:59:59-23:59", "the time zone -23:59 is out of range"),
])
def test_dates_python_cannot_hold_are_refused(text: str, why: str) -> None:
    with pytest.raises(BadDate, match=why):
        parse_date(text)


@pytest.mark.parametrize("text", ["0001-01-01", "9999-12-31T23:59:59", "0001-01-01T14:00:00+14:00",
                                  "9999-12-31T09:59:59-14:00"])
def test_dates_at_the_ends_of_the_range_sort(text: str) -> None:
    """timestamp() reads a naive date in the machine's zone and fails at the ends."""
    assert isinstance(instant(parse_date(text)), float)
