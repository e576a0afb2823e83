"""Reports, traces and mismatches as HTML, for notebooks (their ``_repr_html_``).

A report is a fragment with its own style: the summary line, then each finding with its
location (a cell named as IPython names it, see :mod:`hostoffload._cells`), its source window,
its notes, both fixes and the pages that explain its code, then the fix in JAX. Above
:data:`COLLAPSED_ABOVE_FINDINGS` findings each one is collapsed to its first line. A trace is
the page of ``hostoffload trace --format html`` in a sandboxed frame of its own, a cell's
file named as IPython names the cell. Every text of a report or a trace is escaped: module
text can hold anything.
"""

from __future__ import annotations

import html
import json
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from hostoffload._cells import cell_name, files_of, place, source_lines, with_cell_names
from hostoffload.codes import help_uri, xla_page
from hostoffload.diagnostic import Location, Note
from hostoffload.trace_page import render_page

if TYPE_CHECKING:
    from hostoffload.report import Finding, Fix, Report
    from hostoffload.tracing import Trace

#: With more findings than this, a report shows each collapsed to its first line.
COLLAPSED_ABOVE_FINDINGS = 20
#: The lines a finding's source window shows before and after its own.
LINES_BEFORE = 2
LINES_AFTER = 1
#: A source line wider than this is shown as a window this wide around the caret, as
#: offload-opt shows it (docs/diagnostics.md): a lowering prints whole signatures on one line.
WIDEST_LINE = 160
#: The height of the frame a trace's page is shown in, in CSS pixels.
TRACE_FRAME_HEIGHT = 640

_FIX_TITLES = {"host": "keep it in host memory", "device": "bring it back to device memory"}

# Scoped to the report's own class; colours that read on light and dark notebook themes.
_STYLE = """
.hostoffload-report { font-family: system-ui, sans-serif; font-size: 13px; line-height: 1.45;
  max-width: 110ch; }
.hostoffload-report .ho-summary, .hostoffload-report .ho-heading { font-weight: 600;
  margin: 0.2em 0 0.5em; }
.hostoffload-report .ho-ok { color: #1a7f37; }
.hostoffload-report .ho-bad { color: #cf222e; }
.hostoffload-report details.ho-finding { border-left: 3px solid #cf222e; padding: 0.1em 0.7em;
  margin: 0.45em 0; background: rgba(127, 127, 127, 0.06); }
.hostoffload-report details.ho-warning { border-left-color: #9a6700; }
.hostoffload-report summary { cursor: pointer; }
.hostoffload-report .ho-severity { font-weight: 700; color: #cf222e; }
.hostoffload-report .ho-warning .ho-severity { color: #9a6700; }
.hostoffload-report .ho-where { font-family: ui-monospace, monospace; font-weight: 600; }
.hostoffload-report pre { font-family: ui-monospace, monospace; font-size: 12px;
  background: rgba(127, 127, 127, 0.1); padding: 0.35em 0.6em; margin: 0.3em 0;
  overflow-x: auto; white-space: pre; }
.hostoffload-report .ho-current { font-weight: 700; }
.hostoffload-report .ho-caret { color: #cf222e; font-weight: 700; }
.hostoffload-report ul { margin: 0.3em 0; padding-left: 1.3em; }
.hostoffload-report h4 { font-size: 13px; margin: 0.6em 0 0.2em; }
.hostoffload-report .ho-links { opacity: 0.8; margin: 0.3em 0; }
"""


def report_html(
    report: Report,
    *,
    outputs: Sequence[str] | None = None,
    heading: str | None = None,
) -> str:
    """The report as a fragment of HTML; ``heading`` above it (``MismatchError``'s), and the
    fix in JAX of ``outputs`` (:meth:`Report.jax_fix`) below its findings."""
    parts = [f"<div class='hostoffload-report'><style>{_STYLE}</style>"]
    if heading is not None:
        parts.append(f"<p class='ho-heading ho-bad'>{_text(heading)}</p>")
    source = f"{report.source}: " if report.source is not None else ""
    tone = "ho-ok" if report.ok else "ho-bad"
    parts.append(f"<p class='ho-summary {tone}'>{_text(source + report.summary)}</p>")
    if report.lowering_warning is not None:
        parts.append(f"<p><b>warning:</b> {_text(report.lowering_warning)}</p>")
    collapsed = len(report.findings) > COLLAPSED_ABOVE_FINDINGS
    parts.extend(_finding_html(finding, open_=not collapsed) for finding in report.findings)
    if report.debug_info_hint is not None:
        parts.append(f"<p><b>note:</b> {_text(report.debug_info_hint)}</p>")
    fix = report.jax_fix(outputs)
    if fix:
        fix = with_cell_names(fix, files_of(report))
        parts.append(f"<h4>Fix in JAX</h4><pre>{_text(fix)}</pre>")
    if report.trace is not None:
        parts.append(f"<details><summary>Trace</summary>{trace_html(report.trace)}</details>")
    parts.append("</div>")
    return "".join(parts)


def trace_html(trace: Trace) -> str:
    """The trace's page (:meth:`Trace.to_html`) in a frame: given whole as ``srcdoc``,
    sandboxed to run its own script and nothing else (its policy already stops any request),
    so that nothing of the notebook reaches it or it the notebook."""
    document = _cells_named(json.loads(trace.to_json()))
    page = render_page(document, title=trace.source)
    title = f"hostoffload trace of @{trace.entry}"
    return (
        f"<iframe class='hostoffload-trace' title='{_text(title)}' sandbox='allow-scripts' "
        f"style='width: 100%; height: {TRACE_FRAME_HEIGHT}px; border: 1px solid "
        f"rgba(127, 127, 127, 0.4);' srcdoc='{_text(page)}'></iframe>"
    )


