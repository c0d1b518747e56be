"""The portability lint: each rule finds its case at the right line and keeps quiet when
the post reads the same on GitHub and in Obsidian."""

from __future__ import annotations

from pathlib import Path

import pytest

from blogbuild.check.portability import lint

FRONT = "---\ntitle: P\n---\n\n"  # the body starts on line 5


def findings(tmp_path: Path, body: str) -> list[tuple[int, str]]:
    path = tmp_path / "post.md"
    path.write_text(FRONT + body)
    found = lint(path, "content/posts/post.md")
    assert all(f.kind == "portability" and f.severity == "warning" for f in found)
    assert all(f.file == "content/posts/post.md" for f in found)
    return [(f.line, f.message) for f in found]


@pytest.mark.parametrize(("body", "line", "start"), [
    ("> [!theorem] Pythagoras\n> a² + b² = c²\n", 5, "GitHub knows no callout type [!theorem]"),
    ("Intro.\n\n> [!NOTE]- Details\n> Folded.\n", 7,
     "GitHub reads no callout with a fold marker and a title"),
    ("> [!TIP]+\n> Open.\n", 5, "GitHub reads no callout with a fold marker"),
    ("> [!WARNING] Careful\n> Hot.\n", 5, "GitHub reads no callout with a title"),
    ("It cost $5 on Monday\nand $1,200.50, then $3.\n", 5, "GitHub and Obsidian may read the text "
     "between two '$' signs"),
    ("Text first.\nThe sum $$x^2$$ is inline here.\n", 6, "'$$…$$' inside a paragraph"),
    ("So \\(a+b\\) holds.\n", 5, "GitHub and Obsidian do not read \\(…\\)"),
    ("So \\\\(a+b\\\\) holds.\n", 5, "GitHub and Obsidian do not read \\(…\\)"),
    ("A\n\\[x = 1\\]\n", 6, "GitHub and Obsidian do not read \\(…\\) or \\[…\\]"),
    ('<div markdown="1">\n**Bold** text.\n</div>\n', 5,
     "GitHub and Obsidian end an HTML block only at a blank line"),
    ("## Setup {#setup}\n", 5, "GitHub and Obsidian show the attribute list '{#setup}'"),
    ("A paragraph.\n{: .lead}\n", 6, "GitHub and Obsidian show the attribute list '{: .lead}'"),
    ("See [[Other post]] for more.\n", 5, "GitHub shows the wiki link [[Other post]] as text"),
    ("![[diagram.png]]\n", 5, "GitHub shows the wiki link ![[diagram.png]] as text"),
    ('<div class="video-embed" data-src="https://youtu.be/x"></div>\n', 5,
     'GitHub strips the class of <div class="video-embed">'),
])
def test_each_rule(tmp_path: Path, body: str, line: int, start: str) -> None:
    found = findings(tmp_path, body)
    assert len(found) == 1, found
    assert found[0][0] == line
    assert found[0][1].startswith(start), found
    assert "; " in found[0][1]  # and says what to write instead


def test_a_widget_div_without_blank_lines_gets_both_findings(tmp_path: Path) -> None:
    found = findings(tmp_path, '<div class="collapsible" summary="More">\n*Hidden*\n</div>\n')
    assert [line for line, _ in found] == [5, 5]
    assert "blank line" in found[0][1] and "strips the class" in found[1][1]


@pytest.mark.parametrize("body", [
    "> [!NOTE]\n> GitHub knows this one.\n",
    "> [!CAUTION]\n> And this.\n",
    "> A plain quote with [!NOTE] later.\n",
    "Prices: \\$5 and \\$10.\n",
    "Only one $5 here.\n",
    "Math $x$ and $y$ alone.\n",
    "Numbers in math: $0$, $2^{10}$, $1/\\sqrt{d}$, $16$, $0.8$.\n",
    "`$5 and $10` in code, `[[not a link]]`, `\\(x\\)`.\n",
    "```\n$5 and $10 [[x]] {#id}\n```\n",
    "$$\nx^2\n$$\n",
    "$$x^2$$\n",
    '<div markdown="1">\n\n**Bold**\n\n</div>\n',
    "<div>\n<p>plain HTML</p>\n</div>\n",
    "A [link](other.md) and an ![image](pic.png).\n",
    "A {curly} word and a set {a, b}.\n",
])
def test_what_reads_the_same_everywhere_is_quiet(tmp_path: Path, body: str) -> None:
    assert findings(tmp_path, body) == []


def test_an_unreadable_front_matter_is_left_to_the_build(tmp_path: Path) -> None:
    path = tmp_path / "post.md"
    path.write_text("---\ntitle: [open\n---\n\n[[x]]\n")
    assert lint(path, "content/posts/post.md") == []


def test_inline_double_dollar_is_quiet_where_the_site_shows_it_as_display(
        tmp_path: Path) -> None:
    path = tmp_path / "post.md"
    path.write_text(FRONT + "The sum $$x^2$$ here.\n")
    assert len(lint(path, "post.md")) == 1
    assert lint(path, "post.md", double_inline=False) == []
