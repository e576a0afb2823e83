"""Our E1200 check against the verdicts of the real XLA:TPU compiler, without libtpu.

``tools/differential/run.py`` (opt-in, needs libtpu) lowered every program of its catalogue
for TPU, compiled it with XLA:TPU and recorded in ``test/differential/verdicts.json`` the exact
set of entry outputs XLA rejects with E1200 (XLA names only the first; the harness found the
others by re-declaring outputs ``pinned_host`` and recompiling). Here every recorded module
must give exactly XLA's set with the installed checker (its analysis through the Python
extension, which is what ``host-offload-check`` reports; a few modules also through
``offload-opt``). See docs/differential.md.

A disagreement is never resolved by editing the recorded data: it is listed in
``KNOWN_DISAGREEMENTS`` with the reason, and its test is a strict xfail until the checker is
fixed.
"""

import json
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest

from hostoffload.mlir import ir
from hostoffload.mlir._mlir_libs import _hostoffload

REPO_ROOT = Path(__file__).resolve().parents[2]
DIFFERENTIAL_DIR = REPO_ROOT / "test" / "differential"
VERDICTS: dict[str, Any] = json.loads((DIFFERENTIAL_DIR / "verdicts.json").read_text())
MODULES: dict[str, dict[str, Any]] = VERDICTS["modules"]

E1200_OUTPUT = re.compile(r"error: E1200: .*?; output (\d+)")

# Why our checker does not give XLA's verdict, per module (a strict xfail each); the IR, XLA's
# own trace and the rule XLA follows are in docs/differential.md ("Disagreements").
SLICE_RULE = (
    "XLA ends a host-memory trace at a slice or dynamic_slice exactly when every path from the "
    "slice's result through data movement (bitcast or layout-only reshape/transpose, copy, "
    "tuple, get-tuple-element, while, conditional, call, optimization_barrier) ends at a move "
    "to device or at an entry output (HostOffloader::SliceLeadsToMoveToDeviceCustomCall); "
    "otherwise the slice itself becomes host compute and the trace goes on through it."
)
KNOWN_DISAGREEMENTS: dict[str, str] = {
    "slice_through_barrier": "slice(host arg) -> optimization_barrier -> output 0: XLA accepts "
    "it (the slice is read into device memory), we report E1200 because the slice is not "
    "returned as it is. " + SLICE_RULE,
    "slice_through_nested_jit": "slice(host arg) -> call of an identity jit -> output 0: XLA "
    "accepts it, we report E1200. " + SLICE_RULE,
    "while_dynamic_slice_carry": "dynamic_slice(host arg) yielded as a while carry, the loop "
    "result returned as output 0: XLA accepts it, we report E1200. " + SLICE_RULE,
    "row_dynamic_slice_squeeze": "dynamic_slice(host arg) -> reshape (1,128)->(128) (a bitcast) "
    "-> output 0: XLA accepts it, we report E1200. " + SLICE_RULE,
    "slice_reshape": "slice(host arg) -> reshape (4)->(2,2) -> output 0: XLA accepts it (no host "
    "compute: after layout assignment the reshape is a bitcast/copy), we report E1200. "
    + SLICE_RULE,
    "slice_transpose": "slice(host arg) -> transpose -> output 0: XLA accepts it (no host "
    "compute: layout assignment makes the transpose a copy), we report E1200. " + SLICE_RULE,
    "slice_narrowing_convert": "slice(host f32 arg) -> convert to bf16 -> output 0: XLA accepts "
    "it because its ConvertMover hoists a narrowing convert above the slice (convert(x) becomes "
    "host compute, the slice then goes straight to the output); we report E1200. A widening "
    "convert stays below the slice and fails in XLA (slice_widening_convert). " + SLICE_RULE,
    "slice_returned_and_computed": "one slice returned as output 0 and multiplied for output 1: "
    "the multiply makes XLA turn the slice itself into host compute, so XLA rejects outputs 0 "
    "and 1 (trace x.1 -> slice.1 -> tuple.1 {0}); we report output 1 only. " + SLICE_RULE,
    "slice_returned_and_computed__fix_host": "our host fix declares output 1 pinned_host only; "
    "XLA still rejects output 0 (the slice, host compute because of its other use). " + SLICE_RULE,
    "slice_returned_and_computed__fix_device": "our device fix moves output 1 back only; XLA "
    "still rejects output 0 (the slice, host compute because of its other use). " + SLICE_RULE,
}


