"""Every form a JAX user has, through hostoffload.check and fix and through offload-opt:
pretty StableHLO, bytecode, HLO text, jax.export artifacts, Traced and Exported objects,
and what each bad input gets (docs/input-forms.md)."""

from __future__ import annotations

import importlib.util
import io
import os
import re
import resource
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from conftest import REPO_ROOT

import hostoffload
from hostoffload import InputError, Report, _convert, _hlo, check, fix
from hostoffload._driver import input_index
from hostoffload._forms import Form, find_dump_files, read_head, recognise
from tools.differential import layout

jax = pytest.importorskip("jax")

INPUTS = REPO_ROOT / "test" / "lit" / "forms" / "Inputs"
HOSTILE = INPUTS / "hostile"
GENERIC = INPUTS / "step.generic.mlir"
# jax reads serialized jax.export artifacts with flatbuffers, which it does not depend on.
NEEDS_FLATBUFFERS = pytest.mark.skipif(
    importlib.util.find_spec("flatbuffers") is None, reason="flatbuffers is not installed"
)
# The forms that keep JAX's debug info, and so get the generic form's report exactly.
WITH_DEBUG_INFO = (
    "step.pretty-debug.mlir",
    "step.mlirbc",
    pytest.param("step.export", marks=NEEDS_FLATBUFFERS),
)
PROGRAM = "test/lit/forms/Inputs/program.py"

SMALL_HLO = """HloModule small, entry_computation_layout={(f32[8]{0:S(5)})->f32[8]{0}}

ENTRY %main (p: f32[8]) -> f32[8] {
  %p = f32[8]{0} parameter(0)
  ROOT %n = f32[8]{0} negate(%p)
}
"""


def e1200(report: Report) -> list[int | None]:
    return [f.output_index for f in report.errors]


def summary(report: Report) -> list[tuple[str, int | None, str, int | None]]:
    """The findings, located by file name: a program loaded here has absolute paths."""
    return [
        (f.code, f.output_index, Path(f.location.file or "").name, f.location.line)
        for f in report.findings
    ]


@pytest.fixture(scope="module")
def generic_report() -> Report:
    return check(GENERIC)


@pytest.fixture(scope="module")
def program() -> object:
    sys.path.insert(0, str(INPUTS))
    try:
        import program as loaded
    finally:
        sys.path.remove(str(INPUTS))
    return loaded


# --- recognising forms -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "form"),
    [
        ("step.generic.mlir", Form.GENERIC),
        ("step.pretty.mlir", Form.PRETTY),
        ("step.pretty-debug.mlir", Form.PRETTY),
        ("step.mlirbc", Form.BYTECODE),
        ("step.export", Form.EXPORT),
        ("step.hlo.txt", Form.HLO),
        ("step.before_optimizations.txt", Form.HLO),
    ],
)
def test_every_committed_form_is_recognised(name: str, form: Form) -> None:
    data = (INPUTS / name).read_bytes()
    assert recognise(data) is form
    assert recognise(data, str(INPUTS / name)) is form


def test_no_module_of_the_suites_is_taken_for_python() -> None:
    """The Python heads recognised are none that MLIR or HLO text starts with: every module of
    the differential suite and every lit test (MLIR text, HLO text, their hostile inputs)."""
    lit = REPO_ROOT / "test" / "lit"
    patterns = ("*.mlir", "*.mlirbc", "*.hlo.txt", "*.before_optimizations.txt", "*.export")
    modules = [
        *layout.recorded_modules(layout.SUITE),
        *(
            path
            for pattern in patterns
            for path in lit.rglob(pattern)
            if "Output" not in path.parts
        ),
    ]
    assert len(modules) > 1000
    taken = [
        path
        for path in modules
        if recognise(read_head(io.BytesIO(path.read_bytes()).read)) is Form.PYTHON
    ]
    assert taken == []


