"""`python -m blogbuild` runs the CLI."""

from blogbuild.cli import main

raise SystemExit(main())
