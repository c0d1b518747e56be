"""Diagrams drawn at build time: every Mermaid type GitHub documents, Graphviz, the SVG
made safe and unique on its page, errors at their lines, limits, figures."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from blogbuild import diskcache
from blogbuild.commands.build import build
from blogbuild.config import Config
from blogbuild.diagnostics import BuildFailed
from blogbuild.diagrams import draw as draw_module
from blogbuild.diagrams.draw import draw
from blogbuild.diagrams.svg import adapt
from blogbuild.markdown import create_markdown
from blogbuild.pipeline.render import render_markdown

CORPUS = Path(__file__).parent / "fixtures" / "diagrams"
#: The text of every label that Mermaid 12.3 itself (in Chromium) drew for each diagram.
LABELS = json.loads((CORPUS / "labels.json").read_text(encoding="utf-8"))
SVG = "{http://www.w3.org/2000/svg}"


def _texts(svg: str) -> str:
    root = ET.fromstring(svg)
    return " ".join(" ".join(e.itertext()) for e in root.iter()
                    if e.tag in (f"{SVG}text", f"{SVG}tspan", f"{SVG}title", f"{SVG}desc"))


@pytest.mark.parametrize("name", sorted(LABELS))
def test_every_mermaid_type_is_drawn_with_every_label(name: str) -> None:
    text = (CORPUS / f"{name}.mmd").read_text(encoding="utf-8")
    drawn = draw("mermaid", text)
    assert drawn.error == "" and drawn.svg
    svg = adapt(drawn.svg, "d1")
    found = " ".join(_texts(svg).split())
    missing = [label for label in LABELS[name] if " ".join(label.split()) not in found]
    assert missing == []
    root = ET.fromstring(svg)
    assert root.get("role") == "img" and root.get("width") == "100%"
    assert not list(root.iter(f"{SVG}foreignObject")) and not list(root.iter(f"{SVG}script"))


def _render(source: str) -> tuple[str, list[tuple[int, str]]]:
    md = create_markdown(Config())
    rendered = render_markdown(md, source, file="post.md")
    return rendered.html, [(d.line, d.message) for d in rendered.diagnostics]


def test_a_page_of_diagrams_has_unique_ids_a_figure_and_both_themes() -> None:
    html, problems = _render(
        "See [](#fig-flow).\n\n```mermaid {#fig-flow title=\"How it flows\"}\n"
        "flowchart LR\n  A --> B\n```\n\n```mermaid\nflowchart LR\n  A --> B\n```\n\n"
        "```dot\ndigraph { a -> b [label=\"an edge\"] }\n```\n")
    assert problems == []
    assert '<a href="#fig-flow" class="xref" data-xref="figure">Figure 1</a>' in html
    assert '<figure class="figure diagram diagram-mermaid" id="fig-flow">' in html
    assert "<figcaption><span class=\"figure-number\">Figure 1.</span> How it flows" in html
    ids = re.findall(r'\sid="([^"]+)"', html)
    assert len(ids) == len(set(ids))  # two drawings of the same text, each its own ids
    assert html.count('class="diagram-light only-light"') == 2
    assert html.count('class="diagram-dark only-dark"') == 2
    assert "<title" in html and "How it flows</title>" in html
    md = create_markdown(Config())
    previews = render_markdown(md, "See [](#fig-flow).\n\n```mermaid {#fig-flow title=\"T\"}\n"
                               "flowchart LR\n  A --> B\n```\n", page_url="/p/").snippets
    assert previews == (("fig-flow", '<figure class="figure">\n<figcaption><span class='
                         '"figure-number">Figure 1.</span> T</figcaption>\n</figure>'),)
    assert "an edge" in html and 'class="diagram diagram-dot"' in html


def test_labels_are_text_and_links_only_what_our_link_rules_accept() -> None:
    html, _ = _render((CORPUS / "23_click_html.mmd").read_text().join(
        ["```mermaid\n", "```\n"]) + "\n```dot\ndigraph { a [URL=\"javascript:alert(1)\"]; "
        "b [href=\"https://example.org/b\"]; c [image=\"/etc/passwd\"]; a -> b -> c }\n```\n")
    assert "<script" not in html and "javascript:" not in html and " onclick" not in html
    assert "https://example.org/b" in html
    assert "/etc/passwd" not in html and "root:" not in html


def test_a_syntax_error_is_an_error_at_its_line_and_the_text_stays_as_code() -> None:
    source = ("Intro.\n\n```mermaid\nflowchart LR\n  A --> B[oops\n```\n\n"
              "```dot\ndigraph {\n  a -> b\n  c -> }\n}\n```\n")
    html, problems = _render(source)
    # Mermaid's parser names the line mmdr does not (the end of the input: the label's).
    assert [line for line, _ in problems] == [5, 11]
    assert problems[0][1].startswith("this Mermaid diagram cannot be drawn (line 2 of the "
                                     "diagram): ")
    assert "Unterminated node label" in problems[0][1]
    assert "(Mermaid's parser refuses it too: expecting 'SQE'" in problems[0][1]
    assert problems[1][1].startswith("this Graphviz graph cannot be drawn (line 3 of the "
                                     "diagram): ")
    assert html.count('<pre class="highlight">') == 2 and "A --&gt; B[oops" in html



def test_quartos_fences_are_code_not_diagrams() -> None:
    """`{dot}` is a block Quarto runs, `{{dot}}` one it shows as code: neither is drawn
    (a Quarto reader comes later); Pandoc's class form `{.mermaid}` is a diagram."""
    fences = ["{dot}", "{{dot}}", "{mermaid}", "{{mermaid}}", "{graphviz}"]
    source = "\n".join(f"```{info}\ndigraph {{ a -> b }}\n```\n" for info in fences)
    html, problems = _render(source + "\n```{.mermaid}\nflowchart LR\n  A --> B\n```\n")
    assert html.count('<pre class="highlight">') == len(fences)
    assert html.count("digraph { a -&gt; b }") == len(fences)
    assert html.count("<svg") == 2 and 'class="diagram diagram-mermaid"' in html
    # What the code blocks say of any info string they do not read, and nothing else.
    assert all(message.startswith("the code block's info string has '{")
               for _, message in problems)

