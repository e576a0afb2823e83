"""``check()`` takes its report from ``_hostoffload.analyze_data``, which builds the report
from the analysis directly instead of writing JSON text for Python to read: its dicts, lists
and strings, which must be what ``json.loads`` makes of the JSON the C API writes for the
same module (the same members in the same order, of the same types); or, given the report's
classes, its typed objects, which must be what ``Report.from_json`` makes of that JSON."""

from __future__ import annotations

import dataclasses
import gc
import json
import tracemalloc
from collections.abc import Iterator
from typing import Any

import pytest
from conftest import CLEAN, EXAMPLE, module_inputs

from hostoffload.diagnostic import InputError, locations_from_json
from hostoffload.mlir import ir
from hostoffload.mlir._mlir_libs import _hostoffload
from hostoffload.report import REPORT_CLASSES, Report


def exact(data: Any) -> str:
    """``data`` as text that tells ``True`` from ``1`` and keeps the order of members."""
    return json.dumps(data, ensure_ascii=False)


def analyses(module: ir.Module, verified: bool) -> Iterator[tuple[str, tuple[Any, ...]]]:
    """The option sets of the check pass, as arguments of ``analyze`` and ``analyze_data``."""
    for strict in (False, True):
        for allow_h2h_copy in (False, True):
            yield (
                f"strict={strict} allow_h2h_copy={allow_h2h_copy}",
                (module.operation, "", strict, verified, allow_h2h_copy),
            )


def both(arguments: tuple[Any, ...]) -> tuple[tuple[bool, Any], tuple[bool, Any]]:
    succeeded, text = _hostoffload.analyze(*arguments)
    return (succeeded, json.loads(text)), _hostoffload.analyze_data(*arguments)


def every_committed_analysis() -> Iterator[tuple[str, str, tuple[Any, ...]]]:
    """Every committed module, parsed without verifying (so that the analysis verifies and
    reports the verifier's errors), under every option set: its name, the options and the
    arguments of ``analyze``."""
    for name, text in module_inputs():
        with ir.Context() as context:
            context.enable_multithreading(False)
            module, _ = _hostoffload.parse(context, text, name.encode(), verify=False)
            if module is None:
                continue
            for options, arguments in analyses(module, verified=False):
                yield name, options, arguments


def test_every_input_gives_the_objects_of_its_json() -> None:
    """Reports of every committed module under every option set, and the errors of modules
    the verifier rejects (parsed without verifying, then analysed as unverified)."""
    compared = failed = 0
    for name, options, arguments in every_committed_analysis():
        from_text, built = both(arguments)
        assert built[0] == from_text[0], (name, options)
        assert exact(built[1]) == exact(from_text[1]), (name, options)
        compared += 1
        failed += not built[0]
    # Reports and failures both.
    assert compared > 2000
    assert failed > 20


def typed(arguments: tuple[Any, ...], **classes: Any) -> tuple[bool, Any]:
    """The report's objects ``analyze_data`` makes with ``REPORT_CLASSES`` (and ``classes``
    in their place)."""
    return _hostoffload.analyze_data(
        *arguments, classes={**REPORT_CLASSES, **classes}, locations=locations_from_json
    )


def report_or_errors(read: Any, *arguments: Any) -> Any:
    """The report ``read(*arguments)`` makes, or the JSON of the errors it raises instead."""
    try:
        return read(*arguments)
    except InputError as error:
        return [diagnostic.to_json() for diagnostic in error.diagnostics]


def test_every_input_gives_the_typed_report_of_its_json() -> None:
    """The objects made with the report's classes are those ``Report.from_json`` makes of the
    JSON, errors included, for every committed module under every option set."""
    compared = failed = 0
    for name, options, arguments in every_committed_analysis():
        succeeded, json_text = _hostoffload.analyze(*arguments)
        built_succeeded, data = typed(arguments)
        assert built_succeeded == succeeded, (name, options)
        expected = report_or_errors(Report.from_json, json_text)
        built = report_or_errors(Report.from_objects, data, None)
        assert built == expected, (name, options)
        if isinstance(built, Report):
            # Starts and locations are shared, as Report.from_json shares them.
            for finding in built.findings:
                assert all(any(s is t for t in built.starts) for s in finding.starts)
        compared += 1
        failed += not succeeded
    assert compared > 2000
    assert failed > 20


