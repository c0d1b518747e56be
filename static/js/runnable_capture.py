"""What a runnable Python block shows: its output as an ordered list of items.

One file for both interpreters: the browser's worker (runnable-worker.js) fetches it next to
itself and imports it into Pyodide as ``runnable_capture``; CPython loads the same file
(``blogbuild.runtimes.capture``). Nothing here imports Pyodide, and nothing imports
matplotlib, pandas or Pillow unless the block's own code did.

Output items (JSON-able dicts), in the order they happened:

- ``{"type": "stream", "name": "stdout" | "stderr", "text": str}``: printed text (the
  browser streams it as it comes; ``run_block`` collects it here, one item per run of the
  same stream).
- ``{"type": "image", "mime": "image/png", "data": base64 str, "width": int,
  "height": int, "alt": str}``: a matplotlib figure (at ``plt.show()``, and every figure
  still open when the block ends, closed once shown), or a final value with ``_repr_png_``
  (a PIL image). ``{"type": "image", "mime": "image/svg+xml", "data": svg text, …}``: a
  final value with ``_repr_svg_``. Width and height are pixels, 0 when unknown; alt is the
  figure's suptitle or first axes title, else "Figure N" (N counts the block's figures).
- ``{"type": "html", "html": str}``: a final value with ``_repr_html_`` (a pandas
  DataFrame or Styler), markup of the block's own making.
- ``{"type": "chart", "mime": str, "data": JSON}``: a final value that is a chart the page
  draws itself: an Altair chart's Vega-Lite spec, a Plotly figure's JSON.
- ``{"type": "result", "text": str}``: the repr of any other final value (none for None,
  for matplotlib artists, or after a trailing semicolon).
- ``{"type": "error", "name": str, "text": str}``: the exception that ended the block, its
  traceback trimmed to the block's own frames.

Figures still open and the final value come last, in that order. Preference for a final
value: HTML, SVG, PNG, repr (as notebooks do).

Entry points: ``install()`` once per interpreter (it routes ``plt.show()`` here); then for
each block a ``Capture(emit)`` used as a context manager around the code, ending with
``finish(value)`` or ``fail(exc, filename)``. ``run_block`` does all of it in CPython,
streams included.
"""

from __future__ import annotations

import ast
import base64
import builtins
import contextlib
import importlib.abc
import importlib.machinery
import io
import json
import linecache
import os
import re
import struct
import sys
import traceback
import types
from collections.abc import Callable, Iterator
from typing import Any

Item = dict[str, Any]

#: matplotlib's backend for blocks: Agg, with ``show()`` handing figures to the capture.
BACKEND_MODULE = "runnable_capture_backend"
BACKEND = f"module://{BACKEND_MODULE}"
FIGURE_DPI = 100
#: A figure's longer side is at most this many pixels: the dpi shrinks to fit.
MAX_FIGURE_SIDE = 2000

_active: Capture | None = None


class Capture:
    """Collects one run's output items; `emit` hears each non-stream item as it is made."""

    def __init__(self, emit: Callable[[Item], None] | None = None) -> None:
        self.items: list[Item] = []
        self.emit = emit
        self.figures = 0  # shown so far: the next untitled one is "Figure <figures + 1>"

    def __enter__(self) -> Capture:
        global _active
        _active = self
        return self

    def __exit__(self, *exc: object) -> None:
        global _active
        _active = None
        _flush_streams()

    def stream(self, name: str, text: str) -> None:
        if not text:
            return
        last = self.items[-1] if self.items else None
        if last is not None and last["type"] == "stream" and last["name"] == name:
            last["text"] += text
        else:
            self.items.append({"type": "stream", "name": name, "text": text})

    def add(self, item: Item) -> None:
        _flush_streams()  # what was printed before the item comes before it
        self.items.append(item)
        if self.emit is not None:
            self.emit(item)

    def show(self) -> None:
        """Every open matplotlib figure as an image, then closed (``plt.show()``)."""
        for figure in _open_figures():
            self.figures += 1
            self.add(figure_item(figure, self.figures))
            _close(figure)

    def finish(self, value: object) -> None:
        """The end of a block that ran: open figures, then the final value (if any)."""
        if _figure_value(value) is not None and value in _open_figures():
            value = None  # shown with the other open figures
        self.show()
        item = value_item(value, self.figures + 1)
        if item is not None:
            self.add(item)

    def fail(self, exc: BaseException, filename: str) -> None:
        """The end of a block that raised: open figures, then the error."""
        with contextlib.suppress(Exception):
            self.show()
        self.add({"type": "error", "name": type(exc).__name__,
                  "text": format_exception(exc, filename)})


