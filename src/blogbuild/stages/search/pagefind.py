"""A small client of Pagefind's service mode: an index made in memory, its files handed back.

Pagefind's own Python API (`pagefind.index.PagefindIndex`) speaks this same protocol, but
its reader sleeps a tenth of a second before every answer, so 1,000 pages cost 100 s. This
client sends the same messages (`NewIndex`, `AddFile`, `GetFiles`), the pages' while their
answers are read, and reads each answer as soon as it comes, so the time is Pagefind's own
indexing. The program is found as the `pagefind` package finds it.
"""

from __future__ import annotations

import base64
import contextlib
import importlib
import json
import os
import queue
import shutil
import subprocess
import threading
from collections.abc import Iterable
from pathlib import Path
from types import TracebackType
from typing import Any

from blogbuild.stages.search.program import PACKAGES, PROGRAMS


class SearchUnavailable(Exception):
    """Pagefind is not installed, cannot start, or failed: the build goes on without it."""


def executable() -> Path:
    """The Pagefind program the `pagefind` package would run, found as it finds it:
    PAGEFIND_BINARY_PATH, then the program a `pagefind_bin_extended` or `pagefind_bin`
    package carries, then `pagefind_extended` or `pagefind` on the PATH. (Not through
    `pagefind.service`: it imports asyncio, a tenth of an edit's start.)"""
    named = os.environ.get("PAGEFIND_BINARY_PATH")
    if named is not None:
        return Path(named)
    for package in PACKAGES:
        try:
            module = importlib.import_module(package)
            return Path(module.get_executable())
        except (ImportError, AttributeError, FileNotFoundError):
            continue
    found = next(filter(None, map(shutil.which, PROGRAMS)), None)
    if found is None:
        raise SearchUnavailable("the Pagefind program was not found")
    return Path(found)


class Service:
    """One `pagefind --service` process with one index; a context manager."""

    def __init__(self, config: dict[str, Any]) -> None:
        path = executable()
        try:
            self.process = subprocess.Popen(
                [str(path), "--service"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL, cwd=os.getcwd())
        except OSError as exc:
            raise SearchUnavailable(f"cannot run {path}: {exc.strerror or exc}") from None
        self.config = config
        self.last_id = 0
        self.buffer = bytearray()  # what was read past the last answer
        try:
            self.index = int(self._send({"type": "NewIndex", "config": config})["index_id"])
        except BaseException:
            self.close()
            raise

    def __enter__(self) -> Service:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()

    def close(self) -> None:
        if self.process.stdin is not None:
            with contextlib.suppress(OSError):  # it stopped already
                self.process.stdin.close()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        if self.process.stdout is not None:
            self.process.stdout.close()

    def kill(self) -> None:
        """Stop it now, from any thread: a request waiting for its answer fails."""
        with contextlib.suppress(OSError):
            self.process.kill()

    def next_index(self) -> None:
        """Let go of the index made so far and begin another with the same options: one
        process makes one index after another, its memory that of one (it gives back what
        an index held), and is started once. Starting it costs more than its time: until
        the program is loaded, a process started from a build process is counted (by
        what sums the memory of processes) as large as that one."""
        self._send({"type": "DeleteIndex", "index_id": self.index})
        self.index = int(self._send({"type": "NewIndex", "config": self.config})["index_id"])

    def add_many(self, pages: Iterable[tuple[str, str]]) -> None:
        """Index pages `(url, html)`, the requests sent while the answers are read: one
        at a time, every page would wait for the pipe's round trip and our encoding.
        `pages` is drawn in a thread of its own, one page at a time, so that a batch's
        documents are never all in memory."""
        stdin = self.process.stdin
        assert stdin is not None
        sent: queue.SimpleQueue[bool] = queue.SimpleQueue()
        failed: list[BaseException] = []

        def write() -> None:
            try:
                for url, html in pages:
                    self.last_id += 1
                    stdin.write(base64.b64encode(json.dumps({
                        "message_id": self.last_id,
                        "payload": {"type": "AddFile", "index_id": self.index, "url": url,
                                    "file_contents": html, "file_path": None}}).encode())
                                + b",")
                    stdin.flush()
                    sent.put(True)
            except (OSError, ValueError):
                pass  # it stopped: the reader says so
            except BaseException as exc:  # handed to the caller's thread
                failed.append(exc)
            finally:
                sent.put(False)

        writer = threading.Thread(target=write, name="pagefind-writer", daemon=True)
        writer.start()
        try:
            while sent.get():
                self._answer()
        except BaseException:
            self.kill()  # the writer may wait on a full pipe: let it fail
            raise
        finally:
            writer.join()
        if failed:
            raise failed[0]

    def files(self) -> dict[str, bytes]:
        """Every file of the index, by path under its folder."""
        answer = self._send({"type": "GetFiles", "index_id": self.index})
        return {f["path"]: base64.b64decode(f["content"]) for f in answer["files"]}

    def _send(self, payload: dict[str, Any]) -> dict[str, Any]:
        """One request, one answer (base64 JSON, each followed by a comma)."""
        self.last_id += 1
        message = {"message_id": self.last_id, "payload": payload}
        stdin, stdout = self.process.stdin, self.process.stdout
        assert stdin is not None and stdout is not None
        try:
            stdin.write(base64.b64encode(json.dumps(message).encode()) + b",")
            stdin.flush()
        except OSError as exc:
            raise SearchUnavailable(f"Pagefind stopped: {exc.strerror or exc}") from None
        return self._answer()

    def _answer(self) -> dict[str, Any]:
        """The next answer (base64 JSON, followed by a comma)."""
        stdout = self.process.stdout
        assert stdout is not None
        try:
            # The last answer is the whole index (megabytes read 64 KiB at a time): append
            # and look for the end only in what came, or reading it is quadratic.
            buffer, seen = self.buffer, 0
            while (end := buffer.find(b",", seen)) < 0:
                seen = len(buffer)
                chunk = os.read(stdout.fileno(), 1 << 20)
                if not chunk:
                    raise SearchUnavailable("Pagefind stopped unexpectedly")
                buffer += chunk
        except OSError as exc:
            raise SearchUnavailable(f"Pagefind stopped: {exc.strerror or exc}") from None
        raw = bytes(buffer[:end])
        del buffer[:end + 1]
        try:
            answer = json.loads(base64.b64decode(raw))["payload"]
        except (ValueError, KeyError, TypeError):
            raise SearchUnavailable("Pagefind answered something unexpected") from None
        if answer.get("type") == "Error":
            raise SearchUnavailable(f"Pagefind failed: {answer.get('message', '?')}")
        return dict(answer)
