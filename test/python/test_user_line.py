"""Every finding is at the user's line, on every route that lowers a program itself: no
location, note or step of a finding points into hostoffload's or JAX's own files.

The programs are JAX programs whose outputs JAX moves to another memory kind while it lowers
them (``out_shardings`` declaring an output ``unpinned_host``): the move is an op of JAX's own
making, whose location JAX takes from the innermost frame outside its files. On CPU, the watch
lowers the program again for TPU from its hook; the move then takes the user's call that made
JAX compile, not the hook's line.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import hostoffload
from hostoffload import Report

pytest_plugins = ["pytester"]

jax = pytest.importorskip("jax")
import jax.numpy as jnp  # noqa: E402
from jax.sharding import SingleDeviceSharding  # noqa: E402

CPU = jax.devices("cpu")[0]
DEVICE = SingleDeviceSharding(CPU, memory_kind="device")
UNPINNED = SingleDeviceSharding(CPU, memory_kind="unpinned_host")
X = jax.ShapeDtypeStruct((4,), jnp.float32, sharding=DEVICE)
# The files that are not the user's.
OWN_FILES = (str(Path(hostoffload.__file__).parent), str(Path(jax.__file__).parent))


def double_output(x: jax.Array) -> tuple[jax.Array, jax.Array]:
    return x * 2.0, x + 1.0


def places(report: Report) -> list[tuple[str | None, int | None]]:
    """The file and line of every location of ``report``'s findings and starts."""
    locations = [start.location for start in report.starts]
    for finding in report.findings:
        locations.append(finding.location)
        locations.extend(note.location for note in finding.notes)
        locations.extend(step.location for step in finding.path)
    return [(location.file, location.line) for location in locations]


def line_of(text: str, path: Path) -> int:
    """The number of the one line of ``path`` that contains ``text``."""
    (number,) = [n for n, line in enumerate(path.read_text().splitlines(), 1) if text in line]
    return number


@pytest.mark.usefixtures("cpu_host_memory")
def test_watch_puts_a_move_jax_inserts_at_the_users_call() -> None:
    with hostoffload.watch("record") as watcher:
        call = sys._getframe().f_lineno + 1
        jax.jit(double_output, out_shardings=(UNPINNED, DEVICE)).lower(X).compile()
    (report,) = watcher.reports
    assert [(f.code, f.output_index) for f in report.errors] == [("E1200", 0)]
    assert set(places(report)) == {(__file__, call)}


def test_check_jax_puts_it_at_the_users_call() -> None:
    # A function of its own: JAX keeps the lowerings it made, locations and all.
    def double(x: jax.Array) -> tuple[jax.Array, jax.Array]:
        return x * 2.0, x + 1.0

    call = sys._getframe().f_lineno + 1
    report = hostoffload.check_jax(double, X, out_shardings=(UNPINNED, DEVICE))
    assert [f.code for f in report.errors] == ["E1200"]
    # JAX before 0.10 gives the move it inserts no location at all; never one of ours.
    located = {place for place in places(report) if place != (None, None)}
    assert located <= {(__file__, call)}
    if jax.__version_info__ >= (0, 10):
        assert located == {(__file__, call)}


# Two programs whose output 0 JAX moves to unpinned_host while lowering them (E1200), compiled
# on CPU, where the watch lowers them again for TPU.
SCRIPT = """\
import jax
import jax.numpy as jnp
from jax.sharding import SingleDeviceSharding

import hostoffload

CPU = jax.devices("cpu")[0]
DEVICE = SingleDeviceSharding(CPU, memory_kind="device")
UNPINNED = SingleDeviceSharding(CPU, memory_kind="unpinned_host")
HOST = SingleDeviceSharding(CPU, memory_kind="pinned_host")
x = jax.ShapeDtypeStruct((4,), jnp.float32, sharding=DEVICE)


def double_output(x):
    return x * 2.0, x + 1.0


def identity_twice(x):
    return x, x


def compile_all():
    jax.jit(double_output, out_shardings=(UNPINNED, DEVICE)).lower(x).compile()  # first
    jax.jit(identity_twice, out_shardings=(UNPINNED, HOST)).lower(x).compile()  # second
"""
RECORDING_SCRIPT = (
    SCRIPT
    + """
import json
with hostoffload.watch("record") as watcher:
    compile_all()
print(json.dumps([json.loads(report.to_json()) for report in watcher.reports]))
"""
)
RAISING_SCRIPT = SCRIPT + "\ncompile_all()\n"


