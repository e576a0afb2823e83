"""Programs that meet the other compile errors of XLA's host offloader, and the strict flags.

XLA's ``HostOffloader`` raises, besides E1200, ``Entry computation parameter "<name>" (shape
index {...}) is not in host memory space.`` when a buffer written by a ``dynamic_update_slice``
whose update is moved to host is an entry argument in device memory (HOE102), and, under
``--xla_disable_automatic_host_compute_offload``, ``Automatic host compute offloading is
disabled.`` for every op it would run as host compute (HOE101), a ``copy`` excepted where
``--xla_allow_h2h_copy_when_automatic_host_compute_offload_disabled`` is set. The programs
here hit each, or just avoid it; a program names the XLA flags it is compiled with, which our
check mirrors with ``strict`` and ``allow_h2h_copy``. JAX programs are lowered for one device of
``v5e:2x2``; HLO programs are HLO text, converted to StableHLO as ``hostoffload`` converts it.

Run with libtpu (one process at a time), from the repository root::

    flock /tmp/libtpu.lock ../oracle-venv/bin/python -m tools.differential.catalogue_sibling \
        --out test/differential/sibling

which writes ``<name>.mlir`` and ``verdicts.json`` (``--verdicts``: another name, for another
libtpu release; the suite keeps ``verdicts.json`` of 0.0.42.1 and
``verdicts-libtpu-0.0.52.json``, each with its ``platform_version``) there: XLA's status and
message for each program, and, for a program XLA rejects naming a parameter, every parameter
it would name (found by re-declaring the named one ``pinned_host`` and compiling again).
``test/python/test_differential_sibling.py`` checks the checker against them without libtpu.
No verdict is written here: XLA is the oracle.
"""

from __future__ import annotations

import argparse
import datetime
import json
import re
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parents[2]
TOPOLOGY = "v5e:2x2"

# XLA's debug options and the keyword of hostoffload.check that mirrors each.
STRICT_FLAG = "xla_disable_automatic_host_compute_offload"
H2H_FLAG = "xla_allow_h2h_copy_when_automatic_host_compute_offload_disabled"
STRICT = {STRICT_FLAG: True}
STRICT_H2H = {STRICT_FLAG: True, H2H_FLAG: True}

# How XLA's message names its error: the status a verdict records.
PARAMETER_NOT_HOST = re.compile(
    r'Entry computation parameter "([^"]+)" \(shape index (\{[^}]*\})\) is not in host memory '
    r"space\."
)
HOST_COMPUTE_DISABLED = "Automatic host compute offloading is disabled."


@dataclass(frozen=True)
class SiblingProgram:
    """A JAX program (``fn`` with abstract ``args``) or HLO text (``hlo``), compiled with
    ``xla_flags``."""

    name: str
    description: str
    fn: Callable[..., Any] | None = None
    args: tuple[Any, ...] = ()
    jit_kwargs: dict[str, Any] = field(default_factory=dict)
    hlo: str | None = None
    xla_flags: dict[str, bool] = field(default_factory=dict)


# --- JAX programs -------------------------------------------------------------------------------

ROWS = (8, 128)
ROW = (1, 128)


def to_host(x: Any) -> Any:
    import jax

    return jax.device_put(x, jax.memory.Space.Host)


def offload_row_into(buf: Any, x: Any) -> Any:
    """Writes ``x`` moved to host into row 0 of ``buf`` moved to host (JAX wants both operands
    of a dynamic_update_slice in one memory space)."""
    from jax import lax

    return lax.dynamic_update_slice(to_host(buf), to_host(x), (0, 0))


def offload_row_into_zeros(x: Any) -> Any:
    import jax.numpy as jnp

    return offload_row_into(jnp.zeros(ROWS, x.dtype), x)


def offload_row_and_back(buf: Any, x: Any) -> Any:
    import jax

    return jax.device_put(offload_row_into(buf, x), jax.memory.Space.Device)


