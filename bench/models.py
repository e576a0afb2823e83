"""Realistic JAX programs for the benchmark: a decoder-only transformer's training step.

Every model is one training step (embedding, causal attention, MLP, layer norm, cross-entropy
loss, its gradient and an Adam update) lowered for TPU on a machine without one, in two
variants: ``ok``, which XLA compiles, and ``e1200``, which XLA rejects with E1200 because the
Adam state, given in ``pinned_host``, is returned without ``out_shardings`` in host memory.

- ``remat_names_scan``, ``remat_names_unrolled``: ``jax.checkpoint`` over each layer with
  ``save_and_offload_only_these_names``, which offloads the activations named with
  ``checkpoint_name`` to ``pinned_host``; layers in ``jax.lax.scan`` over stacked weights or in
  a Python loop. In ``ok`` the Adam state is in device memory.
- ``remat_dots_scan``, ``remat_dots_unrolled``: the same with ``offload_dot_with_no_batch_dims``
  (every matmul without batch dimensions offloaded).
- ``adam_host``: no remat, unrolled layers, the Adam state in ``pinned_host`` in both variants;
  ``ok`` returns it with ``out_shardings`` in ``pinned_host``.

A model's size is its number of ops in the lowered module: unrolled models grow by layers,
scanned ones by the scan's ``unroll`` (the body is repeated that many times in the loop).
``python -m bench.models_run`` measures them (docs/performance.md).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import jax
import jax.numpy as jnp
from jax.ad_checkpoint import checkpoint_name
from jax.sharding import SingleDeviceSharding

VARIANTS = ("ok", "e1200")

# Small tensors: the op count, not the data, is what the check's cost follows.
VOCAB = 256
WIDTH = 64
HEADS = 4
HIDDEN = 128
BATCH = 2
SEQUENCE = 16

LEARNING_RATE = 1e-3
BETA1, BETA2, EPSILON = 0.9, 0.999, 1e-8

# The activations the names policy offloads.
OFFLOADED_NAMES = ("attention_input", "attention_output", "mlp_hidden")

Params = dict[str, Any]


@dataclass(frozen=True)
class Model:
    """One model family: how its step is built, and ops of its lowering per unit of size."""

    remat: str | None  # "names", "dots" or None
    scanned: bool
    adam_on_host_when_ok: bool

    def units_for(self, ops: int) -> int:
        """Layers (unrolled) or the scan's unroll factor for about ``ops`` ops."""
        fixed, per_unit = ops_per_unit(self)
        return max(1, round((ops - fixed) / per_unit))

    def lower(self, variant: str, units: int) -> Any:
        """The step lowered for TPU: ``units`` layers, or a scan over ``2 * units`` stacked
        layers unrolled ``units`` times."""
        return self.traced(variant, units).lower(lowering_platforms=("tpu",))

    def traced(self, variant: str, units: int) -> Any:
        """The step traced with its arguments on the CPU device, as :meth:`lower` lowers it;
        a new step function each time, so that JAX's caches never answer for it."""
        if variant not in VARIANTS:
            raise ValueError(f"variant must be one of {VARIANTS}, not {variant!r}")
        layers = 2 * units if self.scanned else units
        adam_on_host = variant == "e1200" or self.adam_on_host_when_ok
        params = parameter_shapes(layers, self.scanned)
        cpu = jax.devices("cpu")[0]
        device = SingleDeviceSharding(cpu)
        host = SingleDeviceSharding(cpu, memory_kind="pinned_host")
        state_sharding = host if adam_on_host else device

        def on(tree: Params, sharding: SingleDeviceSharding) -> Params:
            return jax.tree.map(
                lambda s: jax.ShapeDtypeStruct(s.shape, s.dtype, sharding=sharding), tree
            )

        args = (
            on(params, device),
            {"m": on(params, state_sharding), "v": on(params, state_sharding)},
            jax.ShapeDtypeStruct((), jnp.int32, sharding=device),
            jax.ShapeDtypeStruct((BATCH, SEQUENCE + 1), jnp.int32, sharding=device),
        )
        jit_kwargs: dict[str, Any] = {}
        if adam_on_host and variant == "ok":
            state_out = jax.tree.map(lambda _: host, args[1])
            jit_kwargs["out_shardings"] = (None, state_out, None, None)
        step = train_step(self.remat, self.scanned, units, adam_on_host)
        return jax.jit(step, **jit_kwargs).trace(*args)


MODELS: dict[str, Model] = {
    "remat_names_scan": Model("names", scanned=True, adam_on_host_when_ok=False),
    "remat_names_unrolled": Model("names", scanned=False, adam_on_host_when_ok=False),
    "remat_dots_scan": Model("dots", scanned=True, adam_on_host_when_ok=False),
    "remat_dots_unrolled": Model("dots", scanned=False, adam_on_host_when_ok=False),
    "adam_host": Model(None, scanned=False, adam_on_host_when_ok=True),
}


@functools.cache
def ops_per_unit(model: Model) -> tuple[float, float]:
    """The ops of a model's lowering outside its layers and per unit of size, measured by
    lowering two small sizes, so that no count is written down here."""
    small, large = 2, 4
    ops_small, ops_large = (count_ops(model.lower("ok", units)) for units in (small, large))
    per_unit = (ops_large - ops_small) / (large - small)
    return ops_small - small * per_unit, per_unit


