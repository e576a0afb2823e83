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
    assert "@main (TPU lowering): 2 errors, 1 warning" in message
    # The fix: the state, computed on by device ops, moved to device where first used.
    assert "    opt_state = jax.device_put(opt_state, jax.memory.Space.Device)" in lines


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
    assert [f.code for f in report.warnings] == ["HOW101"]


def test_a_jitted_function_and_ignored_codes() -> None:
    jitted = jax.jit(step)
    with pytest.raises(AssertionError):
        assert_no_mismatch(jitted, PARAMS, STATE)
    assert assert_no_mismatch(jitted, PARAMS, STATE, ignore=["E1200"]).ok


# --- Which JAX code paths produce E1200 (docs/jax.md lists these, measured with jax 0.10.2) --

MESH = jax.sharding.Mesh(jax.devices("cpu")[:1], ("d",))
NAMED_HOST = jax.sharding.NamedSharding(
    MESH, jax.sharding.PartitionSpec(), memory_kind="pinned_host"
)
DEVICE_STATE = jax.ShapeDtypeStruct((8,), "float32", sharding=on("device"))


def to_host(x: Any) -> Any:
    return jax.device_put(x, jax.memory.Space.Host)


@pytest.mark.parametrize(
    ("fn", "args", "jit_kwargs", "fails"),
    [
        # A pinned_host argument on a SingleDeviceSharding, returned computed or as it is.
        (lambda x: x * 2, (STATE,), {}, True),
        (lambda x: x, (STATE,), {}, True),
        # The same on a NamedSharding: JAX declares the result pinned_host itself.
        (lambda x: x * 2, (jax.ShapeDtypeStruct((8,), "float32", sharding=NAMED_HOST),), {}, False),
        # An output declared unpinned_host (XLA's memory space 6, not host memory to XLA).
        (lambda x: x * 2, (STATE,), {"out_shardings": on("unpinned_host")}, True),
        # out_shardings on device: JAX moves the value back itself.
        (lambda x: x * 2, (STATE,), {"out_shardings": on("device")}, False),
        # Mixed memory spaces in one op: with ShapeDtypeStructs JAX lowers it (E1200 then).
        (lambda a, b: a + b, (STATE, PARAMS), {}, True),
        # A move to host inside jit that is returned: JAX declares the output pinned_host.
        (lambda x: to_host(x * 2), (DEVICE_STATE,), {}, False),
        (lambda x: (x, to_host(x * 2) + 1), (DEVICE_STATE,), {}, False),
    ],
    ids=[
        "single-device-host-arg",
        "single-device-host-arg-returned",
        "named-sharding-host-arg",
        "unpinned-host-output",
        "device-out-shardings",
        "mixed-memory-spaces",
        "device-put-host-returned",
        "device-put-host-in-tuple",
    ],
)
def test_jax_code_paths(
    fn: Any, args: tuple[Any, ...], jit_kwargs: dict[str, Any], fails: bool
) -> None:
    report = hostoffload.check_jax(fn, *args, **jit_kwargs)
    assert any(f.code == "E1200" for f in report.errors) == fails


def test_real_arrays_in_mixed_memory_spaces_fail_at_trace_time() -> None:
    on_host = jax.device_put(jax.numpy.ones(8), on("pinned_host"))
    on_device = jax.device_put(jax.numpy.ones(8), on("device"))
    with pytest.raises(ValueError, match="memory_space of all inputs passed to `add` must be"):
        jax.jit(lambda a, b: a + b)(on_host, on_device)


@pytest.mark.usefixtures("cpu_host_memory")
def test_a_real_host_array_keeps_its_result_in_host_memory() -> None:
    on_host = jax.device_put(jax.numpy.ones(8), on("pinned_host"))
    assert jax.jit(lambda x: x * 2)(on_host).sharding.memory_kind == "pinned_host"
