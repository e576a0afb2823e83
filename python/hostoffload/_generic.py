"""The generic text of anything a user hands to :func:`hostoffload.check` or
:func:`hostoffload.fix`: the one place that reads a source and makes the text our MLIR parses.

A file is read and a str encoded; bytes are recognised by :mod:`hostoffload._forms`; the forms
jaxlib reads are converted by :mod:`hostoffload._convert`; a module object is printed by
:mod:`hostoffload._print`. MLIR text is handed on as it was given (our parser reads the
generic form, and pretty text of func and builtin ops), and read through jaxlib
(:func:`through_jaxlib`) where our parser cannot read it, pretty StableHLO at once.
"""

from __future__ import annotations

import io
import os
import re
from pathlib import Path
from typing import NamedTuple

from hostoffload import _convert, _errors
from hostoffload._forms import (
    READABLE,
    Form,
    directory_error,
    dump_platform,
    looks_like,
    read_head,
    recognise,
    unreadable,
)
from hostoffload._print import generic_text
from hostoffload.diagnostic import Diagnostic, InputError, Location, Note
from hostoffload.mlir import ir
from hostoffload.platforms import REPORTED_PLATFORMS

# A str holding text rather than a path: several lines, or what MLIR or HLO text starts with
# (a generic op, an alias or attribute definition, a comment, a pretty module or function,
# an HLO module).
_TEXT = re.compile(r'\s*(?:\Z|"|#|//|module[\s{@]|func\.func\s|HloModule\s)')
TEXT_RULE = (
    "it contains a newline, is blank, or starts (after blanks) with '\"', '#', '//', "
    "'module' followed by a blank, '{' or '@', 'func.func' or 'HloModule' followed by a blank"
)

# A module object of our own MLIR.
OWN_MODULE = (ir.Module, ir.Operation, ir.OpView)

UNSUPPORTED = (
    "expected MLIR or HLO text (str or bytes), a serialized jax.export artifact (bytes), a path, "
    "a hostoffload.mlir or jaxlib ir.Module or Operation, a jax.stages.Traced or Lowered, or a "
    "jax.export.Exported; for a JAX function use hostoffload.check_jax"
)


class GenericText(NamedTuple):
    """The text of a source for our parser: ``data``, named ``name`` (a path names itself);
    ``verified`` where it was printed from a module JAX verified already; the ``platform``
    XLA compiled it for where it is a file of XLA's dump (see
    :func:`hostoffload._forms.dump_platform`); and, for text handed on as it was given, its
    ``form`` and the ``path`` it was read from, for :func:`through_jaxlib`."""

    data: bytes
    name: str | None
    verified: bool = False
    platform: str | None = None
    form: Form | None = None
    path: str | None = None


def is_text(source: str) -> bool:
    """Whether a str given as a source is text; any other str is a path."""
    return "\n" in source or _TEXT.match(source) is not None


def generic_text_of(source: object, name: str | None) -> GenericText:
    """The generic text of ``source``, read, recognised and converted as its type and form
    need. ``name`` names text read from elsewhere (e.g. stdin)."""
    if isinstance(source, OWN_MODULE):
        return GenericText(generic_text(source.operation), name)
    if isinstance(source, str) and is_text(source):
        return _of_bytes(_encode(source, name), name, None)
    if isinstance(source, (str, os.PathLike)):
        path = os.fspath(source)
        text = _of_bytes(_read(path, isinstance(source, str)), path, path)
        return text._replace(platform=_dump_platform(path))
    if isinstance(source, (bytes, bytearray, memoryview)):
        return _of_bytes(bytes(source), name, None)
    found = _jax_object_generic_text(source, name)
    if found is None:
        message = f"cannot check a {type(source).__qualname__}: {UNSUPPORTED}"
        raise InputError.unlocated(message, source=name)
    return found


def generic_form(operation: ir.Operation) -> str:
    """A module of our MLIR in the generic form, as text: the bytes of its generic text that
    are not UTF-8 are decoded with ``surrogateescape``, which :func:`generic_text_of` undoes."""
    return generic_text(operation).decode("utf-8", "surrogateescape")


