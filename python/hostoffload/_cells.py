"""The lines of Python source that findings point at, in files or in a notebook's cells, and
the names IPython gives those cells.

A cell's code is no file on disk: IPython compiles it under a made-up file name
(``/tmp/ipykernel_N/M.py`` in a Jupyter kernel, ``<ipython-input-3-...>`` in a terminal) and
keeps its text in ``linecache``, so the lines are read from there, where Python's own
tracebacks read them. The name a person knows the cell by (``Cell In[3]``) is IPython's, asked
of the running shell (``shell.compile.format_code_name``), as IPython's tracebacks ask; outside
IPython nothing is renamed. Nothing here imports IPython: where it runs, it is imported already.
"""

from __future__ import annotations

import linecache
import re
import sys
from typing import Any

_PYTHON_SUFFIXES = (".py", ".pyw")
# A place in a Python file as compilers print it: a Jupyter kernel's cell
# (``/tmp/ipykernel_7/3.py:5:12``), a terminal IPython's (``<ipython-input-1-d2fa>:6:19``).
_FILE_LINE = re.compile(
    r"(?P<file>[^\s\"'(),<>]+\.py|<ipython-input-[\w-]+>):(?P<line>\d+)(?::\d+)?"
)


def source_lines(file: str) -> list[str]:
    """The lines of ``file`` when it is Python source (``.py``, ``.pyw``, or a name
    ``linecache`` holds, as IPython registers cells there); none otherwise: a finding without
    debug info points at the module given, which can be gigabytes of MLIR."""
    if not file.endswith(_PYTHON_SUFFIXES) and file not in linecache.cache:
        return []
    # A file changed since linecache read it is read again; a cell is kept.
    linecache.checkcache(file)
    return linecache.getlines(file)


def shell() -> Any | None:
    """The running IPython shell, or ``None`` outside IPython."""
    ipython = sys.modules.get("IPython")
    get_ipython = getattr(ipython, "get_ipython", None)
    return None if get_ipython is None else get_ipython()


def kernel_shell() -> Any | None:
    """The running shell where it is a Jupyter kernel's (Jupyter, Colab), which shows HTML;
    ``None`` elsewhere (plain Python, IPython in a terminal)."""
    running = shell()
    return running if getattr(running, "kernel", None) is not None else None


def cell_name(file: str | None) -> str | None:
    """IPython's name of the cell whose code the file name ``file`` holds (``Cell In[3]``);
    ``None`` for a real file or outside IPython."""
    running = shell() if file is not None else None
    format_code_name = getattr(getattr(running, "compile", None), "format_code_name", None)
    if format_code_name is None:
        return None
    named = format_code_name(file)
    return None if named is None else " ".join(named)


def place(file: str | None, line: int | None, column: int | None) -> str | None:
    """Where a location is, for a person: ``Cell In[3], line 5`` in a cell (as IPython's
    tracebacks say it), ``file:line:column`` elsewhere; ``None`` without a file."""
    if file is None:
        return None
    cell = cell_name(file)
    if cell is not None:
        return cell if line is None else f"{cell}, line {line}"
    return ":".join(str(part) for part in (file, line, column) if part is not None)


def with_cell_names(text: str) -> str:
    """``text`` with each ``file:line[:column]`` in a cell written as IPython names the cell
    (``Cell In[3], line 5``); unchanged outside IPython."""
    if shell() is None:
        return text

    def named(match: re.Match[str]) -> str:
        cell = cell_name(match["file"])
        return match[0] if cell is None else f"{cell}, line {match['line']}"

    return _FILE_LINE.sub(named, text)
