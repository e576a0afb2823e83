"""What a mismatch does in IPython: its traceback, and in a Jupyter kernel its report.

IPython asks an exception for its traceback by ``_render_traceback_``: a
:class:`~hostoffload.MismatchError` answers with IPython's own traceback, cut at the user's
call that made JAX compile, and in a Jupyter kernel shows its report first (``_repr_html_``).
A :class:`~hostoffload.MismatchWarning` shows as its report where Python would print it. Nothing
here imports IPython until IPython runs (it is imported already then).
"""

from __future__ import annotations

import warnings
import weakref
from types import TracebackType
from typing import TextIO

from hostoffload._cells import kernel_shell, shell

# The errors whose report a kernel has shown: IPython asks an error for its traceback again
# to store it (IPython 9), which must not show the report twice.
_shown: weakref.WeakSet[BaseException] = weakref.WeakSet()
# The warnings shown as reports, and what showed warnings before, for every other warning.
_report_warnings: tuple[type[Warning], ...] = ()
_show_other_warning = warnings.showwarning


def render_traceback(error: BaseException, trace: TracebackType | None) -> list[str]:
    """IPython's traceback of ``error`` with the frames of ``trace``, as IPython would show
    it; in a Jupyter kernel the error's HTML (``_repr_html_``) is shown first, once."""
    running = shell()
    if running is None:
        raise RuntimeError("render_traceback is for IPython, which is not running")
    html = getattr(error, "_repr_html_", None)
    if html is not None and kernel_shell() is not None and error not in _shown:
        from IPython.display import display

        # As HTML only: a front end that shows no HTML has the report as the traceback's text.
        display({"text/html": html()}, raw=True)
        _shown.add(error)
    return running.InteractiveTB.structured_traceback(type(error), error, trace)


def show_warnings(category: type[Warning]) -> None:
    """Has each warning of ``category`` shown in a Jupyter kernel as its HTML
    (``_repr_html_``, its text for front ends without HTML); every other warning as before."""
    global _show_other_warning, _report_warnings
    if category not in _report_warnings:
        _report_warnings = (*_report_warnings, category)
    if warnings.showwarning is not _show_warning:
        _show_other_warning = warnings.showwarning
        warnings.showwarning = _show_warning


def _show_warning(
    message: Warning | str,
    category: type[Warning],
    filename: str,
    lineno: int,
    file: TextIO | None = None,
    line: str | None = None,
) -> None:
    html = getattr(message, "_repr_html_", None)
    if isinstance(message, _report_warnings) and html is not None and kernel_shell() is not None:
        from IPython.display import display

        display({"text/html": html(), "text/plain": str(message)}, raw=True)
        return
    _show_other_warning(message, category, filename, lineno, file, line)
