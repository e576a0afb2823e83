"""hostoffload trace: where every tensor in host memory goes, through the API, the report, a
JAX function and the CLI, in every input form check reads; its JSON against trace.schema.json,
and what it says against what check finds on the whole differential suite."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import EXAMPLE, REPO_ROOT, crash_markers_in, module_inputs, run_hostoffload
from jsonschema import Draft202012Validator

import hostoffload
from hostoffload import InputError, Trace, check, trace
from tools.differential import layout

SCHEMA = json.loads((REPO_ROOT / "python" / "hostoffload" / "trace.schema.json").read_text())
VALIDATOR = Draft202012Validator(SCHEMA)
FORMS = REPO_ROOT / "test" / "lit" / "forms" / "Inputs"
HLO = layout.HLO_SUITE
ROUND_TRIP = layout.SUITE / "programs" / "device_put_host_and_back.mlir"
UNUSED_AND_SLICED = """
"func.func"() <{arg_attrs = [{mhlo.memory_kind = "pinned_host"}, {mhlo.memory_kind = "pinned_host"}], function_type = (tensor<8xf32>, tensor<4xi1>) -> tensor<2xf32>, sym_name = "main"}> ({
^bb0(%x: tensor<8xf32>, %unused: tensor<4xi1>):
  %s = "stablehlo.slice"(%x) <{limit_indices = array<i64: 2>, start_indices = array<i64: 0>, strides = array<i64: 1>}> : (tensor<8xf32>) -> tensor<2xf32> loc("c.py":1:1)
  "func.return"(%s) : (tensor<2xf32>) -> () loc("c.py":2:1)
}) : () -> ()
"""  # noqa: E501


def errors_of(document: dict[str, Any]) -> list[str]:
    return [error.message for error in VALIDATOR.iter_errors(document)]


def fate_kinds(traced: Trace) -> list[list[str]]:
    return [[fate.kind for fate in start.fates] for start in traced.traces]


# --- the API --------------------------------------------------------------------------------


def test_the_example_is_traced_to_its_two_e1200_outputs() -> None:
    traced = trace(EXAMPLE)
    report = check(EXAMPLE)
    assert traced.starts == report.starts
    (start,) = traced.traces
    assert (start.type, start.shape, start.dtype, start.bytes) == (
        "tensor<1024xf32>",
        (1024,),
        "f32",
        4096,
    )
    mismatches = sorted(f.output_index for f in start.fates if f.kind == "mismatch")
    assert mismatches == sorted(f.output_index for f in report.errors) == [0, 1]
    # multiply, add and subtract run on the host: each one is on the way, and counted.
    assert start.host_compute_ops == 3
    assert [step.what for step in start.through][:4] == [
        "argument 'opt_state'",
        "stablehlo.multiply",
        "stablehlo.add",
        "stablehlo.subtract",
    ]
    totals = traced.totals
    assert (totals.starts, totals.bytes_to_host, totals.mismatches, totals.host_compute_ops) == (
        1,
        4096,
        2,
        3,
    )


def test_the_report_carries_the_trace_only_when_asked() -> None:
    assert check(EXAMPLE).trace is None
    traced = check(EXAMPLE, trace=True).trace
    assert traced is not None
    assert traced == trace(EXAMPLE)
    # Not in the report's JSON: the trace is a document of its own.
    assert "trace" not in json.loads(check(EXAMPLE, trace=True).to_json())


def test_a_round_trip_to_host_and_back() -> None:
    traced = trace(ROUND_TRIP)
    (start,) = traced.traces
    kinds = sorted(fate.kind for fate in start.fates)
    assert kinds == ["device", "output"]
    device = next(fate for fate in start.fates if fate.kind == "device")
    assert device.what == "stablehlo.custom_call @annotate_device_placement"
    assert device.bytes == start.bytes == 32
    assert traced.totals.bytes_to_device == traced.totals.bytes_output_in_host == 32


def test_a_slice_goes_to_device_and_an_argument_nothing_uses_is_unused() -> None:
    traced = trace(UNUSED_AND_SLICED)
    assert fate_kinds(traced) == [["device"], []]
    assert traced.traces[0].fates[0].bytes == 8
    assert traced.traces[1].unused and traced.traces[1].bytes == 4
    totals = traced.totals
    assert (totals.unused_starts, totals.bytes_to_host, totals.bytes_to_device) == (1, 36, 8)
    assert "unused" in traced.to_text()


def test_totals_per_line_add_up_to_the_totals_of_the_step() -> None:
    for path in sorted((layout.SUITE / "programs").glob("remat_offload*.mlir")):
        traced = trace(path)
        lines = traced.lines
        assert sorted(i for line in lines for i in line.starts) == list(range(len(traced.starts)))
        totals = traced.totals
        assert sum(line.bytes_to_host for line in lines) == totals.bytes_to_host
        assert sum(line.bytes_to_device for line in lines) == totals.bytes_to_device
        assert sum(line.host_compute_ops for line in lines) == totals.host_compute_ops


def test_trace_jax_lowers_for_tpu_and_traces() -> None:
    jax = pytest.importorskip("jax")
    import jax.numpy as jnp
    from jax.sharding import SingleDeviceSharding

    cpu = jax.devices("cpu")[0]
    host = jax.ShapeDtypeStruct(
        (256,), jnp.float32, sharding=SingleDeviceSharding(cpu, memory_kind="pinned_host")
    )

    def step(state: Any) -> Any:
        return jax.device_put(state, jax.memory.Space.Device) * 2

    traced = hostoffload.trace_jax(step, host)
    assert traced.platform == "tpu"
    (start,) = traced.traces
    assert (start.dtype, start.shape, start.bytes) == ("f32", (256,), 1024)
    assert [fate.kind for fate in start.fates] == ["device"]
    # Located at the user's Python line.
    assert traced.starts[0].location.file == __file__ or any(
        step.location.file == __file__ for step in start.through
    )


@pytest.mark.parametrize(
    "name", ["step.generic.mlir", "step.pretty-debug.mlir", "step.mlirbc", "step.hlo.txt"]
)
def test_every_form_check_reads_is_traced(name: str) -> None:
    pytest.importorskip("jax")
    path = FORMS / name
    traced = trace(path)
    report = check(path)
    assert [s.name for s in traced.starts] == [s.name for s in report.starts]
    assert traced.totals.mismatches == len(report.errors)
    assert trace(path.read_bytes()).totals == traced.totals


def test_bad_input_gets_what_check_gives() -> None:
    for source in ("garbage\n", b"\x00\x01", Path("/nonexistent/x.mlir")):
        with pytest.raises(InputError) as from_check:
            check(source)
        with pytest.raises(InputError) as from_trace:
            trace(source)
        assert str(from_trace.value) == str(from_check.value)


# --- the JSON and the whole suite -----------------------------------------------------------

DOCUMENTS = {
    name: text for name, text in module_inputs() if not name.startswith("test/lit/robustness")
}


@pytest.mark.parametrize("name", sorted(DOCUMENTS))
def test_the_trace_of_every_module_is_the_schema_and_agrees_with_check(name: str) -> None:
    try:
        report = check(DOCUMENTS[name], trace=True)
    except InputError:
        with pytest.raises(InputError):
            trace(DOCUMENTS[name])
        return
    traced = report.trace
    assert traced is not None
    document = json.loads(traced.to_json())
    assert errors_of(document) == []
    assert len(document["starts"]) == len(report.starts)
    # Every E1200 output is a mismatch fate of a start that reaches it, and no other is.
    e1200 = {f.output_index for f in report.errors if f.code == "E1200"}
    mismatched = {
        fate.output_index
        for start in traced.traces
        for fate in start.fates
        if fate.kind == "mismatch"
    }
    assert mismatched == e1200
    for start in traced.traces:
        assert start.host_compute_ops >= sum(f.kind == "host_compute" for f in start.fates)
        for fate in start.fates:
            # An output's fate names it; so does XLA's copy back to device at the output.
            if fate.kind in ("output", "mismatch"):
                assert fate.output_index is not None
            elif fate.output_index is not None:
                assert (fate.kind, fate.what) == ("device", "func.return")
            assert fate.from_start is None or 0 <= fate.from_start < len(traced.starts)


def test_a_field_the_schema_lacks_fails_validation() -> None:
    document = json.loads(trace(EXAMPLE).to_json())
    assert errors_of(document) == []
    document["starts"][0]["fates"][0]["new_field"] = 1
    assert errors_of(document) != []


# --- the CLI --------------------------------------------------------------------------------


def test_cli_text_is_grouped_by_line_and_exits_1_on_e1200() -> None:
    result = run_hostoffload("trace", EXAMPLE)
    assert result.returncode == 1, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith("examples/offloaded_state.py:18: 1 start: 4.0 KiB to host")
    assert "E1200" in result.stdout
    assert lines[-1].startswith(f"{EXAMPLE}: @main: 1 start per step")
    assert run_hostoffload("trace", ROUND_TRIP).returncode == 0


def test_cli_json_is_one_document_per_file() -> None:
    result = run_hostoffload("trace", "--format", "json", EXAMPLE, ROUND_TRIP)
    documents = [json.loads(line) for line in result.stdout.splitlines()]
    assert [errors_of(document) for document in documents] == [[], []]
    assert [document["source"] for document in documents] == [str(EXAMPLE), str(ROUND_TRIP)]


def test_cli_html_to_a_file(tmp_path: Path) -> None:
    page = tmp_path / "trace.html"
    result = run_hostoffload("trace", "--format", "html", "-o", page, ROUND_TRIP)
    assert result.returncode == 0, result.stderr
    html = page.read_text()
    assert html.startswith("<!DOCTYPE html>")
    assert "http://" not in html and "https://" not in html
    assert "annotate_device_placement" in html


def test_cli_html_draws_one_module() -> None:
    result = run_hostoffload("trace", "--format", "html", EXAMPLE, ROUND_TRIP)
    assert result.returncode == 2
    assert "--format html draws one module, and 2 were given" in result.stderr
    assert result.stdout == ""


def test_cli_reads_stdin_and_directories() -> None:
    from_stdin = run_hostoffload("trace", "-", stdin=EXAMPLE.read_text())
    assert from_stdin.returncode == 1
    assert from_stdin.stdout.splitlines()[-1].startswith("<stdin>: @main: 1 start per step")
    directory = run_hostoffload("trace", "--format", "json", HLO)
    sources = [json.loads(line).get("source", "") for line in directory.stdout.splitlines()]
    assert sources and all(source.startswith(str(HLO)) for source in sources)


def test_cli_bad_input_exits_2_as_check_does(tmp_path: Path) -> None:
    bad = tmp_path / "bad.mlir"
    bad.write_text("garbage\n")
    traced = run_hostoffload("trace", bad)
    checked = run_hostoffload("check", bad)
    assert traced.returncode == checked.returncode == 2
    assert traced.stderr == checked.stderr
    assert crash_markers_in(traced.stderr) == []
    as_json = run_hostoffload("trace", "--format", "json", bad)
    assert "input_errors" in json.loads(as_json.stdout)


def test_cli_unwritable_output_exits_2(tmp_path: Path) -> None:
    result = run_hostoffload("trace", "-o", tmp_path / "missing" / "out.txt", ROUND_TRIP)
    assert result.returncode == 2
    assert "cannot write the file" in result.stderr
