"""Where a slice of host memory read into device memory halts a TPU core.

XLA:TPU turns a slice of a tensor in host memory whose result is used in device memory into an
asynchronous slice (``dynamic-slice-start``) that copies the slice from host memory. The chip
halts at run time (``Async slices in the lane dimension must start on chunk boundaries``) on
some of them, after the program compiled. This probe finds the rule's extent: for each shape,
element type, slice and kind of offset (static, or given at run time) below it compiles a
module that returns the slice of a ``pinned_host`` argument in device memory, runs it on the
chip in a process of its own (a halt leaves the process's TPU runtime unusable) and records
whether it ran with the values of the same slice taken by NumPy, failed to compile, or halted.

For a machine with a TPU (never CI: CI reads the recorded results in ``chip.json``)::

    python -m tools.differential.chip_slices --out slices.json
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parents[2]
# The element types probed, as StableHLO spells them, and as NumPy/JAX do.
DTYPES = {"f32": "float32", "bf16": "bfloat16", "i8": "int8", "i32": "int32"}


@dataclass(frozen=True)
class SliceProbe:
    """A ``pinned_host`` argument of ``shape`` and ``dtype`` sliced from ``start`` with
    ``sizes``; the start is given at run time (``dynamic_slice``) when ``dynamic``."""

    shape: tuple[int, ...]
    dtype: str
    start: tuple[int, ...]
    sizes: tuple[int, ...]
    dynamic: bool = False

    @property
    def name(self) -> str:
        dims = "x".join(map(str, self.shape))
        at = ",".join(f"{s}:{s + n}" for s, n in zip(self.start, self.sizes, strict=True))
        return f"{self.dtype}[{dims}][{at}]" + (" dynamic" if self.dynamic else "")


def probes() -> list[SliceProbe]:
    """Shapes, element types and slices around the lane dimension's chunks (128 lanes of 32
    bits) and the sublane dimension (8 rows of 32 bits)."""
    found: list[SliceProbe] = []

    def add(
        shape: tuple[int, ...], dtype: str, start: tuple[int, ...], sizes: tuple[int, ...]
    ) -> None:
        found.append(SliceProbe(shape, dtype, start, sizes))
        found.append(SliceProbe(shape, dtype, start, sizes, dynamic=True))

    for start, size in ((0, 4), (2, 4), (4, 4), (1, 7)):
        add((8,), "f32", (start,), (size,))
    for start, size in ((0, 128), (2, 128), (64, 64), (128, 128), (130, 64)):
        add((256,), "f32", (start,), (size,))
    for start, size in ((128, 256), (256, 512), (384, 128), (8, 8), (32, 32)):
        add((1024,), "f32", (start,), (size,))
    for dtype in ("bf16", "i8", "i32"):
        for start, size in ((0, 128), (2, 128), (128, 128), (256, 256)):
            add((512,), dtype, (start,), (size,))
    for start, sizes in (
        ((2, 0), (4, 128)),
        ((0, 2), (8, 4)),
        ((0, 0), (8, 64)),
        ((3, 0), (1, 128)),
    ):
        add((8, 128), "f32", start, sizes)
    for start, sizes in (((0, 128), (8, 128)), ((0, 64), (8, 128)), ((1, 0), (2, 256))):
        add((8, 256), "f32", start, sizes)
    for start, sizes in (((1, 0), (1, 8)), ((2, 2), (1, 4))):
        add((3, 8), "f32", start, sizes)
    # Narrow element types: their chunk in elements and the sizes they take.
    for shape, dtype, start, sizes in (
        ((512,), "bf16", (0,), (256,)),
        ((512,), "bf16", (0,), (512,)),
        ((1024,), "bf16", (256,), (512,)),
        ((512,), "i8", (0,), (512,)),
        ((2048,), "i8", (512,), (512,)),
        ((2048,), "i8", (512,), (1024,)),
        ((16, 256), "bf16", (0, 0), (16, 128)),
        ((16, 256), "bf16", (8, 0), (8, 256)),
    ):
        found.append(SliceProbe(shape, dtype, start, sizes))
    return found


def module_text(probe: SliceProbe) -> str:
    """The module: the slice of argument 0 (``pinned_host``) returned in device memory."""
    element = probe.dtype
    source = f"tensor<{'x'.join(map(str, probe.shape))}x{element}>"
    result = f"tensor<{'x'.join(map(str, probe.sizes))}x{element}>"
    host = '{mhlo.memory_kind = "pinned_host"}'
    device = '{mhlo.memory_kind = "device"}'
    if probe.dynamic:
        offsets = ", ".join(f"%arg{i + 1}: tensor<i32> {device}" for i in range(len(probe.shape)))
        scalars = ", ".join(f"%arg{i + 1}" for i in range(len(probe.shape)))
        scalar_types = ", ".join("tensor<i32>" for _ in probe.shape)
        sizes = ", ".join(map(str, probe.sizes))
        body = (
            f'    %0 = "stablehlo.dynamic_slice"(%arg0, {scalars}) '
            f"<{{slice_sizes = array<i64: {sizes}>}}> : ({source}, {scalar_types}) -> {result}\n"
        )
        arguments = f"%arg0: {source} {host}, {offsets}"
    else:
        starts = ", ".join(map(str, probe.start))
        limits = ", ".join(str(s + n) for s, n in zip(probe.start, probe.sizes, strict=True))
        strides = ", ".join("1" for _ in probe.shape)
        body = (
            f'    %0 = "stablehlo.slice"(%arg0) <{{limit_indices = array<i64: {limits}>, '
            f"start_indices = array<i64: {starts}>, strides = array<i64: {strides}>}}> : "
            f"({source}) -> {result}\n"
        )
        arguments = f"%arg0: {source} {host}"
    return (
        "module @probe attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32}"
        " {\n"
        f"  func.func public @main({arguments}) -> ({result} {device}) {{\n"
        f"{body}"
        f"    return %0 : {result}\n"
        "  }\n"
        "}\n"
    )


def run_one(probe: SliceProbe, platform: str) -> dict[str, Any]:
    """Compile and run ``probe`` on the first device of ``platform``, in this process."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    from tools.differential.chip import _compile, _run

    device = jax.devices(platform)[0]
    try:
        executable, _, kinds, _ = _compile(module_text(probe), device)
    except Exception as error:
        return {"outcome": "compile_error", "message": str(error).strip()[:1000]}
    dtype = jnp.dtype(DTYPES[probe.dtype])
    source = (np.arange(np.prod(probe.shape)) % 97).reshape(probe.shape).astype(dtype)
    arrays = [source] + ([np.int32(s) for s in probe.start] if probe.dynamic else [])
    try:
        (output,) = _run(executable, arrays, kinds, device)
        values = np.asarray(output)
    except Exception as error:
        message = str(error)
        outcome = "halt" if "halted" in message else "run_error"
        detail = message.split("Detailed error: ")[-1].split("\n")[0]
        return {"outcome": outcome, "message": detail[:500]}
    window = tuple(slice(s, s + n) for s, n in zip(probe.start, probe.sizes, strict=True))
    equal = bool(np.array_equal(values, source[window]))
    return {"outcome": "ran" if equal else "wrong_values"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, help="the results (JSON)")
    parser.add_argument("--platform", default="tpu")
    parser.add_argument("--first", type=int, default=0, help="start at this probe")
    parser.add_argument("--one", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    found = probes()
    if args.one is not None:
        print(json.dumps(run_one(found[args.one], args.platform)))
        return
    if args.out is None:
        parser.error("--out is required")
    results = []
    started = time.perf_counter()
    for index, probe in enumerate(found):
        if index < args.first:
            continue
        process = subprocess.run(
            [sys.executable, "-m", "tools.differential.chip_slices", "--one", str(index)]
            + ["--platform", args.platform],
            capture_output=True,
            text=True,
            cwd=REPO_ROOT,
            timeout=300,
        )
        lines = process.stdout.strip().splitlines()
        answer = (
            json.loads(lines[-1])
            if process.returncode == 0 and lines
            else {"outcome": "crash", "message": process.stderr.strip()[-500:]}
        )
        results.append({"name": probe.name, **asdict(probe), **answer})
        print(f"{probe.name}: {answer['outcome']}", flush=True)
        args.out.write_text(
            json.dumps(
                {"seconds": round(time.perf_counter() - started, 1), "probes": results}, indent=1
            )
        )


if __name__ == "__main__":
    main()
