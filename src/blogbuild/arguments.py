"""The command line's arguments: one parser, a subparser per command (blogbuild.cli runs
them)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from blogbuild import __version__

#: What `add_subparsers` returns.
Subparsers = Any


def parser() -> argparse.ArgumentParser:
    """The parser of `blogbuild COMMAND …`."""
    # Global flags work before or after the command: the subcommands share them through a
    # parent parser whose default is SUPPRESS, so a flag given before the command is not
    # overwritten by the subcommand's default.
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--debug", action="store_true", default=argparse.SUPPRESS,
                        help="show Python tracebacks")
    parser = argparse.ArgumentParser(
        prog="blogbuild",
        description="Build a static blog from Markdown: math, code and interactive widgets.",
    )
    parser.add_argument("--version", action="version", version=f"blogbuild {__version__}")
    parser.add_argument("--debug", action="store_true", default=False,
                        help="show Python tracebacks")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for command in (_build, _serve, _check, _render, _init, _new, _import):
        command(sub, common)
    return parser


def _site_options(p: argparse.ArgumentParser) -> None:
    """What `build` and `serve` share: the site, the output, drafts, the base URL."""
    p.add_argument("--config", type=Path, default=None,
                   help="path of site.yaml (default: ./site.yaml)")
    p.add_argument("--output", type=Path, default=None, help="output folder (default: _site)")
    p.add_argument("--drafts", action="store_true", help="include posts with draft: true")
    p.add_argument("--base-url", default=None,
                   help="override site.yaml's base_url (e.g. for previews)")


def _build(sub: Subparsers, common: argparse.ArgumentParser) -> None:
    """`blogbuild build`."""
    build = sub.add_parser("build", parents=[common],
                           help="build the site into the output folder")
    _site_options(build)
    build.add_argument("--strict", action="store_true", help="warnings fail the build")
    build.add_argument("--no-cache", action="store_true",
                       help="render and write everything; neither read nor update the cache")
    build.add_argument("--clean", action="store_true",
                       help="make the output folder anew (the render cache still counts)")
    build.add_argument("--jobs", "-j", type=_positive, default=None, metavar="N",
                       help="worker processes that render and write pages (default: one "
                            "per core)")
    build.add_argument("--quiet", "-q", action="store_true",
                       help="print only problems (no progress bar, no summary)")
    build.add_argument("--timings", action="store_true",
                       help="print where the time went: each step, and the parts of the "
                            "render (also with --quiet)")


def _serve(sub: Subparsers, common: argparse.ArgumentParser) -> None:
    """`blogbuild serve`."""
    serve = sub.add_parser("serve", parents=[common],
                           help="build, serve on 127.0.0.1 and rebuild on changes")
    _site_options(serve)
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=8000)
    watch = serve.add_mutually_exclusive_group()
    watch.add_argument("--watch", dest="watch", action="store_true", default=True,
                       help="rebuild and reload the browser on changes (default)")
    watch.add_argument("--no-watch", dest="watch", action="store_false")
    serve.add_argument("--open", action="store_true", help="open the site in a browser")
    serve.add_argument("--isolate", action="store_true",
                       help="send COOP/COEP headers (cross-origin isolation; blocks embeds)")
    serve.set_defaults(drafts=True)


def _check(sub: Subparsers, common: argparse.ArgumentParser) -> None:
    """`blogbuild check`."""
    check = sub.add_parser(
        "check", parents=[common],
        help="check links, anchors, images (and with --external, other sites) and how posts "
             "render on GitHub and in Obsidian",
        description="Build the site into a temporary folder (the output folder is never "
                    "touched) and report what a reader would find broken. Exit status: 0 no "
                    "errors, 1 errors (or warnings with --strict), 2 wrong usage.")
    check.add_argument("--config", type=Path, default=None,
                       help="path of site.yaml (default: ./site.yaml)")
    check.add_argument("--drafts", action="store_true", help="check posts with draft: true too")
    check.add_argument("--base-url", default=None, help="override site.yaml's base_url")
    check.add_argument("--external", action="store_true",
                       help="check links to other sites too (needs the network)")
    check.add_argument("--no-portability", dest="portability", action="store_false",
                       help="skip the GitHub/Obsidian portability warnings")
    check.add_argument("--ignore", action="append", default=[], metavar="PATTERN",
                       help="leave URLs matching PATTERN alone (shell-style, e.g. "
                            "'https://example.com/*'); may be repeated")
    check.add_argument("--no-cache", action="store_true",
                       help="neither read nor write .blogbuild-cache/ (renders, link results)")
    check.add_argument("--timeout", type=_seconds, default=10.0, metavar="SECONDS",
                       help="give up on an external link after this long (default: 10)")
    check.add_argument("--format", choices=("text", "json"), default="text",
                       help="report as lines (default) or as JSON on stdout")
    check.add_argument("--strict", action="store_true", help="warnings fail the check too")
    check.add_argument("--jobs", "-j", type=_positive, default=None, metavar="N",
                       help="worker processes for the build (default: one per core)")


def _render(sub: Subparsers, common: argparse.ArgumentParser) -> None:
    """`blogbuild render`."""
    render = sub.add_parser("render", parents=[common],
                            help="print the HTML fragment of one Markdown file")
    render.add_argument("file", type=Path)
    render.add_argument("--config", type=Path, default=None,
                        help="site.yaml whose options to use (default: ./site.yaml if present)")


def _init(sub: Subparsers, common: argparse.ArgumentParser) -> None:
    """`blogbuild init`."""
    init = sub.add_parser(
        "init", parents=[common],
        help="start a new blog: site.yaml, a first post, an about page, a deploy workflow",
        description="Write a ready blog into DIR: site.yaml (every setting explained), a first "
                    "post, an about page, .gitignore, requirements.txt and a GitHub Pages "
                    "workflow. Never overwrites a file unless --force is given.")
    init.add_argument("dir", nargs="?", type=Path, default=Path("."), metavar="DIR",
                      help="folder of the new blog, created if missing (default: this folder)")
    init.add_argument("--title", help="the blog's name, shown in the header and page titles")
    init.add_argument("--base-url", metavar="URL",
                      help="the address the blog will be published at, e.g. "
                           "https://you.github.io/blog/ (the deploy workflow sets it on GitHub)")
    init.add_argument("--author", metavar="NAME", help="your name, shown on posts and in the feed")
    init.add_argument("--force", action="store_true", help="overwrite files that exist")


def _new(sub: Subparsers, common: argparse.ArgumentParser) -> None:
    """`blogbuild new`."""
    new = sub.add_parser(
        "new", parents=[common],
        help="start a new post (or page) with its front matter filled in",
        description="Write content/posts/YYYY-MM-DD-SLUG.md dated today, SLUG made from the "
                    "title, and print its path. Never overwrites a file.")
    new.add_argument("title", help='the title, in quotes: blogbuild new "My next post"')
    new.add_argument("--tags", default="", metavar='"A, B"',
                     help='comma-separated tags: --tags "python, math"')
    new.add_argument("--draft", action="store_true",
                     help="mark it draft: true (built only by serve and build --drafts)")
    kind = new.add_mutually_exclusive_group()
    kind.add_argument("--bundle", action="store_true", help="write content/posts/SLUG/index.md, "
                      "a folder that holds the post's images too")
    kind.add_argument("--page", action="store_true",
                      help="write a page, content/SLUG.md, at the URL /SLUG/")
    new.add_argument("--config", type=Path, default=None, metavar="PATH",
                     help="path of site.yaml (default: ./site.yaml)")


def _import(sub: Subparsers, common: argparse.ArgumentParser) -> None:
    """`blogbuild import`."""
    imp = sub.add_parser(
        "import", parents=[common],
        help="convert the posts of a Jekyll site, a Hugo site or an Obsidian vault, or a "
             "Quarto blog into a site",
        description="Copy the posts of SRC into content/posts/ with their images, front matter "
                    "and syntax converted, and print what was changed and what to check. "
                    "quarto makes a whole site (site.yaml, content/, _freeze/) in the folder of "
                    "--config from a Quarto project. SRC is only read. Never overwrites a file "
                    "unless --force is given.")
    imp.add_argument("kind", choices=("jekyll", "hugo", "obsidian", "quarto"), metavar="KIND",
                     help="jekyll, hugo, obsidian or quarto")
    imp.add_argument("source", type=Path, metavar="SRC",
                     help="the folder of the site, vault or Quarto project")
    imp.add_argument("--dry-run", action="store_true", help="report only; write nothing")
    imp.add_argument("--force", action="store_true", help="overwrite files that exist")
    imp.add_argument("--config", type=Path, default=None, metavar="PATH",
                     help="path of site.yaml (default: ./site.yaml)")


def _positive(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number of at least 1, not {text!r}")
    return int(text)


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = 0.0
    if not value > 0:
        raise argparse.ArgumentTypeError(f"expected a number of seconds above 0, not {text!r}")
    return value
