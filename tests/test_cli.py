"""The command line: exit codes, messages with file:line, no tracebacks, `render`."""

from __future__ import annotations

import os
import pty
import re
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from blogbuild.cli import main

BASIC = Path(__file__).parent / "sites" / "basic"
SRC = Path(__file__).resolve().parent.parent / "src"


@pytest.fixture
def site(tmp_path: Path) -> Path:
    dest = tmp_path / "site"
    shutil.copytree(BASIC, dest, ignore=shutil.ignore_patterns("expected"))
    return dest


def run_cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """Run `python -m blogbuild` in a real subprocess (what a user's shell does)."""
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    return subprocess.run([sys.executable, "-m", "blogbuild", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=120)


def test_build_in_site_folder(site: Path) -> None:
    proc = run_cli("build", cwd=site)
    assert proc.returncode == 0, proc.stderr
    assert "built 3 posts" in proc.stderr
    assert (site / "_site/index.html").is_file()


def test_build_options(site: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    code = main(["build", "--config", str(site / "site.yaml"), "--output", str(out), "--drafts",
                 "--base-url", "http://127.0.0.1:9999/preview/", "--quiet"])
    assert code == 0
    assert (out / "posts/draft/index.html").is_file()
    assert 'href="/preview/about/"' in (out / "index.html").read_text()


def test_missing_site_yaml(tmp_path: Path) -> None:
    proc = run_cli("build", cwd=tmp_path)
    assert proc.returncode == 1
    assert "no site.yaml found" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_broken_yaml_in_post(site: Path) -> None:
    (site / "content/posts/bad.md").write_text("---\ntitle: ok\ntags: [a,\n---\nbody\n")
    proc = run_cli("build", cwd=site)
    assert proc.returncode == 1
    assert "content/posts/bad.md:" in proc.stderr and "invalid YAML" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_date_that_is_not_a_date(site: Path) -> None:
    (site / "content/posts/bad.md").write_text("---\ntitle: ok\ndate: someday\n---\nbody\n")
    proc = run_cli("build", cwd=site)
    assert proc.returncode == 1
    assert "content/posts/bad.md:3: error: 'date' is not a date" in proc.stderr


def test_duplicate_slugs(site: Path) -> None:
    (site / "content/posts/copy.md").write_text("---\ntitle: Copy\nslug: first\n---\nx\n")
    proc = run_cli("build", cwd=site)
    assert proc.returncode == 1
    assert "two files want the URL /posts/first/" in proc.stderr
    assert "content/posts/2024-01-05-first.md" in proc.stderr


def test_unreadable_file_is_a_warning(site: Path) -> None:
    """An entry the build cannot read is skipped with a warning naming it (an error under
    --strict), never a crash."""
    post = site / "content/posts/secret.md"
    if os.geteuid() == 0:  # root reads any file: a dangling symlink cannot be read either
        post.symlink_to(site / "nowhere.md")
        expected = "broken symbolic link"
    else:
        post.write_text("x")
        post.chmod(0)
        expected = "cannot read the file"
    proc = run_cli("build", cwd=site)
    strict = run_cli("build", "--strict", cwd=site)
    if post.exists():
        post.chmod(stat.S_IRUSR | stat.S_IWUSR)
    assert proc.returncode == 0
    assert "content/posts/secret.md: warning: " in proc.stderr and expected in proc.stderr
    assert strict.returncode == 1 and "content/posts/secret.md: warning: " in strict.stderr
    for output in (proc.stderr, strict.stderr):
        assert "Traceback" not in output and "internal error" not in output


def test_not_utf8(site: Path) -> None:
    (site / "content/posts/latin.md").write_bytes(b"---\ntitle: x\n---\ncaf\xe9\n")
    proc = run_cli("build", cwd=site)
    assert proc.returncode == 1
    assert "content/posts/latin.md:4: error: the file is not valid UTF-8" in proc.stderr


def test_missing_image_is_a_warning_with_line_and_fails_under_strict(site: Path) -> None:
    (site / "content/posts/img.md").write_text("---\ntitle: i\n---\n\ntext\n\n![x](/nope.png)\n")
    proc = run_cli("build", cwd=site)
    assert proc.returncode == 0, proc.stderr
    assert "content/posts/img.md:7: warning: missing image: /nope.png" in proc.stderr
    assert (site / "_site/posts/img/index.html").is_file()  # the whole site is still built
    strict = run_cli("build", "--strict", cwd=site)
    assert strict.returncode == 1
    assert "content/posts/img.md:7: warning: missing image: /nope.png" in strict.stderr
    assert "under --strict" in strict.stderr


def test_unsafe_link_is_an_error(site: Path) -> None:
    (site / "content/posts/js.md").write_text("[x](javascript:alert(1))\n")
    proc = run_cli("build", cwd=site)
    assert proc.returncode == 1
    assert "content/posts/js.md:1: error: unsafe URL scheme 'javascript:'" in proc.stderr


def test_broken_link_is_a_warning_that_fails_under_strict(site: Path) -> None:
    (site / "content/posts/link.md").write_text("---\ntitle: l\n---\n[x](/no/such/page/)\n")
    proc = run_cli("build", cwd=site)
    assert proc.returncode == 0
    assert "content/posts/link.md:4: warning: broken link" in proc.stderr
    strict = run_cli("build", "--strict", cwd=site)
    assert strict.returncode == 1
    assert "under --strict" in strict.stderr


def test_unknown_config_key(site: Path) -> None:
    (site / "site.yaml").write_text((site / "site.yaml").read_text() + "titel: x\n")
    proc = run_cli("build", cwd=site)
    assert proc.returncode == 1
    assert "unknown key 'titel'" in proc.stderr and "did you mean 'title'" in proc.stderr


def test_failed_build_keeps_the_previous_output(site: Path) -> None:
    assert run_cli("build", cwd=site).returncode == 0
    before = (site / "_site/index.html").read_text()
    (site / "content/posts/bad.md").write_text("---\ndate: nope\n---\n")
    assert run_cli("build", cwd=site).returncode == 1
    assert (site / "_site/index.html").read_text() == before


def test_render_prints_the_fragment(tmp_path: Path) -> None:
    doc = tmp_path / "doc.md"
    doc.write_text("---\ntitle: t\n---\n# Hello\n\n```python\nx = 1\n```\n")
    proc = run_cli("render", str(doc), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith('<h1 id="hello">Hello')
    assert '<span class="n">x</span>' in proc.stdout


def test_render_reports_errors(tmp_path: Path) -> None:
    doc = tmp_path / "doc.md"
    doc.write_text("a\n\n[x](javascript:void)\n")
    proc = run_cli("render", str(doc), cwd=tmp_path)
    assert proc.returncode == 1
    assert "doc.md:3: error: unsafe URL scheme" in proc.stderr


def test_no_command_prints_help(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([]) == 2
    assert "build" in capsys.readouterr().err


def test_internal_errors_have_no_traceback_without_debug(
    site: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import blogbuild.commands.build as build_module

    def boom(*args: object, **kwargs: object) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr(build_module, "build", boom)
    assert main(["build", "--config", str(site / "site.yaml")]) == 1
    err = capsys.readouterr().err
    assert "internal error" in err and "Traceback" not in err
    with pytest.raises(RuntimeError):
        main(["build", "--debug", "--config", str(site / "site.yaml")])
    with pytest.raises(RuntimeError):  # a global flag works before the command too
        main(["--debug", "build", "--config", str(site / "site.yaml")])
    with pytest.raises(RuntimeError):
        main(["--debug", "build", "--debug", "--config", str(site / "site.yaml")])


@pytest.mark.parametrize("args", [["--debug", "build"], ["build", "--debug"]])
def test_debug_shows_the_traceback_of_an_error_in_either_place(
    tmp_path: Path, args: list[str]
) -> None:
    proc = run_cli(*args, cwd=tmp_path)  # no site.yaml here
    assert proc.returncode == 1
    assert "Traceback (most recent call last)" in proc.stderr
    assert "error: no site.yaml found" in proc.stderr
    plain = run_cli("build", cwd=tmp_path)
    assert "Traceback" not in plain.stderr


def test_debug_flag_position_in_every_command() -> None:
    from blogbuild.cli import _parser

    parser = _parser()
    for command in (["build"], ["serve"], ["render", "x.md"]):
        assert parser.parse_args(command).debug is False
        assert parser.parse_args(["--debug", *command]).debug is True
        assert parser.parse_args([*command, "--debug"]).debug is True


def test_version(tmp_path: Path) -> None:
    from blogbuild import __version__

    proc = run_cli("--version", cwd=tmp_path)
    assert proc.returncode == 0
    assert proc.stdout == f"blogbuild {__version__}\n"
    assert re.fullmatch(r"\d+\.\d+\.\d+(\.dev\d+)?", __version__)  # a release, or between two


SUMMARY = re.compile(
    r"built 3 posts, 1 page, 3 tag pages, 4 list pages, 4 feeds and 3 other files "
    r"in \d+\.\d\d s \(5 rendered, 0 cached\)\n"
    r"0 errors, 1 warning · output [\d.]+ kB in \d+ files → _site/\n"
    r"heaviest pages \(HTML \+ the CSS, JS, fonts and images it loads; "
    r"fonts as its stylesheets declare them\):\n"
    r"(  +[\d.]+ kB  /blogs/\S*/? +\(HTML [\d.]+ kB\)\n){5}"
)


def test_summary_after_the_build(site: Path) -> None:
    (site / "content/about.md").write_text("---\ntitle: About\n---\n[x](/no/such/page/)\n")
    proc = run_cli("build", cwd=site)
    assert proc.returncode == 0, proc.stderr
    assert "\r" not in proc.stderr and "\x1b" not in proc.stderr  # not a terminal: no bar
    diagnostics, summary = proc.stderr.split("\n", 1)
    assert diagnostics.startswith("content/about.md:4: warning: broken link")
    assert SUMMARY.fullmatch(summary), summary
    heaviest = summary.splitlines()[3]
    assert heaviest.split()[2] == "/blogs/posts/first/"  # the post with code and a picture


def test_quiet_prints_only_problems(site: Path) -> None:
    quiet = run_cli("build", "--quiet", cwd=site)
    assert quiet.returncode == 0 and quiet.stderr == "" and quiet.stdout == ""
    (site / "content/about.md").write_text("---\ntitle: About\n---\n[x](/no/such/page/)\n")
    quiet = run_cli("build", "-q", cwd=site)
    assert quiet.returncode == 0 and quiet.stdout == ""
    lines = quiet.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("content/about.md:4: warning: broken link")


def _run_on_terminal(site: Path, *args: str, delay: str) -> str:
    """Run a build with stderr on a pseudo-terminal; returns what the terminal received."""
    master, slave = pty.openpty()
    env = {**os.environ, "PYTHONPATH": str(SRC), "TERM": "xterm", "COLUMNS": "80",
           "BLOGBUILD_PROGRESS_DELAY": delay}
    proc = subprocess.Popen([sys.executable, "-m", "blogbuild", "build", *args], cwd=site,
                            env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=slave)
    os.close(slave)
    received = b""
    while True:
        try:
            chunk = os.read(master, 4096)
        except OSError:  # EIO: the child closed the terminal
            break
        if not chunk:
            break
        received += chunk
    os.close(master)
    assert proc.wait(timeout=120) == 0
    return received.decode().replace("\r\n", "\n")  # the terminal turns \n into \r\n


def test_progress_bar_on_a_terminal(site: Path) -> None:
    shown = _run_on_terminal(site, "--no-cache", delay="0")
    bar, summary = shown.rsplit("\r\x1b[K", 1)  # the bar erases itself before the summary
    frames = [f.removesuffix("\x1b[K") for f in bar.split("\r") if f]
    assert frames, shown
    # The pages are all written; what comes after has no count.
    done = frames.index("writing pages  [" + "#" * 40 + "]  18/18")
    assert set(frames[done + 1:]) <= {"indexing for search", "committing", "saving the state",
                                      "summing up the output"}, frames
    assert all(re.fullmatch(r"[a-z ]+(  \[[#-]{40}\]  \d+/\d+)?", f) for f in frames), frames
    assert summary.startswith("built 3 posts, 1 page, ")
    assert "\x1b" not in summary and "\r" not in summary


def test_no_bar_when_the_build_is_fast_or_quiet(site: Path) -> None:
    fast = _run_on_terminal(site, delay="30")
    assert fast.startswith("built 3 posts") and "\x1b" not in fast and "\r" not in fast
    assert _run_on_terminal(site, "--quiet", delay="0") == ""

