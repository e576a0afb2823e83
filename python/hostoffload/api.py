"""Check a JAX program or an MLIR module for E1200 before XLA does, and fix it."""

from __future__ import annotations

import dataclasses
import gc
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from hostoffload import _errors, _generic, _source
from hostoffload._frames import exclude_own_files_from_jax
from hostoffload.diagnostic import InputError, locations_from_json
from hostoffload.jax_fix import Output
from hostoffload.mlir import ir, passmanager
from hostoffload.mlir._mlir_libs import _hostoffload
from hostoffload.platforms import Platform, platform_named
from hostoffload.releases import ChosenXlaRelease, ReleaseRequest
from hostoffload.report import REPORT_CLASSES, PathStep, Report, Strategy
from hostoffload.tracing import StartTrace, Trace, TraceFate

#: The classes of the analysis's objects with the trace of every start.
_TRACE_CLASSES = {**REPORT_CLASSES, "trace": StartTrace, "fates": TraceFate, "through": PathStep}


def check(
    source: object,
    *,
    entry: str | None = None,
    strict: bool = False,
    allow_h2h_copy: bool = False,
    xla_release: str | None = None,
    trace: bool = False,
    platform: Platform = "tpu",
) -> Report:
    """Checks the host offloading of a module the way XLA's HostOffloader will.

    ``source`` is one of:

    - MLIR text, ``str`` or ``bytes``, in the generic form; with jax installed (the ``[jax]``
      extra) also pretty-printed StableHLO (``lowered.as_text()``), MLIR bytecode, HLO text
      (``lowered.as_text(dialect="hlo")``, XLA's ``*.before_optimizations.txt`` dumps) and a
      serialized ``jax.export`` artifact (``bytes``), each read through jaxlib
      (docs/input-forms.md);
    - a path to a file holding any of these, as an ``os.PathLike`` or as a ``str`` that is not
      text: a ``str`` is text when it contains a newline, is blank, or starts (after blanks)
      with ``"``, ``#``, ``//``, ``module`` followed by a blank, ``{`` or ``@``, or
      ``func.func`` or ``HloModule`` followed by a blank; pass a :class:`pathlib.Path` to be
      unambiguous;
    - a ``builtin.module`` of :mod:`hostoffload.mlir` (``ir.Module``, ``ir.Operation`` or an
      op view), analysed in place and never changed;
    - a jaxlib ``ir.Module`` or ``Operation``, a ``jax.stages.Lowered``, a
      ``jax.stages.Traced`` (lowered here for TPU) or a ``jax.export.Exported``; lower for
      the platform that offloads (see :func:`check_jax`).

    ``entry`` names the entry function (default: ``@main``, else the only public function);
    ``strict`` reports device computation on host memory as error HOE101, as XLA does under
    ``xla_disable_automatic_host_compute_offload``; ``allow_h2h_copy`` then lets a copy on
    host memory through, as XLA's ``xla_allow_h2h_copy_when_automatic_host_compute_offload_
    disabled`` does (the ``allow-h2h-copy`` option of ``host-offload-check``);
    ``xla_release`` names the XLA to model where releases differ, by its name (``"2026-06"``)
    or by a libtpu release (``"0.0.42.1"``); without it, ``$HOSTOFFLOAD_XLA_RELEASE`` names
    it, else the libtpu of the TPU backend JAX has started, else the libtpu package installed
    here, else it is the newest (:mod:`hostoffload.releases`; ``ValueError`` for one it does
    not know). :attr:`Report.xla_release` names it and :attr:`Report.xla_release_reason` says
    why.
    ``platform`` is the platform the program is compiled for, whose XLA the check models where
    XLA:TPU and XLA:GPU differ: ``"tpu"`` (XLA:TPU) or ``"cuda"`` (XLA:GPU); the report names it
    (:attr:`Report.compiled_for`).

    A finding on a line of Python source that carries ``# hostoffload: ignore[CODE]`` (or
    ``# hostoffload: ignore``, every code) is left out (:meth:`Report.without_suppressed`).
    With ``trace``, :attr:`Report.trace` says where every start's host memory goes
    (:func:`trace`).

    Raises :class:`InputError` when the source cannot be read or parsed, is of another type,
    or has no (or an ambiguous) entry function.
    """
    return check_named(
        source,
        None,
        entry=entry,
        strict=strict,
        allow_h2h_copy=allow_h2h_copy,
        xla_release=xla_release,
        trace=trace,
        platform=platform,
    )


def trace(
    source: object,
    *,
    entry: str | None = None,
    xla_release: str | None = None,
    platform: Platform = "tpu",
) -> Trace:
    """Where every tensor in host memory goes in ``source`` (read as by :func:`check`): for
    each start (a ``pinned_host`` argument, a move to host), its tensor, the ops its host
    memory passes through, and its fates: moved back to device, computed on the host, returned
    in host memory, returned as an output not in host memory (E1200), or unused. Raises
    :class:`InputError` like :func:`check`."""
    return trace_named(source, None, entry=entry, xla_release=xla_release, platform=platform)


