"""The output items of runnable blocks (static/js/runnable_capture.py), in CPython with the
real matplotlib, pandas and Pillow: the module the browser's worker runs, through the entry
points the worker uses (install, Capture, finish, fail)."""

from __future__ import annotations

import base64
import io
import json
import subprocess
import sys
import textwrap
from typing import Any

import pytest
from PIL import Image

from blogbuild.runtimes.capture import MODULE_NAME, capture_source, load_capture

capture = load_capture()

Item = dict[str, Any]


def run(code: str, filename: str = "block 1") -> tuple[list[Item], str]:
    items, error = capture.run_block(textwrap.dedent(code), filename, {"__name__": "__main__"})
    json.dumps(items)  # every item travels as JSON
    return items, error


def kinds(items: list[Item]) -> list[str]:
    return [item["type"] if item["type"] != "stream" else item["name"] for item in items]


def decoded(item: Item) -> Image.Image:
    assert item["type"] == "image" and item["mime"] == "image/png"
    image = Image.open(io.BytesIO(base64.b64decode(item["data"])))
    image.load()
    assert image.format == "PNG"
    assert image.size == (item["width"], item["height"])
    return image


@pytest.fixture(autouse=True)
def _no_figures_left() -> Any:
    yield
    if "matplotlib.pyplot" in sys.modules:
        import matplotlib.pyplot as plt

        assert plt.get_fignums() == []  # every figure was shown and closed
        plt.close("all")


def test_the_module_is_the_theme_file_the_worker_fetches() -> None:
    assert capture_source().name == "runnable_capture.py"
    assert capture_source().parent.name == "js"
    assert (capture_source().parent / "runnable-worker.js").is_file()
    assert capture.__file__ == str(capture_source())
    assert sys.modules[MODULE_NAME] is capture
    worker = (capture_source().parent / "runnable-worker.js").read_text(encoding="utf-8")
    assert 'new URL("./runnable_capture.py", import.meta.url)' in worker
    for entry in ("runnable_capture.install()", "runnable_capture.Capture(_emit)",
                  "capture.finish(", "capture.fail(", "runnable_capture.no_input"):
        assert entry in worker


def test_show_gives_a_png_of_the_figure() -> None:
    items, error = run("""\
        import matplotlib.pyplot as plt
        plt.plot([1, 3, 2])
        plt.show()
    """)
    assert error == ""
    assert kinds(items) == ["image"]
    image = decoded(items[0])
    # 6.4 x 4.8 inches at 100 dpi, trimmed to the drawing.
    assert 450 <= image.width <= 660 and 350 <= image.height <= 500
    assert items[0]["alt"] == "Figure 1"


def test_a_figure_left_open_is_shown_at_the_end_with_its_title() -> None:
    items, _ = run("""\
        import matplotlib.pyplot as plt
        fig, ax = plt.subplots()
        ax.bar(["a", "b"], [3, 4])
        ax.set_title("Votes")
    """)
    assert kinds(items) == ["image"]
    decoded(items[0])
    assert items[0]["alt"] == "Votes"


def test_two_shows_give_two_images_and_nothing_twice() -> None:
    items, _ = run("""\
        import matplotlib.pyplot as plt
        plt.plot([1, 2])
        plt.suptitle("First")
        plt.show()
        plt.plot([2, 1])
        plt.title("Second")
        plt.show()
    """)
    assert kinds(items) == ["image", "image"]
    assert [item["alt"] for item in items] == ["First", "Second"]
    assert items[0]["data"] != items[1]["data"]
    assert run("print('next block')")[0] == [
        {"type": "stream", "name": "stdout", "text": "next block\n"}
    ]


def test_printed_text_and_figures_keep_their_order() -> None:
    items, _ = run("""\
        import sys
        import matplotlib.pyplot as plt
        print("before")
        plt.plot([1, 2])
        plt.show()
        print("between", file=sys.stderr)
        print("between too", file=sys.stderr)
        plt.plot([2, 1])
        print("after")
    """)
    assert kinds(items) == ["stdout", "image", "stderr", "stdout", "image"]
    assert [item["alt"] for item in items if item["type"] == "image"] == ["Figure 1", "Figure 2"]
    assert items[2]["text"] == "between\nbetween too\n"
    assert items[3]["text"] == "after\n"


