"""Translating the errors of both MLIR copies and of our C API into :class:`InputError`.

Imports :mod:`hostoffload.mlir` only inside :func:`mlir_errors`: the converters use the rest
in a process that never loads our MLIR.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from hostoffload.diagnostic import Diagnostic, InputError, Location, Note

# MLIR attaches the failing op, printed whole, to verifier and pass errors: on a real model
# that is megabytes of text in one exception.
_OPERATION_DUMP = "see current operation:"

UNDECODABLE = (
    "MLIR rejected the module, and its message cannot be shown here: it quotes a name or string "
    "of the module that is not valid UTF-8; offload-opt prints the message as it is"
)


def mlir_diagnostics(error: Any, name: str | None) -> tuple[Diagnostic, ...]:
    """The located diagnostics of an MLIRError of either MLIR copy."""
    found = tuple(
        Diagnostic(
            info.message.rstrip(),
            Location.from_mlir(str(info.location), name),
            tuple(
                Note(note.message.rstrip(), Location.from_mlir(str(note.location), name))
                for note in info.notes
                if not note.message.startswith(_OPERATION_DUMP)
            ),
        )
        for info in error.error_diagnostics
    )
    return found or (Diagnostic(str(error), Location.unknown()),)


@contextmanager
def mlir_errors(name: str | None) -> Iterator[None]:
    """Turns the errors our MLIR raises in the block into :class:`InputError`."""
    from hostoffload.mlir import ir

    try:
        yield
    except ir.MLIRError as error:
        raise InputError(*mlir_diagnostics(error, name), source=name) from None
    except RuntimeError as error:
        # nanobind cannot make a str of a message that is not UTF-8.
        if "str_from_cstr" not in str(error):
            raise
        raise InputError.unlocated(UNDECODABLE, source=name) from None


def parse_errors(report: str) -> tuple[Diagnostic, ...]:
    """The diagnostics of the JSON ``{"errors": [...]}`` of a failed parse of our C API."""
    return tuple(Diagnostic.from_json(error) for error in json.loads(report)["errors"])


def position(diagnostics: tuple[Diagnostic, ...]) -> tuple[int, int]:
    """Where the first of ``diagnostics`` is, to compare how far two parsers read."""
    location = diagnostics[0].location
    return (location.line or 0, location.column or 0)
