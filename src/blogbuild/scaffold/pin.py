"""The requirements.txt of a new blog: the blogbuild its deploy workflow installs.

A release is pinned by version (`blogbuild==0.3.0`), which the package index has. A
development version (`0.3.0.dev0`, what a clone of blogbuild's repository says between
releases) is not on the index: when pip installed it from a git repository a runner can
reach, that commit is pinned instead; otherwise the file says what to write so that the
workflow can install it, and `init` warns.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from importlib import metadata

#: What PEP 440 calls a development release: `1.2.3.dev0`, never on the package index.
DEVELOPMENT = re.compile(r"\.dev\d*$")
#: Git URLs a GitHub runner can clone (a file: URL or a local path is on this machine only).
_REACHABLE = ("https://", "http://", "ssh://", "git@")


@dataclass(frozen=True)
class Requirements:
    """The requirements.txt a new blog pins blogbuild with."""

    text: str  # requirements.txt
    warning: str | None  # for `init` to print when the workflow cannot install it as it is


def installed_commit() -> str | None:
    """`git+URL@COMMIT` when pip installed blogbuild from a git repository a runner can
    reach (PEP 610: the distribution's direct_url.json); else None."""
    try:
        recorded = metadata.distribution("blogbuild").read_text("direct_url.json")
        info = json.loads(recorded or "null")
    except (metadata.PackageNotFoundError, ValueError, OSError):
        return None
    vcs = info.get("vcs_info") if isinstance(info, dict) else None
    url = info.get("url") if isinstance(info, dict) else None
    if (not isinstance(vcs, dict) or vcs.get("vcs") != "git" or not isinstance(url, str)
            or not url.startswith(_REACHABLE) or not isinstance(vcs.get("commit_id"), str)):
        return None
    return f"git+{url}@{vcs['commit_id']}"


def requirements(version: str, commit: str | None) -> Requirements:
    """The requirements.txt for blogbuild `version`, installed from `commit` (see
    installed_commit) or not."""
    if commit is not None and DEVELOPMENT.search(version):
        return Requirements(
            "# The blogbuild this blog was started with (a development version, from its\n"
            "# repository); the deploy workflow installs it. Once a release is out, pin it\n"
            "# instead (blogbuild==X.Y.Z; see the releases in blogbuild's CHANGELOG.md).\n"
            f"blogbuild @ {commit}\n", None)
    if not DEVELOPMENT.search(version):
        return Requirements(
            "# The blogbuild version this blog was started with; the deploy workflow installs it.\n"
            "# Raise it to upgrade (then check the site with: blogbuild build --strict).\n"
            f"blogbuild=={version}\n", None)
    wheel = f"blogbuild-{version}-py3-none-any.whl"
    return Requirements(
        f"# This blog was started with blogbuild {version}, a development version that the\n"
        "# package index does not have: the deploy workflow cannot install the last line\n"
        "# until that release is out. Replace it with a blogbuild the workflow can install:\n"
        "# a commit of blogbuild's repository,\n"
        "#   blogbuild @ git+https://github.com/OWNER/blogbuild@COMMIT\n"
        "# or its wheel, committed to this repository (python -m build --wheel makes it),\n"
        f"#   ./wheels/{wheel}\n"
        "# or, once a release is out, that release: blogbuild==X.Y.Z\n"
        f"blogbuild=={version}\n",
        f"blogbuild {version} is a development version, which the package index does not "
        "have: the deploy workflow cannot install requirements.txt as it is; its comment "
        "says what to write instead")