def python(args: list[str], cwd: Path, **variables: str) -> subprocess.CompletedProcess[str]:
    environment = {
        key: value
        for key, value in os.environ.items()
        if key not in ("HOSTOFFLOAD_WATCH", "HOSTOFFLOAD_PLATFORM")
    }
    return subprocess.run(
        [sys.executable, *args],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=cwd,
        env={**environment, **variables},
    )


@pytest.fixture
def script(tmp_path: Path) -> Path:
    path = tmp_path / "train.py"
    path.write_text(RAISING_SCRIPT)
    return path


# A finding or a note as the report's text has it: "file:line:column: severity: ...", the file
# without blanks or colons.
DIAGNOSTIC = re.compile(r"([^\s:]+):(\d+):(\d+): (?:error|warning|note): ")


def assert_at_the_users_lines(text: str, script: Path, calls: tuple[str, ...]) -> None:
    """The findings and notes of ``text`` are at the lines of ``script`` marked by ``calls``,
    each of them."""
    lines = {str(line_of(call, script)) for call in calls}
    places = {(file, line) for file, line, _ in DIAGNOSTIC.findall(text)}
    assert places == {(str(script), line) for line in lines}, text
    first = f"{script}:{line_of(calls[0], script)}:5: "
    assert f"{first}error: E1200: " in text
    assert f"{first}note: moved to host here: " in text


@pytest.mark.usefixtures("cpu_host_memory")
def test_the_environment_watch_puts_it_at_the_users_call(tmp_path: Path) -> None:
    recording = tmp_path / "record.py"
    recording.write_text(RECORDING_SCRIPT)
    result = python([str(recording)], tmp_path, HOSTOFFLOAD_WATCH="error")
    assert result.returncode == 0, result.stderr
    reports = [Report.from_json(report) for report in json.loads(result.stdout)]
    assert len(reports) == 2
    lines = {line_of("# first", recording), line_of("# second", recording)}
    assert {place for report in reports for place in places(report)} == {
        (str(recording), line) for line in lines
    }


@pytest.mark.usefixtures("cpu_host_memory")
def test_the_environment_watch_raises_at_the_users_call(script: Path) -> None:
    result = python([str(script)], script.parent, HOSTOFFLOAD_WATCH="error")
    assert result.returncode == 1
    assert "hostoffload.compile_hook.MismatchError" in result.stderr
    assert_at_the_users_lines(result.stderr, script, ("# first",))


@pytest.mark.usefixtures("cpu_host_memory")
def test_run_puts_it_at_the_users_call(script: Path) -> None:
    result = python(["-m", "hostoffload", "run", str(script)], script.parent)
    assert result.returncode == 1
    assert_at_the_users_lines(result.stderr, script, ("# first",))
    warned = python(["-m", "hostoffload", "run", "--warn", str(script)], script.parent)
    assert warned.returncode == 0, warned.stderr
    assert_at_the_users_lines(warned.stderr, script, ("# first", "# second"))


@pytest.mark.usefixtures("cpu_host_memory")
def test_the_pytest_plugin_puts_it_at_the_tests_line(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_model=SCRIPT + "\n\ndef test_compile():\n    compile_all()\n")
    result = pytester.runpytest_subprocess("--hostoffload", "-p", "no:cacheprovider")
    result.assert_outcomes(failed=1)
    test_file = pytester.path / "test_model.py"
    assert_at_the_users_lines(result.stdout.str(), test_file, ("# first", "# second"))
