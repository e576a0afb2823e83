"""``hostoffload.testing.assert_no_mismatch``: a test fails with the report, or passes."""

from typing import Any

import pytest

import hostoffload
from hostoffload.testing import assert_no_mismatch

jax = pytest.importorskip("jax")
from jax.sharding import SingleDeviceSharding  # noqa: E402

CPU = jax.devices("cpu")[0]


def on(kind: str) -> SingleDeviceSharding:
    return SingleDeviceSharding(CPU, memory_kind=kind)


PARAMS = jax.ShapeDtypeStruct((8,), "float32", sharding=on("device"))
STATE = jax.ShapeDtypeStruct((8,), "float32", sharding=on("pinned_host"))


def step(params: Any, opt_state: Any) -> Any:
    new_state = opt_state * 0.9 + params
    return params - new_state, new_state


def test_a_mismatch_fails_with_the_report() -> None:
    with pytest.raises(AssertionError) as caught:
        assert_no_mismatch(step, PARAMS, STATE)
    message = str(caught.value)
    lines = message.splitlines()
    # The compiler-style report: code, output, Python line of this file.
    assert lines[0].startswith(f"{__file__}:")
    assert ": error: E1200: " in lines[0] and 'output 0 ("result[0]")' in lines[0]
    assert sum(": error: E1200: " in line for line in lines) == 2
    assert "@main: 2 errors, 1 warning" in message
    # One out_shardings for the whole function.
    assert "    out_shardings=(host, host)" in lines


def test_the_report_is_that_of_check_jax() -> None:
    with pytest.raises(AssertionError) as caught:
        assert_no_mismatch(step, PARAMS, STATE)
    expected = hostoffload.check_jax(step, PARAMS, STATE)
    assert str(caught.value).startswith(str(expected))


def test_declared_outputs_pass_and_return_the_report() -> None:
    report = assert_no_mismatch(
        step, PARAMS, STATE, out_shardings=(on("device"), on("pinned_host"))
    )
    assert report.ok
    assert [f.code for f in report.warnings] == ["W1201"]


def test_a_jitted_function_and_ignored_codes() -> None:
    jitted = jax.jit(step)
    with pytest.raises(AssertionError):
        assert_no_mismatch(jitted, PARAMS, STATE)
    assert assert_no_mismatch(jitted, PARAMS, STATE, ignore=["E1200"]).ok
