"""What Quarto reads around a `.qmd` file: its front matter's Quarto forms, `_metadata.yml`,
`{{< include >}}`, the other shortcodes, and CSL-JSON bibliographies."""

from __future__ import annotations

import datetime as dt
import os
from pathlib import Path

import html5lib
import pytest
from markdown_it.utils import read_fixture_file

from blogbuild.commands.build import build
from blogbuild.content.jobs import SourceJob
from blogbuild.diagnostics import BuildFailed
from blogbuild.readers import reader_for
from test_divs import normalize, render
from test_quarto import quarto_site as _site


def _messages(report: object) -> list[str]:
    return [d.format() for d in getattr(report, "diagnostics", [])
            if "post has no date" not in d.message]


def _failed(site: Path) -> list[str]:
    """The messages of a build that fails."""
    with pytest.raises(BuildFailed) as failed:
        build(site, jobs=1)
    return _messages(failed.value)


def _body(tmp_path: Path, rel: str) -> str:
    page = (tmp_path / "_site" / rel).read_text()
    html5lib.HTMLParser(strict=True).parse(page)
    return page.split('<div class="post-body">', 1)[1].split("</article>", 1)[0]


def _edit(path: Path, text: str) -> None:
    """Write `text` with a later modification time (the build's check sees the stat)."""
    path.write_text(text)
    later = path.stat().st_mtime_ns + 5_000_000_000
    os.utime(path, ns=(later, later))


def _modified() -> dt.datetime:
    return dt.datetime(2023, 5, 6, 7, 8, 9, tzinfo=dt.UTC)


@pytest.mark.parametrize(("written", "iso"), [
    ("2022-02-13", "2022-02-13"), ("2/13/2022", "2022-02-13"), ("02/03/2022", "2022-02-03"),
    ("February 13, 2022", "2022-02-13"), ("Feb 13 2022", "2022-02-13"),
    ("13 February 2022", "2022-02-13"), ("08-01-2020", "2020-08-01"), ("3-16-2018", "2018-03-16"),
    ("3-16/2018", None), ("last-modified", "2023-05-06T07:08:09+00:00"),
    ("2022-02-13T10:00:00+01:00", "2022-02-13T10:00:00+01:00"), ("someday", None),
    ("Smarch 13, 2022", None)])
def test_the_date_forms_quarto_reads(written: str, iso: str | None) -> None:
    from blogbuild.quarto.front import quarto_date

    assert quarto_date(written, _modified) == iso


def test_today_and_now_are_the_day_of_the_build() -> None:
    from blogbuild.quarto.front import quarto_date

    today = dt.datetime.now(dt.UTC).date().isoformat()
    assert quarto_date("today", _modified) == today
    assert (quarto_date("now", _modified) or "").startswith(today)


QUARTO_FRONT = """---
title: Hello
author:
  - name: Ada Lovelace
    url: https://ada.example
    affiliation: Analytical Society
  - name: {given: Charles, family: Babbage}
date: 2/13/2022
date-modified: March 1, 2022
categories: [news, quarto]
description: A post
subtitle: The first
image: https://example.org/cover.png
image-alt: A cover
draft: false
date-format: long
format:
  html:
    toc: true
---

Text.
"""


def test_quarto_front_matter_is_read_as_ours(tmp_path: Path) -> None:
    site = _site(tmp_path, {"content/posts/hello/index.qmd": QUARTO_FRONT,
                            "content/posts/hello/cover.png": "x"})
    path = tmp_path / "content/posts/hello/index.qmd"
    job = SourceJob(path, "posts/hello/index.qmd", "post", "content/posts/hello/index.qmd")
    full = reader_for(job.rel).info(job, path.read_bytes(), fast=False)
    quick = reader_for(job.rel).info(job, path.read_bytes(), fast=True)
    assert full is not None and quick is not None
    meta = full.meta
    assert meta.author == "Ada Lovelace, Charles Babbage"
    assert meta.extra["authors"][0] == {"name": "Ada Lovelace", "url": "https://ada.example",
                                        "affiliation": "Analytical Society"}
    assert meta.date == dt.datetime(2022, 2, 13) and meta.updated == dt.datetime(2022, 3, 1)
    assert meta.tags == ("news", "quarto") and meta.description == "A post"
    assert meta.image_alt == "A cover" and meta.extra["format"] == {"html": {"toc": True}}
    assert meta.extra["subtitle"] == "The first" and meta.extra["date-format"] == "long"
    assert (quick.meta.date, quick.meta.tags, quick.meta.title) == (meta.date, meta.tags,
                                                                    meta.title)
    report = build(site, jobs=1)
    assert _messages(report) == []
    page = (tmp_path / "_site/posts/hello/index.html").read_text()
    assert "Ada Lovelace, Charles Babbage" in page and 'datetime="2022-02-13"' in page
    assert '<p class="post-subtitle">The first</p>' in page