def offload_row_into_second(scale: Any, buf: Any, x: Any) -> tuple[Any, Any]:
    return scale * 2.0, offload_row_into(buf, x * scale)


def scan_offloading_rows(buf: Any, x: Any) -> Any:
    """The pattern of scan-carried offloaded residuals: each step writes a row moved to host
    into the carried buffer, ``buf`` moved to host."""
    import jax.numpy as jnp
    from jax import lax

    def step(carry: Any, i: Any) -> tuple[Any, None]:
        row = to_host(jnp.sin(x) * i.astype(x.dtype))
        return lax.dynamic_update_slice(carry, row, (i, 0)), None

    out, _ = lax.scan(step, to_host(buf), jnp.arange(ROWS[0]))
    return out


def scan_offloading_rows_into_zeros(x: Any) -> Any:
    import jax.numpy as jnp

    return scan_offloading_rows(jnp.zeros(ROWS, x.dtype), x)


def fori_offloading_into_tuple(buf: Any, acc: Any, x: Any) -> tuple[Any, Any]:
    """A fori_loop carrying (accumulator, buffer): the buffer reaches the loop through a tuple."""
    from jax import lax

    def step(i: Any, carry: tuple[Any, Any]) -> tuple[Any, Any]:
        total, rows = carry
        return total + 1.0, lax.dynamic_update_slice(rows, to_host(x + total), (i, 0))

    return lax.fori_loop(0, ROWS[0], step, (acc, to_host(buf)))


def offload_rows_into_both(first: Any, second: Any, x: Any) -> tuple[Any, Any]:
    return offload_row_into(first, x), offload_row_into(second, x * 2.0)


def offload_row_through_call(buf: Any, x: Any) -> Any:
    import jax

    return jax.jit(offload_row_into)(buf, x)


def offload_row_through_barrier(buf: Any, x: Any) -> Any:
    from jax import lax

    buf, x = lax.optimization_barrier((buf, x))
    return offload_row_into(buf, x)


def write_host_row(buf: Any, x: Any) -> Any:
    """A device row written into ``buf`` (no move to host)."""
    from jax import lax

    return lax.dynamic_update_slice(buf, x, (0, 0))


def double(x: Any) -> Any:
    return x * 2.0


