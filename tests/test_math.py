"""Math (syntax.md §3): fixtures, source positions, options, the formula cache, processes."""

from __future__ import annotations

import dataclasses
import re
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import html5lib
import pytest
from markdown_it.utils import read_fixture_file

from blogbuild.config import Config, MathConfig, load_config
from blogbuild.diagnostics import ConfigError, Severity
from blogbuild.markdown import create_markdown
from blogbuild.pipeline.render import SourceJob, render_source
from blogbuild.runtimes import katex
from css_helpers import page_stylesheet, parts
from math_helpers import abbreviate, render, render_fixture

FIXTURES = Path(__file__).parent / "fixtures" / "math.md"
SRC = Path(__file__).resolve().parent.parent / "src"


@pytest.mark.parametrize(
    ("line", "title", "source", "expected"),
    read_fixture_file(FIXTURES),
    ids=[f"{case[0]}-{case[1]}" for case in read_fixture_file(FIXTURES)],
)
def test_fixture(line: int, title: str, source: str, expected: str) -> None:
    assert render_fixture(source) == expected


def test_fixture_file_has_dozens_of_cases() -> None:
    assert len(read_fixture_file(FIXTURES)) >= 40


def parse_fragment(html: str) -> object:
    parser = html5lib.HTMLParser(strict=True, namespaceHTMLElements=False)
    return parser.parseFragment(html)


def test_output_is_well_formed_html() -> None:
    html, _ = render(
        "# $x$\n\nA $\\frac{1}{2}$ and\n\n$$\na \\label{eq:a}\n$$\n\n"
        "\\begin{align} a &= b \\\\ c &= d \\end{align}\n\nsee \\eqref{eq:a}, $\\frac{$\n"
    )
    parse_fragment(html)  # strict: raises on any parse error


def test_formula_markup_is_katex_html_and_mathml() -> None:
    html, env = render("Inline $x^2$.\n")
    assert '<span class="katex">' in html
    assert '<math xmlns="http://www.w3.org/1998/Math/MathML">' in html
    assert '<span class="katex-html" aria-hidden="true">' in html
    assert env["needs"] == {"math"}


def test_page_without_math_has_no_math_need() -> None:
    _, env = render("Costs $5 and $10, `$x$`.\n\n```\n$$x$$\n```\n")
    assert "math" not in env.get("needs", set())


# --- source positions -----------------------------------------------------------------


POST = """\
---
title: "Positions"
date: 2024-12-17
tags: [math]
---

Intro with $x$ fine.

- item with $\\frac{a$ broken
- > quoted $\\alpha \\beta \\undefined$ here

| col | $\\sqrt{$ |
|-----|----------|

$$
a + b
  \\oops
$$

\\begin{align}
a &= b \\\\
c &= \\nope
\\end{align}
"""


def test_errors_point_at_source_line_and_column(tmp_path: Path) -> None:
    path = tmp_path / "positions.md"
    path.write_text(POST, encoding="utf-8")
    job = SourceJob(path, "posts/positions.md", "post", "content/posts/positions.md")
    result = render_source(job, Config())
    assert result.rendered is not None
    found = [(d.line, d.column, d.severity, d.message) for d in result.diagnostics]
    lines = POST.split("\n")

    def at(line: int, col: int) -> str:
        return lines[line - 1][col - 1 :]

    errors = [(line, col, msg) for line, col, sev, msg in found if sev is Severity.ERROR]
    assert [(line, col) for line, col, _ in errors] == [
        (9, 21),
        (10, 26),
        (12, 16),
        (17, 3),
        (22, 6),
    ]
    assert at(9, 21).startswith("$ broken")  # end of input: the closing dollar
    assert at(10, 26).startswith("\\undefined")  # in a blockquote in a list item
    assert at(12, 16).startswith("$ |")  # in a table cell
    assert at(17, 3).startswith("\\oops")
    assert at(22, 6).startswith("\\nope")
    assert errors[1][2] == "LaTeX error: Undefined control sequence: \\undefined"
    assert all(d.file == "content/posts/positions.md" for d in result.diagnostics)
    assert all(d.format().startswith("content/posts/positions.md:") for d in result.diagnostics)


def test_repeated_formula_on_one_line_gets_its_own_column() -> None:
    _, env = render("$\\bad$ and $\\bad$ and `$\\bad$` $\\bad$\n", line_offset=3)
    cols = [(d.line, d.column) for d in env["diagnostics"]]
    assert cols == [(4, 2), (4, 13), (4, 33)]


