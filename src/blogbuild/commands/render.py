"""`blogbuild render FILE.md`: the HTML fragment of one file, for debugging and piping."""

from __future__ import annotations

from pathlib import Path

from blogbuild.config import CONFIG_NAME, Config, load_config
from blogbuild.content.jobs import SourceJob
from blogbuild.diagnostics import ContentError, Diagnostic
from blogbuild.pipeline.render import render_source


def render(file: Path, config_path: Path | None = None) -> tuple[str, list[Diagnostic]]:
    """Render `file` with the site's options (./site.yaml when present, else defaults)."""
    if config_path is not None or Path(CONFIG_NAME).is_file():
        config = load_config(config_path)
    else:
        config = Config()
    if not file.is_file():
        raise ContentError("no such file", file=file)
    path = file.resolve()
    try:
        rel = path.relative_to(config.content_path.resolve()).as_posix()
    except ValueError:
        rel = path.name
    job = SourceJob(path, rel, "post", str(file))
    result = render_source(job, config)
    html = result.rendered.html if result.rendered is not None else ""
    return html, list(result.diagnostics)