def trace_named(
    source: object,
    name: str | None,
    *,
    entry: str | None = None,
    xla_release: str | ReleaseRequest | None = None,
    platform: Platform = "tpu",
) -> Trace:
    """:func:`trace`, naming text ``source`` ``name`` in the trace and in errors."""
    return _traced(
        check_named(
            source, name, entry=entry, xla_release=xla_release, trace=True, platform=platform
        )
    )


def trace_jax(
    fn: Callable[..., Any],
    *args: Any,
    platform: Platform = "tpu",
    xla_release: str | None = None,
    **jit_kwargs: Any,
) -> Trace:
    """:func:`trace` of ``fn`` lowered for ``platform`` at ``args``, as :func:`check_jax`
    lowers it; no device needed."""
    return _traced(
        check_jax(fn, *args, platform=platform, xla_release=xla_release, trace=True, **jit_kwargs)
    )


def _traced(report: Report) -> Trace:
    assert report.trace is not None, "a report checked with trace=True has its trace"
    return report.trace


def check_named(
    source: object,
    name: str | None,
    *,
    entry: str | None = None,
    strict: bool = False,
    allow_h2h_copy: bool = False,
    xla_release: str | ReleaseRequest | None = None,
    trace: bool = False,
    platform: Platform = "tpu",
) -> Report:
    """:func:`check`, naming text ``source`` ``name`` in the report and in errors; a route
    that reads more than the argument gives ``xla_release`` as a :class:`ReleaseRequest`."""
    _require_entry(entry, name)
    compiled_for = platform_named(platform)
    release = _chosen(xla_release, compiled_for)
    with _source.resolve(source, name, copy=False) as module:
        # Just parsed and verified: a second verifier pass would find nothing new.
        report = _analyze(module, entry, strict, allow_h2h_copy, release, trace, compiled_for)
    return report.without_suppressed()


def check_jax(
    fn: Callable[..., Any],
    *args: Any,
    platform: Platform = "tpu",
    xla_release: str | None = None,
    trace: bool = False,
    **jit_kwargs: Any,
) -> Report:
    """Lowers ``fn`` for ``platform`` at ``args`` and checks the lowering; no device needed.

    ``fn`` is wrapped in ``jax.jit(fn, **jit_kwargs)`` unless it is already jitted. ``args``
    are usually ``jax.ShapeDtypeStruct`` values whose ``sharding`` carries the memory kind,
    e.g. ``SingleDeviceSharding(jax.devices("cpu")[0], memory_kind="pinned_host")``.

    The lowering is for TPU or GPU (``"cuda"``) even on a machine without one, because a CPU
    lowering hides the problem: XLA:CPU has no host offloading, so JAX drops the
    ``annotate_device_placement`` calls that ``jax.device_put(x, jax.memory.Space.Host)``
    puts inside ``jit``, and with them the moves to host and every E1200 they cause.
    ``trace`` is that of :func:`check`.
    """
    platform = platform_named(platform)
    import jax

    # An op JAX inserts while lowering here (an output moved to another memory kind) is then
    # at the user's call of check_jax, not at this file's line.
    exclude_own_files_from_jax()

    if isinstance(fn, jax.stages.Wrapped):
        if jit_kwargs:
            raise TypeError(
                f"{sorted(jit_kwargs)} given for a function that is already jitted: "
                "pass them to jax.jit instead"
            )
        jitted = fn
    else:
        jitted = jax.jit(fn, **jit_kwargs)
    report = check(
        jitted.trace(*args).lower(lowering_platforms=(platform,)),
        xla_release=xla_release,
        trace=trace,
        platform=platform,
    )
    if report.trace is not None:
        report = dataclasses.replace(
            report, trace=dataclasses.replace(report.trace, platform=platform)
        )
    return dataclasses.replace(report, platform=platform)


def fix(
    source: object,
    strategy: Strategy = "host",
    *,
    entry: str | None = None,
    xla_release: str | None = None,
    platform: Platform = "tpu",
) -> str:
    """Applies one fix to every E1200 of ``source`` and returns the module in the generic form.

    ``strategy="host"`` declares each offending output ``pinned_host`` (the data stays in host
    memory); ``"device"`` moves each offending value back to device memory before the return.
    ``source`` is read as by :func:`check`; a module object given is copied, never changed.
    ``xla_release`` is that of :func:`check`: the host strategy also declares ``pinned_host``
    the arguments that release rejects with HOE102. ``platform`` is that of :func:`check`.
    Runs the ``host-offload-fix`` pass; raises :class:`InputError` like :func:`check`.
    """
    return fix_named(
        source, None, strategy, entry=entry, xla_release=xla_release, platform=platform
    )


