"""Charts: Vega and Vega-Lite specs drawn to SVG at build time (vl-convert, in a drawing
process of the worker's), Plotly figures and Bokeh documents carried as data; each made
live in the reader's browser by its library, self-hosted and loaded on demand."""
