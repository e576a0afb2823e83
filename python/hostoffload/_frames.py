"""Which frames of a Python stack are the user's: not JAX's, not hostoffload's.

JAX names an op by the innermost frame outside its own files (``source_info_util``) and leaves
the frames of excluded files out of the tracebacks of its errors (``traceback_util``). Where
hostoffload makes JAX lower (``check_jax``, a ``Traced`` given to ``check``, the second
lowering of :class:`hostoffload.watch`), an op JAX inserts while lowering (the move of an
output to another memory kind) would otherwise be named by hostoffload's own line:
:func:`exclude_own_files_from_jax` makes it the user's call instead.
"""

from __future__ import annotations

import os
import sys
import threading
from pathlib import Path
from types import TracebackType

# This package's directory with its separator, so that a sibling named hostoffload_x is not it.
PACKAGE_DIRECTORY = f"{Path(__file__).parent}{os.sep}"

_excluded = False
_lock = threading.Lock()


def exclude_own_files_from_jax() -> None:
    """Registers this package's files with JAX as not the user's, for the locations of the ops
    it lowers and for the tracebacks of its errors (once per process). Imports JAX."""
    global _excluded
    with _lock:
        if _excluded:
            return
        from jax._src import source_info_util, traceback_util

        traceback_util.register_exclusion(PACKAGE_DIRECTORY)
        source_info_util.register_exclusion(PACKAGE_DIRECTORY)
        _excluded = True


def is_library_code(file_name: str) -> bool:
    """Whether ``file_name`` is a source file of JAX or of hostoffload, not the user's."""
    jax = sys.modules.get("jax")
    libraries = [PACKAGE_DIRECTORY]
    if jax is not None and jax.__file__ is not None:
        libraries.append(f"{Path(jax.__file__).parent}{os.sep}")
    return file_name.startswith(tuple(libraries))


def caller_stacklevel() -> int:
    """The ``stacklevel`` for :func:`warnings.warn` of the innermost frame outside JAX and
    hostoffload, for the function that calls this one to warn at: the user's line."""
    frame = sys._getframe(1)
    level = 1
    while frame is not None and is_library_code(frame.f_code.co_filename):
        frame = frame.f_back
        level += 1
    return level


def to_last_user_frame(trace: TracebackType | None) -> TracebackType | None:
    """``trace`` cut after its last frame outside JAX and hostoffload, where there is one: a
    :class:`~hostoffload.MismatchError` then points at the user's call that made JAX compile,
    not into JAX's ``stages.py`` or the hook. It cuts the chain in place."""
    last = None
    frame = trace
    while frame is not None:
        if not is_library_code(frame.tb_frame.f_code.co_filename):
            last = frame
        frame = frame.tb_next
    if last is not None:
        last.tb_next = None
    return trace
