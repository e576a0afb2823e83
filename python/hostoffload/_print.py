"""Printing a module, of our MLIR or of jaxlib's, in the generic form our parser reads.

MLIR's Python bindings print to a file object through an unbuffered stream: every token is
a call of the object's ``write``. Given a path instead, they print through a buffered
``raw_fd_ostream`` in C++, without a call into Python (docs/performance.md). The path here
is an anonymous in-memory file where the system has one (Linux's ``memfd_create``), else a
temporary file.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, BinaryIO


def generic_text(operation: Any) -> bytes:
    """``operation`` in the generic form with debug information, as bytes: MLIR prints the
    body of a dialect attribute or type (``#sdy.sharding<...>``) as it is, so it need not be
    UTF-8."""
    with output_file() as output:
        print_generic_into(operation, output.fileno())
        output.seek(0)
        return output.read()


@contextmanager
def output_file() -> Iterator[BinaryIO]:
    """An empty file to print into, in memory where the system has anonymous files (Linux's
    ``memfd_create``), else a temporary file."""
    if hasattr(os, "memfd_create"):
        with os.fdopen(os.memfd_create("hostoffload-generic-text", os.MFD_CLOEXEC), "rb") as file:
            yield file
    else:
        with tempfile.TemporaryFile() as file:
            yield file


def print_generic_into(operation: Any, descriptor: int) -> None:
    """Prints ``operation`` as :func:`generic_text` does, into the file open as
    ``descriptor``, from its start."""
    # By its name: on Linux that opens the file anew, at an offset of its own.
    path = f"/dev/fd/{descriptor}"
    operation.print(print_generic_op_form=True, enable_debug_info=True, file=path, binary=True)
