"""Converting every form jaxlib reads into MLIR's generic form, which our MLIR parses.

Our MLIR (22) parses JAX's generic form because unregistered dialects are allowed; only
jaxlib's MLIR, which registers StableHLO, CHLO and Shardy, parses the pretty form and
bytecode, and only jaxlib's XLA reads HLO text and ``jax.export`` artifacts. Each form is
read into a module of jaxlib's MLIR (:func:`jaxlib_module`), which is printed in the generic
form with debug information, as bytes or into a file (MLIR prints the bodies of dialect
attributes as they are, so they need not be UTF-8).

This module imports neither jaxlib nor :mod:`hostoffload.mlir` until a conversion runs, and jax
only for ``jax.export`` artifacts: every other form needs only jaxlib, and importing jax would
take far longer. Run as ``python -m hostoffload._convert FORM NAME PATH DESCRIPTOR`` it converts
its standard input in a child process into the inherited file ``DESCRIPTOR`` (see
:func:`convert_in_child`): jaxlib terminates the process on some inputs.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from typing import Any

from hostoffload import _async_calls, _hlo
from hostoffload._errors import mlir_diagnostics
from hostoffload._forms import JAXLIB_RELEASES, NEEDS_JAX, Form
from hostoffload._frames import exclude_own_files_from_jax
from hostoffload._print import generic_text, output_file, print_generic_into
from hostoffload.diagnostic import Diagnostic, InputError, Location, diagnostics_from_json

# The exit status of the child when it raised an InputError (written as JSON on stdout).
_EXIT_INPUT_ERROR = 3
# How long a conversion may take, far beyond what a large module of each form needs
# (docs/input-forms.md, "Costs"); jaxlib loops forever on some damaged bytecode.
_TIMEOUT_SECONDS = 60
_TIMEOUT_SECONDS_PER_MB = 20

# jaxlib's HLO parser: "... was parsing 27:64: error: expects attribute name".
_HLO_PARSE_ERROR = re.compile(r"was parsing (\d+):(\d+): error: ([^\n]*)")

# What a dying jaxlib prints that says why: XLA's CHECKs, C++ exceptions, MLIR errors; XLA's
# log lines start with a prefix such as "F1201 10:18:48.113512 10850 hlo_computation.cc:188] ".
_CRASH_REASON = re.compile(r"Check failed|what\(\)|error:")
_GLOG_PREFIX = re.compile(r"^[FEWI]\d{4} [\d:.]+\s+\d+ [\w.]+:\d+\] ")

# The jaxlib release that moved XLA's HLO classes into `jaxlib._hlo` and made
# `deserialize_portable_artifact` return a module in a context it is given, not the module's text.
_JAXLIB_HLO_MODULE = (0, 10)

_FRONTEND_ATTRS = "mhlo.frontend_attributes"
_MEMORY_SPACE_KEYS = ("arg_memory_spaces", "out_memory_spaces")


class MissingJax(InputError):
    """The input needs jaxlib (jax for ``jax.export`` artifacts) to be read, and it is not
    installed."""


def missing_jax(form: Form, name: str | None, found: str | None = None) -> MissingJax:
    """The input needs jaxlib; ``found`` is the release installed, where it is too old."""
    installed = "" if found is None else f" (this is jaxlib {found})"
    return MissingJax(
        Diagnostic(f"the input is {form.value}; {NEEDS_JAX}{installed}", Location.unknown()),
        source=name,
    )


def to_generic(data: bytes, form: Form, name: str | None, path: str | None = None) -> bytes:
    """``data``, of ``form``, in the generic form. ``name`` names the input in errors;
    ``path``, where ``data`` was read from, names pretty text's locations and HLO lines."""
    with jaxlib_module(data, form, name, path) as operation:
        return generic_text(operation)


