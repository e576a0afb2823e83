"""One libtpu job of the differential harness, run in its own process by ``run.py``.

libtpu admits one process at a time, and a compile may take long or much memory, so every
job (lower the catalogue, compile one module) runs here, sequentially, under a memory cap
(``RLIMIT_AS``) set before JAX is imported and a time cap enforced by the parent. The result
is written as JSON to ``--result``.

    python -m tools.differential.worker lower --out-dir DIR [--only REGEX] --result FILE
    python -m tools.differential.worker compile --module FILE.mlir [--devices N] --result FILE
    python -m tools.differential.worker jit --program NAME [--only REGEX] --result FILE
    python -m tools.differential.worker serve --result FILE   (compile requests on stdin)
    python -m tools.differential.worker versions --result FILE

With ``--gpu-target h100`` (``gpu.py``'s targets) each job compiles for XLA:GPU instead, on
the devices of a compile-only GPU topology (``--topology 1x1x8``); ``lower`` and ``jit`` lower
for TPU only (a GPU compile-only device drops every memory kind).
"""

from __future__ import annotations

import argparse
import json
import re
import resource
import time
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parents[2]
TOPOLOGY = "v5e:2x2"
JAX_MUTANT = re.compile(r"^(?P<base>.+)__jax_out(?P<index>\d+)_device$")


def limit_memory(gigabytes: float) -> None:
    limit = int(gigabytes * (1 << 30))
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def tpu_devices(topology: str) -> list[Any]:
    from jax.experimental import topologies

    return list(topologies.get_topology_desc(topology, platform="tpu").devices)


def tpu_device(topology: str) -> Any:
    return tpu_devices(topology)[0]


def compile_devices(args: argparse.Namespace) -> list[Any]:
    """The devices a job compiles for: TPU, or XLA:GPU's for ``--gpu-target``."""
    if args.gpu_target:
        from tools.differential import gpu

        return gpu.devices(args.gpu_target, args.topology)
    return tpu_devices(args.topology)


def verdict(error: BaseException | None) -> dict[str, Any]:
    """XLA's verdict from the exception a compile raised (None: it compiled)."""
    if error is None:
        return {"status": "ok", "message": ""}
    text = str(error)
    status = "e1200" if "E1200" in text or "HostOffloadOutputLocationMismatch" in text else "error"
    return {"status": status, "message": text.strip()[:4000]}


def versions(device: Any, topology: str) -> dict[str, str]:
    from importlib import metadata

    import jax

    if device.platform != "tpu":
        from tools.differential import gpu

        return gpu.versions(device, topology)
    return {
        "jax": jax.__version__,
        "jaxlib": metadata.version("jaxlib"),
        "libtpu": metadata.version("libtpu"),
        "platform_version": str(device.client.platform_version).strip(),
        "topology": topology,
        "device_kind": str(device.device_kind),
    }


def generic_text(lowered: Any) -> str:
    asm: str = lowered.compiler_ir("stablehlo").operation.get_asm(
        print_generic_op_form=True, enable_debug_info=True
    )
    # Locations relative to the repository root keep the modules the same on every machine.
    return asm.replace(f'"{REPO_ROOT}/', '"')


def flat_out_shardings(program: Any) -> tuple[list[Any], Any]:
    """The per-output shardings (None = unspecified) of ``program`` and the output treedef."""
    import jax

    outputs = jax.eval_shape(program.fn, *program.args)
    out_tree: Any = jax.tree.structure(outputs)
    count = len(jax.tree.leaves(outputs))
    given = program.jit_kwargs.get("out_shardings")
    if given is None:
        return [None] * count, out_tree
    if isinstance(given, jax.sharding.Sharding):
        return [given] * count, out_tree
    leaves = jax.tree.leaves(given, is_leaf=lambda x: x is None)
    if len(leaves) != count:
        raise ValueError(f"{program.name}: out_shardings must be a full tree of the outputs")
    return leaves, out_tree


