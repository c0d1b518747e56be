"""Citations: BibTeX read with its lines, in-text forms and reference lists checked exactly
for both built-in styles, diagnostics with file and line, and builds (strict, incremental)."""

from __future__ import annotations

import shutil
from pathlib import Path

import html5lib
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from blogbuild.bib.bibtex import parse
from blogbuild.commands.build import build
from blogbuild.config import load_config
from blogbuild.content.jobs import SourceJob
from blogbuild.content.records import RenderResult
from blogbuild.diagnostics import BuildFailed
from blogbuild.pipeline.render import render_source

BIB = Path(__file__).parent / "bib" / "refs.bib"
POST = "content/posts/2024-01-01-cites.md"

GOEDEL_APA = ("Gödel, K. (1931). Über formal unentscheidbare Sätze der Principia Mathematica. "
              "<em>Monatshefte Für Mathematik Und Physik</em>, <em>38</em>, 173–198. "
              '<a href="https://doi.org/10.1007/BF01700692">'
              "https://doi.org/10.1007/BF01700692</a>")
KNUTH_APA = "Knuth, D. E. (1984). <em>The TeXbook</em>. Addison-Wesley."
OPENAI_APA = ('OpenAI. (2023). <em>A &lt;b&gt;bold&lt;/b&gt; &amp; "quoted" title</em>. '
              '<a href="https://example.org/report?a=1&amp;b=2">'
              "https://example.org/report?a=1&amp;b=2</a>")
VASWANI_APA = ("Vaswani, A., Shazeer, N., &amp; Parmar, N. (2017). Attention Is All You Need. "
               "<em>Advances in Neural Information Processing Systems</em>, 5998–6008.")
VASWANI_IEEE = ("A. Vaswani, N. Shazeer, and N. Parmar, “Attention Is All You Need”, in "
                "<em>Advances in Neural Information Processing Systems</em>, Dec. 2017, "
                "pp. 5998–6008.")
GOEDEL_IEEE = ("K. Gödel, “Über formal unentscheidbare Sätze der Principia Mathematica”, "
               "<em>Monatshefte für Mathematik und Physik</em>, vol. 38, pp. 173–198, 1931, "
               'doi: <a href="https://doi.org/10.1007/BF01700692">10.1007/BF01700692</a>.')


def make_site(root: Path, body: str, *, front: str = "bibliography: refs.bib\n",
              site_yaml: str = "") -> Path:
    (root / "content" / "posts").mkdir(parents=True, exist_ok=True)
    shutil.copyfile(BIB, root / "content" / "posts" / "refs.bib")
    (root / "site.yaml").write_text('title: "Cites"\nbase_url: "https://example.org/"\n'
                                    + site_yaml, encoding="utf-8")
    (root / POST).write_text(f"---\ntitle: Cites\n{front}---\n\n{body}", encoding="utf-8")
    return root


def render(root: Path, body: str, **kwargs: str) -> RenderResult:
    make_site(root, body, **kwargs)
    config = load_config(root / "site.yaml")
    job = SourceJob(root / POST, POST.removeprefix("content/"), "post", POST)
    result = render_source(job, config)
    assert result.rendered is not None, result.diagnostics
    return result


def citations(html: str) -> list[str]:
    """The inner HTML of each citation span (and missing-key span) of a body."""
    doc = html5lib.parse(html, namespaceHTMLElements=False)
    from xml.etree import ElementTree as ET

    out = []
    for span in doc.iter("span"):
        if span.get("class") in ("citation", "citation-missing"):
            inner = (span.text or "") + "".join(
                ET.tostring(child, encoding="unicode") for child in span)
            out.append(f'{span.get("class")}[{span.get("data-cites", "")}]: {inner}')
    return out


def entries(html: str) -> list[tuple[str, str]]:
    start = html.index('<section class="references"')
    section = html[start:html.index("</section>", start)]
    found = []
    for line in section.splitlines():
        if line.startswith('<li id="ref-'):
            ident = line[len('<li id="'):line.index('"', len('<li id="'))]
            body = line[line.index(">") + 1:-len("</li>")]
            found.append((ident, body))
    return found