def test_a_value_of_the_wrong_type_is_an_error_at_its_line(tmp_path: Path) -> None:
    site = _site(tmp_path, {"content/posts/a.qmd": "---\ntitle: A\nauthor:\n  - [1, 2]\n---\nA\n",
                            "content/posts/b.qmd": "---\ntitle: B\ndate: someday\n---\nB\n"})
    messages = _failed(site)
    assert any(m.startswith("content/posts/a.qmd:4: error: each author must be a name")
               for m in messages)
    assert any(m.startswith("content/posts/b.qmd:3: error: 'date' is not a date Quarto "
                            "reads: 'someday'") for m in messages)


def test_a_date_that_is_inline_code_is_left_out_with_a_warning(tmp_path: Path) -> None:
    site = _site(tmp_path, {"content/posts/a.qmd": "---\ntitle: A\ndate: 2024-01-02\n"
                            "date-modified: '`r format(Sys.Date())`'\n---\nA\n"})
    report = build(site, jobs=1)
    assert _messages(report) == [
        "content/posts/a.qmd:4: warning: 'date-modified' is inline code ('`r format("
        "Sys.Date())`') that Quarto runs to make the date; blogbuild runs no code in front "
        "matter, so it is left out: write the date itself (2022-02-13, today or last-modified)"]
    page = html5lib.parse((tmp_path / "_site/posts/a/index.html").read_text(),
                          namespaceHTMLElements=False)
    times = [t.get("datetime") for t in page.iter("time")]
    assert times and all(t == "2024-01-02" for t in times)


def test_metadata_files_merge_under_the_front_matter_and_an_edit_builds_again(
        tmp_path: Path) -> None:
    site = _site(tmp_path, {
        "content/_metadata.yml": "author: Site Author\ncategories: [all]\n",
        "content/posts/_metadata.yml": "categories: [posts]\nformat:\n  html: {toc: true}\n",
        "content/posts/hello/index.qmd": "---\ntitle: Hello\ndate: 2024-01-02\n"
                                         "categories: [mine]\nformat:\n  html: {toc: false}\n"
                                         "---\n\nText.\n",
        "content/posts/other.md": "---\ntitle: Other\ndate: 2024-01-03\n---\n\nText.\n",
    })
    assert _messages(build(site, jobs=1)) == []
    out = tmp_path / "_site"
    assert sorted(p.name for p in (out / "tags").iterdir() if p.is_dir()) == [
        "all", "mine", "posts"]
    assert "Site Author" in (out / "posts/hello/index.html").read_text()
    assert "Site Author" not in (out / "posts/other/index.html").read_text()  # Markdown
    assert not any(p.name.startswith("_") for p in out.rglob("*"))
    _edit(tmp_path / "content/posts/_metadata.yml", "categories: [renamed]\n")
    report = build(site, jobs=1)
    assert _messages(report) == [] and report.rendered == 1
    assert sorted(p.name for p in (out / "tags").iterdir() if p.is_dir()) == [
        "all", "mine", "renamed"]


def test_a_broken_metadata_file_is_an_error_at_its_own_line(tmp_path: Path) -> None:
    site = _site(tmp_path, {"content/posts/_metadata.yml": "title: X\ndraft: maybe\n",
                            "content/posts/a.qmd": "---\ntitle: A\n---\nA\n"})
    assert any(m.startswith("content/posts/_metadata.yml:2: error: 'draft' must be true or "
                            "false") for m in _failed(site))