@contextmanager
def jaxlib_module(data: bytes, form: Form, name: str | None, path: str | None) -> Iterator[Any]:
    """``data``, of ``form``, as the ``builtin.module`` operation of a module of jaxlib's
    MLIR, which lives as long as the context; arguments as for :func:`to_generic`."""
    try:
        import jaxlib.mlir.ir  # noqa: F401

        if form is Form.EXPORT:
            import jax  # noqa: F401
    except ImportError:
        raise missing_jax(form, name) from None
    if _jaxlib_version() < JAXLIB_RELEASES[0]:
        raise missing_jax(form, name, found=_jaxlib_release())
    if form is Form.HLO:
        converted = _hlo_module(data, name, path or name or "-")
    elif form is Form.EXPORT:
        converted = _exported_module(_deserialize_export(data, name), name)
    elif form is Form.PORTABLE:
        converted = _portable_module(data, name)
    else:
        converted = _mlir_module(data, name, path if form is Form.PRETTY else None)
    with converted as operation:
        yield operation


def _jaxlib_release() -> str:
    from jaxlib import version

    return str(version.__version__)


def _jaxlib_version() -> tuple[int, ...]:
    """jaxlib's (major, minor, patch) version: for the oldest release the converter reads, and
    the few calls whose form changed between the releases the ``jax`` extra allows."""
    return tuple(int(part) for part in re.findall(r"\d+", _jaxlib_release())[:3])


@contextmanager
def _jaxlib_context() -> Iterator[Any]:
    """A context of jaxlib's MLIR with the dialects of JAX's own
    (``jax._src.interpreters.mlir.make_ir_context``), made from jaxlib alone."""
    from jaxlib.mlir import ir
    from jaxlib.mlir._mlir_libs import _jax_mlir_ext
    from jaxlib.mlir.dialects import chlo, mhlo, mpmd, sdy, stablehlo

    class DialectsAsLoaded(ir.Context):
        # As JAX's context: ir.Context's own __init__ would load every dialect linked into
        # jaxlib, where JAX loads only those of its registry.
        def __init__(self) -> None:
            super(ir.Context, self).__init__()

    registry = ir.DialectRegistry()
    _jax_mlir_ext.register_dialects(registry)
    context = DialectsAsLoaded()
    context.append_dialect_registry(registry)
    context.load_all_available_dialects()
    sdy.register_dialect(context)
    mpmd.register_dialect(context)
    mhlo.register_mhlo_dialect(context)
    chlo.register_dialect(context)
    stablehlo.register_dialect(context)
    # jaxlib's bindings wait for the GIL on a worker thread that verifies a function.
    context.enable_multithreading(False)
    with context:
        yield context


class JaxParseError(InputError):
    """jaxlib's MLIR could not parse the input; ``mlir_error`` is its MLIRError."""


@contextmanager
def _mlir_module(data: bytes, name: str | None, path: str | None) -> Iterator[Any]:
    from jaxlib.mlir import ir as jax_ir

    with _jaxlib_context():
        try:
            # From the file, so that locations MLIR makes up while parsing name it.
            module = jax_ir.Module.parseFile(path) if path else jax_ir.Module.parse(data)
        except jax_ir.MLIRError as error:
            raise JaxParseError(*mlir_diagnostics(error, name), source=name) from None
        except OSError:  # the file went away between sniffing and parsing it
            module = jax_ir.Module.parse(data)
        except ValueError as error:  # damaged bytecode: "SmallVector unable to grow"
            message = f"jaxlib cannot read this MLIR bytecode: {_first_line(error)}"
            raise InputError.unlocated(message, source=name) from None
        yield module.operation


@contextmanager
def _portable_module(data: bytes, name: str | None) -> Iterator[Any]:
    from jaxlib import _jax
    from jaxlib.mlir import ir as jax_ir

    with _jaxlib_context() as context:
        try:
            if _jaxlib_version() >= _JAXLIB_HLO_MODULE:
                module = _jax.mlir.deserialize_portable_artifact(data, context)
            else:  # it returns the module's text, with its debug information
                text = _jax.mlir.deserialize_portable_artifact(data)
                module = jax_ir.Module.parse(text)
        except Exception as error:  # jaxlib raises JaxRuntimeError, a RuntimeError
            message = f"jaxlib cannot read this StableHLO portable artifact: {_first_line(error)}"
            raise InputError.unlocated(message, source=name) from None
        yield module.operation