#: Diagrams that begin with their own front matter, as Mermaid's documentation writes most
#: of its examples: a title, settings of the diagram's type, the look, a theme of its own.
FRONT_MATTER = {
    "flowchart": "---\ntitle: Order flow\nconfig:\n  flowchart:\n    curve: linear\n---\n"
                 "flowchart LR\n  Cart --> Checkout --> Paid\n",
    "gantt": "---\ndisplayMode: compact\n---\ngantt\n  title Release\n  dateFormat "
             "YYYY-MM-DD\n  section Build\n    Write :a1, 2026-01-01, 3d\n    Test :after a1, 2d\n",
    "xychart": "---\nconfig:\n  xyChart:\n    width: 500\n  themeVariables:\n    xyChart:\n"
               "      plotColorPalette: '#ff0000'\n---\nxychart-beta\n  title \"Sales\"\n"
               "  x-axis [jan, feb, mar]\n  y-axis \"Units\" 0 --> 10\n  bar [3, 7, 5]\n",
    "class": "\n---\ntitle: Animals\n---\nclassDiagram\n  Animal <|-- Duck\n  class Duck {\n"
             "    +swim()\n  }\n",
    "empty": "---\n---\nsequenceDiagram\n  Alice->>Bob: Hi\n",
}


@pytest.mark.parametrize("name", sorted(FRONT_MATTER))
def test_a_diagram_with_its_own_front_matter_is_drawn_in_both_themes(name: str) -> None:
    html, problems = _render(f"```mermaid\n{FRONT_MATTER[name]}```\n")
    assert problems == []
    assert html.count('class="diagram-light only-light"') == 1
    assert html.count('class="diagram-dark only-dark"') == 1
    light, dark = (draw("mermaid", FRONT_MATTER[name], theme) for theme in ("default", "dark"))
    assert light.svg and dark.svg and light.svg != dark.svg
    # The theme's face, wherever the type draws it without front matter.
    bare = draw("mermaid", FRONT_MATTER[name].lstrip("\n").split("---\n", 2)[2], "default")
    face = "font-family:system-ui,-apple-system"
    assert bare.svg and (face in light.svg) == (face in bare.svg)
    title = re.search(r"^title: (.+)$", FRONT_MATTER[name], re.MULTILINE)
    if title:
        assert title[1] in _texts(adapt(light.svg, "d1"))


