"""Jupyter notebooks (.ipynb) as posts and pages."""
