"""site.yaml: defaults, validation, errors that name the key and the line."""

from __future__ import annotations

from pathlib import Path

import pytest

from blogbuild.config import Config, load_config
from blogbuild.diagnostics import ConfigError


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "site.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def test_defaults_when_empty(tmp_path: Path) -> None:
    config = load_config(write(tmp_path, ""))
    assert config.permalink == "/posts/{slug}/"
    assert config.posts_per_page == 10
    assert config.root == tmp_path.resolve()


def test_all_documented_keys(tmp_path: Path) -> None:
    config = load_config(write(tmp_path, """
title: T
base_url: https://u.github.io/blogs/
author: A
description: D
language: fr
permalink: /{year}/{slug}/
posts_per_page: 3
nav:
  - {title: Home, url: /}
callouts:
  theorem: {title: Theorem, color: "#884488"}
math:
  macros: {"\\\\RR": "\\\\mathbb{R}"}
runnable:
  packages_url: /pyodide-packages/
"""))
    assert config.title == "T" and config.language == "fr"
    assert config.urls.base_path == "/blogs/"
    assert config.nav[0].title == "Home"
    assert config.callouts["theorem"].color == "#884488"
    assert config.math.macros == {"\\RR": "\\mathbb{R}"}
    assert config.runnable.packages_url == "/pyodide-packages/"


def test_unknown_key_is_named_with_a_suggestion(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"unknown key 'post_per_page'.*did you mean "
                                          r"'posts_per_page'"):
        load_config(write(tmp_path, "post_per_page: 3\n"))


def test_unknown_nested_key(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"unknown key 'math.macro'"):
        load_config(write(tmp_path, "math:\n  macro: {}\n"))


def test_mistyped_value(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"'posts_per_page' must be a whole number"):
        load_config(write(tmp_path, "posts_per_page: many\n"))


def test_broken_yaml_names_file_and_line(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as info:
        load_config(write(tmp_path, "title: ok\nnav: [unclosed\nauthor: x\n"))
    assert info.value.file is not None and info.value.file.endswith("site.yaml")
    assert info.value.line >= 2
    assert "invalid YAML" in info.value.format()


def test_missing_site_yaml(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"no site\.yaml found"):
        load_config(tmp_path / "site.yaml")


def test_permalink_needs_slug(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="permalink"):
        load_config(write(tmp_path, "permalink: /posts/\n"))


def test_base_url_must_be_absolute(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="base_url"):
        load_config(write(tmp_path, "base_url: /blog/\n"))


def test_base_url_override(tmp_path: Path) -> None:
    config = load_config(write(tmp_path, "base_url: https://a.org/\n"),
                         base_url="http://127.0.0.1:8000/x/")
    assert config.urls.base_path == "/x/"


def test_fingerprint_changes_with_render_options() -> None:
    assert Config().render_fingerprint() != Config(base_url="https://x.org/b/") \
        .render_fingerprint()
    assert Config().render_fingerprint() == Config(title="other").render_fingerprint()


@pytest.mark.parametrize(("text", "line", "message"), [
    ("title: T\nmath:\n  output: foo\n", 3, "'math.output' must be html, htmlAndMathml or"),
    ("nav:\n  - {title: A, url: /a/}\n  - title: B\n", 3, "'nav[1]' needs 'url'"),
    ("nav:\n  - title: X\n    url: 'javascript:alert(1)'\n", 3, "'nav[0].url' must be a site"),
    ("feed_entries: -1\n", 1, "'feed_entries' must be at least 1, not -1"),
    ("\n\npermalink: /{slug}/{titel}/\n", 3, "unknown placeholder {titel}"),
    ("callouts:\n  note:\n    color: 'red;'\n", 3, "'callouts.note.color' must be a CSS"),
    ("runnable:\n  packages_url: 'vbscript:x'\n", 2, "'runnable.packages_url' must be"),
    ("math:\n  macros:\n    RR: x\n", 3, "'math.macros.RR' is not a TeX command name"),
    ("title: a\ntitle: b\n", 2, "duplicate key 'title' (lines 1 and 2)"),
    ("language: 'en\"><script>'\n", 1, "'language' must be a language tag"),
    ("date_format: '%Y %'\n", 1, "'date_format' is not a date format"),
    ("base_url: https://example.org/?q=1\n", 1, "must not have a '?query'"),
])
def test_values_are_checked_with_their_line(tmp_path: Path, text: str, line: int,
                                            message: str) -> None:
    with pytest.raises(ConfigError) as info:
        load_config(write(tmp_path, text))
    assert info.value.line == line and message in info.value.message, info.value.format()


def test_yaml_1_2_strings(tmp_path: Path) -> None:
    config = load_config(write(tmp_path, "title: no\nauthor: on\ndescription: 010\n"))
    assert (config.title, config.author, config.description) == ("no", "on", "010")


def test_base_url_option_is_checked(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="--base-url must be an absolute http"):
        load_config(write(tmp_path, "title: T\n"), base_url="javascript:alert(1)")


def test_comments_only_means_defaults(tmp_path: Path) -> None:
    assert load_config(write(tmp_path, "# later\n")).title == Config().title
