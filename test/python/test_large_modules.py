"""Modules large enough that the analysis keeps its tables in memory it maps itself (arrays of
1 MiB and more, offered to the kernel for huge pages): the verdict must not change with that."""

from pathlib import Path

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
