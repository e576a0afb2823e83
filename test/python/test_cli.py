"""``python -m hostoffload check``: exit codes, stdin, --json, --sarif, and bad input."""

import json
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import CLEAN, HOST_COMPUTE_ONLY
from test_report import sarif_errors

from hostoffload import Report, cli

REPO_ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = REPO_ROOT / "examples" / "offloaded_state.mlir"
UNPARSEABLE = '"builtin.module"() ({\n  "func.func"() : () -> (\n}) : () -> ()\n'


def run(*args: str | Path, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "hostoffload", *map(str, args)],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
        cwd=REPO_ROOT,
    )


def assert_no_traceback(result: subprocess.CompletedProcess[str]) -> None:
    assert "Traceback" not in result.stderr + result.stdout
    assert "MLIRError" not in result.stderr + result.stdout


def test_clean_module_exits_0() -> None:
    result = run("check", CLEAN)
    assert (result.returncode, result.stderr) == (0, "")
    assert result.stdout == f"{CLEAN}: @main: no errors or warnings\n"


def test_errors_exit_1_with_compiler_style_text() -> None:
    result = run("check", "examples/offloaded_state.mlir")
    assert result.returncode == 1
    lines = result.stdout.splitlines()
    assert lines[0].startswith("examples/offloaded_state.py:19:11: error: E1200: ")
    assert lines[-1] == "examples/offloaded_state.mlir: @main: 2 errors, 1 warning"


def test_warnings_alone_exit_0_and_strict_makes_them_errors() -> None:
    assert run("check", HOST_COMPUTE_ONLY).returncode == 0
    strict = run("check", "--strict", HOST_COMPUTE_ONLY)
    assert strict.returncode == 1
    assert ": error: E1201: " in strict.stdout


def test_stdin() -> None:
    result = run("check", "-", stdin=EXAMPLE.read_text())
    assert result.returncode == 1
    assert result.stdout.splitlines()[-1] == "<stdin>: @main: 2 errors, 1 warning"


def test_json_lines_one_report_per_file() -> None:
    result = run("check", "--json", EXAMPLE, CLEAN)
    assert result.returncode == 1
    first, second = (Report.from_json(line) for line in result.stdout.splitlines())
    assert [f.output_index for f in first.errors] == [0, 1]
    assert (first.source, second.source) == (str(EXAMPLE), str(CLEAN))
    assert second.ok


def test_sarif_for_several_files() -> None:
    result = run("check", "--sarif", EXAMPLE, CLEAN)
    assert result.returncode == 1
    log = json.loads(result.stdout)
    assert sarif_errors(log) == []
    results = log["runs"][0]["results"]
    assert [r["ruleId"] for r in results] == ["E1200", "E1200", "W1201"]


def test_missing_file_exits_2() -> None:
    result = run("check", "missing.mlir")
    assert result.returncode == 2
    assert result.stderr == "missing.mlir: error: cannot read the file: No such file or directory\n"
    assert result.stdout == ""


def test_unparseable_text_exits_2_with_the_located_message() -> None:
    result = run("check", "-", stdin=UNPARSEABLE)
    assert result.returncode == 2
    assert result.stderr == "<stdin>:2:26: error: expected non-function type\n"
    assert_no_traceback(result)


def test_no_entry_function_exits_2() -> None:
    result = run("check", "--entry", "absent", EXAMPLE)
    assert result.returncode == 2
    assert result.stderr.startswith(f"{EXAMPLE}: error: entry function '@absent'")


def test_bad_input_among_good_still_reports_the_good_and_exits_2() -> None:
    result = run("check", "--json", CLEAN, "-", stdin=UNPARSEABLE)
    assert result.returncode == 2
    good, bad = (json.loads(line) for line in result.stdout.splitlines())
    assert Report.from_json(good).ok
    assert bad["source"] == "<stdin>"
    assert bad["errors"][0]["location"]["line"] == 2
    assert_no_traceback(result)


def test_sarif_reports_bad_input_as_a_failed_execution() -> None:
    result = run("check", "--sarif", CLEAN, "missing.mlir")
    assert result.returncode == 2
    log = json.loads(result.stdout)
    assert sarif_errors(log) == []
    (invocation,) = log["runs"][0]["invocations"]
    assert invocation["executionSuccessful"] is False
    (notification,) = invocation["toolExecutionNotifications"]
    assert notification["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == (
        "missing.mlir"
    )


@pytest.mark.parametrize(
    "args",
    [(), ("check",), ("check", "--json", "--sarif", "x.mlir"), ("lint", "x.mlir"), ("--nope",)],
)
def test_usage_errors_exit_2(args: tuple[str, ...]) -> None:
    result = run(*args)
    assert result.returncode == 2
    assert result.stderr.startswith("usage: python -m hostoffload")
    assert_no_traceback(result)


def test_pretty_text_on_stdin() -> None:
    jax = pytest.importorskip("jax")
    from jax.sharding import SingleDeviceSharding

    cpu = jax.devices("cpu")[0]
    host = jax.ShapeDtypeStruct(
        (4,), "float32", sharding=SingleDeviceSharding(cpu, memory_kind="pinned_host")
    )
    lowered = jax.jit(lambda x: x * 2).trace(host).lower(lowering_platforms=("tpu",))
    result = run("check", "-", stdin=lowered.as_text())
    assert result.returncode == 1, result.stderr
    assert "error: E1200: " in result.stdout


def test_version() -> None:
    result = run("--version")
    assert result.returncode == 0
    assert result.stdout.startswith("hostoffload ")


def test_internal_error_is_one_line_and_exit_2(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def broken(*args: object, **kwargs: object) -> Report:
        raise RuntimeError("boom")

    monkeypatch.setattr(cli.api, "check_named", broken)
    assert cli.main(["check", str(CLEAN)]) == 2
    assert capsys.readouterr().err == "hostoffload: internal error: RuntimeError: boom\n"
