"""Reports, traces and mismatches as HTML, for notebooks (their ``_repr_html_``), made from
their JSON documents (``report.schema.json``, ``trace.schema.json``) as the trace's page is.

A report is a fragment with its own style: the summary line, then each finding with its
location (a cell named as IPython names it, see :mod:`hostoffload._cells`), its source window,
its notes, both fixes and the pages that explain its code, then the fix in JAX. Above
:data:`COLLAPSED_ABOVE_FINDINGS` findings each one is collapsed to its first line; past
:data:`SHOWN_FINDINGS` the rest are counted. A trace is the page of
``hostoffload trace --format html`` in a sandboxed frame of its own, a cell's file named as
IPython names the cell. Every text of a report or a trace is escaped: module text can hold
anything.
"""

from __future__ import annotations

import html
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from hostoffload._cells import cell_name, place, source_lines, with_cell_names
from hostoffload.codes import help_uri, xla_page
from hostoffload.trace_page import render_page

#: With more findings than this, a report shows each collapsed to its first line.
COLLAPSED_ABOVE_FINDINGS = 20
#: The findings a report shows at most; it counts the rest (a notebook keeps every output it
#: shows, and a model's report can hold tens of thousands).
SHOWN_FINDINGS = 1000
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


@dataclass(frozen=True)
class Summary:
    """What a report says besides its findings, as its text says it: the summary line, the
    warning that comes first, the remarks after the findings and the fix in JAX."""

    line: str
    ok: bool
    warning: str | None = None
    remarks: Sequence[str] = ()
    jax_fix: str | None = None


def report_html(
    document: Mapping[str, Any],
    summary: Summary,
    *,
    heading: str | None = None,
    trace: str | None = None,
) -> str:
    """The report of ``document`` (its JSON, ``report.schema.json``, locations in place) as a
    fragment of HTML: ``heading`` above it (``MismatchError``'s), ``summary``, each finding,
    and the ``trace`` frame (:func:`trace_html`) at the end."""
    parts = [f"<div class='hostoffload-report'><style>{_STYLE}</style>"]
    if heading is not None:
        parts.append(f"<p class='ho-heading ho-bad'>{_text(heading)}</p>")
    tone = "ho-ok" if summary.ok else "ho-bad"
    parts.append(f"<p class='ho-summary {tone}'>{_text(summary.line)}</p>")
    if summary.warning is not None:
        parts.append(f"<p><b>warning:</b> {_text(summary.warning)}</p>")
    findings = document["findings"]
    collapsed = len(findings) > COLLAPSED_ABOVE_FINDINGS
    shown = findings[:SHOWN_FINDINGS]
    parts.extend(_finding_html(finding, open_=not collapsed) for finding in shown)
    if len(findings) > len(shown):
        left = len(findings) - len(shown)
        parts.append(
            f"<p class='ho-more'>... and {left} more findings: print(report) or "
            "report.to_json() has them all</p>"
        )
    parts.extend(f"<p><b>note:</b> {_text(remark)}</p>" for remark in summary.remarks)
    if summary.jax_fix:
        fix = with_cell_names(summary.jax_fix)
        parts.append(f"<h4>Fix in JAX</h4><pre>{_text(fix)}</pre>")
    if trace is not None:
        parts.append(f"<details><summary>Trace</summary>{trace}</details>")
    parts.append("</div>")
    return "".join(parts)


def trace_html(document: Mapping[str, Any], title: str | None) -> str:
    """The page of the trace ``document`` (``trace.schema.json``; the page
    :meth:`Trace.to_html` makes) in a frame: given whole as ``srcdoc``, sandboxed to run its
    own script and nothing else (its policy already stops any request), so that nothing of the
    notebook reaches it or it the notebook."""
    page = render_page(_cells_named(document), title=title)
    label = f"hostoffload trace of @{document['entry']}"
    return (
        f"<iframe class='hostoffload-trace' title='{_text(label)}' sandbox='allow-scripts' "
        f"style='width: 100%; height: {TRACE_FRAME_HEIGHT}px; border: 1px solid "
        f"rgba(127, 127, 127, 0.4);' srcdoc='{_text(page)}'></iframe>"
    )


