"""`blogbuild serve`: build with drafts, serve on 127.0.0.1, rebuild and reload on changes."""

from __future__ import annotations

import logging
import os
import signal
import sys
import threading
import time
import webbrowser
from pathlib import Path
from types import FrameType

from blogbuild.serve.session import Session

log = logging.getLogger("blogbuild.serve")


def _setup_logging(debug: bool = False) -> None:
    if not log.handlers:
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("%(message)s"))
        log.addHandler(handler)
        log.propagate = False
    # --debug: the time of each step of every run
    log.setLevel(logging.DEBUG if debug else logging.INFO)


def _raise_interrupt(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt


def serve(
    config_path: Path | str | None = None,
    *,
    host: str = "127.0.0.1",
    port: int = 8000,
    watch: bool = True,
    drafts: bool = True,
    output: Path | str | None = None,
    base_url: str | None = None,
    open_browser: bool = False,
    isolate: bool = False,
    debug: bool = False,
) -> int:
    """Serve the site until Ctrl-C or SIGTERM; returns the exit code (0 then)."""
    _setup_logging(debug)
    session = Session(config_path, host=host, port=port, watch=watch, drafts=drafts,
                      output=output, base_url=base_url, isolate=isolate)
    # SIGINT too: a shell that starts serve in the background hands it SIGINT ignored, and
    # then Python installs no KeyboardInterrupt handler of its own.
    previous = {sig: signal.signal(sig, _raise_interrupt)
                for sig in (signal.SIGTERM, signal.SIGINT)}
    try:
        url = session.start()
        log.info("serving %s at %s%s — Ctrl-C to stop", session.live.config.title
                 if session.live else "the site", url, " (drafts included)" if drafts else "")
        if open_browser:
            threading.Thread(target=webbrowser.open, args=(url,), daemon=True).start()
        while True:
            # Short sleeps: Ctrl-C delivered to another thread (the KaTeX engine's, the
            # watcher's) only runs its handler when this thread next wakes up.
            time.sleep(0.25)
    except KeyboardInterrupt:
        log.info("stopping")
    finally:
        # A second Ctrl-C while stopping must not leave a traceback: stop() is short.
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        stopped = session.stop()
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    if not stopped:
        # The build thread is inside a step that cannot be interrupted (a formula in
        # KaTeX, a long page): its processes are gone, and it must not hold the exit.
        logging.shutdown()
        sys.stderr.flush()
        os._exit(0)
    return 0
