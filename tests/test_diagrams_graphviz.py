"""Graphviz graphs drawn at build time: labels sized and drawn in the same face, what a
drawing lost said at the fence's line, the renderer's own messages cleaned."""

from __future__ import annotations

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