def test_an_include_is_part_of_the_page_and_its_messages_name_its_file(
        tmp_path: Path) -> None:
    site = _site(tmp_path, {
        "content/posts/a/index.qmd": "---\ntitle: A\n---\n\nBefore.\n\n"
                                     "{{< include _part.qmd >}}\n\nAfter [x](nowhere.md).\n",
        "content/posts/a/_part.qmd": "# Part {#part}\n\nIncluded *text*.\n\n"
                                     "{{< include /_shared/_deep.qmd >}}\n",
        "content/_shared/_deep.qmd": "\nDeep [link](missing.md).\n",
    })
    messages = _messages(build(site, jobs=1))
    # A link is checked once the site is known, with its document: at the include's line.
    assert [m.split(": warning: ")[0] for m in messages] == [
        "content/posts/a/index.qmd:7", "content/posts/a/index.qmd:9"]
    (tmp_path / "content/_shared/_deep.qmd").write_text("Deep $\\frac{$.\n")
    assert any(m.startswith("content/_shared/_deep.qmd:1:") for m in _failed(site))
    (tmp_path / "content/_shared/_deep.qmd").write_text("Deep.\n")
    (tmp_path / "content/posts/a/index.qmd").write_text(
        "---\ntitle: A\n---\n\nBefore.\n\n{{< include _part.qmd >}}\n\nAfter.\n")
    assert _messages(build(site, jobs=1)) == []
    body = _body(tmp_path, "posts/a/index.html")
    assert "Included <em>text</em>" in body and 'id="part"' in body and "Deep." in body
    _edit(tmp_path / "content/posts/a/_part.qmd", "Edited part.\n")
    report = build(site, jobs=1)
    assert report.rendered == 1 and "Edited part." in _body(tmp_path, "posts/a/index.html")


def test_paths_in_an_included_file_are_from_the_document_s_folder(tmp_path: Path) -> None:
    site = _site(tmp_path, {
        "content/posts/a/index.qmd": "---\ntitle: A\ndate: 2024-01-01\n---\n\n"
                                     "{{< include _parts/_one.qmd >}}\n",
        "content/posts/a/_parts/_one.qmd": "---\ntitle: ignored\n---\nOne.\n\n"
                                           "{{< include _parts/_two.qmd >}}\n",
        "content/posts/a/_parts/_two.qmd": "Two.\n",
    })
    assert _messages(build(site, jobs=1)) == [
        "content/posts/a/_parts/_one.qmd:1: warning: the front matter of an included file is "
        "not read: move its keys into the document that includes it"]
    body = _body(tmp_path, "posts/a/index.html")
    assert "<p>One.</p>" in body and "<p>Two.</p>" in body and "ignored" not in body


def test_an_include_in_a_code_block_is_the_block_s_text(tmp_path: Path) -> None:
    site = _site(tmp_path, {"content/posts/a.qmd": "---\ntitle: A\n---\n\n```\n"
                            "{{< include _nothere.qmd >}}\n```\n"})
    assert _messages(build(site, jobs=1)) == []
    assert "{{&lt; include _nothere.qmd &gt;}}" in _body(tmp_path, "posts/a/index.html")


def test_a_missing_include_and_a_loop_are_errors_at_the_include(tmp_path: Path) -> None:
    site = _site(tmp_path, {
        "content/posts/a.qmd": "---\ntitle: A\n---\n\n{{< include _nothere.qmd >}}\n\nA\n",
        "content/posts/b.qmd": "---\ntitle: B\n---\n\n{{< include _c.qmd >}}\n",
        "content/posts/_c.qmd": "C\n\n{{< include _d.qmd >}}\n",
        "content/posts/_d.qmd": "{{< include _c.qmd >}}\n",
    })
    messages = _failed(site)
    assert "content/posts/a.qmd:5: error: the included file content/posts/_nothere.qmd does " \
           "not exist" in "\n".join(messages)
    assert ("content/posts/_d.qmd:1: error: this include makes a loop (content/posts/_c.qmd "
            "-> content/posts/_d.qmd -> content/posts/_c.qmd)") in "\n".join(messages)


SHORTCODES = """---
title: S
subtitle: "<b>bold</b> & co"
keys: {deep: 42}
---

Meta {{< meta subtitle >}}, {{< meta keys.deep >}}, {{< var release.name >}}.

Press {{< kbd Shift-Ctrl-P >}}, not `{{< kbd x >}}`; escaped {{{< video x >}}}.

{{< video https://www.youtube.com/watch?v=dQw4w9WgXcQ title="A talk" start=10 >}}

{{< pagebreak >}}

Icon {{< fa star >}} and {{< lipsum 2 >}} and {{< nosuch thing >}}.

See {{< video https://vimeo.com/123456 >}} here.

```
{{< meta subtitle >}}
```
"""


