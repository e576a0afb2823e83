"""The ``hostoffload`` command (``python -m hostoffload``): exit codes, stdin, the output
formats, --ignore, --warnings-as-errors, --quiet, colour, a closed pipe, ``run``, bad input."""

import json
import os
import pty
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest
from conftest import (
    CLEAN,
    EXAMPLE,
    HOST_COMPUTE_ONLY,
    MODELLED_ON_NEWEST,
    REPO_ROOT,
    run_hostoffload,
    run_offload_opt,
)
from test_report import sarif_errors

from hostoffload import Report, cli

UNPARSEABLE = '"builtin.module"() ({\n  "func.func"() : () -> (\n}) : () -> ()\n'


def assert_no_traceback(result: subprocess.CompletedProcess[str]) -> None:
    assert "Traceback" not in result.stderr + result.stdout
    assert "MLIRError" not in result.stderr + result.stdout


def summary_line(stdout: str, source: str | Path) -> str:
    (line,) = [line for line in stdout.splitlines() if line.startswith(f"{source}: @")]
    return line


def test_clean_module_exits_0() -> None:
    result = run_hostoffload("check", CLEAN)
    assert (result.returncode, result.stderr) == (0, "")
    assert result.stdout == f"{CLEAN}: @main: no errors or warnings {MODELLED_ON_NEWEST}\n"


def test_errors_exit_1_with_compiler_style_text() -> None:
    result = run_hostoffload("check", "examples/offloaded_state.mlir")
    assert result.returncode == 1
    lines = result.stdout.splitlines()
    assert lines[0].startswith("examples/offloaded_state.py:19:12: error: E1200: ")
    summary = summary_line(result.stdout, "examples/offloaded_state.mlir")
    assert (
        summary == f"examples/offloaded_state.mlir: @main: 2 errors, 1 warning {MODELLED_ON_NEWEST}"
    )


def test_text_ends_with_the_fix_in_jax() -> None:
    result = run_hostoffload("check", "examples/offloaded_state.mlir")
    lines = result.stdout.splitlines()
    heading = lines.index("examples/offloaded_state.mlir: fix in JAX:")
    assert lines[heading + 1].startswith("    # examples/offloaded_state.py:18: ")
    assert (
        lines[heading + 2] == "    opt_state = jax.device_put(opt_state, jax.memory.Space.Device)"
    )


def test_warnings_alone_exit_0_and_strict_makes_them_errors() -> None:
    assert run_hostoffload("check", HOST_COMPUTE_ONLY).returncode == 0
    strict = run_hostoffload("check", "--strict", HOST_COMPUTE_ONLY)
    assert strict.returncode == 1
    assert ": error: HOE101: " in strict.stdout


def test_stdin() -> None:
    result = run_hostoffload("check", "-", stdin=EXAMPLE.read_text())
    assert result.returncode == 1
    assert (
        summary_line(result.stdout, "<stdin>")
        == f"<stdin>: @main: 2 errors, 1 warning {MODELLED_ON_NEWEST}"
    )


@pytest.mark.parametrize("option", [("--json",), ("--format", "json")])
def test_json_lines_one_report_per_file(option: tuple[str, ...]) -> None:
    result = run_hostoffload("check", *option, EXAMPLE, CLEAN)
    assert result.returncode == 1
    first, second = (Report.from_json(line) for line in result.stdout.splitlines())
    assert [f.output_index for f in first.errors] == [0, 1]
    assert (first.source, second.source) == (str(EXAMPLE), str(CLEAN))
    assert second.ok


@pytest.mark.parametrize("option", [("--sarif",), ("--format", "sarif")])
def test_sarif_for_several_files(option: tuple[str, ...]) -> None:
    result = run_hostoffload("check", *option, EXAMPLE, CLEAN)
    assert result.returncode == 1
    log = json.loads(result.stdout)
    assert sarif_errors(log) == []
    results = log["runs"][0]["results"]
    assert [r["ruleId"] for r in results] == ["E1200", "E1200", "HOW101"]


def test_sarif_names_files_relative_to_the_repository() -> None:
    # The tests run in a git checkout: the example is under its root.
    log = json.loads(run_hostoffload("check", "--format", "sarif", EXAMPLE).stdout)
    assert sarif_errors(log) == []
    (run_log,) = log["runs"]
    assert run_log["originalUriBaseIds"] == {"SRCROOT": {"uri": f"{REPO_ROOT.as_uri()}/"}}
    first = run_log["results"][0]
    assert first["analysisTarget"] == {
        "uri": "examples/offloaded_state.mlir",
        "uriBaseId": "SRCROOT",
    }
    assert first["locations"][0]["physicalLocation"]["artifactLocation"] == {
        "uri": "examples/offloaded_state.py",
        "uriBaseId": "SRCROOT",
    }


