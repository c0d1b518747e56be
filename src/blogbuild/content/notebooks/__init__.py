"""Jupyter notebooks (.ipynb) as sources: their model, their front matter, their lines."""
