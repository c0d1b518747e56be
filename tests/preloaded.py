"""`python -m blogbuild ARGS` in a new process, without starting Python and importing
blogbuild for each: a process that has imported the command's modules forks a child per
command, and the child runs the command as `python -m blogbuild` would (its folder, its
environment, its arguments, its output into files) and ends with the command's status.

The case corpora run hundreds of commands. Starting Python and importing blogbuild is
more than half of a small site's build; in a fork it costs nothing. The child is still a
process of its own: its exit status is the command's, and a crash, a hang or a signal stays
in it. What a fork cannot show, the command's own start (its imports, `-m`), the tests that
run the installed `blogbuild` show (tests/test_exit.py, tests/test_e2e_shapes.py).

Run as a script, this module is the forking process: it reads one request per line on its
stdin, `{"args", "cwd", "env", "out", "err"}` in JSON, and answers with two lines, the
child's pid when it starts, and when it ends its wait status and the CPU seconds it and
the processes it waited for used.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import traceback
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

#: The checkout's code, which the commands run.
SRC = Path(__file__).resolve().parent.parent / "src"

#: What the forking process imports before its first fork: the command and what every
#: build loads (the engine, Markdown, templates). Nothing here starts a thread or a runtime.
PRELOAD = ("blogbuild.cli", "blogbuild.commands.build", "blogbuild.pipeline.engine",
           "blogbuild.pipeline.render", "blogbuild.pipeline.writing",
           "blogbuild.output.templating", "blogbuild.markdown", "blogbuild.readers.markdown",
           "blogbuild.runtimes.katex", "blogbuild.commands.summary",
           "blogbuild.commands.page_tags", "PIL.ImageDraw", "PIL.ImageFont")
#: The site.yaml of a case that writes none.
DEFAULT_SITE = "title: Test\nbase_url: https://example.org/blog/\n"


def _child(request: dict[str, Any]) -> None:
    """In the forked child: become `python -m blogbuild ARGS` and end with its status."""
    status = 1
    try:
        os.setpgid(0, 0)  # a timeout kills the command and whatever it started
        os.chdir(request["cwd"])
        os.environ.clear()
        os.environ.update(request["env"])
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        for fd, path in ((1, request["out"]), (2, request["err"])):
            opened = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
            os.dup2(opened, fd)
            os.close(opened)
        import blogbuild.__main__ as main_module
        from blogbuild.cli import run

        sys.argv = [main_module.__file__ or "blogbuild", *request["args"]]
        run()  # ends the process with the command's status, as `python -m` does
        status = 0
    except SystemExit as stop:  # a usage error: Python's own exit
        code = stop.code
        if code is None or isinstance(code, int):
            status = code or 0
        else:
            print(code, file=sys.stderr)
    except BaseException:  # what the interpreter prints for an uncaught exception
        traceback.print_exc()
    finally:
        import atexit

        atexit._run_exitfuncs()
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(Exception):
                stream.flush()
        os._exit(status)


def serve() -> None:
    """The forking process: one command at a time, from its stdin."""
    for name in PRELOAD:
        __import__(name)
    _compile_ahead()
    answers = sys.stdout
    for line in sys.stdin:
        request = json.loads(line)
        answers.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:
            _child(request)
        answers.write(f"{pid}\n")
        answers.flush()
        _, status, usage = os.wait4(pid, 0)
        answers.write(f"{status} {usage.ru_utime + usage.ru_stime}\n")
        answers.flush()


def _compile_ahead() -> None:
    """What a build of `DEFAULT_SITE` works out before it templates, kept in this process's
    memory as a first build keeps it: the code's fingerprint, the theme's templates
    compiled for those settings, and which templates each one loads. A child whose site
    has those settings takes them from memory, as a process's second build does
    (tests/test_template_memory.py), instead of working them out again: the hostile
    corpus took 155 s with three workers, 118 s with this. Nothing here starts a process
    or a thread."""
    from blogbuild.config import load_config
    from blogbuild.fingerprints import recall_code_fingerprint
    from blogbuild.markdown import create_markdown
    from blogbuild.output.templating import CompiledTemplates, create_environment
    from blogbuild.pipeline.pages import closures, templates_name
    from blogbuild.stages import all_stages
    from blogbuild.themefiles import THEME_PREFIX

    with tempfile.TemporaryDirectory(prefix="blogbuild-ahead-") as folder:
        site = Path(folder, "site.yaml")
        site.write_text(DEFAULT_SITE, encoding="utf-8")
        recall_code_fingerprint(Path(folder, "code-fingerprint.pickle"))
        config = load_config(site)
        env = create_environment(config, CompiledTemplates(templates_name(config, "")),
                                 reload=False)
        names = [name for name in env.list_templates()
                 if not name.startswith(f"{THEME_PREFIX}/")]  # the same files by their names
        for name in names:
            env.get_template(name)
        closures(config, names)  # which templates each one loads
        all_stages()  # the modules of the stages and of the plugins, as a build loads them
        create_markdown(config, quarto=False)


def command_env(**extra: str) -> dict[str, str]:
    """The environment the corpora's commands run in: this one, the checkout's code, one
    worker (a case's build is small), and `extra`."""
    return {**os.environ, "PYTHONPATH": str(SRC), "BLOGBUILD_WORKERS": "1", **extra}


class Finished(subprocess.CompletedProcess[str]):
    """A command that ended, as subprocess.run gives it, and the CPU seconds it and the
    processes it waited for used."""

    cpu: float = 0.0


class Preloaded:
    """A forking process (`serve`), started on first use, for `run`."""

    def __init__(self, src: Path = SRC) -> None:
        self.src = src
        self.folder = Path(tempfile.mkdtemp(prefix="blogbuild-commands-"))  # their output
        self.process: subprocess.Popen[bytes] | None = None
        self.pending = b""

    def _started(self) -> subprocess.Popen[bytes]:
        if self.process is None or self.process.poll() is not None:
            env = {**os.environ, "PYTHONPATH": str(self.src)}
            self.process = subprocess.Popen([sys.executable, __file__], stdin=subprocess.PIPE,
                                            stdout=subprocess.PIPE, bufsize=0, env=env,
                                            start_new_session=True)
            self.pending = b""
        return self.process

    def _answer(self, timeout: float | None = None) -> list[str] | None:
        """The forking process's next line, its words; None when `timeout` passes first."""
        assert self.process is not None and self.process.stdout is not None
        fd = self.process.stdout.fileno()
        while b"\n" not in self.pending:
            ready, _, _ = select.select([fd], [], [], timeout)
            if not ready:
                return None
            chunk = os.read(fd, 4096)
            if not chunk:
                raise RuntimeError("the forking process ended")
            self.pending += chunk
        line, self.pending = self.pending.split(b"\n", 1)
        return line.decode().split()

    def run(self, args: Sequence[str], *, cwd: Path, env: Mapping[str, str],
            timeout: float) -> Finished:
        """`python -m blogbuild ARGS` in `cwd` with `env`, as subprocess.run with
        capture_output and text would give it, and its CPU time."""
        process = self._started()
        assert process.stdin is not None
        out, err = self.folder / "stdout", self.folder / "stderr"
        request = {"args": list(args), "cwd": str(cwd), "env": dict(env), "out": str(out),
                   "err": str(err)}
        process.stdin.write(json.dumps(request).encode() + b"\n")
        started = self._answer()
        assert started is not None
        ended = self._answer(timeout)
        timed_out = ended is None
        if timed_out:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(int(started[0]), signal.SIGKILL)
            ended = self._answer()
        assert ended is not None
        stdout = out.read_text(encoding="utf-8")
        stderr = err.read_text(encoding="utf-8")
        if timed_out:
            raise subprocess.TimeoutExpired(["blogbuild", *args], timeout, stdout, stderr)
        done = Finished(["blogbuild", *args], os.waitstatus_to_exitcode(int(ended[0])), stdout,
                        stderr)
        done.cpu = float(ended[1])
        return done

    def close(self) -> None:
        if self.process is not None:
            assert self.process.stdin is not None
            self.process.stdin.close()
            self.process.wait(timeout=30)
            self.process = None
        shutil.rmtree(self.folder, ignore_errors=True)


if __name__ == "__main__":
    serve()
