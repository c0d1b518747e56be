"""Theme overrides: a site's template can extend the theme's, custom CSS/JS, template errors."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import html5lib
import pytest

from blogbuild.commands.build import build
from blogbuild.diagnostics import TemplateError
from css_helpers import page_stylesheet, parts

BASIC = Path(__file__).parent / "sites" / "basic"
NS = {"h": "http://www.w3.org/1999/xhtml"}


@pytest.fixture
def site(tmp_path: Path) -> Path:
    dest = tmp_path / "site"
    shutil.copytree(BASIC, dest, ignore=shutil.ignore_patterns("expected"))
    (dest / "templates").mkdir()
    return dest


def html_pages(out: Path) -> list[Path]:
    return sorted(out.rglob("*.html"))


def parse(path: Path) -> Any:
    return html5lib.parse(path.read_bytes(), namespaceHTMLElements=True)


def test_extending_the_theme_base_changes_one_block_on_every_page(site: Path) -> None:
    (site / "templates/base.html").write_text(
        '{% extends "theme/base.html" %}\n'
        '{% block footer %}<footer class="mine">My footer for {{ config.title }}</footer>'
        '{% endblock %}\n'
        '{% block head %}<meta name="mine" content="1">{% endblock %}\n'
        '{% block scripts %}<script src="{{ \'/mine.js\' | url }}" defer></script>'
        '{% endblock %}\n'
    )
    build(site / "site.yaml")
    pages = html_pages(site / "_site")
    assert len(pages) > 5
    for page in pages:
        doc = parse(page)
        footers = doc.findall(".//h:footer", NS)
        assert [f.get("class") for f in footers] == ["mine"], page
        assert footers[0].text == "My footer for Test Blog"
        assert doc.find(".//h:head/h:meta[@name='mine']", NS) is not None, page
        scripts = [s.get("src") for s in doc.findall(".//h:body/h:script", NS)]
        assert scripts[-1] == "/blogs/mine.js", page
        # everything else of the theme is still there: header, main content, stylesheet
        assert doc.find(".//h:header[@class='site-header']", NS) is not None, page
        assert doc.find(".//h:main", NS) is not None, page


def test_overriding_a_partial_and_a_page_template(site: Path) -> None:
    (site / "templates/post.html").write_text(
        '{% extends "theme/post.html" %}\n'
        '{% block content %}<p class="before">Before</p>{{ super() }}{% endblock %}\n'
    )
    build(site / "site.yaml")
    post = parse(site / "_site/posts/first/index.html")
    main = post.find(".//h:main", NS)
    assert main[0].get("class") == "before"
    assert main.find(".//h:article", NS) is not None  # the theme's content follows
    index = parse(site / "_site/index.html")
    assert index.find(".//h:p[@class='before']", NS) is None  # other templates untouched


def test_custom_css_and_js_load_after_the_theme(site: Path) -> None:
    (site / "static/css").mkdir(parents=True)
    (site / "static/js").mkdir(parents=True)
    (site / "static/css/custom.css").write_text("body { color: red; }\n")
    (site / "static/js/custom.js").write_text("console.log('mine');\n")
    build(site / "site.yaml")
    out = site / "_site"
    assert (out / "css/custom.css").read_text() == "body { color: red; }\n"
    for page in html_pages(out):
        css = page_stylesheet(out, page.relative_to(out).as_posix(), "/blogs/")
        assert parts(css)[0] == "css/main.css", page
        assert parts(css)[-1] == "css/custom.css", page
        assert css.endswith("/* css/custom.css */\nbody { color: red; }\n")
        doc = parse(page)
        scripts = [s.get("src") for s in doc.findall(".//h:script", NS)]
        assert scripts[-1] == "/blogs/js/custom.js", page


def test_no_custom_files_no_links(site: Path) -> None:
    build(site / "site.yaml")
    text = (site / "_site/index.html").read_text()
    assert "custom.css" not in text and "custom.js" not in text
    assert "custom.css" not in page_stylesheet(site / "_site", "index.html", "/blogs/")


def test_a_template_that_extends_itself_is_explained(site: Path) -> None:
    (site / "templates/base.html").write_text(
        '{% extends "base.html" %}\n{% block footer %}x{% endblock %}\n')
    with pytest.raises(TemplateError) as caught:
        build(site / "site.yaml")
    message = caught.value.format()
    assert message.startswith(str(Path("templates/base.html"))) or "templates/base.html" in message
    assert 'extends "theme/NAME"' in message
    assert not (site / "_site").exists()  # nothing half-written


@pytest.mark.parametrize(("body", "line", "fragment"), [
    ("{{ page.no_such_field }}", 3, "no attribute 'no_such_field'"),
    ("{{ 1 / 0 }}", 3, "ZeroDivisionError"),
    ("{{ 1 / }}", 3, "template syntax error"),
    ('{% include "partials/nope.html" %}', 3, "template not found: partials/nope.html"),
])
def test_template_errors_name_file_line_and_page(site: Path, body: str, line: int,
                                                 fragment: str) -> None:
    (site / "templates/post.html").write_text(
        '{% extends "theme/post.html" %}\n{% block content %}\n' + body + "\n{% endblock %}\n")
    with pytest.raises(TemplateError) as caught:
        build(site / "site.yaml")
    error = caught.value
    assert error.file is not None and error.file.endswith("post.html")
    assert error.line == line
    assert fragment in error.message
    assert "while rendering /posts/" in error.message
    assert "(content/posts/" in error.message  # the source of the page being rendered
