"""Quarto's executable cells: `#|` options, outputs from the freeze folder, a run at build
time, inline expressions, ```{{python}} shown as code."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import html5lib
import pytest
from PIL import Image

from blogbuild.commands.build import build
from blogbuild.config import load_config
from blogbuild.content.jobs import SourceJob
from blogbuild.pipeline.render import render_source
from blogbuild.quarto.freeze import read_freeze
from blogbuild.quarto.inline import frozen_values

FIXTURE = Path(__file__).parent / "fixtures" / "quarto_cells"
FIXTURE_PNG = "_freeze/posts/cells/index/figure-html/fig-sales-output-1.png"
NS = {"h": "http://www.w3.org/1999/xhtml"}
SITE = "title: Q\nbase_url: https://example.org/blog/\nsearch: false\nsocial_cards: false\n"



def fixture_site(target: Path) -> Path:
    """A copy of the fixture blog at `target`, with the picture its freeze names (drawn
    here: the repository holds no binary fixture): a blue line on grey, 64 by 48."""
    shutil.copytree(FIXTURE, target)
    picture = Image.new("RGB", (64, 48), (240, 240, 240))
    for x in range(8, 56):
        picture.putpixel((x, 40 - (x - 8) * 32 // 48), (30, 90, 200))
    (target / FIXTURE_PNG).parent.mkdir(parents=True, exist_ok=True)
    picture.save(target / FIXTURE_PNG)
    return target

def _freeze_json(markdown: str) -> str:
    return json.dumps({"hash": "x", "result": {"markdown": markdown, "supporting": [],
                                               "filters": [], "includes": {}}})


def _render(tmp_path: Path, body: str, *, front: str = "", freeze: str | None = None,
            site: str = "") -> tuple[str, list[str]]:
    """The HTML of a post `posts/p.qmd` rendered in this process, and its messages as the
    command line prints them (`LINE: SEVERITY: message`)."""
    (tmp_path / "site.yaml").write_text(SITE + site)
    source = tmp_path / "content" / "posts" / "p.qmd"
    source.parent.mkdir(parents=True, exist_ok=True)
    source.write_text(f"---\ntitle: P\ndate: 2024-01-02\n{front}---\n{body}")
    if freeze is not None:
        frozen = tmp_path / "_freeze" / "posts" / "p" / "execute-results" / "html.json"
        frozen.parent.mkdir(parents=True, exist_ok=True)
        frozen.write_text(_freeze_json(freeze))
    config = load_config(tmp_path / "site.yaml")
    job = SourceJob(source, "posts/p.qmd", "post", "content/posts/p.qmd")
    result = render_source(job, config, None, None, None, feed=False)
    assert result.rendered is not None, result.diagnostics
    return result.rendered.html, [f"{d.line}: {d.severity.value}: {d.message}"
                                  for d in result.diagnostics]


def _tree(html: str) -> html5lib.treebuilders.etree.Element:
    return html5lib.parse(f"<div>{html}</div>", namespaceHTMLElements=True)


def _texts(html: str, xpath: str) -> list[str]:
    return ["".join(e.itertext()) for e in _tree(html).iterfind(xpath, NS)]


CELL = "\n```{python}\nprint('hi')\n```\n"
#: A frozen cell's code and output, as Quarto's Jupyter engine writes them.
CODE = "``` {.python .cell-code}\nprint('hi')\n```\n\n"
OUTPUT = "::: {.cell-output .cell-output-stdout}\n```\nhi\n```\n:::\n"


def test_a_cell_shows_its_code_highlighted_without_its_option_lines(tmp_path: Path) -> None:
    html, messages = _render(tmp_path, "\n```{python}\n#| label: one\nx = 1\n```\n",
                             site="notebooks:\n  execute: never\n")
    codes = _texts(html, ".//h:div[@class='nb-cell']//h:pre/h:code")
    assert codes == ["x = 1\n"]
    assert "#|" not in html and "{python}" not in html
    assert _tree(html).find(".//h:div[@class='codeblock'][@data-lang='python']", NS) is not None
    assert _tree(html).find(".//h:button[@class='copy-button']", NS) is not None
    assert messages == ["6: warning: the file's Python cells are shown without outputs: no "
                        "freeze file (_freeze/posts/p/execute-results/html.json) holds theirs, "
                        "and nothing runs them at build time; set 'notebooks.execute: auto' in "
                        "site.yaml (or 'execute: auto' in the front matter), or render the "
                        "file with Quarto to freeze them"]


def test_a_md_post_keeps_a_braced_fence_as_it_was(tmp_path: Path) -> None:
    (tmp_path / "site.yaml").write_text(SITE)
    source = tmp_path / "content" / "posts" / "p.md"
    source.parent.mkdir(parents=True)
    source.write_text("---\ntitle: P\ndate: 2024-01-02\n---\n```{python}\n#| echo: false\n"
                      "x = 1\n```\n")
    config = load_config(tmp_path / "site.yaml")
    result = render_source(SourceJob(source, "posts/p.md", "post", "content/posts/p.md"),
                           config, None, None, None, feed=False)
    assert result.rendered is not None and "#| echo: false" in result.rendered.html
    assert "nb-cell" not in result.rendered.html


@pytest.mark.parametrize(("options", "code", "outputs"), [
    ("#| echo: false\n", 0, 1),
    ("#| output: false\n", 1, 0),
    ("#| include: false\n", 0, 0),
    ("#| eval: false\n", 1, 0),
    ("", 1, 1),
])
def test_echo_output_include_and_eval(tmp_path: Path, options: str, code: int,
                                      outputs: int) -> None:
    frozen = "::: {.cell}\n" + CODE * code + OUTPUT * outputs + ":::\n" if code + outputs \
        else ""
    html, messages = _render(tmp_path, f"\n```{{python}}\n{options}print('hi')\n```\n",
                             freeze=frozen)
    assert messages == []
    assert _texts(html, ".//h:pre/h:code") == ["print('hi')\n"] * code
    assert _texts(html, ".//h:pre[@class='nb-stream nb-stdout']") == ["hi\n"] * outputs


def test_the_front_matter_sets_every_cell_s_defaults_and_a_cell_overrides_them(
        tmp_path: Path) -> None:
    body = ("\n```{python}\nprint(1)\n```\n\n```{python}\n#| echo: true\nprint(2)\n```\n")
    html, _ = _render(tmp_path, body, front="format:\n  html:\n    execute:\n      echo: false"
                      "\n    code-summary: Look\nexecute:\n  eval: false\n")
    assert _texts(html, ".//h:pre/h:code") == ["print(2)\n"]
    html, _ = _render(tmp_path, body, front="format:\n  html:\n    code-fold: true\n")
    assert _texts(html, ".//h:details/h:summary") == ["Code", "Code"]


def test_code_fold_echo_fenced_and_a_file_name(tmp_path: Path) -> None:
    body = ("\n```{python}\n#| code-fold: true\n#| code-summary: See it\nx = 1\n```\n"
            "\n```{python}\n#| echo: fenced\n#| output: false\ny = 2\n```\n"
            '\n```{python filename="model.py"}\nz = 3\n```\n')
    html, _ = _render(tmp_path, body)
    tree = _tree(html)
    details = tree.find(".//h:details", NS)
    assert details is not None and "".join(details.find("h:summary", NS).itertext()) == "See it"
    assert "".join(details.find(".//h:code", NS).itertext()) == "x = 1\n"
    codes = _texts(html, ".//h:pre/h:code")
    assert codes[1] == "```{python}\n#| output: false\ny = 2\n```\n"
    assert _texts(html, ".//h:span[@class='codeblock-title']") == ["model.py"]


def test_a_shown_cell_keeps_its_fence_lines(tmp_path: Path) -> None:
    html, messages = _render(tmp_path, "\n````{{python}}\n1 + 1\n````\n")
    assert _texts(html, ".//h:pre/h:code") == ["````{python}\n1 + 1\n````\n"]
    assert messages == []


def test_a_cell_inside_a_list_item_is_a_cell(tmp_path: Path) -> None:
    html, messages = _render(tmp_path, "\n- item\n\n  ```{python}\n  print('hi')\n  ```\n",
                             freeze="::: {.cell}\n" + CODE + OUTPUT + ":::\n")
    assert _texts(html, ".//h:li//h:pre/h:code") == ["print('hi')\n"]
    assert _texts(html, ".//h:li//h:pre[@class='nb-stream nb-stdout']") == ["hi\n"]
    assert messages == []


def test_an_option_of_the_wrong_type_is_a_warning_at_its_line(tmp_path: Path) -> None:
    html, messages = _render(tmp_path, "\n```{python}\n#| echo: maybe\n#| fig-cap: [1, [2]]\n"
                             "x = 1\n```\n", freeze="::: {.cell}\n" + CODE + ":::\n")
    assert messages == ["7: warning: '#| echo:' must be true, false or fenced, not 'maybe'; "
                        "it is ignored",
                        "8: warning: '#| fig-cap:' must be text or a list of texts, not list; "
                        "it is ignored"]
    assert _texts(html, ".//h:pre/h:code") == ["x = 1\n"]  # echo's default applies


@pytest.mark.parametrize("fence", ["```{python}\n#| label: fig-x\n", "```{r fig-x, fig.width=9}\n"])
def test_a_captioned_labelled_figure_is_numbered_and_referenced(tmp_path: Path,
                                                                 fence: str) -> None:
    png = fixture_site(tmp_path / "fixture") / FIXTURE_PNG
    folder = tmp_path / "_freeze" / "posts" / "p" / "figure-html"
    folder.mkdir(parents=True)
    shutil.copy(png, folder / "fig-x-output-1.png")
    frozen = ("::: {.cell}\n" + CODE + "::: {.cell-output .cell-output-display}\n"
              "![Loss](p_files/figure-html/fig-x-output-1.png){#fig-x}\n:::\n:::\n")
    html, messages = _render(tmp_path, f"\nSee @fig-x.\n\n{fence}"
                             "#| fig-cap: The *loss*, as in @tbl-y\nplot()\n```\n\n"
                             "::: {#tbl-y}\n| a |\n|---|\n| 1 |\n\nY.\n:::\n", freeze=frozen)
    assert messages == []
    figure = _tree(html).find(".//h:figure[@id='fig-x']", NS)
    assert figure is not None
    # Quarto's words (blogbuild.markdown.quarto.crossrefs), a no-break space in them; the
    # caption is Markdown, as Quarto reads it.
    caption = figure.find("h:figcaption", NS)
    assert "".join(caption.itertext()) == "Figure\xa01: The loss, as in Table\xa01"
    assert caption.findtext("h:em", None, NS) == "loss"
    assert caption.find("h:a[@href='#tbl-y']", NS) is not None
    assert _texts(html, ".//h:a[@href='#fig-x']") == ["Figure\xa01"]
    frozen = frozen.replace("{#fig-x}", "").replace("Loss", "")
    html, _ = _render(tmp_path, "\n```{python}\nplot()\n```\n", freeze=frozen)
    img = _tree(html).find(".//h:img", NS)
    assert img is not None and img.get("alt") == "Figure 1 of the post, drawn by cell 1"


@pytest.mark.parametrize("fence", ["```{r}\n#| label: tbl-po\n", "```{r tbl-po, echo=TRUE}\n"])
def test_a_cell_labelled_tbl_with_a_caption_is_a_numbered_table(tmp_path: Path,
                                                               fence: str) -> None:
    # As knitr freezes it: the cell div holds the label and the caption, its output a table.
    # The label is a `#|` option, or knitr's chunk label (the first word in the braces).
    frozen = ("::: {#tbl-po .cell tbl-cap='Potential *outcomes*'}\n\n"
              "```{.r .cell-code}\nknitr::kable(po)\n```\n\n"
              "::: {.cell-output-display}\n| id | y |\n|---:|--:|\n| 1 | 80 |\n:::\n:::\n")
    html, messages = _render(tmp_path, f"\nSee @tbl-po.\n\n{fence}"
                             "#| tbl-cap: Potential *outcomes*\n"
                             "knitr::kable(po)\n```\n", freeze=frozen)
    assert messages == []
    figure = _tree(html).find(".//h:figure[@id='tbl-po']", NS)
    assert figure is not None
    caption = figure.find("h:figcaption", NS)
    assert caption is not None and "".join(caption.itertext()) == "Table\xa01: Potential outcomes"
    assert caption.find("h:em", NS) is not None
    assert [row.findtext("h:td", None, NS) for row in figure.iterfind(".//h:tbody/h:tr", NS)] \
        == ["1"]
    assert _texts(html, ".//h:a[@href='#tbl-po']") == ["Table\xa01"]
    assert "?@tbl" not in html


def test_a_cell_right_under_an_html_tag_is_a_cell(tmp_path: Path) -> None:
    # Pandoc reads Markdown inside HTML: CommonMark's HTML block would swallow the fence.
    html, _ = _render(tmp_path, "\n<details><summary>Code</summary>\n```{r, echo=TRUE}\n"
                      "x <- 1\n```\n\n</details>\n")
    details = _tree(html).find(".//h:details", NS)
    assert details is not None and "{r" not in "".join(details.itertext())
    assert _texts(html, ".//h:details//h:pre/h:code") == ["x <- 1\n"]
    assert _texts(html, ".//h:details//h:p[@class='nb-note']") == [
        "This R cell was not run: only Python cells run when the site is built."]


def test_a_cell_with_lst_label_and_lst_cap_is_a_numbered_listing(tmp_path: Path) -> None:
    html, messages = _render(tmp_path, "\n```{python}\n#| lst-label: lst-imp\n"
                             "#| lst-cap: Import pyplot\n#| eval: false\n"
                             "import matplotlib.pyplot as plt\n```\n\n@lst-imp...\n")
    assert messages == []
    block = _tree(html).find(".//h:div[@id='lst-imp']", NS)
    assert block is not None
    assert _texts(html, ".//h:div[@id='lst-imp']//h:span[@class='codeblock-title']") == [
        "Listing\xa01: Import pyplot"]
    assert _texts(html, ".//h:div[@id='lst-imp']//h:code") == [
        "import matplotlib.pyplot as plt\n"]
    assert _texts(html, ".//h:a[@href='#lst-imp']") == ["Listing\xa01"]


def test_a_freeze_of_another_version_is_a_warning_and_is_not_used(tmp_path: Path) -> None:
    frozen = "::: {.cell}\n" + CODE + OUTPUT.replace("hi", "old") + ":::\n"
    html, messages = _render(tmp_path, CELL + CELL, freeze=frozen)
    assert "old" not in html
    assert messages[0] == ("6: warning: _freeze/posts/p/execute-results/html.json holds the "
                           "outputs of 1 cells that are not this file's 2: it was frozen from "
                           "another version of the file, and is not used; run `quarto render` "
                           "on the file to freeze it again")


def test_frozen_cells_pair_with_the_source_s_cells_quarto_left_out(tmp_path: Path) -> None:
    # Quarto drops a cell that shows nothing (no code, no output) and one not included; a
    # frozen cell that shows its code pairs with the next cell that does.
    body = ("\n```{python}\n#| echo: false\nsetup()\n```\n"
            "\n```{python}\n#| include: false\nhidden()\n```\n"
            "\n```{python}\nprint('a')\n```\n"
            "\n```{python}\n#| echo: false\nprint('b')\n```\n")
    frozen = ("::: {.cell}\n``` {.python .cell-code}\nprint('a')\n```\n\n"
              "::: {.cell-output .cell-output-stdout}\n```\na\n```\n:::\n:::\n\n"
              "::: {.cell}\n::: {.cell-output .cell-output-stdout}\n```\nb\n```\n:::\n:::\n")
    html, messages = _render(tmp_path, body, freeze=frozen)
    assert messages == []
    assert _texts(html, ".//h:pre/h:code") == ["print('a')\n"]
    assert _texts(html, ".//h:pre[@class='nb-stream nb-stdout']") == ["a\n", "b\n"]


def test_cells_of_other_languages_keep_their_code_and_a_note(tmp_path: Path) -> None:
    html, messages = _render(tmp_path, "\n```{r}\nx <- 1\n```\n\n```{julia}\ny = 2\n```\n")
    assert _texts(html, ".//h:pre/h:code") == ["x <- 1\n", "y = 2\n"]
    assert _texts(html, ".//h:p[@class='nb-note']") == [
        "This R cell was not run: only Python cells run when the site is built.",
        "This Julia cell was not run: only Python cells run when the site is built."]
    assert len(messages) == 1 and messages[0].startswith("6: warning: the file's Julia, R "
                                                         "cells are shown without outputs")


def test_inline_expressions_take_their_values_from_the_freeze(tmp_path: Path) -> None:
    html, messages = _render(tmp_path, "\nWe have `{python} n` cats and `{python} m` dogs.\n",
                             freeze="We have 3 cats and 4 dogs.\n")
    assert _texts(html, ".//h:p") == ["We have 3 cats and 4 dogs."]
    assert messages == []
    html, messages = _render(tmp_path, "\nWe have `{python} n` cats.\n", freeze="Other.\n")
    assert _texts(html, ".//h:p/h:code") == ["n"]
    assert messages == ["6: warning: the inline expressions of the page are shown as code, "
                        "without their values: nothing ran them (only Python runs at build "
                        "time, under 'notebooks.execute'), and no freeze file holds them; "
                        "render the file with Quarto to freeze them"]


def test_frozen_values_never_backtrack() -> None:
    line = "a `{python} x` a `{python} y` a"
    assert frozen_values(line, "a 1 a 2 a") == {("python", "x", 0): "1",
                                                 ("python", "y", 0): "2"}
    assert frozen_values(line, "b 1 a 2 a") == {}


def test_the_fixture_s_freeze_is_read_cell_by_cell(tmp_path: Path) -> None:
    freeze = read_freeze(fixture_site(tmp_path / "site"), "content", "posts/cells/index.qmd")
    assert freeze.shown == "_freeze/posts/cells/index/execute-results/html.json"
    kinds = [[(o.kind, o.name or next(iter(o.data), "")) for o in cell] for cell in freeze.cells]
    assert kinds == [[("stream", "stdout")], [("display_data", "image/png")],
                     [("display_data", "text/html")], [("stream", "stdout")]]
    assert sorted(freeze.inputs) == ["_freeze/posts/cells/index/execute-results/html.json",
                                     "_freeze/posts/cells/index/figure-html/"
                                     "fig-sales-output-1.png"]


def test_a_site_builds_with_its_freeze_folder_and_renders_again_when_it_changes(
        tmp_path: Path) -> None:
    site = tmp_path / "site"
    fixture_site(site)
    report = build(site / "site.yaml", jobs=1)
    assert report.diagnostics == []
    out = site / "_site" / "posts" / "cells"
    page = (out / "index.html").read_text()
    html5lib.HTMLParser(strict=True).parse(page)
    tree = html5lib.parse(page, namespaceHTMLElements=True)
    body = tree.find(".//h:div[@class='post-body']", NS)
    assert body is not None
    text = "".join(body.itertext())
    assert "#|" not in text and "{python}\n1 + 1" in text and ":::" not in text
    assert "The sample holds 3 rows." in text and "rows: 3" in text and "Median" in text
    assert [c.get("data-cell") for c in body.iterfind(".//h:div[@class='nb-cell']", NS)] == \
        ["1", "2", "3", "5"]
    img = body.find(".//h:figure[@id='fig-sales']//h:img", NS)
    assert img is not None and img.get("alt") == "A rising line"
    assert (out / img.get("src", "").rsplit("/", 1)[-1]).is_file()
    assert [i.get("alt") for i in body.iterfind(".//h:img", NS)] == ["A rising line"]
    assert body.find(".//h:table[@class='dataframe']", NS) is not None
    frozen = site / "_freeze/posts/cells/index/execute-results/html.json"
    frozen.write_text(frozen.read_text().replace("rows: 3", "rows: three"))
    again = build(site / "site.yaml", jobs=1)
    assert again.rendered == 1
    assert "rows: three" in (out / "index.html").read_text()


def test_python_cells_run_at_build_time_when_the_policy_says(tmp_path: Path) -> None:
    html, messages = _render(
        tmp_path, "\nHalf is `{python} n // 2`, and `{python} nope` fails.\n\n```{python}\n"
        "n = 10\nprint('n is', n)\n```\n\n```{python}\n#| warning: false\n#| error: true\n"
        "import sys\nprint('w', file=sys.stderr)\n1 / 0\n```\n"
        "\n```{python}\n#| output: asis\nprint('**zqbold**')\n```\n",
        site="notebooks:\n  execute: auto\n")
    assert _texts(html, ".//h:div[@class='nb-markdown']//h:strong") == ["zqbold"]
    assert _texts(html, ".//h:p")[0] == "Half is 5, and nope fails."
    assert _texts(html, ".//h:pre[@class='nb-stream nb-stdout']") == ["n is 10\n"]
    assert not _texts(html, ".//h:pre[@class='nb-stream nb-stderr']")
    assert "ZeroDivisionError" in "".join(_texts(html, ".//h:pre[@class='nb-error']"))
    assert [m.split(": the inline")[0] for m in messages] == ["6: warning"]


def test_what_a_frozen_cell_holds_outside_its_outputs_is_shown_as_markdown(
        tmp_path: Path) -> None:
    frozen = ("::: {.cell}\n``` {.python .cell-code}\nprint('hi')\n```\n\n"
              "Printed **zqasis** text.\n:::\n")
    html, messages = _render(tmp_path, "\n```{python}\n#| output: asis\nprint('hi')\n```\n",
                             freeze=frozen)
    assert messages == []
    assert _texts(html, ".//h:div[@class='nb-markdown']//h:strong") == ["zqasis"]


def test_the_live_server_renders_a_post_again_when_its_freeze_changes(tmp_path: Path) -> None:
    from blogbuild.serve.live import LiveBuild

    site = tmp_path / "site"
    fixture_site(site)
    live = LiveBuild(site / "site.yaml", output=tmp_path / "live")
    try:
        assert live.full().errors == []
        frozen = site / "_freeze/posts/cells/index/execute-results/html.json"
        frozen.write_text(frozen.read_text().replace("rows: 3", "rows: zqthree"))
        update = live.apply([frozen])
        assert update.errors == [] and update.rendered == 1
        assert "rows: zqthree" in (tmp_path / "live/posts/cells/index.html").read_text()
    finally:
        live.close()


def test_the_live_server_watches_the_freeze_folders(tmp_path: Path) -> None:
    from types import SimpleNamespace

    from blogbuild.serve.session import Session

    site = tmp_path / "site"
    fixture_site(site)
    (site / "content" / "_freeze").mkdir()
    session = Session(site / "site.yaml", output=tmp_path / "out")
    live = SimpleNamespace(config=load_config(site / "site.yaml"),
                           config_path=site / "site.yaml")
    watcher = session._make_watcher(live)  # type: ignore[arg-type]
    for frozen in (site / "_freeze" / "posts" / "a.json",
                   site / "content" / "_freeze" / "posts" / "a.json"):
        assert watcher._watched(frozen.resolve()) and not watcher.ignore(frozen.resolve())
