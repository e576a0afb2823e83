"""HLO-form programs: the HLO text XLA:TPU itself dumps for recorded JAX programs.

An engineer debugging E1200 holds HLO, not StableHLO: the ``*.before_optimizations.txt`` of
``--xla_dump_to``, or the module HostOffloader ran on, dumped with ``--xla_dump_hlo_pass_re``.
Each program here is a recorded module of the differential suite (``test/differential``),
compiled once more with XLA:TPU with both dumps enabled. Two HLO forms are recorded for it:

- ``before_optimizations``: the module as XLA starts from it; annotations are
  ``annotate_device_placement`` custom calls with ``_xla_buffer_placement``,
  ``compute_on("device_host")`` is a ``call`` with ``_xla_compute_type="host"``, the entry
  memory spaces are ``S(5)`` in ``entry_computation_layout``;
- ``host_offloader``: the module entering the ``host_offloading`` pipeline (HostOffloadLegalize,
  then HostOffloader), after layout assignment: annotations are ``MoveToHost`` /
  ``MoveToDevice`` custom calls, host calls are ``async-start``/``async-done`` on
  ``execution_thread="host"`` around a ``HostExecute`` custom call, reshapes are ``bitcast``s
  and layout changes ``copy``s. XLA's E1200 names an instruction of this module.

Both are the very module XLA compiled, so XLA's verdict on the compile is the verdict on each.
For a rejected program with several outputs, XLA's full set of rejected outputs is found as
``run.py`` does: output i offends iff the program with every other output re-declared
``pinned_host`` is still rejected.

Run with libtpu (one process at a time), from the repository root::

    flock /tmp/libtpu.lock ../oracle-venv/bin/python -m tools.differential.catalogue_hlo \\
        --out test/differential/hlo

which writes ``<program>.<form>.hlo.txt`` and ``verdicts.json`` there. With another libtpu,
``--recompile --verdicts verdicts-libtpu-<version>.json`` compiles the recorded programs again,
each in a process of its own, into a verdicts file of its own.
``test/python/test_differential_hlo.py`` checks the checker against them without libtpu. No
verdict is written here: XLA is the oracle.
"""

from __future__ import annotations

import argparse
import datetime
import hashlib
import json
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tools.differential import layout

REPO_ROOT = Path(__file__).resolve().parents[2]
TOPOLOGY = "v5e:2x2"

# The dump files of each form, by the end of their names (XLA prefixes the module's name).
FORMS = {
    "before_optimizations": ".before_optimizations.txt",
    "host_offloader": ".host_offloading.after_pipeline-start.before_host-offload-legalize.txt",
}
# Dump only what the forms need: the pass pipeline's start files of host_offloading.
DUMP_PASS_RE = "host-offload-legalize"
# XLA's E1200 names the instruction its trace started from.
XLA_START = re.compile(r"Tensor which is moved to host \(starting from ([^)\s]+)\)")


@dataclass(frozen=True)
class HloProgram:
    """A recorded module of the differential suite (``source``), dumped as HLO by XLA; or,
    with ``fn``, a JAX program lowered here: ``fn`` on arguments in the memory kinds
    ``arguments``, with ``out_shardings`` in the kinds ``outputs`` (None: left to JAX), and
    its results re-declared in the module as ``declared`` says."""

    source: str
    description: str
    fn: Callable[..., Any] | None = None
    arguments: tuple[str, ...] = ()
    outputs: tuple[str, ...] | None = None
    declared: tuple[tuple[int, str], ...] = ()


# --- JAX programs with host calls in the HLO XLA's host offloader runs on ----------------------


def host_sine(x: Any) -> Any:
    import jax
    import jax.numpy as jnp
    from jax.experimental.compute_on import compute_on

    return compute_on("device_host")(jax.jit(jnp.sin))(x)


def host_call_then_offload(x: Any) -> tuple[Any, Any]:
    """A host call's result moved to host, and a device result."""
    import jax

    return jax.device_put(host_sine(x), jax.memory.Space.Host), x * 2.0


def host_call_of_host_call(x: Any) -> Any:
    return host_sine(host_sine(x))


