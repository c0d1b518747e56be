"""Run a program with a cap on its memory, that dies with the build:
`python -I limited.py BYTES PARENT_PID PROGRAM [ARG ...]` (BYTES 0: no cap, for a program
that holds its own memory: V8 reserves far more address space than it uses).

Both are set in this child, which then becomes the program (exec): setting them from the
build between fork and exec is not safe while the build has threads. The death signal
outlives the exec (Linux), so a renderer never outlives the worker that waits for it.
"""

import ctypes
import os
import resource
import signal
import sys

limit, parent = int(sys.argv[1]), int(sys.argv[2])
if limit:
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
if sys.platform.startswith("linux"):
    ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    if os.getppid() != parent:  # the parent died before the line above
        sys.exit(1)
os.execv(sys.argv[3], sys.argv[3:])