def test_the_shortcodes_on_a_quarto_page(tmp_path: Path) -> None:
    site = _site(tmp_path, {"content/posts/s.qmd": SHORTCODES,
                            "content/_variables.yml": "release: {name: Bobcat}\n",
                            "content/posts/m.md": "---\ntitle: M\n---\n\n{{< fa star >}}\n"})
    messages = _messages(build(site, jobs=1))
    warned = [m for m in messages if m.startswith("content/posts/s.qmd")]
    assert [m.split(": warning: ")[0] for m in warned] == ["content/posts/s.qmd:15"] * 2 + [
        "content/posts/s.qmd:17"]
    assert "a {{< video >}} inside text is shown as a link" in warned[2]
    assert "{{< lipsum >}} is not supported" in warned[0]
    assert any(m.startswith("content/posts/m.md:5: warning: ") for m in messages)  # Hugo's
    body = _body(tmp_path, "posts/s/index.html")
    assert "Meta &lt;b&gt;bold&lt;/b&gt; &amp; co, 42, Bobcat." in body
    assert "<kbd>Shift-Ctrl-P</kbd>" in body and "<code>{{&lt; kbd x &gt;}}</code>" in body
    assert "escaped {{&lt; video x &gt;}}." in body
    assert '<figure class="video-embed video-youtube">' in body and "start=10" in body
    assert "<figcaption>A talk</figcaption>" in body
    assert '<div class="pagebreak" aria-hidden="true"></div>' in body
    assert 'Icon <svg class="fa-icon fa-solid" viewBox="0 0 576 512"' in body
    assert 'role="img" aria-label="star">' in body
    assert "fa-icon" not in _body(tmp_path, "posts/m/index.html")  # a Markdown post: text
    assert "</svg> and {{&lt; lipsum 2 &gt;}}" in body
    assert "<code>{{&lt; meta subtitle &gt;}}\n</code>" in body
    assert '<p>See <a href="https://vimeo.com/123456">https://vimeo.com/123456</a> here.</p>' \
        in body


def test_a_variable_with_no_file_or_no_key_is_a_warning(tmp_path: Path) -> None:
    site = _site(tmp_path, {"content/posts/s.qmd": "---\ntitle: S\n---\n\n"
                            "{{< var nope >}} {{< meta nope >}}\n"})
    assert _messages(build(site, jobs=1)) == [
        "content/posts/s.qmd:5: warning: {{< meta nope >}}: the front matter has no 'nope'; "
        "it is shown as written",
        "content/posts/s.qmd:5: warning: {{< var nope >}}: content/_variables.yml does not "
        "exist; it is shown as written"]


CSL_JSON = """[
  {"id": "smith2020", "type": "article-journal", "title": "Cats & dogs ~ 50% of {pets}",
   "author": [{"family": "Smith", "given": "Jane"},
              {"family": "Beethoven", "non-dropping-particle": "van", "given": "Ludwig"}],
   "container-title": "Journal of Pets", "volume": 3, "page": "10-20",
   "issued": {"date-parts": [[2020, 5]]}, "DOI": "10.1000/xyz"}
]
"""
CSL_YAML = """- id: doe2019
  type: book
  title: A Book
  author:
    - literal: The Team
  issued: {date-parts: [[2019]]}
  publisher: Pub
"""


def test_csl_json_and_csl_yaml_bibliographies_beside_bibtex(tmp_path: Path) -> None:
    site = _site(tmp_path, {
        "content/posts/refs.json": CSL_JSON, "content/posts/more.yaml": CSL_YAML,
        "content/posts/old.bib": "@book{knuth84, title={The {TeX}book}, author={Knuth, "
                                 "Donald}, year={1984}}\n",
        "content/posts/a.qmd": "---\ntitle: A\ndate: 2024-01-01\nbibliography: [refs.json, "
                               "more.yaml, old.bib]\n---\n\nAs @smith2020 says, and "
                               "[@doe2019; @knuth84].\n"})
    assert _messages(build(site, jobs=1)) == []
    body = _body(tmp_path, "posts/a/index.html")
    assert "Smith and van Beethoven (2020)" in body and "The Team, 2019" in body
    assert "Knuth, 1984" in body
    assert "Cats &amp; dogs ~ 50% of {pets}. <em>Journal of Pets</em>, <em>3</em>, 10–20." \
        in body


