"""hostoffload.check on every kind of source of our own MLIR, and its InputErrors."""

import dataclasses
import pickle
from pathlib import Path

import pytest
from conftest import EXAMPLE, PROGRAMS, REPO_ROOT, differential_module, xla_e1200_outputs

import hostoffload
from hostoffload import InputError, Location, Report, check
from hostoffload._generic import is_text
from hostoffload.mlir import ir

TWO_PUBLIC_FUNCTIONS = """
"builtin.module"() ({
  "func.func"() <{function_type = () -> (), sym_name = "a"}> ({
    "func.return"() : () -> ()
  }) : () -> ()
  "func.func"() <{function_type = () -> (), sym_name = "b"}> ({
    "func.return"() : () -> ()
  }) : () -> ()
}) : () -> ()
"""


def generic(operation: ir.Operation) -> str:
    return operation.get_asm(print_generic_op_form=True, enable_debug_info=True)


@pytest.fixture(scope="module")
def example_report() -> Report:
    return check(EXAMPLE.read_text())


def test_example_findings_as_data(example_report: Report) -> None:
    assert example_report.entry == "main"
    assert example_report.source is None
    assert not example_report.ok
    assert [(f.code, f.output_index) for f in example_report.errors] == [
        ("E1200", 0),
        ("E1200", 1),
    ]
    assert [f.code for f in example_report.warnings] == ["HOW101"]

    (start,) = example_report.starts
    assert (start.kind, start.argument_index, start.name) == ("argument", 1, "argument 'opt_state'")

    first = example_report.errors[0]
    assert first.severity == "error"
    assert first.message.startswith("E1200: Tensor which is moved to host")
    # Column 12 counted from 1: JAX's loc(...) says 11, counted from 0.
    assert (first.location.file, first.location.line, first.location.column) == (
        "examples/offloaded_state.py",
        19,
        12,
    )
    assert first.result_info == "result[0]"
    assert first.declared_memory_kind == "device"
    assert first.tuple_index == ()
    assert first.starts == (start,)
    assert not first.more_starts
    assert [step.what for step in first.path] == [
        "argument 'opt_state'",
        "stablehlo.multiply",
        "stablehlo.add",
        "stablehlo.subtract",
    ]
    assert [fix.strategy for fix in first.fixes] == ["host", "device"]
    assert 'mhlo.memory_kind = "pinned_host" on result 0' in first.fixes[0].module_change
    assert "jax.device_put" in first.fixes[1].jax_change
    assert first.notes[0].message.startswith("in host memory from the start")


def test_report_types_are_immutable(example_report: Report) -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        example_report.findings[0].code = "E0000"  # type: ignore[misc]
    assert isinstance(example_report.findings, tuple)
    assert hash(example_report) == hash(check(EXAMPLE.read_text()))


def test_str_and_bytes_text(example_report: Report) -> None:
    assert check(EXAMPLE.read_bytes()) == example_report


@pytest.mark.parametrize("kind", ["path", "str path", "relative str path"])
def test_paths(kind: str, example_report: Report, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(REPO_ROOT)
    source = {
        "path": EXAMPLE,
        "str path": str(EXAMPLE),
        "relative str path": "examples/offloaded_state.mlir",
    }[kind]
    report = check(source)
    assert report.source == str(source)
    assert dataclasses.replace(report, source=None) == example_report


@pytest.mark.parametrize("kind", ["Module", "Operation", "OpView"])
def test_our_module_objects_are_analysed_unchanged(kind: str, example_report: Report) -> None:
    with ir.Context():
        module = ir.Module.parse(EXAMPLE.read_text())
        before = generic(module.operation)
        source = {
            "Module": module,
            "Operation": module.operation,
            "OpView": module.operation.opview,
        }[kind]
        assert check(source) == example_report
        assert check(source, strict=True).errors[-1].code == "HOE101"
        assert generic(module.operation) == before


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('"builtin.module"() ({}) : () -> ()', True),
        ("  module {}", True),
        ("module@jit_f {}", True),
        ("func.func @main() {}", True),
        ("#loc = loc(unknown)", True),
        ("// a comment", True),
        ("model.mlir\n", True),
        ("", True),
        ("model.mlir", False),
        ("module.mlir", False),
        ("func.func.mlir", False),
        ("/abs/path/to/x.mlir", False),
    ],
)
def test_str_is_text_or_path(text: str, expected: bool) -> None:
    assert is_text(text) is expected


def test_str_that_is_no_text_is_read_as_a_path() -> None:
    with pytest.raises(InputError) as caught:
        check("module.mlir")
    assert caught.value.source == "module.mlir"
    assert "cannot read the file: No such file or directory" in str(caught.value)
    assert "a str is a path unless it is MLIR or HLO text" in str(caught.value)


