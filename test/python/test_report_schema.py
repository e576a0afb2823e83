"""The report format is declared once, in ``python/hostoffload/report.schema.json``: what the
C API writes, what :meth:`Report.to_json` writes back, and the fields of the dataclasses of
:mod:`hostoffload.report` must all agree with it; so must the codes and the path split the
analysis hands over as data."""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Iterator
from typing import Any

import pytest
from conftest import DIFFERENTIAL_DIR, EXAMPLE, REPO_ROOT, module_inputs
from jsonschema import Draft202012Validator

from hostoffload import InputError, Report
from hostoffload.diagnostic import Diagnostic, Location, Note
from hostoffload.mlir import ir
from hostoffload.mlir._mlir_libs import _hostoffload
from hostoffload.report import LOCATION_FORMS, Finding, Fix, LocationForm, PathStep, Start
from hostoffload.tracing import StartTrace, TraceFate
from tools.differential import layout

SCHEMA: dict[str, Any] = json.loads(
    (REPO_ROOT / "python" / "hostoffload" / "report.schema.json").read_text()
)
VALIDATOR = Draft202012Validator(SCHEMA)

# Each dataclass and the definition of the schema it reads and writes.
DEFINITIONS = {
    Start: "start",
    PathStep: "pathStep",
    Fix: "fix",
    Finding: "finding",
    Location: "location",
    Note: "note",
    Diagnostic: "error",
    StartTrace: "analysisStartTrace",
    TraceFate: "analysisFate",
}


def documents() -> Iterator[tuple[str, dict[str, Any]]]:
    """Everything the C API writes for the inputs: a parse failure, or the analysis' JSON
    (a report or a failure) without and with strict, and with the trace."""
    for name, text in module_inputs():
        with ir.Context() as context:
            context.enable_multithreading(False)
            module, errors = _hostoffload.parse(context, text, name.encode())
            if module is None:
                yield name, json.loads(errors)
                continue
            for strict in (False, True):
                _, report = _hostoffload.analyze(module.operation, "", strict, True)
                yield f"{name}{' strict' if strict else ''}", json.loads(report)
            _, report = _hostoffload.analyze(module.operation, "", False, True, trace=True)
            yield f"{name} traced", json.loads(report)


DOCUMENTS = dict(documents())
REPORTS = [document for document in DOCUMENTS.values() if "entry" in document]


def errors_of(report: dict[str, Any]) -> list[str]:
    return [error.message for error in VALIDATOR.iter_errors(report)]


def errors_as(document: dict[str, Any], definition: str) -> list[str]:
    """What keeps ``document`` from being the schema's ``definition``."""
    validator = Draft202012Validator({"$ref": f"#/$defs/{definition}", "$defs": SCHEMA["$defs"]})
    return [error.message for error in validator.iter_errors(document)]


def properties(definition: str) -> set[str]:
    return set(SCHEMA["$defs"][definition]["properties"])


def test_the_schema_is_valid_draft_2020_12() -> None:
    Draft202012Validator.check_schema(SCHEMA)


def test_the_suite_has_every_kind_of_finding_field() -> None:
    """The reports below exercise the schema: errors and warnings, tuple outputs, several
    starts, long paths and both fixes all occur."""
    findings = [finding for report in REPORTS for finding in report["findings"]]
    assert {finding["severity"] for finding in findings} == {"error", "warning"}
    assert any(finding["tuple_index"] for finding in findings)
    assert any(len(finding["starts"]) > 1 for finding in findings)
    assert any(finding["path_steps_omitted"] for finding in findings)
    assert {fix["strategy"] for finding in findings for fix in finding["fixes"]} == {
        "host",
        "device",
    }


@pytest.mark.parametrize("name", DOCUMENTS)
def test_the_c_api_writes_json_of_the_schema(name: str) -> None:
    assert errors_of(DOCUMENTS[name]) == []
    if "entry" in DOCUMENTS[name]:
        assert errors_as(DOCUMENTS[name], "analysisReport") == []