def jax_programs() -> list[SiblingProgram]:
    import jax
    import jax.numpy as jnp
    from jax.experimental import topologies
    from jax.sharding import SingleDeviceSharding

    device = topologies.get_topology_desc(TOPOLOGY, platform="tpu").devices[0]

    def sharding(kind: str) -> Any:
        return SingleDeviceSharding(device, memory_kind=kind)

    def arg(kind: str, shape: tuple[int, ...] = ROWS) -> Any:
        return jax.ShapeDtypeStruct(shape, jnp.float32, sharding=sharding(kind))

    host_out = {"out_shardings": sharding("pinned_host")}
    dev, host = "device", "pinned_host"
    p = SiblingProgram
    return [
        p(
            "s_dus_offload_into_device_arg",
            "a row moved to host written into a device argument "
            "with dynamic_update_slice, returned to a pinned_host output",
            offload_row_into,
            (arg(dev), arg(dev, ROW)),
            host_out,
        ),
        p(
            "s_dus_offload_into_host_arg",
            "the same into a pinned_host argument",
            offload_row_into,
            (arg(host), arg(dev, ROW)),
            host_out,
        ),
        p(
            "s_dus_offload_into_zeros",
            "the same into jnp.zeros (a broadcast)",
            offload_row_into_zeros,
            (arg(dev, ROW),),
            host_out,
        ),
        p(
            "s_dus_offload_into_device_arg_device_out",
            "a row moved to host written into a "
            "device argument, returned to a device output (E1200 comes first)",
            offload_row_into,
            (arg(dev), arg(dev, ROW)),
        ),
        p(
            "s_dus_offload_into_device_arg_and_back",
            "a row moved to host written into a device "
            "argument, the buffer moved back to device and returned",
            offload_row_and_back,
            (arg(dev), arg(dev, ROW)),
        ),
        p(
            "s_dus_offload_into_second_arg",
            "the buffer is the second of three arguments",
            offload_row_into_second,
            (arg(dev, ()), arg(dev), arg(dev, ROW)),
            {"out_shardings": (sharding(dev), sharding(host))},
        ),
        p(
            "s_dus_offload_into_both_args",
            "rows moved to host written into two device "
            "arguments, each returned to a pinned_host output",
            offload_rows_into_both,
            (arg(dev), arg(dev), arg(dev, ROW)),
            {"out_shardings": (sharding(host), sharding(host))},
        ),
        p(
            "s_dus_offload_into_one_of_two_args",
            "the same, the first argument pinned_host",
            offload_rows_into_both,
            (arg(host), arg(dev), arg(dev, ROW)),
            {"out_shardings": (sharding(host), sharding(host))},
        ),
        p(
            "s_dus_offload_through_nested_jit",
            "the write in a nested jit (a call) into a device argument of the caller",
            offload_row_through_call,
            (arg(dev), arg(dev, ROW)),
            host_out,
        ),
        p(
            "s_dus_offload_through_barrier",
            "the device argument reaches the write through an optimization_barrier",
            offload_row_through_barrier,
            (arg(dev), arg(dev, ROW)),
            host_out,
        ),
        p(
            "s_dus_offload_into_unpinned_arg",
            "a row moved to host written into an unpinned_host argument",
            offload_row_into,
            (arg("unpinned_host"), arg(dev, ROW)),
            host_out,
        ),
        p(
            "s_scan_offload_into_device_carry",
            "lax.scan writing rows moved to host into a carried buffer that is a device argument",
            scan_offloading_rows,
            (arg(dev), arg(dev, ROW)),
            host_out,
        ),
        p(
            "s_scan_offload_into_host_carry",
            "the same, the buffer a pinned_host argument",
            scan_offloading_rows,
            (arg(host), arg(dev, ROW)),
            host_out,
        ),
        p(
            "s_scan_offload_into_zeros_carry",
            "the same, the buffer jnp.zeros",
            scan_offloading_rows_into_zeros,
            (arg(dev, ROW),),
            host_out,
        ),
        p(
            "s_fori_offload_into_device_tuple_carry",
            "fori_loop carrying (accumulator, buffer), "
            "rows moved to host written into the buffer, a device argument",
            fori_offloading_into_tuple,
            (arg(dev), arg(dev, ROW), arg(dev, ROW)),
            {"out_shardings": (sharding(dev), sharding(host))},
        ),
        p(
            "s_fori_offload_into_host_tuple_carry",
            "the same, the buffer a pinned_host argument",
            fori_offloading_into_tuple,
            (arg(host), arg(dev, ROW), arg(dev, ROW)),
            {"out_shardings": (sharding(dev), sharding(host))},
        ),
        p(
            "s_dus_device_row_into_host_arg",
            "a device row written into a pinned_host argument (no move to host)",
            write_host_row,
            (arg(host), arg(dev, ROW)),
            host_out,
        ),
        p(
            "s_dus_host_row_into_device_arg",
            "a pinned_host row written into a device argument: host compute",
            write_host_row,
            (arg(dev), arg(host, ROW)),
            host_out,
        ),
        p(
            "s_dus_host_row_into_device_arg_strict",
            "the same, strict",
            write_host_row,
            (arg(dev), arg(host, ROW)),
            host_out,
            xla_flags=STRICT,
        ),
        p(
            "s_dus_offload_into_device_arg_strict",
            "a row moved to host written into a device argument, strict",
            offload_row_into,
            (arg(dev), arg(dev, ROW)),
            host_out,
            xla_flags=STRICT,
        ),
        p(
            "s_dus_offload_into_zeros_strict",
            "a row moved to host written into jnp.zeros, strict",
            offload_row_into_zeros,
            (arg(dev, ROW),),
            host_out,
            xla_flags=STRICT,
        ),
        p(
            "s_host_arg_compute_strict",
            "a pinned_host argument computed on, strict",
            double,
            (arg(host),),
            host_out,
            xla_flags=STRICT,
        ),
        p(
            "s_host_arg_compute_strict_h2h",
            "the same with the h2h copy relaxation: still an error (not a copy)",
            double,
            (arg(host),),
            host_out,
            xla_flags=STRICT_H2H,
        ),
    ]