@pytest.mark.parametrize(
    ("head", "form"),
    [
        (b"", Form.EMPTY),
        (b" \n\t\n", Form.EMPTY),
        (b"// only a comment\n", Form.GENERIC),
        (b"func.func @main() {\n  return\n}\n", Form.GENERIC),
        (b'#loc = loc("x")\n"builtin.module"() ({\n}) : () -> ()\n', Form.GENERIC),
        (b"module {\n  func.func @f() {\n    stablehlo.return\n  }\n}", Form.PRETTY),
        (b'"builtin.module"() ({\n  "vhlo.func_v1"() : () -> ()\n', Form.VHLO_TEXT),
        (b"ML\xefR\rStableHLO_v1.15.0\x00", Form.PORTABLE),
        (b"ML\xefR\rMLIR23.0.0git\x00", Form.BYTECODE),
        (b"hello world", Form.UNKNOWN),
        (bytes(range(256)), Form.UNKNOWN),
        (b"#!/usr/bin/env python3\nprint(1)\n", Form.PYTHON),
        (b"import jax\n", Form.PYTHON),
        (b"from jax import numpy as jnp\n", Form.PYTHON),
        (b"# Copyright\n\nfrom __future__ import annotations\n", Form.PYTHON),
        (b'"""Train a model."""\n', Form.PYTHON),
        (b"def step(params):\n", Form.PYTHON),
        (b"async def main():\n", Form.PYTHON),
        (b"class Model:\n", Form.PYTHON),
        (b"@jax.jit\ndef step(x):\n", Form.PYTHON),
        (b'if __name__ == "__main__":\n', Form.PYTHON),
        # Python that starts as no head above: only a .py name tells.
        (b"x = 1\n", Form.UNKNOWN),
    ],
)
def test_recognise(head: bytes, form: Form) -> None:
    assert recognise(head) is form


def test_a_python_file_is_python_whatever_it_starts_with() -> None:
    assert recognise((INPUTS / "program.py").read_bytes()) is Form.PYTHON
    assert recognise(b"x = 1\n", "train.py") is Form.PYTHON


def test_a_long_preamble_of_location_aliases_is_read_past(tmp_path: Path) -> None:
    """Large JAX modules name thousands of locations before their first op."""
    aliases = "".join(f'#long{i} = loc("argument_number_{i}")\n' for i in range(5000))
    assert len(aliases) > 2 * 64 * 1024
    generic = GENERIC.read_text()
    pretty = (INPUTS / "step.pretty.mlir").read_text()
    for text, form in ((generic, Form.GENERIC), (pretty, Form.PRETTY)):
        path = tmp_path / "long.mlir"
        path.write_text(aliases + text)
        with path.open("rb") as stream:
            assert recognise(read_head(stream.read)) is form
        report = check(path)
        assert e1200(report) == [0, 1]
        result = run_driver(str(path), "--host-offload-check", "-o", os.devnull)
        assert result.returncode == 1, result.stderr[-500:]


# --- every route through check ---------------------------------------------------------


@pytest.mark.parametrize("name", WITH_DEBUG_INFO)
def test_forms_with_debug_info_get_the_generic_report(name: str, generic_report: Report) -> None:
    path = INPUTS / name
    assert e1200(generic_report) == [0, 1]
    assert check(path).findings == generic_report.findings
    assert check(path.read_bytes()).findings == generic_report.findings


def test_pretty_text_without_debug_info_points_at_its_own_lines(generic_report: Report) -> None:
    path = INPUTS / "step.pretty.mlir"
    report = check(path)
    assert [(f.code, f.output_index) for f in report.findings] == [
        (f.code, f.output_index) for f in generic_report.findings
    ]
    assert {f.location.file for f in report.findings} == {str(path)}
    # jaxlib parsed the file itself, so its name survives printing the generic form.
    assert report.errors[0].location.line == 12


def test_traced_lowered_and_exported_objects(program: object, generic_report: Report) -> None:
    expected = summary(generic_report)
    lowered = program.lowered()  # type: ignore[attr-defined]
    assert summary(check(lowered)) == expected
    traced = jax.jit(program.step).trace(*program.arguments())  # type: ignore[attr-defined]
    assert summary(check(traced)) == expected
    exported = program.exported()  # type: ignore[attr-defined]
    assert summary(check(exported)) == expected


