"""The converters of `blogbuild import`, case by case: one source post in, its new text out."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from blogbuild.importers.plan import ImportReport, import_site
from blogbuild.importers.report import report_lines
from blogbuild.importers.write import text_of


def convert(tmp_path: Path, kind: str, files: dict[str, str | bytes]) -> ImportReport:
    """Import a source made of `files` into an empty site, writing nothing."""
    site = tmp_path / "site"
    site.mkdir()
    (site / "site.yaml").write_text("title: T\n", encoding="utf-8")
    src = tmp_path / "src"
    for name, data in files.items():
        path = src / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(data, bytes):
            path.write_bytes(data)
        else:
            path.write_text(data, encoding="utf-8")
    return import_site(kind, src, config_path=site / "site.yaml", dry_run=True)


def body(report: ImportReport, rel: str) -> str:
    post = next(p for p in report.posts if p.source.rel == rel)
    return post.body


JEKYLL_POST = "_posts/2020-01-02-a.md"
JEKYLL = [
    # (body, what the body becomes)
    ("{% highlight ruby %}\nputs 1\n{% endhighlight %}", "```ruby\nputs 1\n```"),
    ('{% highlight py hl_lines="1 3-4" %}\na\n{% endhighlight %}', "```py {1,3-4}\na\n```"),
    ("{% highlight py linenos %}\na\n{% endhighlight %}", '```py linenums="1"\na\n```'),
    ("{% highlight js %}let a = `x`;\n```\n{% endhighlight %}", "````js\nlet a = `x`;\n```\n````"),
    ("{% raw %}{{ x }}{% endraw %}", "{{ x }}"),
    ("`{{ site.baseurl }}` stays", "`{{ site.baseurl }}` stays"),
    ("```\n{{ site.baseurl }}\n```", "```\n{{ site.baseurl }}\n```"),
    ("    {% post_url 2020-01-03-b %}", "    {% post_url 2020-01-03-b %}"),
    ("[b]({% post_url 2020-01-03-b %})", "[b](2020-01-03-b.md)"),
    ("[b]({{ site.baseurl }}{% post_url 2020-01-03-b %}#x)", "[b](2020-01-03-b.md#x)"),
    ("[b]({% link _posts/2020-01-03-b.md %})", "[b](2020-01-03-b.md)"),
    ('<a href="{{ "/about/" | relative_url }}">', '<a href="/about/">'),
    ("{% include youtube.html id=\"abcdefghijk\" %}",
     '<div class="video-embed" data-src="https://www.youtube.com/watch?v=abcdefghijk"></div>'),
    ('{% include box.html text="hi" %}', "<b>hi</b>"),
    ("{% include_relative part.md %}", "*a part*"),
    ("{% gist 123 %}", "{% gist 123 %}"),
    ("{% youtube 'abcdefghijk' %}",
     '<div class="video-embed" data-src="https://www.youtube.com/watch?v=abcdefghijk"></div>'),
    ("{% vimeo 12345 %}", '<div class="video-embed" data-src="https://vimeo.com/12345"></div>'),
    ("- item\n\n    {% raw %}{{ x }}{% endraw %} in a list", "- item\n\n    {{ x }} in a list"),
    ("> ```\n> {{ site.baseurl }}\n> ```", "> ```\n> {{ site.baseurl }}\n> ```"),
    ("<pre>\n{{ site.baseurl }}\n</pre>\n{{ site.baseurl }}/x",
     "<pre>\n{{ site.baseurl }}\n</pre>\n/x"),
    ("[a page](/about.md)", "[a page](/about.md)"),
    ("[b by its old URL](/2020/01/03/b.html#part)", "[b by its old URL](2020-01-03-b.md#part)"),
]


@pytest.mark.parametrize(("text", "expected"), JEKYLL)
def test_liquid(tmp_path: Path, text: str, expected: str) -> None:
    report = convert(tmp_path, "jekyll", {
        JEKYLL_POST: "---\ntitle: A\n---\n" + text + "\n",
        "_posts/2020-01-03-b.md": "---\ntitle: B\n---\nB\n",
        "_includes/box.html": "<b>{{ include.text }}</b>\n",
        "about.md": "# About\n",
        "_posts/part.md": "*a part*\n",
    })
    assert body(report, JEKYLL_POST) == expected + "\n"


HUGO_POST = "content/posts/a.md"
HUGO = [
    ('{{< highlight go "hl_lines=2 3,linenos=table" >}}\nx\n{{< /highlight >}}',
     "```go {2,3} linenums=\"1\"\nx\n```"),
    ('{{< highlight go "linenos=true,linenostart=199" >}}\nx\n{{< /highlight >}}',
     '```go linenums="199"\nx\n```'),
    ("{{< youtube abcdefghijk >}}",
     '<div class="video-embed" data-src="https://www.youtube.com/watch?v=abcdefghijk"></div>'),
    ('{{< youtube id="abcdefghijk" >}}',
     '<div class="video-embed" data-src="https://www.youtube.com/watch?v=abcdefghijk"></div>'),
    ("{{< vimeo 12345 >}}", '<div class="video-embed" data-src="https://vimeo.com/12345"></div>'),
    ('{{< figure src="/i/p.png" alt="A [b]" caption="Say \\"hi\\"" >}}',
     '![A \\[b\\]](p.png "Say \\"hi\\"")'),
    ('[b]({{< ref "b.md" >}})', "[b](2020-01-03-b.md)"),
    ('[b]({{< relref "/posts/b" >}}#x)', "[b](2020-01-03-b.md#x)"),
    ('{{< readfile file="data/t.md" >}}', "*included*"),
    ("`{{</* youtube x */>}}`", "`{{< youtube x >}}`"),
    ("{{< tweet 1 >}}", "{{< tweet 1 >}}"),
    ("`{{< youtube abcdefghijk >}}`", "`{{< youtube abcdefghijk >}}`"),
]


@pytest.mark.parametrize(("text", "expected"), HUGO)
def test_shortcodes(tmp_path: Path, text: str, expected: str) -> None:
    report = convert(tmp_path, "hugo", {
        HUGO_POST: "---\ntitle: A\ndate: 2020-01-02\n---\n" + text + "\n",
        "content/posts/b.md": "+++\ntitle = 'B'\ndate = 2020-01-03\n+++\nB\n",
        "static/i/p.png": b"png",
        "data/t.md": "*included*\n",
    })
    assert body(report, HUGO_POST) == expected + "\n"


NOTE = "A.md"
OBSIDIAN = [
    # B's title is its name, which the build finds: the links stay as written.
    ("[[B]]", "[[B]]"),
    ("[[B|the other]]", "[[B|the other]]"),
    ("[[B#Part]]", "[[B#Part]]"),
    # C's title is not its name: the links name its new slug, with \| in a table row.
    ("[[C]]", "[[c|C]]"),
    ("[[C#Part|there]]", "[[c#Part|there]]"),
    ("| x | [[C]] |", "| x | [[c\\|C]] |"),
    ("[[Nowhere]]", "[[Nowhere]]"),
    ("![[p.png]]", "![p](p.png)"),
    ("![[p.png|A picture]]", "![A picture](p.png)"),
    ("![[B]]", "![[B]]"),
    ("%% hidden %%", "%% hidden %%"),
    ("> [!tip] T\n> x", "> [!tip] T\n> x"),
    ("`[[B]]`", "`[[B]]`"),
    ("| ![[p.png\\|alt]] | [[B\\|b]] |", "| ![alt](p.png) | [[B\\|b]] |"),
    ("[b](B.md)", "[b](2020-01-03-b.md)"),
]


@pytest.mark.parametrize(("text", "expected"), OBSIDIAN)
def test_obsidian(tmp_path: Path, text: str, expected: str) -> None:
    report = convert(tmp_path, "obsidian", {
        NOTE: "---\ndate: 2020-01-02\n---\n" + text + "\n",
        "B.md": "---\ndate: 2020-01-03\n---\nB\n",
        "C.md": "---\ntitle: Another title\ndate: 2020-01-04\n---\nC\n",
        "files/p.png": b"png",
    })
    assert body(report, NOTE).removeprefix("\n") == expected + "\n"


FRONT = [
    # (Jekyll front matter, lines the new front matter must hold)
    ("title: x\ncategories: a b\ntags: c", ["title: x", "tags: [c, a, b]"]),
    ("title: 'no'\npublished: false", ['title: "no"', "draft: true"]),
    ("title: T\nlast_modified_at: 2020-02-03", ["updated: 2020-02-03"]),
    ("title: T\nexcerpt: One\n  two", ["description: One two"]),
    ("title: T\nheader:\n  image: /h.png", ['image: "/h.png"']),
    ("title: T\nredirect_from: /old/", ['aliases: ["/2020/01/02/a.html", "/old/"]']),
    ("title: T\ncustom:\n  deep: [1, 2]", ["custom:", "  deep:"]),
    ("title: 'A: b # c'", ['title: "A: b # c"']),
    ("date: 2020-01-02 09:30:00 +0100", ["date: 2020-01-02T09:30:00+01:00"]),
    ("title: T\npermalink: /notes/:year/:title/", ['aliases: ["/notes/2020/a/"]']),
]


@pytest.mark.parametrize(("front", "lines"), FRONT)
def test_front_matter(tmp_path: Path, front: str, lines: list[str]) -> None:
    report = convert(tmp_path, "jekyll", {
        JEKYLL_POST: f"---\n{front}\n---\nText\n",
        "_config.yml": "permalink: /:year/:month/:day/:title.html\n"})
    new = text_of(report.posts[0])
    for line in lines:
        assert "\n" + line + "\n" in new, new


def test_toml_and_json_front_matter(tmp_path: Path) -> None:
    report = convert(tmp_path, "hugo", {
        "content/posts/t.md": '+++\ntitle = "T"\ndate = 2021-01-02T03:04:05Z\n'
                              'tags = ["x"]\n[params]\n  a = 1\n+++\nBody\n',
        "content/posts/j.md": '{\n  "title": "J",\n  "date": "2021-02-03"\n}\nBody\n',
    })
    texts = {p.source.rel: text_of(p) for p in report.posts}
    assert texts["content/posts/t.md"].startswith(
        '---\ntitle: T\ndate: 2021-01-02T03:04:05+00:00\ntags: [x]\n')
    assert "params:\n  a: 1\n" in texts["content/posts/t.md"]
    assert texts["content/posts/j.md"].startswith("---\ntitle: J\ndate: 2021-02-03\n")


def test_a_date_that_is_not_one(tmp_path: Path) -> None:
    report = convert(tmp_path, "jekyll", {JEKYLL_POST: "---\ntitle: A\ndate: soon\n---\nA\n"})
    post = report.posts[0]
    assert post.meta["date"] == dt.date(2020, 1, 2)
    assert [n.what for n in post.notes] == ["'date: soon' is not a date; ignored"]


def test_a_body_that_starts_with_a_tag_has_no_front_matter(tmp_path: Path) -> None:
    report = convert(tmp_path, "hugo", {
        "content/posts/2020-01-01-a.md": "{{< youtube abcdefghijk >}}\n"})
    assert report.posts[0].body.startswith('<div class="video-embed"')


def test_notes_name_the_source_line(tmp_path: Path) -> None:
    report = convert(tmp_path, "jekyll", {
        JEKYLL_POST: "---\ntitle: A\n---\n\nText\n\n{% gist 1 %} and {{ page.x }}\n"})
    notes = [(n.line, n.what.split(":")[0]) for n in report.posts[0].notes]
    assert notes == [(7, "Liquid tag {% gist 1 %}"), (7, "Liquid output {{ page.x }}")]


def test_one_spelling_per_tag(tmp_path: Path) -> None:
    report = convert(tmp_path, "jekyll", {
        "_posts/2020-01-01-a.md": "---\ntitle: A\ntags: [Python, ML]\n---\nA\n",
        "_posts/2020-01-02-b.md": "---\ntitle: B\ncategories: python ml\n---\nB\n",
    })
    assert [p.meta["tags"] for p in report.posts] == [["Python", "ML"], ["Python", "ML"]]


def test_the_report_prints_no_control_characters(tmp_path: Path) -> None:
    report = convert(tmp_path, "obsidian", {"\x1b[31mred.md": "---\ndate: 2020-01-01\n---\n"
                                                              "[[\x1b]0;title\x07]]\n"})
    lines = report_lines(report)
    assert lines and not any(c in line for line in lines for c in "\x1b\x07")


def test_values_the_build_would_refuse_are_dropped(tmp_path: Path) -> None:
    report = convert(tmp_path, "jekyll", {JEKYLL_POST: (
        "---\ntitle: T\ncomments: disqus\nexcerpt: [a, b]\nimage: javascript:alert(1)\n"
        "---\nA\n")})
    post = report.posts[0]
    assert not {"comments", "description", "image"} & set(post.meta)
    assert [n.what for n in post.notes] == [
        "'comments: disqus' is not true or false; dropped",
        "'description' is not text; dropped",
        "the image 'javascript:alert(1)' is not a path or an http(s) URL; dropped",
    ]


def test_hugo_without_a_posts_section_takes_every_section(tmp_path: Path) -> None:
    report = convert(tmp_path, "hugo", {
        "config.toml": '[permalinks]\n  blog = "/:year/:slug/"\n',
        "content/about.md": "---\ntitle: About\n---\n",
        "content/blog/_index.md": "---\ntitle: Blog\n---\n",
        "content/blog/x.md": "---\ntitle: X\ndate: 2021-01-01\n---\n",
        "content/notes/deep/y/index.md": "---\ntitle: Y\ndate: 2021-01-02\n---\n![p](p.png)\n",
        "content/notes/deep/y/p.png": b"png",
        "content/notes/deep/y/extra.md": "a resource, not a post\n",
    })
    assert [(p.source.rel, p.dest, p.meta.get("aliases")) for p in report.posts] == [
        ("content/blog/x.md", "posts/2021-01-01-x.md", ["/2021/x/"]),
        ("content/notes/deep/y/index.md", "posts/2021-01-02-y/index.md", ["/notes/deep/y/"]),
    ]
    assert list(report.files.values()) == ["posts/2021-01-02-y/p.png"]
    assert sorted(n.what.split(":")[0] for n in report.skipped) == [
        "content/about.md", "content/blog/_index.md"]


def test_old_urls_the_new_site_makes_itself_are_not_kept() -> None:
    """Obsidian Publish's `permalink: /` (the home note) and `permalink: tags` would collide
    with the home page and the tags index: no redirect, and the report says so."""
    from blogbuild.importers.meta import alias_list
    from blogbuild.importers.scan import Outcome

    outcome = Outcome()
    kept = alias_list("/", ["tags", "/archive/", "/old/post/", "feed.xml"], "/old/post",
                      outcome=outcome)
    assert kept == ["/old/post/", "/old/post"]
    assert len(outcome.notes) == 4
    assert all("no redirect is kept" in note.what for note in outcome.notes)
