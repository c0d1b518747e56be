"""Graphviz graphs drawn at build time: labels sized and drawn in the same face, what a
drawing lost said at the fence's line, the renderer's own messages cleaned."""

from __future__ import annotations

import re
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from blogbuild.commands.build import build

#: Long labels in the shapes Graphviz sizes to their text: ellipses, boxes, records, edges.
LONG_LABELS = """digraph {
  a [label="A node whose label is a long sentence of many words"];
  b [shape=box, label="a box around a long label of lowercase words, as labels are"];
  c [shape=record, label="{a field of a record with a long name|another field}"];
  d [label="Multi-line label\\nwith a second line that is longer"];
  a -> b [label="an edge label of some length"];
  b -> c; c -> d;
}"""


def _metric_face() -> bool:
    """Whether the machine has a face with Helvetica's metrics for the browser."""
    try:
        found = subprocess.run(["fc-match", "-f", "%{family}", "Arial"], capture_output=True,
                               text=True, check=False).stdout
    except OSError:
        return False
    return any(face in found for face in ("Liberation Sans", "Arimo", "Arial", "Helvetica"))


def test_labels_stay_inside_their_nodes_in_the_browser(
        tmp_path: Path, http_server: Callable[..., str], browser_page: Any) -> None:
    if not _metric_face():
        pytest.skip("no face with Helvetica's metrics: install fonts-liberation (.ci/run does)")
    (tmp_path / "content" / "posts").mkdir(parents=True)
    (tmp_path / "site.yaml").write_text("title: G\nsearch: false\nsocial_cards: false\n")
    (tmp_path / "content" / "posts" / "g.md").write_text(
        f"---\ntitle: G\ndate: 2026-01-01\n---\n```dot\n{LONG_LABELS}\n```\n")
    build(tmp_path / "site.yaml")
    browser_page.goto(http_server(tmp_path / "_site") + "posts/g/")
    browser_page.wait_for_load_state("load")
    # Each text's box against its shape's, in the drawing's own units.
    spills = browser_page.evaluate("""() => {
      const out = [];
      for (const group of document.querySelectorAll(".diagram-dot svg g.node")) {
        const shape = group.querySelector("ellipse, polygon, path");
        const box = shape.getBBox();
        for (const text of group.querySelectorAll("text")) {
          const t = text.getBBox();
          const inside = t.x >= box.x - 0.5 && t.x + t.width <= box.x + box.width + 0.5;
          if (!inside) out.push([text.textContent, t.width, box.width]);
          if (shape.tagName === "ellipse") {  // its corners inside the ellipse itself
            const cx = +shape.getAttribute("cx"), rx = +shape.getAttribute("rx");
            const cy = +shape.getAttribute("cy"), ry = +shape.getAttribute("ry");
            const y = t.y + t.height / 2;  // the text's middle line
            const half = rx * Math.sqrt(Math.max(0, 1 - ((y - cy) / ry) ** 2));
            if (t.x < cx - half - 0.5 || t.x + t.width > cx + half + 0.5)
              out.push([text.textContent, t.width, 2 * half]);
          }
        }
      }
      return out;
    }""")
    texts = browser_page.evaluate(
        "() => document.querySelectorAll('.diagram-dot svg g.node text').length")
    assert texts >= 6
    assert spills == []
    face = browser_page.evaluate("""() => getComputedStyle(
      document.querySelector('.diagram-dot svg g.node text')).fontFamily""")
    assert face.startswith("Helvetica, Arial")


#: Graphviz's gallery graph "structs" (graphs/directed/structs.gv), as Graphviz ships it.
STRUCTS = """digraph structs {
node [shape=record];
    struct1 [shape=record,label="<f0> left|<f1> middle|<f2> right"];
    struct2 [shape=record,label="<f0> one|<f1> two"];
    struct3 [shape=record,label="hello\\nworld |{ b |{c|<here> d|e}| f}| g | h"];
    struct1:f1 -> struct2:f0;
    struct1:f2 -> struct3:here;
}"""


def _render(source: str) -> tuple[str, list[tuple[int, str, str]]]:
    from blogbuild.config import Config
    from blogbuild.markdown import create_markdown
    from blogbuild.pipeline.render import render_markdown

    rendered = render_markdown(create_markdown(Config()), source, file="post.md")
    return rendered.html, [(d.line, d.severity, d.message) for d in rendered.diagnostics]


def test_the_gallery_graph_structs_is_drawn_whole() -> None:
    html, problems = _render(f"```dot\n{STRUCTS}\n```\n")
    assert problems == []
    assert "struct1:f1-&gt;struct2:f0</title>" in html
    assert "struct1:f2-&gt;struct3:here</title>" in html


def test_what_a_drawing_lost_is_a_warning_in_the_authors_terms() -> None:
    """In Times (the author's face here) graphviz-pure cannot route the second edge: the
    warning names it, not the renderer's routing code."""
    timed = STRUCTS.replace("node [shape=record];", "node [shape=record, fontname=Times];")
    html, problems = _render(f"Intro.\n\n```dot\n{timed}\n```\n")
    assert problems == [(3, "warning", "this Graphviz graph was drawn with warnings: the edge "
                         "struct1:f2 -> struct3:here is not drawn (graphviz-pure could not "
                         "lay it out; another port or layout may)")]
    assert "struct1:f1-&gt;struct2:f0</title>" in html


def test_the_renderers_own_messages_are_said_once_and_only_those_an_author_can_act_on(
        ) -> None:
    _, problems = _render('```graphviz\ngraph { a -- b [arrowhead=nonsense, dir=forward];'
                          ' c [fontname="No Such Face"]; d [label="W₁ café"] }\n```\n')
    [(line, severity, message)] = problems
    assert (line, severity) == (1, "warning")
    assert message == ("this Graphviz graph was drawn with warnings: no hard-coded metrics for "
                       "'No Such Face'.  Falling back to 'Times' metrics; Arrow type "
                       "\"nonsense\" unknown - ignoring")


def test_a_text_without_a_graph_says_so_once() -> None:
    _, problems = _render("```dot\n/* a graph to come */\n```\n")
    assert problems == [(1, "error", "this Graphviz graph cannot be drawn: the text holds no "
                         "graph; write one as `digraph { a -> b }`; fix the diagram (the page "
                         "shows its text as code until then)")]


def test_a_layout_names_what_it_did_not_place() -> None:
    from blogbuild.diagrams.layout import lost

    layout = {"directed": False, "_subgraph_cnt": 1, "objects": [
        {"_gvid": 0, "name": "cluster_x", "nodes": [1]}, {"_gvid": 1, "name": "a", "pos": "1,1"},
        {"_gvid": 2, "name": "b"}], "edges": [
        {"tail": 1, "head": 2, "tailport": "p"}, {"tail": 1, "head": 1, "pos": "e,1,1 1,1"}]}
    assert lost(layout) == ["the node b", "the edge a:p -- b"]
    assert lost(None) == []


def test_the_graphs_own_faces_win_over_the_builds() -> None:
    html, problems = _render('```dot\ndigraph { node [fontname=Courier]; a; b [fontname=Times];'
                             ' c -> d [label=x] }\n```\n')
    assert problems == []
    faces = re.findall(r'font-family="([^"]+)"', html)
    assert faces == ["Courier,monospace", "Times", "Courier,monospace", "Courier,monospace",
                     "Helvetica,sans-Serif"]  # a, b, c, d, and the edge's label
