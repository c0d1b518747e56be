"""A build whose site.yaml did not change takes the settings the last build read from the
cache (blogbuild.pipeline.settings) instead of reading the YAML again; a change to anything
they were read from (site.yaml's bytes, `--base-url`, the files it names, the code) is
read, and a site.yaml that became wrong fails as it always did."""

from __future__ import annotations

import os
import pickle
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import blogbuild.config
from blogbuild import fingerprints
from blogbuild.commands.build import build
from blogbuild.config import load_config
from blogbuild.diagnostics import BlogbuildError
from blogbuild.output.outdir import CACHE_DIR
from blogbuild.pipeline import settings

BIB = Path(__file__).parent / "bib" / "refs.bib"
SITE_YAML = 'title: "First"\nbase_url: "https://example.org/"\n'


def make_site(root: Path, extra: str = "") -> Path:
    (root / "content" / "posts").mkdir(parents=True)
    (root / "site.yaml").write_text(SITE_YAML + extra, encoding="utf-8")
    (root / "content" / "posts" / "2024-01-01-a.md").write_text(
        "---\ntitle: A\n---\n\nThe body.\n", encoding="utf-8")
    return root / "site.yaml"


def home(site_yaml: Path) -> str:
    return (site_yaml.parent / "_site" / "index.html").read_text(encoding="utf-8")


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """The site.yaml files read from now on (`load_config`'s calls)."""
    calls: list[Any] = []
    real = blogbuild.config.load_config

    def counted(path: Any = None, *, base_url: str | None = None) -> Any:
        calls.append(path)
        return real(path, base_url=base_url)

    monkeypatch.setattr(blogbuild.config, "load_config", counted)
    return calls


def test_a_build_with_site_yaml_unchanged_imports_no_yaml(tmp_path: Path) -> None:
    site_yaml = make_site(tmp_path)
    script = ("import sys\nfrom blogbuild.commands.build import build\n"
              f"build({str(site_yaml)!r})\n"
              "print(sorted(m for m in sys.modules if m.split('.')[0] == 'yaml'"
              " or m == 'blogbuild.config'))")
    runs = [subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                           check=True).stdout.strip() for _ in range(2)]
    assert "'yaml'" in runs[0] and "'blogbuild.config'" in runs[0]
    assert runs[1] == "[]"
    assert (tmp_path / CACHE_DIR / settings.NOTE).is_file()


def test_the_remembered_settings_are_those_read(tmp_path: Path, reads: list[Any]) -> None:
    site_yaml = make_site(tmp_path, "nav:\n  - {title: About, url: /about/}\n"
                                    "math: {macros: {'\\RR': '\\mathbb{R}'}}\n"
                                    "callouts:\n  lemma: {title: Lemma, color: '#7c3aed'}\n")
    first = settings.load(site_yaml, None)
    assert len(reads) == 1
    again = settings.load(site_yaml, None)
    assert len(reads) == 1
    assert again == first == load_config(site_yaml)
    assert repr(again) == repr(first)  # what the check of the inputs hashes
    assert again.callouts["lemma"].title == "Lemma"


