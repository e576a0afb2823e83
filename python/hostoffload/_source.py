"""Turning what a user hands to :func:`hostoffload.check` or :func:`hostoffload.fix` into a
module of :mod:`hostoffload.mlir`.

Our MLIR (22) parses JAX's generic form because unregistered dialects are allowed; only
jaxlib's MLIR, which registers StableHLO, CHLO and Shardy, parses the pretty form and bytecode.
jaxlib prints the generic form for us, which our MLIR then reads (docs: host-offload-semantics
section 6b).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from hostoffload.diagnostic import Diagnostic, InputError, Location, Note
from hostoffload.mlir import ir
from hostoffload.mlir._mlir_libs import _hostoffload

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

# MLIR attaches the failing op, printed whole, to verifier and pass errors: on a real model
# that is megabytes of text in one exception.
_OPERATION_DUMP = "see current operation:"

UNDECODABLE = (
    "MLIR rejected the module, and its message cannot be shown here: it quotes a name or string "
    "of the module that is not valid UTF-8; offload-opt prints the message as it is"
)

UNSUPPORTED = (
    "expected MLIR text (str or bytes), a path, a hostoffload.mlir or jaxlib ir.Module or "
    "Operation, or a jax.stages.Lowered; for a JAX function use hostoffload.check_jax"
)


def is_text(source: str) -> bool:
    """Whether a str given as a source is MLIR text; any other str is a path."""
    return "\n" in source or _TEXT.match(source) is not None


@contextmanager
def new_context() -> Iterator[ir.Context]:
    """A context for the API's own copies of modules. It is single-threaded: MLIR verifies
    functions of nested modules on worker threads, and MLIR's Python bindings then record
    their errors without holding the GIL, which aborts the process."""
    with ir.Context() as context:
        context.enable_multithreading(False)
        yield context


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
    except (OSError, ValueError) as error:
        # Text that is not recognised as MLIR lands here: say which rule made it a path.
        rule = f" (a str is a path unless it is MLIR text: {TEXT_RULE})" if given_as_str else ""
        reason = error.strerror if isinstance(error, OSError) else "the path holds a NUL character"
        message = f"cannot read the file: {reason}{rule}"
        raise InputError.unlocated(message, source=path) from None


def generic_form(operation: Any) -> str:
    """The module in the generic form. MLIR prints the body of a dialect attribute or type
    (``#sdy.sharding<...>``) as it is, so bytes that are not UTF-8 there stay bytes: they are
    decoded with ``surrogateescape``, which :func:`parse` undoes."""
    text: bytes = operation.get_asm(binary=True, print_generic_op_form=True, enable_debug_info=True)
    return text.decode("utf-8", "surrogateescape")


@contextmanager
def mlir_errors(name: str | None) -> Iterator[None]:
    """Turns the errors MLIR raises in the block into :class:`InputError`."""
    try:
        yield
    except ir.MLIRError as error:
        raise InputError(*diagnostics(error, name), source=name) from None
    except RuntimeError as error:
        # nanobind cannot make a str of a message that is not UTF-8.
        if "str_from_cstr" not in str(error):
            raise
        raise InputError.unlocated(UNDECODABLE, source=name) from None


def _encode(text: str, name: str | None) -> str | bytes:
    """``text`` as MLIR can take it: as it is, or as the bytes it came from when it holds
    bytes that are not UTF-8 decoded with ``surrogateescape`` (as :func:`generic_form` and
    Python's file-name functions do). Any other lone surrogate has no bytes to stand for."""
    try:
        text.encode()
        return text
    except UnicodeEncodeError:
        pass
    try:
        return text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError as error:
        line = text.count("\n", 0, error.start) + 1
        column = error.start - text.rfind("\n", 0, error.start)
        file = name or "-"
        message = (
            f"the text is not valid Unicode: it holds {text[error.start]!r}, a lone surrogate "
            "that stands for no byte; pass the file's bytes or its path instead"
        )
        location = Location(file, line, column, f'loc("{file}":{line}:{column})')
        raise InputError(Diagnostic(message, location), source=name) from None


def _parse(text: str | bytes, name: str | None, context: ir.Context) -> ir.Module:
    if isinstance(text, str):
        text = _encode(text, name)
    # Through our C API rather than ir.Module.parse: MLIR's Python bindings abort on some
    # errors whose message is not UTF-8, and print the failing op whole into each error.
    data = text.encode() if isinstance(text, str) else text
    module, errors = _hostoffload.parse(context, data)
    if module is not None:
        return module
    ours = _parse_errors(errors, name)
    # Text that parsed and failed the verifier is not for jaxlib either.
    if json.loads(errors)["parsed"] or not _for_jaxlib(data):
        raise InputError(*ours, source=name)
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
    module, errors = _hostoffload.parse(context, generic.encode("utf-8", "surrogateescape"))
    if module is None:
        raise InputError(*_parse_errors(errors, name), source=name)
    return module


def _for_jaxlib(data: bytes) -> bool:
    """Whether jaxlib may read what our parser cannot: bytecode, or pretty-printed StableHLO,
    which is UTF-8 (on messages that are not, jaxlib's bindings terminate the process)."""
    if data.startswith(b"ML\xefR"):
        return True
    try:
        data.decode()
    except UnicodeDecodeError:
        return False
    return True


def _parse_errors(report: str, name: str | None) -> tuple[Diagnostic, ...]:
    """The diagnostics of the JSON ``{"errors": [...]}`` of a failed parse."""
    if name is not None:
        report = name_buffer(report, name)
    return tuple(Diagnostic.from_json(error) for error in json.loads(report)["errors"])


def name_buffer(report: str, name: str) -> str:
    """``report``, JSON of our C API, with the file ``-`` (MLIR's name of the text it parses,
    which locations made up while parsing point at) replaced by ``name``. The C API writes
    compact JSON whose strings escape every quote, so ``"file":"-"`` is only ever a location's
    file; replacing it in the text spares walking every object of a large report."""
    return report.replace('"file":"-"', '"file":' + json.dumps(name))


class _JaxParseError(Exception):
    def __init__(self, mlir_error: Any) -> None:
        super().__init__(str(mlir_error))
        self.mlir_error = mlir_error


def _generic_form_through_jax(text: str | bytes) -> str:
    """Parses ``text`` with jaxlib and prints it in the generic form; raises
    ModuleNotFoundError without jax and _JaxParseError when jaxlib cannot parse it either."""
    from jax._src.interpreters import mlir as jax_mlir
    from jax._src.lib.mlir import ir as jax_ir

    with jax_mlir.make_ir_context() as context:
        # As in new_context(): jaxlib's bindings would wait for the GIL on a worker thread.
        context.enable_multithreading(False)
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
                if not note.message.startswith(_OPERATION_DUMP)
            ),
        )
        for info in error.error_diagnostics
    )
    return found or (Diagnostic(str(error), Location.unknown()),)


def _position(diagnostics: tuple[Diagnostic, ...]) -> tuple[int, int]:
    location = diagnostics[0].location
    return (location.line or 0, location.column or 0)
