"""Child processes that run blogbuild's own code, and the messages between them and the build.

A child is `python -m <module>` of this very blogbuild (first on its path, not the folder it
runs in), started by the build. Messages are pickles, each after its length, on the child's
standard input and output: pickles are safe here because both ends are our program, one
started by the other. Only the standard library is imported here: a child loads this
module before anything else.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import select
import struct
import subprocess
import sys
import time
from collections.abc import Mapping
from pathlib import Path
from typing import IO, Any

__all__ = ["framed", "read", "read_within", "reap", "start", "write"]

_LENGTH = struct.Struct("<Q")


def start(module: str, env: Mapping[str, str] | None = None, *,
          nicer: int = 0) -> subprocess.Popen[bytes]:
    """`python -m module` of this process's blogbuild, its standard input and output piped
    and its standard error dropped; `env`: the child's environment (default: this one's);
    `nicer`: how much lower the child's scheduling priority is than this process's (where
    the system has priorities). Raises OSError when it cannot start."""
    here = str(Path(__file__).resolve().parent.parent)
    env = dict(os.environ if env is None else env)
    env["PYTHONPATH"] = os.pathsep.join([here, *filter(None, [env.get("PYTHONPATH")])])
    env["PYTHONSAFEPATH"] = "1"
    process = subprocess.Popen([sys.executable, "-m", module], stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
    if nicer and hasattr(os, "setpriority"):
        with contextlib.suppress(OSError):  # not allowed: it runs as this process does
            os.setpriority(os.PRIO_PROCESS, process.pid,
                           os.getpriority(os.PRIO_PROCESS, 0) + nicer)
    return process


def reap(process: subprocess.Popen[bytes]) -> None:
    """Close the child's pipes and wait for it to end (the caller has stopped it, or asked
    it to stop)."""
    for stream in (process.stdin, process.stdout):
        with contextlib.suppress(OSError):
            if stream is not None:
                stream.close()
    process.wait()


def framed(value: Any) -> bytes:
    """A message: the pickle of `value` after its length."""
    data = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
    return _LENGTH.pack(len(data)) + data


def read(stream: IO[bytes]) -> Any:
    """The next message; None at the end of the stream."""
    head = stream.read(_LENGTH.size)
    if len(head) < _LENGTH.size:
        return None
    (size,) = _LENGTH.unpack(head)
    data = stream.read(size)
    if len(data) < size:
        return None
    return pickle.loads(data)


def read_within(stream: IO[bytes], timeout: float) -> tuple[bool, Any]:
    """The next message, if it comes within `timeout` seconds: (True, message), (True, None)
    at the end of the stream, (False, None) when it did not come in time. Read from the file
    descriptor, never through the stream's buffer: a buffered read takes the messages that
    came after this one too, and a wait for the next one would then never see it come."""
    fd = stream.fileno()
    deadline = time.monotonic() + timeout

    def take(size: int) -> bytes | None:
        data = b""
        while len(data) < size:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                raise TimeoutError
            chunk = os.read(fd, size - len(data))
            if not chunk:
                return None
            data += chunk
        return data

    try:
        head = take(_LENGTH.size)
        data = take(_LENGTH.unpack(head)[0]) if head is not None else None
    except TimeoutError:
        return False, None
    return True, pickle.loads(data) if data is not None else None


def write(stream: IO[bytes], value: Any) -> None:
    """Send one message and flush it."""
    stream.write(framed(value))
    stream.flush()