def test_bibtex_reader_keeps_lines_and_goes_on_after_a_broken_entry() -> None:
    parsed = parse(BIB.read_text(encoding="utf-8"))
    assert [(e.key, e.line) for e in parsed.entries] == [
        ("vaswani2017", 5), ("goedel1931", 14), ("knuth:tex/book", 24), ("openai2023", 36)]
    assert parsed.entries[0].fields["booktitle"] == \
        "Advances in Neural Information Processing Systems"
    assert parsed.entries[0].fields["month"] == "12"
    assert len(parsed.problems) == 1
    line, message = parsed.problems[0]
    assert line == 32 and "'title' in 'broken2020'" in message and "'}' is missing" in message


@pytest.mark.parametrize(("text", "problem"), [
    ("@article{title = {x}}\n", "it has no key"),
    ("@misc{a, note = undefined}\n", "'undefined' is not defined by an @string"),
    ('@misc{a, title = "open}\n', "this '}' has no '{'"),
])
def test_bibtex_reader_names_what_to_fix(text: str, problem: str) -> None:
    parsed = parse(text)
    assert [line for line, _ in parsed.problems] == [1]
    assert problem in parsed.problems[0][1]


def test_author_year_citations_and_list(tmp_path: Path) -> None:
    body = ("As [@vaswani2017] and [@goedel1931, p. 3; @knuth:tex/book] show, and "
            "[see @knuth:tex/book, ch. 2].\n@openai2023 wrote it [-@goedel1931].\n"
            "A suffix without a locator: [@goedel1931, Thm. VI; @vaswani2017 and later].\n")
    result = render(tmp_path, body)
    html = result.rendered.html  # type: ignore[union-attr]
    assert citations(html) == [
        'citation[vaswani2017]: (<a href="#ref-vaswani2017">Vaswani et al., 2017</a>)',
        'citation[goedel1931 knuth:tex/book]: (<a href="#ref-goedel1931">Gödel, 1931, p. 3'
        '</a>; <a href="#ref-knuth:tex/book">Knuth, 1984</a>)',
        'citation[knuth:tex/book]: (see <a href="#ref-knuth:tex/book">Knuth, 1984</a>, ch. 2)',
        'citation[openai2023]: <a href="#ref-openai2023">OpenAI (2023)</a>',
        'citation[goedel1931]: (<a href="#ref-goedel1931">1931</a>)',
        'citation[goedel1931 vaswani2017]: (<a href="#ref-goedel1931">Gödel, 1931</a>, Thm. VI;'
        ' <a href="#ref-vaswani2017">Vaswani et al., 2017</a> and later)',
    ]
    assert entries(html) == [("ref-goedel1931", GOEDEL_APA), ("ref-knuth:tex/book", KNUTH_APA),
                             ("ref-openai2023", OPENAI_APA), ("ref-vaswani2017", VASWANI_APA)]
    assert '<ul class="reference-list">' in html
    assert '<section class="references" id="references" aria-labelledby="references-title">' \
        in html
    assert [e.id for e in result.rendered.toc] == ["references-title"]  # type: ignore[union-attr]
    assert result.rendered.needs == {"citations", "previews"}  # type: ignore[union-attr]
    assert [d.line for d in result.diagnostics] == [32]  # the broken entry of refs.bib
    assert result.diagnostics[0].file == "content/posts/refs.bib"


def test_numeric_citations_and_list(tmp_path: Path) -> None:
    body = "First [@vaswani2017], then [@goedel1931, p. 3; @vaswani2017] and @goedel1931.\n"
    html = render(tmp_path, body, site_yaml="citations:\n  style: numeric\n").rendered.html  # type: ignore[union-attr]
    assert citations(html) == [
        'citation[vaswani2017]: [<a href="#ref-vaswani2017">1</a>]',
        'citation[goedel1931 vaswani2017]: [<a href="#ref-vaswani2017">1</a>, '
        '<a href="#ref-goedel1931">2, p. 3</a>]',
        'citation[goedel1931]: <a href="#ref-goedel1931">Gödel</a> '
        '[<a href="#ref-goedel1931">2</a>]',
    ]
    assert entries(html) == [("ref-vaswani2017", VASWANI_IEEE), ("ref-goedel1931", GOEDEL_IEEE)]
    assert '<ol class="reference-list">' in html


