"""Diagrams drawn at build time as SVG: Mermaid (mmdr) and Graphviz's dot (graphviz-pure),
each in a process of its own with a time and memory limit (blogbuild.markdown.diagrams
puts them in the page)."""
