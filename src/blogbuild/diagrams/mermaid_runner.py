"""Draw the Mermaid text read from stdin with mmdr; the SVG on stdout. Run by draw.py in
a process of its own (isolated: `python -I`)."""

import sys

import mmdr

sys.stdout.write(mmdr.render(sys.stdin.read()).svg())
