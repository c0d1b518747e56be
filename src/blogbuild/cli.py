"""Command line: argument parsing and exit codes only; the work is in blogbuild.commands."""

from __future__ import annotations

import argparse
import gc
import os
import shlex
import signal
import sys
import traceback
from collections.abc import Sequence
from pathlib import Path

from blogbuild import __version__
from blogbuild.diagnostics import BlogbuildError, BuildFailed, Diagnostic
from blogbuild.perprocess import close_all, end_now
from blogbuild.progress import Progress, StageClock, TerminalBar, both

EXIT_OK, EXIT_ERROR, EXIT_USAGE, EXIT_INTERRUPTED, EXIT_TERMINATED = 0, 1, 2, 130, 143


class Terminated(BaseException):
    """SIGTERM arrived: the command stops as for Ctrl-C (its processes end with it)."""


def _terminate(signum: int, frame: object) -> None:
    raise Terminated

#: Seconds a build runs before the progress bar appears (tests set it to 0).
PROGRESS_DELAY_ENV = "BLOGBUILD_PROGRESS_DELAY"


def _parser() -> argparse.ArgumentParser:
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

    def site_options(p: argparse.ArgumentParser) -> None:
        p.add_argument("--config", type=Path, default=None,
                       help="path of site.yaml (default: ./site.yaml)")
        p.add_argument("--output", type=Path, default=None, help="output folder (default: _site)")
        p.add_argument("--drafts", action="store_true", help="include posts with draft: true")
        p.add_argument("--base-url", default=None,
                       help="override site.yaml's base_url (e.g. for previews)")

    build = sub.add_parser("build", parents=[common],
                           help="build the site into the output folder")
    site_options(build)
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

    serve = sub.add_parser("serve", parents=[common],
                           help="build, serve on 127.0.0.1 and rebuild on changes")
    site_options(serve)
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

    render = sub.add_parser("render", parents=[common],
                            help="print the HTML fragment of one Markdown file")
    render.add_argument("file", type=Path)
    render.add_argument("--config", type=Path, default=None,
                        help="site.yaml whose options to use (default: ./site.yaml if present)")

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
    imp = sub.add_parser(
        "import", parents=[common],
        help="convert the posts of a Jekyll site, a Hugo site or an Obsidian vault",
        description="Copy the posts of SRC into content/posts/ with their images, front matter "
                    "and syntax converted, and print what was changed and what to check. "
                    "SRC is only read. Never overwrites a file unless --force is given.")
    imp.add_argument("kind", choices=("jekyll", "hugo", "obsidian"), metavar="KIND",
                     help="jekyll, hugo or obsidian")
    imp.add_argument("source", type=Path, metavar="SRC", help="the folder of the site or vault")
    imp.add_argument("--dry-run", action="store_true", help="report only; write nothing")
    imp.add_argument("--force", action="store_true", help="overwrite files that exist")
    imp.add_argument("--config", type=Path, default=None, metavar="PATH",
                     help="path of site.yaml (default: ./site.yaml)")
    return parser


def _print_diagnostics(diagnostics: Sequence[Diagnostic]) -> None:
    for diagnostic in diagnostics:
        print(diagnostic.format(), file=sys.stderr)


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help(sys.stderr)
        return EXIT_USAGE
    # SIGTERM (a CI job cancelled, `kill`) unwinds like Ctrl-C, so that the worker pool,
    # Pagefind and build-time Python end with the command; Python's default would leave them.
    signal.signal(signal.SIGTERM, _terminate)
    try:
        return _run(args)
    except Terminated:  # before or after the command's own handler (below) could take it
        print("stopped", file=sys.stderr)
        return EXIT_TERMINATED
    finally:
        # V8 contexts and cache connections close here, while their threads still run,
        # not in the interpreter's shutdown (blogbuild.perprocess says why).
        close_all()


def run() -> None:
    """The `blogbuild` program: `main`, then the process ends with its status at once.

    By then the command's files are written and its messages printed, and `main` has
    closed what needs closing (`close_all`, the worker pools, the removal of an old output
    folder). What is left is the interpreter taking apart, one by one, every object the
    build held: a tenth of an edit's build of a 1,000-post blog. An exception or
    `SystemExit` (a usage error) ends the usual way."""
    # The program's modules and a build's records live until it ends, and hold no cycles
    # worth finding early: Python's cycle collector, run every 700 new objects, went
    # through them 140 times in an edit's build of a 1,000-post blog (16 ms of 0.55 s).
    # Every 100,000 new objects it has nothing to do in an edit, and a long build or the
    # live server still has its cycles collected.
    gc.set_threshold(100_000, 10, 10)
    end_now(main())


