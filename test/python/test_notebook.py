"""Reports, traces and mismatches in a notebook: their HTML, the lines of a cell, and the
notebook route run in a real Jupyter kernel (nbclient, ipykernel) and shown in a real headless
Chromium.

The kernel tests run examples/offloaded_state.ipynb (``%load_ext hostoffload``: a step that
fails with E1200, then its fix, its report and its trace) and a notebook of the other two routes
(``HOSTOFFLOAD_WATCH`` set for the kernel, ``hostoffload.watch()`` in a cell); they skip
without nbclient and ipykernel (the ``test`` extra has them), the browser tests without
Chromium.
"""

from __future__ import annotations

import dataclasses
import html
import json
import linecache
import os
import re
import shutil
import struct
import subprocess
import sys
import warnings
import zlib
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import EXAMPLE, REPO_ROOT
from test_trace_page import CHROMIUM, DomReader, Element, needs_browser

import hostoffload
from hostoffload import _cells, _html, compile_hook
from hostoffload.codes import help_uri, xla_page
from hostoffload.compile_hook import MismatchError, MismatchWarning
from hostoffload.diagnostic import Location, Note
from hostoffload.report import Report
from hostoffload.trace_page import render_page

NOTEBOOK = REPO_ROOT / "examples" / "offloaded_state.ipynb"
# The lines of the step in the notebook's failing cell (its code cell 3), as the report shows
# them: output 0 is the returned difference, output 1 the new state.
STEP_RETURN = "    return params - new_state, new_state"
STEP_NEW_STATE = "    new_state = opt_state * 0.9 + params"
COMPILE_LINE = "compiled = jax.jit(step).lower(params, opt_state).compile()"
# The name of the kernel spec the tests run their notebooks with.
KERNEL = "hostoffload-test-python"
# Seconds a cell may take in the kernel: importing JAX and the first check are the slowest.
CELL_SECONDS = 120
ANSI = re.compile(r"\x1b\[[0-9;]*m")


@pytest.fixture
def example_report(monkeypatch: pytest.MonkeyPatch) -> Report:
    """The bundled example's report; its locations name examples/offloaded_state.py relative
    to the repository root, where the source windows are read from."""
    monkeypatch.chdir(REPO_ROOT)
    return hostoffload.check(EXAMPLE)


def elements(fragment: str) -> Element:
    reader = DomReader()
    reader.feed(fragment)
    return reader.root


# --- the HTML of a report, a trace, a mismatch ------------------------------------------------
def test_a_report_shows_its_summary_findings_windows_notes_fixes_and_links(
    example_report: Report,
) -> None:
    dom = elements(example_report._repr_html_())
    summary = dom.one("div", class_="hostoffload-report").one("p", class_="ho-summary").text
    assert summary == f"{example_report.source}: {example_report.summary}"
    findings = list(dom.all("details", class_="ho-finding"))
    # Two E1200s, then HOW101: host compute on the state.
    assert len(findings) == len(example_report.findings) == 3
    for finding, shown in zip(example_report.findings, findings, strict=True):
        assert "open" in shown.attrs
        head = shown.one("summary").text
        assert head == (
            f"{finding.severity} {finding.code} at {finding.location.file}:"
            f"{finding.location.line}:{finding.location.column}: "
            f"{finding.message.removeprefix(finding.code + ': ')}"
        )
        if finding.code != "E1200":
            continue
        # The window: the line's neighbours, the line itself marked, a caret at its column.
        window = next(shown.all("pre", class_="ho-window")).text.splitlines()
        source = (REPO_ROOT / "examples" / "offloaded_state.py").read_text().splitlines()
        line = finding.location.line
        assert f"{line} | {source[line - 1]}" in window
        assert f"{line - 1} | {source[line - 2]}" in window
        caret = window[window.index(f"{line} | {source[line - 1]}") + 1]
        assert caret.index("^") == len(f"{line} | ") + finding.location.column - 1
        notes = [li.text for li in shown.one("ul", class_="ho-notes").all("li")]
        assert any("in host memory from the start: argument 'opt_state'" in n for n in notes)
        assert any(n.startswith("examples/offloaded_state.py:") for n in notes)
        fixes = [li.text for li in shown.one("ul", class_="ho-fixes").all("li")]
        assert [fix.split(":")[0] for fix in fixes] == [
            "keep it in host memory",
            "bring it back to device memory",
        ]
        for fix, text in zip(finding.fixes, fixes, strict=True):
            assert fix.jax_change in text and fix.module_change in text
        links = {a.attrs["href"] for a in shown.all("a")}
        assert links == {help_uri(), xla_page("E1200")}
    fix = example_report.jax_fix()
    assert fix is not None and html.escape(fix) in example_report._repr_html_()