def count_ops(lowered: Any) -> int:
    """Ops of the lowered module, nested regions included (the module itself excluded)."""
    count = 0

    def visit(_: Any) -> Any:
        nonlocal count
        count += 1
        from jax._src.lib.mlir import ir

        return ir.WalkResult.ADVANCE

    lowered.compiler_ir("stablehlo").operation.walk(visit)
    return count - 1


def parameter_shapes(layers: int, stacked: bool) -> Params:
    def layer_shapes(prefix: tuple[int, ...]) -> Params:
        def shape(*dims: int) -> jax.ShapeDtypeStruct:
            return jax.ShapeDtypeStruct((*prefix, *dims), jnp.float32)

        return {
            "norm1": shape(WIDTH),
            "qkv": shape(WIDTH, 3 * WIDTH),
            "out": shape(WIDTH, WIDTH),
            "norm2": shape(WIDTH),
            "up": shape(WIDTH, HIDDEN),
            "down": shape(HIDDEN, WIDTH),
        }

    blocks: Any = layer_shapes((layers,)) if stacked else [layer_shapes(()) for _ in range(layers)]
    return {
        "embedding": jax.ShapeDtypeStruct((VOCAB, WIDTH), jnp.float32),
        "final_norm": jax.ShapeDtypeStruct((WIDTH,), jnp.float32),
        "layers": blocks,
    }


def layer_norm(x: jax.Array, scale: jax.Array) -> jax.Array:
    mean = jnp.mean(x, axis=-1, keepdims=True)
    variance = jnp.mean(jnp.square(x - mean), axis=-1, keepdims=True)
    return (x - mean) * jax.lax.rsqrt(variance + 1e-6) * scale


def attention(x: jax.Array, layer: Params) -> jax.Array:
    head_width = WIDTH // HEADS
    qkv = x @ layer["qkv"]
    q, k, v = (
        part.reshape(BATCH, SEQUENCE, HEADS, head_width) for part in jnp.split(qkv, 3, axis=-1)
    )
    scores = jnp.einsum("bqhd,bkhd->bhqk", q, k) / math.sqrt(head_width)
    causal = jnp.tril(jnp.ones((SEQUENCE, SEQUENCE), dtype=bool))
    weights = jax.nn.softmax(jnp.where(causal, scores, -1e9), axis=-1)
    mixed = jnp.einsum("bhqk,bkhd->bqhd", weights, v).reshape(BATCH, SEQUENCE, WIDTH)
    return mixed @ layer["out"]


def block(x: jax.Array, layer: Params) -> jax.Array:
    h = checkpoint_name(layer_norm(x, layer["norm1"]), "attention_input")
    x = x + checkpoint_name(attention(h, layer), "attention_output")
    h = layer_norm(x, layer["norm2"])
    hidden = checkpoint_name(jax.nn.gelu(h @ layer["up"]), "mlp_hidden")
    return x + hidden @ layer["down"]


def remat_policy(remat: str) -> Callable[..., Any]:
    if remat == "names":
        return jax.checkpoint_policies.save_and_offload_only_these_names(
            names_which_can_be_saved=[],
            names_which_can_be_offloaded=list(OFFLOADED_NAMES),
            offload_src="device",
            offload_dst="pinned_host",
        )
    return jax.checkpoint_policies.offload_dot_with_no_batch_dims("device", "pinned_host")


def train_step(
    remat: str | None, scanned: bool, unroll: int, adam_on_host: bool
) -> Callable[..., Any]:
    layer_fn: Callable[[jax.Array, Params], jax.Array] = block
    if remat is not None:
        layer_fn = jax.checkpoint(block, policy=remat_policy(remat))

    def loss(params: Params, tokens: jax.Array) -> jax.Array:
        inputs, targets = tokens[:, :-1], tokens[:, 1:]
        x = params["embedding"][inputs]
        if scanned:
            x, _ = jax.lax.scan(
                lambda carry, layer: (layer_fn(carry, layer), None),
                x,
                params["layers"],
                unroll=unroll,
            )
        else:
            for layer in params["layers"]:
                x = layer_fn(x, layer)
        logits = layer_norm(x, params["final_norm"]) @ params["embedding"].T
        log_probs = jax.nn.log_softmax(logits, axis=-1)
        picked = jnp.take_along_axis(log_probs, targets[..., None], axis=-1)
        return -jnp.mean(picked)

    def step(
        params: Params, state: Params, count: jax.Array, tokens: jax.Array
    ) -> tuple[Params, Params, jax.Array, jax.Array]:
        value, grads = jax.value_and_grad(loss)(params, tokens)
        count = count + 1
        m = jax.tree.map(lambda m, g: BETA1 * m + (1 - BETA1) * g, state["m"], grads)
        v = jax.tree.map(lambda v, g: BETA2 * v + (1 - BETA2) * g * g, state["v"], grads)
        m_read, v_read = m, v
        if adam_on_host:
            # The moments are updated where they live; the weights' update reads them on
            # the device.
            m_read, v_read = jax.device_put((m, v), jax.memory.Space.Device)
        t = count.astype(jnp.float32)
        scale = LEARNING_RATE * jnp.sqrt(1 - BETA2**t) / (1 - BETA1**t)
        params = jax.tree.map(
            lambda p, m, v: p - scale * m / (jnp.sqrt(v) + EPSILON), params, m_read, v_read
        )
        return params, {"m": m, "v": v}, count, value

    return step
