"""The div widgets (syntax.md §4): fixture cases, diagnostics, URLs, embeds, CommonMark safety."""

from __future__ import annotations

import html
import random
import re
from pathlib import Path
from typing import Any

import html5lib
import pytest
from markdown_it.utils import read_fixture_file

from blogbuild.config import Config
from blogbuild.content.linkmap import LinkMap
from blogbuild.content.models import Ref
from blogbuild.markdown import create_markdown
from blogbuild.markdown.widgets import _SPACE_ICON
from blogbuild.markdown.widgets.embeds import EmbedError, parse_space, parse_start, parse_video

FIXTURES = Path(__file__).parent / "fixtures" / "divs.md"
SPEC = Path(__file__).parent / "commonmark" / "spec.txt"
MD = create_markdown()
CODEBLOCK = re.compile(
    r'<div class="codeblock"( data-lang="[^"]*")?>.*?<code[^>]*>(.*?)</code></pre></div>', re.S
)


def render(source: str, md: Any = MD, **env: Any) -> tuple[str, dict[str, Any]]:
    env_out: dict[str, Any] = {"file": "post.md", **env}
    return md.render(source, env_out), env_out


def normalize(out: str, env: dict[str, Any]) -> str:
    """Fixture form: code blocks as plain text (highlighting is tested below), the Space icon
    abbreviated, and the diagnostics appended as `[severity line] message` lines."""

    def code(match: re.Match[str]) -> str:
        text = html.unescape(re.sub(r"<[^>]+>", "", match.group(2)))
        return f"<codeblock{match.group(1) or ''}>{html.escape(text, quote=False)}</codeblock>"

    out = CODEBLOCK.sub(code, out).replace(_SPACE_ICON, "[space-icon]")
    for diag in env.get("diagnostics", []):
        out += f"[{diag.severity.value} {diag.line}] {diag.message}\n"
    return out


def strict_parse(out: str) -> Any:
    parser = html5lib.HTMLParser(strict=True, namespaceHTMLElements=False)
    return parser.parseFragment(out)


CASES = read_fixture_file(FIXTURES)
#: Cases whose input is itself broken HTML, passed through as CommonMark says.
AUTHORS_INVALID_HTML = ("Not a tag", "Collapsible: `</div>` inside a raw <pre>")


@pytest.mark.parametrize(
    ("line", "title", "source", "expected"), CASES, ids=[f"{c[0]}-{c[1]}" for c in CASES]
)
def test_fixture(line: int, title: str, source: str, expected: str) -> None:
    out, env = render(source)
    assert normalize(out, env) == expected
    if not title.startswith(AUTHORS_INVALID_HTML):
        strict_parse(out)  # what the widgets write is valid HTML5


def test_fixture_file_has_dozens_of_cases() -> None:
    assert len(CASES) >= 60


def test_code_inside_a_collapsible_is_highlighted() -> None:
    source = '<div class="collapsible">\n\n```python\ndef f(x):\n    return x\n```\n\n</div>\n'
    out, _ = render(source)
    assert '<details class="collapsible">' in out
    assert '<span class="k">def</span>' in out
    assert '<div class="codeblock" data-lang="python">' in out


def test_widgets_mix_with_callouts_and_math() -> None:
    source = (
        "> [!NOTE]\n> <div class=\"collapsible\" data-label=\"Proof\">\n>\n"
        "> Inline $x^2$.\n>\n> </div>\n\n"
        "<div class=\"collapsible\">\n\n> [!TIP]\n"
        "> <div class=\"video-embed\" data-src=\"https://youtu.be/dQw4w9WgXcQ\"></div>\n\n</div>\n"
    )
    out, env = render(source)
    doc = strict_parse(out)
    note = next(el for el in doc.iter() if "callout-note" in (el.get("class") or ""))
    (details,) = [el for el in note.iter("details") if el.get("class") == "collapsible"]
    assert any("katex" in (el.get("class") or "") for el in details.iter())
    outer = next(el for el in doc.iter("details") if el.get("class") == "collapsible"
                 and el not in list(note.iter()))
    tip = next(el for el in outer.iter() if "callout-tip" in (el.get("class") or ""))
    assert any(el.tag == "figure" and "video-embed" in el.get("class", "") for el in tip.iter())
    assert not env.get("diagnostics")