# --- HLO programs -------------------------------------------------------------------------------

HLO_HEADER = "HloModule {name}, entry_computation_layout={{{layout}}}\n\n"


def hlo(name: str, layout: str, body: str) -> str:
    return HLO_HEADER.format(name=name, layout=layout) + body


HLO_NEGATE_ON_HOST = """ENTRY main {
  p0 = f32[8,128]{1,0} parameter(0)
  ROOT negate.1 = f32[8,128]{1,0} negate(p0)
}
"""

HLO_DUS_INTO_PARAMETER = """ENTRY main {
  buf = f32[8,128]{1,0} parameter(0)
  row = f32[1,128]{1,0} parameter(1)
  offloaded = f32[1,128]{1,0} custom-call(row), custom_call_target="MoveToHost"
  zero = s32[] constant(0)
  ROOT dus = f32[8,128]{1,0} dynamic-update-slice(buf, offloaded, zero, zero)
}
"""

HLO_DUS_INTO_BROADCAST = """ENTRY main {
  row = f32[1,128]{1,0} parameter(0)
  c = f32[] constant(0)
  buf = f32[8,128]{1,0} broadcast(c), dimensions={}
  offloaded = f32[1,128]{1,0} custom-call(row), custom_call_target="MoveToHost"
  zero = s32[] constant(0)
  ROOT dus = f32[8,128]{1,0} dynamic-update-slice(buf, offloaded, zero, zero)
}
"""

HLO_DUS_THROUGH_TUPLE = """ENTRY main {
  buf = f32[8,128]{1,0} parameter(0)
  row = f32[1,128]{1,0} parameter(1)
  pair = (f32[8,128]{1,0}, f32[1,128]{1,0}) tuple(buf, row)
  first = f32[8,128]{1,0} get-tuple-element(pair), index=0
  offloaded = f32[1,128]{1,0} custom-call(row), custom_call_target="MoveToHost"
  zero = s32[] constant(0)
  ROOT dus = f32[8,128]{1,0} dynamic-update-slice(first, offloaded, zero, zero)
}
"""

# XLA's own DusFirstOperandIsNotFromABroadcast (host_offloader_test.cc), smaller.
HLO_DUS_FIRST_OPERAND_NOT_BROADCAST = """ENTRY main {
  data_param = f32[1,8,128]{2,1,0} parameter(0)
  index = s32[] parameter(1)
  param_2 = f32[2,8,128]{2,1,0} parameter(2)
  c0 = s32[] constant(0)
  moved = f32[1,8,128]{2,1,0} custom-call(data_param), custom_call_target="MoveToHost"
  dus = f32[2,8,128]{2,1,0} dynamic-update-slice(param_2, moved, index, c0, c0)
  ds = f32[1,8,128]{2,1,0} dynamic-slice(dus, index, c0, c0), dynamic_slice_sizes={1,8,128}
  ROOT load = f32[1,8,128]{2,1,0} custom-call(ds), custom_call_target="MoveToDevice"
}
"""