@NEEDS_FLATBUFFERS
def test_serialized_export_bytes(program: object, generic_report: Report) -> None:
    exported = program.exported()  # type: ignore[attr-defined]
    assert summary(check(exported.serialize())) == summary(generic_report)


def test_hlo_dump_reads_the_entry_memory_spaces(generic_report: Report) -> None:
    path = INPUTS / "step.before_optimizations.txt"
    report = check(path)
    assert e1200(report) == e1200(generic_report) == [0, 1]
    assert [str(f.location) for f in report.errors] == [
        str(f.location) for f in generic_report.errors
    ]
    assert report.errors[0].declared_memory_kind == "device"
    assert (
        'memory space 5 ("pinned_host") in arg_memory_spaces' in report.errors[0].notes[0].message
    )
    assert check(path.read_text()).findings == report.findings


def test_hlo_text_as_str_path_and_bytes() -> None:
    from_str = check(SMALL_HLO)
    assert e1200(from_str) == [0]
    assert check(SMALL_HLO.encode()).findings == from_str.findings


def test_hlo_without_memory_spaces_declares_none() -> None:
    """lowered.as_text(dialect="hlo") holds no memory kinds: nothing is declared for them."""
    report = check(INPUTS / "step.hlo.txt")
    (finding,) = report.errors
    assert finding.output_index == 2
    assert finding.declared_memory_kind == ""
    assert finding.location.file == str(INPUTS / "step.hlo.txt")
    assert finding.location.line == 14


def test_hlo_ops_are_named_after_their_instructions() -> None:
    """Each op is located at its instruction's name (XLA's messages name instructions) and at
    the line of the HLO file that holds it, which the importer alone gives neither."""
    path = INPUTS / "step.hlo.txt"
    text = _convert.to_generic(path.read_bytes(), Form.HLO, None, "h.txt").decode()
    instructions = 0
    for number, line in enumerate(path.read_text().splitlines(), 1):
        found = re.match(r"\s+(?:ROOT )?(\S+) = \S+ (\w[\w-]*)\(", line)
        if found is None or found[2] in ("parameter", "tuple"):  # arguments; flattened away
            continue
        instructions += 1
        assert f'loc("{found[1]}")' in text
        assert f'loc("h.txt":{number}:0)' in text
    assert instructions == 9


def test_an_hlo_parameter_is_located_at_its_line_and_keeps_jax_name(tmp_path: Path) -> None:
    """An argument returned as it is has no op that the importer locates; its E1200 points
    at the parameter's line, and names it by JAX's op_name (XLA's name beside it)."""
    hlo = textwrap.dedent(
        """\
        HloModule t, entry_computation_layout={LAYOUT}

        ENTRY %main (x.1: f32[8], y.2: f32[8]) -> (f32[8], f32[8]) {
          %x.1 = f32[8]{0} parameter(0), metadata={op_name="x"}
          %y.2 = f32[8]{0} parameter(1)
          ROOT %t.3 = (f32[8]{0}, f32[8]{0}) tuple(%x.1, %y.2)
        }
        """
    ).replace("LAYOUT", "(f32[8]{0:S(5)}, f32[8]{0:S(5)})->(f32[8]{0}, f32[8]{0})")
    path = tmp_path / "passthrough.hlo.txt"
    path.write_text(hlo)
    findings = [f for f in check(path).findings if f.code == "E1200"]
    assert [(f.output_index, f.location.file, f.location.line) for f in findings] == [
        (0, str(path), 4),
        (1, str(path), 5),
    ]
    assert "starting from argument 'x', XLA: 'x.1'" in findings[0].message
    assert "starting from argument 'y.2', XLA: 'y.2'" in findings[1].message


