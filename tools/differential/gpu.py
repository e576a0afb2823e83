"""XLA:GPU as an oracle, compile-only, on a machine without a GPU (opt-in, ``.[oracle-gpu]``).

jax-cuda12-plugin makes a compile-only GPU client from a target config (``gpu_targets/``, XLA's
own specs): ``get_topology_desc(platform="cuda", target_config=..., topology="1x1x8")``. Its
devices have no memories, so JAX drops every memory kind of a program lowered against them: the
modules compiled here are the suites' recorded modules, lowered for TPU, handed to the GPU
client as text. XLA:GPU runs the same HostOffloader as XLA:TPU, after passes of its own.

The main suite is compiled by ``run.py --recompile --gpu-target TARGET`` (in a worker process
that serves module after module; a module that ends it is compiled again alone, an abort is no
verdict). The other suites by this module, from the repository root::

    .venv-gpu/bin/python -m tools.differential.run --recompile --serve --gpu-target h100 \\
        --verdicts gpu/h100.json --offload-opt .venv/bin/offload-opt
    .venv-gpu/bin/python -m tools.differential.gpu sibling --gpu-target h100
    .venv-gpu/bin/python -m tools.differential.gpu hlo --gpu-target h100
    .venv-gpu/bin/python -m tools.differential.gpu fixes --gpu-target h100 \\
        --offload-opt .venv/bin/offload-opt
    .venv-gpu/bin/python -m tools.differential.xla_tests /tmp/host_offloader_test.cc \\
        --gpu-target h100 --out test/differential/gpu/xla-tests-h100.json --xla-commit COMMIT

Each writes ``test/differential/gpu/<suite>-<target>.json`` (the main suite ``<target>.json``;
``fixes``: the fixes the check for XLA:GPU makes of every module it finds E1200 in);
``test/python/test_differential_gpu.py`` replays them without the plugin. See
docs/differential.md.
"""

from __future__ import annotations

import argparse
import datetime
import hashlib
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

from tools.differential import layout

TARGETS_DIR = Path(__file__).resolve().parent / "gpu_targets"
# The targets by the name --gpu-target takes: XLA's spec files (gpu_targets/README.md).
TARGETS = {"h100": "h100_sxm.txtpb", "a100": "a100_sxm_80.txtpb"}
# One GPU topology for every module: a mesh module compiles for its first n devices.
TOPOLOGY = "1x1x8"
RECORDS = layout.SUITE / "gpu"


def target_config(name: str) -> str:
    """The ``GpuTargetConfigProto`` text of target ``name``."""
    if name not in TARGETS:
        raise ValueError(f"unknown GPU target {name!r}; use one of {', '.join(TARGETS)}")
    return (TARGETS_DIR / TARGETS[name]).read_text()


def devices(name: str, topology: str = TOPOLOGY) -> list[Any]:
    """The compile-only devices of target ``name`` (needs jax-cuda12-plugin, no GPU)."""
    # The plugin checks the CUDA libraries it would run with unless JAX is told to use another
    # platform; compiling needs none of them.
    os.environ.setdefault("JAX_PLATFORMS", "cpu")
    from jax.experimental import topologies

    description = topologies.get_topology_desc(
        topology_name="", platform="cuda", target_config=target_config(name), topology=topology
    )
    return list(description.devices)


def plugin_version() -> str:
    from importlib import metadata

    return metadata.version("jax-cuda12-plugin")


def versions(device: Any, topology: str) -> dict[str, str]:
    """What a GPU recording says of the compiler that made it."""
    from importlib import metadata

    import jax

    return {
        "jax": jax.__version__,
        "jaxlib": metadata.version("jaxlib"),
        "jax_cuda12_plugin": plugin_version(),
        "platform_version": str(device.client.platform_version).strip(),
        "topology": topology,
        "device_kind": str(device.device_kind),
        "compiler": f"XLA:GPU, jax-cuda12-plugin {plugin_version()}",
    }


def xla_release_of_plugin(version: str) -> str:
    """The XLA release jax-cuda12-plugin ``version`` (that of its jaxlib) carries."""
    from hostoffload.releases import JAXLIB_XLA_RELEASES

    try:
        return JAXLIB_XLA_RELEASES[version]
    except KeyError:
        raise SystemExit(
            f"jax-cuda12-plugin {version}: no XLA release known for it (JAXLIB_XLA_RELEASES "
            "in python/hostoffload/releases.py); pass --xla-release"
        ) from None


# --- the suites beside the main one ------------------------------------------------------------


def settings_for(target: str, staging: Path, timeout: float, memory_gb: float) -> Any:
    """``run.py``'s settings for compiling with XLA:GPU ``target`` in one served worker."""
    from tools.differential import run

    return run.Settings(
        offload_opt="",
        timeout=timeout,
        memory_gb=memory_gb,
        topology=TOPOLOGY,
        lock_wait=0.0,
        staging=staging,
        serve=True,
        gpu_target=target,
    )


def compiler_versions(settings: Any) -> dict[str, str]:
    from tools.differential import run

    versions: dict[str, str] | None = run.worker(settings, "versions", "versions").get("versions")
    if versions is None:
        raise SystemExit("the worker could not start jax-cuda12-plugin")
    return versions