def host_call_result_computed(x: Any) -> Any:
    return host_sine(x) * 3.0


P = HloProgram
PROGRAMS = (
    # Host calls (compute_on("device_host")): async-start on the host thread.
    P("compute_on_device_host", "host call on a device argument, its result used on device"),
    P(
        "compute_on_device_host_to_host",
        "host call whose result is returned to a pinned_host "
        "output: XLA keeps it in host memory (no move back)",
    ),
    P(
        "compute_on_device_host_to_host__out0_device",
        "host call whose result is returned to a device output: XLA keeps it in device memory",
    ),
    P(
        "compute_on_host_arg",
        "host call on an S(5) argument, its result returned to a device output",
    ),
    P(
        "compute_on_host_arg_then_device",
        "host call on an S(5) argument; its result and a device copy of it returned",
    ),
    # S(5) parameters and outputs.
    P("host_arg_passthrough", "S(5) parameter returned as it is to a device output"),
    P("host_arg_passthrough_host_out", "S(5) parameter returned to an S(5) output"),
    P(
        "host_arg_compute_no_out_shardings",
        "S(5) parameter multiplied, returned to a device output",
    ),
    P("host_arg_returned_twice", "the same S(5) parameter returned as two device outputs"),
    P(
        "host_arg_three_outputs",
        "two outputs computed from an S(5) parameter, one from a device parameter",
    ),
    # Bitcasts and copies.
    P("host_arg_reshape", "S(5) parameter reshaped (a bitcast) and returned to a device output"),
    P("slice_reshape", "slice of an S(5) parameter reshaped, returned: read into device memory"),
    P(
        "slice_transpose",
        "slice of an S(5) parameter transposed (a copy once layouts are assigned), returned",
    ),
    # Annotations.
    P("device_put_host_host_out_shardings", "annotation to pinned_host returned to an S(5) output"),
    P(
        "device_put_host_host_out_shardings__out0_device",
        "annotation to pinned_host returned as it is to a device output",
    ),
    P(
        "device_put_host_then_compute__out0_device",
        "annotation to pinned_host, multiplied, returned to a device output",
    ),
    P(
        "device_put_host_and_back__out0_device",
        "one output moved to host and returned to a device output, the other moved back first",
    ),
    P(
        "optimization_barrier_offload__out0_device",
        "annotation to pinned_host through an optimization barrier to a device output",
    ),
    P(
        "nested_jit_offload_inside__out0_device",
        "annotation in a nested jit (a call), returned to a device output",
    ),
    # Control flow.
    P("cond_host", "S(5) parameter used in both branches of a conditional, device output"),
    P(
        "fori_stream_into_host_buffer",
        "while loop streaming rows into an S(5) buffer with "
        "dynamic-update-slice, returned to a device output",
    ),
    P("fori_stream_into_host_buffer_host_out", "the same, returned to an S(5) output"),
    P(
        "scan_offload_ys__out1_device",
        "while loop (scan) offloading its ys, returned to a device output",
    ),
    P(
        "dynamic_slice_then_compute",
        "dynamic-slice of an S(5) parameter multiplied, and a device output",
    ),
    # Host calls lowered here.
    P(
        "hlo_host_call_then_offload",
        "a host call's result moved to host and returned to an S(5) output: XLA drops the move",
        host_call_then_offload,
        ("device",),
        ("pinned_host", "device"),
    ),
    P(
        "hlo_host_call_then_offload__out0_device",
        "the same, the output re-declared device: the move to host is an ordinary start",
        host_call_then_offload,
        ("device",),
        ("pinned_host", "device"),
        ((0, "device"),),
    ),
    P(
        "hlo_host_call_of_host_call",
        "a host call on a host call's result, returned to an S(5) output",
        host_call_of_host_call,
        ("device",),
        ("pinned_host",),
    ),
    P(
        "hlo_host_call_on_host_arg_computed",
        "a host call on an S(5) argument, its result multiplied on device",
        host_call_result_computed,
        ("pinned_host",),
        ("device",),
    ),
)