def _run(args: argparse.Namespace) -> int:
    """Run the command `args` names; its exit status (messages printed on the way)."""
    try:
        if args.command == "build":
            return _build(args)
        if args.command == "serve":
            from blogbuild.commands.serve import serve

            return int(serve(
                args.config, host=args.host, port=args.port, watch=args.watch,
                drafts=args.drafts, output=args.output,
                base_url=args.base_url, open_browser=args.open, isolate=args.isolate,
                debug=args.debug,
            ))
        if args.command == "render":
            from blogbuild.commands.render import render

            html, diagnostics = render(args.file, args.config)
            sys.stdout.write(html)
            _print_diagnostics(diagnostics)
            return EXIT_ERROR if any(d.is_error for d in diagnostics) else EXIT_OK
        if args.command == "check":
            return _check(args)
        if args.command == "init":
            return _init(args)
        if args.command == "new":
            return _new(args)
        if args.command == "import":
            return _import(args)
    except BuildFailed as exc:
        _print_diagnostics(exc.diagnostics)
        print(f"error: {exc.message}; the previous output was left untouched", file=sys.stderr)
        return EXIT_ERROR
    except BlogbuildError as exc:
        if args.debug:
            traceback.print_exc()
        print(f"error: {exc.format()}", file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except Terminated:
        print("stopped", file=sys.stderr)
        return EXIT_TERMINATED
    except Exception:
        if args.debug:
            raise
        print("internal error: blogbuild hit a bug; rerun with --debug for the traceback and "
              "please report it", file=sys.stderr)
        return EXIT_ERROR
    return EXIT_USAGE


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


def _check(args: argparse.Namespace) -> int:
    from blogbuild.check.run import Options
    from blogbuild.commands.check import run_check

    options = Options(external=args.external, portability=args.portability,
                      use_cache=not args.no_cache, ignore=tuple(args.ignore),
                      drafts=args.drafts, jobs=args.jobs, timeout=args.timeout)
    return run_check(args.config, out=sys.stdout, options=options, base_url=args.base_url,
                     strict=args.strict, as_format=args.format)


def _build(args: argparse.Namespace) -> int:
    from blogbuild.commands.build import build
    from blogbuild.output.writer import wait_for_cleanup

    bar = _progress_bar() if not args.quiet else None
    clock = StageClock() if args.timings else None
    if clock is not None:
        from blogbuild import timings

        timings.enable()
    progress: Progress = both(*(p for p in (bar, clock) if p is not None))
    try:
        report = build(args.config, output=args.output, drafts=args.drafts, strict=args.strict,
                       base_url=args.base_url, use_cache=not args.no_cache,
                       clean=args.clean, jobs=args.jobs, progress=progress)
        summary = None
        if not args.quiet:  # the summary's code loads only when it is shown
            from blogbuild.commands.summary import summarize

            progress("summing up the output", 0, 0)
            summary = summarize(report.output, report.written, report.base_url,
                                cache=report.cache, files=report.outputs)
    finally:
        if bar is not None:
            bar.close()
        wait_for_cleanup()  # leave no half-deleted old output folder behind
    _print_diagnostics(report.diagnostics)
    if summary is not None:
        from blogbuild.commands.summary import summary_lines

        try:
            where = report.output.relative_to(Path.cwd())
        except ValueError:
            where = report.output
        for line in summary_lines(report, summary, f"{where}/"):
            print(line, file=sys.stderr)
    if clock is not None:
        from blogbuild import timings
        from blogbuild.progress import timings_table

        for line in timings_table(clock.stop(), timings.take()):
            print(line, file=sys.stderr)
    return EXIT_OK


def _shown(path: Path) -> str:
    """`path` relative to the current folder when inside it, quoted for a shell."""
    try:
        path = path.resolve().relative_to(Path.cwd().resolve())
    except ValueError:
        path = path.resolve()
    return shlex.quote(path.as_posix())


def _init(args: argparse.Namespace) -> int:
    from blogbuild.commands.init import init

    report = init(args.dir, title=args.title, base_url=args.base_url, author=args.author,
                  force=args.force)
    for rel in report.written:
        print(f"wrote {_shown(report.root / rel)}")
    print("\nYour blog is ready. Next, preview it and start a post:")
    if report.root != Path.cwd().resolve():
        print(f"  cd {_shown(report.root)}")
    print("  blogbuild serve")
    print('  blogbuild new "My next post"')
    return EXIT_OK


def _new(args: argparse.Namespace) -> int:
    from blogbuild.commands.new import new

    path = new(args.title, config_path=args.config, tags=args.tags, draft=args.draft,
               bundle=args.bundle, page=args.page)
    print(_shown(path))
    return EXIT_OK


def _import(args: argparse.Namespace) -> int:
    from blogbuild.commands.import_ import import_

    lines, problem = import_(args.kind, args.source, config_path=args.config,
                             dry_run=args.dry_run, force=args.force)
    print("\n".join(lines))
    if problem is not None:
        print(f"error: {problem}", file=sys.stderr)
        return EXIT_ERROR
    return EXIT_OK


def _progress_bar() -> TerminalBar | None:
    """A progress bar on stderr if that is a terminal (never in logs or pipes)."""
    if not sys.stderr.isatty() or os.environ.get("TERM") == "dumb":
        return None
    try:
        delay = float(os.environ.get(PROGRESS_DELAY_ENV, "1"))
    except ValueError:
        delay = 1.0
    return TerminalBar(sys.stderr, delay=delay)
