"""Printing a module, of our MLIR or of jaxlib's, in the generic form our parser reads.

MLIR's Python bindings print to a file object through an unbuffered stream: every token is
a call of the object's ``write`` (7.4 million calls for the 15 MB of a 100,000-op JAX
model). Given a path instead, they print through a buffered ``raw_fd_ostream`` in C++,
three times as fast (docs/performance.md). The path here is an anonymous in-memory file
where the system has one (Linux's ``memfd_create``), else a temporary file.
"""

from __future__ import annotations

import os
import tempfile
from typing import Any


def generic_text(operation: Any) -> bytes:
    """``operation`` in the generic form with debug information, as bytes: MLIR prints the
    body of a dialect attribute or type (``#sdy.sharding<...>``) as it is, so it need not be
    UTF-8."""
    if hasattr(os, "memfd_create"):
        descriptor = os.memfd_create("hostoffload-generic-text", os.MFD_CLOEXEC)
        with os.fdopen(descriptor, "rb") as text:
            # Opening the path opens the same file anew: MLIR writes at its own offset, and
            # this one stays at the start.
            print_generic(operation, f"/proc/self/fd/{descriptor}")
            return text.read()
    with tempfile.TemporaryDirectory(prefix="hostoffload-") as directory:
        path = os.path.join(directory, "generic.mlir")
        print_generic(operation, path)
        with open(path, "rb") as text:
            return text.read()


def print_generic(operation: Any, path: str) -> None:
    """Prints ``operation`` as :func:`generic_text` does, into the file at ``path``."""
    operation.print(print_generic_op_form=True, enable_debug_info=True, file=path, binary=True)
