"""Command line: argument parsing and exit codes only; the work is in blogbuild.commands."""

from __future__ import annotations

import argparse
import sys
import traceback
from collections.abc import Sequence
from pathlib import Path

from blogbuild import __version__
from blogbuild.diagnostics import BlogbuildError, BuildFailed, Diagnostic

EXIT_OK, EXIT_ERROR, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="blogbuild",
        description="Build a static blog from Markdown: math, code and interactive widgets.",
    )
    parser.add_argument("--version", action="version", version=f"blogbuild {__version__}")
    parser.add_argument("--debug", action="store_true", help="show Python tracebacks")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    def site_options(p: argparse.ArgumentParser) -> None:
        p.add_argument("--config", type=Path, default=None,
                       help="path of site.yaml (default: ./site.yaml)")
        p.add_argument("--output", type=Path, default=None, help="output folder (default: _site)")
        p.add_argument("--drafts", action="store_true", help="include posts with draft: true")
        p.add_argument("--base-url", default=None,
                       help="override site.yaml's base_url (e.g. for previews)")
        p.add_argument("--debug", action="store_true", help="show Python tracebacks")

    build = sub.add_parser("build", help="build the site into the output folder")
    site_options(build)
    build.add_argument("--strict", action="store_true", help="warnings fail the build")
    build.add_argument("--no-cache", action="store_true", help="ignore the render cache")
    build.add_argument("--quiet", "-q", action="store_true", help="print only problems")

    serve = sub.add_parser("serve", help="build, serve on 127.0.0.1 and rebuild on changes")
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

    render = sub.add_parser("render", help="print the HTML fragment of one Markdown file")
    render.add_argument("file", type=Path)
    render.add_argument("--config", type=Path, default=None,
                        help="site.yaml whose options to use (default: ./site.yaml if present)")
    render.add_argument("--debug", action="store_true", help="show Python tracebacks")
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
    try:
        if args.command == "build":
            return _build(args)
        if args.command == "serve":
            from blogbuild.commands.serve import serve

            return int(serve(
                args.config, host=args.host, port=args.port, watch=args.watch,
                drafts=args.drafts, output=args.output,
                base_url=args.base_url, open_browser=args.open, isolate=args.isolate,
            ))
        if args.command == "render":
            from blogbuild.commands.render import render

            html, diagnostics = render(args.file, args.config)
            sys.stdout.write(html)
            _print_diagnostics(diagnostics)
            return EXIT_ERROR if any(d.is_error for d in diagnostics) else EXIT_OK
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
    except Exception:
        if args.debug:
            raise
        print("internal error: blogbuild hit a bug; rerun with --debug for the traceback and "
              "please report it", file=sys.stderr)
        return EXIT_ERROR
    return EXIT_USAGE


def _build(args: argparse.Namespace) -> int:
    from blogbuild.commands.build import build
    from blogbuild.writer import wait_for_cleanup

    try:
        report = build(args.config, output=args.output, drafts=args.drafts, strict=args.strict,
                       base_url=args.base_url, use_cache=not args.no_cache)
    finally:
        wait_for_cleanup()  # leave no half-deleted old output folder behind
    _print_diagnostics(report.diagnostics)
    if not args.quiet:
        try:
            where = report.output.relative_to(Path.cwd())
        except ValueError:
            where = report.output
        print(f"built {report.posts} posts, {report.pages} pages, {report.files} files "
              f"in {report.seconds:.2f} s ({report.rendered} rendered, {report.cached} cached) "
              f"→ {where}/", file=sys.stderr)
    return EXIT_OK