def test_needs_are_recorded_per_kind() -> None:
    _, env = render(
        '<div class="collapsible">\n\n<div class="runnable">\n\n```python\n1\n```\n\n</div>\n\n'
        '</div>\n\n<div class="video-embed" data-src="https://youtu.be/dQw4w9WgXcQ"></div>\n\n'
        '<div class="image-compare" data-before="/a.png" data-after="/b.png"></div>\n\n'
        '<div class="hf-space" data-src="o/n"></div>\n'
    )
    assert env["needs"] == {"collapsible", "runnable", "video", "compare", "hf-space"}
    _, env = render('<div class="note">\n\n*raw*\n\n</div>\n\n`<div class="collapsible">`\n')
    assert not env.get("needs")


def test_diagnostic_lines_count_the_front_matter() -> None:
    source = 'Intro.\n\n<div class="video-embed" data-src="javascript:alert(1)"></div>\n'
    _, env = render(source, line_offset=4)
    (diag,) = env["diagnostics"]
    assert (diag.file, diag.line, diag.is_error) == ("post.md", 7, True)
    assert "unsafe URL scheme 'javascript:'" in diag.message


def test_unclosed_div_reports_the_opening_line() -> None:
    source = "# Title\n\ntext\n\n- item\n\n  <div\n  class='collapsible'>\n\n  inside\n"
    out, env = render(source)
    (diag,) = env["diagnostics"]
    assert diag.line == 7 and diag.is_error
    assert "never closed" in diag.message and "</div>" in diag.message
    assert "<p>inside</p>\n</div>\n</details>\n</li>" in out


def test_compare_images_follow_the_sub_path_rule_and_are_recorded() -> None:
    md = create_markdown(Config(base_url="https://example.github.io/blog/"))
    source = (
        "\n<div class=\"image-compare\" data-before=\"/assets/a.png\"\n"
        "     data-after=\"/blog/assets/b.png\"></div>\n"
    )
    out, env = render(source, md=md, line_offset=3)
    assert 'src="/blog/assets/a.png"' in out
    assert 'src="/blog/assets/b.png"' in out  # already under the sub-path: not prefixed twice
    assert env["refs"] == [Ref("image", "/blog/assets/a.png", 5),
                           Ref("image", "/blog/assets/b.png", 5)]


def test_relative_media_paths_resolve_through_the_link_map() -> None:
    source = (
        '<div class="image-compare" data-before="img/a.png" data-after="../b c.png"></div>\n\n'
        '<div class="video-embed" data-src="clips/demo.mp4"></div>\n'
    )
    links = LinkMap(assets={"posts/img/a.png": "/posts/x/img/a.png", "b c.png": "/b c.png"})
    out, env = render(source, source_dir="posts", links=links)
    assert 'src="/posts/x/img/a.png"' in out
    assert 'src="/b%20c.png"' in out
    # Not in the map: the path as written, reported after assembly.
    assert '<source src="clips/demo.mp4" type="video/mp4">' in out
    assert [(ref.target, ref.rel) for ref in env["refs"]] == [
        ("img/a.png", "posts/img/a.png"), ("../b c.png", "b c.png"),
        ("clips/demo.mp4", "posts/clips/demo.mp4")]
    assert env["resolved"] == {"posts/img/a.png": "/posts/x/img/a.png", "b c.png": "/b c.png",
                               "posts/clips/demo.mp4": None}


def test_video_facade_makes_no_third_party_request_without_a_click() -> None:
    out, _ = render('<div class="video-embed" data-src="https://youtu.be/dQw4w9WgXcQ"></div>\n')
    doc = strict_parse(out)
    # Nothing that loads by itself (img, iframe, video, source) points anywhere: only a link.
    assert not [el for el in doc.iter() if el.tag in ("img", "iframe", "video", "source")]
    (frame,) = [el for el in doc.iter() if el.get("class") == "video-frame"]
    assert frame.get("data-embed").startswith("https://www.youtube-nocookie.com/embed/")


