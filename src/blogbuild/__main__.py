"""`python -m blogbuild` runs the CLI."""

from blogbuild.cli import run

# The guard matters: worker processes (forkserver) import the main module again.
if __name__ == "__main__":
    run()