def test_astral_characters_before_the_error_count_once() -> None:
    # KaTeX reports UTF-16 offsets; 𝔸 is two UTF-16 units but one column.
    _, env = render("$\\text{𝔸𝔸} \\bad$\n")
    assert [(d.line, d.column) for d in env["diagnostics"]] == [(1, 12)]


def test_error_is_visible_on_the_page() -> None:
    html, env = render("Broken $\\frac{1}{$ here.\n")
    assert (
        '<span class="math-error" title="LaTeX error: Expected group after &#x27;\\frac&#x27;'
    ) in html or 'class="math-error"' in html
    assert "$\\frac{1}{$</span>" in html
    assert env["diagnostics"][0].severity is Severity.ERROR


# --- numbering and references -----------------------------------------------------------


def test_references_link_to_existing_equation_ids() -> None:
    html, env = render(
        "See \\eqref{eq:b} first.\n\n"
        "$$ a \\label{eq:a} $$\n\n"
        "\\begin{align}\nx &= 1 \\label{eq:b} \\\\\ny &= 2 \\label{eq:c}\n\\end{align}\n\n"
        "Then $\\eqref{eq:a} + \\ref{eq:c}$.\n"
    )
    ids = set(re.findall(r'id="(eq-[^"]+)"', html))
    hrefs = set(re.findall(r'href="#(eq-[^"]+)"', html))
    assert ids == {"eq-a", "eq-b", "eq-c"}
    assert hrefs == ids
    assert '<a class="math-ref" href="#eq-b">(2)</a>' in html
    assert env.get("diagnostics", []) == []
    # Tags are real text (not CSS counters): the numbers are in the HTML.
    assert abbreviate(html).count("\\tag{") == 3


def test_numbering_off_numbers_only_labelled_equations() -> None:
    md = create_markdown(Config(math=MathConfig(numbering=False)))
    html, _ = render(
        "\\begin{equation} a \\end{equation}\n\n\\begin{equation} b \\label{x} \\end{equation}\n",
        md=md,
    )
    assert abbreviate(html).count("\\tag{") == 1
    assert "\\tag{1}" in abbreviate(html)


def test_equation_counter_is_per_document() -> None:
    md = create_markdown()
    for _ in range(2):
        html, _ = render("\\begin{equation} a \\end{equation}\n", md=md)
        assert "\\tag{1}" in abbreviate(html)


# --- options ------------------------------------------------------------------------------


def test_macros_from_site_yaml(tmp_path: Path) -> None:
    (tmp_path / "site.yaml").write_text(
        textwrap.dedent(
            """\
            title: T
            math:
              macros:
                "\\\\RR": "\\\\mathbb{R}"
                "\\\\norm": "\\\\left\\\\lVert #1 \\\\right\\\\rVert"
            """
        ),
        encoding="utf-8",
    )
    config = load_config(tmp_path)
    assert config.math.macros == {
        "\\RR": "\\mathbb{R}",
        "\\norm": "\\left\\lVert #1 \\right\\rVert",
    }
    html, env = render("$x \\in \\RR$ and $\\norm{v}$\n", md=create_markdown(config))
    assert env.get("diagnostics", []) == []
    assert "mathbb" in html and "double-struck" in html
    assert "∥" in html
    # Without the macros the same text is an error.
    _, env = render("$x \\in \\RR$\n")
    assert env["diagnostics"][0].message == "LaTeX error: Undefined control sequence: \\RR"


def test_gdef_holds_for_later_formulas_of_its_page_only() -> None:
    md = create_markdown()
    _, env = render("$\\foo$ then $\\gdef\\foo{x} \\foo$ and $\\foo$\n", md=md)
    assert [d.column for d in env["diagnostics"]] == [2]  # the formula before it only
    _, env = render("$\\foo$\n", md=md)  # another page of the same build
    assert [d.message for d in env["diagnostics"]] == [
        "LaTeX error: Undefined control sequence: \\foo"
    ]


@pytest.mark.parametrize(
    ("output", "has_html", "has_mathml"),
    [("html", True, False), ("htmlAndMathml", True, True), ("mathml", False, True)],
)
def test_output_option(output: str, has_html: bool, has_mathml: bool) -> None:
    md = create_markdown(Config(math=MathConfig(output=output)))
    html, _ = render("$x^2$\n", md=md)
    assert ('class="katex-html"' in html) is has_html
    assert ("<math" in html) is has_mathml


