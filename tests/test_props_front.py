"""Property tests: any front matter or site.yaml gives data or an error with a line, fast."""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from blogbuild.config import load_config
from blogbuild.content.frontmatter import PostMeta, parse_meta, split_front_matter
from blogbuild.diagnostics import ConfigError, ContentError
from blogbuild.sourcetext import decode_source

SETTINGS = settings(max_examples=250, deadline=None, database=None,
                    suppress_health_check=[HealthCheck.too_slow])
#: Seconds one document may take; the real figure is a few milliseconds.
BOUND = 2.0

KEYS = ["title", "date", "updated", "tags", "draft", "slug", "math", "author", "image",
        "description", "comments", "x", "nav", "base_url", "permalink", "feed_entries",
        "posts_per_page", "math.output", "callouts", "language", "date_format", "extra"]
SCALARS = ["no", "on", "yes", "off", "y", "n", "true", "false", "~", "null", "010", "0o17",
           "0x1F", "1e3", "1:20", "-.inf", ".nan", "2024-02-30", "2024-13-01", "2024-12-17",
           "2024-01-01T10:00:00+25:00", "2024-12-17 09:30:00 +01:00", "yesterday", "-1",
           "0", "3", "https://example.org/", "example.com", "javascript:alert(1)",
           "/posts/{slug}/", "{slug}/{titel}", "%B %-d, %Y", "%Q", '"quoted: text"',
           "'single'", "[a, b]", "{a: 1}", "[", "{", "]", "&a [1, 2]", "*a", "&b", "*b",
           "!!python/object:os.system x", "!!int abc", "!!binary aGk=", "|", ">", "- item",
           "? key", ": value", "#comment", "@at", "`tick", "%percent", "é ü ✓"]
#: Characters YAML refuses or counts as line breaks: rare, so most documents parse.
ODD = ["\t", "\u2028", "\x85", "\x00", "\ufeff", "\x1b"]
INDENTS = [""] * 8 + [" ", "  ", "    ", "\t", " \t", "- ", "  - "]
PRINTABLE = st.characters(blacklist_categories=("Cs", "Cc"))
SEPARATORS = [": "] * 8 + [":", " : ", ":\t", "  "]


@st.composite
def yamlish(draw: st.DrawFn) -> str:
    """Lines that look like YAML keys and values, with random indentation and scalars."""
    lines = []
    seen: set[str] = set()
    repeat_keys = draw(st.integers(0, 9)) == 0
    for _ in range(draw(st.integers(0, 12))):
        indent = draw(st.sampled_from(INDENTS))
        key = draw(st.one_of(st.sampled_from(KEYS), st.sampled_from(KEYS),
                             st.text(PRINTABLE, max_size=6)))
        if key in seen and not repeat_keys:
            continue
        seen.add(key)
        sep = draw(st.sampled_from(SEPARATORS))
        value = draw(st.one_of(
            st.sampled_from(SCALARS), st.sampled_from(SCALARS),
            st.lists(st.sampled_from(SCALARS), max_size=4).map(", ".join).map("[{}]".format),
            st.text(PRINTABLE, max_size=12), st.sampled_from(ODD)))
        lines.append(indent + key + sep + value)
    return "\n".join(lines)


def _read_post(data: bytes) -> PostMeta:
    text = decode_source(data, "post.md")
    return parse_meta(split_front_matter(text, "post.md"), "post.md", "post")


def _outcome_of_post(data: bytes) -> str:
    """repr of the metadata or of the error: the same input must give the same outcome."""
    start = time.perf_counter()
    try:
        outcome = repr(_read_post(data))
    except ContentError as exc:
        lines = data.count(b"\n") + data.count(b"\r") + 1
        assert exc.file == "post.md"
        assert 1 <= exc.line <= lines, (exc.format(), lines)
        outcome = exc.format()
    assert time.perf_counter() - start < BOUND
    return outcome


@SETTINGS
@given(yamlish(), st.sampled_from(["\n", "\r\n", "\r"]), st.text(max_size=40))
def test_front_matter_gives_meta_or_an_error_with_a_line(fm: str, newline: str,
                                                        body: str) -> None:
    text = "---\n" + fm + "\n---\n" + body
    data = text.replace("\n", newline).encode("utf-8")
    assert _outcome_of_post(data) == _outcome_of_post(data)


@SETTINGS
@given(st.binary(max_size=300), st.booleans())
def test_random_bytes_give_meta_or_an_error_with_a_line(data: bytes, fenced: bool) -> None:
    if fenced:
        data = b"---\n" + data + b"\n---\n"
    assert _outcome_of_post(data) == _outcome_of_post(data)


def _outcome_of_config(text: str | bytes) -> str:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "site.yaml"
        path.write_bytes(text if isinstance(text, bytes) else text.encode("utf-8"))
        start = time.perf_counter()
        try:
            config = load_config(path)
            outcome = repr((config.title, config.base_url, config.nav, config.permalink,
                            config.math, config.callouts, config.extra))
        except ConfigError as exc:
            raw = path.read_bytes()
            lines = raw.count(b"\n") + raw.count(b"\r") + 1
            assert exc.file == str(path)
            assert 1 <= exc.line <= lines, (exc.format(), lines)
            outcome = exc.format().replace(folder, "")
        assert time.perf_counter() - start < BOUND
        return outcome


@SETTINGS
@given(yamlish())
def test_site_yaml_gives_a_config_or_an_error_with_a_line(text: str) -> None:
    assert _outcome_of_config(text) == _outcome_of_config(text)


@SETTINGS
@given(st.binary(max_size=200))
def test_site_yaml_of_random_bytes(data: bytes) -> None:
    assert _outcome_of_config(data) == _outcome_of_config(data)


def test_an_alias_bomb_is_refused_in_bounded_time() -> None:
    levels = ["a: &a [" + ", ".join(["x"] * 10) + "]"]
    for i in range(1, 12):
        prev, name = chr(96 + i), chr(97 + i)
        levels.append(f"{name}: &{name} [" + ", ".join([f"*{prev}"] * 10) + "]")
    data = ("---\n" + "\n".join(levels) + "\n---\nbody\n").encode()
    start = time.perf_counter()
    outcome = _outcome_of_post(data)
    assert "more than 50000 values" in outcome
    assert time.perf_counter() - start < 0.5
