"""Parsing what a user hands to :func:`hostoffload.check` or :func:`hostoffload.fix` into one
module of :mod:`hostoffload.mlir`, once.

The generic text to parse comes from :mod:`hostoffload._generic`; a module object of our own
MLIR is analysed in place unless it is to be changed.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import NamedTuple

from hostoffload import _errors, _generic
from hostoffload._generic import GenericText
from hostoffload.diagnostic import InputError
from hostoffload.mlir import ir
from hostoffload.mlir._mlir_libs import _hostoffload


class Resolved(NamedTuple):
    """A module to analyse: ``operation``, its input's ``name``, whether it was just parsed
    (and so verified) here, and the ``platform`` XLA compiled it for where it is a file of
    XLA's dump (see :func:`hostoffload._forms.dump_platform`)."""

    operation: ir.Operation
    name: str | None
    verified: bool
    platform: str | None = None


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
    is handed over in place unless ``copy``; anything else is parsed from its generic text
    into a new module in a new context. ``name`` names text read from elsewhere (e.g. stdin);
    a path names itself."""
    if isinstance(source, _generic.OWN_MODULE) and not copy:
        yield Resolved(source.operation, name, verified=False)
        return
    text = _generic.generic_text_of(source, name)
    with new_context() as context:
        module = _parse(text, context)
        yield Resolved(module.operation, text.name, verified=True, platform=text.platform)


def _parse(text: GenericText, context: ir.Context) -> ir.Module:
    """Parses ``text`` through our C API rather than ir.Module.parse: MLIR's Python bindings
    abort on some errors whose message is not UTF-8, and print the failing op whole into each
    error. Text handed on as it was given that our parser cannot read is read through
    jaxlib's MLIR instead; pretty StableHLO, which our parser does not read, only there."""
    if _generic.only_jaxlib_reads(text):
        generic = _generic.through_jaxlib(text, (), parsed=False)
        return _parse(GenericText(generic, text.name), context)
    module, errors = _hostoffload.parse(
        context, text.data, _buffer_name(text.name), not text.verified
    )
    if module is not None:
        return module
    ours = _errors.parse_errors(errors)
    if text.form is None:
        raise InputError(*ours, source=text.name)
    generic = _generic.through_jaxlib(text, ours, parsed=json.loads(errors)["parsed"])
    return _parse(GenericText(generic, text.name), context)


def _buffer_name(name: str | None) -> bytes:
    """What the parser names the text, so that the locations it makes up name the input;
    ``-`` (MLIR's name for text of no file) when it has no name."""
    return os.fsencode(name) if name is not None else b"-"
