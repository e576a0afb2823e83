"""Generate the corpus of real JAX lowerings used by ``test/python/test_corpus.py``.

Every program is lowered for TPU on a machine without a TPU: the arguments are
``jax.ShapeDtypeStruct`` values placed on the CPU device with an explicit memory kind and the
lowering asks for ``lowering_platforms=("tpu",)``, so the ``annotate_device_placement`` custom
calls and the ``mhlo.memory_kind`` attributes survive (a CPU lowering drops them).

Each module is written in MLIR's generic form with debug locations (the interchange format of
docs/reference: it parses without the StableHLO, CHLO and Shardy dialects) to
``test/corpus/<name>.mlir``; ``test/corpus/expected.json`` records, per program, the entry
output indices for which XLA raises E1200 together with a one-line reason.

The verdicts are derived by hand from the rules of host-offload-semantics.md (sections 2-4 and
7) by reading each generated module, not by running the checker.

Run from the repository root::

    python test/corpus/generate.py
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jax
import jax.numpy as jnp
from jax import lax
from jax.ad_checkpoint import checkpoint_name
from jax.experimental.compute_on import compute_on
from jax.sharding import SingleDeviceSharding

REPO_ROOT = Path(__file__).resolve().parents[2]
CORPUS_DIR = REPO_ROOT / "test" / "corpus"

CPU = jax.devices("cpu")[0]
DEVICE = SingleDeviceSharding(CPU, memory_kind="device")
PINNED = SingleDeviceSharding(CPU, memory_kind="pinned_host")
UNPINNED = SingleDeviceSharding(CPU, memory_kind="unpinned_host")

F32 = jnp.float32
VEC = (8,)


def arg(
    sharding: SingleDeviceSharding, shape: tuple[int, ...] = VEC, dtype: Any = F32
) -> jax.ShapeDtypeStruct:
    """An abstract argument placed in the memory kind of ``sharding``."""
    return jax.ShapeDtypeStruct(shape, dtype, sharding=sharding)


@dataclass(frozen=True)
class Program:
    name: str
    fn: Callable[..., Any]
    args: tuple[Any, ...]
    e1200_outputs: tuple[int, ...]
    description: str
    jit_kwargs: dict[str, Any] = field(default_factory=dict)


# --- pinned_host arguments -------------------------------------------------------------------


def scale(x: jax.Array) -> jax.Array:
    return x * 2.0


def scale_and_shift(x: jax.Array, y: jax.Array) -> tuple[jax.Array, jax.Array]:
    return x * 2.0, x + y


def identity(x: jax.Array) -> jax.Array:
    return x


def to_device(x: jax.Array) -> jax.Array:
    return jax.device_put(x, DEVICE) * 2.0


# --- unpinned_host outputs --------------------------------------------------------------------


def double_output(x: jax.Array) -> tuple[jax.Array, jax.Array]:
    return x * 2.0, x + 1.0


# --- device_put inside jit --------------------------------------------------------------------


def put_host(x: jax.Array) -> jax.Array:
    return jax.device_put(x * 2.0, PINNED)


def put_host_and_back(x: jax.Array) -> tuple[jax.Array, jax.Array]:
    y = jax.device_put(x * 2.0, PINNED)
    return y, jax.device_put(y, DEVICE) + 1.0


def put_host_compute_on_it(x: jax.Array) -> jax.Array:
    return jax.device_put(x, PINNED) * 2.0


def scan_offload_ys(x: jax.Array) -> tuple[jax.Array, jax.Array]:
    def body(carry: jax.Array, _: None) -> tuple[jax.Array, jax.Array]:
        carry = jnp.sin(carry)
        return carry, jax.device_put(carry, PINNED)

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


# --- remat offload ---------------------------------------------------------------------------

OFFLOAD_X = jax.checkpoint_policies.save_and_offload_only_these_names(
    names_which_can_be_saved=[],
    names_which_can_be_offloaded=["x"],
    offload_src="device",
    offload_dst="pinned_host",
)


def layer(w: jax.Array, h: jax.Array) -> jax.Array:
    h = checkpoint_name(jnp.sin(h @ w), "x")
    return jnp.sin(h)


def scan_loss(w: jax.Array, h0: jax.Array) -> jax.Array:
    def body(h: jax.Array, _: None) -> tuple[jax.Array, None]:
        return jax.checkpoint(layer, policy=OFFLOAD_X)(w, h), None

    h, _ = lax.scan(body, h0, None, length=3)
    return jnp.sum(h)


def fori_loss(w: jax.Array, h0: jax.Array) -> jax.Array:
    def body(_: int, h: jax.Array) -> jax.Array:
        return jax.checkpoint(layer, policy=OFFLOAD_X)(w, h)

    return jnp.sum(lax.fori_loop(0, 3, body, h0))


def scan_value_and_grad(w: jax.Array, h0: jax.Array) -> tuple[jax.Array, jax.Array]:
    return jax.value_and_grad(scan_loss)(w, h0)


# --- control flow ----------------------------------------------------------------------------


def while_host_carry(x: jax.Array) -> tuple[jax.Array, jax.Array]:
    def cond(c: tuple[jax.Array, jax.Array]) -> jax.Array:
        return c[0] < 3

    def body(c: tuple[jax.Array, jax.Array]) -> tuple[jax.Array, jax.Array]:
        return c[0] + 1, c[1] * 1.5

    return lax.while_loop(cond, body, (jnp.int32(0), x))


def while_host_carry_to_device(x: jax.Array) -> tuple[jax.Array, jax.Array]:
    i, h = while_host_carry(x)
    return i, jax.device_put(h, DEVICE)


def cond_host(p: jax.Array, x: jax.Array, y: jax.Array) -> tuple[jax.Array, jax.Array]:
    return lax.cond(p, lambda a, b: (a * 2.0, b), lambda a, b: (a + 1.0, b * 3.0), x, y)


def cond_host_to_device(p: jax.Array, x: jax.Array, y: jax.Array) -> tuple[jax.Array, jax.Array]:
    a, b = cond_host(p, x, y)
    return jax.device_put(a, DEVICE), b


# --- calls, pytrees, barriers, slices ---------------------------------------------------------


@jax.jit
def inner_double(a: jax.Array) -> jax.Array:
    return a * 2.0


@jax.jit
def inner_increment(a: jax.Array) -> jax.Array:
    return a + 1.0


def nested_jit(x: jax.Array, y: jax.Array) -> tuple[jax.Array, jax.Array]:
    return inner_double(x), inner_increment(y)


def nested_jit_shared_callee(x: jax.Array, y: jax.Array) -> tuple[jax.Array, jax.Array]:
    return inner_double(x), inner_double(y)


def optimizer_step(p: dict[str, jax.Array]) -> dict[str, jax.Array]:
    return {
        "w": p["w"] - 0.1 * p["g"],
        "m": 0.9 * p["m"] + p["g"],
        "v": 0.99 * p["v"] + p["g"] * p["g"],
        "g": p["g"] * 0.0,
        "step": p["step"] + 1,
        "ema": p["ema"] * 0.5,
    }


OPT_STATE = {
    "w": arg(DEVICE),
    "m": arg(PINNED),
    "v": arg(PINNED),
    "g": arg(DEVICE),
    "step": arg(DEVICE, (), jnp.int32),
    "ema": arg(PINNED),
}


def barrier(x: jax.Array, y: jax.Array) -> tuple[jax.Array, jax.Array]:
    return lax.optimization_barrier((x, y))


def dynamic_slice_host(x: jax.Array, i: jax.Array) -> jax.Array:
    return lax.dynamic_slice(x, (i,), (4,))


def static_slice_host(x: jax.Array) -> jax.Array:
    return x[2:6]


def slice_then_compute(x: jax.Array) -> tuple[jax.Array, jax.Array]:
    return x[2:6] * 2.0, x * 2.0


PROGRAMS: tuple[Program, ...] = (
    Program(
        "host_arg_compute_no_out_shardings",
        scale,
        (arg(PINNED),),
        (0,),
        "pinned_host arg -> multiply (host compute, still host) -> output 0 declared device",
    ),
    Program(
        "host_arg_compute_partial_out_shardings",
        scale_and_shift,
        (arg(PINNED), arg(DEVICE)),
        (1,),
        "out_shardings (host, None): output 0 is annotated pinned_host and declared so; "
        "output 1 = host arg + device arg is host but declared device",
        {"out_shardings": (PINNED, None)},
    ),
    Program(
        "host_arg_compute_host_out_shardings",
        scale_and_shift,
        (arg(PINNED), arg(DEVICE)),
        (),
        "out_shardings (host, host): both host results are annotated and declared pinned_host",
        {"out_shardings": (PINNED, PINNED)},
    ),
    Program(
        "host_arg_compute_device_out_shardings",
        scale_and_shift,
        (arg(PINNED), arg(DEVICE)),
        (),
        "out_shardings (device, device): JAX appends a move-to-device annotation on each output",
        {"out_shardings": (DEVICE, DEVICE)},
    ),
    Program(
        "host_arg_passthrough",
        identity,
        (arg(PINNED),),
        (0,),
        "pinned_host arg returned untouched to output 0 declared device (JAX does not "
        "propagate the argument's memory kind)",
    ),
    Program(
        "host_arg_passthrough_host_out",
        identity,
        (arg(PINNED),),
        (),
        "pinned_host arg -> pinned_host annotation -> output 0 declared pinned_host",
        {"out_shardings": PINNED},
    ),
    Program(
        "host_arg_device_put_device",
        to_device,
        (arg(PINNED),),
        (),
        "pinned_host arg moved to device by device_put before compute (ParameterStreaming)",
    ),
    Program(
        "unpinned_host_single_output",
        identity,
        (arg(DEVICE),),
        (),
        "single result is directly an unpinned_host annotation of a device value: XLA's "
        "root special case (warning only)",
        {"out_shardings": UNPINNED},
    ),
    Program(
        "unpinned_host_two_outputs",
        double_output,
        (arg(DEVICE),),
        (0,),
        "two results, so no root special case: unpinned_host annotation reaches output 0 "
        "declared unpinned_host (not host memory space for XLA)",
        {"out_shardings": (UNPINNED, DEVICE)},
    ),
    Program(
        "unpinned_host_from_host_arg",
        identity,
        (arg(PINNED),),
        (0,),
        "pinned_host arg -> unpinned_host annotation -> output 0 declared unpinned_host; the "
        "annotation's operand is already on a host path, so no root special case",
        {"out_shardings": UNPINNED},
    ),
    Program(
        "device_put_host_no_out_shardings",
        put_host,
        (arg(DEVICE),),
        (),
        "device_put(pinned_host) result returned; JAX propagates pinned_host onto output 0",
    ),
    Program(
        "device_put_host_host_out_shardings",
        put_host,
        (arg(DEVICE),),
        (),
        "device_put(pinned_host) returned to output 0 declared pinned_host (out_shardings)",
        {"out_shardings": PINNED},
    ),
    Program(
        "device_put_host_device_out_shardings",
        put_host,
        (arg(DEVICE),),
        (),
        "device_put(pinned_host) with out_shardings device: JAX appends a move-to-device",
        {"out_shardings": DEVICE},
    ),
    Program(
        "device_put_host_and_back",
        put_host_and_back,
        (arg(DEVICE),),
        (),
        "output 0 host, propagated to pinned_host by JAX; output 1 moved back to device by "
        "device_put before the add",
    ),
    Program(
        "device_put_host_then_compute",
        put_host_compute_on_it,
        (arg(DEVICE),),
        (),
        "device_put(pinned_host) then multiply (host compute); JAX propagates pinned_host "
        "through the multiply onto output 0",
    ),
    Program(
        "scan_offload_ys",
        scan_offload_ys,
        (arg(DEVICE),),
        (),
        "scan stacks device_put(pinned_host) ys via DUS in a while; JAX declares output 1 "
        "pinned_host; output 0 (carry) is device",
    ),
    Program(
        "scan_offload_ys_device_out",
        scan_offload_ys,
        (arg(DEVICE),),
        (),
        "same scan, out_shardings (device, device): JAX appends move-to-device on output 1",
        {"out_shardings": (DEVICE, DEVICE)},
    ),
    Program(
        "compute_on_device_host",
        compute_on_host,
        (arg(DEVICE),),
        (),
        "compute_on('device_host') call on a device value: host compute is not a trace start",
    ),
    Program(
        "compute_on_device_host_to_host",
        compute_on_host_to_host,
        (arg(DEVICE),),
        (),
        "compute_on('device_host') result annotated pinned_host, output 0 declared pinned_host",
        {"out_shardings": PINNED},
    ),
    Program(
        "remat_offload_scan_grad",
        jax.grad(scan_loss),
        (arg(DEVICE, (4, 4)), arg(DEVICE, (2, 4))),
        (),
        "remat offload: residual moved to pinned_host in the forward scan, stacked by DUS, "
        "read back by dynamic_slice in the backward scan; the gradient is device",
    ),
    Program(
        "remat_offload_fori_grad",
        jax.grad(fori_loss),
        (arg(DEVICE, (4, 4)), arg(DEVICE, (2, 4))),
        (),
        "remat offload under fori_loop (lowered as scan): same as the scan case, no host "
        "value reaches the gradient output",
    ),
    Program(
        "remat_offload_scan_value_and_grad",
        scan_value_and_grad,
        (arg(DEVICE, (4, 4)), arg(DEVICE, (2, 4))),
        (),
        "value_and_grad with remat offload: loss and gradient are both computed on device",
    ),
    Program(
        "while_host_carry",
        while_host_carry,
        (arg(PINNED),),
        (1,),
        "pinned_host arg carried through a while (multiplied in the body) to output 1 "
        "declared device; the counter output 0 is device",
    ),
    Program(
        "while_host_carry_to_device",
        while_host_carry_to_device,
        (arg(PINNED),),
        (),
        "same while, loop result moved back by device_put before being returned",
    ),
    Program(
        "cond_host",
        cond_host,
        (arg(DEVICE, (), jnp.bool_), arg(PINNED), arg(DEVICE)),
        (0,),
        "pinned_host arg used in both branches of a case, branch result 0 returned to output 0 "
        "declared device; output 1 comes from a device arg",
    ),
    Program(
        "cond_host_to_device",
        cond_host_to_device,
        (arg(DEVICE, (), jnp.bool_), arg(PINNED), arg(DEVICE)),
        (),
        "same cond, result 0 moved back by device_put",
    ),
    Program(
        "nested_jit",
        nested_jit,
        (arg(PINNED), arg(DEVICE)),
        (0,),
        "pinned_host arg -> call @inner_double -> output 0 declared device; output 1 goes "
        "through a different callee from a device arg",
    ),
    Program(
        "nested_jit_shared_callee",
        nested_jit_shared_callee,
        (arg(PINNED), arg(DEVICE)),
        (0,),
        "one callee called with the host arg (output 0) and a device arg (output 1): XLA "
        "flattens the call graph, so only output 0 is host",
    ),
    Program(
        "pytree_partial_offload",
        optimizer_step,
        (OPT_STATE,),
        (0, 4),
        "outputs in key order (ema g m step v w): m is annotated and declared pinned_host; "
        "ema and v are computed from pinned_host args and declared device",
        {
            "out_shardings": {
                "w": None,
                "m": PINNED,
                "v": None,
                "g": None,
                "step": None,
                "ema": None,
            }
        },
    ),
    Program(
        "optimization_barrier",
        barrier,
        (arg(PINNED), arg(DEVICE)),
        (0,),
        "optimization_barrier result 0 is the pinned_host arg, declared device; result 1 is device",
    ),
    Program(
        "dynamic_slice_host_arg",
        dynamic_slice_host,
        (arg(PINNED), arg(DEVICE, (), jnp.int32)),
        (),
        "dynamic_slice of a pinned_host arg ends the trace (read into device memory)",
    ),
    Program(
        "static_slice_host_arg",
        static_slice_host,
        (arg(PINNED),),
        (),
        "static slice of a pinned_host arg ends the trace",
    ),
    Program(
        "slice_then_compute",
        slice_then_compute,
        (arg(PINNED),),
        (1,),
        "output 0 = slice of the host arg (trace ended) times 2 is device; output 1 = host "
        "arg times 2 is host, declared device",
    ),
)


def lower(program: Program) -> str:
    """Lower ``program`` for TPU and print it in generic form with repo-relative locations."""
    lowered = (
        jax.jit(program.fn, **program.jit_kwargs)
        .trace(*program.args)
        .lower(lowering_platforms=("tpu",))
    )
    asm: str = lowered.compiler_ir("stablehlo").operation.get_asm(
        print_generic_op_form=True, enable_debug_info=True
    )
    return asm.replace('"' + str(REPO_ROOT) + "/", '"')


def main() -> None:
    expected: dict[str, dict[str, Any]] = {}
    for program in PROGRAMS:
        (CORPUS_DIR / f"{program.name}.mlir").write_text(lower(program))
        expected[program.name] = {
            "e1200_outputs": sorted(program.e1200_outputs),
            "description": program.description,
        }
    text = json.dumps(expected, indent=2, sort_keys=True) + "\n"
    (CORPUS_DIR / "expected.json").write_text(text)
    print(f"wrote {len(PROGRAMS)} modules to {CORPUS_DIR.relative_to(REPO_ROOT)}")


if __name__ == "__main__":
    main()
