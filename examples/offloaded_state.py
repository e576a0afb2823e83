"""An optimizer step whose state lives in host memory: the program behind offloaded_state.mlir.

``opt_state`` arrives in ``pinned_host`` memory, is computed on and returned, but the
outputs carry no memory kind, so they are declared device: XLA:TPU rejects it with E1200.
Run from the repository root to regenerate the module (no TPU needed):

    python examples/offloaded_state.py
"""

from pathlib import Path

import jax
import jax.numpy as jnp
from jax.sharding import SingleDeviceSharding


def step(params: jax.Array, opt_state: jax.Array) -> tuple[jax.Array, jax.Array]:
    new_state = opt_state * 0.9 + params
    return params - new_state, new_state


def lower() -> str:
    cpu = jax.devices("cpu")[0]
    params = jax.ShapeDtypeStruct(
        (1024,), jnp.float32, sharding=SingleDeviceSharding(cpu, memory_kind="device")
    )
    opt_state = jax.ShapeDtypeStruct(
        (1024,), jnp.float32, sharding=SingleDeviceSharding(cpu, memory_kind="pinned_host")
    )
    lowered = jax.jit(step).trace(params, opt_state).lower(lowering_platforms=("tpu",))
    module = lowered.compiler_ir("stablehlo")
    text = module.operation.get_asm(print_generic_op_form=True, enable_debug_info=True)
    # Locations relative to the repository root keep the module the same on every machine.
    repo_root = Path(__file__).resolve().parents[1]
    return text.replace(f'"{repo_root}/', '"')


if __name__ == "__main__":
    Path(__file__).with_suffix(".mlir").write_text(lower())
