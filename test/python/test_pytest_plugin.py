"""``pytest --hostoffload``: a test during which JAX compiles a mismatch fails with the report.

Each case runs pytest in a subprocess on a small test file with real ``jax.jit`` on CPU.
"""

import pytest

pytest_plugins = ["pytester"]

TESTS = """\
import jax
import jax.numpy as jnp
from jax.sharding import SingleDeviceSharding

HOST = SingleDeviceSharding(jax.devices("cpu")[0], memory_kind="pinned_host")
STATE = jax.ShapeDtypeStruct((4,), jnp.float32, sharding=HOST)


def step(x):
    return x * 2


def test_offloaded_state_returned_as_device():
    jax.jit(step).lower(STATE).compile()


def test_offloaded_state_returned_as_host():
    jax.jit(step, out_shardings=HOST).lower(STATE).compile()


def test_plain_jit():
    assert float(jax.jit(lambda x: x + 1)(jnp.ones(()))) == 2.0
"""


@pytest.fixture
def tests(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makepyfile(test_model=TESTS)
    return pytester


@pytest.mark.usefixtures("cpu_host_memory")
def test_with_the_option_a_mismatch_fails_its_test(tests: pytest.Pytester) -> None:
    result = tests.runpytest_subprocess("--hostoffload", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=2, failed=1)
    result.stdout.fnmatch_lines(
        [
            "*_ test_offloaded_state_returned_as_device _*",
            "hostoffload: 1 program compiled by this test would fail XLA's host-offload check:",
            "*test_model.py:10:12: error: E1200: Tensor which is moved to host (starting from "
            "argument 'x')*output 0 (\"result\")*",
            "*note: path: argument 'x' -> stablehlo.multiply -> output 0",
            "jit_step: @main (TPU lowering): 1 error, 1 warning (modelled on XLA *",
            "    x = jax.device_put(x, jax.memory.Space.Device)",
            "FAILED test_model.py::test_offloaded_state_returned_as_device*",
        ]
    )


@pytest.mark.usefixtures("cpu_host_memory")
def test_ignore_and_strict_options(tests: pytest.Pytester) -> None:
    ignoring = tests.runpytest_subprocess(
        "--hostoffload", "--hostoffload-ignore", "E1200", "-p", "no:cacheprovider"
    )
    ignoring.assert_outcomes(passed=3)
    strict = tests.runpytest_subprocess(
        "--hostoffload", "--hostoffload-strict", "-p", "no:cacheprovider"
    )
    # Host compute (x * 2 on host memory) is error HOE101 in both tests that offload.
    strict.assert_outcomes(passed=1, failed=2)
    strict.stdout.fnmatch_lines(["*error: HOE101: *"])


@pytest.mark.usefixtures("cpu_host_memory")
def test_without_the_option_nothing_is_checked(tests: pytest.Pytester) -> None:
    result = tests.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=3)


def test_the_plugin_loads_neither_jax_nor_mlir(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        test_imports="""
import sys


def test_nothing_heavy_imported(pytestconfig):
    assert pytestconfig.pluginmanager.has_plugin("hostoffload")
    assert "jax" not in sys.modules
    assert "hostoffload.mlir" not in sys.modules
    assert "hostoffload.api" not in sys.modules
"""
    )
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)


def test_an_unknown_ignored_code_is_a_usage_error(tests: pytest.Pytester) -> None:
    result = tests.runpytest_subprocess("--hostoffload", "--hostoffload-ignore", "W9999")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["*--hostoffload-ignore: unknown code 'W9999'; the codes are E1200*"]
    )