def _deserialize_export(data: bytes, name: str | None) -> Any:
    import jax

    try:
        return jax.export.deserialize(bytearray(data))
    except ImportError:  # jax imports flatbuffers only to read artifacts
        message = (
            "the input is a serialized jax.export artifact; jax reads it with flatbuffers, "
            "which jax does not install: pip install flatbuffers"
        )
        raise InputError.unlocated(message, source=name) from None
    except Exception as error:  # flatbuffers raises struct.error, IndexError, ...
        message = (
            "this is no jax.export artifact that jax can read "
            f"({type(error).__name__}: {_first_line(error)}); write one with "
            "jax.export.export(jax.jit(f), platforms=['tpu'])(*args).serialize()"
        )
        raise InputError.unlocated(message, source=name) from None


def exported_to_generic(exported: Any, name: str | None) -> bytes:
    """The module of a ``jax.export.Exported`` in the generic form."""
    with _exported_module(exported, name) as operation:
        return generic_text(operation)


def _exported_module(exported: Any, name: str | None) -> AbstractContextManager[Any]:
    return _portable_module(bytes(exported.mlir_module_serialized), name)


def lowered_to_generic(lowered: Any) -> bytes:
    """The StableHLO of a ``jax.stages.Lowered`` (or ``Traced``, lowered here for TPU; see
    :func:`hostoffload.check_jax`) in the generic form."""
    if not hasattr(lowered, "compiler_ir"):
        exclude_own_files_from_jax()
        lowered = lowered.lower(lowering_platforms=("tpu",))
    return generic_text(lowered.compiler_ir("stablehlo").operation)


@contextmanager
def _hlo_module(data: bytes, name: str | None, file_name: str) -> Iterator[Any]:
    from jaxlib import _jax
    from jaxlib.mlir import ir as jax_ir

    if _jaxlib_version() >= _JAXLIB_HLO_MODULE:
        from jaxlib import _hlo as xla_hlo
    else:
        xla_hlo = _jax

    text = _decode_hlo(data, name)
    try:
        hlo_module = xla_hlo.hlo_module_from_text(_hlo.prepare(text, file_name))
    except Exception as error:  # JaxRuntimeError
        raise _hlo_parse_error(error, text, name, file_name) from None
    program_shape = xla_hlo.XlaComputation(
        hlo_module.as_serialized_hlo_module_proto()
    ).program_shape()
    try:
        bytecode = _jax.mlir.hlo_to_stablehlo(hlo_module.as_serialized_hlo_module_proto())
    except Exception as error:
        message = f"XLA cannot convert this HLO module to StableHLO: {_first_line(error)}"
        raise InputError.unlocated(message, source=name) from None
    with _jaxlib_context():
        try:
            module = jax_ir.Module.parse(bytecode)
        except jax_ir.MLIRError as error:
            module = _module_with_flat_host_calls(xla_hlo, hlo_module)
            if module is None:
                # XLA's parser does not verify the module; StableHLO's verifier does.
                first, *rest = mlir_diagnostics(error, name)
                invalid = Diagnostic(f"invalid HLO: {first.message}", first.location, first.notes)
                raise InputError(invalid, *rest, source=name) from None
        spaces = _hlo.memory_spaces(program_shape)
        if spaces is not None:
            _add_memory_spaces(module, *spaces)
        _add_entry_names(module, _hlo.entry_names(text), _hlo.leaf_counts(program_shape))
        yield module.operation