def test_what_is_not_a_citation(tmp_path: Path) -> None:
    body = ("Mail ada@example.com, `[@vaswani2017]` and @nobody, [a link](https://x.org) "
            "and [@vaswani2017](https://example.org).\n\n```\n@vaswani2017 [@goedel1931]\n```\n")
    result = render(tmp_path, body)
    html = result.rendered.html  # type: ignore[union-attr]
    assert citations(html) == []
    assert "references" not in html and "citations" not in result.rendered.needs  # type: ignore[union-attr]
    assert "<code>[@vaswani2017]</code>" in html and "@nobody" in html
    assert "@vaswani2017 [@goedel1931]" in html


def test_a_missing_key_is_shown_and_named_with_its_line(tmp_path: Path) -> None:
    result = render(tmp_path, "Intro.\n\nSee [@vaswani2071; @goedel1931].\n")
    html = result.rendered.html  # type: ignore[union-attr]
    assert citations(html) == [
        'citation[goedel1931]: (<a href="#ref-goedel1931">Gödel, 1931</a>)',
        "citation-missing[]: [@vaswani2071?]",
    ]
    found = [d for d in result.diagnostics if d.file == POST]
    assert [(d.line, d.severity.value) for d in found] == [(8, "warning")]
    assert "'vaswani2071'" in found[0].message and "'vaswani2017'" in found[0].message


def test_a_post_without_bibliography(tmp_path: Path) -> None:
    result = render(tmp_path, "Text @vaswani2017.\n\nSee [@vaswani2017].\n", front="")
    html = result.rendered.html  # type: ignore[union-attr]
    assert "Text @vaswani2017." in html and "See [@vaswani2017]." in html
    assert [(d.file, d.line) for d in result.diagnostics] == [(POST, 7)]
    assert "no bibliography" in result.diagnostics[0].message


def test_feed_variant_keeps_text_and_list(tmp_path: Path) -> None:
    feed = render(tmp_path, "See [@vaswani2017].\n").rendered.feed_html  # type: ignore[union-attr]
    assert feed is not None
    assert citations(feed) == ["citation[vaswani2017]: (Vaswani et al., 2017)"]
    assert dict(entries(feed))["ref-vaswani2017"] == VASWANI_APA


def test_a_missing_bib_file_is_a_warning_at_its_key(tmp_path: Path) -> None:
    """Like a missing image: the post is built, its citations shown as [@key?]."""
    result = render(tmp_path, "See [@a].\n", front="title2: x\nbibliography: nothere.bib\n")
    assert [(d.file, d.line, d.severity.value) for d in result.diagnostics] == [
        (POST, 4, "warning"), (POST, 7, "warning")]
    assert "the bibliography file content/posts/nothere.bib does not exist" in \
        result.diagnostics[0].message
    assert "no entry 'a' (content/posts/nothere.bib does not exist)" in \
        result.diagnostics[1].message
    assert citations(result.rendered.html) == ["citation-missing[]: [@a?]"]  # type: ignore[union-attr]
    config = load_config(make_site(tmp_path / "s", "x", site_yaml="bibliography:\n  - gone.bib\n")
                         / "site.yaml")
    assert config.bibliography == ("gone.bib",) and config.bibliography_lines == (3,)


