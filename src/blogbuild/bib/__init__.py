"""Bibliographies: BibTeX files read into entries (`bibtex`, `latex`), the files a post
cites from (`library`), and the CSL formatting of citations and reference lists (`style`,
which loads citeproc-py only when a post cites)."""