@pytest.mark.parametrize("locations", LOCATION_FORMS)
def test_report_to_json_writes_the_schema(locations: LocationForm) -> None:
    """Users get a ``report``, in either form of its locations, never the C API's document."""
    for report in REPORTS:
        read = Report.from_json({**report, "source": "model.mlir"})
        written = json.loads(read.to_json(locations=locations))
        assert errors_of(written) == []
        assert errors_as(written, "report") == []
        assert ("locations" in written) == (locations == "table")


def test_input_error_to_json_writes_the_schema() -> None:
    failures = [document for document in DOCUMENTS.values() if "entry" not in document]
    assert failures
    for failure in failures:
        with pytest.raises(InputError) as caught:
            Report.from_json({**failure, "source": "model.mlir"})
        written = caught.value.to_json()
        assert errors_as(written, "inputFailure") == []
        assert errors_of(written) == []


def test_the_inputs_have_failed_parses_and_analyses() -> None:
    """The lit tests' bad input gives the failure forms of the schema something to check."""
    assert any("parsed" in document for document in DOCUMENTS.values())
    assert any(
        "parsed" not in document and "entry" not in document for document in DOCUMENTS.values()
    )


def test_a_field_the_schema_lacks_fails_validation() -> None:
    """The schema is closed: a field the C API starts writing must be declared."""
    report = next(report for report in REPORTS if report["findings"])
    assert errors_of(report) == []
    changed = {**report, "findings": [{**report["findings"][0], "new_field": 1}]}
    assert errors_of(changed) != []


@pytest.mark.parametrize("cls", DEFINITIONS, ids=lambda cls: cls.__name__)
def test_dataclass_fields_are_the_schema_properties(cls: type) -> None:
    fields = {field.name for field in dataclasses.fields(cls)}
    assert fields == properties(DEFINITIONS[cls])


def test_report_fields_are_the_schema_properties() -> None:
    """A report's ``locations`` are the table the JSON may refer to by index, where the objects
    hold the locations themselves; its ``trace`` is a document of its own (trace.schema.json).
    The C API's report has the same content, without what only Python knows, and with
    ``errors``, always empty: a failed analysis raises instead."""
    fields = {field.name for field in dataclasses.fields(Report)}
    assert fields == properties("report") - {"locations"} | {"trace"}
    analysis = {"errors", "entry", "starts", "findings", "locations", "xla_release", "trace"}
    assert properties("analysisReport") == analysis


def test_codes_in_reports_are_in_the_table_of_codes() -> None:
    table = {code: severity for code, severity, _, _ in _hostoffload.finding_codes()}
    for report in REPORTS:
        for finding in report["findings"]:
            assert table[finding["code"]] == finding["severity"]


def test_the_table_of_codes_is_consistent() -> None:
    rows = _hostoffload.finding_codes()
    codes = [code for code, _, _, _ in rows]
    assert len(set(codes)) == len(codes)
    for code, severity, description, strict_form_of in rows:
        # XLA's codes are E and four digits; ours HOE (error) or HOW (warning) and three.
        match = re.fullmatch(r"(E\d{4})|HO([EW])\d{3}", code)
        assert match, code
        xla_code, our_letter = match.groups()
        assert severity == ("error" if xla_code or our_letter == "E" else "warning")
        assert description and "\n" not in description
        assert strict_form_of is None or strict_form_of in codes
    assert ("HOE101", "error") in [(code, severity) for code, severity, _, _ in rows]


def test_long_paths_show_the_constant_number_of_steps_at_each_end() -> None:
    at_each_end = _hostoffload.PATH_STEPS_AT_EACH_END
    for report in REPORTS:
        for finding in report["findings"]:
            if finding["path_steps_omitted"]:
                assert len(finding["path"]) == 2 * at_each_end
            else:
                assert len(finding["path"]) <= 2 * at_each_end