def through_jaxlib(text: GenericText, ours: tuple[Diagnostic, ...], parsed: bool) -> bytes:
    """The generic text of ``text``, handed on as it was given, which our parser could not
    read (``ours``, its errors, none where it was not tried: pretty StableHLO; ``parsed``: it
    parsed and failed the verifier), as jaxlib's MLIR reads it: pretty text of func and
    generic ops is ours too, other pretty text is jaxlib's. Raises the :class:`InputError` to
    show where jaxlib cannot help."""
    form = text.form
    if form is Form.UNKNOWN:
        note = Note(f"the input is {looks_like(text.data)}; {READABLE}", Location.unknown())
        first, *rest = ours
        raise InputError(
            Diagnostic(first.message, first.location, (*first.notes, note)), *rest, source=text.name
        )
    # Text that parsed and failed the verifier is not for jaxlib either; nor is text that is
    # not UTF-8 (on such messages jaxlib's bindings terminate the process).
    if parsed:
        raise InputError(*ours, source=text.name)
    undecodable = _undecodable_at(text.data)
    if undecodable is not None:
        if form is Form.PRETTY:
            note = Note(
                f"the input is {form.value}, which jaxlib reads, but byte {undecodable} of it "
                "is not UTF-8, and jaxlib is given only valid text",
                Location.unknown(),
            )
            first, *rest = ours
            ours = (Diagnostic(first.message, first.location, (*first.notes, note)), *rest)
        raise InputError(*ours, source=text.name)
    try:
        return _convert.to_generic(text.data, Form.PRETTY, text.name, text.path)
    except _convert.MissingJax:
        if form is Form.PRETTY:
            raise
        raise InputError(*ours, source=text.name) from None
    except _convert.JaxParseError as error:
        # The parser that read further understood more of the text: jaxlib's for pretty
        # StableHLO with a mistake in it, ours (on a tie) for generic text.
        theirs = error.diagnostics
        best = theirs if not ours or _errors.position(theirs) > _errors.position(ours) else ours
        raise InputError(*best, source=text.name) from None


def _dump_platform(path: str) -> str | None:
    """The platform of the dump file at ``path``, if it is one that a report names (see
    ``report.schema.json``)."""
    platform = dump_platform(Path(path))
    return platform if platform in REPORTED_PLATFORMS else None


def _jax_object_generic_text(source: object, name: str | None) -> GenericText | None:
    """The generic text of a JAX or jaxlib object; None for anything else."""
    if type(source).__module__.split(".")[0] not in ("jax", "jaxlib"):
        return None
    import jax

    if isinstance(source, jax.export.Exported):
        return GenericText(_convert.exported_to_generic(source, name), name)
    if isinstance(source, (jax.stages.Lowered, jax.stages.Traced)):
        # JAX verifies every module it lowers: a second verifier pass would find nothing new.
        return GenericText(_convert.lowered_to_generic(source), name, verified=True)
    foreign = getattr(source, "operation", source)
    if hasattr(foreign, "get_asm"):  # a module or operation of jaxlib's MLIR, maybe changed
        return GenericText(generic_text(foreign), name)
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
    ``surrogateescape`` (as :func:`generic_form` and Python's file-name
    functions do) turned back. Any other lone surrogate has no bytes to stand for."""
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


def _of_bytes(data: bytes, name: str | None, path: str | None) -> GenericText:
    form = recognise(read_head(io.BytesIO(data).read), path)
    reason = unreadable(form, path)
    if reason is not None:
        raise InputError.unlocated(reason, source=name)
    if form.needs_jax and form is not Form.PRETTY:
        # jaxlib terminates the process on some damaged inputs of these forms (XLA's CHECKs,
        # messages that are not UTF-8; see docs/robustness.md): they convert in a child.
        return GenericText(_convert.convert_in_child(data, form, name, path), name)
    return GenericText(data, name, form=form, path=path)


def only_jaxlib_reads(text: GenericText) -> bool:
    """Whether ``text`` is pretty StableHLO that only jaxlib's MLIR reads, so that our parser
    is not tried on it (text that is not UTF-8 is left to ours, whose errors say where)."""
    return text.form is Form.PRETTY and is_utf8(text.data)


def is_utf8(data: bytes) -> bool:
    """Whether ``data`` is UTF-8 text, which jaxlib may be given."""
    return _undecodable_at(data) is None


def _undecodable_at(data: bytes) -> int | None:
    """The offset of the first byte of ``data`` that is not UTF-8, or None."""
    try:
        data.decode()
    except UnicodeDecodeError as error:
        return error.start
    return None