def test_a_missing_bib_file_builds_and_renders_again_when_it_appears(tmp_path: Path) -> None:
    """The render records the file as missing (Rendered.inputs): creating it is a change.
    The same for site.yaml's bibliography, through the render fingerprint."""
    for where in ("front", "site"):
        root = make_site(tmp_path / where, "See [@knuth:tex/book] and [@goedel1931].\n",
                         front="bibliography: later.bib\n" if where == "front" else "",
                         site_yaml="" if where == "front" else "\nbibliography: later.bib\n")
        bib = root / ("content/posts/later.bib" if where == "front" else "later.bib")
        report = build(root / "site.yaml")
        warned = {(d.file, d.line) for d in report.diagnostics}
        key, cited = ((POST, 3), (POST, 6)) if where == "front" else (("site.yaml", 4), (POST, 5))
        assert key in warned and cited in warned
        assert not [d for d in report.diagnostics if d.is_error]
        page = (root / "_site" / "posts" / "cites" / "index.html").read_text(encoding="utf-8")
        assert "[@knuth:tex/book?]" in page and "[@goedel1931?]" in page
        with pytest.raises(BuildFailed):
            build(root / "site.yaml", strict=True)
        assert build(root / "site.yaml").rendered == 0  # still missing: nothing to redo
        shutil.copyfile(BIB, bib)
        report = build(root / "site.yaml")
        assert report.rendered == 1
        assert not [d for d in report.diagnostics if "does not exist" in d.message]
        page = (root / "_site" / "posts" / "cites" / "index.html").read_text(encoding="utf-8")
        assert 'id="ref-knuth:tex/book"' in page and "?]" not in page
        bib.unlink()
        report = build(root / "site.yaml")  # the first render, from the store
        assert key in {(d.file, d.line) for d in report.diagnostics}
        page = (root / "_site" / "posts" / "cites" / "index.html").read_text(encoding="utf-8")
        assert "[@knuth:tex/book?]" in page


def test_site_bibliography_and_strict_build(tmp_path: Path) -> None:
    root = make_site(tmp_path / "site", "See [@vaswani2017].\n", front="",
                     site_yaml="bibliography: content/posts/refs.bib\n")
    report = build(root / "site.yaml")
    page = (root / "_site" / "posts" / "cites" / "index.html").read_text(encoding="utf-8")
    assert 'id="ref-vaswani2017"' in page
    assert [(d.file, d.line) for d in report.diagnostics] == [("content/posts/refs.bib", 32)]
    with pytest.raises(BuildFailed):
        build(root / "site.yaml", strict=True)


def test_editing_the_bib_renders_exactly_the_posts_that_use_it(tmp_path: Path) -> None:
    root = make_site(tmp_path / "site", "See [@knuth:tex/book].\n")
    (root / "content" / "posts" / "2024-01-02-other.md").write_text(
        "---\ntitle: Other\n---\n\nNo citations.\n", encoding="utf-8")
    build(root / "site.yaml")
    bib = root / "content" / "posts" / "refs.bib"
    bib.write_text(bib.read_text(encoding="utf-8").replace("Addison-Wesley", "AW"),
                   encoding="utf-8")
    report = build(root / "site.yaml")
    assert report.rendered == 1
    assert "posts/cites/index.html" in report.changed
    assert not any("other" in path for path in report.changed)
    page = (root / "_site" / "posts" / "cites" / "index.html").read_text(encoding="utf-8")
    assert "<em>The TeXbook</em>. AW." in page
    again = build(root / "site.yaml")
    assert again.rendered == 0


TEXT = st.lists(st.sampled_from([
    "@", "[@", "]", "[", "@vaswani2017", "@goedel1931", "-@", ";", ",", " p. 3", "see ",
    "<script>alert(1)</script>", "`", "\n", "ada@example.com", "@{x}", "\\", "*", "(", ")",
    "\"", "&", "@knuth:tex/book.", "[^1]", "\n\n[^1]: note [@openai2023]\n",
]), max_size=25).map("".join)


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(body=TEXT)
def test_random_text_with_citations(tmp_path: Path, body: str) -> None:
    first = render(tmp_path, body)
    second = render(tmp_path, body)
    html = first.rendered.html  # type: ignore[union-attr]
    assert html == second.rendered.html  # type: ignore[union-attr]
    # Raw HTML passes through by design: citations add no script of their own.
    assert html.count("<script") <= body.count("<script")
    assert all(d.line > 0 for d in first.diagnostics if d.file == POST)