def xla_outputs(name: str) -> list[int] | None:
    outputs = MODULES[name]["xla"]["e1200_outputs"]
    return None if outputs is None else list(outputs)


def compared_modules() -> list[Any]:
    params = []
    for name in sorted(MODULES):
        if xla_outputs(name) is None:
            continue  # no XLA verdict (timeout or crash of the compile): nothing to compare
        marks = []
        if name in KNOWN_DISAGREEMENTS:
            marks.append(pytest.mark.xfail(strict=True, reason=KNOWN_DISAGREEMENTS[name]))
        params.append(pytest.param(name, marks=marks, id=name))
    return params


def analyze(name: str) -> list[int]:
    """The outputs for which our analysis reports E1200."""
    with ir.Context():
        module = ir.Module.parse((DIFFERENTIAL_DIR / f"{name}.mlir").read_text())
        ran, report_json = _hostoffload.analyze(module.operation)
    report = json.loads(report_json)
    assert ran and not report["errors"], report["errors"]
    return sorted({f["output_index"] for f in report["findings"] if f["code"] == "E1200"})


def check(name: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["offload-opt", str(DIFFERENTIAL_DIR / f"{name}.mlir"), "--host-offload-check"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=REPO_ROOT,
    )


def test_recorded_data_is_complete() -> None:
    generated = VERDICTS["generated"]
    for key in ("jax", "jaxlib", "libtpu", "platform_version", "topology", "date"):
        assert generated.get(key), key
    on_disk = {path.stem for path in DIFFERENTIAL_DIR.glob("*.mlir")}
    assert sorted(set(MODULES) - on_disk) == [], "listed in verdicts.json but missing"
    assert sorted(on_disk - set(MODULES)) == [], "stray .mlir not listed in verdicts.json"
    programs = [n for n, e in MODULES.items() if e["kind"] == "program"]
    assert len(programs) >= 40
    for name, entry in MODULES.items():
        assert entry["kind"] in {"program", "jax_mutant", "attr_mutant", "fix_host", "fix_device"}
        assert entry["description"], name
        outputs = xla_outputs(name)
        if outputs is not None:
            assert outputs == sorted(set(outputs)), name
            assert all(0 <= i < len(entry["declared_memory_kinds"]) for i in outputs), name
            assert (entry["xla"]["status"] == "e1200") == bool(outputs), name


def test_known_disagreements_are_recorded_modules() -> None:
    assert sorted(set(KNOWN_DISAGREEMENTS) - set(MODULES)) == []


@pytest.mark.parametrize("name", compared_modules())
def test_checker_agrees_with_xla(name: str) -> None:
    expected = xla_outputs(name)
    assert expected is not None
    assert analyze(name) == expected, f"XLA: {MODULES[name]['xla']['message']}"


# One module per kind of verdict, through the driver as users run it.
DRIVER_SAMPLES = ["host_arg_returned_twice", "pytree_no_out_shardings", "remat_offload_scan_grad"]


@pytest.mark.parametrize("name", DRIVER_SAMPLES)
def test_driver_reports_the_same(name: str) -> None:
    result = check(name)
    assert "Stack dump" not in result.stderr, result.stderr
    assert "PLEASE submit a bug report" not in result.stderr, result.stderr
    found = sorted({int(index) for index in E1200_OUTPUT.findall(result.stderr)})
    assert found == analyze(name) == xla_outputs(name), result.stderr
    assert result.returncode == (1 if found else 0), result.stderr