def _module_with_flat_host_calls(xla_hlo: Any, hlo_module: Any) -> Any:
    """The module jaxlib's importer could not verify, read through jaxlib's generic HLO to
    MLIR path with its host calls' tuple results split (``_async_calls``); None where that
    does not make a valid module either."""
    from jaxlib import _jax
    from jaxlib.mlir import ir as jax_ir

    computation = xla_hlo.XlaComputation(hlo_module.as_serialized_hlo_module_proto())
    text = _async_calls.with_flat_async_done(_jax.mlir.xla_computation_to_mlir_module(computation))
    if text is None:
        return None
    try:
        return jax_ir.Module.parse(text)
    except jax_ir.MLIRError:
        return None


def _decode_hlo(data: bytes, name: str | None) -> str:
    try:
        return data.decode()
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        column = error.start - data.rfind(b"\n", 0, error.start)
        file = name or "-"
        message = f"HLO text must be UTF-8: byte {data[error.start]:#04x} is not"
        location = Location(file, line, column, f'loc("{file}":{line}:{column})')
        raise InputError(Diagnostic(message, location), source=name) from None


def _hlo_parse_error(error: Exception, text: str, name: str | None, file_name: str) -> InputError:
    message = str(error)
    found = _HLO_PARSE_ERROR.search(message)
    if found is None:
        return InputError.unlocated(f"XLA cannot parse this HLO text: {message}", source=name)
    line, column = int(found[1]), int(found[2])
    # The lines are those of the text given: preparing it changes lines, never adds any.
    location = Location(file_name, line, column, f'loc("{file_name}":{line}:{column})')
    return InputError(Diagnostic(f"HLO: {found[3]}", location), source=name)


def _add_memory_spaces(module: Any, arguments: list[str], results: list[str]) -> None:
    """Declares the entry memory spaces the importer drops as the module's frontend
    attributes ``arg_memory_spaces`` and ``out_memory_spaces``, as PJRT passes them, unless
    the module has them already; only where there is one space per argument or result."""
    from jaxlib.mlir import ir as jax_ir

    entry = _entry_function(module)
    if entry is None:
        return
    function_type = jax_ir.FunctionType(jax_ir.TypeAttr(entry.attributes["function_type"]).value)
    wanted = {
        "arg_memory_spaces": (arguments, len(function_type.inputs)),
        "out_memory_spaces": (results, len(function_type.results)),
    }
    attributes = module.operation.attributes
    existing = (
        jax_ir.DictAttr(attributes[_FRONTEND_ATTRS]) if _FRONTEND_ATTRS in attributes else None
    )
    entries = {} if existing is None else {item.name: item.attr for item in existing}
    for key, (spaces, count) in wanted.items():
        if key not in entries and len(spaces) == count:
            entries[key] = jax_ir.StringAttr.get(";".join(spaces))
    attributes[_FRONTEND_ATTRS] = jax_ir.DictAttr.get(entries)


def _add_entry_names(module: Any, names: _hlo.EntryNames, leaves: list[int]) -> None:
    """Records XLA's names of the entry parameters (one per function argument: a tuple
    parameter's leaves share its name), of the entry root and of the opt-barriers' tuple
    operands as the module attribute ``hostoffload.hlo_entry = {arguments = [...], root =
    "...", barrier_operands = {"<barrier>" = "<tuple>"}}``, for messages that name what
    XLA's do."""
    from jaxlib.mlir import ir as jax_ir

    parameters = [
        names.parameters.get(i, "") for i, count in enumerate(leaves) for _ in range(count)
    ]
    entries = {"arguments": jax_ir.ArrayAttr.get([jax_ir.StringAttr.get(n) for n in parameters])}
    if names.root is not None:
        entries["root"] = jax_ir.StringAttr.get(names.root)
    if names.barrier_operands:
        entries["barrier_operands"] = jax_ir.DictAttr.get(
            {barrier: jax_ir.StringAttr.get(t) for barrier, t in names.barrier_operands.items()}
        )
    module.operation.attributes[_hlo.ENTRY_NAMES_ATTR] = jax_ir.DictAttr.get(entries)


def _entry_function(module: Any) -> Any:
    functions = [op for op in module.body.operations if op.operation.name == "func.func"]
    for function in functions:
        if jax_string(function.attributes["sym_name"]) == "main":
            return function
    return functions[0] if len(functions) == 1 else None


