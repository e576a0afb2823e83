"""Turning what a user hands to :func:`hostoffload.check` or :func:`hostoffload.fix` into a
module of :mod:`hostoffload.mlir`.

Our MLIR (22) parses JAX's generic form because unregistered dialects are allowed; only
jaxlib's MLIR, which registers StableHLO, CHLO and Shardy, parses the pretty form and bytecode.
jaxlib prints the generic form for us, which our MLIR then reads (docs: host-offload-semantics
section 6b).
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

from hostoffload.diagnostic import Diagnostic, InputError, Location, Note
from hostoffload.mlir import ir

# A str holding MLIR text rather than a path: several lines, or what MLIR text starts with
# (a generic op, an alias or attribute definition, a comment, a pretty module or function).
_TEXT = re.compile(r'\s*(?:\Z|"|#|//|module[\s{@]|func\.func\s)')
TEXT_RULE = (
    "it contains a newline, is blank, or starts (after blanks) with '\"', '#', '//', "
    "'module' followed by a blank, '{' or '@', or 'func.func' followed by a blank"
)

NO_JAX_HINT = (
    "if this is pretty-printed StableHLO, install jax to read it, or give the generic form: "
    "module.operation.get_asm(print_generic_op_form=True, enable_debug_info=True) in Python, "
    "--mlir-print-op-generic --mlir-print-debuginfo for an MLIR tool"
)

UNSUPPORTED = (
    "expected MLIR text (str or bytes), a path, a hostoffload.mlir or jaxlib ir.Module or "
    "Operation, or a jax.stages.Lowered; for a JAX function use hostoffload.check_jax"
)


def is_text(source: str) -> bool:
    """Whether a str given as a source is MLIR text; any other str is a path."""
    return "\n" in source or _TEXT.match(source) is not None


def own_operation(source: object) -> ir.Operation | None:
    """The operation of a module object of our own MLIR, analysed in place; else None."""
    if isinstance(source, ir.Module):
        return source.operation
    if isinstance(source, (ir.Operation, ir.OpView)):
        return source.operation
    return None


def parse(source: object, context: ir.Context, name: str | None) -> tuple[ir.Module, str | None]:
    """A new module in ``context`` holding ``source``, and the name of the input: the path
    for a path, else ``name`` (given for text read from elsewhere, e.g. stdin).

    The module is always a copy: callers may change it without touching ``source``.
    """
    operation = own_operation(source)
    if operation is not None:
        return _parse(generic_form(operation), name, context), name
    if isinstance(source, str) and is_text(source):
        return _parse(source, name, context), name
    if isinstance(source, (str, os.PathLike)):
        path = os.fspath(source)
        return _parse(_read(path, isinstance(source, str)), path, context), path
    if isinstance(source, bytes):
        return _parse(source, name, context), name
    if hasattr(source, "compiler_ir"):  # jax.stages.Lowered
        source = source.compiler_ir("stablehlo")
    foreign = getattr(source, "operation", source)
    if hasattr(foreign, "get_asm"):  # a module or operation of jaxlib's MLIR
        return _parse(generic_form(foreign), name, context), name
    message = f"cannot check a {type(source).__qualname__}: {UNSUPPORTED}"
    raise InputError.unlocated(message, source=name)


def _read(path: str, given_as_str: bool) -> bytes:
    try:
        return Path(path).read_bytes()
    except OSError as error:
        # Text that is not recognised as MLIR lands here: say which rule made it a path.
        rule = f" (a str is a path unless it is MLIR text: {TEXT_RULE})" if given_as_str else ""
        message = f"cannot read the file: {error.strerror}{rule}"
        raise InputError.unlocated(message, source=path) from None


def generic_form(operation: Any) -> str:
    text: str = operation.get_asm(print_generic_op_form=True, enable_debug_info=True)
    return text


def _parse(text: str | bytes, name: str | None, context: ir.Context) -> ir.Module:
    try:
        return ir.Module.parse(text, context)
    except ir.MLIRError as error:
        ours = diagnostics(error, name)
    try:
        generic = _generic_form_through_jax(text)
    except ModuleNotFoundError:
        first, *rest = ours
        hint = Note(NO_JAX_HINT, Location.unknown())
        raise InputError(
            Diagnostic(first.message, first.location, (*first.notes, hint)), *rest, source=name
        ) from None
    except _JaxParseError as error:
        theirs = diagnostics(error.mlir_error, name)
        # The parser that read further understood more of the text: jaxlib's for pretty
        # StableHLO with a mistake in it, ours (on a tie) for generic text.
        best = theirs if _position(theirs) > _position(ours) else ours
        raise InputError(*best, source=name) from None
    try:
        return ir.Module.parse(generic, context)
    except ir.MLIRError as error:
        raise InputError(*diagnostics(error, name), source=name) from None


class _JaxParseError(Exception):
    def __init__(self, mlir_error: Any) -> None:
        super().__init__(str(mlir_error))
        self.mlir_error = mlir_error


def _generic_form_through_jax(text: str | bytes) -> str:
    """Parses ``text`` with jaxlib and prints it in the generic form; raises
    ModuleNotFoundError without jax and _JaxParseError when jaxlib cannot parse it either."""
    from jax._src.interpreters import mlir as jax_mlir
    from jax._src.lib.mlir import ir as jax_ir

    with jax_mlir.make_ir_context():
        try:
            module = jax_ir.Module.parse(text)
        except jax_ir.MLIRError as error:
            raise _JaxParseError(error) from None
        return generic_form(module.operation)


def diagnostics(error: Any, name: str | None) -> tuple[Diagnostic, ...]:
    """The located diagnostics of an MLIRError of either MLIR copy."""
    found = tuple(
        Diagnostic(
            info.message.rstrip(),
            Location.from_mlir(str(info.location), name),
            tuple(
                Note(note.message.rstrip(), Location.from_mlir(str(note.location), name))
                for note in info.notes
            ),
        )
        for info in error.error_diagnostics
    )
    return found or (Diagnostic(str(error), Location.unknown()),)


def _position(diagnostics: tuple[Diagnostic, ...]) -> tuple[int, int]:
    location = diagnostics[0].location
    return (location.line or 0, location.column or 0)
