"""``hostoffload.watch``: every program JAX compiles is checked before XLA compiles it.

Real ``jax.jit`` on CPU. XLA:CPU compiles these programs without complaint; the watch is what
stops them. A ``pinned_host`` ``ShapeDtypeStruct`` argument returned to an output JAX declares
device memory is E1200 in the CPU lowering too.
"""

import os
import re
import subprocess
import sys
import warnings
from pathlib import Path
from typing import Any

import pytest
from conftest import REPO_ROOT

import hostoffload
from hostoffload import compile_hook
from hostoffload.compile_hook import MismatchWarning

jax = pytest.importorskip("jax")
import jax.numpy as jnp  # noqa: E402
from jax.sharding import SingleDeviceSharding  # noqa: E402

CPU = jax.devices("cpu")[0]
HOST = SingleDeviceSharding(CPU, memory_kind="pinned_host")
STATE = jax.ShapeDtypeStruct((4,), jnp.float32, sharding=HOST)


def step(x: Any) -> Any:
    return x * 2, x + 1


def test_lower_compile_of_a_mismatch_raises_instead_of_compiling() -> None:
    with hostoffload.watch() as watcher, pytest.raises(hostoffload.MismatchError) as caught:
        jax.jit(step).lower(STATE).compile()
    report = caught.value.report
    assert [(f.code, f.result_info) for f in report.errors] == [
        ("E1200", "result[0]"),
        ("E1200", "result[1]"),
    ]
    assert report.source == "jit_step"
    assert report.errors[0].location.file == __file__
    assert caught.value.outputs == ("result[0]", "result[1]")
    # The message is the report and the fix: device ops compute on x, moved to device first.
    message = str(caught.value)
    assert message.startswith(str(report))
    assert message.splitlines()[-1] == "    x = jax.device_put(x, jax.memory.Space.Device)"
    assert watcher.reports == [report]


def test_jit_calls_are_checked() -> None:
    # With a real array in host memory JAX keeps the result there: clean, except for
    # computing on host memory, which strict mode makes error HOE101.
    on_host = jax.device_put(jnp.ones(4), HOST)
    with hostoffload.watch():
        assert float(jax.jit(lambda x: x * 3)(on_host)[0]) == 3.0
    with hostoffload.watch(strict=True), pytest.raises(hostoffload.MismatchError) as caught:
        jax.jit(lambda x: x * 5)(on_host)
    assert [f.code for f in caught.value.report.errors] == ["HOE101"]


@pytest.mark.usefixtures("cpu_host_memory")
def test_programs_without_errors_compile_and_run() -> None:
    with hostoffload.watch() as watcher:
        out_shardings = (HOST, HOST)
        compiled = jax.jit(step, out_shardings=out_shardings).lower(STATE).compile()
        assert float(jax.jit(lambda x: x + 1)(jnp.zeros(()))) == 1.0
    assert compiled is not None
    assert watcher.mismatches == []


def test_warn_compiles_and_warns_at_the_callers_line() -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with hostoffload.watch("warn") as watcher:
            compiled = jax.jit(lambda x: (x, x * 7)).lower(STATE).compile()  # this line
    assert compiled is not None
    (warning,) = [w for w in caught if issubclass(w.category, MismatchWarning)]
    assert warning.filename == __file__
    assert (
        "jax.jit(lambda x: (x, x * 7))"
        in Path(__file__).read_text().splitlines()[warning.lineno - 1]
    )
    assert isinstance(warning.message, MismatchWarning)
    assert warning.message.report == watcher.reports[0]


def test_record_only_records() -> None:
    with hostoffload.watch("record") as watcher:
        jax.jit(lambda x: x - 1).lower(STATE).compile()
    assert [f.code for report in watcher.reports for f in report.errors] == ["E1200"]


def test_as_a_decorator_and_ignore() -> None:
    @hostoffload.watch()
    def compile_it() -> Any:
        return jax.jit(lambda x: x / 2).lower(STATE).compile()

    with pytest.raises(hostoffload.MismatchError):
        compile_it()
    ignoring = hostoffload.watch(ignore=["E1200"])
    assert ignoring(compile_it.__wrapped__)() is not None