def test_a_class_that_fails_stops_the_building() -> None:
    """Python's error of a class, or of the location table, is what ``analyze_data`` raises,
    and what was made before it is freed."""

    def refuse(**members: Any) -> None:
        raise RuntimeError(f"no {sorted(members)}")

    def no_table(entries: Any) -> None:
        raise KeyError("no table")

    with ir.Context() as context:
        module, _ = _hostoffload.parse(context, EXAMPLE.read_bytes(), b"example.mlir")
        arguments = (module.operation, "", False, True, False)
        for classes, message in (
            ({"fixes": refuse}, "jax_change"),
            ({"notes": refuse}, "location"),
            ({"findings": refuse}, "severity"),
        ):
            with pytest.raises(RuntimeError, match=message):
                typed(arguments, **classes)
        with pytest.raises(KeyError, match="no table"):
            _hostoffload.analyze_data(*arguments, classes=REPORT_CLASSES, locations=no_table)
        with pytest.raises(ValueError, match="together"):
            _hostoffload.analyze_data(*arguments, classes=REPORT_CLASSES)

        # Python's free lists take their fill first, as in the test of reports freed below;
        # then two hundred more failures must leave next to nothing behind.
        def fail_in_fixes() -> None:
            try:
                typed(arguments, fixes=refuse)
            except RuntimeError:
                return
            raise AssertionError("the class's error was not raised")

        for _ in range(200):
            fail_in_fixes()
        gc.collect()
        tracemalloc.start()
        try:
            fail_in_fixes()
            gc.collect()
            before = tracemalloc.get_traced_memory()[0]
            for _ in range(200):
                fail_in_fixes()
            gc.collect()
            after = tracemalloc.get_traced_memory()[0]
        finally:
            tracemalloc.stop()
    # A failure leaking what it made (a dict or an object of each start and note before
    # the fix) would leave more than a kilobyte each.
    assert after - before < 32 * 1024


@dataclasses.dataclass(frozen=True)
class FixWithout:
    """A fix without the JAX change the report gives."""

    strategy: str
    module_change: str


@dataclasses.dataclass(frozen=True)
class FixWithMore(FixWithout):
    jax_change: str
    reviewed: bool


@dataclasses.dataclass(frozen=True)
class FixWithDefault(FixWithout):
    jax_change: str
    reviewed: bool = False


@dataclasses.dataclass(frozen=True)
class FixChecked(FixWithout):
    jax_change: str

    def __post_init__(self) -> None:
        raise RuntimeError(f"checked {self.strategy}")


def test_a_dataclass_gets_its_fields_as_its_init_would_set_them() -> None:
    """The builder sets the fields of a plain dataclass instead of calling it: a member that
    is no field and a required field without a member fail as the call would, a field's
    default fills in, and a class with ``__post_init__`` is called."""
    with ir.Context() as context:
        module, _ = _hostoffload.parse(context, EXAMPLE.read_bytes(), b"example.mlir")
        arguments = (module.operation, "", False, True, False)
        with pytest.raises(TypeError, match="FixWithout: .*not its fields.*jax_change"):
            typed(arguments, fixes=FixWithout)
        with pytest.raises(TypeError, match="FixWithMore: the report gives no 'reviewed'"):
            typed(arguments, fixes=FixWithMore)
        _, report = typed(arguments, fixes=FixWithDefault)
        fixes = [fix for finding in report["findings"] for fix in finding.fixes]
        assert fixes and all(type(fix) is FixWithDefault for fix in fixes)
        assert {fix.strategy for fix in fixes} == {"host", "device"}
        # The default is set on each object, as the class's __init__ sets it.
        assert all(vars(fix)["reviewed"] is False for fix in fixes)
        assert all(
            fix == FixWithDefault(fix.strategy, fix.module_change, fix.jax_change) for fix in fixes
        )
        with pytest.raises(RuntimeError, match="checked host"):
            typed(arguments, fixes=FixChecked)


def test_a_named_entry_and_an_operation_that_is_no_module() -> None:
    with ir.Context() as context:
        module, _ = _hostoffload.parse(context, EXAMPLE.read_bytes(), b"example.mlir")
        for arguments in (
            (module.operation, "main", False, True, False),
            (module.operation, "no_such_function", False, True, False),
            (module.body.operations[0], "", False, False, False),
        ):
            from_text, built = both(arguments)
            assert built[0] == from_text[0]
            assert exact(built[1]) == exact(from_text[1])
        assert not _hostoffload.analyze_data(module.body.operations[0])[0]


def test_without_the_report_only_the_verdict_of_the_analysis() -> None:
    with ir.Context() as context:
        module, _ = _hostoffload.parse(context, EXAMPLE.read_bytes(), b"example.mlir")
        assert _hostoffload.analyze_data(module.operation, report=False) == (True, None)
        operation = module.body.operations[0]
        assert _hostoffload.analyze_data(operation, report=False) == (False, None)


@pytest.mark.parametrize("objects", [False, True], ids=["values", "typed"])
@pytest.mark.parametrize("path", [EXAMPLE, CLEAN], ids=lambda path: path.stem)
def test_reports_built_again_and_again_are_freed(path: Any, objects: bool) -> None:
    """Every object the builder makes belongs to the report: dropping the report frees it."""
    with ir.Context() as context:
        module, _ = _hostoffload.parse(context, path.read_bytes(), path.name.encode())
        arguments = (module.operation, "", False, True, False)

        def build() -> Any:
            return typed(arguments) if objects else _hostoffload.analyze_data(*arguments)

        gc.collect()
        tracemalloc.start()
        try:
            # Python's free lists (of tuples, by size) take their fill first: memory they
            # keep is traced as in use.
            for _ in range(200):
                build()
            empty = tracemalloc.get_traced_memory()[0]
            _, report = build()
            one_report = tracemalloc.get_traced_memory()[0] - empty
            del report
            before = tracemalloc.get_traced_memory()[0]
            for _ in range(200):
                build()
            after = tracemalloc.get_traced_memory()[0]
        finally:
            tracemalloc.stop()
    assert one_report > 0
    # Less than one report's worth left over after two hundred.
    assert after - before < max(one_report, 1024)