def test_xla_names_of_the_entry_parameters_and_root_are_recorded() -> None:
    """A tuple parameter becomes one argument per leaf, each with the parameter's name."""
    hlo = textwrap.dedent(
        """\
        HloModule t, entry_computation_layout={((f32[2]{0:S(5)}, f32[3]{0}), f32[4]{0})->f32[2]{0}}

        ENTRY %main (p: (f32[2], f32[3]), q: f32[4]) -> f32[2] {
          %q.7 = f32[4]{0} parameter(1)
          %p.3 = (f32[2]{0}, f32[3]{0}) parameter(0)
          ROOT %a.9 = f32[2]{0} get-tuple-element(%p.3), index=0
        }
        """
    )
    text = _convert.to_generic(hlo.encode(), Form.HLO, None).decode()
    assert 'hostoffload.hlo_entry = {arguments = ["p.3", "p.3", "q.7"], root = "a.9"}' in text
    assert 'arg_memory_spaces = "5;0;0"' in text


def test_module_memory_spaces_already_there_are_kept() -> None:
    hlo = SMALL_HLO.replace(
        "HloModule small,", 'HloModule small, frontend_attributes={out_memory_spaces="5"},'
    )
    assert check(hlo).ok
    assert e1200(check(SMALL_HLO)) == [0]


def test_an_instruction_over_several_lines_reads() -> None:
    """XLA's own tests break long instructions after a comma: the metadata the front end adds
    goes after the last attribute, and the instruction is located at its first line."""
    hlo = textwrap.dedent(
        """\
        HloModule moved, entry_computation_layout={(f32[8]{0})->(f32[8]{0}, f32[8]{0})}

        ENTRY main {
          p = f32[8]{0} parameter(0)
          moved = f32[8]{0} custom-call(p),
                  custom_call_target="MoveToHost"
          ROOT t = (f32[8]{0}, f32[8]{0}) tuple(moved, p)
        }
        """
    )
    prepared = _hlo.prepare(hlo, "x")
    assert prepared.count("\n") == hlo.count("\n")
    assert 'custom_call_target="MoveToHost", metadata={op_name="moved"' in prepared
    report = check(hlo)
    assert e1200(report) == [0]
    assert report.errors[0].location is not None and report.errors[0].location.line == 5


def test_elided_literals_never_expand() -> None:
    """A constant printed as {...} of 400 GB converts in bounded memory and time."""
    hlo = textwrap.dedent(
        """\
        HloModule huge, entry_computation_layout={(f32[100000000000]{0:S(5)})->f32[100000000000]{0}}

        ENTRY %main (p: f32[100000000000]) -> f32[100000000000] {
          %p = f32[100000000000]{0} parameter(0)
          %c = f32[100000000000]{0} constant({...})
          ROOT %a = f32[100000000000]{0} add(%p, %c)
        }
        """
    )
    assert f'custom_call_target="{_hlo.ELIDED_CONSTANT_TARGET}"' in _hlo.prepare(hlo, "x")
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    assert e1200(check(hlo)) == [0]
    peak_kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    assert max(before, peak_kb) < 2 * 2**20  # under 2 GB: the jax import, not the literal


@NEEDS_FLATBUFFERS
def test_fix_of_converted_forms_rechecks_clean() -> None:
    for name in ("step.before_optimizations.txt", "step.mlirbc", "step.export"):
        for strategy in ("host", "device"):
            fixed = fix(INPUTS / name, strategy)  # type: ignore[arg-type]
            assert check(fixed).errors == (), (name, strategy)


# --- bad input ---------------------------------------------------------------------------


def test_empty_input_says_so(tmp_path: Path) -> None:
    path = tmp_path / "empty.mlir"
    path.write_bytes(b"")
    for source in (path, b"", "  \n"):
        with pytest.raises(InputError, match="the input is empty: there is no module to check"):
            check(source)


