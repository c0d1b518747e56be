"""The one build engine, used by `build` and `serve` alike.

discover → read front matter → decide URLs and order → render the stale sources (workers)
→ assemble the site from small records → template the stale pages (workers, each writing
its pages into a staging folder) → commit the changed files into the output folder.
See docs/architecture.md.
"""