def test_the_authors_front_matter_settings_win_and_lines_keep_their_numbers() -> None:
    text = ("---\ntitle: T\nconfig:\n  theme: forest\n  themeVariables:\n"
            "    fontFamily: serif\n    primaryColor: '#ff0000'\n---\nflowchart LR\n  A --> B\n")
    source, added = draw_module.themed(text, "dark")
    assert added == 0 and source.count("\n") == text.count("\n")
    assert source.splitlines()[8:] == text.splitlines()[8:]
    config = json.loads(source.splitlines()[1])["config"]
    assert config == {"theme": "forest", "themeVariables": {
        "fontFamily": "serif", "primaryColor": "#ff0000"}}
    # Both drawings in the author's theme, as with the author's own directive.
    light, dark = (draw_module._mermaid(text, theme).svg for theme in ("default", "dark"))
    assert light and light == dark
    # Without front matter, Mermaid's directive goes first: one line more.
    plain, added = draw_module.themed("flowchart LR\n  A --> B\n", "dark")
    assert added == 1 and plain.startswith("%%{init: ") and plain.endswith("A --> B\n")
    # What is not a mapping of settings is left to the renderer to judge.
    for odd in ("---\n: : [\n---\nflowchart LR\n", "---\nconfig: 3\n---\nflowchart LR\n"):
        assert draw_module.themed(odd, "dark") == (odd, 0)