def _cells_named(document: Any) -> Any:
    """A trace's document with the file of each location in a cell named as IPython names
    the cell (``Cell In[3]``), for its page to show."""
    names: dict[str, str | None] = {}
    pending = [document]
    while pending:
        item = pending.pop()
        values = item.values() if isinstance(item, dict) else item
        if isinstance(item, dict) and isinstance(item.get("file"), str):
            file = item["file"]
            if file not in names:
                names[file] = cell_name(file)
            item["file"] = names[file] or file
        pending.extend(value for value in values if isinstance(value, (dict, list)))
    return document


def _finding_html(finding: Finding, *, open_: bool) -> str:
    where = _place(finding.location)
    code_links = _code_links(finding.code)
    head = (
        f"<summary><span class='ho-severity'>{_text(finding.severity)}</span> "
        f"<b>{_text(finding.code)}</b>{' at ' + _where(where) if where else ''}: "
        f"{_text(finding.message.removeprefix(f'{finding.code}: '))}</summary>"
    )
    body = [_window(finding.location, LINES_BEFORE, LINES_AFTER)]
    notes = [note for note in finding.notes if not _is_fix_note(note, finding.fixes)]
    if notes:
        body.append("<ul class='ho-notes'>")
        body.extend(_note_html(note, _shown_lines(finding.location)) for note in notes)
        body.append("</ul>")
    if finding.fixes:
        body.append("<h4>Fixes</h4><ul class='ho-fixes'>")
        body.extend(_fix_html(fix) for fix in finding.fixes)
        body.append("</ul>")
    body.append(f"<p class='ho-links'>{_text(finding.code)} explained: {code_links}</p>")
    state = " open" if open_ else ""
    return (
        f"<details class='ho-finding ho-{_text(finding.severity)}'{state}>"
        f"{head}{''.join(body)}</details>"
    )


def _note_html(note: Note, shown: tuple[str | None, range]) -> str:
    """A note, with its line unless the finding's window shows it (``shown``: its file and
    lines)."""
    where = _place(note.location)
    file, lines = shown
    at_shown = note.location.file == file and note.location.line in lines
    window = "" if at_shown else _window(note.location, 0, 0)
    return f"<li>{_where(where) + ': ' if where else ''}{_text(note.message)}{window}</li>"


def _shown_lines(location: Location) -> tuple[str | None, range]:
    """The file and the lines of the window of a finding at ``location``."""
    if location.line is None:
        return location.file, range(0)
    return location.file, range(location.line - LINES_BEFORE, location.line + LINES_AFTER + 1)


def _fix_html(fix: Fix) -> str:
    title = _FIX_TITLES.get(fix.strategy, fix.strategy)
    return (
        f"<li><b>{_text(title)}</b>: in JAX, {_text(fix.jax_change)}; "
        f"in the module, {_text(fix.module_change)}</li>"
    )


def _is_fix_note(note: Note, fixes: Iterable[Fix]) -> bool:
    """Whether ``note`` states one of ``fixes``, which the report shows as fixes instead."""
    return any(fix.jax_change in note.message for fix in fixes)


def _code_links(code: str) -> str:
    """Links to the pages that explain ``code``: ours (docs/diagnostics.md), and XLA's for
    XLA's own codes."""
    links = []
    ours = help_uri()
    if ours is not None:
        links.append(_link(ours, "hostoffload's diagnostics"))
    page = xla_page(code)
    if page is not None:
        links.append(_link(page, f"XLA's page on {code}"))
    return ", ".join(links) if links else "docs/diagnostics.md"


def _link(address: str, text: str) -> str:
    return f"<a href='{_text(address)}' target='_blank' rel='noopener noreferrer'>{_text(text)}</a>"


def _place(location: Location) -> str | None:
    return place(location.file, location.line, location.column)


def _where(place_text: str) -> str:
    return f"<span class='ho-where'>{_text(place_text)}</span>"


def _window(location: Location, before: int, after: int) -> str:
    """The lines around ``location`` with line numbers, its own marked and a caret under its
    column; nothing where its source cannot be read."""
    if location.file is None or location.line is None:
        return ""
    lines = source_lines(location.file)
    if not 1 <= location.line <= len(lines):
        return ""
    first = max(1, location.line - before)
    last = min(len(lines), location.line + after)
    width = len(str(last))
    column = max(1, location.column or 1)
    cut = _cut(lines[location.line - 1].rstrip("\r\n"), column)
    rows = []
    for number in range(first, last + 1):
        text = lines[number - 1].rstrip("\r\n")
        shown = _cut_at(text, cut)
        row = f"{number:>{width}} | {_text(shown)}"
        if number == location.line:
            rows.append(f"<span class='ho-current'>{row}</span>")
            caret = column - 1 - cut + (3 if cut else 0)
            rows.append(f"{'':>{width}} | <span class='ho-caret'>{' ' * caret}^</span>")
        else:
            rows.append(row)
    return f"<pre class='ho-window'>{chr(10).join(rows)}</pre>"


def _cut(line: str, column: int) -> int:
    """Where a window of :data:`WIDEST_LINE` columns around ``column`` starts in ``line``: 0
    for a line that fits."""
    if len(line) <= WIDEST_LINE:
        return 0
    return max(0, min(column - 1 - WIDEST_LINE // 2, len(line) - WIDEST_LINE))


def _cut_at(line: str, start: int) -> str:
    if len(line) <= WIDEST_LINE and start == 0:
        return line
    shown = line[start : start + WIDEST_LINE]
    return f"{'...' if start else ''}{shown}{'...' if start + WIDEST_LINE < len(line) else ''}"


def _text(text: str) -> str:
    return html.escape(text, quote=True)