# --- matplotlib ------------------------------------------------------------------------------


def install() -> None:
    """Make matplotlib draw with Agg and ``plt.show()`` report here (idempotent, no import)."""
    if not any(type(f).__name__ == "_BackendFinder" for f in sys.meta_path):
        sys.meta_path.append(_BackendFinder())
    if "matplotlib" in sys.modules:
        import matplotlib

        matplotlib.use(BACKEND)
    else:
        os.environ["MPLBACKEND"] = BACKEND


class _BackendFinder(importlib.abc.MetaPathFinder):
    """Makes the backend module when matplotlib asks for it: Agg is imported then, not
    when a block starts."""

    def find_spec(self, name: str, path: object = None,
                  target: object = None) -> importlib.machinery.ModuleSpec | None:
        if name != BACKEND_MODULE:
            return None
        return importlib.machinery.ModuleSpec(name, _BackendLoader())


class _BackendLoader(importlib.abc.Loader):
    def create_module(self, spec: importlib.machinery.ModuleSpec) -> None:
        return None

    def exec_module(self, module: types.ModuleType) -> None:
        from matplotlib.backends.backend_agg import FigureCanvasAgg

        vars(module).update(FigureCanvas=FigureCanvasAgg, show=_backend_show)


def _backend_show(*args: object, **kwargs: object) -> None:
    if _active is not None:
        _active.show()


def _open_figures() -> list[Any]:
    if "matplotlib.pyplot" not in sys.modules:
        return []
    from matplotlib._pylab_helpers import Gcf

    managers = sorted(Gcf.get_all_fig_managers(), key=lambda m: m.num)
    return [manager.canvas.figure for manager in managers]


def _close(figure: Any) -> None:
    import matplotlib.pyplot as plt

    plt.close(figure)


def figure_item(figure: Any, number: int) -> Item:
    """A matplotlib figure, the block's `number`th, as a PNG image item."""
    width, height = figure.get_size_inches()
    dpi = min(FIGURE_DPI, MAX_FIGURE_SIDE / max(width, height, 0.01))
    buffer = io.BytesIO()
    # No "Software" chunk: the PNG's bytes then depend on the drawing, not on the install
    # (a page with figures from the build stays byte-identical).
    figure.savefig(buffer, format="png", dpi=dpi, bbox_inches="tight",
                   metadata={"Software": None})
    return png_item(buffer.getvalue(), figure_alt(figure, number))


def figure_alt(figure: Any, number: int) -> str:
    """The figure's suptitle, else its first axes title, else "Figure <number>"."""
    titles = [figure.get_suptitle()]
    for axes in figure.get_axes():
        titles += [axes.get_title(loc) for loc in ("center", "left", "right")]
    return next((t.strip() for t in titles if t.strip()), f"Figure {number}")


def _is_artist_value(value: object) -> bool:
    """Whether `value` is what pyplot calls return (lines, a title): no output of its own."""
    artist = sys.modules.get("matplotlib.artist")
    if artist is None:
        return False
    if isinstance(value, (list, tuple)) and value:
        return all(isinstance(v, artist.Artist) for v in value)
    return isinstance(value, artist.Artist)


def _figure_value(value: object) -> Any:
    module = sys.modules.get("matplotlib.figure")
    return value if module is not None and isinstance(value, module.Figure) else None


# --- final values ----------------------------------------------------------------------------


def value_item(value: object, figure_number: int = 1) -> Item | None:
    """The item showing a final expression's value; None when it shows nothing."""
    if value is None:
        return None
    figure = _figure_value(value)
    if figure is not None:
        return figure_item(figure, figure_number)
    if _is_artist_value(value):
        return None
    chart = _chart_item(value)
    if chart is not None:
        return chart
    html: object = _pandas_table(value)
    if html is None:
        html = _rich(value, "_repr_html_")
    if isinstance(html, str):
        return {"type": "html", "html": html}
    svg = _rich(value, "_repr_svg_")
    if isinstance(svg, bytes):
        svg = svg.decode("utf-8", "replace")
    if isinstance(svg, str):
        width, height = svg_size(svg)
        return {"type": "image", "mime": "image/svg+xml", "data": svg, "width": width,
                "height": height, "alt": _alt(value)}
    png = _rich(value, "_repr_png_")
    if isinstance(png, bytes) and png.startswith(b"\x89PNG"):
        return png_item(png, _alt(value))
    return {"type": "result", "text": repr(value)}


