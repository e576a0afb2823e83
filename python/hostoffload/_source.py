"""Resolving what a user hands to :func:`hostoffload.check` or :func:`hostoffload.fix` into
one module of :mod:`hostoffload.mlir`, once.

Bytes are recognised by :mod:`hostoffload._forms`; every form but the generic one is
converted by :mod:`hostoffload._convert` through jaxlib; errors are translated by
:mod:`hostoffload._errors`.
"""

from __future__ import annotations

import atexit
import io
import json
import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, NamedTuple

from hostoffload import _convert, _errors
from hostoffload._forms import (
    EMPTY,
    READABLE,
    VHLO_TEXT,
    Form,
    directory_error,
    dump_platform,
    looks_like,
    python_source,
    read_head,
    recognise,
)
from hostoffload._print import generic_text
from hostoffload.diagnostic import Diagnostic, InputError, Location, Note
from hostoffload.mlir import ir
from hostoffload.mlir._mlir_libs import _hostoffload
from hostoffload.platforms import REPORTED_PLATFORMS

# Modules torn down on the library's thread hold their contexts until it is done: the
# interpreter must not finalize before.
atexit.register(_hostoffload.wait_for_background_destruction)

# A str holding text rather than a path: several lines, or what MLIR or HLO text starts with
# (a generic op, an alias or attribute definition, a comment, a pretty module or function,
# an HLO module).
_TEXT = re.compile(r'\s*(?:\Z|"|#|//|module[\s{@]|func\.func\s|HloModule\s)')
TEXT_RULE = (
    "it contains a newline, is blank, or starts (after blanks) with '\"', '#', '//', "
    "'module' followed by a blank, '{' or '@', 'func.func' or 'HloModule' followed by a blank"
)

UNSUPPORTED = (
    "expected MLIR or HLO text (str or bytes), a serialized jax.export artifact (bytes), a path, "
    "a hostoffload.mlir or jaxlib ir.Module or Operation, a jax.stages.Traced or Lowered, or a "
    "jax.export.Exported; for a JAX function use hostoffload.check_jax"
)


class Resolved(NamedTuple):
    """A module to analyse: ``operation``, its input's ``name``, whether it was just parsed
    (and so verified) here, and the ``platform`` XLA compiled it for where it is a file of
    XLA's dump (see :func:`hostoffload._forms.dump_platform`)."""

    operation: ir.Operation
    name: str | None
    verified: bool
    platform: str | None = None


def is_text(source: str) -> bool:
    """Whether a str given as a source is text; any other str is a path."""
    return "\n" in source or _TEXT.match(source) is not None


@contextmanager
def new_context() -> Iterator[ir.Context]:
    """A context for the API's own copies of modules. It is single-threaded: MLIR verifies
    functions of nested modules on worker threads, and MLIR's Python bindings then record
    their errors without holding the GIL, which aborts the process."""
    with ir.Context() as context:
        context.enable_multithreading(False)
        yield context


@contextmanager
def resolve(source: object, name: str | None, *, copy: bool) -> Iterator[Resolved]:
    """The module of ``source`` for the duration of the block. A module object of our own MLIR
    is handed over in place unless ``copy``; anything else is read into a new module in a new
    context. ``name`` names text read from elsewhere (e.g. stdin); a path names itself."""
    operation = own_operation(source)
    if operation is not None and not copy:
        yield Resolved(operation, name, verified=False)
        return
    with new_context() as context:
        if operation is not None:
            module = _parse_generic(generic_text(operation), name, context)
        else:
            module, name = _module_of(source, context, name)
        try:
            yield Resolved(module.operation, name, verified=True, platform=_dump_platform(source))
        finally:
            # Nothing outside refers into this module: its teardown (a twentieth of the
            # parse) need not keep the caller waiting.
            _hostoffload.destroy_body_in_background(module.operation, context)


def own_operation(source: object) -> ir.Operation | None:
    """The operation of a module object of our own MLIR; else None."""
    if isinstance(source, (ir.Module, ir.Operation, ir.OpView)):
        return source.operation
    return None


def generic_form(operation: Any) -> str:
    """The module in the generic form, as text: the bytes of :func:`generic_text` that are
    not UTF-8 are decoded with ``surrogateescape``, which the parse undoes."""
    return generic_text(operation).decode("utf-8", "surrogateescape")


def _dump_platform(source: object) -> str | None:
    """The platform of the dump file that ``source`` is the path of, if it is one that a
    report names (see ``report.schema.json``)."""
    if isinstance(source, os.PathLike) or isinstance(source, str) and not is_text(source):
        platform = dump_platform(Path(os.fsdecode(os.fspath(source))))
        return platform if platform in REPORTED_PLATFORMS else None
    return None


def _module_of(
    source: object, context: ir.Context, name: str | None
) -> tuple[ir.Module, str | None]:
    if isinstance(source, str) and is_text(source):
        return _from_bytes(_encode(source, name), context, name, None), name
    if isinstance(source, (str, os.PathLike)):
        path = os.fspath(source)
        data = _read(path, isinstance(source, str))
        return _from_bytes(data, context, path, path), path
    if isinstance(source, (bytes, bytearray, memoryview)):
        return _from_bytes(bytes(source), context, name, None), name
    found = _jax_object_generic_form(source, name)
    if found is None:
        message = f"cannot check a {type(source).__qualname__}: {UNSUPPORTED}"
        raise InputError.unlocated(message, source=name)
    generic, verified = found
    return _parse_generic(generic, name, context, verify=not verified), name


