"""hostoffload in a Jupyter kernel (JupyterLab, Colab, VS Code): ``%load_ext hostoffload``.

Loading the extension starts a :class:`hostoffload.watch` over every later cell's compiles,
checked on the lowering for ``HOSTOFFLOAD_PLATFORM`` (TPU by default) when the kernel runs
on CPU; ``%unload_ext hostoffload`` stops it. ``hostoffload.watch().start()`` in a cell, a
``with hostoffload.watch():`` block and ``HOSTOFFLOAD_WATCH`` set for the kernel watch the same
way, and show what they find the same way:

- a :class:`~hostoffload.MismatchError` stops the cell before XLA compiles: IPython asks it for
  its traceback (``_render_traceback_``), and it shows its report (``_repr_html_``) first,
  then the traceback, which ends at the user's line (JAX hides its own frames and ours);
- a :class:`~hostoffload.MismatchWarning` shows as its report where Python would print it.

Reports, traces and mismatches returned in a cell show themselves (:mod:`hostoffload._html`);
findings in a cell's code name the cell as IPython does (:mod:`hostoffload._cells`).
"""

from __future__ import annotations

import warnings
import weakref
from typing import Any, TextIO

from hostoffload._cells import kernel_shell, shell
from hostoffload.compile_hook import MismatchWarning, to_last_user_frame, watch
from hostoffload.platforms import chosen_platform

# The watch the extension started, while it is loaded.
_watching: watch | None = None
# The errors whose report a kernel has shown: IPython asks an error for its traceback again
# to store it (IPython 9), which must not show the report twice.
_shown: weakref.WeakSet[BaseException] = weakref.WeakSet()
# What showed warnings before show_warnings(), for every other warning.
_show_other_warning = warnings.showwarning


def load_ipython_extension(ipython: Any) -> None:
    """``%load_ext hostoffload``: watches every later compile, until unloaded."""
    global _watching
    if _watching is None:
        _watching = watch(platform=chosen_platform()).start()
    show_warnings()


def unload_ipython_extension(ipython: Any) -> None:
    """``%unload_ext hostoffload``: stops the extension's watch."""
    global _watching
    if _watching is not None:
        _watching.stop()
        _watching = None


def render_traceback(error: BaseException) -> list[str]:
    """IPython's own traceback of ``error``, as it would show it, to the user's last frame
    (:func:`~hostoffload.compile_hook.to_last_user_frame`); in a Jupyter kernel the error's
    report is shown first."""
    running = shell()
    if running is None:
        raise RuntimeError("render_traceback is for IPython, which is not running")
    if kernel_shell() is not None and error not in _shown:
        from IPython.display import display

        display(error)
        _shown.add(error)
    trace = to_last_user_frame(error.__traceback__)
    return running.InteractiveTB.structured_traceback(type(error), error, trace)


def show_warnings() -> None:
    """Has each :class:`MismatchWarning` shown in a Jupyter kernel as its report, not as text
    (once; every other warning as before)."""
    global _show_other_warning
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
    if isinstance(message, MismatchWarning) and kernel_shell() is not None:
        from IPython.display import display

        display(message)
        return
    _show_other_warning(message, category, filename, lineno, file, line)
