"""One live server: the engine run in a build thread, the HTTP server and the watcher."""

from __future__ import annotations

import contextlib
import errno
import gc
import logging
import os
import re
import secrets
import shutil
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path

from blogbuild.cancel import Token, scope
from blogbuild.content.walk import ignored_path
from blogbuild.diagnostics import BlogbuildError, error
from blogbuild.output.outdir import CACHE_DIR
from blogbuild.pool import stop_helpers
from blogbuild.quarto import freeze_folders
from blogbuild.serve.http import SNIPPET, DevHTTPServer, ServerState
from blogbuild.serve.live import LiveBuild, Update
from blogbuild.serve.reloads import publish, report
from blogbuild.serve.watch import Watcher

log = logging.getLogger("blogbuild.serve")

LOCAL_HOSTS = {"127.0.0.1", "localhost", "::1"}
#: How many ports after the requested one to try when it is taken.
PORT_TRIES = 20
#: Seconds stop() waits for the threads (Ctrl-C must end serve within a second).
STOP_WAIT = 0.5
#: Seconds between the HTTP server's checks for shutdown (and overdue request heads).
POLL = 0.1
#: Seconds stop() gives the removal of the temporary output folder (thousands of files
#: can take seconds); what is left is removed by the next `serve` (remove_leftovers).
REMOVE_WAIT = 0.25
#: Seconds the run waits at most, after a reload of the pages written ahead of it, for the
#: browsers that show them to load them again: started at once, it took the processor and
#: Python's lock from the server and the browser, and the reload took twice as long.
SHOWN_WAIT = 0.5
#: The temporary output folders: blogbuild-serve-PID-RANDOM/site.
TEMP_PREFIX = "blogbuild-serve-"