#: The output forms of charts the page draws itself (Altair's, Plotly's): preferred to
#: their HTML, which loads the chart's library from a CDN.
_CHART_MIMES = re.compile(r"application/vnd\.(vegalite|vega)\.v\d+\+json|"
                          r"application/vnd\.plotly\.v1\+json")


def _chart_item(value: object) -> Item | None:
    """A chart's item, ``{"type": "chart", "mime": str, "data": its JSON}``: an Altair
    chart's Vega-Lite spec (what its ``_repr_mimebundle_`` gives), a Plotly figure's JSON."""
    module = (type(value).__module__ or "").partition(".")[0]
    if module == "plotly" and callable(getattr(value, "to_json", None)):
        try:
            figure = json.loads(value.to_json())  # type: ignore[attr-defined]
        except Exception:  # not a figure after all
            return None
        return {"type": "chart", "mime": "application/vnd.plotly.v1+json", "data": figure}
    if module == "altair" and callable(getattr(value, "to_dict", None)):
        try:  # its spec, whichever renderer Altair has (outside Jupyter: its HTML)
            spec = json.loads(json.dumps(value.to_dict()))  # type: ignore[attr-defined]
        except Exception:  # an invalid chart: Altair says why in its repr
            return None
        return {"type": "chart", "mime": "application/vnd.vegalite.v5+json", "data": spec}
    bundle = _rich(value, "_repr_mimebundle_")
    if isinstance(bundle, tuple) and bundle:
        bundle = bundle[0]
    if isinstance(bundle, dict):
        for mime, data in bundle.items():
            if isinstance(mime, str) and _CHART_MIMES.fullmatch(mime):
                return {"type": "chart", "mime": mime, "data": data}
    return None


def _pandas_table(value: object) -> str | None:
    """A pandas DataFrame's table as notebooks show it, without the ``<style scoped>`` block
    its notebook markup starts with (HTML no longer allows ``scoped``, and the page's own
    table style applies). The display options (rows, columns, dimensions) are pandas'."""
    module = (type(value).__module__ or "").partition(".")[0]
    if module != "pandas" or type(value).__name__ != "DataFrame":
        return None
    pandas = sys.modules.get("pandas")
    to_html = getattr(value, "to_html", None)
    if pandas is None or not callable(to_html):
        return None
    option = pandas.get_option
    try:
        rows = option("display.max_rows")
        shown = option("display.min_rows") if len(value) > rows else rows  # type: ignore[arg-type]
        table = to_html(max_rows=shown, max_cols=option("display.max_columns"),
                        show_dimensions=option("display.show_dimensions"), border=0)
    except Exception:  # an old or odd pandas: its own notebook markup
        return None
    return table if isinstance(table, str) else None


def _rich(value: object, name: str) -> object:
    if isinstance(value, type):  # a class has the method, not its output
        return None
    method = getattr(value, name, None)
    if not callable(method):
        return None
    try:
        return method()
    except Exception:  # a broken rich repr falls back to the next one, as in notebooks
        return None


def _alt(value: object) -> str:
    return "Image"


def png_item(data: bytes, alt: str) -> Item:
    width, height = png_size(data)
    return {"type": "image", "mime": "image/png", "data": base64.b64encode(data).decode("ascii"),
            "width": width, "height": height, "alt": alt}


def png_size(data: bytes) -> tuple[int, int]:
    """Width and height from a PNG's header (0, 0 when it has none)."""
    if len(data) < 24 or data[12:16] != b"IHDR":
        return 0, 0
    width, height = struct.unpack(">II", data[16:24])
    return int(width), int(height)


def svg_size(svg: str) -> tuple[int, int]:
    """Pixel width and height from the root's attributes or viewBox (0, 0 when unknown)."""
    from xml.etree import ElementTree

    try:
        root = ElementTree.fromstring(svg)
    except ElementTree.ParseError:
        return 0, 0
    width, height = _length(root.get("width")), _length(root.get("height"))
    if width and height:
        return width, height
    box = (root.get("viewBox") or "").replace(",", " ").split()
    if len(box) == 4:
        with contextlib.suppress(ValueError):
            return round(float(box[2])), round(float(box[3]))
    return 0, 0