def _jax_object_generic_form(source: object, name: str | None) -> tuple[bytes, bool] | None:
    """The generic form of a JAX or jaxlib object, and whether JAX verified the module it is
    printed from; None for anything else."""
    if type(source).__module__.split(".")[0] not in ("jax", "jaxlib"):
        return None
    import jax

    if isinstance(source, jax.export.Exported):
        return _convert.exported_to_generic(source, name), False
    if isinstance(source, (jax.stages.Lowered, jax.stages.Traced)):
        # JAX verifies every module it lowers: a second verifier pass would cost 5-8 % of
        # the parse.
        return _convert.lowered_to_generic(source), True
    foreign = getattr(source, "operation", source)
    if hasattr(foreign, "get_asm"):  # a module or operation of jaxlib's MLIR, maybe changed
        return generic_text(foreign), False
    return None


def _read(path: str, given_as_str: bool) -> bytes:
    if os.path.isdir(path):
        raise InputError.unlocated(directory_error(Path(path)), source=path)
    try:
        return Path(path).read_bytes()
    except (OSError, ValueError) as error:
        # Text that is not recognised as MLIR lands here: say which rule made it a path.
        rule = ""
        if given_as_str:
            rule = f" (a str is a path unless it is MLIR or HLO text: {TEXT_RULE})"
        reason = error.strerror if isinstance(error, OSError) else "the path holds a NUL character"
        message = f"cannot read the file: {reason}{rule}"
        raise InputError.unlocated(message, source=path) from None


def _encode(text: str, name: str | None) -> bytes:
    """``text`` as bytes: as UTF-8, with the bytes that are not UTF-8 decoded with
    ``surrogateescape`` (as :func:`generic_form` and Python's file-name functions do) turned
    back. Any other lone surrogate has no bytes to stand for."""
    try:
        return text.encode()
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


def _from_bytes(data: bytes, context: ir.Context, name: str | None, path: str | None) -> ir.Module:
    form = recognise(read_head(io.BytesIO(data).read), path)
    if form is Form.EMPTY:
        raise InputError.unlocated(EMPTY, source=name)
    if form is Form.PYTHON:
        raise InputError.unlocated(python_source(path), source=name)
    if form is Form.VHLO_TEXT:
        raise InputError.unlocated(VHLO_TEXT, source=name)
    if form.needs_jax and form is not Form.PRETTY:
        # jaxlib terminates the process on some damaged inputs of these forms (XLA's CHECKs,
        # messages that are not UTF-8; see docs/robustness.md): they convert in a child.
        generic = _convert.convert_in_child(data, form, name, path)
        return _parse_generic(generic, name, context)
    return _parse_text(data, form, context, name, path)


def _buffer_name(name: str | None) -> bytes:
    """What the parser names the text, so that the locations it makes up name the input;
    ``-`` (MLIR's name for text of no file) when it has no name."""
    return os.fsencode(name) if name is not None else b"-"


def _parse_generic(
    text: str | bytes, name: str | None, context: ir.Context, *, verify: bool = True
) -> ir.Module:
    """Parses text our MLIR reads, through our C API rather than ir.Module.parse: MLIR's
    Python bindings abort on some errors whose message is not UTF-8, and print the failing
    op whole into each error. ``verify=False`` is for the text of a module verified already."""
    data = text.encode("utf-8", "surrogateescape") if isinstance(text, str) else text
    module, errors = _hostoffload.parse(context, data, _buffer_name(name), verify)
    if module is None:
        raise InputError(*_errors.parse_errors(errors), source=name)
    return module


def _parse_text(
    data: bytes, form: Form, context: ir.Context, name: str | None, path: str | None
) -> ir.Module:
    """MLIR text: our parser first (pretty text of func and generic ops is ours too), then,
    for text it cannot read, jaxlib's."""
    module, errors = _hostoffload.parse(context, data, _buffer_name(name))
    if module is not None:
        return module
    ours = _errors.parse_errors(errors)
    if form is Form.UNKNOWN:
        note = Note(f"the input is {looks_like(data)}; {READABLE}", Location.unknown())
        first, *rest = ours
        raise InputError(
            Diagnostic(first.message, first.location, (*first.notes, note)), *rest, source=name
        )
    # Text that parsed and failed the verifier is not for jaxlib either; nor is text that is
    # not UTF-8 (on such messages jaxlib's bindings terminate the process).
    if json.loads(errors)["parsed"]:
        raise InputError(*ours, source=name)
    undecodable = _undecodable_at(data)
    if undecodable is not None:
        if form is Form.PRETTY:
            note = Note(
                f"the input is {form.value}, which jaxlib reads, but byte {undecodable} of it "
                "is not UTF-8, and jaxlib is given only valid text",
                Location.unknown(),
            )
            first, *rest = ours
            ours = (Diagnostic(first.message, first.location, (*first.notes, note)), *rest)
        raise InputError(*ours, source=name)
    try:
        generic = _convert.to_generic(data, Form.PRETTY, name, path)
    except _convert.MissingJax:
        if form is Form.PRETTY:
            raise
        raise InputError(*ours, source=name) from None
    except _convert.JaxParseError as error:
        # The parser that read further understood more of the text: jaxlib's for pretty
        # StableHLO with a mistake in it, ours (on a tie) for generic text.
        theirs = error.diagnostics
        best = theirs if _errors.position(theirs) > _errors.position(ours) else ours
        raise InputError(*best, source=name) from None
    return _parse_generic(generic, name, context)


def _undecodable_at(data: bytes) -> int | None:
    """The offset of the first byte of ``data`` that is not UTF-8, or None."""
    try:
        data.decode()
    except UnicodeDecodeError as error:
        return error.start
    return None
