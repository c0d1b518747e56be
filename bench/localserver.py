"""A folder served over HTTP on this machine, for the benches that load pages in Chromium."""

from __future__ import annotations

import functools
import http.server
import threading
from pathlib import Path


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        return  # no line per request


def serve_folder(folder: Path, port: int = 0) -> tuple[http.server.ThreadingHTTPServer, str]:
    """Serve `folder` at 127.0.0.1 (`port`, or a free one) from a daemon thread; returns
    the server (`shutdown()` stops it) and its base URL, ending in "/"."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", port),
                                             functools.partial(_Quiet, directory=str(folder)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/"