_UNITS = {"": 1.0, "px": 1.0, "pt": 4 / 3, "in": 96.0, "cm": 96 / 2.54, "mm": 96 / 25.4}


def _length(text: str | None) -> int:
    text = (text or "").strip()
    number = text.rstrip("abcdefghijklmnopqrstuvwxyz%")
    factor = _UNITS.get(text[len(number):])
    try:
        return 0 if factor is None else round(float(number) * factor)
    except ValueError:
        return 0


# --- errors ----------------------------------------------------------------------------------


def format_exception(exc: BaseException, filename: str) -> str:
    """The traceback from the block's first frame on (the runner's frames mean nothing)."""
    tb = exc.__traceback__
    while tb is not None and tb.tb_frame.f_code.co_filename != filename:
        tb = tb.tb_next
    if tb is None and isinstance(exc, SyntaxError):
        # Raised while compiling: no frame of the block exists, only the error itself.
        return "".join(traceback.format_exception_only(type(exc), exc))
    if tb is None:
        tb = exc.__traceback__
    return "".join(traceback.format_exception(type(exc), exc, tb))


def no_input(prompt: object = "") -> str:
    """Replaces ``input()``: a block has no keyboard to read from."""
    raise RuntimeError(
        "input() cannot read from the keyboard in a runnable block; "
        "set the value in the code instead"
    )


# --- CPython: running a whole block ----------------------------------------------------------


class _Writer(io.TextIOBase):
    def __init__(self, capture: Capture, name: str) -> None:
        self.capture = capture
        self.name_ = name

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        self.capture.stream(self.name_, text)
        return len(text)


@contextlib.contextmanager
def _streams(capture: Capture) -> Iterator[None]:
    out, err = _Writer(capture, "stdout"), _Writer(capture, "stderr")
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        yield


def _flush_streams() -> None:
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()


def execute(code: str, filename: str, namespace: dict[str, Any]) -> object:
    """Run `code` as Pyodide's CodeRunner does for a block: the value of a final
    expression (None after a trailing semicolon), top-level await allowed."""
    lines = code.splitlines(keepends=True)
    linecache.cache[filename] = (len(code), None, lines, filename)
    flags = ast.PyCF_ALLOW_TOP_LEVEL_AWAIT
    tree = ast.parse(code, filename)
    last = tree.body[-1] if tree.body else None
    expression = None
    if isinstance(last, ast.Expr):
        tree.body.pop()
        end_line = lines[last.end_lineno - 1] if last.end_lineno else ""
        quiet = end_line[last.end_col_offset or 0:].lstrip().startswith(";")
        expression = None if quiet else ast.Expression(last.value)
        if quiet:
            tree.body.append(last)
    _run(compile(tree, filename, "exec", flags=flags), namespace)
    if expression is None:
        return None
    return _run(compile(expression, filename, "eval", flags=flags), namespace)


def _run(code: types.CodeType, namespace: dict[str, Any]) -> object:
    result = eval(code, namespace)
    if code.co_flags & 0x80:  # CO_COROUTINE: the block awaits at top level
        import asyncio

        try:
            asyncio.get_running_loop()
        except RuntimeError:  # the usual case: no event loop runs in this thread
            return asyncio.run(result)
        # A host program's loop runs in this thread (asyncio.run refuses): the block's
        # coroutine gets a loop in a thread of its own.
        import concurrent.futures

        with concurrent.futures.ThreadPoolExecutor(1) as pool:
            return pool.submit(asyncio.run, result).result()
    return result


def run_block(code: str, filename: str, namespace: dict[str, Any]) -> tuple[list[Item], str]:
    """Run a block in CPython as the browser does: (its output items, the name of the
    exception that ended it or ""). A KeyboardInterrupt is not the block's: it propagates."""
    install()
    capture = Capture()
    saved_input = builtins.input
    builtins.input = no_input
    try:
        with _streams(capture), capture:
            try:
                capture.finish(execute(code, filename, namespace))
            except (Exception, SystemExit) as exc:  # the block's own errors are its output
                capture.fail(exc, filename)
                return capture.items, type(exc).__name__
    finally:
        builtins.input = saved_input
    return capture.items, ""