def test_the_parser_names_locations_after_the_buffer() -> None:
    """Locations the parser makes (for ops without one) carry the name given to parse."""
    text = (
        '"builtin.module"() ({\n'
        '  "func.func"() <{arg_attrs = [{mhlo.memory_kind = "pinned_host"}], '
        "function_type = (tensor<8xf32>) -> tensor<8xf32>, "
        'res_attrs = [{mhlo.memory_kind = "device"}], sym_name = "main"}> ({\n'
        "  ^bb0(%arg0: tensor<8xf32>):\n"
        '    "func.return"(%arg0) : (tensor<8xf32>) -> ()\n'
        "  }) : () -> ()\n"
        "}) : () -> ()\n"
    )
    with ir.Context() as context:
        context.enable_multithreading(False)
        module, errors = _hostoffload.parse(context, text.encode(), b"model.mlir")
        assert module is not None, errors
        _, report = _hostoffload.analyze(module.operation, "", False, True)
    data = json.loads(report)
    (finding,) = data["findings"]
    assert finding["code"] == "E1200"
    indices = [finding["location"], *(note["location"] for note in finding["notes"])]
    assert {data["locations"][index]["file"] for index in indices} == {"model.mlir"}


def location_indices(report: dict[str, Any]) -> Iterator[int]:
    """Every index into the table of locations that a report's starts and findings hold."""
    yield from (start["location"] for start in report["starts"])
    for finding in report["findings"]:
        yield finding["location"]
        yield from (note["location"] for note in finding["notes"])
        yield from (step["location"] for step in finding["path"])


def test_locations_are_written_once_and_their_parts_first() -> None:
    """Every index refers to an entry of the table; a call site's and a name's parts come
    before it, so a reader builds the table in one pass; no entry is written twice."""
    for report in REPORTS:
        table = report["locations"]
        assert all(index < len(table) for index in location_indices(report))
        for index, entry in enumerate(table):
            parts = [entry[key] for key in ("callee", "caller", "child") if key in entry]
            assert all(part < index for part in parts)
        assert len({json.dumps(entry, sort_keys=True) for entry in table}) == len(table)


def test_the_suite_writes_call_sites_and_names_as_their_parts() -> None:
    entries = [entry for report in REPORTS for entry in report["locations"]]
    assert any("callee" in entry for entry in entries)
    assert any("child" in entry for entry in entries)


def printed_locations(module: ir.Module) -> set[str]:
    """MLIR's spelling of the location of every op and block argument of ``module``."""
    printed = set()

    def collect(op: ir.Operation) -> ir.WalkResult:
        printed.add(str(op.location))
        for region in op.regions:
            for block in region.blocks:
                printed.update(str(argument.location) for argument in block.arguments)
        return ir.WalkResult.ADVANCE

    module.operation.walk(collect)
    return printed


def test_locations_read_from_the_table_are_spelled_as_mlir_prints_them() -> None:
    """A location put together from its parts reads as MLIR prints the same location: every
    location of a finding's report is the printed location of an op or a block argument of
    the module."""
    checked = 0
    for path in layout.recorded_modules(DIFFERENTIAL_DIR) + [EXAMPLE]:
        with ir.Context() as context:
            context.enable_multithreading(False)
            module, _ = _hostoffload.parse(context, path.read_bytes(), path.name.encode())
            if module is None:  # the known loading misses of docs/differential.md
                continue
            _, text = _hostoffload.analyze(module.operation, "", False, True)
            report = Report.from_json(text)
            if not report.findings:
                continue
            printed = printed_locations(module)
        locations = [start.location for start in report.starts]
        for finding in report.findings:
            locations += [finding.location, *(note.location for note in finding.notes)]
            locations += [step.location for step in finding.path]
        assert {location.mlir for location in locations} <= printed, path.name
        checked += 1
    assert checked > 100
