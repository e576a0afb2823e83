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
from hostoffload.compile_hook import HOOKED_FUNCTION, HOOKED_MODULE, MismatchWarning

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
    # The message is the report and the fix: every output fails, so one host for all.
    message = str(caught.value)
    assert message.startswith(str(report))
    assert message.splitlines()[-1] == "    out_shardings=host"
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


def test_the_hook_wraps_what_jax_calls_to_compile() -> None:
    import importlib

    hostoffload.compile_hook.install()
    hooked = getattr(importlib.import_module(HOOKED_MODULE), HOOKED_FUNCTION)
    assert hooked.__wrapped__.__module__ == HOOKED_MODULE


def test_bad_action() -> None:
    with pytest.raises(ValueError, match="action must be one of error, warn, record"):
        hostoffload.watch("explode")  # type: ignore[arg-type]


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
    result = subprocess.run(
        [sys.executable, "-c", SCRIPT],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "HOSTOFFLOAD_WATCH": value},
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == expected
    assert ("MismatchWarning" in result.stderr) == (value == "warn")


def test_environment_variable_before_jax_is_imported() -> None:
    # hostoffload first: the hook goes in when JAX is imported, not before.
    script = "import sys\nimport hostoffload\nassert 'jax' not in sys.modules\n" + SCRIPT
    result = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "HOSTOFFLOAD_WATCH": "error"},
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "stopped: ['E1200']"


def test_unknown_environment_value_warns_and_does_not_watch() -> None:
    result = subprocess.run(
        [sys.executable, "-c", SCRIPT],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "HOSTOFFLOAD_WATCH": "loud"},
    )
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