HLO_WHILE_DUS = """cond {
  p = (s32[], f32[8,128]{1,0}, f32[1,128]{1,0}) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] constant(8)
  ROOT lt = pred[] compare(i, n), direction=LT
}

body {
  p = (s32[], f32[8,128]{1,0}, f32[1,128]{1,0}) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  carried = f32[8,128]{1,0} get-tuple-element(p), index=1
  row = f32[1,128]{1,0} get-tuple-element(p), index=2
  offloaded = f32[1,128]{1,0} custom-call(row), custom_call_target="MoveToHost"
  zero = s32[] constant(0)
  dus = f32[8,128]{1,0} dynamic-update-slice(carried, offloaded, i, zero)
  one = s32[] constant(1)
  next = s32[] add(i, one)
  ROOT t = (s32[], f32[8,128]{1,0}, f32[1,128]{1,0}) tuple(next, dus, row)
}

ENTRY main {
  buf = f32[8,128]{1,0} parameter(0)
  row = f32[1,128]{1,0} parameter(1)
  zero = s32[] constant(0)
  init = (s32[], f32[8,128]{1,0}, f32[1,128]{1,0}) tuple(zero, buf, row)
  w = (s32[], f32[8,128]{1,0}, f32[1,128]{1,0}) while(init), condition=cond, body=body
  ROOT out = f32[8,128]{1,0} get-tuple-element(w), index=1
}
"""

HLO_WHILE_DUS_INTO_BROADCAST = HLO_WHILE_DUS.replace(
    "  buf = f32[8,128]{1,0} parameter(0)\n  row = f32[1,128]{1,0} parameter(1)\n",
    "  c = f32[] constant(0)\n  buf = f32[8,128]{1,0} broadcast(c), dimensions={}\n"
    "  row = f32[1,128]{1,0} parameter(0)\n",
)

HOST_PARAM = "f32[8,128]{1,0:S(5)}"
DEVICE_PARAM = "f32[8,128]{1,0}"
ROW_PARAM = "f32[1,128]{1,0}"


def hlo_programs() -> list[SiblingProgram]:
    p = SiblingProgram
    host_to_host = f"({HOST_PARAM})->{HOST_PARAM}"
    return [
        p(
            "s_hlo_negate_on_host",
            "HLO: a negate of a host parameter to a host output",
            hlo=hlo("negate_on_host", host_to_host, HLO_NEGATE_ON_HOST),
        ),
        p(
            "s_hlo_negate_on_host_strict",
            "the same, strict",
            hlo=hlo("negate_on_host", host_to_host, HLO_NEGATE_ON_HOST),
            xla_flags=STRICT,
        ),
        p(
            "s_hlo_negate_on_host_strict_h2h",
            "HLO: a negate of a host parameter, strict with "
            "the h2h copy relaxation: still an error",
            hlo=hlo("negate_on_host", host_to_host, HLO_NEGATE_ON_HOST),
            xla_flags=STRICT_H2H,
        ),
        p(
            "s_hlo_dus_into_device_parameter",
            "HLO: MoveToHost into a dynamic-update-slice of a "
            "device parameter, returned to a host output",
            hlo=hlo(
                "dus_into_parameter",
                f"({DEVICE_PARAM}, {ROW_PARAM})->{HOST_PARAM}",
                HLO_DUS_INTO_PARAMETER,
            ),
        ),
        p(
            "s_hlo_dus_first_operand_not_broadcast",
            "HLO: XLA's "
            "DusFirstOperandIsNotFromABroadcast, the buffer a device parameter, read back with "
            "dynamic-slice and MoveToDevice",
            hlo=hlo(
                "dus_first_operand_not_broadcast",
                "(f32[1,8,128]{2,1,0}, s32[], f32[2,8,128]{2,1,0})->f32[1,8,128]{2,1,0}",
                HLO_DUS_FIRST_OPERAND_NOT_BROADCAST,
            ),
        ),
        p(
            "s_hlo_while_dus_into_device_parameter",
            "HLO: a while loop writing rows moved to "
            "host into its carried buffer, a device parameter",
            hlo=hlo("while_dus", f"({DEVICE_PARAM}, {ROW_PARAM})->{HOST_PARAM}", HLO_WHILE_DUS),
        ),
        p(
            "s_hlo_while_dus_into_host_parameter",
            "the same, the parameter in host memory",
            hlo=hlo("while_dus", f"({HOST_PARAM}, {ROW_PARAM})->{HOST_PARAM}", HLO_WHILE_DUS),
        ),
        p(
            "s_hlo_while_dus_into_broadcast",
            "the same, the buffer a broadcast",
            hlo=hlo("while_dus", f"({ROW_PARAM})->{HOST_PARAM}", HLO_WHILE_DUS_INTO_BROADCAST),
        ),
        p(
            "s_hlo_dus_into_host_parameter",
            "the same, the parameter in host memory",
            hlo=hlo(
                "dus_into_parameter",
                f"({HOST_PARAM}, {ROW_PARAM})->{HOST_PARAM}",
                HLO_DUS_INTO_PARAMETER,
            ),
        ),
        p(
            "s_hlo_dus_into_broadcast",
            "HLO: MoveToHost into a dynamic-update-slice of a broadcast",
            hlo=hlo("dus_into_broadcast", f"({ROW_PARAM})->{HOST_PARAM}", HLO_DUS_INTO_BROADCAST),
        ),
        p(
            "s_hlo_dus_through_tuple",
            "HLO: the device parameter reaches the dynamic-update-slice through a tuple",
            hlo=hlo(
                "dus_through_tuple",
                f"({DEVICE_PARAM}, {ROW_PARAM})->{HOST_PARAM}",
                HLO_DUS_THROUGH_TUPLE,
            ),
        ),
    ]


