"""hostoffload in a Jupyter kernel (JupyterLab, Colab, VS Code): ``%load_ext hostoffload``.

Loading the extension starts a :class:`hostoffload.watch` over every later cell's compiles,
checked on the lowering for ``HOSTOFFLOAD_PLATFORM`` (TPU by default) when the kernel runs
on CPU; ``%unload_ext hostoffload`` stops it. ``hostoffload.watch().start()`` in a cell, a
``with hostoffload.watch():`` block and ``HOSTOFFLOAD_WATCH`` set for the kernel watch the same
way, and show what they find the same way (:mod:`hostoffload._kernel`): a
:class:`~hostoffload.MismatchError` stops the cell before XLA compiles, showing its report and
then its traceback, which ends at the user's line; a :class:`~hostoffload.MismatchWarning`
shows as its report.

Reports, traces and mismatches returned in a cell show themselves (``_repr_html_``, see
:mod:`hostoffload._html`); findings in a cell's code name the cell as IPython does
(:mod:`hostoffload._cells`).
"""

from __future__ import annotations

from typing import Any

from hostoffload._kernel import show_warnings
from hostoffload.compile_hook import MismatchWarning, watch
from hostoffload.platforms import chosen_platform

# The watch the extension started, while it is loaded.
_watching: watch | None = None


def load_ipython_extension(ipython: Any) -> None:
    """``%load_ext hostoffload``: watches every later compile, until unloaded."""
    global _watching
    if _watching is None:
        _watching = watch(platform=chosen_platform()).start()
    show_warnings(MismatchWarning)


def unload_ipython_extension(ipython: Any) -> None:
    """``%unload_ext hostoffload``: stops the extension's watch."""
    global _watching
    if _watching is not None:
        _watching.stop()
        _watching = None