def test_an_edit_of_site_yaml_with_the_same_size_and_times_is_read(tmp_path: Path) -> None:
    site_yaml = make_site(tmp_path)
    build(site_yaml)
    assert "First" in home(site_yaml)
    st = site_yaml.stat()
    site_yaml.write_text(SITE_YAML.replace("First", "Other"), encoding="utf-8")
    os.utime(site_yaml, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert site_yaml.stat().st_size == st.st_size
    build(site_yaml)
    assert "Other" in home(site_yaml) and "First" not in home(site_yaml)


def test_another_base_url_is_read_and_then_the_first_again(tmp_path: Path) -> None:
    site_yaml = make_site(tmp_path)
    for base_url in ("https://mirror.example/", None, "https://mirror.example/"):
        build(site_yaml, base_url=base_url)
        feed = (tmp_path / "_site" / "feed.xml").read_text(encoding="utf-8")
        assert ("https://mirror.example/" in feed) == (base_url is not None)
        assert ("https://example.org/" in feed) == (base_url is None)


def test_a_changed_bibliography_is_read(tmp_path: Path, reads: list[Any]) -> None:
    site_yaml = make_site(tmp_path, "bibliography: refs.bib\n")
    bib = tmp_path / "refs.bib"
    shutil.copyfile(BIB, bib)
    first = settings.load(site_yaml, None)
    assert settings.load(site_yaml, None) == first and len(reads) == 1  # the note holds
    bib.write_text(bib.read_text(encoding="utf-8").replace("Addison-Wesley", "AW"),
                   encoding="utf-8")
    edited = settings.load(site_yaml, None)
    assert len(reads) == 2 and edited.citation_files != first.citation_files
    bib.unlink()
    gone = settings.load(site_yaml, None)
    assert len(reads) == 3 and gone.citation_files not in (first.citation_files, "")


def test_other_code_reads_site_yaml(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                    reads: list[Any]) -> None:
    site_yaml = make_site(tmp_path)
    settings.load(site_yaml, None)
    settings.load(site_yaml, None)
    assert len(reads) == 1
    monkeypatch.setattr(fingerprints, "code_fingerprint", lambda: "other code")
    settings.load(site_yaml, None)
    assert len(reads) == 2


@pytest.mark.parametrize("damage", [b"", b"not a pickle", b"\x80\x04N."])
def test_a_damaged_note_reads_site_yaml_and_is_made_again(tmp_path: Path,
                                                          damage: bytes) -> None:
    site_yaml = make_site(tmp_path)
    build(site_yaml)
    note = tmp_path / CACHE_DIR / settings.NOTE
    note.write_bytes(damage)
    build(site_yaml)
    assert note.read_bytes() != damage
    assert "First" in home(site_yaml)


def test_a_site_yaml_made_wrong_fails_at_its_line(tmp_path: Path) -> None:
    site_yaml = make_site(tmp_path)
    build(site_yaml)
    site_yaml.write_text(SITE_YAML + "titel: typo\n", encoding="utf-8")
    with pytest.raises(BlogbuildError) as failed:
        build(site_yaml)
    assert failed.value.file == str(site_yaml) and failed.value.line == 3
    assert "unknown key 'titel'" in str(failed.value)


def test_a_build_without_the_cache_keeps_no_note(tmp_path: Path) -> None:
    site_yaml = make_site(tmp_path)
    build(site_yaml, use_cache=False)
    assert not (tmp_path / CACHE_DIR).exists()


def test_a_build_with_nothing_to_do_loads_none_of_the_config_classes(tmp_path: Path) -> None:
    site_yaml = make_site(tmp_path)
    script = ("import sys\nfrom blogbuild.commands.build import build\n"
              f"report = build({str(site_yaml)!r})\n"
              "print(report.rendered, 'blogbuild.config_model' in sys.modules)")
    runs = [subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                           check=True).stdout.split() for _ in range(2)]
    assert runs[0] == ["1", "True"]
    assert runs[1] == ["0", "False"]  # up to date: the Outline was enough
    (tmp_path / "content" / "posts" / "2024-01-01-a.md").write_text(
        "---\ntitle: A\n---\n\nAnother body.\n", encoding="utf-8")
    again = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                           check=True).stdout.split()
    assert again == ["1", "True"]  # work to do: the Config, from the note
    assert "Another body." in (tmp_path / "_site" / "posts" / "a" / "index.html").read_text(
        encoding="utf-8")


def test_the_outline_stands_for_its_config(tmp_path: Path) -> None:
    site_yaml = make_site(tmp_path, "runnable: {execute: build, timeout: 7}\n"
                                    "notebooks: {execute: never}\nsearch: false\n"
                                    "content_dir: writing\noutput_dir: public\n")
    (tmp_path / "content").rename(tmp_path / "writing")
    config = load_config(site_yaml)
    settings.load(site_yaml, None)  # the note
    remembered = settings.outline(site_yaml, None)
    assert remembered.config() == config
    for name in ("root", "content_dir", "content_path", "output_dir", "search", "runs",
                 "shown"):
        assert getattr(remembered, name) == getattr(config, name), name
    assert remembered.runs == ("never", "build", 7)
    assert remembered.render_fingerprint() == config.render_fingerprint()
    data = b"```{.python .runnable}\nprint(1)\n```\n"
    assert fingerprints.digest_of(data, remembered) == fingerprints.digest_of(data, config)
    assert fingerprints.may_execute(data, remembered)


def test_a_damaged_config_in_the_note_reads_site_yaml(tmp_path: Path,
                                                      reads: list[Any]) -> None:
    site_yaml = make_site(tmp_path)
    first = settings.load(site_yaml, None)
    note = tmp_path / CACHE_DIR / settings.NOTE
    key, values, _ = pickle.loads(note.read_bytes())
    other = pickle.dumps(load_config(site_yaml, base_url="https://other.example/"))
    for pickled in (b"damaged", other):  # unreadable, or not the Config of the values
        note.write_bytes(pickle.dumps((key, values, pickled)))
        reads.clear()
        remembered = settings.outline(site_yaml, None)
        assert reads == []  # the values were enough so far
        assert remembered.config() == first and len(reads) == 1
        assert pickle.loads(note.read_bytes())[2] != pickled  # and the note made again