def test_inner_watch_decides_and_nothing_is_checked_after() -> None:
    with hostoffload.watch(), hostoffload.watch("record") as inner:
        jax.jit(lambda x: x * 11).lower(STATE).compile()
    assert len(inner.reports) == 1
    # No watch active: the hook (still in place) lets everything through.
    assert jax.jit(lambda x: x * 13).lower(STATE).compile() is not None


def test_the_hooks_wrap_what_jax_calls_to_lower_and_compile() -> None:
    import importlib

    compile_hook.install()
    compiler = importlib.import_module(compile_hook.COMPILER_MODULE)
    hooked = getattr(compiler, compile_hook.COMPILE_FUNCTION)
    assert hooked.__wrapped__.__module__ == compile_hook.COMPILER_MODULE
    lowering = importlib.import_module(compile_hook.LOWERING_MODULE)
    hooked = getattr(lowering, compile_hook.LOWER_FUNCTION)
    assert hooked.__wrapped__.__module__ == compile_hook.LOWERING_MODULE
    computation = getattr(lowering, compile_hook.COMPUTATION_CLASS)
    assert computation.compile.__wrapped__.__module__ == compile_hook.LOWERING_MODULE


def test_the_lowering_for_tpu_is_checked_not_the_cpu_one() -> None:
    # The state moves to device, is updated there and moves back: XLA:TPU compiles this.
    # JAX drops both moves when it lowers for CPU, where the update then reads as device
    # compute on host memory returned to a device output (E1200).
    def sgd(params: Any, state: Any) -> Any:
        state = jax.device_put(state, jax.memory.Space.Device)
        state = 0.9 * state + params
        return params - 0.1 * state, jax.device_put(state, jax.memory.Space.Host)

    params = jax.ShapeDtypeStruct((4,), jnp.float32, sharding=SingleDeviceSharding(CPU))
    cpu_lowering = jax.jit(sgd).trace(params, STATE).lower()
    assert not hostoffload.check(cpu_lowering).ok
    with hostoffload.watch() as watcher:
        assert jax.jit(sgd).trace(params, STATE).lower().compile() is not None
    assert watcher.mismatches == []


@pytest.mark.parametrize("platform", ["tpu", "cuda"])
def test_the_report_names_the_platform_checked(
    platform: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    with hostoffload.watch("record", platform=platform) as watcher:  # type: ignore[arg-type]
        jax.jit(lambda x: x * 17).lower(STATE).compile()
    (report,) = watcher.reports
    assert report.platform == platform
    assert f"@main ({platform.upper()} lowering): 1 error" in str(watcher.mismatches[0])
    with pytest.raises(ValueError, match="platform must be 'tpu' or 'cuda', not 'cpu'"):
        hostoffload.watch(platform="cpu")  # type: ignore[arg-type]


def test_a_program_jax_cannot_lower_for_the_platform_warns_and_compiles() -> None:
    # JAX lowers a host callback only for the platform of the client it runs on.
    def with_callback(x: Any) -> Any:
        return jax.pure_callback(lambda v: v, jax.ShapeDtypeStruct((4,), jnp.float32), x)

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with hostoffload.watch() as watcher:
            jax.jit(with_callback).lower(jnp.zeros(4)).compile()
    assert watcher.mismatches == []
    messages = [str(w.message) for w in caught]
    assert any(
        "could not check jit_with_callback: JAX cannot lower it for tpu" in m for m in messages
    ), messages


def test_bad_action() -> None:
    with pytest.raises(ValueError, match="action must be one of error, warn, record"):
        hostoffload.watch("explode")  # type: ignore[arg-type]


def run_python(code: str, environment: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """``python -c code`` in ``environment``, its output as text."""
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=environment
    )


SCRIPT = """\
import jax
import jax.numpy as jnp
from jax.sharding import SingleDeviceSharding

import hostoffload

host = SingleDeviceSharding(jax.devices("cpu")[0], memory_kind="pinned_host")
state = jax.ShapeDtypeStruct((4,), jnp.float32, sharding=host)
try:
    jax.jit(lambda x: x * 2).lower(state).compile()
    print("compiled")
except hostoffload.MismatchError as error:
    print("stopped:", [f.code for f in error.report.errors])
"""


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("1", "stopped: ['E1200']"),
        ("error", "stopped: ['E1200']"),
        ("warn", "compiled"),
        ("0", "compiled"),
    ],
)
def test_environment_variable_watches_the_whole_script(value: str, expected: str) -> None:
    result = run_python(SCRIPT, {**os.environ, "HOSTOFFLOAD_WATCH": value})
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == expected
    assert ("MismatchWarning" in result.stderr) == (value == "warn")


