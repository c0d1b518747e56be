"""Run a program with a cap on its memory: `python -I limited.py BYTES PROGRAM [ARG ...]`.

The cap is set in this child, which then becomes the program (exec): setting it from the
build between fork and exec is not safe while the build has threads."""

import os
import resource
import sys

limit = int(sys.argv[1])
resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
os.execv(sys.argv[2], sys.argv[2:])