def test_plain_text_stays_as_it_was(example_report: Report) -> None:
    assert str(example_report) == example_report.to_text()
    assert repr(example_report).startswith("Report(entry='main'")
    assert "<" not in str(example_report)
    error = MismatchError(example_report)
    assert str(error) == example_report.to_text(jax_fix=True)


def test_a_long_report_is_collapsed(example_report: Report) -> None:
    (first, *_) = example_report.findings
    for count, opened in ((_html.COLLAPSED_ABOVE_FINDINGS, True), (21, False)):
        report = dataclasses.replace(example_report, findings=(first,) * count)
        shown = list(elements(report._repr_html_()).all("details", class_="ho-finding"))
        assert len(shown) == count
        assert {"open" in each.attrs for each in shown} == {opened}


def test_a_report_of_many_findings_shows_the_first_and_counts_the_rest(
    example_report: Report,
) -> None:
    (first, *_) = example_report.findings
    count = _html.SHOWN_FINDINGS + 7
    report = dataclasses.replace(example_report, findings=(first,) * count)
    dom = elements(report._repr_html_())
    assert len(list(dom.all("details", class_="ho-finding"))) == _html.SHOWN_FINDINGS
    assert dom.one("p", class_="ho-more").text.startswith("... and 7 more findings")


def test_everything_a_report_shows_is_escaped(example_report: Report) -> None:
    markup = "<img src=x onerror=alert(1)>'\"&"
    (first, *_) = example_report.findings
    marked = dataclasses.replace(
        first,
        message=markup,
        notes=(Note(markup, Location(markup + ".py", 1, 1, markup)),),
        location=Location(markup, 3, 1, "loc(x)"),
    )
    report = dataclasses.replace(example_report, source=markup, entry=markup, findings=(marked,))
    shown = report._repr_html_()
    assert "<img" not in shown
    dom = elements(shown)
    assert markup in dom.one("summary").text
    assert f"{markup}: @{markup}" in dom.one("p", class_="ho-summary").text


def test_a_mismatch_shows_its_report_under_what_happened(example_report: Report) -> None:
    on_tpu = dataclasses.replace(example_report, source="jit_step", platform="tpu")
    shown = MismatchError(on_tpu, ("result[0]", "result[1]"))._repr_html_()
    heading = elements(shown).one("p", class_="ho-heading").text
    assert heading == (
        "MismatchError: XLA for TPU would reject jit_step; stopped before XLA compiled it"
    )
    fix = example_report.jax_fix(("result[0]", "result[1]"))
    assert fix is not None and f"<pre>{html.escape(fix)}</pre>" in shown
    warning = elements(MismatchWarning(example_report)._repr_html_())
    assert warning.one("p", class_="ho-heading").text == (
        f"MismatchWarning: XLA would reject {example_report.source}; compiled it"
    )


def test_a_trace_shows_its_page_in_a_sandboxed_frame() -> None:
    trace = hostoffload.trace(EXAMPLE)
    (frame,) = elements(trace._repr_html_()).all("iframe")
    assert frame.attrs["sandbox"] == "allow-scripts"
    # The page whole, as `hostoffload trace --format html` writes it: its policy stops any
    # request, and nothing else is loaded.
    assert frame.attrs["srcdoc"] == trace.to_html()
    assert "src" not in frame.attrs
    assert "default-src 'none'" in frame.attrs["srcdoc"]


def test_the_extension_starts_one_watch_and_unloading_stops_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(warnings, "showwarning", warnings.showwarning)
    monkeypatch.setenv("HOSTOFFLOAD_PLATFORM", "cuda")
    before = list(compile_hook._active)
    hostoffload.load_ipython_extension(None)
    hostoffload.load_ipython_extension(None)  # %load_ext again, or %reload_ext
    (started,) = [w for w in compile_hook._active if w not in before]
    assert (started.action, started.platform) == ("error", "cuda")
    hostoffload.unload_ipython_extension(None)
    assert compile_hook._active == before


