"""The search index: Pagefind's reading of each page, kept page by page, and the index
files the theme's search box loads, written by us so that an edit re-indexes one page.

- `format`: Pagefind 1.5's index files (metadata, word chunks, fragments) read and written.
- `pages`: one page's part of the index, taken from a Pagefind index of a few pages and
  kept in the result cache.
- `chunks`: the word chunks of the whole site, brought up to date from the last build's.
"""