def test_default_output_is_html_and_mathml() -> None:
    assert MathConfig().output == "htmlAndMathml"


def test_inline_dollar_can_be_turned_off() -> None:
    md = create_markdown(Config(math=MathConfig(inline_dollar=False)))
    html, _ = render("$x$ stays, \\(y\\) and $$z$$ are math\n", md=md)
    assert abbreviate(html) == "<p>$x$ stays, [K:y] and [K:z] are math</p>\n"


def test_double_dollar_in_a_sentence_can_stay_display() -> None:
    md = create_markdown(Config(math=MathConfig(inline_double_dollar="display")))
    html, _ = render("So $$a = b$$ holds.\n\n$$c$$\n", md=md)
    assert abbreviate(html) == (
        '<p>So <span class="math-display">[KD:a = b]</span> holds.</p>\n'
        '<div class="math-display">[KD:c]</div>\n'
    )


def test_display_setting_keeps_double_dollars_alone_on_a_line_display() -> None:
    # With inline $$ beside text in the paragraph, the default reads the lone one as
    # inline (kramdown); `display` keeps Pandoc's and Obsidian's reading.
    source = "The norm $$a$$ and the product are\n$$b$$\n"
    md = create_markdown(Config(math=MathConfig(inline_double_dollar="display")))
    assert abbreviate(render(source, md=md)[0]) == (
        '<p>The norm <span class="math-display">[KD:a]</span> and the product are</p>\n'
        '<div class="math-display">[KD:b]</div>\n'
    )
    assert abbreviate(render(source)[0]) == (
        "<p>The norm [K:a] and the product are\n[K:b]</p>\n")


@pytest.mark.parametrize("value", ["Display", "block", "true"])
def test_inline_double_dollar_is_checked(tmp_path: Path, value: str) -> None:
    (tmp_path / "site.yaml").write_text(
        f"title: T\nmath:\n  inline_double_dollar: {value}\n", encoding="utf-8")
    with pytest.raises(ConfigError) as caught:
        load_config(tmp_path / "site.yaml")
    assert caught.value.line == 3
    assert "'math.inline_double_dollar' must be inline" in caught.value.message


def test_math_can_be_turned_off() -> None:
    md = create_markdown(Config(math=MathConfig(enabled=False)))
    html, env = render("$x$ and $$y$$\n", md=md)
    assert html == "<p>$x$ and $$y$$</p>\n"
    assert "math" not in env.get("needs", set())


def test_config_fingerprint_changes_with_math_options() -> None:
    a = Config().render_fingerprint()
    b = dataclasses.replace(Config(), math=MathConfig(macros={"\\a": "b"})).render_fingerprint()
    assert a != b


# --- the KaTeX runtime and its cache --------------------------------------------------------


@pytest.fixture
def no_disk_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    """Builds earlier in this process may have pointed the formula cache somewhere."""
    monkeypatch.delenv(katex.CACHE_ENV, raising=False)


def test_memo_renders_each_formula_once(no_disk_cache: None) -> None:
    katex.clear_memo()
    source = "Fresh $\\zeta(7) + \\omega_{123}$ and $\\zeta(7) + \\omega_{123}$ again.\n"
    before = katex.stats()["calls"]
    render(source)
    middle = katex.stats()["calls"]
    render(source)
    after = katex.stats()["calls"]
    assert middle - before == 1  # the same formula twice in a page: one KaTeX call
    assert after == middle  # a second render: none


CACHE_SCRIPT = """
import json, sys
from blogbuild.runtimes import katex
from blogbuild.markdown import create_markdown
katex.set_cache_dir(sys.argv[1])
md = create_markdown()
text = "A $\\\\int_0^1 x\\\\,dx$ and $\\\\frac{{a}}{{b}}$ and $\\\\bad$."
md.render(text + "\\n\\n$$ e^{{{n}}} $$\\n", {{}})
print(json.dumps(katex.stats()))
"""


def run_python(code: str, *args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", code, *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env={"PYTHONPATH": str(SRC), "PATH": "/usr/bin:/bin"},
    )