def programs() -> list[SiblingProgram]:
    return jax_programs() + hlo_programs()


# --- the oracle (libtpu) ------------------------------------------------------------------------


def status_of(message: str | None) -> dict[str, Any]:
    """The verdict a compile's error message (None: it compiled) records."""
    if message is None:
        return {"status": "ok"}
    found = PARAMETER_NOT_HOST.search(message)
    if found:
        return {"status": "parameter_not_host", "parameter": found[1], "shape_index": found[2]}
    if HOST_COMPUTE_DISABLED in message:
        return {"status": "host_compute_disabled"}
    if "E1200" in message or "HostOffloadOutputLocationMismatch" in message:
        return {"status": "e1200"}
    return {"status": "error"}


def module_text(program: SiblingProgram) -> str:
    """The generic-form module the checker reads (JAX's lowering, or the HLO as
    ``hostoffload`` converts it)."""
    import jax

    from hostoffload import _convert, _forms

    if program.hlo is not None:
        generic = _convert.to_generic(
            program.hlo.encode(), _forms.Form.HLO, f"{program.name}.hlo", None
        )
        return generic.decode()
    lowered = jax.jit(program.fn, **program.jit_kwargs).trace(*program.args).lower()
    asm: str = lowered.compiler_ir("stablehlo").operation.get_asm(
        print_generic_op_form=True, enable_debug_info=True
    )
    return asm.replace(f'"{REPO_ROOT}/', '"')


def with_declared_memory_kinds(text: str) -> str:
    """A module converted from HLO with its entry memory spaces (``arg_memory_spaces``,
    ``out_memory_spaces``) also declared as ``mhlo.memory_kind``, which is how PJRT's MLIR
    path reads them; other modules as they are."""
    from jax._src.interpreters import mlir as jax_mlir

    ir = jax_mlir.ir
    kinds = {"5": "pinned_host", "6": "unpinned_host", "0": "device"}
    with jax_mlir.make_ir_context():
        module = ir.Module.parse(text)
        key = "mhlo.frontend_attributes"
        if not _has_attribute(module.operation, key):
            return text
        attrs = ir.DictAttr(module.operation.attributes[key])
        fields = {attrs[k].name: ir.StringAttr(attrs[k].attr).value for k in range(len(attrs))}
        main = _main(module)
        for spaces_key, attrs_key in (
            ("arg_memory_spaces", "arg_attrs"),
            ("out_memory_spaces", "res_attrs"),
        ):
            spaces = fields.get(spaces_key, "").split(";")
            old = (
                list(ir.ArrayAttr(main.attributes[attrs_key]))
                if _has_attribute(main, attrs_key)
                else []
            )
            new = []
            for index, space in enumerate(spaces):
                entries = ir.DictAttr(old[index]) if index < len(old) else ir.DictAttr.get({})
                values = {entries[k].name: entries[k].attr for k in range(len(entries))}
                values["mhlo.memory_kind"] = ir.StringAttr.get(kinds.get(space, "device"))
                new.append(ir.DictAttr.get(values))
            main.attributes[attrs_key] = ir.ArrayAttr.get(new)
        asm: str = module.operation.get_asm(print_generic_op_form=True, enable_debug_info=True)
        return asm


