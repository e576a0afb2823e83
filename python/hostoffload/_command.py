"""What the commands ``hostoffload`` and ``offload-opt`` (its Python shim) share: their exit
statuses, the name of standard input, and how they end on Ctrl-C.

Nothing here imports jax or :mod:`hostoffload.mlir`: the shim starts with it on every run.
"""

from __future__ import annotations

import signal
import sys

EXIT_CLEAN = 0
#: An error in the program (E1200, HOE101 under strict, a warning under warnings-as-errors).
EXIT_ERRORS = 1
#: Input that could not be checked or fixed, bad usage, or an internal error: never 1.
EXIT_BAD_INPUT = 2
#: The status a shell reports for a command that the signal ended.
EXIT_INTERRUPTED = 128 + signal.SIGINT
EXIT_CLOSED_PIPE = 128 + signal.SIGPIPE

#: The command-line name of standard input, and what messages call it.
STDIN = "-"
STDIN_NAME = "<stdin>"


def interrupted(program: str) -> int:
    """Says on stderr that ``program`` was interrupted (Ctrl-C), in one line instead of a
    traceback, and returns the exit status for it."""
    sys.stderr.write(f"{program}: interrupted\n")
    return EXIT_INTERRUPTED