def test_a_drawing_that_takes_too_long_is_stopped(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(draw_module, "TIMEOUT", 0.5)
    edges = " ".join(f"n{i} -> n{(i * 7 + j) % 1500};" for i in range(1500) for j in (1, 3))
    drawn = draw_module._dot("digraph { " + edges + " }")
    assert drawn.svg == "" and drawn.error.startswith("took longer than")


def test_a_drawing_is_held_to_its_memory(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(draw_module, "MEMORY", 24 * 1024 * 1024)  # not enough for mmdr
    drawn = draw_module._mermaid("flowchart LR\n  A --> B\n", "default")
    assert drawn.svg == "" and drawn.error.startswith("needed more than")


def test_a_diagram_is_drawn_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    diskcache.set_cache_dir(tmp_path)
    try:
        text = "flowchart LR\n  Once --> Only\n"
        first = draw("mermaid", text)
        monkeypatch.setattr(draw_module.drawer, "draw", lambda *a, **k: pytest.fail("drawn again"))
        diskcache.flush()
        assert draw("mermaid", text) == first
    finally:
        diskcache.close()
        diskcache.set_cache_dir(None)


def test_answers_that_come_together_are_each_taken_at_once() -> None:
    """Diagrams refused at once answer together: each answer is read as it is there, not
    after the time limit (a buffered read took them all, and the wait for the second saw
    nothing more come)."""
    import time

    texts = [draw_module.themed(f"usecase{n}\n  actor A\n", theme)[0]
             for n in range(3) for theme in ("default", "dark")]
    own = draw_module.drawer.Drawer(draw_module.drawer._RUNNER)
    try:
        start = time.monotonic()
        answers = own.draw([("mermaid", text, "") for text in texts], timeout=5,
                           memory=draw_module.MEMORY)
        took = time.monotonic() - start
    finally:
        own.close()
    assert [answer[2].strip() for answer in answers] == [
        "ValueError: No Mermaid diagram type detected"] * len(texts)
    assert took < 4


def test_a_built_page_shows_the_diagram_and_a_broken_one_fails_the_build(
        tmp_path: Path) -> None:
    (tmp_path / "content" / "posts").mkdir(parents=True)
    (tmp_path / "site.yaml").write_text("title: D\nsearch: false\nsocial_cards: false\n")
    post = tmp_path / "content" / "posts" / "d.md"
    post.write_text("---\ntitle: D\ndate: 2026-01-01\n---\n```mermaid\npie\n  \"a\" : 1\n"
                    "  \"b\" : 2\n```\n")
    report = build(tmp_path / "site.yaml")
    assert report.diagnostics == []
    page = (tmp_path / "_site" / "posts" / "d" / "index.html").read_text()
    assert 'class="diagram diagram-mermaid"' in page and "<svg" in page
    stylesheet = re.search(r'<link rel="stylesheet" href="/(css/bundle\.[0-9a-f]+\.css)"', page)
    assert stylesheet and ".diagram-scroll" in (tmp_path / "_site" / stylesheet[1]).read_text()
    post.write_text(post.read_text().replace("pie", "pie\n  title", 1).replace(": 1", ": x"))
    with pytest.raises(BuildFailed):
        build(tmp_path / "site.yaml")


def test_a_diagram_the_build_cannot_draw_is_left_to_mermaids_own_script(tmp_path: Path) -> None:
    """mmdr cannot read this date; Mermaid's parser accepts the chart (a browser reads it)."""
    (tmp_path / "content" / "posts").mkdir(parents=True)
    (tmp_path / "site.yaml").write_text("title: D\nsearch: false\nsocial_cards: false\n")
    (tmp_path / "content" / "posts" / "new.md").write_text(
        "---\ntitle: New\ndate: 2026-01-02\n---\nText.\n\n```mermaid\ngantt\n  section S\n"
        "  Task : January 5 2024, 3d\n```\n")
    (tmp_path / "content" / "posts" / "old.md").write_text(
        "---\ntitle: Old\ndate: 2026-01-01\n---\n```mermaid\nflowchart LR\n  A --> B\n```\n")
    report = build(tmp_path / "site.yaml")
    [warning] = report.diagnostics
    assert (warning.file, warning.line) == ("content/posts/new.md", 7)
    assert "cannot draw this Mermaid diagram, which Mermaid accepts" in warning.message
    site = tmp_path / "_site"
    new = (site / "posts" / "new" / "index.html").read_text()
    assert ('<pre class="mermaid-fallback">gantt\n  section S\n  Task : January 5 2024, 3d\n'
            '</pre>') in new
    assert '<script src="/vendor/mermaid/mermaid.min.js" defer></script>' in new
    assert "mermaid.min.js" not in (site / "posts" / "old" / "index.html").read_text()
    assert (site / "vendor" / "mermaid" / "mermaid.min.js").stat().st_size > 1_000_000
    assert (site / "vendor" / "mermaid" / "LICENSE").is_file()
    assert (site / "js" / "mermaid.js").is_file()


def test_drawings_are_the_same_bytes_every_time_in_the_themes_face() -> None:
    er = (CORPUS / "05_er.mmd").read_text()
    mermaid = [draw_module._mermaid(er, "dark").svg for _ in range(2)]
    graph = "digraph { a -> b -> c; a -> c [label=\"short\"] }"
    dot = [draw_module._dot(graph).svg for _ in range(2)]
    assert mermaid[0] and mermaid[0] == mermaid[1] and dot[0] and dot[0] == dot[1]
    assert "font-family:system-ui,-apple-system" in mermaid[0]  # the theme's face
    assert 'font-family="Helvetica,sans-Serif"' in dot[0]  # sized by its metrics


def test_a_page_of_every_kind_of_diagram_is_valid_html(tmp_path: Path) -> None:
    """Renderers write attributes SVG does not have (Mermaid's `name`, positions on
    groups) and, in mind maps, one id twice: none of it reaches the page."""
    from quality_tools import nu_errors

    (tmp_path / "content" / "posts").mkdir(parents=True)
    (tmp_path / "site.yaml").write_text("title: D\nsearch: false\nsocial_cards: false\n")
    fences = [f"```mermaid\n{p.read_text().strip()}\n```\n" for p in sorted(CORPUS.glob("*.mmd"))]
    fences.append('```dot\ndigraph { node [shape=record]; a [label="{x|y}"]; subgraph '
                  'cluster_0 { b; c } a -> b [label="e"]; b -> c [URL="https://x.org"] }\n```\n')
    (tmp_path / "content" / "posts" / "all.md").write_text(
        "---\ntitle: All\ndate: 2026-01-01\n---\n" + "\n".join(fences))
    build(tmp_path / "site.yaml")
    assert nu_errors(tmp_path / "_site" / "posts" / "all") == []


def _children(parent: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == parent:
                found.append(int(entry.name))
    return found


def test_a_renderer_dies_with_the_process_that_waits_for_it() -> None:
    """A worker killed (Ctrl-C, SIGTERM, a cancelled live-server run) leaves no renderer."""
    import subprocess
    import sys
    import time

    script = ("from blogbuild.diagrams import drawer as d; "
              "d.launch(['/bin/sleep', '60'], 2**30, {'PATH': '/bin'}).wait()")
    parent = subprocess.Popen([sys.executable, "-c", script])
    deadline = time.monotonic() + 10
    while not (children := _children(parent.pid)) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert children, "the renderer never started"
    time.sleep(0.3)  # past the launcher's exec
    parent.kill()
    parent.wait()
    deadline = time.monotonic() + 5
    while any(Path(f"/proc/{pid}").exists() for pid in children) and time.monotonic() < deadline:
        time.sleep(0.05)
    alive = [p for p in children if Path(f"/proc/{p}").exists()
             and "Z" not in (Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()[:1])]
    assert alive == []
