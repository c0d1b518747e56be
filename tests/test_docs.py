"""The documentation stays true: links resolve; every key, command and option is in it."""

from __future__ import annotations

import argparse
import dataclasses
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from markdown_it import MarkdownIt

from blogbuild import cli
from blogbuild.config import (
    _NOT_KEYS,
    CalloutType,
    CheckConfig,
    CitationsConfig,
    CommentsConfig,
    Config,
    MathConfig,
    RunnableConfig,
    SocialConfig,
    StatementsConfig,
)
from blogbuild.markdown.callouts import BUILTIN_TYPES, build_kinds
from blogbuild.markdown.widgets import KINDS

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
PAGES = [ROOT / "README.md", *sorted(DOCS.glob("*.md"))]
#: What ships to users: a clone's front page, the docs, the package and its theme.
SHIPPED = [ROOT / "README.md", ROOT / "pyproject.toml", DOCS, ROOT / "src", ROOT / "templates",
           ROOT / "static"]
FORBIDDEN = (b"../shared", b"shared/spec", b"syntax.md")


def _text(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def _targets(path: Path) -> Iterator[str]:
    """Every link and image target of a Markdown file (code blocks and spans excluded)."""
    md = MarkdownIt("commonmark").enable("table")
    for token in md.parse(_text(path)):
        for child in token.children or []:
            if child.type == "link_open":
                yield str(child.attrGet("href"))
            elif child.type == "image":
                yield str(child.attrGet("src"))


def _github_anchors(path: Path) -> set[str]:
    """The heading anchors GitHub makes: lower case, punctuation dropped, spaces to '-'."""
    anchors: set[str] = set()
    md = MarkdownIt("commonmark").enable("table")
    tokens = md.parse(_text(path))
    for i, token in enumerate(tokens):
        if token.type == "heading_open":
            text = "".join(c.content for c in tokens[i + 1].children or [])
            anchors.add(re.sub(r"[^\w\- ]", "", text.lower()).replace(" ", "-"))
    return anchors


def test_the_docs_exist() -> None:
    names = {p.name for p in DOCS.glob("*.md")}
    assert {"README.md", "quickstart.md", "writing.md", "widgets.md", "configuration.md",
            "themes.md", "deploying.md", "cli.md"} <= names


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_relative_links_and_images_resolve(page: Path) -> None:
    problems = []
    for target in _targets(page):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target) or target.startswith("//"):
            continue  # an external address
        path, _, anchor = target.partition("#")
        file = (page.parent / path).resolve() if path else page
        if not file.exists():
            problems.append(f"{target}: no such file")
        elif anchor and file.suffix == ".md" and anchor not in _github_anchors(file):
            problems.append(f"{target}: no heading makes #{anchor}")
    assert not problems, f"{page.name}: " + "; ".join(problems)


def test_readme_keeps_the_two_commands_and_links_into_docs() -> None:
    readme = _text(ROOT / "README.md")
    assert "pip install -e '.[example]' && blogbuild serve" in readme
    assert "bash .ci/run" in readme
    assert "blogbuild init myblog" in readme
    linked = {t.partition("#")[0] for t in _targets(ROOT / "README.md")}
    assert {f"docs/{p.name}" for p in DOCS.glob("*.md") if p.name != "README.md"} <= linked


def _keys(cls: type) -> list[str]:
    return [f.name for f in dataclasses.fields(cls) if f.name not in _NOT_KEYS]


@pytest.mark.parametrize("cls", [Config, MathConfig, RunnableConfig, CalloutType, CheckConfig,
                                 CommentsConfig, SocialConfig, StatementsConfig,
                                 CitationsConfig],
                         ids=lambda c: c.__name__)
def test_every_site_yaml_key_is_documented(cls: type) -> None:
    text = _text(DOCS / "configuration.md")
    missing = [key for key in _keys(cls) if f"`{key}`" not in text]
    assert not missing, f"docs/configuration.md does not mention {missing}"


def _subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def _options(parser: argparse.ArgumentParser) -> set[str]:
    return {option for action in parser._actions for option in action.option_strings
            if option not in ("-h", "--help")}


def _mentioned(word: str, text: str) -> bool:
    return re.search(rf"(?<![\w-]){re.escape(word)}(?![\w-])", text) is not None


def test_every_command_and_option_is_in_the_cli_reference() -> None:
    text = _text(DOCS / "cli.md")
    parser = cli._parser()
    commands = _subcommands(parser)
    assert {"build", "serve", "render"} <= set(commands)
    everywhere = _options(parser)  # --debug, --version: documented once, for every command
    missing = [f"--help: {o}" for o in sorted(everywhere) if not _mentioned(o, text)]
    for name, sub in sorted(commands.items()):
        if f"## blogbuild {name}" not in text:
            missing.append(f"a '## blogbuild {name}' section")
        section = text.split(f"## blogbuild {name}", 1)[-1].split("\n## ", 1)[0]
        missing += [f"{name} {o}" for o in sorted(_options(sub) - everywhere)
                    if not _mentioned(o, section)]
    assert not missing, f"docs/cli.md lacks {missing}"


def test_every_widget_has_an_example_and_a_screenshot() -> None:
    text = _text(DOCS / "widgets.md")
    for kind in KINDS:
        assert f'class="{kind}"' in text, kind
        assert f"(images/{kind}.png)" in text, kind
        assert (DOCS / "images" / f"{kind}.png").is_file(), kind


def test_every_callout_type_and_alias_is_documented() -> None:
    text = _text(DOCS / "writing.md")
    names = set(BUILTIN_TYPES) | set(build_kinds(None))
    missing = sorted(name for name in names if f"`{name.upper()}`" not in text)
    assert not missing, f"docs/writing.md does not list the callout types {missing}"


def _files(path: Path) -> Iterator[Path]:
    if path.is_file():
        yield path
        return
    for file in sorted(path.rglob("*")):
        if file.is_file() and "__pycache__" not in file.parts:
            yield file


def test_nothing_that_ships_points_outside_the_repository() -> None:
    offenders = [file.relative_to(ROOT).as_posix() for root in SHIPPED for file in _files(root)
                 if any(word in file.read_bytes() for word in FORBIDDEN)]
    assert not offenders, f"these files refer to a folder users do not have: {offenders}"