def jax_string(attribute: Any) -> str:
    from jaxlib.mlir import ir as jax_ir

    return jax_ir.StringAttr(attribute).value


def _first_line(error: BaseException) -> str:
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__


# --- in a child process -------------------------------------------------------------------


def convert_in_child(data: bytes, form: Form, name: str | None, path: str | None) -> bytes:
    """:func:`to_generic` in a child process, so that jaxlib terminating on an input it
    cannot handle ends the child, and the caller gets an :class:`InputError` instead."""
    with output_file() as output:
        convert_in_child_into(output.fileno(), data, form, name, path)
        output.seek(0)
        return output.read()


def convert_in_child_into(
    descriptor: int, data: bytes, form: Form, name: str | None, path: str | None
) -> None:
    """:func:`convert_in_child` into the empty file open as ``descriptor``, which the child
    prints into itself: the generic text of a large model would otherwise be read back, piped
    over and written out again (docs/input-forms.md, "Costs"). Read it from its start."""
    command = [
        sys.executable,
        "-m",
        "hostoffload._convert",
        form.name,
        name or "",
        path or "",
        str(descriptor),
    ]
    timeout = _TIMEOUT_SECONDS + _TIMEOUT_SECONDS_PER_MB * len(data) / 2**20
    try:
        result = subprocess.run(
            command,
            input=data,
            capture_output=True,
            check=False,
            timeout=timeout,
            pass_fds=(descriptor,),
        )
    except subprocess.TimeoutExpired:
        message = (
            f"jaxlib did not finish converting this input ({form.value}) in {timeout:.0f} s; "
            "the input is likely damaged (jaxlib's bytecode reader loops on some)"
        )
        raise InputError.unlocated(message, source=name) from None
    if result.returncode == 0:
        return
    if result.returncode == _EXIT_INPUT_ERROR:
        report = json.loads(result.stdout)
        cls = MissingJax if report.get("missing_jax") else InputError
        diagnostics = diagnostics_from_json(report)
        raise cls(*diagnostics, source=name)
    raise InputError.unlocated(_crash_message(form, result), source=name)


def _crash_message(form: Form, result: subprocess.CompletedProcess[bytes]) -> str:
    if result.returncode < 0:
        try:
            how = f"was killed by {signal.Signals(-result.returncode).name}"
        except ValueError:
            how = f"was killed by signal {-result.returncode}"
    else:
        how = f"exited with status {result.returncode}"
    said = result.stderr.decode("utf-8", "replace").strip().splitlines()
    telling = [line for line in said if _CRASH_REASON.search(line)] or said[-1:]
    last = f" after printing {_GLOG_PREFIX.sub('', telling[0]).strip()[:300]!r}" if said else ""
    return (
        f"jaxlib failed on this input ({form.value}): converting it {how}{last}; the input "
        "is likely damaged (truncated, or edited by hand)"
    )


def _child_main(argv: list[str]) -> int:
    form_name, name, path, output = argv
    data = sys.stdin.buffer.read()
    try:
        with jaxlib_module(data, Form[form_name], name or None, path or None) as operation:
            print_generic_into(operation, int(output))
    except InputError as error:
        report = error.to_json()
        report["missing_jax"] = isinstance(error, MissingJax)
        sys.stdout.write(json.dumps(report))
        return _EXIT_INPUT_ERROR
    except Exception as error:  # MemoryError on huge sizes, and what jaxlib raises unasked
        message = (
            f"jaxlib failed on this input ({Form[form_name].value}): "
            f"{type(error).__name__}: {_first_line(error)}"
        )
        sys.stdout.write(json.dumps(InputError.unlocated(message, source=name or None).to_json()))
        return _EXIT_INPUT_ERROR
    return 0


if __name__ == "__main__":
    status = _child_main(sys.argv[1:])
    sys.stdout.flush()
    # The module is printed and its file closed: tearing down jaxlib's module and context
    # would only take time.
    os._exit(status)
