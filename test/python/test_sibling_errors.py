"""HOE102 and the h2h relaxation of strict mode through the Python API, the CLI and the fix.

The modules are the h2h scenario of XLA's host_offloader_test.cc (a copy of a pinned host
parameter; ``mhlo.copy`` is what XLA's HLO import leaves of a ``copy``) and programs of the
sibling differential catalogue, whose verdicts XLA:TPU gave (test_differential_sibling.py).
"""

from pathlib import Path

import pytest
from conftest import run_hostoffload, run_offload_opt

import hostoffload
from tools.differential import layout

SIBLING_DIR = layout.SIBLING_SUITE
# XLA's HOE102 programs: a row moved to host written into a device argument.
DUS_INTO_DEVICE_ARG = SIBLING_DIR / "s_dus_offload_into_device_arg.mlir"
DUS_INTO_BOTH_ARGS = SIBLING_DIR / "s_dus_offload_into_both_args.mlir"
HLO_DUS_INTO_PARAMETER = SIBLING_DIR / "s_hlo_dus_into_device_parameter.mlir"

COPY_ON_HOST = """
"builtin.module"() ({
  "func.func"() <{function_type = (tensor<1024xf32>) -> tensor<1024xf32>, sym_name = "main"}> ({
  ^bb0(%arg0: tensor<1024xf32> loc("param")):
    %0 = "mhlo.copy"(%arg0) : (tensor<1024xf32>) -> tensor<1024xf32>
    %1 = "mhlo.copy"(%0) : (tensor<1024xf32>) -> tensor<1024xf32>
    "func.return"(%OUT) : (tensor<1024xf32>) -> ()
  }) : () -> ()
}) {mhlo.frontend_attributes = {arg_memory_spaces = "5", out_memory_spaces = "5"}} : () -> ()
"""
COPIES_ONLY = COPY_ON_HOST.replace("%OUT", "%1")
COPY_THEN_NEGATE = COPY_ON_HOST.replace(
    '    "func.return"(%OUT)',
    '    %2 = "stablehlo.negate"(%1) : (tensor<1024xf32>) -> tensor<1024xf32>\n'
    '    "func.return"(%2)',
)
STRICT_SENTENCE = "HOE101: Automatic host compute offloading is disabled; "


def codes(report: hostoffload.Report) -> list[tuple[str, str]]:
    return [(f.code, f.severity) for f in report.findings]


def test_strict_refuses_a_copy_without_the_relaxation() -> None:
    report = hostoffload.check(COPIES_ONLY, strict=True)
    assert codes(report) == [("HOE101", "error")]
    assert report.errors[0].message.startswith(STRICT_SENTENCE)


def test_the_relaxation_lets_copies_through() -> None:
    report = hostoffload.check(COPIES_ONLY, strict=True, allow_h2h_copy=True)
    assert codes(report) == [("HOW101", "warning")]


def test_the_relaxation_does_not_let_other_ops_through() -> None:
    report = hostoffload.check(COPY_THEN_NEGATE, strict=True, allow_h2h_copy=True)
    assert codes(report) == [("HOE101", "error")]
    assert report.errors[0].message.startswith(
        STRICT_SENTENCE + "'stablehlo.negate' computes on a tensor in host memory"
    )


def test_the_relaxation_alone_changes_nothing() -> None:
    lenient = hostoffload.check(COPY_THEN_NEGATE)
    assert codes(hostoffload.check(COPY_THEN_NEGATE, allow_h2h_copy=True)) == codes(lenient)
    assert codes(lenient) == [("HOW101", "warning")]


@pytest.mark.parametrize(
    ("flags", "status"),
    [((), 0), (("--strict",), 1), (("--strict", "--allow-h2h-copy"), 0)],
)
def test_cli_flag(tmp_path: Path, flags: tuple[str, ...], status: int) -> None:
    module = tmp_path / "copies.mlir"
    module.write_text(COPIES_ONLY)
    result = run_hostoffload("check", *flags, module)
    assert result.returncode == status, result.stdout + result.stderr


def test_pass_option() -> None:
    pipeline = "--pass-pipeline=builtin.module(host-offload-check{strict=true allow-h2h-copy=true})"
    assert run_offload_opt(pipeline, "-", "-o", "/dev/null", stdin=COPIES_ONLY).returncode == 0
    refused = run_offload_opt(pipeline, "-", "-o", "/dev/null", stdin=COPY_THEN_NEGATE)
    assert refused.returncode == 1
    assert "error: " + STRICT_SENTENCE in refused.stderr


def test_parameter_not_in_host_memory() -> None:
    report = hostoffload.check(DUS_INTO_DEVICE_ARG)
    assert codes(report) == [("HOE102", "error")]
    assert report.errors[0].message.startswith(
        'HOE102: Entry computation parameter "buf" (shape index {}) is not in host memory space; '
    )
    result = run_hostoffload("check", DUS_INTO_DEVICE_ARG)
    assert result.returncode == 1
    assert ": error: HOE102: " in result.stdout
    assert (
        "HOE102" not in run_hostoffload("check", "--ignore", "HOE102", DUS_INTO_DEVICE_ARG).stdout
    )


def test_hlo_input_names_xlas_parameter() -> None:
    [error] = hostoffload.check(HLO_DUS_INTO_PARAMETER).errors
    assert error.message.startswith('HOE102: Entry computation parameter "buf" (shape index {})')
    assert "set memory space 5 for argument 0 in arg_memory_spaces of the module" in "\n".join(
        note.message for note in error.notes
    )


@pytest.mark.parametrize(
    "module", [DUS_INTO_DEVICE_ARG, DUS_INTO_BOTH_ARGS, HLO_DUS_INTO_PARAMETER]
)
def test_host_fix_declares_the_arguments_in_host_memory(module: Path) -> None:
    before = hostoffload.check(module)
    assert [f.code for f in before.errors].count("HOE102") >= 1
    fixed = hostoffload.fix(module, strategy="host")
    assert [f.code for f in hostoffload.check(fixed).errors] == []
    assert hostoffload.fix(module, strategy="device") is not None