def test_a_broken_csl_json_file_is_an_error_with_its_line(tmp_path: Path) -> None:
    site = _site(tmp_path, {
        "content/posts/refs.json": '[\n  {"id": "a",\n   "title": "x"\n  ,}\n]\n',
        "content/posts/a.qmd": "---\ntitle: A\ndate: 2024-01-01\nbibliography: refs.json\n"
                               "---\n\n[@a]\n"})
    assert any(m.startswith("content/posts/a.qmd:4: error: content/posts/refs.json:4 is not "
                            "JSON: Expecting property name") for m in _failed(site))


def test_the_quick_look_reads_an_edited_metadata_file(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """The link map made before the renders already knows what an edited `_metadata.yml`
    says (the post's own bytes are the same): it is not made again after them."""
    from blogbuild.pipeline import sources

    site = _site(tmp_path, {
        "content/posts/_metadata.yml": "categories: [first]\n",
        "content/posts/a.qmd": "---\ntitle: A\ndate: 2024-01-01\n---\n\nA\n",
        "content/posts/b.md": "---\ntitle: B\ndate: 2024-01-02\n---\n\nB\n"})
    build(site, jobs=1)
    made = []
    real = sources.build_link_map
    monkeypatch.setattr(sources, "build_link_map",
                        lambda infos, *a, **k: made.append(
                            sorted((i.rel, i.meta.draft, i.meta.tags) for i in infos))
                        or real(infos, *a, **k))
    _edit(tmp_path / "content/posts/_metadata.yml", "categories: [second]\ndraft: true\n")
    assert build(site, jobs=1).rendered == 1
    assert made == [[("posts/a.qmd", True, ("second",)), ("posts/b.md", False, ())]]
    assert not (tmp_path / "_site/posts/a").exists()


def test_a_file_named_in_a_metadata_file_is_read_from_its_folder(tmp_path: Path) -> None:
    site = _site(tmp_path, {
        "content/posts/_metadata.yml": "bibliography: refs.bib\n",
        "content/posts/refs.bib": "@book{knuth84, title={The {TeX}book}, author={Knuth, "
                                  "Donald}, year={1984}}\n",
        "content/posts/a/index.qmd": "---\ntitle: A\ndate: 2024-01-01\n---\n\n[@knuth84]\n",
        "content/posts/b.qmd": "---\ntitle: B\ndate: 2024-01-02\n---\n\n[@knuth84]\n"})
    assert _messages(build(site, jobs=1)) == []
    assert "Knuth, 1984" in _body(tmp_path, "posts/a/index.html")
    assert "Knuth, 1984" in _body(tmp_path, "posts/b/index.html")


SHORTCODE_CASES = read_fixture_file(Path(__file__).parent / "fixtures" / "quarto_shortcodes.md")


@pytest.mark.parametrize(("line", "title", "source", "expected"), SHORTCODE_CASES,
                         ids=[f"{c[0]}-{c[1]}" for c in SHORTCODE_CASES])
def test_shortcode_fixture(line: int, title: str, source: str, expected: str) -> None:
    from blogbuild.quarto import QuartoPage

    page = QuartoPage(meta={"title": "T & <b>", "n": {"deep": 3}}, variables={"v": "1.2"})
    out, env = render(source, quarto=page)
    assert normalize(out, env) == expected
    plain, _ = render(source)  # a Markdown page: no shortcode is read
    assert not any(made in plain for made in ("<kbd>", 'class="pagebreak"', "video-embed"))


def test_cross_reference_options_of_a_metadata_file_apply_to_its_posts(tmp_path: Path) -> None:
    site = _site(tmp_path, {
        "content/posts/_metadata.yml": "number-sections: true\n",
        "content/posts/a.qmd": "---\ntitle: A\ndate: 2024-01-01\n---\n\n## Intro {#sec-intro}"
                               "\n\nSee @sec-intro.\n"})
    assert _messages(build(site, jobs=1)) == []
    body = _body(tmp_path, "posts/a/index.html")
    assert '<span class="header-section-number">1</span> Intro' in body
    assert ">Section\xa01</a>" in body