def _has_attribute(op: Any, name: str) -> bool:
    try:
        op.attributes[name]
    except KeyError:
        return False
    return True


def _main(module: Any) -> Any:
    from jax._src.interpreters import mlir as jax_mlir

    ir = jax_mlir.ir
    return next(
        op
        for op in module.body.operations
        if op.operation.name == "func.func"
        and ir.StringAttr(op.attributes["sym_name"]).value == "main"
    )


def compile_text(device: Any, text: str, flags: dict[str, bool]) -> str | None:
    """Compiles the module for ``device`` as jax.jit does, with XLA debug options ``flags``;
    XLA's error message, or None."""
    import numpy as np
    from jax._src import compiler
    from jax._src.interpreters import mlir as jax_mlir
    from jax._src.lib import xla_client

    with jax_mlir.make_ir_context():
        module = jax_mlir.ir.Module.parse(with_declared_memory_kinds(text))
        options = compiler.get_compile_options(
            num_replicas=1,
            num_partitions=1,
            device_assignment=np.array([[device]]),
            backend=device.client,
            env_options_overrides=dict(flags),
        )
        try:
            device.client.compile(
                module, executable_devices=xla_client.DeviceList((device,)), compile_options=options
            )
        except Exception as error:  # XLA's verdict
            return str(error)
    return None


def with_argument_host(text: str, index: int) -> str:
    """``text`` with entry argument ``index`` of ``@main`` declared pinned_host: through
    ``mhlo.memory_kind`` in a JAX module, through ``arg_memory_spaces`` in one converted from
    HLO."""
    from jax._src.interpreters import mlir as jax_mlir

    ir = jax_mlir.ir
    with jax_mlir.make_ir_context():
        module = ir.Module.parse(text)
        main = next(
            op
            for op in module.body.operations
            if op.operation.name == "func.func"
            and ir.StringAttr(op.attributes["sym_name"]).value == "main"
        )
        spaces_key = "mhlo.frontend_attributes"
        if _has_attribute(module.operation, spaces_key):
            attrs = ir.DictAttr(module.operation.attributes[spaces_key])
            fields = {attrs[k].name: attrs[k].attr for k in range(len(attrs))}
            spaces = ir.StringAttr(fields["arg_memory_spaces"]).value.split(";")
            spaces[index] = "5"
            fields["arg_memory_spaces"] = ir.StringAttr.get(";".join(spaces))
            module.operation.attributes[spaces_key] = ir.DictAttr.get(fields)
        else:
            count = len(main.regions[0].blocks[0].arguments)
            old = (
                list(ir.ArrayAttr(main.attributes["arg_attrs"]))
                if _has_attribute(main, "arg_attrs")
                else [ir.DictAttr.get({})] * count
            )
            new = []
            for position, attrs in enumerate(old):
                entries = ir.DictAttr(attrs)
                fields = {entries[k].name: entries[k].attr for k in range(len(entries))}
                if position == index:
                    fields["mhlo.memory_kind"] = ir.StringAttr.get("pinned_host")
                new.append(ir.DictAttr.get(fields))
            main.attributes["arg_attrs"] = ir.ArrayAttr.get(new)
        asm: str = module.operation.get_asm(print_generic_op_form=True, enable_debug_info=True)
        return asm