# --- embeds: URL parsing ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "seconds"),
    [("90", 90), ("90s", 90), ("1m30s", 90), ("1m", 60), ("1h2m3s", 3723), ("2h", 7200),
     ("1:30", 90), ("1:02:03", 3723), ("0", 0), (" 45S ", 45),
     ("", None), ("soon", None), ("1:2", None), ("m", None), ("-5", None)],
)
def test_parse_start(value: str, seconds: int | None) -> None:
    assert parse_start(value) == seconds


@pytest.mark.parametrize(
    ("url", "provider", "embed", "page"),
    [
        ("https://www.youtube.com/watch?v=dQw4w9WgXcQ", "youtube",
         "https://www.youtube-nocookie.com/embed/dQw4w9WgXcQ?autoplay=1",
         "https://www.youtube.com/watch?v=dQw4w9WgXcQ"),
        ("https://www.youtube.com/watch?feature=share&v=dQw4w9WgXcQ&t=1m30s", "youtube",
         "https://www.youtube-nocookie.com/embed/dQw4w9WgXcQ?autoplay=1&start=90",
         "https://www.youtube.com/watch?v=dQw4w9WgXcQ&t=90s"),
        ("https://youtu.be/dQw4w9WgXcQ?si=x&t=42", "youtube",
         "https://www.youtube-nocookie.com/embed/dQw4w9WgXcQ?autoplay=1&start=42",
         "https://www.youtube.com/watch?v=dQw4w9WgXcQ&t=42s"),
        ("//www.youtube.com/live/dQw4w9WgXcQ", "youtube",
         "https://www.youtube-nocookie.com/embed/dQw4w9WgXcQ?autoplay=1",
         "https://www.youtube.com/watch?v=dQw4w9WgXcQ"),
        ("https://music.youtube.com/watch?v=dQw4w9WgXcQ#t=2:00", "youtube",
         "https://www.youtube-nocookie.com/embed/dQw4w9WgXcQ?autoplay=1&start=120",
         "https://www.youtube.com/watch?v=dQw4w9WgXcQ&t=120s"),
        ("HTTPS://WWW.YOUTUBE.COM/shorts/abcDEF12345/", "youtube",
         "https://www.youtube-nocookie.com/embed/abcDEF12345?autoplay=1",
         "https://www.youtube.com/watch?v=abcDEF12345"),
        ("https://vimeo.com/groups/shortfilms/videos/76979871?t=30", "vimeo",
         "https://player.vimeo.com/video/76979871?autoplay=1&dnt=1#t=30s",
         "https://vimeo.com/76979871#t=30s"),
        ("https://vimeo.com/showcase/123/video/76979871", "vimeo",
         "https://player.vimeo.com/video/76979871?autoplay=1&dnt=1", "https://vimeo.com/76979871"),
        ("/media/talk.mp4#t=1m", "file", "", "/media/talk.mp4#t=1m"),
        ("talk.m4v", "file", "", "talk.m4v"),
        ("https://cdn.example.org/v/clip.ogv?x=1", "file", "", "https://cdn.example.org/v/clip.ogv?x=1"),
    ],
)
def test_parse_video(url: str, provider: str, embed: str, page: str) -> None:
    video = parse_video(url)
    assert (video.provider, video.embed_url, video.page_url) == (provider, embed, page)


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("", "needs a data-src"),
        ("javascript:alert(1)", "unsafe URL scheme 'javascript:'"),
        (" JaVaScRiPt:alert(1)", "unsafe URL scheme 'javascript:'"),
        ("java\tscript:alert(1)", "unsafe URL scheme"),
        ("vbscript:msgbox", "unsafe URL scheme 'vbscript:'"),
        ("data:video/mp4;base64,AAAA", "unsafe URL scheme 'data:'"),
        ("ftp://example.org/a.mp4", "must be an http(s) URL"),
        ("https://example.com/video", "unsupported video source 'example.com'"),
        ("https://youtube.com.evil.example/watch?v=dQw4w9WgXcQ", "unsupported video source"),
        ("/assets/clip.avi", "unsupported video source '/assets/clip.avi'"),
        ("https://www.youtube.com/watch?v=", "cannot find the video id"),
        ("https://www.youtube.com/watch?v=<script>", "cannot find the video id"),
        ("https://youtu.be/", "cannot find the video id"),
        ("https://vimeo.com/channels/staffpicks", "cannot find the video id"),
        ("https://player.vimeo.com/video/1?h=<x>", "privacy hash"),
        ("https://youtu.be/dQw4w9WgXcQ?t=later", "cannot read the start time"),
    ],
)
def test_parse_video_refuses(url: str, message: str) -> None:
    with pytest.raises(EmbedError, match=re.escape(message)):
        parse_video(url)