def flipped(program: Any, index: int) -> Any:
    """``program`` with ``out_shardings`` of output ``index`` set to device memory."""
    import dataclasses

    from tools.differential import catalogue_mesh

    leaves, out_tree = flat_out_shardings(program)
    leaves[index] = catalogue_mesh.device_sharding_of(program, leaves[index])
    kwargs = dict(program.jit_kwargs)
    kwargs["out_shardings"] = out_tree.unflatten(leaves)
    return dataclasses.replace(
        program,
        name=f"{program.name}__jax_out{index}_device",
        jit_kwargs=kwargs,
        description=f"{program.name} with out_shardings of output {index} set to device "
        "(JAX-level mutation)",
    )


def lower_program(program: Any) -> Any:
    import jax

    return jax.jit(program.fn, **program.jit_kwargs).trace(*program.args).lower()


def exported_text(program: Any) -> str:
    """The module ``jax.export`` serializes for ``program`` (generic form, debug locations)."""
    import jax
    from jax._src.interpreters import mlir as jax_mlir

    exported = jax.export.export(jax.jit(program.fn, **program.jit_kwargs), platforms=["tpu"])
    with jax_mlir.make_ir_context():
        module = jax_mlir.ir.Module.parse(exported(*program.args).mlir_module())
        asm: str = module.operation.get_asm(print_generic_op_form=True, enable_debug_info=True)
    return asm.replace(f'"{REPO_ROOT}/', '"')


def module_text(program: Any) -> str:
    if getattr(program, "export", False):
        return exported_text(program)
    return generic_text(lower_program(program))


def target_of(program: Any, default_topology: str) -> tuple[str, int]:
    """The topology and the number of devices ``program`` is compiled for."""
    return getattr(program, "topology", default_topology), getattr(program, "devices", 1)


def catalogue_programs(device: Any, only: str | None) -> list[Any]:
    from tools.differential import catalogue, catalogue_mesh

    programs = catalogue.programs(device) + catalogue_mesh.programs()
    names = [p.name for p in programs]
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        raise ValueError(f"duplicate program names: {duplicates}")
    if only:
        programs = [p for p in programs if re.search(only, p.name)]
    return programs


def find_program(device: Any, name: str) -> Any:
    match = JAX_MUTANT.match(name)
    base = match.group("base") if match else name
    for program in catalogue_programs(device, None):
        if program.name == base:
            return flipped(program, int(match.group("index"))) if match else program
    raise KeyError(name)


