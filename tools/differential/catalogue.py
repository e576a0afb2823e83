"""The catalogue of JAX programs compared against XLA:TPU by ``run.py``.

The first programs are JAX's common offload patterns (placements, out_shardings, calls); the
others add more placements, loops, remat policies, pytrees and slices. Programs are built
for the device given to :func:`programs`: one TPU device of a compile-only topology (run.py)
or the CPU device (test_cpu_routes.py). No verdict is written here: XLA is the oracle.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

import jax
import jax.numpy as jnp
from jax import lax
from jax.ad_checkpoint import checkpoint_name
from jax.experimental.compute_on import compute_on
from jax.sharding import SingleDeviceSharding

F32 = jnp.float32
VEC = (8,)

_DEVICE: Any = None


def sharding(kind: str) -> SingleDeviceSharding:
    """A sharding on the configured device in memory kind ``kind``."""
    if _DEVICE is None:
        raise RuntimeError("catalogue.programs(device) must be called first")
    return SingleDeviceSharding(_DEVICE, memory_kind=kind)


def dev() -> SingleDeviceSharding:
    return sharding("device")


def pinned() -> SingleDeviceSharding:
    return sharding("pinned_host")


def unpinned() -> SingleDeviceSharding:
    return sharding("unpinned_host")


def arg(kind: str, shape: tuple[int, ...] = VEC, dtype: Any = F32) -> jax.ShapeDtypeStruct:
    """An abstract argument placed in memory kind ``kind`` on the configured device."""
    return jax.ShapeDtypeStruct(shape, dtype, sharding=sharding(kind))


@dataclass(frozen=True)
class Program:
    name: str
    fn: Callable[..., Any]
    args: tuple[Any, ...]
    description: str
    jit_kwargs: dict[str, Any] = field(default_factory=dict)


# --- pinned_host arguments -------------------------------------------------------------------


def scale(x: jax.Array) -> jax.Array:
    return x * 2.0


def scale_and_shift(x: jax.Array, y: jax.Array) -> tuple[jax.Array, jax.Array]:
    return x * 2.0, x + y


def identity(x: jax.Array) -> jax.Array:
    return x


def twice(x: jax.Array) -> tuple[jax.Array, jax.Array]:
    return x, x


def three_outputs(x: jax.Array, y: jax.Array) -> tuple[jax.Array, jax.Array, jax.Array]:
    return x * 2.0, x + 1.0, y * 3.0


def to_device(x: jax.Array) -> jax.Array:
    return jax.device_put(x, dev()) * 2.0


def reshape_host(x: jax.Array) -> jax.Array:
    return x.reshape(2, 4)


def reduce_host(x: jax.Array) -> jax.Array:
    return jnp.sum(x)


def sort_host(x: jax.Array) -> jax.Array:
    return jnp.sort(x)


def offloaded_state_step(params: jax.Array, opt_state: jax.Array) -> tuple[jax.Array, jax.Array]:
    """examples/offloaded_state.py."""
    new_state = opt_state * 0.9 + params
    return params - new_state, new_state


# --- unpinned_host outputs --------------------------------------------------------------------


def double_output(x: jax.Array) -> tuple[jax.Array, jax.Array]:
    return x * 2.0, x + 1.0


# --- device_put inside jit --------------------------------------------------------------------


def put_host(x: jax.Array) -> jax.Array:
    return jax.device_put(x * 2.0, pinned())


def put_unpinned(x: jax.Array) -> jax.Array:
    return jax.device_put(x * 2.0, unpinned())


def put_unpinned_two_outputs(x: jax.Array) -> tuple[jax.Array, jax.Array]:
    return jax.device_put(x * 2.0, unpinned()), x + 1.0


def put_host_space(x: jax.Array) -> tuple[jax.Array, jax.Array]:
    y = jax.device_put(x, jax.memory.Space.Host)
    return y * 2.0, jax.device_put(y, jax.memory.Space.Device) + 1.0


def put_host_and_back(x: jax.Array) -> tuple[jax.Array, jax.Array]:
    y = jax.device_put(x * 2.0, pinned())
    return y, jax.device_put(y, dev()) + 1.0


def put_host_compute_on_it(x: jax.Array) -> jax.Array:
    return jax.device_put(x, pinned()) * 2.0


def put_host_compute_then_device(x: jax.Array) -> jax.Array:
    return jax.device_put(jax.device_put(x, pinned()) * 2.0, dev())


def scan_offload_ys(x: jax.Array) -> tuple[jax.Array, jax.Array]:
    def body(carry: jax.Array, _: None) -> tuple[jax.Array, jax.Array]:
        carry = jnp.sin(carry)
        return carry, jax.device_put(carry, pinned())

    return lax.scan(body, x, None, length=3)


# --- compute_on ----------------------------------------------------------------------------


@compute_on("device_host")
@jax.jit
def host_sine(x: jax.Array) -> jax.Array:
    return jnp.sin(x)


def compute_on_host(x: jax.Array) -> jax.Array:
    return host_sine(x) + 1.0


def compute_on_host_to_host(x: jax.Array) -> jax.Array:
    return host_sine(x)


def compute_on_host_arg(x: jax.Array) -> jax.Array:
    return host_sine(x)


def compute_on_host_arg_then_device(x: jax.Array) -> tuple[jax.Array, jax.Array]:
    y = host_sine(x)
    return y, jax.device_put(y, dev()) + 1.0


# --- remat offload ---------------------------------------------------------------------------

OFFLOAD_X = jax.checkpoint_policies.save_and_offload_only_these_names(
    names_which_can_be_saved=[],
    names_which_can_be_offloaded=["x"],
    offload_src="device",
    offload_dst="pinned_host",
)

OFFLOAD_DOTS = jax.checkpoint_policies.offload_dot_with_no_batch_dims(
    offload_src="device", offload_dst="pinned_host"
)


def layer(w: jax.Array, h: jax.Array) -> jax.Array:
    h = checkpoint_name(jnp.sin(h @ w), "x")
    return jnp.sin(h)


def scan_loss(w: jax.Array, h0: jax.Array) -> jax.Array:
    def body(h: jax.Array, _: None) -> tuple[jax.Array, None]:
        return jax.checkpoint(layer, policy=OFFLOAD_X)(w, h), None

    h, _ = lax.scan(body, h0, None, length=3)
    return jnp.sum(h)


def scan_loss_dots(w: jax.Array, h0: jax.Array) -> jax.Array:
    def body(h: jax.Array, _: None) -> tuple[jax.Array, None]:
        return jax.checkpoint(layer, policy=OFFLOAD_DOTS)(w, h), None

    h, _ = lax.scan(body, h0, None, length=3)
    return jnp.sum(h)


def fori_loss(w: jax.Array, h0: jax.Array) -> jax.Array:
    def body(_: int, h: jax.Array) -> jax.Array:
        return jax.checkpoint(layer, policy=OFFLOAD_X)(w, h)

    return jnp.sum(lax.fori_loop(0, 3, body, h0))


def fori_loss_dots(w: jax.Array, h0: jax.Array) -> jax.Array:
    def body(_: int, h: jax.Array) -> jax.Array:
        return jax.checkpoint(layer, policy=OFFLOAD_DOTS)(w, h)

    return jnp.sum(lax.fori_loop(0, 3, body, h0))


def plain_loss(w: jax.Array, h0: jax.Array) -> jax.Array:
    h = jax.checkpoint(layer, policy=OFFLOAD_X)(w, h0)
    return jnp.sum(jax.checkpoint(layer, policy=OFFLOAD_X)(w, h))


def scan_value_and_grad(w: jax.Array, h0: jax.Array) -> tuple[jax.Array, jax.Array]:
    return jax.value_and_grad(scan_loss)(w, h0)


def scan_grad_both(w: jax.Array, h0: jax.Array) -> tuple[jax.Array, jax.Array]:
    return jax.grad(scan_loss, argnums=(0, 1))(w, h0)


def host_weights_loss(w: jax.Array, h0: jax.Array) -> jax.Array:
    return scan_loss(jax.device_put(w, dev()), h0)


# --- control flow ----------------------------------------------------------------------------


def while_host_carry(x: jax.Array) -> tuple[jax.Array, jax.Array]:
    def cond(c: tuple[jax.Array, jax.Array]) -> jax.Array:
        return c[0] < 3

    def body(c: tuple[jax.Array, jax.Array]) -> tuple[jax.Array, jax.Array]:
        return c[0] + 1, c[1] * 1.5

    return lax.while_loop(cond, body, (jnp.int32(0), x))


def while_host_carry_to_device(x: jax.Array) -> tuple[jax.Array, jax.Array]:
    i, h = while_host_carry(x)
    return i, jax.device_put(h, dev())


def while_host_passthrough(x: jax.Array, y: jax.Array) -> tuple[jax.Array, jax.Array]:
    def cond(c: tuple[jax.Array, jax.Array, jax.Array]) -> jax.Array:
        return c[0] < 3

    def body(c: tuple[jax.Array, jax.Array, jax.Array]) -> tuple[jax.Array, jax.Array, jax.Array]:
        return c[0] + 1, c[1], c[2] + jax.device_put(c[1], dev())

    _, h, acc = lax.while_loop(cond, body, (jnp.int32(0), x, y))
    return h, acc


def fori_stream_into_host(buf: jax.Array, x: jax.Array) -> jax.Array:
    def body(i: jax.Array, b: jax.Array) -> jax.Array:
        return lax.dynamic_update_slice(b, jnp.sin(x) * i.astype(F32), (i, 0))

    return lax.fori_loop(0, 4, body, buf)


def scan_over_host_xs(xs: jax.Array, c0: jax.Array) -> jax.Array:
    def body(c: jax.Array, x: jax.Array) -> tuple[jax.Array, None]:
        return c + x, None

    c, _ = lax.scan(body, c0, xs)
    return c


def scan_over_host_xs_to_device(xs: jax.Array, c0: jax.Array) -> jax.Array:
    def body(c: jax.Array, x: jax.Array) -> tuple[jax.Array, None]:
        return c + jax.device_put(x, dev()), None

    c, _ = lax.scan(body, c0, xs)
    return c


def cond_host(p: jax.Array, x: jax.Array, y: jax.Array) -> tuple[jax.Array, jax.Array]:
    return lax.cond(p, lambda a, b: (a * 2.0, b), lambda a, b: (a + 1.0, b * 3.0), x, y)


def cond_host_to_device(p: jax.Array, x: jax.Array, y: jax.Array) -> tuple[jax.Array, jax.Array]:
    a, b = cond_host(p, x, y)
    return jax.device_put(a, dev()), b


def cond_offload_in_branches(p: jax.Array, x: jax.Array) -> tuple[jax.Array, jax.Array]:
    def yes(a: jax.Array) -> tuple[jax.Array, jax.Array]:
        return jax.device_put(a * 2.0, pinned()), a

    def no(a: jax.Array) -> tuple[jax.Array, jax.Array]:
        return jax.device_put(a + 1.0, pinned()), a * 3.0

    return lax.cond(p, yes, no, x)


def switch_host(i: jax.Array, x: jax.Array, y: jax.Array) -> tuple[jax.Array, jax.Array]:
    branches = [
        lambda a, b: (a, b),
        lambda a, b: (b, a),
        lambda a, b: (a * 2.0, b * 2.0),
    ]
    return lax.switch(i, branches, x, y)


# --- calls, pytrees, barriers, slices ---------------------------------------------------------


@jax.jit
def inner_double(a: jax.Array) -> jax.Array:
    return a * 2.0


@jax.jit
def inner_increment(a: jax.Array) -> jax.Array:
    return a + 1.0


@jax.jit
def inner_offload(a: jax.Array) -> jax.Array:
    return jax.device_put(a * 2.0, pinned())


@jax.jit
def inner_pair(a: jax.Array, b: jax.Array) -> tuple[jax.Array, jax.Array]:
    return b, a


def nested_jit(x: jax.Array, y: jax.Array) -> tuple[jax.Array, jax.Array]:
    return inner_double(x), inner_increment(y)


def nested_jit_shared_callee(x: jax.Array, y: jax.Array) -> tuple[jax.Array, jax.Array]:
    return inner_double(x), inner_double(y)


def nested_jit_offload_inside(x: jax.Array) -> tuple[jax.Array, jax.Array]:
    return inner_offload(x), x + 1.0


def nested_jit_swap(x: jax.Array, y: jax.Array) -> tuple[jax.Array, jax.Array]:
    return inner_pair(x, y)


def nested_jit_twice_deep(x: jax.Array, y: jax.Array) -> tuple[jax.Array, jax.Array]:
    return inner_double(inner_increment(x)), inner_increment(inner_double(y))


def optimizer_step(p: dict[str, jax.Array]) -> dict[str, jax.Array]:
    return {
        "w": p["w"] - 0.1 * p["g"],
        "m": 0.9 * p["m"] + p["g"],
        "v": 0.99 * p["v"] + p["g"] * p["g"],
        "g": p["g"] * 0.0,
        "step": p["step"] + 1,
        "ema": p["ema"] * 0.5,
    }


def opt_state() -> dict[str, jax.ShapeDtypeStruct]:
    return {
        "w": arg("device"),
        "m": arg("pinned_host"),
        "v": arg("pinned_host"),
        "g": arg("device"),
        "step": arg("device", (), jnp.int32),
        "ema": arg("pinned_host"),
    }


def many_layers_step(
    params: list[dict[str, jax.Array]], grads: list[dict[str, jax.Array]]
) -> tuple[list[dict[str, jax.Array]], jax.Array]:
    new = [{k: p[k] - 0.01 * g[k] for k in p} for p, g in zip(params, grads, strict=True)]
    norm = sum(jnp.sum(g["w"] * g["w"]) for g in grads)
    return new, jnp.asarray(norm)


def many_layers_args() -> tuple[list[dict[str, jax.ShapeDtypeStruct]], ...]:
    params = [
        {"w": arg("pinned_host" if i % 2 else "device"), "b": arg("device")} for i in range(6)
    ]
    grads = [{"w": arg("device"), "b": arg("device")} for _ in range(6)]
    return params, grads


def barrier(x: jax.Array, y: jax.Array) -> tuple[jax.Array, jax.Array]:
    return lax.optimization_barrier((x, y))


def barrier_offload(x: jax.Array, y: jax.Array) -> tuple[jax.Array, jax.Array]:
    a, b = lax.optimization_barrier((jax.device_put(x * 2.0, pinned()), y))
    return a, b + 1.0


def dynamic_slice_host(x: jax.Array, i: jax.Array) -> jax.Array:
    return lax.dynamic_slice(x, (i,), (4,))


def dynamic_slice_and_return(x: jax.Array, i: jax.Array) -> tuple[jax.Array, jax.Array]:
    return lax.dynamic_slice(x, (i,), (4,)), x


def static_slice_host(x: jax.Array) -> jax.Array:
    return x[2:6]


def slice_then_compute(x: jax.Array) -> tuple[jax.Array, jax.Array]:
    return x[2:6] * 2.0, x * 2.0


def dus_into_host(buf: jax.Array, x: jax.Array, i: jax.Array) -> jax.Array:
    return lax.dynamic_update_slice(buf, x, (i, 0))


@jax.jit
def inner_identity(a: jax.Array) -> jax.Array:
    return a


def slice_only_compute(x: jax.Array) -> jax.Array:
    return x[2:6] * 2.0


def dynamic_slice_then_compute(
    x: jax.Array, i: jax.Array, y: jax.Array
) -> tuple[jax.Array, jax.Array]:
    return lax.dynamic_slice(x, (i,), (4,)) * 2.0, y + 1.0


def slice_returned_and_computed(x: jax.Array) -> tuple[jax.Array, jax.Array]:
    s = x[2:6]
    return s, s * 2.0


def slice_with_other_output(x: jax.Array, y: jax.Array) -> tuple[jax.Array, jax.Array]:
    return x[2:6], y + 1.0


def slice_through_barrier(x: jax.Array, y: jax.Array) -> tuple[jax.Array, jax.Array]:
    return lax.optimization_barrier((x[2:6], y))


def slice_through_nested_jit(x: jax.Array, y: jax.Array) -> tuple[jax.Array, jax.Array]:
    return inner_identity(x[2:6]), y


def slice_through_cond(p: jax.Array, x: jax.Array) -> jax.Array:
    return lax.cond(p, lambda s: s, lambda s: s * 1.0, x[2:6])


def slice_compute_then_device(x: jax.Array, y: jax.Array) -> jax.Array:
    return jax.device_put(x[2:6] + y[:4], dev())


def slice_to_device_then_compute(x: jax.Array) -> jax.Array:
    return jax.device_put(x[2:6], dev()) * 2.0


def slice_narrowing_convert(x: jax.Array) -> jax.Array:
    return x[2:6].astype(jnp.bfloat16)


def slice_widening_convert(x: jax.Array) -> jax.Array:
    return x[2:6].astype(F32)


def slice_reshape(x: jax.Array) -> jax.Array:
    return x[2:6].reshape(2, 2)


def slice_transpose(x: jax.Array) -> jax.Array:
    return x[0:2].T


def slice_broadcast(x: jax.Array) -> jax.Array:
    return jnp.broadcast_to(x[2:6], (3, 4))


def slice_reverse(x: jax.Array) -> jax.Array:
    return x[2:6][::-1]


def slice_nested_jit_compute(x: jax.Array) -> jax.Array:
    return inner_double(x[2:6])


def slice_narrowing_convert_compute(x: jax.Array) -> jax.Array:
    return x[2:6].astype(jnp.bfloat16) * 2


def slice_of_slice(x: jax.Array) -> jax.Array:
    return x[2:6][1:3]


def row_slice_squeeze(x: jax.Array, i: jax.Array) -> jax.Array:
    return lax.dynamic_slice(x, (i, 0), (1, 128)).reshape(128)


def row_slice_squeeze_compute(x: jax.Array, i: jax.Array) -> jax.Array:
    return lax.dynamic_slice(x, (i, 0), (1, 128)).reshape(128) * 2.0


def while_dynamic_slice_carry(xs: jax.Array, i: jax.Array) -> jax.Array:
    def body(c: tuple[jax.Array, jax.Array]) -> tuple[jax.Array, jax.Array]:
        k, _ = c
        return k + 1, lax.dynamic_slice(xs, (k, 0), (1, 128))

    return lax.while_loop(lambda c: c[0] < 3, body, (i, jnp.zeros((1, 128))))[1]


def gather_host(x: jax.Array, idx: jax.Array) -> jax.Array:
    return x[idx]


def base_programs(device: Any) -> list[Program]:
    """The catalogue, for arguments and placements on ``device`` (a TPU or the CPU device)."""
    global _DEVICE
    _DEVICE = device
    d, p, u = dev(), pinned(), unpinned()
    mat = (4, 4)
    hid = (2, 4)
    i32: tuple[tuple[int, ...], Any] = ((), jnp.int32)
    return [
        # pinned_host arguments and out_shardings
        Program(
            "host_arg_compute_no_out_shardings",
            scale,
            (arg("pinned_host"),),
            "pinned_host arg -> multiply -> output 0 declared device",
        ),
        Program(
            "host_arg_compute_partial_out_shardings",
            scale_and_shift,
            (arg("pinned_host"), arg("device")),
            "out_shardings (host, None): output 1 = host arg + device arg declared device",
            {"out_shardings": (p, None)},
        ),
        Program(
            "host_arg_compute_host_out_shardings",
            scale_and_shift,
            (arg("pinned_host"), arg("device")),
            "out_shardings (host, host)",
            {"out_shardings": (p, p)},
        ),
        Program(
            "host_arg_compute_device_out_shardings",
            scale_and_shift,
            (arg("pinned_host"), arg("device")),
            "out_shardings (device, device): JAX appends a move to device on each output",
            {"out_shardings": (d, d)},
        ),
        Program(
            "host_arg_passthrough",
            identity,
            (arg("pinned_host"),),
            "pinned_host arg returned untouched, output declared device",
        ),
        Program(
            "host_arg_passthrough_host_out",
            identity,
            (arg("pinned_host"),),
            "pinned_host arg returned to an output declared pinned_host",
            {"out_shardings": p},
        ),
        Program(
            "host_arg_returned_twice",
            twice,
            (arg("pinned_host"),),
            "the same pinned_host arg returned as outputs 0 and 1, both declared device",
        ),
        Program(
            "host_arg_returned_twice_one_host",
            twice,
            (arg("pinned_host"),),
            "the same pinned_host arg returned twice, out_shardings (None, host)",
            {"out_shardings": (None, p)},
        ),
        Program(
            "host_arg_three_outputs",
            three_outputs,
            (arg("pinned_host"), arg("device")),
            "outputs 0 and 1 computed from a pinned_host arg, output 2 from a device arg",
        ),
        Program(
            "host_arg_three_outputs_middle_host",
            three_outputs,
            (arg("pinned_host"), arg("device")),
            "same, out_shardings (None, host, None)",
            {"out_shardings": (None, p, None)},
        ),
        Program(
            "host_arg_device_put_device",
            to_device,
            (arg("pinned_host"),),
            "pinned_host arg moved to device by device_put before compute",
        ),
        Program(
            "host_arg_reshape",
            reshape_host,
            (arg("pinned_host"),),
            "reshape (a bitcast for XLA) of a pinned_host arg returned as device",
        ),
        Program(
            "host_arg_reduce",
            reduce_host,
            (arg("pinned_host"),),
            "reduce (an op with a region) of a pinned_host arg returned as device",
        ),
        Program(
            "host_arg_sort",
            sort_host,
            (arg("pinned_host"),),
            "sort of a pinned_host arg returned as device",
        ),
        Program(
            "host_arg_gather",
            gather_host,
            (arg("pinned_host"), arg("device", (3,), jnp.int32)),
            "gather from a pinned_host arg returned as device",
        ),
        Program(
            "offloaded_state_example",
            offloaded_state_step,
            (arg("device", (1024,)), arg("pinned_host", (1024,))),
            "examples/offloaded_state.py: optimizer state in pinned_host, no out_shardings",
        ),
        Program(
            "offloaded_state_example_host_out",
            offloaded_state_step,
            (arg("device", (1024,)), arg("pinned_host", (1024,))),
            "examples/offloaded_state.py with out_shardings (device, host)",
            {"out_shardings": (d, p)},
        ),
        Program(
            "unpinned_host_arg",
            scale,
            (arg("unpinned_host"),),
            "unpinned_host argument (not a trace start; XLA:TPU fails later)",
        ),
        # unpinned_host outputs
        Program(
            "unpinned_host_single_output",
            identity,
            (arg("device"),),
            "single output directly an unpinned_host annotation of a device value",
            {"out_shardings": u},
        ),
        Program(
            "unpinned_host_two_outputs",
            double_output,
            (arg("device"),),
            "out_shardings (unpinned_host, device)",
            {"out_shardings": (u, d)},
        ),
        Program(
            "unpinned_host_from_host_arg",
            identity,
            (arg("pinned_host"),),
            "pinned_host arg returned to an output declared unpinned_host",
            {"out_shardings": u},
        ),
        Program(
            "unpinned_host_both_outputs_host_arg",
            double_output,
            (arg("pinned_host"),),
            "pinned_host arg computed to two outputs declared unpinned_host",
            {"out_shardings": (u, u)},
        ),
        # device_put inside jit
        Program(
            "device_put_host_no_out_shardings",
            put_host,
            (arg("device"),),
            "device_put(pinned_host) result returned, no out_shardings",
        ),
        Program(
            "device_put_host_host_out_shardings",
            put_host,
            (arg("device"),),
            "device_put(pinned_host) returned to output declared pinned_host",
            {"out_shardings": p},
        ),
        Program(
            "device_put_host_device_out_shardings",
            put_host,
            (arg("device"),),
            "device_put(pinned_host) with out_shardings device",
            {"out_shardings": d},
        ),
        Program(
            "device_put_unpinned_no_out_shardings",
            put_unpinned,
            (arg("device"),),
            "device_put(unpinned_host) result returned, no out_shardings",
        ),
        Program(
            "device_put_unpinned_two_outputs",
            put_unpinned_two_outputs,
            (arg("device"),),
            "device_put(unpinned_host) as output 0 of two, no out_shardings",
        ),
        Program(
            "device_put_memory_space_api",
            put_host_space,
            (arg("device"),),
            "device_put(jax.memory.Space.Host), computed on; and moved back for output 1",
        ),
        Program(
            "device_put_host_and_back",
            put_host_and_back,
            (arg("device"),),
            "output 0 offloaded, output 1 moved back to device before the add",
        ),
        Program(
            "device_put_host_then_compute",
            put_host_compute_on_it,
            (arg("device"),),
            "device_put(pinned_host) then multiply, no out_shardings",
        ),
        Program(
            "device_put_host_then_compute_device_out",
            put_host_compute_on_it,
            (arg("device"),),
            "device_put(pinned_host) then multiply, out_shardings device",
            {"out_shardings": d},
        ),
        Program(
            "device_put_host_compute_then_device",
            put_host_compute_then_device,
            (arg("device"),),
            "device_put(pinned_host), multiply, device_put(device)",
        ),
        Program(
            "scan_offload_ys",
            scan_offload_ys,
            (arg("device"),),
            "scan stacking device_put(pinned_host) ys, no out_shardings",
        ),
        Program(
            "scan_offload_ys_device_out",
            scan_offload_ys,
            (arg("device"),),
            "same scan, out_shardings (device, device)",
            {"out_shardings": (d, d)},
        ),
        Program(
            "scan_offload_ys_partial_out",
            scan_offload_ys,
            (arg("device"),),
            "same scan, out_shardings (None, device)",
            {"out_shardings": (None, d)},
        ),
        # compute_on
        Program(
            "compute_on_device_host",
            compute_on_host,
            (arg("device"),),
            "compute_on('device_host') call on a device value",
        ),
        Program(
            "compute_on_device_host_to_host",
            compute_on_host_to_host,
            (arg("device"),),
            "compute_on('device_host') result returned to output declared pinned_host",
            {"out_shardings": p},
        ),
        Program(
            "compute_on_host_arg",
            compute_on_host_arg,
            (arg("pinned_host"),),
            "compute_on('device_host') call on a pinned_host arg, result declared device",
        ),
        Program(
            "compute_on_host_arg_then_device",
            compute_on_host_arg_then_device,
            (arg("pinned_host"),),
            "compute_on('device_host') on a pinned_host arg; result and its device copy",
        ),
        # remat offload
        Program(
            "remat_offload_scan_grad",
            jax.grad(scan_loss),
            (arg("device", mat), arg("device", hid)),
            "save_and_offload_only_these_names under scan, grad",
        ),
        Program(
            "remat_offload_fori_grad",
            jax.grad(fori_loss),
            (arg("device", mat), arg("device", hid)),
            "save_and_offload_only_these_names under fori_loop, grad",
        ),
        Program(
            "remat_offload_scan_value_and_grad",
            scan_value_and_grad,
            (arg("device", mat), arg("device", hid)),
            "save_and_offload_only_these_names under scan, value_and_grad",
        ),
        Program(
            "remat_offload_dots_scan_grad",
            jax.grad(scan_loss_dots),
            (arg("device", mat), arg("device", hid)),
            "offload_dot_with_no_batch_dims under scan, grad",
        ),
        Program(
            "remat_offload_dots_fori_grad",
            jax.grad(fori_loss_dots),
            (arg("device", mat), arg("device", hid)),
            "offload_dot_with_no_batch_dims under fori_loop, grad",
        ),
        Program(
            "remat_offload_no_loop_grad",
            jax.grad(plain_loss),
            (arg("device", mat), arg("device", hid)),
            "save_and_offload_only_these_names without a loop, grad",
        ),
        Program(
            "remat_offload_scan_grad_both",
            scan_grad_both,
            (arg("device", mat), arg("device", hid)),
            "save_and_offload_only_these_names under scan, grad w.r.t. both arguments",
        ),
        Program(
            "remat_offload_scan_grad_host_weights",
            jax.grad(host_weights_loss),
            (arg("pinned_host", mat), arg("device", hid)),
            "weights in pinned_host moved to device, remat offload under scan, grad",
        ),
        # control flow
        Program(
            "while_host_carry",
            while_host_carry,
            (arg("pinned_host"),),
            "pinned_host arg carried through a while and multiplied, returned as device",
        ),
        Program(
            "while_host_carry_to_device",
            while_host_carry_to_device,
            (arg("pinned_host"),),
            "same while, result moved back by device_put",
        ),
        Program(
            "while_host_passthrough",
            while_host_passthrough,
            (arg("pinned_host"), arg("device")),
            "pinned_host arg carried unchanged through a while and read on device in the body",
        ),
        Program(
            "fori_stream_into_host_buffer",
            fori_stream_into_host,
            (arg("pinned_host", (4, 128)), arg("device", (1, 128))),
            "fori_loop dynamic_update_slice of device values into a pinned_host buffer, "
            "returned as device",
        ),
        Program(
            "fori_stream_into_host_buffer_host_out",
            fori_stream_into_host,
            (arg("pinned_host", (4, 128)), arg("device", (1, 128))),
            "same, out_shardings host",
            {"out_shardings": p},
        ),
        Program(
            "scan_over_host_xs",
            scan_over_host_xs,
            (arg("pinned_host", (3, 8)), arg("device")),
            "scan over xs in pinned_host (dynamic_slice per step), device carry returned",
        ),
        Program(
            "scan_over_host_xs_to_device",
            scan_over_host_xs_to_device,
            (arg("pinned_host", (3, 8)), arg("device")),
            "scan over xs in pinned_host, each step's x moved to device before the add",
        ),
        Program(
            "cond_host",
            cond_host,
            (arg("device", (), jnp.bool_), arg("pinned_host"), arg("device")),
            "pinned_host arg used in both branches of a cond, result 0 declared device",
        ),
        Program(
            "cond_host_to_device",
            cond_host_to_device,
            (arg("device", (), jnp.bool_), arg("pinned_host"), arg("device")),
            "same cond, result 0 moved back by device_put",
        ),
        Program(
            "cond_offload_in_branches",
            cond_offload_in_branches,
            (arg("device", (), jnp.bool_), arg("device")),
            "device_put(pinned_host) inside both branches of a cond",
        ),
        Program(
            "switch_host",
            switch_host,
            (arg("device", (), jnp.int32), arg("pinned_host"), arg("device")),
            "lax.switch with three branches permuting a pinned_host and a device arg",
        ),
        # calls
        Program(
            "nested_jit",
            nested_jit,
            (arg("pinned_host"), arg("device")),
            "pinned_host arg through a nested jit to output 0",
        ),
        Program(
            "nested_jit_shared_callee",
            nested_jit_shared_callee,
            (arg("pinned_host"), arg("device")),
            "one callee called with the host arg (output 0) and a device arg (output 1)",
        ),
        Program(
            "nested_jit_offload_inside",
            nested_jit_offload_inside,
            (arg("device"),),
            "device_put(pinned_host) inside a nested jit, returned by the outer one",
        ),
        Program(
            "nested_jit_swap",
            nested_jit_swap,
            (arg("pinned_host"), arg("device")),
            "nested jit returning its two arguments swapped",
        ),
        Program(
            "nested_jit_two_levels",
            nested_jit_twice_deep,
            (arg("pinned_host"), arg("device")),
            "two nested jits composed, with the shared callees called from host and device",
        ),
        # pytrees
        Program(
            "pytree_partial_offload",
            optimizer_step,
            (opt_state(),),
            "dict state, m declared pinned_host by out_shardings, ema and v not",
            {
                "out_shardings": {
                    "w": None,
                    "m": p,
                    "v": None,
                    "g": None,
                    "step": None,
                    "ema": None,
                }
            },
        ),
        Program(
            "pytree_no_out_shardings",
            optimizer_step,
            (opt_state(),),
            "dict state with three pinned_host leaves, no out_shardings",
        ),
        Program(
            "pytree_many_outputs",
            many_layers_step,
            many_layers_args(),
            "13 outputs: six layers of (w, b) and a norm, odd layers' w in pinned_host",
        ),
        Program(
            "pytree_many_outputs_host_out",
            many_layers_step,
            many_layers_args(),
            "same 13 outputs, odd layers' w declared pinned_host by out_shardings",
            {
                "out_shardings": (
                    [{"w": p if i % 2 else None, "b": None} for i in range(6)],
                    None,
                )
            },
        ),
        # barriers and slices
        Program(
            "optimization_barrier",
            barrier,
            (arg("pinned_host"), arg("device")),
            "optimization_barrier of a pinned_host and a device arg",
        ),
        Program(
            "optimization_barrier_offload",
            barrier_offload,
            (arg("device"), arg("device")),
            "optimization_barrier of a device_put(pinned_host) value and a device value",
        ),
        Program(
            "dynamic_slice_host_arg",
            dynamic_slice_host,
            (arg("pinned_host"), arg("device", *i32)),
            "dynamic_slice of a pinned_host arg returned",
        ),
        Program(
            "dynamic_slice_and_return_host_arg",
            dynamic_slice_and_return,
            (arg("pinned_host"), arg("device", *i32)),
            "dynamic_slice of a pinned_host arg (output 0) and the arg itself (output 1)",
        ),
        Program(
            "static_slice_host_arg",
            static_slice_host,
            (arg("pinned_host"),),
            "static slice of a pinned_host arg returned",
        ),
        Program(
            "slice_then_compute",
            slice_then_compute,
            (arg("pinned_host"),),
            "output 0 = slice of the host arg times 2; output 1 = host arg times 2",
        ),
        # what ends a trace at a slice (XLA: only a slice whose result goes on, through data
        # movement only, to moves to device and entry outputs)
        Program(
            "static_slice_then_compute",
            slice_only_compute,
            (arg("pinned_host"),),
            "static slice of a pinned_host arg, multiplied, single output",
        ),
        Program(
            "dynamic_slice_then_compute",
            dynamic_slice_then_compute,
            (arg("pinned_host"), arg("device", *i32), arg("device")),
            "dynamic_slice of a pinned_host arg, multiplied (output 0); device output 1",
        ),
        Program(
            "slice_returned_and_computed",
            slice_returned_and_computed,
            (arg("pinned_host"),),
            "one static slice of a pinned_host arg returned (output 0) and multiplied (output 1)",
        ),
        Program(
            "slice_with_other_output",
            slice_with_other_output,
            (arg("pinned_host"), arg("device")),
            "static slice of a pinned_host arg returned next to a device output",
        ),
        Program(
            "slice_through_barrier",
            slice_through_barrier,
            (arg("pinned_host"), arg("device")),
            "static slice of a pinned_host arg through an optimization_barrier to output 0",
        ),
        Program(
            "slice_through_nested_jit",
            slice_through_nested_jit,
            (arg("pinned_host"), arg("device")),
            "static slice of a pinned_host arg through a nested identity jit to output 0",
        ),
        Program(
            "slice_through_cond",
            slice_through_cond,
            (arg("device", (), jnp.bool_), arg("pinned_host")),
            "static slice of a pinned_host arg into a cond: returned by one branch, "
            "multiplied by the other",
        ),
        Program(
            "slice_compute_then_device",
            slice_compute_then_device,
            (arg("pinned_host"), arg("device")),
            "static slice of a pinned_host arg added to a device value, then device_put(device)",
        ),
        Program(
            "slice_to_device_then_compute",
            slice_to_device_then_compute,
            (arg("pinned_host"),),
            "static slice of a pinned_host arg, device_put(device), then multiplied",
        ),
        Program(
            "slice_narrowing_convert",
            slice_narrowing_convert,
            (arg("pinned_host"),),
            "static slice of a pinned_host arg converted f32 -> bf16",
        ),
        Program(
            "slice_widening_convert",
            slice_widening_convert,
            (arg("pinned_host", VEC, jnp.bfloat16),),
            "static slice of a pinned_host bf16 arg converted bf16 -> f32",
        ),
        Program(
            "slice_reshape",
            slice_reshape,
            (arg("pinned_host"),),
            "static slice of a pinned_host arg reshaped (4,) -> (2, 2)",
        ),
        Program(
            "slice_transpose",
            slice_transpose,
            (arg("pinned_host", (8, 128)),),
            "static slice of a pinned_host (8, 128) arg, transposed, returned",
        ),
        Program(
            "slice_broadcast",
            slice_broadcast,
            (arg("pinned_host"),),
            "static slice of a pinned_host arg broadcast (4,) -> (3, 4), returned",
        ),
        Program(
            "slice_reverse",
            slice_reverse,
            (arg("pinned_host"),),
            "static slice of a pinned_host arg reversed, returned",
        ),
        Program(
            "slice_nested_jit_compute",
            slice_nested_jit_compute,
            (arg("pinned_host"),),
            "static slice of a pinned_host arg multiplied inside a nested jit",
        ),
        Program(
            "slice_narrowing_convert_compute",
            slice_narrowing_convert_compute,
            (arg("pinned_host"),),
            "static slice of a pinned_host arg converted f32 -> bf16, then multiplied",
        ),
        Program(
            "slice_of_slice",
            slice_of_slice,
            (arg("pinned_host"),),
            "a static slice of a static slice of a pinned_host arg, returned",
        ),
        Program(
            "row_dynamic_slice_squeeze",
            row_slice_squeeze,
            (arg("pinned_host", (8, 128)), arg("device", *i32)),
            "dynamic_slice of one row of a pinned_host (8, 128) arg, reshaped to (128,)",
        ),
        Program(
            "row_dynamic_slice_squeeze_compute",
            row_slice_squeeze_compute,
            (arg("pinned_host", (8, 128)), arg("device", *i32)),
            "same row, reshaped, then multiplied",
        ),
        Program(
            "while_dynamic_slice_carry",
            while_dynamic_slice_carry,
            (arg("pinned_host", (8, 128)), arg("device", *i32)),
            "a while whose carry is a dynamic_slice of a pinned_host arg, returned",
        ),
        Program(
            "dus_into_host_arg",
            dus_into_host,
            (arg("pinned_host", (8, 128)), arg("device", (1, 128)), arg("device", *i32)),
            "dynamic_update_slice of a device value into a pinned_host arg, returned as device",
        ),
        Program(
            "dus_into_host_arg_host_out",
            dus_into_host,
            (arg("pinned_host", (8, 128)), arg("device", (1, 128)), arg("device", *i32)),
            "same, out_shardings host",
            {"out_shardings": p},
        ),
        Program(
            "slice_of_slice_both_returned",
            slice_of_slice_both_returned,
            (arg("pinned_host"),),
            "a slice returned and sliced again, both returned",
        ),
        Program(
            "slice_in_callee_computed_by_caller",
            slice_in_callee_computed_by_caller,
            (arg("pinned_host"),),
            "a nested jit returns a slice; the caller returns it and multiplies it",
        ),
        Program(
            "slice_written_into_device_buffer",
            slice_written_into_device_buffer,
            (arg("pinned_host"),),
            "a slice returned and written into a device buffer (JAX emits a scatter)",
        ),
        Program(
            "slice_of_slice_computed",
            slice_of_slice_computed,
            (arg("pinned_host"),),
            "a slice returned, sliced again, and the inner slice multiplied",
        ),
        Program(
            "slice_written_into_device_arg",
            slice_written_into_device_arg,
            (arg("pinned_host"), arg("device")),
            "a slice returned and written into a device argument (JAX emits a scatter)",
        ),
        Program(
            "slice_dynamic_update_into_device_arg",
            slice_dynamic_update_into_device_arg,
            (arg("pinned_host"), arg("device"), arg("device", *i32)),
            "a slice returned and written into a device argument with dynamic_update_slice",
        ),
        Program(
            "slice_dynamic_update_into_zeros",
            slice_dynamic_update_into_zeros,
            (arg("pinned_host"), arg("device", *i32)),
            "a slice returned and written into zeros with dynamic_update_slice",
        ),
        Program(
            "slice_written_into_ones",
            slice_written_into_ones,
            (arg("pinned_host"),),
            "a slice returned and written into ones (JAX emits a scatter)",
        ),
    ] + moves_dropped_on_cpu()


# --- Programs added after the recorded run: below programs(), so that the locations recorded
# in test/differential (lines of this file) stay where they are.


def slice_of_slice_both_returned(x: jax.Array) -> tuple[jax.Array, jax.Array]:
    s = x[2:6]
    return s, s[1:3]


@jax.jit
def _head(x: jax.Array) -> jax.Array:
    return x[0:4]


def slice_in_callee_computed_by_caller(x: jax.Array) -> tuple[jax.Array, jax.Array]:
    s = _head(x)
    return s, s * 2.0


def slice_written_into_device_buffer(x: jax.Array) -> tuple[jax.Array, jax.Array]:
    s = x[0:2]
    return s, jnp.zeros(VEC, F32).at[0:2].set(s)


def slice_of_slice_computed(x: jax.Array) -> tuple[jax.Array, jax.Array]:
    s = x[2:6]
    return s, s[1:3] * 2.0


def slice_written_into_device_arg(x: jax.Array, y: jax.Array) -> tuple[jax.Array, jax.Array]:
    s = x[0:2]
    return s, y.at[0:2].set(s)


def slice_dynamic_update_into_device_arg(
    x: jax.Array, y: jax.Array, i: jax.Array
) -> tuple[jax.Array, jax.Array]:
    s = x[0:2]
    return s, lax.dynamic_update_slice(y, s, (i,))


def slice_dynamic_update_into_zeros(x: jax.Array, i: jax.Array) -> tuple[jax.Array, jax.Array]:
    s = x[0:2]
    return s, lax.dynamic_update_slice(jnp.zeros(VEC, F32), s, (i,))


def slice_written_into_ones(x: jax.Array) -> tuple[jax.Array, jax.Array]:
    s = x[0:2]
    return s, jnp.ones(VEC, F32).at[0:2].set(s)


# --- Moves that JAX drops when it lowers for CPU: device_put between memories inside jit, of
# arrays and of pytrees, to pinned_host and unpinned_host, in optimizer steps, nested jits,
# compute_on and remat offload. test_cpu_routes.py compiles them on CPU, where a check of what
# XLA:CPU compiles would not see those moves, and expects XLA:TPU's verdicts.


def sgd_step_state_on_device(
    params: jax.Array, momentum: jax.Array, grads: jax.Array
) -> tuple[jax.Array, jax.Array]:
    momentum = 0.9 * jax.device_put(momentum, jax.memory.Space.Device) + grads
    return params - 0.1 * momentum, jax.device_put(momentum, jax.memory.Space.Host)


def sgd_step_state_on_host(
    params: jax.Array, momentum: jax.Array, grads: jax.Array
) -> tuple[jax.Array, jax.Array]:
    momentum = 0.9 * momentum + grads
    return params - 0.1 * jax.device_put(momentum, jax.memory.Space.Device), momentum


def adam_update(
    params: jax.Array, state: dict[str, jax.Array], grads: jax.Array
) -> tuple[jax.Array, dict[str, jax.Array]]:
    state = {"m": 0.9 * state["m"] + grads, "v": 0.99 * state["v"] + grads * grads}
    return params - 0.1 * state["m"] / (jnp.sqrt(state["v"]) + 1e-8), state


def adam_step_state_on_device(
    params: jax.Array, state: dict[str, jax.Array], grads: jax.Array
) -> tuple[jax.Array, dict[str, jax.Array]]:
    params, state = adam_update(params, jax.device_put(state, jax.memory.Space.Device), grads)
    return params, jax.device_put(state, jax.memory.Space.Host)


def adam_step_state_sharding_trees(
    params: jax.Array, state: dict[str, jax.Array], grads: jax.Array
) -> tuple[jax.Array, dict[str, jax.Array]]:
    params, state = adam_update(params, jax.device_put(state, {"m": dev(), "v": dev()}), grads)
    return params, jax.device_put(state, {"m": pinned(), "v": pinned()})


def adam_state() -> dict[str, jax.ShapeDtypeStruct]:
    return {"m": arg("pinned_host"), "v": arg("pinned_host")}


def put_pair_host(x: jax.Array, y: jax.Array) -> tuple[jax.Array, jax.Array]:
    return jax.device_put((x * 2.0, y + 1.0), jax.memory.Space.Host)


def put_pair_host_and_back(x: jax.Array, y: jax.Array) -> tuple[jax.Array, jax.Array]:
    a, b = put_pair_host(x, y)
    c, d = jax.device_put((a, b), jax.memory.Space.Device)
    return a, c * d


def put_pair_unpinned(x: jax.Array, y: jax.Array) -> tuple[jax.Array, jax.Array]:
    return jax.device_put((x * 2.0, y + 1.0), unpinned())


def put_host_space_only(x: jax.Array) -> jax.Array:
    return jax.device_put(x * 2.0, jax.memory.Space.Host)


@jax.jit
def inner_unpinned(a: jax.Array) -> jax.Array:
    return jax.device_put(a * 2.0, unpinned())


@jax.jit
def inner_to_host_space(a: jax.Array) -> jax.Array:
    return jax.device_put(a * 2.0, jax.memory.Space.Host)


def nested_jit_unpinned_inside(x: jax.Array) -> tuple[jax.Array, jax.Array]:
    return inner_unpinned(x), x + 1.0


def nested_jit_offload_inside_computed(x: jax.Array) -> tuple[jax.Array, jax.Array]:
    return inner_to_host_space(x) * 3.0, x + 1.0


def compute_on_result_to_unpinned(x: jax.Array) -> tuple[jax.Array, jax.Array]:
    return jax.device_put(host_sine(x), unpinned()), x + 1.0


def compute_on_result_to_host(x: jax.Array) -> tuple[jax.Array, jax.Array]:
    return jax.device_put(host_sine(x), jax.memory.Space.Host), x


def moves_dropped_on_cpu() -> list[Program]:
    """The programs of the moves JAX drops on CPU, for the device :func:`programs` set."""
    d, p = dev(), pinned()
    sgd_args = (arg("device"), arg("pinned_host"), arg("device"))
    adam_args = (arg("device"), adam_state(), arg("device"))
    return [
        Program(
            "sgd_state_to_device_and_back",
            sgd_step_state_on_device,
            sgd_args,
            "SGD step: pinned_host momentum moved to device, updated, moved back to host",
        ),
        Program(
            "sgd_state_to_device_and_back_out_shardings",
            sgd_step_state_on_device,
            sgd_args,
            "same SGD step, out_shardings (device, pinned_host)",
            {"out_shardings": (d, p)},
        ),
        Program(
            "sgd_state_updated_on_host",
            sgd_step_state_on_host,
            sgd_args,
            "SGD step that updates its pinned_host momentum without moving it to device",
        ),
        Program(
            "adam_pytree_state_to_device_and_back",
            adam_step_state_on_device,
            adam_args,
            "Adam step: dict of pinned_host moments moved to device by one device_put of the "
            "pytree, updated, moved back to host",
        ),
        Program(
            "adam_pytree_state_to_device_and_back_out_shardings",
            adam_step_state_on_device,
            adam_args,
            "same Adam step, out_shardings (device, {m: pinned_host, v: pinned_host})",
            {"out_shardings": (d, {"m": p, "v": p})},
        ),
        Program(
            "adam_pytree_state_sharding_trees",
            adam_step_state_sharding_trees,
            adam_args,
            "same Adam step, device_put of the pytree with a pytree of shardings each way",
        ),
        Program(
            "device_put_pytree_host",
            put_pair_host,
            (arg("device"), arg("device")),
            "device_put of a pair to jax.memory.Space.Host, both returned",
        ),
        Program(
            "device_put_pytree_host_and_back",
            put_pair_host_and_back,
            (arg("device"), arg("device")),
            "a pair moved to host and back to device as pytrees; one host value returned, "
            "the device copies multiplied",
        ),
        Program(
            "device_put_pytree_unpinned",
            put_pair_unpinned,
            (arg("device"), arg("device")),
            "device_put of a pair to unpinned_host, both returned, no out_shardings",
        ),
        Program(
            "device_put_space_host_unpinned_out",
            put_host_space_only,
            (arg("device"),),
            "device_put(jax.memory.Space.Host) returned to an output declared unpinned_host",
            {"out_shardings": unpinned()},
        ),
        Program(
            "nested_jit_unpinned_inside",
            nested_jit_unpinned_inside,
            (arg("device"),),
            "device_put(unpinned_host) inside a nested jit, returned next to a device output",
        ),
        Program(
            "nested_jit_offload_inside_computed",
            nested_jit_offload_inside_computed,
            (arg("device"),),
            "device_put(jax.memory.Space.Host) inside a nested jit, multiplied by the caller",
        ),
        Program(
            "compute_on_result_to_unpinned",
            compute_on_result_to_unpinned,
            (arg("device"),),
            "compute_on('device_host') result moved to unpinned_host, returned next to a "
            "device output",
        ),
        Program(
            "compute_on_result_to_host",
            compute_on_result_to_host,
            (arg("device"),),
            "compute_on('device_host') result moved to jax.memory.Space.Host and returned",
        ),
        Program(
            "remat_offload_scan_grad_weights_on_host",
            jax.grad(scan_loss),
            (arg("pinned_host", (4, 4)), arg("device", (2, 4))),
            "save_and_offload_only_these_names under scan, grad, weights left in pinned_host",
        ),
    ]


# --- The JAX fix applied (Report.jax_fix): each program XLA rejects with E1200 below, as the
# first fix offered for it changes it. A move to device is the fix's statement put right
# before the statement at the line it names; out_shardings is the pytree it gives.
# test_jax_fix.py checks that each variant is what the fix says and that XLA:TPU compiles it.

JAX_FIXED = "_jax_fixed"


def scale_jax_fixed(x: jax.Array) -> jax.Array:
    x = jax.device_put(x, jax.memory.Space.Device)
    return x * 2.0


def scale_and_shift_jax_fixed(x: jax.Array, y: jax.Array) -> tuple[jax.Array, jax.Array]:
    x = jax.device_put(x, jax.memory.Space.Device)
    return x * 2.0, x + y


def three_outputs_jax_fixed(x: jax.Array, y: jax.Array) -> tuple[jax.Array, jax.Array, jax.Array]:
    x = jax.device_put(x, jax.memory.Space.Device)
    return x * 2.0, x + 1.0, y * 3.0


def offloaded_state_step_jax_fixed(
    params: jax.Array, opt_state: jax.Array
) -> tuple[jax.Array, jax.Array]:
    opt_state = jax.device_put(opt_state, jax.memory.Space.Device)
    new_state = opt_state * 0.9 + params
    return params - new_state, new_state


def scan_over_host_xs_jax_fixed(xs: jax.Array, c0: jax.Array) -> jax.Array:
    def body(c: jax.Array, x: jax.Array) -> tuple[jax.Array, None]:
        return c + x, None

    xs = jax.device_put(xs, jax.memory.Space.Device)
    c, _ = lax.scan(body, c0, xs)
    return c


def cond_host_jax_fixed(p: jax.Array, x: jax.Array, y: jax.Array) -> tuple[jax.Array, jax.Array]:
    x = jax.device_put(x, jax.memory.Space.Device)
    return lax.cond(p, lambda a, b: (a * 2.0, b), lambda a, b: (a + 1.0, b * 3.0), x, y)


def nested_jit_jax_fixed(x: jax.Array, y: jax.Array) -> tuple[jax.Array, jax.Array]:
    x = jax.device_put(x, jax.memory.Space.Device)
    return inner_double(x), inner_increment(y)


def optimizer_step_jax_fixed(p: dict[str, jax.Array]) -> dict[str, jax.Array]:
    p["m"] = jax.device_put(p["m"], jax.memory.Space.Device)
    p["v"] = jax.device_put(p["v"], jax.memory.Space.Device)
    p["ema"] = jax.device_put(p["ema"], jax.memory.Space.Device)
    return {
        "w": p["w"] - 0.1 * p["g"],
        "m": 0.9 * p["m"] + p["g"],
        "v": 0.99 * p["v"] + p["g"] * p["g"],
        "g": p["g"] * 0.0,
        "step": p["step"] + 1,
        "ema": p["ema"] * 0.5,
    }


def many_layers_step_jax_fixed(
    params: list[dict[str, jax.Array]], grads: list[dict[str, jax.Array]]
) -> tuple[list[dict[str, jax.Array]], jax.Array]:
    params[1]["w"] = jax.device_put(params[1]["w"], jax.memory.Space.Device)
    params[3]["w"] = jax.device_put(params[3]["w"], jax.memory.Space.Device)
    params[5]["w"] = jax.device_put(params[5]["w"], jax.memory.Space.Device)
    new = [{k: p[k] - 0.01 * g[k] for k in p} for p, g in zip(params, grads, strict=True)]
    norm = sum(jnp.sum(g["w"] * g["w"]) for g in grads)
    return new, jnp.asarray(norm)


def slice_then_compute_jax_fixed(x: jax.Array) -> tuple[jax.Array, jax.Array]:
    x = jax.device_put(x, jax.memory.Space.Device)
    return x[2:6] * 2.0, x * 2.0


def slice_returned_and_computed_jax_fixed(x: jax.Array) -> tuple[jax.Array, jax.Array]:
    x = jax.device_put(x, jax.memory.Space.Device)
    s = x[2:6]
    return s, s * 2.0


def programs(device: Any) -> list[Program]:
    """The catalogue for ``device`` (:func:`base_programs`), and the variants of its programs
    with the JAX fix applied, each named after its program with :data:`JAX_FIXED` appended."""
    catalogue = base_programs(device)
    originals = {program.name: program for program in catalogue}
    moved = {
        "host_arg_compute_no_out_shardings": scale_jax_fixed,
        "host_arg_compute_partial_out_shardings": scale_and_shift_jax_fixed,
        "host_arg_three_outputs": three_outputs_jax_fixed,
        "offloaded_state_example": offloaded_state_step_jax_fixed,
        "scan_over_host_xs": scan_over_host_xs_jax_fixed,
        "cond_host": cond_host_jax_fixed,
        "nested_jit": nested_jit_jax_fixed,
        "pytree_no_out_shardings": optimizer_step_jax_fixed,
        "pytree_many_outputs": many_layers_step_jax_fixed,
        "slice_then_compute": slice_then_compute_jax_fixed,
        "slice_returned_and_computed": slice_returned_and_computed_jax_fixed,
    }
    p = pinned()
    kept_on_host = {
        "host_arg_passthrough": p,
        "host_arg_returned_twice_one_host": p,
        "host_arg_reshape": p,
        "dus_into_host_arg": p,
        "unpinned_host_two_outputs": (p, None),
        "dynamic_slice_and_return_host_arg": (None, p),
        "while_host_carry": (None, p),
    }
    variants = [
        replace(
            originals[name],
            name=name + JAX_FIXED,
            fn=fn,
            description=f"{name} with its JAX fix: the host argument moved to device first",
        )
        for name, fn in moved.items()
    ]
    variants += [
        replace(
            originals[name],
            name=name + JAX_FIXED,
            description=f"{name} with its JAX fix: out_shardings keeps outputs in host memory",
            jit_kwargs={**originals[name].jit_kwargs, "out_shardings": shardings},
        )
        for name, shardings in kept_on_host.items()
    ]
    return catalogue + variants
