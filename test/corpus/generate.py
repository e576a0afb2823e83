"""Generate the corpus of real JAX lowerings used by ``test/python/test_corpus.py``.

The programs are taken by name from ``tools/differential/catalogue.py``; this script only says
which of them form the corpus and what XLA does with each.

Every program is lowered for TPU on a machine without a TPU: the catalogue is built on the CPU
device, so the arguments are ``jax.ShapeDtypeStruct`` values placed on it with an explicit memory
kind, and the lowering asks for ``lowering_platforms=("tpu",)``, so the
``annotate_device_placement`` custom calls and the ``mhlo.memory_kind`` attributes survive (a CPU
lowering drops them).

Each module is written in MLIR's generic form with debug locations (the interchange format of
docs/reference: it parses without the StableHLO, CHLO and Shardy dialects) to
``test/corpus/<name>.mlir``; ``test/corpus/expected.json`` records, per program, the entry
output indices for which XLA raises E1200 together with a one-line reason.

The verdicts are derived by hand from the rules of host-offload-semantics.md (sections 2-4 and
7) by reading each generated module, not by running the checker; slice_then_compute's is the one
XLA:TPU gave (docs/differential.md).

Run from the repository root::

    python test/corpus/generate.py
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jax

REPO_ROOT = Path(__file__).resolve().parents[2]
CORPUS_DIR = REPO_ROOT / "test" / "corpus"

sys.path.insert(0, str(REPO_ROOT / "tools" / "differential"))
import catalogue  # noqa: E402  (the differential harness directory, after the path is set)
import worker  # noqa: E402


@dataclass(frozen=True)
class Verdict:
    e1200_outputs: tuple[int, ...]
    description: str


VERDICTS: dict[str, Verdict] = {
    "host_arg_compute_no_out_shardings": Verdict(
        (0,),
        "pinned_host arg -> multiply (host compute, still host) -> output 0 declared device",
    ),
    "host_arg_compute_partial_out_shardings": Verdict(
        (1,),
        "out_shardings (host, None): output 0 is annotated pinned_host and declared so; "
        "output 1 = host arg + device arg is host but declared device",
    ),
    "host_arg_compute_host_out_shardings": Verdict(
        (),
        "out_shardings (host, host): both host results are annotated and declared pinned_host",
    ),
    "host_arg_compute_device_out_shardings": Verdict(
        (),
        "out_shardings (device, device): JAX appends a move-to-device annotation on each output",
    ),
    "host_arg_passthrough": Verdict(
        (0,),
        "pinned_host arg returned untouched to output 0 declared device (JAX does not "
        "propagate the argument's memory kind)",
    ),
    "host_arg_passthrough_host_out": Verdict(
        (),
        "pinned_host arg -> pinned_host annotation -> output 0 declared pinned_host",
    ),
    "host_arg_device_put_device": Verdict(
        (),
        "pinned_host arg moved to device by device_put before compute (ParameterStreaming)",
    ),
    "unpinned_host_single_output": Verdict(
        (),
        "single result is directly an unpinned_host annotation of a device value: XLA's "
        "root special case (warning only)",
    ),
    "unpinned_host_two_outputs": Verdict(
        (0,),
        "two results, so no root special case: unpinned_host annotation reaches output 0 "
        "declared unpinned_host (not host memory space for XLA)",
    ),
    "unpinned_host_from_host_arg": Verdict(
        (0,),
        "pinned_host arg -> unpinned_host annotation -> output 0 declared unpinned_host; the "
        "annotation's operand is already on a host path, so no root special case",
    ),
    "device_put_host_no_out_shardings": Verdict(
        (),
        "device_put(pinned_host) result returned; JAX propagates pinned_host onto output 0",
    ),
    "device_put_host_host_out_shardings": Verdict(
        (),
        "device_put(pinned_host) returned to output 0 declared pinned_host (out_shardings)",
    ),
    "device_put_host_device_out_shardings": Verdict(
        (),
        "device_put(pinned_host) with out_shardings device: JAX appends a move-to-device",
    ),
    "device_put_host_and_back": Verdict(
        (),
        "output 0 host, propagated to pinned_host by JAX; output 1 moved back to device by "
        "device_put before the add",
    ),
    "device_put_host_then_compute": Verdict(
        (),
        "device_put(pinned_host) then multiply (host compute); JAX propagates pinned_host "
        "through the multiply onto output 0",
    ),
    "scan_offload_ys": Verdict(
        (),
        "scan stacks device_put(pinned_host) ys via DUS in a while; JAX declares output 1 "
        "pinned_host; output 0 (carry) is device",
    ),
    "scan_offload_ys_device_out": Verdict(
        (),
        "same scan, out_shardings (device, device): JAX appends move-to-device on output 1",
    ),
    "compute_on_device_host": Verdict(
        (),
        "compute_on('device_host') call on a device value: host compute is not a trace start",
    ),
    "compute_on_device_host_to_host": Verdict(
        (),
        "compute_on('device_host') result annotated pinned_host, output 0 declared pinned_host",
    ),
    "remat_offload_scan_grad": Verdict(
        (),
        "remat offload: residual moved to pinned_host in the forward scan, stacked by DUS, "
        "read back by dynamic_slice in the backward scan; the gradient is device",
    ),
    "remat_offload_fori_grad": Verdict(
        (),
        "remat offload under fori_loop (lowered as scan): same as the scan case, no host "
        "value reaches the gradient output",
    ),
    "remat_offload_scan_value_and_grad": Verdict(
        (),
        "value_and_grad with remat offload: loss and gradient are both computed on device",
    ),
    "while_host_carry": Verdict(
        (1,),
        "pinned_host arg carried through a while (multiplied in the body) to output 1 "
        "declared device; the counter output 0 is device",
    ),
    "while_host_carry_to_device": Verdict(
        (),
        "same while, loop result moved back by device_put before being returned",
    ),
    "cond_host": Verdict(
        (0,),
        "pinned_host arg used in both branches of a case, branch result 0 returned to output 0 "
        "declared device; output 1 comes from a device arg",
    ),
    "cond_host_to_device": Verdict(
        (),
        "same cond, result 0 moved back by device_put",
    ),
    "nested_jit": Verdict(
        (0,),
        "pinned_host arg -> call @inner_double -> output 0 declared device; output 1 goes "
        "through a different callee from a device arg",
    ),
    "nested_jit_shared_callee": Verdict(
        (0,),
        "one callee called with the host arg (output 0) and a device arg (output 1): XLA "
        "flattens the call graph, so only output 0 is host",
    ),
    "pytree_partial_offload": Verdict(
        (0, 4),
        "outputs in key order (ema g m step v w): m is annotated and declared pinned_host; "
        "ema and v are computed from pinned_host args and declared device",
    ),
    "optimization_barrier": Verdict(
        (0,),
        "optimization_barrier result 0 is the pinned_host arg, declared device; result 1 is device",
    ),
    "dynamic_slice_host_arg": Verdict(
        (),
        "dynamic_slice of a pinned_host arg is returned as it is: XLA reads it into device memory",
    ),
    "static_slice_host_arg": Verdict(
        (),
        "static slice of a pinned_host arg is returned as it is: XLA reads it into device memory",
    ),
    "slice_then_compute": Verdict(
        (0, 1),
        "x[2:6] * 2.0 and x * 2.0 of a pinned_host x: XLA:TPU (libtpu 0.0.42.1, compile-only) "
        "rejects both outputs. The multiply computes on the slice, so XLA runs the slice as host "
        "compute and the product stays in host memory (docs/differential.md).",
    ),
}


def lower(program: catalogue.Program) -> str:
    """Lower ``program`` for TPU and print it as the differential harness stores modules."""
    lowered = (
        jax.jit(program.fn, **program.jit_kwargs)
        .trace(*program.args)
        .lower(lowering_platforms=("tpu",))
    )
    return worker.generic_text(lowered)


def main() -> None:
    programs = {program.name: program for program in catalogue.programs(jax.devices("cpu")[0])}
    expected: dict[str, dict[str, Any]] = {}
    for name, verdict in VERDICTS.items():
        (CORPUS_DIR / f"{name}.mlir").write_text(lower(programs[name]))
        expected[name] = {
            "e1200_outputs": sorted(verdict.e1200_outputs),
            "description": verdict.description,
        }
    text = json.dumps(expected, indent=2, sort_keys=True) + "\n"
    (CORPUS_DIR / "expected.json").write_text(text)
    print(f"wrote {len(VERDICTS)} modules to {CORPUS_DIR.relative_to(REPO_ROOT)}")


if __name__ == "__main__":
    main()