@pytest.mark.parametrize(
    ("src", "host", "page"),
    [
        ("owner/space-name", "owner-space-name", "https://huggingface.co/spaces/owner/space-name"),
        ("Open-LLM/My_Space.v2", "open-llm-my-space-v2",
         "https://huggingface.co/spaces/Open-LLM/My_Space.v2"),
        ("stabilityai/stable-diffusion", "stabilityai-stable-diffusion",
         "https://huggingface.co/spaces/stabilityai/stable-diffusion"),
        ("JatinAutonomousLabs/Research_AI_Assistant_API",
         "jatinautonomouslabs-research-ai-assistant-api",
         "https://huggingface.co/spaces/JatinAutonomousLabs/Research_AI_Assistant_API"),
        (" https://huggingface.co/spaces/gradio/hello_world/ ", "gradio-hello-world",
         "https://huggingface.co/spaces/gradio/hello_world"),
    ],
)
def test_parse_space(src: str, host: str, page: str) -> None:
    space = parse_space(src)
    assert space.app_url == f"https://{host}.hf.space"
    assert space.page_url == page


@pytest.mark.parametrize(
    "src",
    ["", "owner", "owner/", "/name", "a/b/c", "../etc", "owner/na me", "owner/-name",
     "owner/name-", "own..er/name", "owner/na--me", "owner/name?x=1", "https://example.com/a/b",
     "o" * 97 + "/name"],
)
def test_parse_space_refuses(src: str) -> None:
    with pytest.raises(EmbedError, match="is not a Space id"):
        parse_space(src)


# --- CommonMark and robustness ---------------------------------------------------------


def spec_examples() -> list[str]:
    text = SPEC.read_text(encoding="utf-8")
    fence = "`" * 32
    pattern = re.compile(rf"^{fence} example[^\n]*\n(.*?)^\.\n", re.M | re.S)
    return [m.group(1).replace("→", "\t") for m in pattern.finditer(text)]


def test_commonmark_examples_are_untouched_by_the_div_rule() -> None:
    """The div rule claims only its own kinds: every spec example renders exactly as without it."""
    examples = spec_examples()
    assert len(examples) > 600
    without = create_markdown()
    without.disable("div_widget")
    changed = [i for i, src in enumerate(examples, 1) if MD.render(src) != without.render(src)]
    assert changed == []


SNIPPETS = [
    '<div class="collapsible">', '<div class="runnable" data-lang="python">', "</div>",
    '<div class="video-embed" data-src="https://youtu.be/dQw4w9WgXcQ">', "<div>", "```",
    '<div class="image-compare" data-before="/a.png" data-after="/b.png">', "- item", "> quote",
    '<div class="hf-space" data-src="o/n" />', "    indented", "", "", "text `</div>`",
    '<div class="collapsible"\n  data-label="x', "<!--", "-->", "1. one", "  nested", "~~~",
]


def test_random_mixtures_never_raise_and_stay_balanced() -> None:
    rng = random.Random(1234)
    for _ in range(400):
        source = "\n".join(rng.choice(SNIPPETS) for _ in range(rng.randint(1, 25)))
        tokens = MD.parse(source, {"file": "fuzz.md"})
        assert sum(t.nesting for t in tokens) == 0, source
        MD.renderer.render(tokens, MD.options, {"file": "fuzz.md"})


def test_many_unclosed_divs_stay_fast() -> None:
    import time

    source = '<div class="collapsible">\n\ntext\n\n' * 3000
    start = time.perf_counter()
    html, env = render(source)
    assert time.perf_counter() - start < 5
    # Past the nesting limit the rest is shown as text, with one warning: nothing is lost.
    warnings = [d for d in env["diagnostics"] if not d.is_error]
    assert len(warnings) == 1 and "nested more than" in warnings[0].message
    assert html.count("text") == 3000
