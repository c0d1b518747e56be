"""Markdown written for other generators (syntax.md §7): native forms and the warnings."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import html5lib
import pytest
from markdown_it.utils import read_fixture_file

from blogbuild.callout_icons import ICONS
from blogbuild.markdown import create_markdown
from blogbuild.pipeline.render import render_markdown

FIXTURES = Path(__file__).parent / "fixtures"
PLUGINS = ["admonitions", "comments", "deflist", "attrs", "foreign"]
CASES = [
    pytest.param(name, *case[1:], id=f"{name}-{case[0]}-{case[1]}")
    for name in PLUGINS
    for case in read_fixture_file(FIXTURES / f"{name}.md")
]
MD = create_markdown()


def abbreviate_icons(html: str) -> str:
    for name, icon in ICONS.items():
        html = html.replace(icon, f"[icon:{name}]")
    return html


def warnings_of(source: str, **env: Any) -> list[tuple[int, str]]:
    rendered = render_markdown(MD, source, file="p.md", **env)
    return [(d.line, d.message) for d in rendered.diagnostics]


@pytest.mark.parametrize(("plugin", "title", "source", "expected"), CASES)
def test_fixture(plugin: str, title: str, source: str, expected: str) -> None:
    html = MD.render(source, {})
    assert abbreviate_icons(html) == expected
    html5lib.HTMLParser(strict=True).parseFragment(html)  # raises on any parse error


def test_unknown_admonition_type_warns_like_a_callout() -> None:
    ((line, message),) = warnings_of("Intro.\n\n!!! notte\n    Body.\n", line_offset=3)
    assert line == 6
    assert "unknown callout type '!!! notte'" in message
    assert "did you mean '!!! NOTE'?" in message


def test_percent_signs_in_math_are_not_a_comment() -> None:
    html = MD.render("$a %% b$ and %% hidden %% text\n", {})
    assert "a %% b</annotation>" in html
    assert "and  text" in html


def test_unclosed_comment_block_warns_and_shows_the_text() -> None:
    source = "Text.\n\n%% draft starts here\nand never ends.\n"
    rendered = render_markdown(MD, source, file="p.md", line_offset=2)
    assert "draft starts here" in rendered.html
    ((line, message),) = [(d.line, d.message) for d in rendered.diagnostics]
    assert line == 5
    assert "'%%' opens a comment that is never closed" in message


def test_refused_attributes_are_named_in_a_warning() -> None:
    source = 'Text.\n{: .ok style="color:url(x)" onclick="x()" src=a.png}\n'
    ((line, message),) = warnings_of(source, line_offset=4)
    assert line == 6
    assert "refused style, onclick, src" in message


def test_unreadable_attribute_list_and_definitions_are_named() -> None:
    ((line, message),) = warnings_of("Text.\n{: .ok myref}\n")
    assert line == 2
    assert message.startswith("attribute list {: .ok myref}: cannot read myref (")


def test_attribute_list_between_blank_lines_warns() -> None:
    ((line, message),) = warnings_of("One.\n\n{: .lost}\n\nTwo.\n")
    assert line == 3
    assert "belongs to no block" in message


def test_duplicate_heading_ids_stay_unique_and_warn() -> None:
    rendered = render_markdown(MD, "## A {#x}\n\n## B {#x}\n\n## x\n", file="p.md")
    assert [e.id for e in rendered.toc] == ["x", "x-1", "x-2"]
    ((line, message),) = [(d.line, d.message) for d in rendered.diagnostics]
    assert line == 3
    assert "heading id #x is already used" in message


def test_no_toc_headings_stay_out_of_the_toc_and_keep_their_anchor() -> None:
    rendered = render_markdown(MD, "## Contents\n{: .no_toc}\n\n## One\n", file="p.md")
    assert [e.id for e in rendered.toc] == ["one"]
    assert 'id="contents"' in rendered.html
    assert "contents" in rendered.anchors


WARNED = [
    ("{% highlight python linenos %}\nx = 1\n{% endhighlight %}\n", 1,
     "Liquid tag {% highlight %} does not run in blogbuild (shown as text); write a fenced "
     "code block: ```python … ```"),
    ("Intro.\n\n{% include figure.html src=x %}\n", 3, "the HTML the include produced"),
    ("{% raw %}{{ page.title }}{% endraw %}\n", 1, "delete {% raw %} and {% endraw %}"),
    ("{% if page.math %}x{% endif %}\n", 1, "Liquid logic does not run in blogbuild"),
    ("![plot]({{ site.baseurl }}/assets/plot.png)\n", 1,
     "Liquid output {{ site.baseurl }} does not run in blogbuild (shown as text); site-root "
     "paths start with '/'"),
    ('<img src="{{ "/a.png" | relative_url }}">\n', 1, "site-root paths start with '/'"),
    ("By {{ page.author }}.\n", 1, "Liquid output {{ page.author }}"),
    ("{{< youtube dQw4w9WgXcQ >}}\n", 1,
     'Hugo shortcode {{< youtube >}} does not run in blogbuild (shown as text); write a video '
     'embed: <div class="video-embed" data-src="https://www.youtube.com/watch?v=dQw4w9WgXcQ">'),
    ('{{< figure src="/a.png" caption="A" >}}\n', 1, '![alt text](/path/image.png "Caption")'),
    ("{{< highlight go >}}\nx\n{{< /highlight >}}\n", 1, "```go … ```"),
    ('See [the post]({{< ref "other.md" >}}).\n', 1, "[text](other-post.md)"),
    ("{{% notice warning %}}\nCareful.\n{{% /notice %}}\n", 1, "> [!NOTE]"),
    ("{{< mystery >}}\n", 1, "Hugo shortcode {{< mystery >}}"),
    ('Text\n\n--8<-- "snippets/a.md"\n', 3, "pymdownx snippet (--8<--)"),
    ("{::nomarkdown}\n<b>x</b>\n{:/nomarkdown}\n", 1, "kramdown extension {::nomarkdown}"),
    ('{::options parse_block_html="true" /}\n', 1, "delete the line"),
    ("{:note: .warning}\n", 1, "attribute list definition"),
    ("A *word*{: .red} here.\n", 1, "span attribute list"),
    ("Text.\n\n::: {.note}\nBody.\n:::\n", 3, "fenced div (::: name)"),
    ("Intro.\n\n```python linenos .no-copy\nx\n```\n", 3,
     "the code block's info string has '.no-copy', which blogbuild does not read"),
    ('```go {linenos=table,hl_lines=[8,"15-17"],style=emacs}\nx\n```\n', 1,
     "info string has 'style=emacs', which"),
    ('Intro.\n\n```python linenums="x"\nx\n```\n', 3,
     'linenums="x" is not a line number from 0 to 1000000'),
    ('```{.python .numberLines startFrom="-3"}\nx\n```\n', 1,
     'startFrom="-3" is not a line number'),
    ("```go {linenos=true,linenostart=1000001}\nx\n```\n", 1,
     "linenostart=1000001 is not a line number"),
    ("```text linenums=\"1 0\"\nx\n```\n", 1, 'linenums="1 0" is not a line number'),
    ('[^x]: nothing refers to it\n', 1,
     "the footnote [^x] is defined here but nothing refers to it; refer to it with [^x]"),
]


@pytest.mark.parametrize(("source", "line", "text"), WARNED, ids=[w[2][:40] for w in WARNED])
def test_foreign_construct_warns_once_with_its_line(source: str, line: int, text: str) -> None:
    rendered = render_markdown(MD, source, file="p.md", line_offset=10)
    ((diagnostic),) = rendered.diagnostics
    assert diagnostic.line == 10 + line
    assert text in diagnostic.message
    assert not diagnostic.is_error


NOT_WARNED = [
    "`{% highlight python %}` and `{{ site.baseurl }}` and `{{< youtube x >}}`\n",
    "```liquid\n{% raw %}{{ page.title }}{% endraw %}\n```\n",
    "    {{< youtube x >}}\n    --8<-- \"a.md\"\n",
    "```\n=== \"Tab\"\n```\n",
    '=== "Python"\n\n    print(1)\n',  # MkDocs content tabs are read (markdown/tabs.py)
    "$x^{{2}}$ and $${{a}}$$\n",
    "<pre>{{ site.baseurl }}</pre>\n",
    "[[Wiki link]] and ![[embed.png]] and [[post|text]]\n",
    "{{</* youtube x */>}}\n",
    "Braces {like this} and {{ }} and 50% off and {% unclosed.\n",
]


def test_code_block_info_that_is_read_is_not_warned_about() -> None:
    source = '```python {2,4-6} title="a b.py" hl_lines="1"\nx\n```\n\n```python{3}\ny\n```\n'
    assert warnings_of(source) == []


@pytest.mark.parametrize("info", ['python linenums="1"', 'python linenums="1000000 3"',
                                  "go {linenos=table,linenostart=199}", "go {LineNos=inline}",
                                  '{#code .python .numberLines startFrom="0"}',
                                  "{.number-lines .c}", "python linenos", "go {linenos=false}"])
def test_line_numbers_in_every_generator_form_are_read(info: str) -> None:
    assert warnings_of(f"```{info}\nx\n```\n") == []


@pytest.mark.parametrize("source", NOT_WARNED)
def test_code_math_and_wiki_links_are_not_warned_about(source: str) -> None:
    assert warnings_of(source) == []


def test_warnings_are_capped_per_file() -> None:
    source = "".join(f"{{{{< youtube v{i} >}}}}\n\n" for i in range(25))
    found = warnings_of(source)
    assert len(found) == 11
    assert [line for line, _ in found[:10]] == list(range(1, 21, 2))
    assert found[10] == (21, "and 15 more constructs of other generators in this file from "
                             "here on, not listed one by one")


def test_mkdocs_toc_marker_is_dropped() -> None:
    rendered = render_markdown(MD, "[TOC]\n\n## One\n\n## Two\n", file="p.md")
    assert "[TOC]" not in rendered.html
    assert not rendered.diagnostics


def test_generated_heading_ids_step_aside_for_ids_on_other_blocks() -> None:
    rendered = render_markdown(MD, "Intro.\n{: #setup}\n\n## Setup\n", file="p.md")
    assert [e.id for e in rendered.toc] == ["setup-1"]
    assert 'id="setup"' in rendered.html


def test_an_id_with_spaces_is_refused() -> None:
    ((_, message),) = warnings_of('Text.\n{: id="two words"}\n')
    assert "refused id" in message
