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

from blogbuild import arguments
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
    return arguments.parser()


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
    if report.warning is not None:
        print(f"{_shown(report.root / 'requirements.txt')}: warning: {report.warning}",
              file=sys.stderr)
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