def do_lower(args: argparse.Namespace) -> dict[str, Any]:
    """Lower every program (and its JAX-level mutants) to ``<out-dir>/<name>.mlir``."""
    from tools.differential import mlir_text

    device = tpu_device(args.topology)
    out_dir = Path(args.out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    modules: dict[str, Any] = {}
    for program in catalogue_programs(device, args.only):
        todo = [(program, "program", None)]
        while todo:
            current, kind, base = todo.pop(0)
            start = time.perf_counter()
            try:
                text = module_text(current)
            except Exception as error:  # a program JAX refuses to lower is reported
                modules[current.name] = {"kind": kind, "base": base, "lowering_error": str(error)}
                continue
            (out_dir / f"{current.name}.mlir").write_text(text)
            kinds = [r.memory_kind for r in mlir_text.results(text)]
            topology, devices = target_of(current, args.topology)
            modules[current.name] = {
                "kind": kind,
                "base": base,
                "topology": topology,
                "devices": devices,
                "description": current.description,
                "declared_memory_kinds": kinds,
                "result_info": [r.result_info for r in mlir_text.results(text)],
                "lower_seconds": round(time.perf_counter() - start, 3),
            }
            if kind == "program":
                for index, memory_kind in enumerate(kinds):
                    if memory_kind in ("pinned_host", "unpinned_host"):
                        todo.append((flipped(current, index), "jax_mutant", current.name))
    return {
        "versions": versions(device, args.topology),
        "modules": modules,
        "max_rss_mb": peak_rss_mb(),
    }


def do_compile(args: argparse.Namespace) -> dict[str, Any]:
    """Compile a generic-form module text for the TPU device, as ``jax.jit`` would."""
    return compile_module(compile_devices(args)[: args.devices], Path(args.module))


def do_serve(args: argparse.Namespace) -> dict[str, Any]:
    """Compile one module per request line (JSON: ``module``, ``devices``, ``log``) of stdin,
    answering each with a JSON line on stdout; libtpu's stderr goes to the request's ``log``.
    One process for many compiles saves the start-up of JAX and libtpu on each."""
    import os
    import sys

    all_devices = compile_devices(args)
    # Answers on a copy of stdout; anything else printed to stdout goes to the log.
    answers = os.fdopen(os.dup(sys.stdout.fileno()), "w")
    os.dup2(2, 1)
    for line in sys.stdin:
        request = json.loads(line)
        with open(request["log"], "w") as log:
            os.dup2(log.fileno(), 2)
            os.dup2(log.fileno(), 1)
            result = compile_module(all_devices[: request["devices"]], Path(request["module"]))
        answers.write(json.dumps(result) + "\n")
        answers.flush()
    return {"status": "done"}


def compile_module(devices: list[Any], module_path: Path) -> dict[str, Any]:
    import numpy as np
    from jax._src import compiler
    from jax._src.interpreters import mlir as jax_mlir
    from jax._src.lib import xla_client

    text = module_path.read_text()
    with jax_mlir.make_ir_context():
        parse_start = time.perf_counter()
        module = jax_mlir.ir.Module.parse(text)
        parse_seconds = time.perf_counter() - parse_start
        options = compiler.get_compile_options(
            num_replicas=1,
            num_partitions=len(devices),
            device_assignment=np.array([devices]),
            backend=devices[0].client,
        )
        start = time.perf_counter()
        error: BaseException | None = None
        try:
            devices[0].client.compile(
                module,
                executable_devices=xla_client.DeviceList(tuple(devices)),
                compile_options=options,
            )
        except Exception as caught:
            error = caught
        seconds = time.perf_counter() - start
    return {
        **verdict(error),
        "seconds": round(seconds, 3),
        "parse_seconds": round(parse_seconds, 3),
        "max_rss_mb": peak_rss_mb(),
    }


def do_versions(args: argparse.Namespace) -> dict[str, Any]:
    """jax's, jaxlib's and libtpu's versions and libtpu's build line (or the GPU's)."""
    return {"versions": versions(compile_devices(args)[0], args.topology)}


def do_jit(args: argparse.Namespace) -> dict[str, Any]:
    """Compile a catalogue program through ``jax.jit(...).lower().compile()``."""
    device = tpu_device(args.topology)
    lowered = lower_program(find_program(device, args.program))
    start = time.perf_counter()
    error: BaseException | None = None
    try:
        lowered.compile()
    except Exception as caught:
        error = caught
    seconds = time.perf_counter() - start
    return {**verdict(error), "seconds": round(seconds, 3), "max_rss_mb": peak_rss_mb()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("job", choices=["lower", "compile", "jit", "serve", "versions"])
    parser.add_argument("--result", required=True)
    parser.add_argument("--memory-gb", type=float, default=8.0)
    parser.add_argument("--topology", default=TOPOLOGY)
    parser.add_argument("--devices", type=int, default=1, help="compile for the first N devices")
    parser.add_argument("--out-dir")
    parser.add_argument("--only")
    parser.add_argument("--module")
    parser.add_argument("--program")
    parser.add_argument("--gpu-target", help="compile for this XLA:GPU target (gpu.py)")
    args = parser.parse_args()
    if args.gpu_target and args.job in ("lower", "jit"):
        parser.error(f"{args.job} lowers for TPU: no --gpu-target")
    limit_memory(args.memory_gb)
    jobs = {
        "lower": do_lower,
        "compile": do_compile,
        "jit": do_jit,
        "serve": do_serve,
        "versions": do_versions,
    }
    result = jobs[args.job](args)
    Path(args.result).write_text(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
