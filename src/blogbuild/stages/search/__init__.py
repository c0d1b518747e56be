"""Search: a Pagefind index of the bodies of posts and pages, under /pagefind/ of the output.

Only posts and pages are indexed (lists, tags, the archive and feeds repeat them). Each is
handed to Pagefind as a small HTML document made of its title, date and rendered body, with
the site's sub-path in its URL (`documents`). Pagefind reads only the pages whose part of
the index is not in the result cache (their key covers URL, title, date, body, options and
Pagefind's version; `reading`); the index files are then written by `blogbuild.search` from
every page's part, and an edit rewrites the chunks that hold the words it changed (`index`).
A build's update makes its index in a process of its own (`process`, `child`), the live
server and a first build on a thread (`indexing`). When Pagefind cannot run the build warns
and goes on without search.
"""
