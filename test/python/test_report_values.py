"""``check()`` takes its report from ``_hostoffload.analyze_data``, which builds the report's
dicts, lists and strings from the analysis directly instead of writing JSON text for Python
to read. What it builds must be what ``json.loads`` makes of the JSON the C API writes for
the same module: the same members in the same order, of the same types."""

from __future__ import annotations

import gc
import json
import tracemalloc
from collections.abc import Iterator
from typing import Any

import pytest
from conftest import CLEAN, EXAMPLE, module_inputs

from hostoffload.mlir import ir
from hostoffload.mlir._mlir_libs import _hostoffload


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


def test_every_input_gives_the_objects_of_its_json() -> None:
    """Reports of every committed module under every option set, and the errors of modules
    the verifier rejects (parsed without verifying, then analysed as unverified)."""
    compared = failed = 0
    for name, text in module_inputs():
        with ir.Context() as context:
            context.enable_multithreading(False)
            module, _ = _hostoffload.parse(context, text, name.encode(), verify=False)
            if module is None:
                continue
            for options, arguments in analyses(module, verified=False):
                from_text, built = both(arguments)
                assert built[0] == from_text[0], (name, options)
                assert exact(built[1]) == exact(from_text[1]), (name, options)
                compared += 1
                failed += not built[0]
    # Reports and failures both.
    assert compared > 2000
    assert failed > 20


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


@pytest.mark.parametrize("path", [EXAMPLE, CLEAN], ids=lambda path: path.stem)
def test_reports_built_again_and_again_are_freed(path: Any) -> None:
    """Every object the builder makes belongs to the report: dropping the report frees it."""
    with ir.Context() as context:
        module, _ = _hostoffload.parse(context, path.read_bytes(), path.name.encode())
        _hostoffload.analyze_data(module.operation, verified=True)
        gc.collect()
        tracemalloc.start()
        try:
            _, report = _hostoffload.analyze_data(module.operation, verified=True)
            one_report = tracemalloc.get_traced_memory()[0]
            del report
            before = tracemalloc.get_traced_memory()[0]
            for _ in range(200):
                _hostoffload.analyze_data(module.operation, verified=True)
            after = tracemalloc.get_traced_memory()[0]
        finally:
            tracemalloc.stop()
    assert one_report > 0
    # Less than one report's worth left over after two hundred.
    assert after - before < max(one_report, 1024)