def test_disk_cache_means_a_rebuild_calls_katex_zero_times(tmp_path: Path) -> None:
    import json

    cache = tmp_path / ".blogbuild-cache"
    first = run_python(CACHE_SCRIPT.format(n=1), str(cache))
    assert first.returncode == 0, first.stderr
    assert json.loads(first.stdout) == {"calls": 4, "memo_hits": 0, "disk_hits": 0}
    assert (cache / katex.CACHE_FILE).is_file()
    second = run_python(CACHE_SCRIPT.format(n=1), str(cache))
    assert json.loads(second.stdout) == {"calls": 0, "memo_hits": 0, "disk_hits": 4}
    changed = run_python(CACHE_SCRIPT.format(n=2), str(cache))  # one formula edited
    assert json.loads(changed.stdout) == {"calls": 1, "memo_hits": 0, "disk_hits": 3}


def test_cache_key_includes_options(no_disk_cache: None) -> None:
    katex.clear_memo()
    html = katex.render("y_1", display=False, options=katex.KatexOptions("html"))
    both = katex.render("y_1", display=False, options=katex.KatexOptions("htmlAndMathml"))
    assert html.html != both.html
    assert katex.render("y_1", display=True).html != both.html


def test_error_and_warnings_come_back_as_data() -> None:
    result = katex.render("x^{", display=False)
    assert not result.ok
    assert result.message == "Expected '}', got 'EOF'"
    assert result.position == 3
    warned = katex.render("é", display=False)
    assert warned.ok and warned.warnings[0].code == "unicodeTextInMathMode"


@pytest.mark.parametrize("output", ["htmlAndMathml", "html"])
@pytest.mark.parametrize(("tex", "display"), [
    ("x^2", False), ("x^2", True), ("\\begin{align} a &= b \\tag{3.1} \\\\ c \\end{align}", True),
    ("\\href{#eq-1}{\\text{(1)}}", False), ("\\RR", True),
    ("\\newcommand\\f{y}\\gdef\\f{x}\\f", False),
])
def test_feed_mathml_is_what_output_mathml_renders(
    no_disk_cache: None, tex: str, display: bool, output: str
) -> None:
    """The feed's MathML comes out of the page's render (from its tree when it has MathML)."""
    katex.clear_memo()
    macros = {"\\RR": "\\mathbb{R}"}
    page = katex.render(tex, display=display, options=katex.KatexOptions.make(output, macros))
    alone = katex.render(tex, display=display, options=katex.KatexOptions.make("mathml", macros))
    assert page.ok and alone.ok
    assert page.mathml == alone.html


def test_warnings_are_reported_once_per_formula() -> None:
    for output in ("htmlAndMathml", "html"):
        result = katex.render("é + \\href{ftp://x.org}{y}", display=False,
                              options=katex.KatexOptions(output))
        assert [w.code for w in result.warnings] == ["unicodeTextInMathMode", "untrusted"]


def test_site_files_are_css_fonts_and_licence_only() -> None:
    files = katex.site_files()
    names = [rel for _, rel in files]
    assert "katex.min.css" in names and "LICENSE" in names
    fonts = [n for n in names if n.startswith("fonts/")]
    assert len(fonts) >= 19 and all(n.endswith(".woff2") for n in fonts)
    assert not any(n.endswith(".js") for n in names)
    assert all(src.is_file() for src, _ in files)
    css = (katex.VENDOR_DIR / "katex.min.css").read_text(encoding="utf-8")
    referenced = set(re.findall(r"url\((fonts/[^)]+)\)", css))
    assert referenced == set(fonts)  # every font the CSS asks for ships, and nothing else
    assert (katex.VENDOR_DIR / "VERSION").read_text().strip() == katex.KATEX_VERSION


EXIT_SCRIPT = """
from blogbuild.markdown import create_markdown
print(len(create_markdown().render("$x^2$ and $$\\\\sum_i i$$\\n")))
"""


def test_a_process_that_rendered_math_exits_promptly() -> None:
    start = time.monotonic()
    done = run_python(EXIT_SCRIPT, timeout=30)
    assert done.returncode == 0, done.stderr
    assert int(done.stdout) > 1000
    assert time.monotonic() - start < 20


POOL_SCRIPT = """
import multiprocessing, sys
from blogbuild.markdown import create_markdown

def work(n):
    return create_markdown().render(f"$x^{{{n}}}$\\n").count("katex-html")

if __name__ == "__main__":
    method = sys.argv[1]
    if method == "fork":
        work(0)  # the parent has a V8 context before it forks: children must not reuse it
    with multiprocessing.get_context(method).Pool(2) as pool:
        print(sum(pool.map(work, range(8))))
"""


