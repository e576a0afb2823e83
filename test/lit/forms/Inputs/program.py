"""The JAX program behind every input of test/lit/forms: an optimizer step whose state lives in
host memory and is returned to outputs in device memory, and whose gradient is moved to host
inside jit (JAX declares that output pinned_host itself).

XLA:TPU rejects it with E1200 for outputs 0 and 1. generate.py lowers it.
"""

import jax
import jax.numpy as jnp
from jax.sharding import SingleDeviceSharding


def step(params: jax.Array, opt_state: jax.Array) -> tuple[jax.Array, jax.Array, jax.Array]:
    new_state = opt_state * 0.9 + params
    grads = jax.device_put(params * 2.0, jax.memory.Space.Host)
    return params - new_state, new_state, grads


def arguments() -> tuple[jax.ShapeDtypeStruct, jax.ShapeDtypeStruct]:
    cpu = jax.devices("cpu")[0]
    params = jax.ShapeDtypeStruct(
        (1024,), jnp.float32, sharding=SingleDeviceSharding(cpu, memory_kind="device")
    )
    opt_state = jax.ShapeDtypeStruct(
        (1024,), jnp.float32, sharding=SingleDeviceSharding(cpu, memory_kind="pinned_host")
    )
    return params, opt_state


def lowered() -> jax.stages.Lowered:
    """The lowering for TPU (no TPU needed): a CPU lowering drops the move to host."""
    return jax.jit(step).trace(*arguments()).lower(lowering_platforms=("tpu",))


def exported() -> jax.export.Exported:
    return jax.export.export(jax.jit(step), platforms=["tpu"])(*arguments())


def compile_for_cpu() -> None:
    jax.jit(step).trace(*arguments()).lower().compile()
