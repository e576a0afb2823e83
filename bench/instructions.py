"""How the check's instruction count grows with the module, which the machine's noise and
caches do not move: callgrind counts the instructions of an ``offload-opt --host-offload-check``
run and of a parse-only run of the same module, on one thread; the check is the difference.
Run from the repository root:

    python -m bench.instructions                             # 100k and 1M ops, every shape
    python -m bench.instructions --sizes 10000,100000 --shapes chain

A check that reports errors ends its run before the module is printed, which a parse-only run
then does on top: such modules (``outputs``) get no count. Needs valgrind and ``offload-opt`` on
PATH; callgrind runs a large module far slower than a plain run does.
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from tools.generate import SHAPES, write_module

BENCH_DIR = Path(__file__).resolve().parent

TOTAL_LINE = re.compile(r"^(?:summary|totals):\s*(\d+)", re.MULTILINE)


def native_driver(offload_opt: str) -> str:
    """The executable itself: the installed ``offload-opt`` is a Python shim that execs it,
    and callgrind would count the shim."""
    with open(offload_opt, "rb") as file:
        if file.read(2) != b"#!":
            return offload_opt
    from hostoffload._driver import DRIVER

    return str(DRIVER)


def count_instructions(offload_opt: str, path: Path, *passes: str) -> tuple[int, bool]:
    """Instructions of a whole ``offload-opt`` run over `path` with `passes`, and whether it
    succeeded. One thread, so that no worker spins: the count is then the same from run to
    run."""
    with tempfile.TemporaryDirectory() as scratch:
        out = Path(scratch) / "callgrind.out"
        result = subprocess.run(
            ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", offload_opt]
            + [str(path), *passes, "--mlir-disable-threading", "-o", "/dev/null"],
            capture_output=True,
            text=True,
        )
        if result.returncode not in (0, 1) or not out.exists():
            raise RuntimeError(f"callgrind on {path} failed:\n{result.stderr[-2000:]}")
        match = TOTAL_LINE.search(out.read_text())
        if match is None:
            raise RuntimeError(f"no instruction total in callgrind's output for {path}")
        return int(match.group(1)), result.returncode == 0


def check_instructions(offload_opt: str, path: Path) -> int | None:
    """Instructions a check adds to a parse-only run of `path` (the analysis, its
    diagnostics, and the allocator's work it moves); None when the check reports errors."""
    checked, succeeded = count_instructions(offload_opt, path, "--host-offload-check")
    if not succeeded:
        return None
    return checked - count_instructions(offload_opt, path)[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="100000,1000000")
    parser.add_argument("--shapes", nargs="+", default=sorted(SHAPES), choices=sorted(SHAPES))
    parser.add_argument("--data", type=Path, default=BENCH_DIR / ".data")
    args = parser.parse_args()

    offload_opt = shutil.which("offload-opt")
    if offload_opt is None or shutil.which("valgrind") is None:
        sys.exit("needs offload-opt (pip install .) and valgrind on PATH")
    offload_opt = native_driver(offload_opt)
    sizes = [int(size) for size in args.sizes.split(",")]
    print("| shape | ops | instructions | vs previous size |")
    print("|---|---|---|---|")
    for shape in args.shapes:
        previous: tuple[int, int] | None = None
        for ops in sizes:
            path = args.data / f"{shape}-{ops}.mlir"
            if not path.exists():
                write_module(shape, ops, path)
            count = check_instructions(offload_opt, path)
            if count is None:
                print(f"| {shape} | {ops:,} | errors end the run unprinted | |", flush=True)
                continue
            growth = ""
            if previous is not None:
                growth = f"{count / previous[1]:.2f}x for {ops / previous[0]:.0f}x ops"
            print(f"| {shape} | {ops:,} | {count:,} | {growth} |", flush=True)
            previous = (ops, count)


if __name__ == "__main__":
    main()