@pytest.mark.parametrize("method", ["forkserver", "spawn", "fork"])
def test_rendering_in_pool_workers(tmp_path: Path, method: str) -> None:
    script = tmp_path / "pool_job.py"
    script.write_text(POOL_SCRIPT, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, str(script), method],
        capture_output=True,
        text=True,
        timeout=60,
        env={"PYTHONPATH": str(SRC), "PATH": "/usr/bin:/bin"},
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "8"


FORK_SCRIPT = """
import os
from blogbuild.markdown import create_markdown

def katex_children():
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/stat") as stat, open(f"/proc/{pid}/cmdline", "rb") as cmd:
                parent = int(stat.read().rsplit(")", 1)[1].split()[1])
                if parent == os.getpid() and b"katex_process" in cmd.read():
                    found.append(pid)
        except OSError:
            pass
    return found

print(create_markdown().render("$x$\\\\n").count("katex-html"), flush=True)
pid = os.fork()
if pid == 0:
    html = create_markdown().render("$y^2$ and $$z$$\\\\n")
    print(html.count("katex-html"), len(katex_children()), flush=True)
    os._exit(0)
_, status = os.waitpid(pid, 0)
print(os.waitstatus_to_exitcode(status))
"""


@pytest.mark.skipif(not Path("/proc/self/stat").is_file(), reason="reads /proc")
def test_a_child_forked_after_v8_started_renders_in_a_process_of_its_own() -> None:
    # V8 cannot start again in a forked child (with memory protection keys its first
    # context there is a SIGSEGV): the child's formulas go to a KaTeX process it starts.
    done = run_python(FORK_SCRIPT, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split("\n")[:3] == ["1", "2 1", "0"], done.stdout + done.stderr


SITE_YAML = """\
title: Math site
base_url: "http://127.0.0.1/"
"""


def write_posts(content: Path, count: int, *, math: bool) -> None:
    posts = content / "posts"
    posts.mkdir(parents=True, exist_ok=True)
    for i in range(count):
        body = f"Post {i}: $x^{{{i}}}$ and\n\n$$ \\sum_{{k=1}}^{{{i}}} k \\label{{eq:s}} $$\n\n"
        body += "See \\eqref{eq:s}.\n" if math else "No math, $5 and $10.\n"
        (posts / f"2024-01-{i + 1:02d}-p{i}.md").write_text(
            f"---\ntitle: P{i}\ndate: 2024-01-{i + 1:02d}\n---\n\n{body}", encoding="utf-8"
        )


def build_in_subprocess(site: Path, out: Path) -> subprocess.CompletedProcess[str]:
    code = (
        "import sys\n"
        "from blogbuild.cli import main\n"
        "sys.exit(main(['build', '-q', '--config', sys.argv[1], '--output', sys.argv[2]]))\n"
    )
    return subprocess.run(
        [sys.executable, "-c", code, str(site / "site.yaml"), str(out)],
        capture_output=True,
        text=True,
        timeout=120,
        env={"PYTHONPATH": str(SRC), "PATH": "/usr/bin:/bin", "BLOGBUILD_WORKERS": "2"},
    )


def test_build_in_worker_pool_renders_math_and_fills_the_formula_cache(tmp_path: Path) -> None:
    import sqlite3

    site = tmp_path / "site"
    (site / "content").mkdir(parents=True)
    (site / "site.yaml").write_text(SITE_YAML, encoding="utf-8")
    write_posts(site / "content", 30, math=True)  # above the pool threshold
    done = build_in_subprocess(site, tmp_path / "out")
    assert done.returncode == 0, done.stderr
    page = (tmp_path / "out" / "posts" / "p7" / "index.html").read_text(encoding="utf-8")
    assert page.count('class="katex"') == 2  # inline and display; \\eqref in text is a link
    assert '<a class="math-ref" href="#eq-s">(1)</a>' in page
    css = parts(page_stylesheet(tmp_path / "out", "posts/p7/index.html"))
    assert css[css.index("vendor/katex/katex.min.css") + 1] == "css/math.css"
    assert (tmp_path / "out" / "vendor" / "katex" / "katex.min.css").is_file()
    assert list((tmp_path / "out" / "vendor" / "katex" / "fonts").glob("*.woff2"))
    assert not list((tmp_path / "out").rglob("katex*.js"))
    db = sqlite3.connect(site / ".blogbuild-cache" / katex.CACHE_FILE)
    rows = db.execute("SELECT COUNT(*) FROM formulas").fetchone()[0]
    db.close()
    # two distinct formulas per post, each rendered and stored once
    assert rows == 30 * 2, done.stderr


def test_site_without_math_gets_no_katex_files(tmp_path: Path) -> None:
    site = tmp_path / "site"
    (site / "content").mkdir(parents=True)
    (site / "site.yaml").write_text(SITE_YAML, encoding="utf-8")
    (site / "content" / "posts").mkdir()
    (site / "content" / "posts" / "2024-01-01-a.md").write_text(
        "---\ntitle: A\ndate: 2024-01-01\n---\n\nCosts $5 and $10, `$x$`.\n", encoding="utf-8"
    )
    done = build_in_subprocess(site, tmp_path / "out")
    assert done.returncode == 0, done.stderr
    assert not (tmp_path / "out" / "vendor" / "katex").exists()
    page = (tmp_path / "out" / "posts" / "a" / "index.html").read_text(encoding="utf-8")
    assert "katex" not in page


def test_render_inside_a_running_event_loop() -> None:
    """Jupyter and async servers run an asyncio loop in the calling thread: KaTeX still works."""
    import asyncio

    katex.close()
    katex.clear_memo()

    async def main() -> katex.KatexResult:
        return katex.render(r"\frac{a}{b}", display=False)

    # In a thread of its own: this test process may already run Playwright's loop.
    results: list[katex.KatexResult] = []
    thread = threading.Thread(target=lambda: results.append(asyncio.run(main())))
    thread.start()
    thread.join(60)
    (result,) = results
    assert result.ok, result.message
    assert "mfrac" in result.html
    assert katex.render("x+1", display=False).ok  # and outside the loop afterwards


def test_a_page_renders_its_formulas_in_one_v8_call(no_disk_cache: None) -> None:
    katex.clear_memo()
    before, calls_before = katex.round_trips(), katex.stats()["calls"]
    body = "".join(f"Inline $a_{{{i}}}$ here.\n\n$$ b_{{{i}}} = {i} $$\n\n" for i in range(20))
    html = create_markdown().render(body)
    assert html.count('class="katex"') == 40
    assert katex.stats()["calls"] - calls_before == 40  # every formula rendered once
    assert katex.round_trips() - before == 1  # in a single call into V8


def test_the_formula_memo_stays_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    """A worker renders thousands of posts: the in-process memo keeps only recent ones."""
    monkeypatch.setattr(katex, "MEMO_LIMIT", 8)
    katex.clear_memo()
    try:
        katex.prefetch([(f"x_{{{i}}}", False) for i in range(20)])
        results = [katex.render(f"x_{{{i}}}", display=False) for i in range(20)]
        assert all(r.ok and f"{i}" in str(r.html) for i, r in enumerate(results))
        assert len(katex._rt.memo) <= 8
    finally:
        katex.clear_memo()


# --- compatibility: kramdown idiom positions, links in math ---------------------------------


def test_error_in_kramdown_idiom_points_at_the_source_column() -> None:
    _, env = render("Text \\\\(\\\\{x\\_1 \\bad\\\\) here.\n")
    (diag,) = env["diagnostics"]
    assert (diag.line, diag.column) == (1, 17)  # `\bad` in the source, escapes and all


def test_site_root_paths_in_math_get_the_sub_path() -> None:
    md = create_markdown(Config(base_url="https://example.org/blog/"))
    html, env = render(
        "$\\href{/about/}{a}$ $\\href{/blog/x/}{b}$ $\\href{https://e.org/}{c}$ "
        "$\\includegraphics{/img/a.png}$\n", md=md)
    hrefs = set(re.findall(r'(?:href|src)="([^"]*)"', html))
    assert hrefs == {"/blog/about/", "/blog/x/", "https://e.org/", "/blog/img/a.png"}
    assert '<img src="/blog/img/a.png"' in html
    assert "diagnostics" not in env


HOSTILE_MATH = [
    "\\href{javascript:alert(1)}{x}",
    "\\href{JaVaScRiPt:alert(1)}{x}",
    "\\href{ javascript:alert(1)}{x}",
    "\\href{java\tscript:alert(1)}{x}",
    "\\href{javascript&#58;alert(1)}{x}",
    "\\href{javascript&colon;alert(1)}{x}",
    "\\href{data:text/html;base64,PHNjcmlwdD4=}{x}",
    "\\url{vbscript:msgbox(1)}",
    "\\includegraphics{javascript:alert(1)}",
    "\\includegraphics[alt=\"><script>alert(1)</script>]{https://e.org/a.png}",
    "\\htmlData{onclick=alert(1), onerror=alert(2)}{x}",
    "\\htmlData{x\" onclick=\"alert(1)=1}{x}",
    "\\htmlId{x\" onclick=\"alert(1)}{x}",
    "\\htmlClass{x\" onmouseover=\"alert(1)}{x}",
    "\\htmlStyle{background:url(javascript:alert(1))}{x}",
    "\\htmlStyle{x\" onclick=\"alert(1)}{x}",
    "\\def\\u{javascript:alert(1)}\\href{\\u}{x}",
    "\\href{https://e.org/\" onclick=\"alert(1)}{x}",
    "\\text{<script>alert(1)</script>}",
]


def _attributes(node: object) -> list[tuple[str, str, str]]:
    found = []
    for element in node.iter():  # type: ignore[attr-defined]
        for name, value in element.attrib.items():
            found.append((str(element.tag), str(name), str(value)))
    return found


@pytest.mark.parametrize("tex", HOSTILE_MATH)
@pytest.mark.parametrize("delimiters", [("$", "$"), ("$$\n", "\n$$"), ("\\\\(", "\\\\)")])
def test_math_never_makes_a_script_handler_or_executable_url(
    tex: str, delimiters: tuple[str, str]
) -> None:
    source = f"{delimiters[0]}{tex}{delimiters[1]}\n"
    html, _ = render(source)
    fragment = parse_fragment(html)
    for tag, name, value in _attributes(fragment):
        assert tag != "script"
        assert not name.lower().startswith("on"), (tag, name, value)
        if name in ("href", "src"):
            assert value.startswith(("https:", "/", "#")), (tag, name, value)
        if name == "style":
            assert "url(" not in value and "javascript" not in value.lower()
    assert all(element.tag != "script" for element in fragment.iter())  # type: ignore[attr-defined]


def test_formula_cache_keys_on_the_sub_path_of_site_paths(no_disk_cache: None) -> None:
    source = "$\\href{/about/}{a}$\n"
    at_root, _ = render(source, md=create_markdown(Config(base_url="https://e.org/")))
    under, _ = render(source, md=create_markdown(Config(base_url="https://e.org/blog/")))
    assert 'href="/about/"' in at_root and "/blog/" not in at_root
    assert 'href="/blog/about/"' in under


@pytest.mark.parametrize(("tex", "fix"), [
    ("$$Q^\\vec{\\mu}_i$$", "in braces: ^{\\vec…}"),
    ("$$\\tau_\\max = 1$$", "in braces: _{\\max…}"),
    ("$$\\text{a & b}$$", "write \\& for an ampersand"),
    ("$$\\text{style_fwd}$$", "inside \\text{…} write \\_ for an underscore"),
])
def test_errors_mathjax_forgives_name_the_fix(tex: str, fix: str) -> None:
    """MathJax takes these and KaTeX does not: a post moved from MathJax meets them first."""
    _, env = render(f"Where {tex} holds.\n")
    [message] = [d.message for d in env["diagnostics"]]
    assert message.startswith("LaTeX error: ") and fix in message


def test_an_error_in_a_math_fence_points_at_its_line_and_column(tmp_path: Path) -> None:
    text = ("---\ntitle: Fence\n---\n\n- In a list:\n\n  ```math\n  a + b \\\\\n"
            "  \\oops + c\n  ```\n")
    path = tmp_path / "fence.md"
    path.write_text(text, encoding="utf-8")
    job = SourceJob(path, "posts/fence.md", "post", "content/posts/fence.md")
    result = render_source(job, Config())
    errors = [(d.line, d.column, d.message) for d in result.diagnostics if d.is_error]
    assert errors == [(9, 3, "LaTeX error: Undefined control sequence: \\oops")]
    assert text.split("\n")[8][2:].startswith("\\oops")
    assert result.rendered is not None and "math-error" in result.rendered.html
