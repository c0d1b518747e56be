"""Write the example blog's notebook post, run by Jupyter so its outputs are the real thing.

    pip install nbformat nbclient ipykernel matplotlib pandas
    python3 scripts/make_example_notebook.py   # writes content/posts/2025-03-25-least-squares.ipynb

The notebook is what an author would save from Jupyter: front matter in a first raw cell,
prose with math, a callout and a footnote, and code cells whose stored outputs are of
every kind a blog shows (printed text, a warning on stderr, a pandas table, a Matplotlib
figure, LaTeX, Markdown, an error with IPython's colours), with tags and Quarto options.
blogbuild itself never needs these packages to build it: the site shows the stored
outputs (`execute: never`).

The data is seeded and the figure saved without a date, but Jupyter writes ids and
timings of its own: re-running the script writes a notebook that may differ in those.
"""

from __future__ import annotations

from pathlib import Path

import nbformat
from nbclient import NotebookClient
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_raw_cell

OUT = Path(__file__).resolve().parent.parent / "content" / "posts" / \
    "2025-03-25-least-squares.ipynb"

FRONT = """---
title: Least squares, in a notebook
date: 2025-03-25
tags: [notebooks, python, statistics]
description: A Jupyter notebook published as a post, with its stored outputs.
---"""

INTRO = r"""This post is a Jupyter notebook: blogbuild read the `.ipynb` file and shows the
outputs Jupyter stored, without running anything. The prose cells are Markdown of the
blog like any other post's, with math, callouts and links to [other posts](
2025-03-20-diagrams.md).

> [!TIP]
> The buttons above the post download the notebook. Tags such as `hide-input` and
> Quarto's `#| code-fold: true` fold code away, like the imports below.

We fit a line $y = \beta_0 + \beta_1 x$ to noisy points by minimising the squared
error[^gauss]:

$$
\hat\beta = \arg\min_\beta \lVert y - X\beta \rVert_2^2 .
$$

[^gauss]: Legendre published the method in 1805; Gauss said he had used it since 1795."""

IMPORTS = """#| code-fold: true
#| code-summary: "Imports"
import warnings

import matplotlib
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from IPython.display import Latex, Markdown

matplotlib.rcParams["svg.hashsalt"] = "blogbuild"
plt.rcParams["figure.dpi"] = 100"""

DATA = """rng = np.random.default_rng(7)
x = np.linspace(0, 10, 40)
y = 1.5 + 0.8 * x + rng.normal(0, 1.2, x.size)
print(f"{x.size} points, x from {x.min():.0f} to {x.max():.0f}")
print(f"mean of y: {y.mean():.3f}")"""

TABLE = """df = pd.DataFrame({"x": x, "y": y, "y squared": y ** 2})
df.head()"""

FIT = """X = np.column_stack([np.ones_like(x), x])
beta, residuals, rank, _ = np.linalg.lstsq(X, y, rcond=None)
if residuals[0] > 10:
    warnings.warn(f"residual sum of squares: {residuals[0]:.1f}", stacklevel=1)
print("intercept:", round(beta[0], 3))
print("slope:    ", round(beta[1], 3))"""

PLOT = """#| fig-cap: "The points and the fitted line."
#| fig-alt: "Forty points rising from left to right around a straight fitted line."
fig, ax = plt.subplots(figsize=(6.4, 3.6))
ax.scatter(x, y, s=14, label="data")
ax.plot(x, X @ beta, color="C1", label=f"fit: {beta[0]:.2f} + {beta[1]:.2f}x")
ax.set_xlabel("x")
ax.set_ylabel("y")
ax.legend()
plt.show()"""

LATEX = r"""Latex(r"$$\hat\beta = (X^\top X)^{-1} X^\top y = "
      rf"\begin{{pmatrix}} {beta[0]:.3f} \\ {beta[1]:.3f} \end{{pmatrix}}$$")"""

MARKDOWN = """Markdown(
    "| quantity | value |\\n|---|---|\\n"
    f"| intercept | {beta[0]:.3f} |\\n| slope | {beta[1]:.3f} |\\n"
    f"| points | {x.size} |"
)"""

WRONG = r"""## When it goes wrong

The normal equations need $X^\top X$ to be invertible. With a column of zeros it is
not, and NumPy says so (the cell is tagged `raises-exception`, so the notebook goes on):"""

ERROR = """singular = np.column_stack([np.ones_like(x), np.zeros_like(x)])
np.linalg.inv(singular.T @ singular)"""

HIDDEN = """#| echo: false
print("This cell's code is hidden (#| echo: false); only what it printed is shown.")"""

END = """That is the whole notebook. Its outputs were stored by Jupyter; change
`execute:` in the front matter to `always` to have the build run it instead."""


def build() -> nbformat.NotebookNode:
    cells = [
        new_raw_cell(FRONT),
        new_markdown_cell(INTRO),
        new_code_cell(IMPORTS),
        new_code_cell(DATA),
        new_code_cell(TABLE),
        new_markdown_cell("## The fit\n\nThe least-squares solution, with NumPy:"),
        new_code_cell(FIT),
        new_code_cell(PLOT),
        new_markdown_cell("A library can show its results as LaTeX or Markdown; they are "
                          "typeset with the page:"),
        new_code_cell(LATEX),
        new_code_cell(MARKDOWN),
        new_markdown_cell(WRONG),
        new_code_cell(ERROR, metadata={"tags": ["raises-exception"]}),
        new_code_cell(HIDDEN),
        new_markdown_cell(END),
    ]
    notebook = new_notebook(cells=cells, metadata={
        "kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"},
        "language_info": {"name": "python"},
    })
    for number, cell in enumerate(notebook.cells, 1):
        cell["id"] = f"cell-{number}"  # stable ids: re-running changes outputs only
    return notebook


def main() -> None:
    notebook = build()
    NotebookClient(notebook, timeout=120, kernel_name="python3", allow_errors=False,
                   resources={"metadata": {"path": str(OUT.parent)}}).execute()
    for cell in notebook.cells:
        cell.get("metadata", {}).pop("execution", None)  # run times: noise in a diff
    OUT.write_text(nbformat.writes(notebook) + "\n", encoding="utf-8")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