def test_pyplot_return_values_show_no_repr_and_a_figure_value_shows_once() -> None:
    items, _ = run("""\
        import matplotlib.pyplot as plt
        plt.plot([1, 2])
    """)
    assert kinds(items) == ["image"]
    items, _ = run("""\
        import matplotlib.pyplot as plt
        fig = plt.figure()
        fig
    """)
    assert kinds(items) == ["image"]
    items, _ = run("""\
        from matplotlib.figure import Figure
        fig = Figure(figsize=(2, 1))
        fig.add_subplot().plot([1, 2])
        fig
    """)
    assert kinds(items) == ["image"]
    assert decoded(items[0]).width <= 200


def test_a_huge_figure_is_drawn_smaller() -> None:
    items, _ = run("""\
        import matplotlib.pyplot as plt
        plt.figure(figsize=(60, 8))
        plt.plot([1, 2])
    """)
    image = decoded(items[0])
    assert 1500 <= image.width <= capture.MAX_FIGURE_SIDE


def test_a_dataframe_shows_as_an_html_table() -> None:
    items, _ = run("""\
        import pandas as pd
        print("rows:", 2)
        pd.DataFrame({"x": [1, 2], "y": ["a", "b"]})
    """)
    assert kinds(items) == ["stdout", "html"]
    html = items[1]["html"]
    assert "<table" in html and "<th>y</th>" in html and "<td>b</td>" in html
    # pandas' notebook markup opens with <style scoped>, which HTML does not allow: the
    # table comes without it (and without the obsolete border attribute).
    assert html.startswith('<table class="dataframe">') and "<style" not in html


def test_a_long_dataframe_is_cut_as_pandas_display_options_say() -> None:
    items, _ = run("""\
        import pandas as pd
        pd.set_option("display.max_rows", 8)
        pd.set_option("display.min_rows", 4)
        pd.DataFrame({"n": range(1000, 1100)})
    """)
    (item,) = items
    html = item["html"]
    assert "<td>1000</td>" in html and "<td>1099</td>" in html  # the first and last rows
    assert "<td>1050</td>" not in html and "<td>...</td>" in html
    assert "100 rows × 1 columns" in html


def test_a_pil_image_shows_as_a_png() -> None:
    items, _ = run("""\
        from PIL import Image
        Image.new("RGB", (30, 20), "red")
    """)
    assert kinds(items) == ["image"]
    image = decoded(items[0])
    assert image.size == (30, 20)
    assert image.convert("RGB").getpixel((5, 5)) == (255, 0, 0)


def test_svg_and_png_reprs_of_any_object() -> None:
    items, _ = run("""\
        class Badge:
            def _repr_svg_(self):
                return '<svg xmlns="http://www.w3.org/2000/svg" width="12pt" height="30"/>'
        Badge()
    """)
    assert items == [{"type": "image", "mime": "image/svg+xml", "width": 16, "height": 30,
                      "alt": "Image", "data": '<svg xmlns="http://www.w3.org/2000/svg" '
                      'width="12pt" height="30"/>'}]
    items, _ = run("""\
        class Broken:
            def _repr_html_(self):
                raise ValueError("no")
            def __repr__(self):
                return "Broken()"
        Broken()
    """)
    assert items == [{"type": "result", "text": "Broken()"}]


def test_plain_values_show_their_repr() -> None:
    assert run("{'a': [1, 2]}")[0] == [{"type": "result", "text": "{'a': [1, 2]}"}]
    assert run("x = 1\nx;  # quiet")[0] == []
    assert run("None")[0] == []
    assert run("int")[0] == [{"type": "result", "text": "<class 'int'>"}]
    assert run("import asyncio\nawait asyncio.sleep(0)\n6 * 7")[0] == [
        {"type": "result", "text": "42"}
    ]