def test_missing_path(tmp_path: Path) -> None:
    missing = tmp_path / "missing.mlir"
    with pytest.raises(InputError) as caught:
        check(missing)
    assert str(caught.value) == (
        f"{missing}: error: cannot read the file: No such file or directory"
    )
    assert isinstance(caught.value, ValueError)


def test_unparseable_text_is_located() -> None:
    with pytest.raises(InputError) as caught:
        check('"builtin.module"() ({\n  "func.func"() : () -> (\n}) : () -> ()\n')
    (diagnostic,) = caught.value.diagnostics
    # MLIR names the text it parses "-".
    assert diagnostic.location == Location("-", 2, 26, 'loc("-":2:26)')
    assert str(caught.value) == "-:2:26: error: expected non-function type"


def test_input_error_pickles() -> None:
    with pytest.raises(InputError) as caught:
        check(TWO_PUBLIC_FUNCTIONS)
    copy = pickle.loads(pickle.dumps(caught.value))
    assert (copy.diagnostics, copy.source, str(copy)) == (
        caught.value.diagnostics,
        None,
        str(caught.value),
    )


def test_unparseable_file_names_the_file(tmp_path: Path) -> None:
    bad = tmp_path / "bad.mlir"
    bad.write_text('"builtin.module"() ({\n  "func.func"(%) : () -> ()\n}) : () -> ()\n')
    with pytest.raises(InputError) as caught:
        check(bad)
    (diagnostic,) = caught.value.diagnostics
    assert diagnostic.location == Location(str(bad), 2, 15, f'loc("{bad}":2:15)')
    assert str(caught.value) == f"{bad}:2:15: error: invalid SSA name"


def test_no_entry_function_carries_the_analysis_errors() -> None:
    with pytest.raises(InputError) as caught:
        check(TWO_PUBLIC_FUNCTIONS)
    (diagnostic,) = caught.value.diagnostics
    assert diagnostic.message.startswith("ambiguous entry function")
    assert [(n.message, n.location.line) for n in diagnostic.notes] == [
        ("candidate '@a'", 3),
        ("candidate '@b'", 6),
    ]
    assert check(TWO_PUBLIC_FUNCTIONS, entry="b").entry == "b"


def test_errors_of_a_file_name_the_file(tmp_path: Path) -> None:
    path = tmp_path / "two.mlir"
    path.write_text(TWO_PUBLIC_FUNCTIONS)
    with pytest.raises(InputError) as caught:
        check(path)
    assert caught.value.source == str(path)
    assert str(caught.value).startswith(f"{path}:2:1: error: ambiguous entry function")


def test_entry_naming_nothing_lists_the_functions() -> None:
    with pytest.raises(InputError, match=r"entry function '@absent' .*: its functions are 'main'$"):
        check(EXAMPLE, entry="absent")
    with pytest.raises(InputError, match=r"its functions are 'a', 'b'$"):
        check(TWO_PUBLIC_FUNCTIONS, entry="c")
    with pytest.raises(InputError, match=r"it has no func.func at all$"):
        check("module {}", entry="main")


@pytest.mark.parametrize("text", ["", "module {}"])
def test_empty_module_has_no_entry(text: str) -> None:
    with pytest.raises(InputError):
        check(text)


def test_operation_that_is_no_module() -> None:
    with ir.Context():
        module = ir.Module.parse(EXAMPLE.read_text())
        function = module.body.operations[1]
        with pytest.raises(InputError, match="expected a builtin.module, got 'func.func'"):
            check(function)


@pytest.mark.parametrize("source", [42, None, ["module {}"]])
def test_unsupported_objects(source: object) -> None:
    with pytest.raises(InputError, match="cannot check a .*: expected MLIR or HLO text"):
        check(source)


def test_public_names() -> None:
    for name in hostoffload.__all__:
        assert getattr(hostoffload, name) is not None
    with pytest.raises(AttributeError):
        hostoffload.no_such_name  # noqa: B018


@pytest.mark.parametrize("name", PROGRAMS)
def test_corpus_through_the_api(name: str) -> None:
    expected = xla_e1200_outputs(name)
    assert isinstance(expected, list)
    report = check(differential_module(name))
    e1200 = [f for f in report.errors if f.code == "E1200"]
    assert [f.output_index for f in e1200] == expected
    assert report.ok is not expected
    for finding in e1200:
        assert finding.declared_memory_kind != "pinned_host"
        assert finding.starts and finding.path
        assert {fix.strategy for fix in finding.fixes} == {"host", "device"}