def source_text(program: HloProgram, device: Any) -> str:
    """The generic-form module of ``program``: recorded, or lowered for ``device``."""
    if program.fn is None:
        return layout.recorded_module(layout.SUITE, program.source).read_text()
    import jax
    import jax.numpy as jnp
    from jax.sharding import SingleDeviceSharding

    from tools.differential import mlir_text, worker

    def sharding(kind: str) -> Any:
        return SingleDeviceSharding(device, memory_kind=kind)

    args = [
        jax.ShapeDtypeStruct((8,), jnp.float32, sharding=sharding(k)) for k in program.arguments
    ]
    kwargs = {}
    if program.outputs is not None:
        outs = tuple(sharding(k) for k in program.outputs)
        kwargs["out_shardings"] = outs if len(outs) > 1 else outs[0]
    text = worker.generic_text(jax.jit(program.fn, **kwargs).trace(*args).lower())
    return mlir_text.with_result_kinds(text, dict(program.declared)) if program.declared else text


def compile_text(devices: list[Any], text: str, dump_dir: Path | None) -> str | None:
    """Compiles the module as jax.jit does, dumping HLO to ``dump_dir``; XLA's error message,
    or None."""
    import numpy as np
    from jax._src import compiler
    from jax._src.interpreters import mlir as jax_mlir
    from jax._src.lib import xla_client

    with jax_mlir.make_ir_context():
        module = jax_mlir.ir.Module.parse(text)
        options = compiler.get_compile_options(
            num_replicas=1,
            num_partitions=len(devices),
            device_assignment=np.array([devices]),
            backend=devices[0].client,
        )
        if dump_dir is not None:
            debug = options.executable_build_options.debug_options
            debug.xla_dump_to = str(dump_dir)
            debug.xla_dump_hlo_pass_re = DUMP_PASS_RE
        try:
            devices[0].client.compile(
                module,
                executable_devices=xla_client.DeviceList(tuple(devices)),
                compile_options=options,
            )
        except Exception as error:  # XLA's verdict
            return str(error)
    return None


def is_e1200(message: str | None) -> bool:
    return message is not None and (
        "E1200" in message or "HostOffloadOutputLocationMismatch" in message
    )


def full_set(devices: list[Any], text: str, count: int) -> list[int]:
    """XLA's full set of rejected outputs of a rejected module with ``count`` outputs."""
    from tools.differential import mlir_text

    if count == 1:
        return [0]
    offending = []
    for index in range(count):
        others = {i: "pinned_host" for i in range(count) if i != index}
        if is_e1200(compile_text(devices, mlir_text.with_result_kinds(text, others), None)):
            offending.append(index)
    return offending


def dump_file(dump_dir: Path, suffix: str) -> Path:
    found = sorted(dump_dir.glob(f"*{suffix}"))
    if len(found) != 1:
        raise RuntimeError(f"expected one dump file *{suffix} in {dump_dir}, found {found}")
    return found[0]


def record(devices: list[Any], program: HloProgram, out_dir: Path) -> dict[str, Any]:
    """Compiles ``program`` with dumps; writes its HLO forms to ``out_dir`` and returns their
    entries of ``verdicts.json``."""
    from tools.differential import mlir_text

    text = source_text(program, devices[0])
    results = mlir_text.results(text)
    with tempfile.TemporaryDirectory() as staging:
        dump_dir = Path(staging)
        start = time.perf_counter()
        message = compile_text(devices, text, dump_dir)
        seconds = time.perf_counter() - start
        outputs = full_set(devices, text, len(results)) if is_e1200(message) else []
        named = XLA_START.search(message or "")
        xla = {
            "status": "ok" if message is None else ("e1200" if is_e1200(message) else "error"),
            "e1200_outputs": outputs,
            "message": (message or "").strip()[:4000],
            "xla_name": named[1] if named else None,
            "seconds": round(seconds, 3),
        }
        entries = {}
        for form, suffix in FORMS.items():
            name = f"{program.source}.{form}"
            shutil.copyfile(dump_file(dump_dir, suffix), out_dir / f"{name}.hlo.txt")
            entries[name] = {
                "kind": "program",
                "program": program.source,
                "form": form,
                "description": program.description,
                "declared_memory_kinds": [r.memory_kind for r in results],
                "xla": xla,
            }
    return entries


