"""`blogbuild import`: turn a Jekyll site, a Hugo site or an Obsidian vault into posts here.

Each source has a module that finds its posts and rewrites its own syntax (`jekyll`, `hugo`,
`obsidian`); `scan` walks a body without touching code, `meta` maps front matter,
`assets` places the files posts use and `plan` puts it all together.
"""