def test_github_annotations() -> None:
    result = run_hostoffload("check", "--format", "github", EXAMPLE)
    assert result.returncode == 1
    lines = result.stdout.splitlines()
    assert [line.split(" ", 1)[0] for line in lines] == ["::error", "::error", "::warning"]
    assert lines[0].startswith(
        "::error file=examples/offloaded_state.py,line=19,col=12,title=E1200%3A A tensor moved "
        "to host memory reaches an entry output not declared pinned_host::E1200: Tensor which"
    )
    # The notes ride along after an escaped newline.
    assert "%0Anote: in host memory from the start: argument 'opt_state'" in lines[0]
    assert "\n" not in lines[0]


def test_github_annotation_of_bad_input() -> None:
    result = run_hostoffload("check", "--format", "github", "-", stdin=UNPARSEABLE)
    assert result.returncode == 2
    assert result.stdout == ("::error file=<stdin>,line=2,col=26::expected non-function type\n")


def test_ignore_drops_a_code_and_its_exit_status() -> None:
    result = run_hostoffload("check", "--ignore", "E1200", "--ignore", "w1201", EXAMPLE)
    assert result.returncode == 0
    assert result.stdout == f"{EXAMPLE}: @main: no errors or warnings {MODELLED_ON_NEWEST}\n"


def test_ignore_of_a_former_code_names_the_code_it_became() -> None:
    result = run_hostoffload("check", "--ignore", "W1201", HOST_COMPUTE_ONLY)
    assert result.returncode == 0
    assert "HOW101" not in result.stdout
    assert (
        result.stderr
        == "hostoffload: --ignore W1201: the code is HOW101 now (docs/diagnostics.md)\n"
    )


def test_ignore_of_an_unknown_code_is_a_usage_error() -> None:
    result = run_hostoffload("check", "--ignore", "W9999", EXAMPLE)
    assert result.returncode == 2
    assert "unknown code 'W9999'; the codes are E1200, HOE102, " in result.stderr
    assert "HOW101, HOE101, HOW102" in result.stderr
    assert_no_traceback(result)


def test_warnings_as_errors() -> None:
    assert run_hostoffload("check", HOST_COMPUTE_ONLY).returncode == 0
    result = run_hostoffload("check", "--warnings-as-errors", HOST_COMPUTE_ONLY)
    assert result.returncode == 1
    assert ": error: HOW101: " in result.stdout
    assert ": warning: " not in result.stdout
    sarif = json.loads(
        run_hostoffload("check", "--sarif", "--warnings-as-errors", HOST_COMPUTE_ONLY).stdout
    )
    assert {r["level"] for r in sarif["runs"][0]["results"]} == {"error"}


def test_quiet_prints_the_findings_only() -> None:
    assert run_hostoffload("check", "--quiet", CLEAN).stdout == ""
    result = run_hostoffload("check", "-q", EXAMPLE)
    assert result.returncode == 1
    lines = result.stdout.splitlines()
    assert sum(not line.startswith("  ") for line in lines) == 3
    assert all(": error: " in line or ": warning: " in line or ": note: " in line for line in lines)


def run_on_a_terminal(*args: str, env: dict[str, str]) -> str:
    """The output of ``python -m hostoffload ARGS`` written to a pseudo-terminal."""
    leader, follower = pty.openpty()
    with subprocess.Popen(
        [sys.executable, "-m", "hostoffload", *args],
        stdout=follower,
        stderr=subprocess.DEVNULL,
        cwd=REPO_ROOT,
        env={**os.environ, "TERM": "xterm", **env},
    ) as process:
        os.close(follower)
        chunks = []
        while True:
            try:
                chunk = os.read(leader, 65536)
            except OSError:  # the terminal is gone once the process has exited
                break
            if not chunk:
                break
            chunks.append(chunk)
        process.wait(timeout=120)
    os.close(leader)
    return b"".join(chunks).decode()