def _cells_named(document: Any) -> Any:
    """A JSON document with the file of each location in a cell named as IPython names the
    cell (``Cell In[3]``)."""
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


def _finding_html(finding: Mapping[str, Any], *, open_: bool) -> str:
    code = finding["code"]
    severity = finding["severity"]
    where = _place(finding["location"])
    message = finding["message"].removeprefix(f"{code}: ")
    head = (
        f"<summary><span class='ho-severity'>{_text(severity)}</span> "
        f"<b>{_text(code)}</b>{' at ' + _where(where) if where else ''}: "
        f"{_text(message)}</summary>"
    )
    body = [_window(finding["location"], LINES_BEFORE, LINES_AFTER)]
    fixes = finding["fixes"]
    notes = [note for note in finding["notes"] if not _is_fix_note(note, fixes)]
    if notes:
        shown = _shown_lines(finding["location"])
        body.append("<ul class='ho-notes'>")
        body.extend(_note_html(note, shown) for note in notes)
        body.append("</ul>")
    if fixes:
        body.append("<h4>Fixes</h4><ul class='ho-fixes'>")
        body.extend(_fix_html(fix) for fix in fixes)
        body.append("</ul>")
    body.append(f"<p class='ho-links'>{_text(code)} explained: {_code_links(code)}</p>")
    state = " open" if open_ else ""
    return (
        f"<details class='ho-finding ho-{_text(severity)}'{state}>{head}{''.join(body)}</details>"
    )


def _note_html(note: Mapping[str, Any], shown: tuple[str | None, range]) -> str:
    """A note, with its line unless the finding's window shows it (``shown``: its file and
    lines)."""
    location = note["location"]
    where = _place(location)
    file, lines = shown
    at_shown = location["file"] == file and location["line"] in lines
    window = "" if at_shown else _window(location, 0, 0)
    return f"<li>{_where(where) + ': ' if where else ''}{_text(note['message'])}{window}</li>"


def _shown_lines(location: Mapping[str, Any]) -> tuple[str | None, range]:
    """The file and the lines of the window of a finding at ``location``."""
    line = location["line"]
    if line is None:
        return location["file"], range(0)
    return location["file"], range(line - LINES_BEFORE, line + LINES_AFTER + 1)


def _fix_html(fix: Mapping[str, Any]) -> str:
    title = _FIX_TITLES.get(fix["strategy"], fix["strategy"])
    return (
        f"<li><b>{_text(title)}</b>: in JAX, {_text(fix['jax_change'])}; "
        f"in the module, {_text(fix['module_change'])}</li>"
    )


def _is_fix_note(note: Mapping[str, Any], fixes: Iterable[Mapping[str, Any]]) -> bool:
    """Whether ``note`` states one of ``fixes``, which the report shows as fixes instead."""
    return any(fix["jax_change"] in note["message"] for fix in fixes)


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


def _place(location: Mapping[str, Any]) -> str | None:
    return place(location["file"], location["line"], location["column"])


def _where(place_text: str) -> str:
    return f"<span class='ho-where'>{_text(place_text)}</span>"


def _window(location: Mapping[str, Any], before: int, after: int) -> str:
    """The lines around ``location`` with line numbers, its own marked and a caret under its
    column; nothing where its source cannot be read."""
    file, line = location["file"], location["line"]
    if file is None or line is None:
        return ""
    lines = source_lines(file)
    if not 1 <= line <= len(lines):
        return ""
    first = max(1, line - before)
    last = min(len(lines), line + after)
    width = len(str(last))
    column = max(1, location["column"] or 1)
    cut = _cut(lines[line - 1].rstrip("\r\n"), column)
    rows = []
    for number in range(first, last + 1):
        text = lines[number - 1].rstrip("\r\n")
        shown = _cut_at(text, cut)
        row = f"{number:>{width}} | {_text(shown)}"
        if number == line:
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
