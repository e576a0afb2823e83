"""Writes the inputs of test/lit/forms: one JAX program (program.py) in every form a user has.

Run from the repository root (needs jax, jaxlib and flatbuffers; no TPU):

    python test/lit/forms/Inputs/generate.py

The program is loaded under its path relative to the repository root, and JAX records only
the innermost Python frame of each op (the program's line, not this script's), so that the
locations, in every form, are the same on every machine.

- step.generic.mlir: the generic form with debug info, what offload-opt reads natively;
- step.pretty.mlir: ``lowered.as_text()`` (pretty, no debug info: locations are its lines);
- step.pretty-debug.mlir: pretty with debug info (what JAX_DUMP_IR_TO writes);
- step.mlirbc: MLIR bytecode written by jaxlib;
- step.export: ``jax.export.export(...).serialize()``;
- step.hlo.txt: ``lowered.as_text(dialect="hlo")`` (no memory spaces in it, see docs);
- step.before_optimizations.txt: what ``XLA_FLAGS=--xla_dump_to`` writes for a CPU compile
  (the entry layout carries the memory spaces ``S(5)``; CPU drops the move inside jit).
"""

import os
import subprocess
import sys
import tempfile
import types
from pathlib import Path

INPUTS = Path(__file__).resolve().parent
REPO_ROOT = INPUTS.parents[3]
PROGRAM = INPUTS / "program.py"


def load_program() -> types.ModuleType:
    relative = PROGRAM.relative_to(REPO_ROOT)
    module = types.ModuleType("program")
    exec(compile(PROGRAM.read_text(), str(relative), "exec"), module.__dict__)
    return module


def write_lowerings(program: types.ModuleType) -> None:
    import jax

    jax.config.update("jax_traceback_in_locations_limit", 1)
    lowered = program.lowered()
    module = lowered.compiler_ir("stablehlo")
    operation = module.operation
    (INPUTS / "step.generic.mlir").write_text(
        operation.get_asm(print_generic_op_form=True, enable_debug_info=True)
    )
    (INPUTS / "step.pretty.mlir").write_text(lowered.as_text())
    (INPUTS / "step.pretty-debug.mlir").write_text(operation.get_asm(enable_debug_info=True))
    with (INPUTS / "step.mlirbc").open("wb") as stream:
        operation.write_bytecode(stream)
    (INPUTS / "step.hlo.txt").write_text(lowered.as_text(dialect="hlo"))
    (INPUTS / "step.export").write_bytes(program.exported().serialize())


def compile_for_cpu(program: types.ModuleType) -> None:
    """Runs in a process whose XLA_FLAGS dump every module XLA compiles."""
    import jax

    jax.config.update("jax_traceback_in_locations_limit", 1)
    program.compile_for_cpu()


def write_xla_dump() -> None:
    with tempfile.TemporaryDirectory() as dump:
        environment = {**os.environ, "XLA_FLAGS": f"--xla_dump_to={dump}"}
        subprocess.run(
            [sys.executable, __file__, "--compile-for-cpu"],
            check=True,
            cwd=REPO_ROOT,
            env=environment,
        )
        (found,) = Path(dump).glob("*jit_step.before_optimizations.txt")
        (INPUTS / "step.before_optimizations.txt").write_text(found.read_text())


if __name__ == "__main__":
    os.chdir(REPO_ROOT)
    if sys.argv[1:] == ["--compile-for-cpu"]:
        compile_for_cpu(load_program())
    else:
        write_lowerings(load_program())
        write_xla_dump()