def fix_named(
    source: object,
    name: str | None,
    strategy: Strategy = "host",
    *,
    entry: str | None = None,
    xla_release: str | ReleaseRequest | None = None,
    platform: Platform = "tpu",
) -> str:
    """:func:`fix`, naming text ``source`` ``name`` in errors."""
    if strategy not in ("host", "device"):
        raise ValueError(f"strategy must be 'host' or 'device', not {strategy!r}")
    _require_entry(entry, name)
    compiled_for = platform_named(platform)
    options = f"strategy={strategy} xla-release={_chosen(xla_release, compiled_for).name}" + (
        f' entry="{entry}"' if entry else ""
    )
    options += f" platform={compiled_for}"
    with _source.resolve(source, name, copy=True) as module:
        try:
            pipeline = passmanager.PassManager.parse(
                f"builtin.module(host-offload-fix{{{options}}})"
            )
        except ValueError:
            message = (
                f"host-offload-fix cannot be given entry={entry!r}: MLIR's pass options "
                "cannot hold that name (a '{' or '}' without its pair)"
            )
            raise InputError.unlocated(message, source=module.name) from None
        # MLIR's verifier after the pass would reject a call inside a Shardy region; ours
        # resolves it in the module.
        pipeline.enable_verifier(False)
        with _errors.mlir_errors(module.name):
            pipeline.run(module.operation)
        verified, errors = _hostoffload.verify(module.operation)
        if not verified:
            raise InputError(*_errors.parse_errors(errors), source=module.name)
        return _generic.generic_form(module.operation)


def _chosen(xla_release: str | ReleaseRequest | None, platform: Platform) -> ChosenXlaRelease:
    """The release to model for the ``xla_release`` a function was given, for a program
    compiled for ``platform``."""
    request = (
        xla_release if isinstance(xla_release, ReleaseRequest) else ReleaseRequest(xla_release)
    )
    return request.chosen(platform)


def _require_entry(entry: str | None, name: str | None) -> None:
    """An entry name holding a lone surrogate names no function: MLIR names are bytes, and
    this str has no UTF-8 form."""
    if entry is None:
        return
    try:
        entry.encode()
    except UnicodeEncodeError:
        message = f"entry={entry!r} names no function: it is not valid UTF-8"
        raise InputError.unlocated(message, source=name) from None


def _analyze(
    module: _source.Resolved,
    entry: str | None,
    strict: bool,
    allow_h2h_copy: bool,
    release: ChosenXlaRelease,
    trace: bool = False,
    platform: Platform = "tpu",
) -> Report:
    with no_cyclic_gc():
        _, data = _hostoffload.analyze_data(
            module.operation,
            entry or "",
            strict,
            module.verified,
            allow_h2h_copy,
            classes=_TRACE_CLASSES if trace else REPORT_CLASSES,
            locations=locations_from_json,
            xla_release=release.name,
            trace=trace,
            platform=platform,
        )
        report = Report.from_objects(data, module.name)
    report = dataclasses.replace(report, xla_release_reason=release.reason, compiled_for=platform)
    if trace:
        report = dataclasses.replace(
            report,
            trace=Trace(
                entry=report.entry,
                starts=report.starts,
                traces=tuple(data["trace"]),
                source=module.name,
                platform=module.platform,
                xla_release=report.xla_release,
                xla_release_reason=report.xla_release_reason,
            ),
        )
    # Only the fix reads them, and each output is read through MLIR's Python API.
    failing = any(finding.code == "E1200" for finding in report.errors)
    outputs = _entry_outputs(module.operation, report.entry) if failing else None
    return dataclasses.replace(report, outputs=outputs, platform=module.platform)


def _entry_outputs(module: ir.Operation, entry: str) -> tuple[Output, ...] | None:
    """The outputs of function ``entry`` of ``module`` as its ``res_attrs`` declare them."""
    for operation in module.regions[0].blocks[0].operations:
        operation = operation.operation
        attributes = operation.attributes
        if operation.name != "func.func" or _text(attributes["sym_name"]) != entry:
            continue
        function_type = ir.FunctionType(ir.TypeAttr(attributes["function_type"]).value)
        if "res_attrs" not in attributes:
            return tuple(Output("", "") for _ in function_type.results)
        return tuple(
            Output(
                _string(ir.DictAttr(result), "jax.result_info"),
                _string(ir.DictAttr(result), "mhlo.memory_kind"),
            )
            for result in ir.ArrayAttr(attributes["res_attrs"])
        )
    return None


def _string(attributes: ir.DictAttr, name: str) -> str:
    """Attribute ``name`` of ``attributes`` if it is a string, else ``""``."""
    try:
        value = attributes[name]
    except KeyError:
        return ""
    return _text(value) if isinstance(value, ir.StringAttr) else ""


def _text(attribute: ir.Attribute) -> str:
    """A string attribute's bytes as the report holds names: bytes that are not UTF-8 are
    decoded with ``surrogateescape``, as the analysis does."""
    return ir.StringAttr(attribute).value_bytes.decode("utf-8", "surrogateescape")


@contextmanager
def no_cyclic_gc() -> Iterator[None]:
    """Python's cyclic collector would walk the report's objects again and again as they are
    made, although they hold no cycles: with thousands of findings, building the report would
    wait on it (docs/performance.md)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