def test_colour_on_a_terminal_unless_no_color() -> None:
    env = {key: value for key, value in os.environ.items() if key != "NO_COLOR"}
    coloured = run_on_a_terminal("check", str(EXAMPLE), env={**env, "NO_COLOR": ""})
    assert "\033[1;31merror:\033[0m" in coloured
    assert "\033[1;35mwarning:\033[0m" in coloured
    plain = run_on_a_terminal("check", str(EXAMPLE), env={"NO_COLOR": "1"})
    assert "\033[" not in plain and ": error: E1200: " in plain
    # Not a terminal: no colour.
    assert "\033[" not in run_hostoffload("check", EXAMPLE).stdout


def test_closed_pipe_ends_quietly() -> None:
    process = subprocess.Popen(
        [sys.executable, "-m", "hostoffload", "check", "--format", "sarif", str(EXAMPLE)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=REPO_ROOT,
    )
    assert process.stdout is not None and process.stderr is not None
    # The reader goes away before the command has written anything, as `| head -0` would.
    process.stdout.close()
    stderr = process.stderr.read().decode()
    process.stderr.close()
    assert process.wait(timeout=120) == 128 + 13  # 128 + SIGPIPE
    assert stderr == ""


def test_console_script() -> None:
    script = Path(sysconfig.get_path("scripts")) / "hostoffload"
    result = subprocess.run([script, "check", EXAMPLE], capture_output=True, text=True, timeout=120)
    assert result.returncode == 1
    assert result.stdout.startswith("examples/offloaded_state.py:19:12: error: E1200: ")


RUN_SCRIPT = """\
import sys

import jax
import jax.numpy as jnp
from jax.sharding import SingleDeviceSharding

host = SingleDeviceSharding(jax.devices("cpu")[0], memory_kind="pinned_host")
state = jax.ShapeDtypeStruct((4,), jnp.float32, sharding=host)
jax.jit(lambda x: x * 2).lower(state).compile()
print("compiled", sys.argv[1:])
"""


def test_run_checks_what_the_script_compiles(tmp_path: Path) -> None:
    script = tmp_path / "train.py"
    script.write_text(RUN_SCRIPT)
    result = run_hostoffload("run", script, "--steps", "3")
    assert result.returncode == 1
    assert "hostoffload.compile_hook.MismatchError: " in result.stderr
    assert f"{script}:9:19: error: E1200: " in result.stderr
    assert "compiled" not in result.stdout

    warned = run_hostoffload("run", "--warn", script, "--steps", "3")
    assert warned.returncode == 0, warned.stderr
    assert warned.stdout == "compiled ['--steps', '3']\n"
    assert "MismatchWarning" in warned.stderr


def test_run_without_the_script_exits_2() -> None:
    result = run_hostoffload("run", "missing.py")
    assert (result.returncode, result.stderr) == (
        2,
        "missing.py: error: cannot run the script: no such file\n",
    )


def test_missing_file_exits_2() -> None:
    result = run_hostoffload("check", "missing.mlir")
    assert result.returncode == 2
    assert result.stderr == "missing.mlir: error: cannot read the file: No such file or directory\n"
    assert result.stdout == ""


def test_unparseable_text_exits_2_with_the_located_message() -> None:
    result = run_hostoffload("check", "-", stdin=UNPARSEABLE)
    assert result.returncode == 2
    assert result.stderr == "<stdin>:2:26: error: expected non-function type\n"
    assert_no_traceback(result)


def test_no_entry_function_exits_2() -> None:
    result = run_hostoffload("check", "--entry", "absent", EXAMPLE)
    assert result.returncode == 2
    assert result.stderr.startswith(f"{EXAMPLE}: error: entry function '@absent'")


def test_bad_input_among_good_still_reports_the_good_and_exits_2() -> None:
    result = run_hostoffload("check", "--json", CLEAN, "-", stdin=UNPARSEABLE)
    assert result.returncode == 2
    good, bad = (json.loads(line) for line in result.stdout.splitlines())
    assert Report.from_json(good).ok
    assert bad["source"] == "<stdin>"
    assert "errors" not in bad
    assert bad["input_errors"][0]["location"]["line"] == 2
    assert_no_traceback(result)


def test_sarif_reports_bad_input_as_a_failed_execution() -> None:
    result = run_hostoffload("check", "--sarif", CLEAN, "missing.mlir")
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
    result = run_hostoffload(*args)
    assert result.returncode == 2
    assert result.stderr.startswith("usage: hostoffload")
    assert_no_traceback(result)


def test_pretty_text_on_stdin() -> None:
    jax = pytest.importorskip("jax")
    from jax.sharding import SingleDeviceSharding

    cpu = jax.devices("cpu")[0]
    host = jax.ShapeDtypeStruct(
        (4,), "float32", sharding=SingleDeviceSharding(cpu, memory_kind="pinned_host")
    )
    lowered = jax.jit(lambda x: x * 2).trace(host).lower(lowering_platforms=("tpu",))
    result = run_hostoffload("check", "-", stdin=lowered.as_text())
    assert result.returncode == 1, result.stderr
    assert "error: E1200: " in result.stdout


def test_version() -> None:
    result = run_hostoffload("--version")
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


def test_json_locations_count_columns_from_1() -> None:
    (line,) = run_hostoffload("check", "--json", EXAMPLE).stdout.splitlines()
    location = json.loads(line)["findings"][0]["location"]
    assert (location["file"], location["line"], location["column"]) == (
        "examples/offloaded_state.py",
        19,
        12,
    )


def test_json_locations_table_is_an_option() -> None:
    result = run_hostoffload("check", "--json", "--json-locations", "table", EXAMPLE)
    (line,) = result.stdout.splitlines()
    report = json.loads(line)
    location = report["locations"][report["findings"][0]["location"]]
    assert (location["line"], location["column"]) == (19, 12)
    assert Report.from_json(line) == Report.from_json(
        run_hostoffload("check", "--json", EXAMPLE).stdout
    )


def jq_example() -> tuple[str, list[str]]:
    """The jq command of docs/ci.md and the lines it is said to print."""
    text = (REPO_ROOT / "docs" / "ci.md").read_text()
    block = text.split("```sh\nhostoffload check --json ", 1)[1].split("```", 1)[0]
    command, *printed = block.strip().splitlines()
    return "hostoffload check --json " + command, [line.removeprefix("# ") for line in printed]


def test_the_jq_example_of_the_docs_prints_file_and_line_of_each_finding() -> None:
    """The filter of docs/ci.md, run by jq where it is installed; in Python, the same path
    through the JSON of each finding gives what the docs say it prints."""
    command, printed = jq_example()
    assert command.startswith("hostoffload check --json examples/offloaded_state.mlir | ")
    program = command.split("jq -r ", 1)[1].strip("'")
    data = run_hostoffload("check", "--json", EXAMPLE).stdout
    findings = [finding for line in data.splitlines() for finding in json.loads(line)["findings"]]
    assert [
        f"{f['location']['file']}:{f['location']['line']}: {f['code']}" for f in findings
    ] == printed
    if shutil.which("jq") is None:
        return
    result = subprocess.run(
        ["jq", "-r", program], input=data, capture_output=True, text=True, check=True
    )
    assert result.stdout.splitlines() == printed


def test_a_directory_checks_the_dump_files_in_it(tmp_path: Path) -> None:
    dump = tmp_path / "dump"
    (dump / "a").mkdir(parents=True)
    (dump / "a" / "step.mlir").write_text(EXAMPLE.read_text())
    (dump / "clean.mlir").write_text(CLEAN.read_text())
    (dump / "notes.txt").write_text("not a dump file")
    result = run_hostoffload("check", "--json", dump)
    assert result.returncode == 1, result.stderr
    reports = [Report.from_json(line) for line in result.stdout.splitlines()]
    assert [report.source for report in reports] == [
        str(dump / "a" / "step.mlir"),
        str(dump / "clean.mlir"),
    ]
    assert [report.ok for report in reports] == [False, True]


def test_a_directory_without_dump_files_exits_2(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("not a dump file")
    result = run_hostoffload("check", tmp_path)
    assert result.returncode == 2
    (line,) = result.stderr.splitlines()
    assert line.startswith(f"{tmp_path}: error: no dump files found in this directory or below")
    assert "looked for *.before_optimizations.txt" in line and " and *.mlir " in line
    assert_no_traceback(result)


def test_python_source_exits_2_and_is_pointed_at_run(tmp_path: Path) -> None:
    script = tmp_path / "train.py"
    script.write_text(RUN_SCRIPT)
    for result in (run_hostoffload("check", script), run_offload_opt(script)):
        assert result.returncode == 2
        assert result.stderr.startswith(f"{script}: error: this is Python source, not a module")
        assert f"(hostoffload run {script})" in result.stderr
        assert "hostoffload.check_jax" in result.stderr
        assert_no_traceback(result)