def test_a_directory_without_dump_files_says_what_was_looked_for(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("not a dump file")
    with pytest.raises(InputError) as caught:
        check(tmp_path)
    message = str(caught.value)
    assert message.startswith(f"{tmp_path}: error: no dump files found in this directory or ")
    assert "*.before_optimizations.txt (XLA_FLAGS=--xla_dump_to=DIR)" in message
    assert "*.mlir (JAX_DUMP_IR_TO=DIR" in message


def test_a_directory_of_dump_files_says_which_to_give(tmp_path: Path) -> None:
    dump = tmp_path / "module_0000.jit_step.before_optimizations.txt"
    dump.write_text(SMALL_HLO)
    with pytest.raises(InputError) as caught:
        check(tmp_path)
    assert str(caught.value) == (
        f"{tmp_path}: error: this is a directory, not a module: give its dump file {dump}, or "
        "run hostoffload check on the directory, which checks every dump file in it"
    )


@pytest.mark.parametrize("given", ["path", "str", "text"])
def test_python_source_is_told_what_to_run(given: str, tmp_path: Path) -> None:
    script = tmp_path / "train.py"
    script.write_text((INPUTS / "program.py").read_text())
    source = {"path": script, "str": str(script), "text": script.read_text()}[given]
    with pytest.raises(InputError) as caught:
        check(source)
    message = str(caught.value)
    assert "this is Python source, not a module" in message
    run = f"hostoffload run {script}" if given != "text" else "hostoffload run SCRIPT"
    assert f"({run})" in message
    assert "hostoffload.check_jax(fn, *args)" in message


def test_vhlo_text_says_what_it_is() -> None:
    text = '"builtin.module"() ({\n  "vhlo.func_v1"() : () -> ()\n}) : () -> ()\n'
    with pytest.raises(InputError, match="the input is VHLO text"):
        check(text)


def test_portable_artifact_is_read(program: object, generic_report: Report) -> None:
    artifact = program.exported().mlir_module_serialized  # type: ignore[attr-defined]
    assert recognise(artifact) is Form.PORTABLE
    assert summary(check(artifact)) == summary(generic_report)


def test_text_of_no_known_form_says_what_it_looks_like() -> None:
    with pytest.raises(InputError) as caught:
        check(b"hello world\n")
    (diagnostic,) = caught.value.diagnostics
    (note,) = diagnostic.notes
    assert note.message.startswith("the input is text that starts with 'hello world'")
    assert "HLO text" in note.message and "jax.export" in note.message


def test_pretty_text_that_is_not_utf8_says_so() -> None:
    data = (INPUTS / "step.pretty.mlir").read_bytes().replace(b"stablehlo.add", b"stablehlo.a\xffd")
    with pytest.raises(InputError) as caught:
        check(data)
    note = caught.value.diagnostics[0].notes[-1]
    assert note.message.startswith("the input is pretty-printed StableHLO")
    offset = data.index(b"\xff")
    assert f"byte {offset} of it is not UTF-8" in note.message


def test_truncated_hlo_is_located() -> None:
    text = (INPUTS / "step.before_optimizations.txt").read_text()
    cut = text[: text.index("metadata=", text.index("multiply(")) + 4]
    with pytest.raises(InputError) as caught:
        check(cut)
    (diagnostic,) = caught.value.diagnostics
    assert diagnostic.message.startswith("HLO: ")
    assert diagnostic.location.line == cut.count("\n") + 1


def test_hlo_the_parser_rejects_is_located() -> None:
    bad = SMALL_HLO.replace("ROOT %n = f32[8]{0}", "ROOT %n = f32[4]{0}")
    with pytest.raises(InputError) as caught:
        check(bad)
    (diagnostic,) = caught.value.diagnostics
    assert diagnostic.message.startswith("HLO: Shape of computation main, f32[8], is not")
    assert diagnostic.location.line == 3


def test_hlo_that_parses_but_is_invalid_gets_the_verifier_error() -> None:
    """XLA's parser does not verify shapes; StableHLO's verifier, after the import, does."""
    bad = SMALL_HLO.replace(
        "ROOT %n = f32[8]{0} negate(%p)",
        "%c = f32[4]{0} constant({1, 2, 3, 4})\n  ROOT %n = f32[8]{0} multiply(%p, %c)",
    )
    with pytest.raises(InputError) as caught:
        check(bad)
    (diagnostic,) = caught.value.diagnostics
    assert diagnostic.message.startswith("invalid HLO: 'stablehlo.multiply' op requires")
    assert diagnostic.location.line == 6


def test_invalid_utf8_in_hlo_is_located() -> None:
    data = SMALL_HLO.encode().replace(b"negate", b"neg\xffate")
    with pytest.raises(InputError) as caught:
        check(data)
    (diagnostic,) = caught.value.diagnostics
    assert diagnostic.message == "HLO text must be UTF-8: byte 0xff is not"
    assert (diagnostic.location.line, diagnostic.location.column) == (5, 26)


@pytest.mark.parametrize(
    ("name", "reason"),
    [
        ("message-not-utf8.mlirbc", "str_from_cstr_and_size(): conversion error!"),
        ("parameter-number.hlo.txt", "Check failed: param_no >= 0 && param_no < parameter_count"),
    ],
)
def test_inputs_that_abort_jaxlib_get_an_error_and_the_process_lives(
    name: str, reason: str
) -> None:
    with pytest.raises(InputError) as caught:
        check(HOSTILE / name)
    message = caught.value.diagnostics[0].message
    assert message.startswith("jaxlib failed on this input")
    assert "killed by SIGABRT" in message and reason in message


def test_input_that_makes_jaxlib_loop_times_out(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_convert, "_TIMEOUT_SECONDS", 3)
    with pytest.raises(InputError, match="jaxlib did not finish converting this input"):
        check(HOSTILE / "loops.mlirbc")


def test_garbage_after_the_bytecode_magic() -> None:
    with pytest.raises(InputError):
        check(b"ML\xefR" + bytes(range(200)))


def test_wrong_entry_lists_the_functions() -> None:
    with pytest.raises(
        InputError, match=r"'@step' .*is not a func.func .*: its functions are 'main'"
    ):
        check(INPUTS / "step.mlirbc", entry="step")


# --- without jax ---------------------------------------------------------------------------


def hiding(directory: Path, *packages: str) -> dict[str, str]:
    """An environment in which importing any of ``packages`` fails, in this process's children
    and theirs."""
    for package in packages:
        (directory / package).mkdir()
        (directory / package / "__init__.py").write_text(
            f'raise ImportError("{package} is hidden")\n'
        )
    return {**os.environ, "PYTHONPATH": str(directory)}


@pytest.fixture(scope="module")
def no_jax(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """Without the [jax] extra: neither jax nor jaxlib."""
    return hiding(tmp_path_factory.mktemp("no-jax"), "jax", "jaxlib")


@pytest.fixture(scope="module")
def jaxlib_only(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """jaxlib without jax, whose import takes far longer than jaxlib's."""
    return hiding(tmp_path_factory.mktemp("jaxlib-only"), "jax")


CHECK_IN_CHILD = textwrap.dedent(
    """
    import sys
    import hostoffload
    try:
        hostoffload.check(open(sys.argv[1], "rb").read())
    except hostoffload.InputError as error:
        print(error)
    """
)


@pytest.mark.parametrize(
    "name", ["step.pretty.mlir", "step.mlirbc", "step.export", "step.before_optimizations.txt"]
)
def test_without_jax_both_front_ends_say_what_to_install(name: str, no_jax: dict[str, str]) -> None:
    path = INPUTS / name
    api = subprocess.run(
        [sys.executable, "-c", CHECK_IN_CHILD, str(path)],
        capture_output=True,
        text=True,
        env=no_jax,
        timeout=120,
    )
    assert api.returncode == 0, api.stderr
    assert "pip install 'hostoffload[jax]'" in api.stdout
    assert f"the input is {recognise(path.read_bytes()).value}" in api.stdout
    driver = subprocess.run(
        ["offload-opt", str(path), "--host-offload-check"],
        capture_output=True,
        text=True,
        env=no_jax,
        timeout=120,
    )
    assert driver.returncode == 2
    assert driver.stderr.startswith(f"{path}: error: the input is")
    assert "pip install 'hostoffload[jax]'" in driver.stderr


@pytest.mark.parametrize(
    "name", ["step.pretty.mlir", "step.mlirbc", "step.before_optimizations.txt"]
)
def test_every_form_but_export_is_read_with_jaxlib_alone(
    name: str, jaxlib_only: dict[str, str]
) -> None:
    """Pretty text, bytecode and HLO text are converted without importing jax, as JAX's own
    context is made of jaxlib's dialects: the same verdict, by both front ends."""
    path = INPUTS / name
    api = subprocess.run(
        [sys.executable, "-c", CHECK_IN_CHILD, str(path)],
        capture_output=True,
        text=True,
        env=jaxlib_only,
        timeout=120,
    )
    assert (api.returncode, api.stdout) == (0, ""), api.stderr
    driver = subprocess.run(
        ["offload-opt", str(path), "--host-offload-check", "-o", os.devnull],
        capture_output=True,
        text=True,
        env=jaxlib_only,
        timeout=120,
    )
    with_jax = subprocess.run(
        ["offload-opt", str(path), "--host-offload-check", "-o", os.devnull],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert (driver.returncode, driver.stderr) == (with_jax.returncode, with_jax.stderr)
    assert driver.returncode in (0, 1)


def test_export_needs_jax(jaxlib_only: dict[str, str]) -> None:
    path = INPUTS / "step.export"
    api = subprocess.run(
        [sys.executable, "-c", CHECK_IN_CHILD, str(path)],
        capture_output=True,
        text=True,
        env=jaxlib_only,
        timeout=120,
    )
    assert api.returncode == 0, api.stderr
    assert "pip install 'hostoffload[jax]'" in api.stdout


def test_a_jaxlib_older_than_the_jax_extra_allows_is_named(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(_convert, "_jaxlib_release", lambda: "0.8.1")
    path = INPUTS / "step.pretty.mlir"
    with pytest.raises(InputError) as caught:
        check(path)
    (diagnostic,) = caught.value.diagnostics
    assert diagnostic.message == (
        f"the input is {Form.PRETTY.value}; reading it takes jaxlib's MLIR and XLA: pip "
        "install 'hostoffload[jax]' (jax and jaxlib 0.8.2 or later, before 0.11), or give the "
        "generic form: module.operation.get_asm(print_generic_op_form=True, "
        "enable_debug_info=True) in Python (this is jaxlib 0.8.1)"
    )


def test_export_without_flatbuffers_says_what_to_install(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    hidden = tmp_path_factory.mktemp("no-flatbuffers")
    (hidden / "flatbuffers").mkdir()
    (hidden / "flatbuffers" / "__init__.py").write_text('raise ImportError("hidden")\n')
    environment = {**os.environ, "PYTHONPATH": str(hidden)}
    path = INPUTS / "step.export"
    result = subprocess.run(
        ["offload-opt", str(path), "--host-offload-check"],
        capture_output=True,
        text=True,
        env=environment,
        timeout=120,
    )
    assert result.returncode == 2
    assert result.stderr == (
        f"{path}: error: the input is a serialized jax.export artifact; jax reads it with "
        "flatbuffers, which jax does not install: pip install flatbuffers\n"
    )


def test_without_jax_generic_input_is_checked(no_jax: dict[str, str]) -> None:
    result = subprocess.run(
        ["offload-opt", str(GENERIC), "--host-offload-check", "-o", os.devnull],
        capture_output=True,
        text=True,
        env=no_jax,
        timeout=60,
    )
    assert result.returncode == 1
    assert "E1200" in result.stderr


# --- offload-opt ---------------------------------------------------------------------------


def run_driver(*args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(["offload-opt", *args], input=stdin, capture_output=True, timeout=300)


def test_driver_exit_codes(tmp_path: Path) -> None:
    assert run_driver(str(INPUTS / "step.mlirbc"), "--host-offload-check").returncode == 1
    clean = tmp_path / "clean.hlo.txt"
    clean.write_text(SMALL_HLO.replace("{0:S(5)}", "{0}"))
    assert run_driver(str(clean), "--host-offload-check").returncode == 0
    empty = tmp_path / "empty.txt"
    empty.write_bytes(b"")
    for unreadable in (empty, tmp_path, HOSTILE / "parameter-number.hlo.txt", tmp_path / "gone"):
        result = run_driver(str(unreadable), "--host-offload-check")
        assert result.returncode == 2, unreadable
        assert result.stderr.startswith(f"{unreadable}: error: ".encode())


def test_driver_keeps_every_other_argument(tmp_path: Path) -> None:
    out = tmp_path / "fixed.mlir"
    result = run_driver(
        "--pass-pipeline",
        "builtin.module(host-offload-fix{strategy=host})",
        "-o",
        str(out),
        "--mlir-print-op-generic",
        str(INPUTS / "step.before_optimizations.txt"),
    )
    assert result.returncode == 0, result.stderr
    assert check(out).ok


def test_driver_reads_generic_stdin_from_a_pipe() -> None:
    result = run_driver("--host-offload-check", "-o", os.devnull, stdin=GENERIC.read_bytes())
    assert result.returncode == 1
    assert b"program.py:16:12: error: E1200" in result.stderr


@pytest.mark.parametrize(
    ("arguments", "index"),
    [
        (["in.mlir", "--host-offload-check"], 0),
        (["--host-offload-check", "-o", "out.mlir"], None),
        (["-o", "out.mlir", "in.mlir"], 2),
        (["--pass-pipeline", "builtin.module(x)", "in.mlir"], 2),
        (["--pass-pipeline=builtin.module(x)", "-", "-o", "x"], 1),
        (["--split-input-file", "in.mlir"], 1),
        (["--host-offload-check", "--", "-odd-name.mlir"], 2),
    ],
)
def test_input_index(arguments: list[str], index: int | None) -> None:
    assert input_index(arguments) == index


# --- dump directories ----------------------------------------------------------------------


def test_find_dump_files(tmp_path: Path) -> None:
    xla = tmp_path / "xla"
    wanted = [
        xla / "module_0001.jit_step.before_optimizations.txt",
        tmp_path / "jax" / "jax_ir0000_jit_step_compile.mlir",
    ]
    ignored = [
        xla / "module_0001.jit_step.cpu_after_optimizations.txt",
        xla / "module_0001.jit_step" / "module.mlir",
        xla / "module_0001.jit_step" / "compile_options.textproto",
        xla / "module_0001.jit_step.ir-no-opt.ll",
        # As jaxlib 0.8 and 0.9 write them: the input's folder, XLA:CPU's kernels.
        xla / "jit_step_1796622085646" / "module.mlir",
        xla / "jit_step_1796622085646" / "compile_options.pb",
        xla / "module_0001.jit_step.multiply_add_fusion_kernel_module-pre-optimization.mlir",
        xla / "module_0001.jit_step.multiply_add_fusion_kernel_module-post-optimization.mlir",
        xla / "module_0001.jit_step.__compute_module_wrapped_subtract-post-lowering.mlir",
    ]
    for path in wanted + ignored:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("x")
    assert find_dump_files(tmp_path) == sorted(wanted)
    # The per-module folder given itself: its module.mlir is what there is to check.
    assert find_dump_files(xla / "module_0001.jit_step") == [ignored[1]]
    # A module.mlir in a folder of the user's, without XLA's compile options beside it.
    mine = tmp_path / "mine" / "module.mlir"
    mine.parent.mkdir()
    mine.write_text("x")
    assert find_dump_files(tmp_path) == sorted([*wanted, mine])


def test_a_real_xla_dump_directory_is_checked(tmp_path: Path) -> None:
    dump = tmp_path / "dump"
    environment = {**os.environ, "XLA_FLAGS": f"--xla_dump_to={dump}"}
    script = "import program; program.compile_for_cpu()"
    subprocess.run(
        [sys.executable, "-c", script], check=True, cwd=INPUTS, env=environment, timeout=300
    )
    (found,) = find_dump_files(dump)
    assert found.name.endswith("jit_step.before_optimizations.txt")
    assert e1200(check(found)) == [0, 1]
    assert hostoffload.__name__ == "hostoffload"