def verdict(device: Any, program: SiblingProgram, text: str) -> dict[str, Any]:
    """XLA's verdict on ``text``; for a parameter error, every parameter XLA would name, found
    by re-declaring each named one pinned_host and compiling again."""
    start = time.perf_counter()
    message = compile_text(device, text, program.xla_flags)
    record = status_of(message)
    record["message"] = (message or "").split("\n")[0][:600]
    if record["status"] == "parameter_not_host":
        named = [record["parameter"]]
        current = text
        while True:
            index = parameter_index(current, named[-1])
            if index is None:
                record["probe"] = f"no entry argument is named {named[-1]!r}"
                break
            current = with_argument_host(current, index)
            again = status_of(compile_text(device, current, program.xla_flags))
            if again["status"] != "parameter_not_host" or again["parameter"] in named:
                record["after_declaring_them_host"] = again["status"]
                break
            named.append(again["parameter"])
        record["parameters"] = named
    record["seconds"] = round(time.perf_counter() - start, 3)
    return record


def argument_names(text: str) -> list[str]:
    """The names of the entry arguments: XLA's (``hostoffload.hlo_entry``) in a module
    converted from HLO, else JAX's (the arguments' name locations); "" where there is none."""
    from jax._src.interpreters import mlir as jax_mlir

    ir = jax_mlir.ir
    with jax_mlir.make_ir_context():
        module = ir.Module.parse(text)
        if _has_attribute(module.operation, "hostoffload.hlo_entry"):
            entry = ir.DictAttr(module.operation.attributes["hostoffload.hlo_entry"])
            return [ir.StringAttr(name).value for name in ir.ArrayAttr(entry["arguments"])]
        names = []
        for argument in _main(module).regions[0].blocks[0].arguments:
            found = re.match(r'loc\("([^"]*)"', str(argument.location))
            names.append(found[1] if found else "")
        return names


def parameter_index(text: str, xla_name: str) -> int | None:
    """The entry argument XLA names ``xla_name``: its HLO name, or JAX's name with XLA's
    ``.<n>`` suffix (``buf.1``)."""
    for index, name in enumerate(argument_names(text)):
        if name and (xla_name == name or re.fullmatch(re.escape(name) + r"\.\d+", xla_name)):
            return index
    return None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--only", help="a regex: only the programs it matches")
    parser.add_argument(
        "--verdicts",
        default="verdicts.json",
        help="the name of the verdicts file in --out (one per libtpu release)",
    )
    args = parser.parse_args()
    from importlib import metadata

    import jax
    from jax.experimental import topologies

    device = topologies.get_topology_desc(TOPOLOGY, platform="tpu").devices[0]
    args.out.mkdir(parents=True, exist_ok=True)
    verdicts_path = args.out / args.verdicts
    modules: dict[str, Any] = {}
    if args.only and verdicts_path.exists():
        modules = json.loads(verdicts_path.read_text())["modules"]
    for program in programs():
        if args.only and not re.search(args.only, program.name):
            continue
        text = module_text(program)
        (args.out / f"{program.name}.mlir").write_text(text)
        record = verdict(device, program, text)
        modules[program.name] = {
            "description": program.description,
            "form": "hlo" if program.hlo is not None else "jax",
            "xla_flags": program.xla_flags,
            "xla": record,
        }
        print(f"{program.name}: {record['status']} {record.get('parameters', '')}", flush=True)
    document = {
        "generated": {
            "jax": jax.__version__,
            "jaxlib": metadata.version("jaxlib"),
            "libtpu": metadata.version("libtpu"),
            "platform_version": str(device.client.platform_version).strip(),
            "topology": TOPOLOGY,
            "date": datetime.date.today().isoformat(),
        },
        "modules": dict(sorted(modules.items())),
    }
    verdicts_path.write_text(json.dumps(document, indent=1) + "\n")
    sys.exit(0)


if __name__ == "__main__":
    main()