def recompile(out_dir: Path, verdicts: str, only: str | None) -> None:
    """XLA's verdicts, with the installed libtpu, on the programs recorded in ``out_dir``, into
    the verdicts file ``verdicts``: each program is compiled as it was recorded (with its
    dumps and probes), by a process of its own, so that a libtpu abort is a crash and no
    verdict. Each entry keeps the ``module_sha256`` of the dump on disk, and says whether this
    libtpu dumped the same text (``same_dump``)."""
    recorded = json.loads((out_dir / "verdicts.json").read_text())["modules"]
    programs = sorted({entry["program"] for entry in recorded.values()})
    modules: dict[str, Any] = {}
    generated: dict[str, str] = {}
    for program in programs:
        if only and not re.search(only, program):
            continue
        with tempfile.TemporaryDirectory(prefix="hostoffload-hlo-") as scratch:
            command = [sys.executable, "-m", "tools.differential.catalogue_hlo", "--out", scratch]
            command += ["--only", f"^{re.escape(program)}$"]
            done = subprocess.run(
                command, capture_output=True, text=True, timeout=600, cwd=REPO_ROOT, check=False
            )
            compiled = Path(scratch) / "verdicts.json"
            result = json.loads(compiled.read_text()) if done.returncode == 0 else None
            if result is not None:
                generated = result["generated"]
            for form in FORMS:
                name = f"{program}.{form}"
                text = (out_dir / f"{name}.hlo.txt").read_bytes()
                entry = {k: v for k, v in recorded[name].items() if k != "xla"}
                entry["module_sha256"] = hashlib.sha256(text).hexdigest()
                if result is None:
                    tail = "\n".join(done.stderr.strip().splitlines()[-5:])
                    entry["xla"] = {
                        "status": "crash",
                        "e1200_outputs": None,
                        "message": f"exit {done.returncode}: {tail}"[:4000],
                        "xla_name": None,
                    }
                else:
                    entry["xla"] = result["modules"][name]["xla"]
                    dumped = (Path(scratch) / f"{name}.hlo.txt").read_bytes()
                    entry["same_dump"] = dumped == text
                modules[name] = entry
        verdict = modules[f"{program}.before_optimizations"]["xla"]
        print(f"{program}: {verdict['status']} {verdict['e1200_outputs']}", flush=True)
    if not generated:
        raise SystemExit("no program compiled: libtpu did not start")
    document = {"generated": generated, "modules": dict(sorted(modules.items()))}
    (out_dir / verdicts).write_text(json.dumps(document, indent=1) + "\n")


def versions(device: Any) -> dict[str, str]:
    from tools.differential import worker

    return worker.versions(device, TOPOLOGY) | {"date": datetime.date.today().isoformat()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--only", help="regenerate the programs this regex matches")
    parser.add_argument(
        "--recompile",
        action="store_true",
        help="compile the dumps recorded in --out with the installed libtpu instead",
    )
    parser.add_argument("--verdicts", help="with --recompile: the verdicts file to write")
    args = parser.parse_args()
    if args.recompile:
        if not args.verdicts or args.verdicts == "verdicts.json":
            parser.error("--recompile writes another verdicts file: give --verdicts")
        recompile(args.out, args.verdicts, args.only)
        return

    from jax.experimental import topologies

    devices = list(topologies.get_topology_desc(TOPOLOGY, platform="tpu").devices)[:1]
    args.out.mkdir(parents=True, exist_ok=True)
    verdicts_path = args.out / "verdicts.json"
    modules: dict[str, Any] = {}
    if args.only and verdicts_path.exists():
        modules = json.loads(verdicts_path.read_text())["modules"]
    for program in PROGRAMS:
        if args.only and not re.search(args.only, program.source):
            continue
        entries = record(devices, program, args.out)
        modules.update(entries)
        verdict = next(iter(entries.values()))["xla"]
        print(f"{program.source}: {verdict['status']} {verdict['e1200_outputs']}", flush=True)
    verdicts = {"generated": versions(devices[0]), "modules": dict(sorted(modules.items()))}
    verdicts_path.write_text(json.dumps(verdicts, indent=1) + "\n")


if __name__ == "__main__":
    main()
