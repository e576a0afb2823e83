"""How the commands end, as a shell sees them: Ctrl-C exits 130 with one line, a reader that
closed the output early ends ``offload-opt`` with 141 and nothing on stderr, and a script's own
error under ``hostoffload run`` is shown as ``python SCRIPT`` shows it."""

from __future__ import annotations

import fcntl
import os
import re
import signal
import subprocess
import sys
import termios
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest
from conftest import REPO_ROOT

INPUTS = REPO_ROOT / "test" / "lit" / "forms" / "Inputs"
GENERIC = INPUTS / "step.generic.mlir"
PRETTY = INPUTS / "step.pretty.mlir"


def wait_until(condition: Callable[[], bool], what: str, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            pytest.fail(f"waited {timeout} s for {what}")
        time.sleep(0.05)


def unread_bytes(pipe: int) -> int:
    count = bytearray(4)
    fcntl.ioctl(pipe, termios.FIONREAD, count)
    return int.from_bytes(count, sys.byteorder)


def children(pid: int) -> list[int]:
    """The processes whose parent is ``pid``."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        # pid (comm) state ppid ...; comm may hold blanks and parentheses.
        if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
            found.append(int(entry.name))
    return found


def interrupt(process: subprocess.Popen[bytes]) -> tuple[int, str]:
    """Ctrl-C as a terminal sends it, to the whole process group; the exit status and stderr."""
    os.killpg(process.pid, signal.SIGINT)
    _, stderr = process.communicate(timeout=60)
    return process.returncode, stderr.decode()


def start(command: Sequence[str | Path], stdin: int | None = None) -> subprocess.Popen[bytes]:
    """``command`` in a process group of its own, with Ctrl-C's default action, as a shell
    starts a job in the foreground."""
    # A suite run in the background without job control (``pytest ... &``) has SIGINT
    # ignored, which a command would inherit; a handler is not inherited through exec.
    ignored = signal.getsignal(signal.SIGINT) == signal.SIG_IGN
    if ignored:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        return subprocess.Popen(
            [str(part) for part in command],
            stdin=stdin,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=REPO_ROOT,
            start_new_session=True,
        )
    finally:
        if ignored:
            signal.signal(signal.SIGINT, signal.SIG_IGN)


@pytest.mark.parametrize(
    ("command", "program"),
    [
        (["hostoffload", "check", "-"], "hostoffload"),
        ([sys.executable, "-m", "hostoffload", "fix", "-", "--strategy", "host"], "hostoffload"),
        (["offload-opt", "--host-offload-check"], "offload-opt"),
    ],
)
def test_ctrl_c_while_reading_stdin_exits_130_with_one_line(
    command: list[str], program: str
) -> None:
    process = start(command, stdin=subprocess.PIPE)
    assert process.stdin is not None
    # A stdin that never ends: once the command has read what is there, it is in its read.
    process.stdin.write(b'"builtin.module"() ({\n')
    process.stdin.flush()
    wait_until(lambda: unread_bytes(process.stdin.fileno()) == 0, "the command to read stdin")
    assert interrupt(process) == (130, f"{program}: interrupted\n")


def test_ctrl_c_while_offload_opt_converts_exits_130_with_one_line() -> None:
    process = start(["offload-opt", PRETTY, "--host-offload-check"])
    wait_until(lambda: bool(children(process.pid)), "the converter to start")
    (converter,) = children(process.pid)
    assert interrupt(process) == (130, "offload-opt: interrupted\n")
    wait_until(lambda: not Path(f"/proc/{converter}").exists(), "the converter to end")


def test_ctrl_c_in_a_script_under_hostoffload_run_exits_130_with_one_line(
    tmp_path: Path,
) -> None:
    script = tmp_path / "train.py"
    script.write_text('import time\nprint("ready", flush=True)\ntime.sleep(600)\n')
    process = start(["hostoffload", "run", script])
    assert process.stdout is not None
    assert process.stdout.readline() == b"ready\n"
    assert interrupt(process) == (130, "hostoffload: interrupted\n")


@pytest.mark.parametrize("module", [GENERIC, PRETTY], ids=["generic", "converted"])
def test_offload_opt_exits_141_quietly_when_its_reader_is_gone(module: Path) -> None:
    """The shim is Python, which ignores SIGPIPE; the native driver it execs must not."""
    read, write = os.pipe()
    os.close(read)  # The reader is gone before anything is written, as with `| head -0`.
    try:
        result = subprocess.run(
            ["offload-opt", str(module), "--host-offload-fix=strategy=host"],
            stdout=write,
            stderr=subprocess.PIPE,
            timeout=300,
        )
    finally:
        os.close(write)
    assert (result.returncode, result.stderr) == (141, b"")


def test_offload_opt_exits_141_when_its_diagnostics_reader_is_gone(tmp_path: Path) -> None:
    read, write = os.pipe()
    os.close(read)
    try:
        result = subprocess.run(
            ["offload-opt", str(GENERIC), "--host-offload-check", "-o", str(tmp_path / "out")],
            stdout=subprocess.DEVNULL,
            stderr=write,
            timeout=300,
        )
    finally:
        os.close(write)
    assert result.returncode == 141


RAISES = """\
def load(path):
    raise FileNotFoundError(f"no checkpoint at {path}")


def main():
    load("ckpt/step_100")


main()
"""


@pytest.mark.parametrize("text", [RAISES, "def broken(:\n"], ids=["exception", "syntax-error"])
def test_run_shows_the_scripts_traceback_as_python_does(text: str, tmp_path: Path) -> None:
    script = tmp_path / "train.py"
    script.write_text(text)
    python = subprocess.run(
        [sys.executable, script.name], capture_output=True, text=True, cwd=tmp_path, timeout=120
    )
    run = subprocess.run(
        ["hostoffload", "run", script.name],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=120,
    )
    assert python.returncode == 1
    assert (run.returncode, run.stderr) == (python.returncode, python.stderr)
    assert "hostoffload" not in run.stderr and "runpy" not in run.stderr


MISMATCH_SCRIPT = """\
import jax
import jax.numpy as jnp
from jax.sharding import SingleDeviceSharding

host = SingleDeviceSharding(jax.devices("cpu")[0], memory_kind="pinned_host")
state = jax.ShapeDtypeStruct((4,), jnp.float32, sharding=host)


def compile_step():
    return jax.jit(lambda x: x * 2).lower(state).compile()  # the call


compile_step()
"""


def test_run_points_a_mismatch_at_the_scripts_call(tmp_path: Path) -> None:
    script = tmp_path / "train.py"
    script.write_text(MISMATCH_SCRIPT)
    run = subprocess.run(
        ["hostoffload", "run", script.name],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=120,
    )
    assert run.returncode == 1
    traceback, _, message = run.stderr.partition("hostoffload.compile_hook.MismatchError: ")
    # The script's frames only, ending at the line that compiles; then the report.
    files = re.findall(r'^  File "([^"]+)", line (\d+)', traceback, flags=re.MULTILINE)
    assert files == [(str(script), "13"), (str(script), "10")]
    assert "# the call" in traceback.rstrip().splitlines()[-2]  # then Python's ^^^ line
    assert "E1200" in message