def test_a_block_that_awaits_runs_under_a_running_event_loop_too() -> None:
    import asyncio
    from concurrent.futures import ThreadPoolExecutor

    async def host() -> list[Item]:  # a program with its own loop in its thread
        return run("import asyncio\nawait asyncio.sleep(0)\n6 * 7")[0]

    # A thread of its own: the test process may have a loop running in this one already.
    with ThreadPoolExecutor(1) as pool:
        items = pool.submit(asyncio.run, host()).result()
    assert items == [{"type": "result", "text": "42"}]


def test_an_exception_gives_the_traceback_of_the_blocks_frames() -> None:
    items, error = run("""\
        def divide(a, b):
            return a / b

        print("before the error")
        divide(1, 0)
    """, filename="block 5")
    assert error == "ZeroDivisionError"
    assert kinds(items) == ["stdout", "error"]
    text = items[1]["text"]
    assert items[1]["name"] == "ZeroDivisionError"
    assert text.startswith("Traceback (most recent call last):\n")
    assert 'File "block 5", line 5, in <module>' in text
    assert 'File "block 5", line 2, in divide\n    return a / b' in text
    assert "runnable_capture" not in text and "execute" not in text
    assert text.rstrip().endswith("ZeroDivisionError: division by zero")


def test_syntax_errors_and_input_explain_themselves() -> None:
    items, error = run("def f(:\n    pass", filename="block 3")
    assert error == "SyntaxError"
    assert items[0]["text"].startswith('  File "block 3", line 1\n    def f(:\n')
    items, error = run("name = input('name? ')")
    assert error == "RuntimeError"
    assert "input() cannot read from the keyboard" in items[0]["text"]


def test_figures_open_when_the_block_fails_come_before_the_error() -> None:
    items, _ = run("""\
        import matplotlib.pyplot as plt
        plt.plot([1, 2])
        1 / 0
    """)
    assert kinds(items) == ["image", "error"]


def test_emit_hears_each_item_as_the_worker_posts_it() -> None:
    heard: list[Item] = []
    namespace: dict[str, Any] = {}
    capture.install()
    with capture.Capture(heard.append) as session:
        code = "import matplotlib.pyplot as plt\nplt.plot([1])\nplt.show()\n'done'"
        session.finish(capture.execute(code, "block 9", namespace))
    assert kinds(heard) == ["image", "result"]
    assert heard == session.items


def _fresh_python(code: str) -> Any:
    """What `code` prints as JSON, run by a new interpreter that has loaded the module."""
    script = textwrap.dedent("""\
        import json, os, sys
        from blogbuild.runtimes.capture import load_capture
        capture = load_capture()
    """) + textwrap.dedent(code)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          check=True, timeout=120)
    return json.loads(done.stdout.splitlines()[-1])


def test_no_heavy_import_unless_the_block_uses_it() -> None:
    result = _fresh_python("""\
        items, _ = capture.run_block("print(sum(range(4)))\\n[1, 2]", "block 1", {})
        heavy = sorted(m for m in sys.modules if m.split(".")[0] in ("matplotlib", "pandas",
                                                                       "PIL", "numpy"))
        print(json.dumps([items, heavy, os.environ.get("MPLBACKEND")]))
    """)
    items, heavy, backend = result
    assert items == [{"type": "stream", "name": "stdout", "text": "6\n"},
                     {"type": "result", "text": "[1, 2]"}]
    assert heavy == []
    assert backend == "module://runnable_capture_backend"


def test_matplotlib_imported_before_install_is_switched_to_the_capture() -> None:
    backend = _fresh_python("""\
        import matplotlib
        matplotlib.use("svg")
        items, _ = capture.run_block(
            "import matplotlib.pyplot as plt\\nplt.plot([1])\\nplt.show()", "block 1", {})
        print(json.dumps([matplotlib.get_backend(), [i["type"] for i in items]]))
    """)
    assert backend == ["module://runnable_capture_backend", ["image"]]