def test_loading_the_extension_imports_nothing_heavy() -> None:
    """``%load_ext hostoffload`` imports neither JAX (the hooks go in when the notebook
    imports it) nor MLIR nor IPython's display machinery."""
    code = (
        "import sys, hostoffload; hostoffload.load_ipython_extension(None); "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('jax', 'IPython') "
        "or m.startswith('hostoffload.mlir')))"
    )
    environment = {k: v for k, v in os.environ.items() if not k.startswith("HOSTOFFLOAD_")}
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, env=environment
    )
    assert (done.returncode, done.stdout) == (0, "[]\n"), done.stderr


def test_a_report_with_a_trace_shows_it_below(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(REPO_ROOT)
    report = hostoffload.check(EXAMPLE, trace=True)
    assert report.trace is not None
    dom = elements(report._repr_html_())
    (trace,) = [details for details in dom.all("details") if "ho-finding" not in details.classes]
    assert trace.one("summary").text == "Trace"
    (frame,) = trace.all("iframe")
    assert frame.attrs["srcdoc"] == report.trace.to_html()


def test_markup_in_a_trace_stays_inside_its_frame() -> None:
    document = json.loads(hostoffload.trace(EXAMPLE).to_json())
    markup = "'></iframe><img src=x onerror=alert(1)><iframe srcdoc='"
    document["starts"][0]["name"] = markup
    dom = elements(_html.trace_html(document, markup))
    assert list(dom.all("img")) == []
    (frame,) = dom.all("iframe")
    assert frame.attrs["srcdoc"] == render_page(document, title=markup)


# --- the lines of a cell ------------------------------------------------------------------------
@pytest.fixture
def cell_file() -> Iterator[str]:
    """A cell's code, kept in ``linecache`` as IPython keeps it, under a name no file has."""
    name = "/nonexistent/ipykernel_1/8a9b.py"
    lines = ["def step(x):\n", "    y = x * 2\n", "    return y, x\n"]
    linecache.cache[name] = (sum(map(len, lines)), None, lines, name)
    yield name
    del linecache.cache[name]


def test_a_finding_in_a_cell_shows_the_cell_s_lines(example_report: Report, cell_file: str) -> None:
    finding = dataclasses.replace(
        example_report.findings[0], location=Location(cell_file, 3, 12, "loc(x)"), notes=()
    )
    report = dataclasses.replace(example_report, findings=(finding,))
    window = elements(report._repr_html_()).one("pre", class_="ho-window").text
    assert window.splitlines() == [
        "1 | def step(x):",
        "2 |     y = x * 2",
        "3 |     return y, x",
        "  |            ^",
    ]
    # Not a notebook: no cell is named.
    assert _cells.place(cell_file, 3, 12) == f"{cell_file}:3:12"


def test_a_file_that_is_no_python_source_shows_no_window(example_report: Report) -> None:
    finding = dataclasses.replace(
        example_report.findings[0], location=Location(str(EXAMPLE), 3, 1, "loc(x)"), notes=()
    )
    report = dataclasses.replace(example_report, findings=(finding,))
    assert "ho-window" not in report._repr_html_()


def test_a_long_source_line_is_shown_around_its_caret(
    example_report: Report, cell_file: str
) -> None:
    long_line = "x = f(" + ", ".join(f"a{i}" for i in range(100)) + ")\n"
    linecache.cache[cell_file][2][1] = long_line
    finding = dataclasses.replace(
        example_report.findings[0], location=Location(cell_file, 2, 300, "loc(x)"), notes=()
    )
    report = dataclasses.replace(example_report, findings=(finding,))
    rows = elements(report._repr_html_()).one("pre", class_="ho-window").text.splitlines()
    shown = rows[1][len("2 | ") :]
    assert shown.startswith("...") and shown.endswith("...")
    assert len(shown) == _html.WIDEST_LINE + 6
    caret = rows[2].index("^") - len("  | ")
    assert shown[caret] == long_line[299]


# --- a real kernel ----------------------------------------------------------------------------
def executed(notebook: Any, directory: Path, environment: dict[str, str]) -> Any:
    """``notebook`` run in a fresh kernel of this Python (ipykernel) in ``directory``, with
    ``environment`` set, every cell whatever the others raised: the tests say which cells may
    fail. The kernel is this interpreter's by a kernel spec of the test's own, whatever
    ``python3`` kernel the machine has."""
    nbclient = pytest.importorskip("nbclient")
    pytest.importorskip("ipykernel")
    spec = directory / "jupyter" / "kernels" / KERNEL
    spec.mkdir(parents=True)
    argv = [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"]
    (spec / "kernel.json").write_text(
        json.dumps({"argv": argv, "display_name": KERNEL, "language": "python"})
    )
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("JUPYTER_PATH", str(directory / "jupyter"))
        patch.setenv("JAX_PLATFORMS", "cpu")
        for name in ("HOSTOFFLOAD_WATCH", "HOSTOFFLOAD_PLATFORM"):
            patch.delenv(name, raising=False)
        for name, value in environment.items():
            patch.setenv(name, value)
        client = nbclient.NotebookClient(
            notebook,
            timeout=CELL_SECONDS,
            kernel_name=KERNEL,
            allow_errors=True,
            resources={"metadata": {"path": str(directory)}},
        )
        return client.execute()


def code_cells(notebook: Any) -> list[Any]:
    return [cell for cell in notebook.cells if cell.cell_type == "code"]


def outputs_of(cell: Any, output_type: str) -> list[Any]:
    return [output for output in cell.outputs if output.output_type == output_type]


def html_of(cell: Any) -> str:
    (shown,) = [
        output.data["text/html"]
        for output in cell.outputs
        if output.output_type in ("display_data", "execute_result") and "text/html" in output.data
    ]
    return str(shown)


def traceback_of(cell: Any) -> tuple[Any, list[str]]:
    """The cell's error, and the first line of each frame of its traceback (``Cell In[3],
    line 6``, ``File /path/to/file.py:12, in f()``) as a person reads it."""
    (error,) = outputs_of(cell, "error")
    entries = [ANSI.sub("", entry) for entry in error.traceback]
    return error, [
        entry.splitlines()[0] for entry in entries if entry.startswith(("Cell In[", "File "))
    ]


@pytest.fixture(scope="module")
def example_run(tmp_path_factory: pytest.TempPathFactory) -> Any:
    nbformat = pytest.importorskip("nbformat")
    directory = tmp_path_factory.mktemp("notebook")
    return executed(nbformat.read(NOTEBOOK, as_version=4), directory, {})


def test_the_example_stops_the_failing_cell_with_its_report(example_run: Any) -> None:
    # The fixed cell compiles on CPU, which not every jaxlib can (the next test).
    load, setup, failing, _, checked, traced = code_cells(example_run)
    for cell in (load, setup, checked, traced):
        assert outputs_of(cell, "error") == [], cell.source
    cell = f"Cell In[{failing.execution_count}]"
    # The report as HTML only: the traceback below has it as text.
    (shown,) = outputs_of(failing, "display_data")
    assert list(shown.data) == ["text/html"]
    dom = elements(html_of(failing))
    heading = dom.one("p", class_="ho-heading").text
    assert heading == (
        "MismatchError: XLA for TPU would reject jit_step; stopped before XLA compiled it"
    )
    findings = list(dom.all("details", class_="ho-finding"))
    heads = [finding.one("summary").text for finding in findings]
    assert [head.split(":")[0] for head in heads] == [
        f"error E1200 at {cell}, line 3",
        f"error E1200 at {cell}, line 2",
        f"warning HOW101 at {cell}, line 2",
    ]
    windows = [next(f.all("pre", class_="ho-window")).text for f in findings]
    assert f"3 | {STEP_RETURN}" in windows[0] and f"2 | {STEP_NEW_STATE}" in windows[1]
    assert "ipykernel_" not in dom.text
    # The error itself: the traceback ends at the line that compiles, in the cell, and says
    # what the report says, the cell named as IPython names it.
    error, frames = traceback_of(failing)
    assert error.ename == "MismatchError"
    assert f"{cell}, line 3: error: E1200:" in error.evalue
    assert "ipykernel_" not in error.evalue
    assert frames == [f"{cell}, line 6"]
    assert COMPILE_LINE in ANSI.sub("", error.traceback[2])


@pytest.mark.usefixtures("cpu_host_memory")
def test_the_example_s_fixed_cell_compiles(example_run: Any) -> None:
    fixed = code_cells(example_run)[3]
    assert outputs_of(fixed, "error") == []
    assert [output.text for output in outputs_of(fixed, "stream")] == ["compiled\n"]


def test_the_example_shows_a_report_and_a_trace(example_run: Any) -> None:
    checked, traced = code_cells(example_run)[4:]
    report = elements(html_of(checked))
    assert report.one("p", class_="ho-summary").text.startswith("@main (TPU lowering): 0 errors")
    (frame,) = elements(html_of(traced)).all("iframe")
    assert frame.attrs["sandbox"] == "allow-scripts"
    assert "opt_state" in frame.attrs["srcdoc"]


ROUTES_SETUP = """\
import jax
import jax.numpy as jnp
from jax.sharding import SingleDeviceSharding

import hostoffload

host = SingleDeviceSharding(jax.devices()[0], memory_kind="pinned_host")
state = jax.ShapeDtypeStruct((4,), jnp.float32, sharding=host)
"""
ROUTES_CELLS = (
    ROUTES_SETUP,
    # HOSTOFFLOAD_WATCH=1, set for the kernel: an error.
    "doubled = jax.jit(lambda x: x * 2).lower(state).compile()",
    # A watch in a cell: a warning shown as its report, and the cell runs on.
    "with hostoffload.watch('warn'):\n    jax.jit(lambda x: (x, x * 7)).lower(state).compile()\n"
    "print('compiled')",
    # A watch started in a cell watches the later cells.
    "recorder = hostoffload.watch('record').start()",
    "jax.jit(lambda x: x * 3).lower(state).compile()\nrecorder.stop()\n"
    "print(len(recorder.reports))",
)


@pytest.fixture(scope="module")
def routes_run(tmp_path_factory: pytest.TempPathFactory) -> Any:
    nbformat = pytest.importorskip("nbformat")
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [nbformat.v4.new_code_cell(source) for source in ROUTES_CELLS]
    directory = tmp_path_factory.mktemp("routes")
    return executed(notebook, directory, {"HOSTOFFLOAD_WATCH": "1"})


def test_the_environment_variable_watches_the_kernel(routes_run: Any) -> None:
    setup, failing = code_cells(routes_run)[:2]
    assert outputs_of(setup, "error") == []
    cell = f"Cell In[{failing.execution_count}]"
    dom = elements(html_of(failing))
    assert dom.one("p", class_="ho-heading").text.startswith("MismatchError")
    assert next(dom.all("summary")).text.startswith(f"error E1200 at {cell}, line 1: ")
    _, frames = traceback_of(failing)
    assert frames == [f"{cell}, line 1"]


def test_a_watch_in_a_cell_shows_its_warning_as_a_report(routes_run: Any) -> None:
    warned = code_cells(routes_run)[2]
    assert outputs_of(warned, "error") == []
    dom = elements(html_of(warned))
    heading = dom.one("p", class_="ho-heading").text
    assert heading.startswith("MismatchWarning:") and heading.endswith("; compiled it")
    # Output 1, x * 7, at its line of the cell (output 0 is the argument itself, which older
    # JAX releases locate nowhere).
    summaries = [summary.text for summary in dom.all("summary")]
    line = f"error E1200 at Cell In[{warned.execution_count}], line 2: "
    assert any(summary.startswith(line) for summary in summaries), summaries
    # Shown as a report, not also printed as text; the text is there for front ends that
    # show no HTML.
    assert [output.text for output in outputs_of(warned, "stream")] == ["compiled\n"]
    (shown,) = outputs_of(warned, "display_data")
    text = shown.data["text/plain"]
    assert f"\nCell In[{warned.execution_count}], line 2: error: E1200:" in text, text
    assert "ipykernel_" not in text


def test_in_a_terminal_ipython_the_error_is_text_at_the_cell_s_lines() -> None:
    """IPython in a terminal: no HTML, the traceback ends at the user's line, and the text
    names the cell as IPython does (its cells are ``<ipython-input-1-...>`` there)."""
    pytest.importorskip("IPython")
    code = ROUTES_SETUP + "hostoffload.watch().start()\n" + ROUTES_CELLS[1]
    environment = {k: v for k, v in os.environ.items() if not k.startswith("HOSTOFFLOAD_")}
    done = subprocess.run(
        [sys.executable, "-m", "IPython", "--no-banner", "-c", code],
        capture_output=True,
        text=True,
        timeout=120,
        env={**environment, "JAX_PLATFORMS": "cpu"},
    )
    shown = ANSI.sub("", done.stdout + done.stderr)
    traceback, _, message = shown.partition("\nMismatchError: ")
    frames = [line for line in traceback.splitlines() if line.startswith(("Cell In[", "File "))]
    assert frames == ["Cell In[1], line 10"], shown
    assert message.startswith("Cell In[1], line 10: error: E1200:"), shown
    assert "ipython-input" not in shown and "<div" not in shown


def test_a_watch_started_in_a_cell_watches_later_cells(routes_run: Any) -> None:
    recorded = code_cells(routes_run)[4]
    assert outputs_of(recorded, "error") == []
    assert [output.text for output in outputs_of(recorded, "stream")] == ["1\n"]


# --- the notebook in a browser --------------------------------------------------------------
TESSERACT = shutil.which("tesseract")
# The windows the screenshots are taken in (CSS pixels), and the pixels per CSS pixel.
REPORT_WINDOW = (1000, 640)
TRACE_WINDOW = (1000, 560)
SCALE = 2
needs_ocr = pytest.mark.skipif(
    TESSERACT is None,
    reason="no tesseract on PATH: the screenshots are read with it; on Debian or Ubuntu: "
    "apt-get install tesseract-ocr",
)


def notebook_page(cells: Iterable[Any]) -> str:
    """Executed code cells as one page, as a notebook's front end shows them: each cell's
    source, then its outputs (HTML as it is, text and tracebacks as text)."""
    parts = ["<!DOCTYPE html><html><head><meta charset='utf-8'><title>notebook</title>"]
    parts.append("<style>body{font-family:sans-serif;margin:16px} .cell{margin:12px 0}</style>")
    parts.append("</head><body>")
    for cell in cells:
        parts.append(f"<div class='cell' data-count='{cell.execution_count}'>")
        parts.append(f"<pre class='source'>{html.escape(cell.source)}</pre>")
        for output in cell.outputs:
            if "data" in output and "text/html" in output.data:
                parts.append(f"<div class='output'>{output.data['text/html']}</div>")
            elif output.output_type == "stream":
                parts.append(f"<pre class='output'>{html.escape(output.text)}</pre>")
            elif output.output_type == "error":
                text = ANSI.sub("", "\n".join(output.traceback))
                parts.append(f"<pre class='output error'>{html.escape(text)}</pre>")
        parts.append("</div>")
    parts.append("</body></html>")
    return "".join(parts)


def chromium(page: Path, *options: str) -> subprocess.CompletedProcess[str]:
    assert CHROMIUM is not None
    command = [
        CHROMIUM,
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--no-first-run",
        "--disable-extensions",
        "--hide-scrollbars",
        f"--user-data-dir={page.parent / 'chromium-profile'}",
        *options,
        page.as_uri(),
    ]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    return done


def dom_of(page: Path) -> Element:
    """The page's DOM once its scripts ran."""
    reader = DomReader()
    reader.feed(chromium(page, "--dump-dom").stdout)
    return reader.root


def screenshot(page: Path, width: int, height: int) -> Path:
    """The top of ``page`` in a window ``width`` by ``height`` CSS pixels, drawn at twice the
    pixels, as on a laptop's screen (and so that OCR reads it)."""
    picture = page.with_suffix(".png")
    chromium(
        page,
        f"--screenshot={picture}",
        f"--window-size={width},{height}",
        f"--force-device-scale-factor={SCALE}",
    )
    return picture


def png_rows(picture: Path) -> tuple[int, int, int]:
    """A PNG's width, height and how many of its rows of pixels differ from one another: a
    blank picture has one."""
    data = picture.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    chunks, offset = [], 8
    while offset < len(data):
        (length,) = struct.unpack(">I", data[offset : offset + 4])
        kind = data[offset + 4 : offset + 8]
        if kind == b"IDAT":
            chunks.append(data[offset + 8 : offset + 8 + length])
        offset += 12 + length
    pixels = zlib.decompress(b"".join(chunks))
    stride = len(pixels) // height
    rows = {pixels[row * stride + 1 : (row + 1) * stride] for row in range(height)}
    return width, height, len(rows)


@dataclasses.dataclass(frozen=True)
class Shown:
    """The example notebook in Chromium: the DOM of all its cells, the DOM of its trace's
    page, and screenshots of the failing cell (its report) and of the trace's page."""

    cells: list[Element]
    trace: Element
    report_picture: Path
    trace_picture: Path


@pytest.fixture(scope="module")
def shown(example_run: Any, tmp_path_factory: pytest.TempPathFactory) -> Shown:
    directory = tmp_path_factory.mktemp("browser")
    cells = code_cells(example_run)
    page = directory / "notebook.html"
    page.write_text(notebook_page(cells), encoding="utf-8")
    shown_cells = list(dom_of(page).all("div", class_="cell"))
    report_page = directory / "report.html"
    report_page.write_text(notebook_page(cells[2:3]), encoding="utf-8")
    # The trace's page, as its frame shows it.
    (frame,) = shown_cells[5].all("iframe")
    assert frame.attrs["sandbox"] == "allow-scripts"
    trace_page = directory / "trace.html"
    trace_page.write_text(frame.attrs["srcdoc"], encoding="utf-8")
    return Shown(
        cells=shown_cells,
        trace=dom_of(trace_page),
        report_picture=screenshot(report_page, *REPORT_WINDOW),
        trace_picture=screenshot(trace_page, *TRACE_WINDOW),
    )


@needs_browser
def test_the_saved_notebook_shows_its_report_and_trace_in_a_browser(
    example_run: Any, shown: Shown
) -> None:
    cell = f"Cell In[{code_cells(example_run)[2].execution_count}]"
    report = next(shown.cells[2].all("div", class_="hostoffload-report"))
    assert f"error E1200 at {cell}, line 3" in report.text
    assert "keep it in host memory" in report.text
    assert f"{cell}, line 6" in next(shown.cells[2].all("pre", class_="error")).text
    # The trace's script ran and drew it.
    body = shown.trace.one("body")
    assert body.attrs.get("data-ready") == "true"
    starts = [start.one(class_="start-name").text for start in body.all(class_="start")]
    assert starts == ["argument 'opt_state'", "'annotate_device_placement' to pinned_host"]
    # The state at the step's line in the cell that defined it, the move to host memory that
    # out_shardings asks for at the line that compiled it (no line in older JAX releases):
    # cells named as IPython names them, never a line of the hooks that lowered the step again.
    lines = [line.text for line in body.all(class_="where-line")]
    assert lines[0] == f"{cell}:2"
    assert all(re.fullmatch(r"Cell In\[\d+\]:\d+|no source line", line) for line in lines), lines
    for picture, (width, height) in (
        (shown.report_picture, REPORT_WINDOW),
        (shown.trace_picture, TRACE_WINDOW),
    ):
        assert png_rows(picture)[:2] == (width * SCALE, height * SCALE)
        assert png_rows(picture)[2] > height // 2, f"{picture.name} shows next to nothing"


def read_pictures(*pictures: Path) -> list[str]:
    """The text of each screenshot, as tesseract reads it (one process each, side by side, each
    on one thread): spaces made single, quotes straight."""
    assert TESSERACT is not None
    environment = {**os.environ, "OMP_THREAD_LIMIT": "1"}
    readers = [
        subprocess.Popen(
            [TESSERACT, str(picture), "-"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=environment,
        )
        for picture in pictures
    ]
    texts = []
    for reader in readers:
        out, err = reader.communicate(timeout=120)
        assert reader.returncode == 0, err
        texts.append(" ".join(out.split()).translate(str.maketrans("‘’“”", "''\"\"")))
    return texts


@needs_browser
@needs_ocr
def test_the_screenshots_show_the_report_and_the_trace(example_run: Any, shown: Shown) -> None:
    """What a person reads on the screenshots of the failing cell and of the trace."""
    report, trace = read_pictures(shown.report_picture, shown.trace_picture)
    cell = f"Cell In[{code_cells(example_run)[2].execution_count}]"
    for text in (
        "MismatchError: XLA for TPU would reject jit_step; stopped before XLA compiled it",
        "jit_step: @main (TPU lowering): 2 errors, 1 warning",
        f"error E1200 at {cell}, line 3: Tensor which is moved to host",
        f"{cell}, line 2: in host memory from the start: argument 'opt_state'",
        "keep it in host memory: in JAX, out_shardings=",
        "bring it back to device memory: in JAX, jax.device_put(",
        "E1200 explained: hostoffload's diagnostics, XLA's page on E1200",
    ):
        assert text in report, (text, report)
    for text in (
        "hostoffload trace: @main",
        "2 starts on 2 lines",
        f"{cell}:2",
        "argument 'opt_state'",
        "HOST COMPUTE",
    ):
        assert text in trace, (text, trace)


def test_the_notebook_is_clean() -> None:
    """The example is kept without outputs: the test above makes them."""
    nbformat = pytest.importorskip("nbformat")
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    nbformat.validate(notebook)
    for cell in code_cells(notebook):
        assert cell.outputs == [] and cell.execution_count is None
