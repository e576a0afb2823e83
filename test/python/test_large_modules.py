"""Modules large enough that the analysis's tables grow to megabytes and a long function is
parsed in two parts: the verdict must not change with that."""

import os
import subprocess
from pathlib import Path

import pytest

import hostoffload
from bench.baseline import find_mismatches
from hostoffload.mlir import ir
from tools.generate import write_module

# 15,000 outputs over 150,000 negates: the host chain's 75,000 values take a node table of
# 2 MiB (grown from one of 1 MiB, both mapped) and the nodes 4.8 MiB of reserved room.
OPS = 150_000
OUTPUTS = OPS // 10


def test_large_module_errors_are_the_generated_ones_and_the_baselines(tmp_path: Path) -> None:
    path = write_module("outputs", OPS, tmp_path / "outputs.mlir")
    # The host chain takes the even outputs, and one output in ten is declared on device.
    expected = [index for index in range(OUTPUTS) if index % 10 == 0]

    report = hostoffload.check(str(path))
    assert [f.output_index for f in report.errors] == expected
    assert {f.code for f in report.errors} == {"E1200"}

    with ir.Context():
        assert find_mismatches(ir.Module.parse(path.read_text())) == expected


def call_graph_with_a_cycle(callers: int) -> str:
    """`main` passes a host argument through `callers` functions that each call one leaf, which
    computes on it, and into a cycle @g -> @h -> @g, and returns it undeclared."""
    t = "tensor<4xf32>"
    calls = "\n".join(f"  %{i + 1} = call @f{i}(%{i}) : ({t}) -> {t}" for i in range(callers))
    functions = "\n".join(
        f"func.func private @f{i}(%a: {t}) -> {t} {{\n"
        f"  %0 = call @leaf(%a) : ({t}) -> {t}\n  return %0 : {t}\n}}"
        for i in range(callers)
    )
    return (
        f'func.func @main(%0: {t} {{mhlo.memory_kind = "pinned_host"}}) -> {t} {{\n{calls}\n'
        f"  %r = call @g(%{callers}) : ({t}) -> {t}\n  return %{callers} : {t}\n}}\n{functions}\n"
        f"func.func private @leaf(%a: {t}) -> {t} {{\n"
        f'  %0 = "stablehlo.add"(%a, %a) : ({t}, {t}) -> {t}\n  return %0 : {t}\n}}\n'
        f"func.func private @g(%a: {t}) -> {t} {{\n  %0 = call @h(%a) : ({t}) -> {t}\n"
        f"  return %0 : {t}\n}}\n"
        f"func.func private @h(%a: {t}) -> {t} {{\n  %0 = call @g(%a) : ({t}) -> {t}\n"
        f"  return %0 : {t}\n}}\n"
    )


# From 1,024 functions with calls the call-cycle search runs on a thread beside the walk.
@pytest.mark.parametrize("callers", [2, 1100])
def test_call_cycles_searched_beside_the_walk_are_reported_in_order(callers: int) -> None:
    report = hostoffload.check(call_graph_with_a_cycle(callers))
    assert [f.code for f in report.findings] == ["E1200", "HOE103", "HOW101"]
    cycle = report.findings[1]
    assert "recursive call: @g -> @h -> @g" in cycle.message
    assert [note.message for note in cycle.notes] == ["in the cycle: @g calls @h"]


def test_offload_opt_reports_call_cycles_searched_beside_the_walk(tmp_path: Path) -> None:
    path = tmp_path / "cycle.mlir"
    path.write_text(call_graph_with_a_cycle(1100))
    result = subprocess.run(
        ["offload-opt", str(path), "--host-offload-check", "-o", os.devnull],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 1, result.stderr[-2000:]
    errors = [line for line in result.stderr.splitlines() if ": error: " in line]
    assert [line.split(": error: ")[1][:6] for line in errors] == ["E1200:", "HOE103"]
    assert "HOE103: recursive call: @g -> @h -> @g;" in errors[1]
    # The cycle closes at @h's call of @g, the module's second line from the end but two.
    line_of_h_call = len(path.read_text().splitlines()) - 2
    assert errors[1].startswith(f"{path}:{line_of_h_call}:")
