"""Programs over meshes of 2, 4 and 8 TPU devices, and the forms JAX gives them.

``NamedSharding`` placements, ``shard_map`` bodies that offload or call nested ``jit``s and
``compute_on``, remat offload policies and optimizer state in ``pinned_host`` with sharded
arguments, modules made by ``jax.export``, donated arguments and explicit layouts. The meshes
are laid over the devices of compile-only topologies: 2 and 4 devices of ``v5e:2x2``, the 8 of
``v5e:2x4``. Call :func:`programs` once per process (it makes the topologies). No verdict is
written here: XLA is the oracle.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
from jax.experimental.compute_on import compute_on
from jax.experimental.layout import Format, Layout
from jax.sharding import Mesh, NamedSharding
from jax.sharding import PartitionSpec as P

from tools.differential import catalogue
from tools.differential.catalogue import OFFLOAD_DOTS, OFFLOAD_X, Program, layer

F32 = jnp.float32
ROWS = (16, 128)  # 16 rows: divisible by every mesh axis product used here


@dataclass(frozen=True)
class MeshProgram(Program):
    """A program over ``mesh`` (devices of ``topology``); ``export``: lowered by jax.export."""

    mesh: Any = None
    topology: str = "v5e:2x2"
    export: bool = False

    @property
    def devices(self) -> int:
        return int(self.mesh.size)

    def device_sharding(self) -> NamedSharding:
        """Replicated in device memory: the sharding a JAX-level mutant gives an output."""
        return NamedSharding(self.mesh, P(), memory_kind="device")


@dataclass(frozen=True)
class MeshSetup:
    name: str  # "m2", "m4", "m8"
    mesh: Mesh
    topology: str
    rows: P  # how the rows of a ROWS array are split over the mesh

    def sharding(self, kind: str, spec: P | None = None) -> NamedSharding:
        return NamedSharding(self.mesh, self.rows if spec is None else spec, memory_kind=kind)

    def arg(self, kind: str, shape: tuple[int, ...] = ROWS, spec: P | None = None) -> Any:
        return jax.ShapeDtypeStruct(shape, F32, sharding=self.sharding(kind, spec))


def meshes() -> list[MeshSetup]:
    from jax.experimental import topologies

    four = topologies.get_topology_desc("v5e:2x2", platform="tpu").devices
    eight = topologies.get_topology_desc("v5e:2x4", platform="tpu").devices
    return [
        MeshSetup("m2", Mesh(np.array(four[:2]), ("x",)), "v5e:2x2", P("x")),
        MeshSetup("m4", Mesh(np.array(four).reshape(2, 2), ("x", "y")), "v5e:2x2", P(("x", "y"))),
        MeshSetup("m8", Mesh(np.array(eight).reshape(2, 4), ("x", "y")), "v5e:2x4", P(("x", "y"))),
    ]


# --- NamedSharding placements -------------------------------------------------------------------


def scale(x: jax.Array) -> jax.Array:
    return x * 2.0


def identity(x: jax.Array) -> jax.Array:
    return x


def scale_both(x: jax.Array) -> tuple[jax.Array, jax.Array]:
    return x, x * 2.0


def put_host(s: NamedSharding) -> Callable[[jax.Array], jax.Array]:
    def fn(x: jax.Array) -> jax.Array:
        return jax.device_put(x * 2.0, s)

    return fn


def put_host_then_compute(s: NamedSharding) -> Callable[[jax.Array], jax.Array]:
    def fn(x: jax.Array) -> jax.Array:
        return jax.device_put(x, s) * 2.0

    return fn


def put_host_and_back(host: NamedSharding, device: NamedSharding) -> Callable[..., Any]:
    def fn(x: jax.Array) -> tuple[jax.Array, jax.Array]:
        y = jax.device_put(x * 2.0, host)
        return y, jax.device_put(y, device) + 1.0

    return fn


def to_device(device: NamedSharding) -> Callable[[jax.Array], jax.Array]:
    def fn(x: jax.Array) -> jax.Array:
        return jax.device_put(x, device) * 2.0

    return fn


@compute_on("device_host")
@jax.jit
def host_sine(x: jax.Array) -> jax.Array:
    return jnp.sin(x)


def compute_on_host(x: jax.Array) -> jax.Array:
    return host_sine(x) + 1.0


def compute_on_host_to_host(x: jax.Array) -> jax.Array:
    return host_sine(x)


def placement_programs(m: MeshSetup) -> list[Program]:
    d, p = m.sharding("device"), m.sharding("pinned_host")
    n = m.name
    mesh = {"mesh": m.mesh, "topology": m.topology}
    what = f"over a mesh of {m.mesh.size} devices"
    return [
        MeshProgram(
            f"{n}_host_arg_passthrough",
            identity,
            (m.arg("pinned_host"),),
            f"a sharded pinned_host argument returned to a pinned_host output, {what}",
            {"out_shardings": p},
            **mesh,
        ),
        MeshProgram(
            f"{n}_host_arg_compute_no_out_shardings",
            scale,
            (m.arg("pinned_host"),),
            f"a sharded pinned_host argument multiplied, no out_shardings, {what}",
            **mesh,
        ),
        MeshProgram(
            f"{n}_host_arg_compute_device_out",
            scale,
            (m.arg("pinned_host"),),
            f"a sharded pinned_host argument multiplied, output declared device, {what}",
            {"out_shardings": d},
            **mesh,
        ),
        MeshProgram(
            f"{n}_host_arg_returned_and_computed",
            scale_both,
            (m.arg("pinned_host"),),
            f"a sharded pinned_host argument returned and multiplied, no out_shardings, {what}",
            **mesh,
        ),
        MeshProgram(
            f"{n}_replicated_host_arg_compute",
            scale,
            (m.arg("pinned_host", spec=P()),),
            f"a replicated pinned_host argument multiplied, no out_shardings, {what}",
            **mesh,
        ),
        MeshProgram(
            f"{n}_device_put_host",
            put_host(p),
            (m.arg("device"),),
            f"device_put to a pinned_host NamedSharding, output declared so, {what}",
            {"out_shardings": p},
            **mesh,
        ),
        MeshProgram(
            f"{n}_device_put_host_no_out_shardings",
            put_host(p),
            (m.arg("device"),),
            f"device_put to a pinned_host NamedSharding, no out_shardings, {what}",
            **mesh,
        ),
        MeshProgram(
            f"{n}_device_put_host_then_compute",
            put_host_then_compute(p),
            (m.arg("device"),),
            f"device_put to pinned_host then multiplied, no out_shardings, {what}",
            **mesh,
        ),
        MeshProgram(
            f"{n}_device_put_host_and_back",
            put_host_and_back(p, d),
            (m.arg("device"),),
            f"device_put to pinned_host, returned and moved back to compute, {what}",
            {"out_shardings": (p, d)},
            **mesh,
        ),
        MeshProgram(
            f"{n}_host_arg_to_device",
            to_device(d),
            (m.arg("pinned_host"),),
            f"a sharded pinned_host argument moved to device, then multiplied, {what}",
            **mesh,
        ),
        MeshProgram(
            f"{n}_compute_on_device_host",
            compute_on_host,
            (m.arg("device"),),
            f"compute_on('device_host') on a sharded device argument, used on device, {what}",
            **mesh,
        ),
        MeshProgram(
            f"{n}_compute_on_device_host_to_host",
            compute_on_host_to_host,
            (m.arg("device"),),
            f"compute_on('device_host') result returned to a pinned_host output, {what}",
            {"out_shardings": p},
            **mesh,
        ),
    ]


# --- shard_map ----------------------------------------------------------------------------------


@jax.jit
def inner_triple(y: jax.Array) -> jax.Array:
    return y * 3.0


def shard_map_programs(m: MeshSetup) -> list[Program]:
    n = m.name
    mesh = {"mesh": m.mesh, "topology": m.topology}
    spec = m.rows
    d, p = m.sharding("device"), m.sharding("pinned_host")
    what = f"in a shard_map over a mesh of {m.mesh.size} devices"

    def smap(body: Callable[..., Any], count: int = 1, outs: int = 1) -> Callable[..., Any]:
        in_specs = spec if count == 1 else (spec,) * count
        out_specs = spec if outs == 1 else (spec,) * outs
        return jax.shard_map(body, mesh=m.mesh, in_specs=in_specs, out_specs=out_specs)

    def offload_in_body(x: jax.Array) -> jax.Array:
        return jax.device_put(x * 2.0, jax.memory.Space.Host)

    def offload_then_compute(x: jax.Array) -> jax.Array:
        return jax.device_put(x, jax.memory.Space.Host) * 2.0

    def offload_and_back(x: jax.Array) -> tuple[jax.Array, jax.Array]:
        y = jax.device_put(x * 2.0, jax.memory.Space.Host)
        return y, jax.device_put(y, jax.memory.Space.Device) + 1.0

    def host_sine_then_add(x: jax.Array) -> jax.Array:
        return host_sine(x) + 1.0

    def nested_jit(x: jax.Array) -> jax.Array:
        return inner_triple(x) + 1.0

    def nested_jit_offload(x: jax.Array) -> jax.Array:
        return jax.jit(lambda y: jax.device_put(y * 2.0, jax.memory.Space.Host))(x)

    return [
        MeshProgram(
            f"{n}_shard_map_identity_host_arg",
            smap(identity),
            (m.arg("pinned_host"),),
            f"a pinned_host argument returned {what}, output declared pinned_host",
            {"out_shardings": p},
            **mesh,
        ),
        MeshProgram(
            f"{n}_shard_map_compute_host_arg",
            smap(scale),
            (m.arg("pinned_host"),),
            f"a pinned_host argument multiplied {what}, no out_shardings",
            **mesh,
        ),
        MeshProgram(
            f"{n}_shard_map_offload_host_out",
            smap(offload_in_body),
            (m.arg("device"),),
            f"device_put(Space.Host) {what}, output declared pinned_host",
            {"out_shardings": p},
            **mesh,
        ),
        MeshProgram(
            f"{n}_shard_map_offload_device_out",
            smap(offload_in_body),
            (m.arg("device"),),
            f"device_put(Space.Host) {what}, output declared device",
            {"out_shardings": d},
            **mesh,
        ),
        MeshProgram(
            f"{n}_shard_map_offload_then_compute",
            smap(offload_then_compute),
            (m.arg("device"),),
            f"device_put(Space.Host) then multiplied {what}",
            **mesh,
        ),
        MeshProgram(
            f"{n}_shard_map_offload_and_back",
            smap(offload_and_back, outs=2),
            (m.arg("device"),),
            f"device_put to host, returned and moved back to compute {what}",
            {"out_shardings": (p, d)},
            **mesh,
        ),
        MeshProgram(
            f"{n}_shard_map_compute_on",
            smap(host_sine_then_add),
            (m.arg("device"),),
            f"compute_on('device_host') {what}, result used on device",
            **mesh,
        ),
        MeshProgram(
            f"{n}_shard_map_compute_on_host_out",
            smap(compute_on_host_to_host),
            (m.arg("device"),),
            f"compute_on('device_host') {what}, returned to a pinned_host output",
            {"out_shardings": p},
            **mesh,
        ),
        MeshProgram(
            f"{n}_shard_map_nested_jit",
            smap(nested_jit),
            (m.arg("device"),),
            f"a nested jit {what}",
            **mesh,
        ),
        MeshProgram(
            f"{n}_shard_map_nested_jit_host_arg",
            smap(nested_jit),
            (m.arg("pinned_host"),),
            f"a nested jit on a pinned_host argument {what}",
            **mesh,
        ),
        MeshProgram(
            f"{n}_shard_map_nested_jit_offload",
            smap(nested_jit_offload),
            (m.arg("device"),),
            f"a nested jit that offloads its result {what}, output declared pinned_host",
            {"out_shardings": p},
            **mesh,
        ),
        MeshProgram(
            f"{n}_shard_map_nested_jit_offload_device_out",
            smap(nested_jit_offload),
            (m.arg("device"),),
            f"a nested jit that offloads its result {what}, output declared device",
            {"out_shardings": d},
            **mesh,
        ),
    ]


# --- remat offload and optimizer state under a mesh ---------------------------------------------


def scan_loss(policy: Any) -> Callable[[jax.Array, jax.Array], jax.Array]:
    def loss(w: jax.Array, h0: jax.Array) -> jax.Array:
        def body(h: jax.Array, _: None) -> tuple[jax.Array, None]:
            return jax.checkpoint(layer, policy=policy)(w, h), None

        h, _ = lax.scan(body, h0, None, length=3)
        return jnp.sum(h)

    return loss


def adam_step(
    params: jax.Array, grads: jax.Array, mu: jax.Array, nu: jax.Array
) -> tuple[jax.Array, jax.Array, jax.Array]:
    """One Adam step whose moments live in pinned_host (moved to device to be updated)."""
    dev_mu = jax.device_put(mu, jax.memory.Space.Device)
    dev_nu = jax.device_put(nu, jax.memory.Space.Device)
    new_mu = 0.9 * dev_mu + 0.1 * grads
    new_nu = 0.999 * dev_nu + 0.001 * grads * grads
    new_params = params - 1e-3 * new_mu / (jnp.sqrt(new_nu) + 1e-8)
    return new_params, new_mu, new_nu


def adam_step_on_host(
    params: jax.Array, grads: jax.Array, mu: jax.Array, nu: jax.Array
) -> tuple[jax.Array, jax.Array, jax.Array]:
    """The moments decayed where they are (host compute on pinned_host), then used on device."""
    new_mu = mu * 0.9
    new_nu = nu * 0.999
    step = jax.device_put(new_mu, jax.memory.Space.Device) * grads
    return params - 1e-3 * step, new_mu, new_nu


def training_programs(m: MeshSetup) -> list[Program]:
    n = m.name
    mesh = {"mesh": m.mesh, "topology": m.topology}
    d, p = m.sharding("device"), m.sharding("pinned_host")
    w_spec = P(None, m.rows[0])
    w = m.arg("device", (128, 128), w_spec)
    h = m.arg("device", ROWS)
    what = f"over a mesh of {m.mesh.size} devices"
    state = (m.arg("device"), m.arg("device"), m.arg("pinned_host"), m.arg("pinned_host"))
    return [
        MeshProgram(
            f"{n}_remat_offload_scan_grad",
            jax.grad(scan_loss(OFFLOAD_X)),
            (w, h),
            f"save_and_offload_only_these_names under scan, grad, sharded weights {what}",
            **mesh,
        ),
        MeshProgram(
            f"{n}_remat_offload_dots_scan_grad",
            jax.grad(scan_loss(OFFLOAD_DOTS)),
            (w, h),
            f"offload_dot_with_no_batch_dims under scan, grad, sharded weights {what}",
            **mesh,
        ),
        MeshProgram(
            f"{n}_adam_state_offload",
            adam_step,
            state,
            f"Adam moments in pinned_host, updated on device and returned to host {what}",
            {"out_shardings": (d, p, p)},
            **mesh,
        ),
        MeshProgram(
            f"{n}_adam_state_offload_no_out_shardings",
            adam_step,
            state,
            f"Adam moments in pinned_host, updated on device, no out_shardings {what}",
            **mesh,
        ),
        MeshProgram(
            f"{n}_adam_state_on_host",
            adam_step_on_host,
            state,
            f"Adam moments in pinned_host decayed where they are, out_shardings host {what}",
            {"out_shardings": (d, p, p)},
            **mesh,
        ),
    ]


# --- jax.export, donation, layouts --------------------------------------------------------------


def form_programs(m: MeshSetup) -> list[Program]:
    n = m.name
    mesh = {"mesh": m.mesh, "topology": m.topology}
    d, p = m.sharding("device"), m.sharding("pinned_host")
    what = f"over a mesh of {m.mesh.size} devices"
    row_major = Layout(major_to_minor=(0, 1))

    def laid_out(kind: str) -> Any:
        return jax.ShapeDtypeStruct(ROWS, F32, sharding=Format(row_major, m.sharding(kind)))

    return [
        MeshProgram(
            f"{n}_export_host_arg_passthrough",
            identity,
            (m.arg("pinned_host"),),
            f"jax.export of a pinned_host argument returned to a pinned_host output {what}",
            {"out_shardings": p},
            export=True,
            **mesh,
        ),
        MeshProgram(
            f"{n}_export_host_arg_compute",
            scale,
            (m.arg("pinned_host"),),
            f"jax.export of a pinned_host argument multiplied, output declared device {what}",
            {"out_shardings": d},
            export=True,
            **mesh,
        ),
        MeshProgram(
            f"{n}_export_device_put_host",
            put_host(p),
            (m.arg("device"),),
            f"jax.export of device_put to pinned_host, output declared pinned_host {what}",
            {"out_shardings": p},
            export=True,
            **mesh,
        ),
        MeshProgram(
            f"{n}_donated_host_arg_compute",
            scale,
            (m.arg("pinned_host"),),
            f"a donated pinned_host argument multiplied, output declared pinned_host {what}",
            {"out_shardings": p, "donate_argnums": 0},
            **mesh,
        ),
        MeshProgram(
            f"{n}_donated_device_put_host",
            put_host(p),
            (m.arg("device"),),
            f"a donated device argument offloaded, output declared device {what}",
            {"out_shardings": d, "donate_argnums": 0},
            **mesh,
        ),
        MeshProgram(
            f"{n}_layout_host_arg_compute",
            scale,
            (laid_out("pinned_host"),),
            f"a pinned_host argument with an explicit layout, multiplied, no out_shardings {what}",
            **mesh,
        ),
        MeshProgram(
            f"{n}_layout_host_out",
            put_host(p),
            (laid_out("device"),),
            f"device_put to pinned_host, output with an explicit layout in pinned_host {what}",
            {"out_shardings": Format(row_major, p)},
            **mesh,
        ),
    ]


def programs() -> list[Program]:
    out: list[Program] = []
    for m in meshes():
        out += placement_programs(m)
        if m.name != "m8":
            out += shard_map_programs(m)
        out += training_programs(m)
        if m.name != "m4":
            out += form_programs(m)
    return out


def device_sharding_of(program: Program, leaf: Any) -> Any:
    """What a JAX-level mutant declares for an output of ``program`` whose ``out_shardings``
    leaf is ``leaf`` (None: unspecified): the same sharding and layout in device memory."""
    if not isinstance(program, MeshProgram):
        return catalogue.dev()
    if isinstance(leaf, Format):
        return Format(leaf.layout, leaf.sharding.with_memory_kind("device"))
    if isinstance(leaf, NamedSharding):
        return leaf.with_memory_kind("device")
    return program.device_sharding()