class Session:
    """One live server: the build state, the HTTP server, the watcher and the build thread.

    Everything that renders runs in the one build thread (the initial build too), so
    rendering state such as a KaTeX context is never used from two threads. Each run has
    a cancellation token: a change saved while a run does its deferred part (the pages
    the edit does not show, the search index) makes it stale, and the next run starts at
    once with both changes; stop() cancels whatever runs and kills the processes it started.
    """

    def __init__(self, config_path: Path | str | None = None, *, host: str = "127.0.0.1",
                 port: int = 8000, watch: bool = True, drafts: bool = True,
                 output: Path | str | None = None, base_url: str | None = None,
                 isolate: bool = False, quiet: float | None = None) -> None:
        self.config_path = config_path
        self.host = host
        self.port = port
        self.watch = watch
        self.drafts = drafts
        self.base_url = base_url
        self.quiet = quiet
        self._own_output = output is None
        self.output = (Path(tempfile.mkdtemp(prefix=f"{TEMP_PREFIX}{os.getpid()}-")) / "site"
                       if output is None else Path(output)).resolve()
        self.state = ServerState(self.output, isolate=isolate)
        self.state.broker.token = secrets.token_hex(8)
        self.live: LiveBuild | None = None
        self.httpd: DevHTTPServer | None = None
        self.watcher: Watcher | None = None
        self._threads: list[threading.Thread] = []
        self._token = Token()  # the current run's
        self._ready = threading.Event()
        self._stopping = threading.Event()
        self._startup_error: BaseException | None = None
        self.last_update: Update | None = None
        self.last_cpu = 0.0  # CPU seconds the build thread spent on the last batch
        self.updates = 0  # batches handled (tests wait on it)

    @property
    def url(self) -> str:
        assert self.httpd is not None
        host, port = self.httpd.server_address[:2]
        host = host.decode() if isinstance(host, bytes) else str(host)
        shown = f"[{host}]" if ":" in host else host
        return f"http://{shown}:{port}{self.state.base_path}"

    def start(self) -> str:
        """Bind, build, start serving and watching; returns the site's URL."""
        try:
            self.live = LiveBuild(self.config_path, output=self.output, drafts=self.drafts,
                                  base_url=self.base_url, extra_head=SNIPPET,
                                  watched=self.state.broker.open_pages)
            self.state.base_path = self.live.base_path
            self.httpd = self._bind()
            if self.watch:
                self.watcher = self._make_watcher(self.live)
                self.watcher.start()
            self._spawn(self._build_loop, "blogbuild-build")
            # Short waits: a signal the kernel hands to another thread (SIGTERM from a
            # process manager, during a first build of minutes) runs its handler only when
            # this thread next wakes up.
            while not self._ready.wait(0.25):
                pass
            if self._startup_error is not None:
                raise self._startup_error
            httpd = self.httpd
            self._spawn(lambda: httpd.serve_forever(poll_interval=POLL), "blogbuild-http")
        except BaseException:
            self.stop()
            raise
        if self._own_output:
            threading.Thread(target=remove_leftovers, name="blogbuild-cleanup",
                             daemon=True).start()
        else:
            log.warning("note: %s holds the live-reload script and drafts: build with "
                        "`blogbuild build` before you deploy", self.output)
        if self.host not in LOCAL_HOSTS:
            log.warning("warning: bound to %s: anyone who can reach this machine can read the "
                        "site and its drafts; use --host 127.0.0.1 to keep it private",
                        self.host)
        return self.url

    def _spawn(self, target: object, name: str) -> None:
        thread = threading.Thread(target=target, name=name, daemon=True)  # type: ignore[arg-type]
        self._threads.append(thread)
        thread.start()

    def _bind(self) -> DevHTTPServer:
        last: OSError | None = None
        tries = 1 if self.port == 0 else PORT_TRIES
        for port in range(self.port, self.port + tries):
            try:
                server = DevHTTPServer((self.host, port), self.state)
            except OSError as exc:
                if exc.errno != errno.EADDRINUSE:
                    raise BlogbuildError(f"cannot listen on {self.host}:{port}: "
                                         f"{exc.strerror or exc}") from None
                last = exc
                continue
            if port != self.port:
                log.warning("port %d is in use; serving on port %d instead", self.port, port)
            return server
        raise BlogbuildError(
            f"ports {self.port}–{self.port + tries - 1} on {self.host} are all in use "
            f"({last.strerror if last else 'in use'}); pass --port with a free port"
        )

    def _make_watcher(self, live: LiveBuild) -> Watcher:
        root = live.config.root
        skipped = [self.output, root / CACHE_DIR, root / ".git"]
        # Quarto's freeze folders (beside site.yaml, in content/): a post renders again when
        # its frozen outputs change.
        trees = [*freeze_folders(root, live.config.content_dir), live.config.content_path,
                 root / "templates", root / "static"]

        def ignore(path: Path) -> bool:
            """A file no build reads: ignored itself, or in an ignored folder of a watched
            tree (Python's __pycache__ beside a script a block imports, .git, …)."""
            if any(path.is_relative_to(i) for i in skipped):
                return True
            tree = next((t for t in trees if path.is_relative_to(t)), None)
            return ignored_path(path.relative_to(tree).parts if tree is not None
                                else (path.name,))

        kwargs = {"quiet": self.quiet} if self.quiet is not None else {}
        return Watcher(trees, [live.config_path], ignore=ignore, changed=self._changed,
                       **kwargs)

    def _changed(self) -> None:
        """A file changed: the deferred part of the run in progress is stale. Not the
        first build's: the site is not served until it is done, and the change is built
        right after it (the watcher keeps it)."""
        if self._ready.is_set():
            self._token.stale()

    # -- the build thread ----------------------------------------------------------------

    def _build_loop(self) -> None:
        live = self.live
        assert live is not None
        try:
            update = live.full(self._token)
            if update.cancelled:  # stopped while starting
                raise KeyboardInterrupt
            self._report(update, initial=True)
            self.state.broker.set_errors(update.errors)
        except BaseException as exc:
            self._startup_error = exc
            self._ready.set()
            return
        self._ready.set()
        with scope(self._token):  # stop() ends a warm-up that runs a page's blocks
            self._warm_up(live)
        while self.watcher is not None and not self._stopping.is_set():
            batch = self.watcher.next_batch()
            if batch is None:
                break
            token = self._token = Token()
            if self._stopping.is_set():
                break
            if self.watcher.pending():  # saved again since the batch was taken
                token.stale()
            self._handle(live, batch, token)

    def _warm_up(self, live: LiveBuild) -> None:
        """Render the newest source (and a formula) once and template a post's page, so
        that the first edit does not pay for starting KaTeX, loading Pygments lexers or
        compiling templates. A save that comes meanwhile stops it: that edit warms up
        what it needs, and need not wait for the rest."""
        from blogbuild.pipeline.render import parser_for, render_markdown, render_source

        site = live.site
        jobs = sorted(live.jobs, key=lambda j: j.path.stat().st_mtime)
        # An unknown fence language makes Pygments import its plugins (once, slowly).
        sample = "```blogbuild-warm-up\nx\n```\n"
        if site is not None and any("math" in p.needs for p in [*site.posts, *site.pages]):
            sample += "\n$x^2$\n\n$$\\sum_i x_i$$\n"
        steps: list[Callable[[], object]] = []
        if live.engine is not None:
            engine = live.engine
            steps.append(lambda: live.edited.warm_up(engine))
        if jobs:
            steps.append(lambda: render_source(jobs[-1], live.config))
        steps.append(lambda: render_markdown(parser_for(live.config, quarto=False), sample))
        for step in steps:
            if self.watcher is not None and self.watcher.pending():
                return
            try:
                step()
            except Exception:  # only a speed-up
                log.debug("warm-up failed", exc_info=True)

    def _handle(self, live: LiveBuild, batch: set[Path], token: Token | None = None) -> None:
        start = time.perf_counter()
        token = token or Token()
        already: set[str] = set()

        def reloaded(pages: set[str]) -> None:
            if pages:
                log.info("reloaded %s after %.0f ms", ", ".join(sorted(pages)),
                         (time.perf_counter() - start) * 1000)

        def early(update: Update) -> None:
            reloaded(self._publish(update, already))
            already.update(update.written)

        cpu = time.thread_time()
        with _collector_off():
            ahead = self._write_ahead(live, batch)
            if ahead:
                broker = self.state.broker
                shown = broker.reopens(ahead)
                broker.publish("reload", paths=ahead)
                reloaded(ahead)
                # What the reader waits for is out: a newer save cancels the whole run now.
                token.defer()
                if shown and not broker.wait_reopened(shown, SHOWN_WAIT):
                    log.debug("  the pages written ahead were not loaded again within "
                              "%.0f ms", SHOWN_WAIT * 1000)
        try:
            update = live.apply(batch, publish=early, token=token)
        except BrokenProcessPool:  # Ctrl-C reached the render workers first
            live.needs_full = True
            log.warning("rendering was interrupted; the next change rebuilds everything")
            update = Update(errors=live.errors)
        except Exception as exc:  # a bug must not kill the server: report it, keep serving
            live.needs_full = True
            log.exception("internal error while rebuilding")
            update = Update(errors=[*live.errors, error("blogbuild", 0,
                                                        f"internal error: {exc!r}")])
        self.last_cpu = time.thread_time() - cpu
        if update.cancelled:  # a newer change (or stop): the next run does this one again
            log.debug("the rest of this run was dropped after %.0f ms (%s)",
                      (time.perf_counter() - start) * 1000,
                      "stopping" if token is not None and token.stopped else "a newer change")
            return
        self.state.base_path = live.base_path
        self._publish(update, already)
        live.edited.forget()
        self._report(update)
        self.last_update = update
        self.updates += 1

    def _write_ahead(self, live: LiveBuild, batch: set[Path]) -> set[str]:
        """The pages of edited posts, written before the run (LiveBuild.write_ahead)."""
        try:
            # The errors the browser shows, which a cancelled run may not have recorded.
            erring = {str(e.get("file", "")) for e in self.state.broker.errors}
            return live.write_ahead(batch, erring)
        except Exception:  # only a speed-up: the run shows the page
            log.exception("internal error while writing the edited page before the run")
            return set()

    def _publish(self, update: Update, already: set[str]) -> set[str]:
        """Tell the open pages what changed; returns the pages told to reload."""
        assert self.live is not None
        return publish(self.state.broker, self.live, update, already, self.state.base_path)

    def _report(self, update: Update, initial: bool = False) -> None:
        previous = self.last_update.errors if self.last_update is not None else []
        report(update, previous, initial=initial)

    # -- stopping ------------------------------------------------------------------------

    def stop(self) -> bool:
        """Stop watching, building and serving, in well under a second whatever the build
        thread is doing: its run is cancelled and the processes it started are killed
        (worker pool, forkserver, Pagefind, the Python of build-time blocks). Safe to call
        twice and after a failed start. False when a thread did not end in time (they are
        daemons, and hold no process of ours any more)."""
        self._stopping.set()
        start = time.monotonic()
        self._token.stop()
        end = start + STOP_WAIT
        if self.watcher is not None:
            self.watcher.stop()
        if self.httpd is not None:
            if any(t.name == "blogbuild-http" for t in self._threads):
                self.httpd.shutdown()
            self.httpd.close_connections()
            self.httpd.server_close()
        else:
            self.state.broker.close()
        for thread in self._threads:
            thread.join(timeout=max(0.0, end - time.monotonic()))
        busy = [t.name for t in self._threads if t.is_alive()]
        joined = time.monotonic()
        self._threads = []
        remover = None
        if self._own_output:  # beside the rest, in a daemon thread
            remover = threading.Thread(target=shutil.rmtree, args=(self.output.parent,),
                                       kwargs={"ignore_errors": True}, daemon=True)
            remover.start()
        stop_helpers(idle=not busy)
        if self.live is not None and not busy:
            self.live.close()
        helpers = time.monotonic()
        if remover is not None:
            remover.join(timeout=max(0.0, joined + REMOVE_WAIT - time.monotonic()))
        log.debug("stopped in %.0f ms (threads %.0f ms%s, helpers %.0f ms, then the output "
                  "folder %.0f ms)", (time.monotonic() - start) * 1000,
                  (joined - start) * 1000, f", still busy: {', '.join(busy)}" if busy else "",
                  (helpers - joined) * 1000, (time.monotonic() - helpers) * 1000)
        return not busy


@contextlib.contextmanager
def _collector_off() -> Iterator[None]:
    """Python's cyclic garbage collector off while the reader waits for the edited page: a
    full collection of a served site's objects takes 50 ms and more (1,000 posts)."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def remove_leftovers() -> None:
    """Remove the temporary output folders of `serve` processes that are gone (stopped
    before their folder was removed). Runs beside a new session, in a daemon thread."""
    for entry in Path(tempfile.gettempdir()).glob(f"{TEMP_PREFIX}*"):
        found = re.fullmatch(re.escape(TEMP_PREFIX) + r"(\d+)-\w+", entry.name)
        if found is None or int(found[1]) == os.getpid() or not entry.is_dir():
            continue
        try:
            os.kill(int(found[1]), 0)
            continue  # that serve still runs
        except ProcessLookupError:
            shutil.rmtree(entry, ignore_errors=True)
        except OSError:  # another user's
            continue