def record_sibling(target: str) -> dict[str, Any]:
    """XLA:GPU's verdicts on the sibling suite's modules, compiled with each program's XLA
    flags, in this process (``catalogue_sibling.verdict``: HOE102's parameters probed)."""
    from types import SimpleNamespace

    from tools.differential import catalogue_sibling

    device = devices(target)[0]
    recorded = json.loads((layout.SIBLING_SUITE / "verdicts.json").read_text())["modules"]
    modules = {}
    for name, entry in recorded.items():
        text = (layout.SIBLING_SUITE / f"{name}.mlir").read_text()
        program = SimpleNamespace(xla_flags=entry["xla_flags"])
        xla = catalogue_sibling.verdict(device, program, text)
        modules[name] = {
            "form": entry["form"],
            "xla_flags": entry["xla_flags"],
            "module_sha256": hashlib.sha256(text.encode()).hexdigest(),
            "xla": xla,
        }
        print(f"{name}: {xla['status']} {xla.get('parameters', '')}", flush=True)
    return {"generated": versions(device, TOPOLOGY), "modules": modules}


def record_hlo(target: str, timeout: float, memory_gb: float) -> dict[str, Any]:
    """XLA:GPU's verdicts on the HLO dumps (XLA:TPU's dumps of recorded programs), each
    compiled as ``xla_tests.py`` compiles an HLO module, its full set of E1200 outputs probed;
    a dump PJRT's MLIR front end refuses has no verdict (``not_compiled``)."""
    from tools.differential import run, xla_tests

    recorded = json.loads((layout.HLO_SUITE / "verdicts.json").read_text())["modules"]
    modules = {}
    with tempfile.TemporaryDirectory(prefix="hostoffload-gpu-") as staging:
        settings = settings_for(target, Path(staging), timeout, memory_gb)
        generated = compiler_versions(settings)
        try:
            for name, entry in recorded.items():
                text = (layout.HLO_SUITE / f"{name}.hlo.txt").read_text()
                xla = xla_tests.xla_verdict(settings, name, text)
                if xla_tests.FRONT_END_REFUSAL in xla["message"]:
                    # PJRT's MLIR path refuses the dump's mhlo.async_start or mhlo.bitcast
                    # before XLA:GPU's passes run: no verdict of its HostOffloader.
                    xla.update(status="not_compiled", e1200_outputs=None)
                modules[name] = {
                    "program": entry["program"],
                    "form": entry["form"],
                    "module_sha256": hashlib.sha256(text.encode()).hexdigest(),
                    "xla": xla,
                }
                print(f"{name}: {xla['status']} {xla['e1200_outputs']}", flush=True)
        finally:
            run.SERVER.stop()
    return {"generated": generated, "modules": modules}


def record_fixes(target: str, offload_opt: str, timeout: float, memory_gb: float) -> dict[str, Any]:
    """XLA:GPU's verdicts on the fixes the check for XLA:GPU offers: for every module of the
    main suite where it reports E1200, ``host-offload-fix{platform=cuda}`` with each strategy,
    compiled by XLA:GPU, beside the check for XLA:GPU of the fixed module."""
    from tools.differential import run

    recorded = layout.recorded_entries(layout.SUITE)
    modules: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="hostoffload-gpu-") as staging:
        settings = settings_for(target, Path(staging), timeout, memory_gb)
        settings.offload_opt = offload_opt
        generated = compiler_versions(settings)
        settings.xla_release = run.modelled_release(generated)
        try:
            for name, entry in recorded.items():
                text = layout.module_path(layout.SUITE, name, entry).read_text()
                if not run.check(settings, text)["e1200_outputs"]:
                    continue
                for strategy in run.FIX_STRATEGIES:
                    key = f"{name}__gpu_fix_{strategy}"
                    record: dict[str, Any] = {"base": name, "strategy": strategy}
                    record["base_sha256"] = hashlib.sha256(text.encode()).hexdigest()
                    fixed, log = run.fixed(settings, text, strategy)
                    if fixed is None:
                        modules[key] = {**record, "fix_failed": log}
                        continue
                    record["fixed_sha256"] = hashlib.sha256(fixed.encode()).hexdigest()
                    compiled = run.xla_compile(settings, key, fixed, run.Target.of(entry, settings))
                    record["xla"] = run.xla_record(compiled)
                    record["checker"] = run.check(settings, fixed)
                    modules[key] = record
                    print(
                        f"{key}: xla {record['xla']['status']}, ours "
                        f"{record['checker']['e1200_outputs']} {record['checker']['errors']}",
                        flush=True,
                    )
        finally:
            run.SERVER.stop()
    generated["xla_release_modelled"] = settings.xla_release
    return {"generated": generated, "modules": modules}


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("suite", choices=["sibling", "hlo", "fixes"])
    parser.add_argument("--gpu-target", required=True, choices=sorted(TARGETS))
    parser.add_argument("--out", type=Path, help="default: test/differential/gpu/SUITE-TARGET.json")
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds per compile")
    parser.add_argument("--memory-gb", type=float, default=8.0, help="address space per worker")
    parser.add_argument("--offload-opt", help="fixes: the checker (default: next to python)")
    args = parser.parse_args()
    if args.suite == "sibling":
        document = record_sibling(args.gpu_target)
    elif args.suite == "fixes":
        from tools.differential import run

        offload_opt = run.find_offload_opt(args.offload_opt)
        document = record_fixes(args.gpu_target, offload_opt, args.timeout, args.memory_gb)
    else:
        document = record_hlo(args.gpu_target, args.timeout, args.memory_gb)
    document["generated"]["date"] = datetime.date.today().isoformat()
    document["generated"]["gpu_target"] = args.gpu_target
    document["generated"]["command"] = "python -m tools.differential.gpu " + " ".join(sys.argv[1:])
    document["modules"] = dict(sorted(document["modules"].items()))
    out = args.out or RECORDS / f"{args.suite}-{args.gpu_target}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(document, indent=1) + "\n")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
