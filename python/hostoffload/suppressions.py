"""Suppression comments in Python source: ``# hostoffload: ignore[HOW101]``.

A finding whose location is a line of a Python file that carries the comment is left out of
the report, as ruff does with ``# noqa``: ``# hostoffload: ignore[HOW101, E1200]`` leaves out
the findings of the codes named, ``# hostoffload: ignore`` alone those of every code. Codes are
read as ``--ignore`` reads them (any case; a former code such as ``W1201`` names the code it
became). A code there is not is told with a warning at the comment, and ignores nothing.

Only files that are Python source are read (``.py``, ``.pyw``, or a file Python's
``linecache`` already holds, as IPython registers notebook cells there), each once per report:
a finding without debug info points at the module given, which can be gigabytes of MLIR.
"""

from __future__ import annotations

import re
import warnings

from hostoffload._cells import source_lines
from hostoffload.codes import code_named, codes

COMMENT = "# hostoffload: ignore"
_DIRECTIVE = re.compile(
    r"#\s*hostoffload:\s*ignore(?![\w-])(?:\[(?P<codes>[^\]]*)\])?", re.IGNORECASE
)

# The warnings shown already, so that a comment checked by every report is told of once.
_shown: dict[str | tuple[str, type[Warning], int], int] = {}


class SuppressionWarning(UserWarning):
    """A suppression comment that names a code there is not, or none."""


class Comments:
    """The suppression comments on the lines of Python source that findings point at; each
    file is read when first asked about, each line's comment parsed once."""

    def __init__(self) -> None:
        self._files: dict[str, list[str]] = {}
        self._ignored: dict[tuple[str, int], frozenset[str]] = {}

    def suppresses(self, file: str | None, line: int | None, code: str) -> bool:
        """Whether a comment on ``line`` of ``file`` ignores ``code``."""
        if file is None or line is None:
            return False
        lines = self._files.get(file)
        if lines is None:
            lines = self._files[file] = source_lines(file)
        if not 1 <= line <= len(lines):
            return False
        ignored = self._ignored.get((file, line))
        if ignored is None:
            ignored = self._ignored[file, line] = _ignored(lines[line - 1], file, line)
        return code in ignored


def _ignored(text: str, file: str, line: int) -> frozenset[str]:
    """The codes the comment on ``text`` (line ``line`` of ``file``) ignores: every code for
    the comment without brackets, none without a comment."""
    match = _DIRECTIVE.search(text) if "hostoffload" in text.lower() else None
    if match is None:
        return frozenset()
    if match["codes"] is None:
        return frozenset(codes())
    named = [name.strip() for name in match["codes"].split(",") if name.strip()]
    if not named:
        _warn(f"'{COMMENT}[]' names no code and ignores nothing", file, line)
    known: set[str] = set()
    for name in named:
        try:
            known.add(code_named(name))
        except ValueError as error:
            _warn(f"'{COMMENT}[...]': {error}", file, line)
    return frozenset(known)


def _warn(message: str, file: str, line: int) -> None:
    # At the comment, as Python shows a warning at the line that caused it.
    warnings.warn_explicit(message, SuppressionWarning, file, line, registry=_shown)