def test_environment_variable_before_jax_is_imported() -> None:
    # hostoffload first: the hook goes in when JAX is imported, not before.
    script = "import sys\nimport hostoffload\nassert 'jax' not in sys.modules\n" + SCRIPT
    result = run_python(script, {**os.environ, "HOSTOFFLOAD_WATCH": "error"})
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "stopped: ['E1200']"


UNWATCHED_SCRIPT = """\
import sys

import jax
import jax.numpy as jnp
from jax.sharding import SingleDeviceSharding

host = SingleDeviceSharding(jax.devices("cpu")[0], memory_kind="pinned_host")
state = jax.ShapeDtypeStruct((4,), jnp.float32, sharding=host)
jax.jit(lambda x: x * 2).lower(state).compile()
print("compiled")
"""


def test_environment_variable_watches_a_script_that_never_imports_hostoffload() -> None:
    # The start-up hook installed with the package (hostoffload-watch.pth) starts the watch.
    watched = run_python(UNWATCHED_SCRIPT, {**os.environ, "HOSTOFFLOAD_WATCH": "error"})
    assert watched.returncode == 1
    assert "hostoffload.compile_hook.MismatchError" in watched.stderr
    assert "@main (TPU lowering): 1 error" in watched.stderr
    assert "compiled" not in watched.stdout


def test_without_the_environment_variable_nothing_is_imported_at_start_up() -> None:
    code = "import sys; print(sorted(m for m in sys.modules if m.split('.')[0] in NAMES))"
    code = code.replace("NAMES", "('hostoffload', 'jax')")
    environment = {key: value for key, value in os.environ.items() if key != "HOSTOFFLOAD_WATCH"}
    result = run_python(code, environment)
    assert result.stdout.strip() == "[]"
    watched = run_python(code, {**environment, "HOSTOFFLOAD_WATCH": "error"})
    # Watching imports hostoffload's hook, and JAX only when the script does.
    assert "'hostoffload.compile_hook'" in watched.stdout
    assert "jax" not in watched.stdout


def test_environment_platform_is_checked() -> None:
    code = SCRIPT.replace(
        'print("stopped:", [f.code for f in error.report.errors])', "print(error.report.platform)"
    )
    result = run_python(
        code, {**os.environ, "HOSTOFFLOAD_WATCH": "error", "HOSTOFFLOAD_PLATFORM": "cuda"}
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "cuda"


def test_unknown_environment_value_warns_and_does_not_watch() -> None:
    result = run_python(SCRIPT, {**os.environ, "HOSTOFFLOAD_WATCH": "loud"})
    assert result.stdout.strip() == "compiled"
    assert "HOSTOFFLOAD_WATCH='loud' is not one of 1, error, warn (or 0): not watching" in (
        result.stderr
    )


JAX_DOC = REPO_ROOT / "docs" / "jax.md"
JAX_DOC_EXAMPLES = re.findall(r"```python\n(.*?)```", JAX_DOC.read_text(), flags=re.DOTALL)


@pytest.mark.parametrize("code", JAX_DOC_EXAMPLES, ids=lambda code: code.splitlines()[-1][:40])
def test_the_examples_of_docs_jax_run(code: str) -> None:
    result = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=JAX_DOC.parents[1],
        env={key: value for key, value in os.environ.items() if key != "HOSTOFFLOAD_WATCH"},
    )
    assert result.returncode == 0, result.stderr
