"""The differential suite on a real TPU: the chip's verdicts, and the fixed programs run.

For a machine with a TPU (never CI: CI keeps using the verdicts compile-only libtpu recorded).
For every single-device module of ``test/differential/verdicts.json`` it records:

- the chip's verdict: the module compiled for the machine's first TPU as ``jax.jit`` compiles,
  compared with the compile-only verdict recorded there;
- for every fixed module the chip compiles (``host-offload-fix`` with either strategy, and the
  ``*_jax_fixed`` programs, which apply the JAX fix the report offers): the fixed module run on
  the chip with inputs made from its signature, its values compared with
  the values of the module it fixes run on CPU with the same inputs (XLA:CPU has no host
  offloader, so it runs the original as written), and the memory kinds of its outputs on the
  chip compared with those the fixed module declares;
- for every module of XLA's root special case (HOW102: the lone output is directly a move to
  host of a device tensor, declared device), the same beside itself: its output's memory kind
  on the chip against the device memory it declares.

libtpu may abort the process on a module (docs/differential.md): every module is compiled in
a worker process that serves one request after another, and a worker that dies is recorded as
``crash`` for its module (no verdict) and started again. Run from the repository root::

    python -m tools.differential.chip --out chip.json [--only REGEX]
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from tools.differential import layout
from tools.differential.catalogue import JAX_FIXED

REPO_ROOT = Path(__file__).resolve().parents[2]
FIX_KINDS = ("fix_host", "fix_device")
# Where XLA:TPU places an output of each declared memory kind, where it is not that kind.
PLACED_KIND = {"unpinned_host": "device"}
# The warning of XLA's root special case, whose lone output XLA copies to host memory and back.
ROOT_SPECIAL_CASE = "HOW102"
# Integers stay small so that sums and products cannot overflow; floats are a normal draw.
INTEGER_RANGE = (-4, 5)


def single_device_modules(verdicts: dict[str, Any], only: str | None) -> list[str]:
    """The modules compiled for one device, in the order of the verdicts file."""
    return [
        name
        for name, module in verdicts["modules"].items()
        if module.get("devices", 1) == 1
        and "xla" in module
        and layout.module_path(layout.SUITE, name, module).is_file()
        and (only is None or re.search(only, name))
    ]


def runs_beside(
    name: str, module: dict[str, Any], itself: re.Pattern[str] | None = None
) -> str | None:
    """The module a module runs beside on CPU: the one a fixed module fixes, or itself for
    XLA's root special case (HOW102), to see where XLA:TPU puts its output, and for the
    modules ``itself`` matches that fix nothing (those the check says halt the core when they
    run)."""
    if ROOT_SPECIAL_CASE in module.get("checker", {}).get("warnings", []):
        return name
    original = original_of(name, module)
    if original is None and itself is not None and itself.search(name):
        return name
    return original


def original_of(name: str, module: dict[str, Any]) -> str | None:
    """The module a fixed module fixes: the module ``host-offload-fix`` rewrote, or the
    program whose JAX fix (``Report.jax_fix``) a ``*_jax_fixed`` program applies."""
    if module.get("kind") in FIX_KINDS:
        base: str = module["base"]
        return base
    if module.get("kind") == "program" and name.endswith(JAX_FIXED):
        return name.removesuffix(JAX_FIXED)
    return None


# --- the worker: one process, many requests -----------------------------------------------


def _signature(module: Any) -> tuple[list[Any], list[str], list[str]]:
    """The argument types of ``@main``, their memory kinds and its results' declared kinds."""
    from jax._src.interpreters import mlir as jax_mlir

    ir = jax_mlir.ir
    for op in module.body.operations:
        if op.operation.name == "func.func" and ir.StringAttr(op.attributes["sym_name"]).value == (
            "main"
        ):
            function = ir.FunctionType(ir.TypeAttr(op.attributes["function_type"]).value)
            return (
                list(function.inputs),
                _kinds(op, "arg_attrs", len(function.inputs)),
                _kinds(op, "res_attrs", len(function.results)),
            )
    raise ValueError("no @main in the module")


def _kinds(op: Any, attribute: str, count: int) -> list[str]:
    from jax._src.interpreters import mlir as jax_mlir

    ir = jax_mlir.ir
    if attribute not in op.attributes:
        return ["device"] * count
    kinds = []
    for attrs in ir.ArrayAttr(op.attributes[attribute]):
        entries = ir.DictAttr(attrs)
        kind = (
            ir.StringAttr(entries["mhlo.memory_kind"]).value
            if "mhlo.memory_kind" in entries
            else "device"
        )
        kinds.append(kind)
    return kinds


def _inputs(types: list[Any], seed: int) -> list[Any]:
    """One array per argument type, drawn from ``seed``."""
    import jax.numpy as jnp
    import numpy as np
    from jax._src.interpreters import mlir as jax_mlir

    ir = jax_mlir.ir
    generator = np.random.default_rng(seed)
    arrays = []
    for argument_type in types:
        tensor = ir.RankedTensorType(argument_type)
        shape = tuple(tensor.shape)
        element = str(tensor.element_type)
        if element == "i1":
            arrays.append(generator.integers(0, 2, size=shape).astype(bool))
        elif element.startswith(("i", "ui")):
            dtype = np.dtype(element.replace("ui", "uint").replace("i", "int"))
            arrays.append(generator.integers(*INTEGER_RANGE, size=shape).astype(dtype))
        else:
            dtype = jnp.dtype({"bf16": "bfloat16"}.get(element, element.replace("f", "float")))
            arrays.append(generator.standard_normal(size=shape).astype(dtype))
    return arrays


def _compile(text: str, device: Any) -> tuple[Any, list[Any], list[str], list[str]]:
    """The module compiled and loaded for ``device``, and its signature."""
    import numpy as np
    from jax._src import compiler
    from jax._src.interpreters import mlir as jax_mlir
    from jax._src.lib import xla_client

    with jax_mlir.make_ir_context():
        module = jax_mlir.ir.Module.parse(text)
        types, argument_kinds, result_kinds = _signature(module)
        options = compiler.get_compile_options(
            num_replicas=1,
            num_partitions=1,
            device_assignment=np.array([[device]]),
            backend=device.client,
        )
        executable = device.client.compile_and_load(
            module,
            executable_devices=xla_client.DeviceList((device,)),
            compile_options=options,
        )
    return executable, types, argument_kinds, result_kinds


def _run(executable: Any, arrays: list[Any], kinds: list[str], device: Any) -> list[Any]:
    """The outputs of ``executable`` on ``arrays`` placed on ``device`` in memory ``kinds``."""
    import jax
    from jax.sharding import SingleDeviceSharding

    placed = [
        jax.device_put(array, SingleDeviceSharding(device, memory_kind=kind))
        for array, kind in zip(arrays, kinds, strict=True)
    ]
    results = executable.execute_sharded(placed).disassemble_into_single_device_arrays()
    return [outputs[0] for outputs in results]


def serve_one(request: dict[str, Any], tpu: Any, cpu: Any) -> dict[str, Any]:
    """Compiles one module on the chip and, for a fix, runs it beside its original on CPU."""
    import numpy as np

    text = Path(request["module"]).read_text()
    started = time.perf_counter()
    try:
        executable, types, argument_kinds, declared = _compile(text, tpu)
    except Exception as error:
        message = str(error).strip()
        status = "e1200" if "E1200" in message else "error"
        return {"status": status, "message": message[:2000]}
    answer: dict[str, Any] = {"status": "ok", "seconds": round(time.perf_counter() - started, 3)}
    if request.get("base") is None:
        return answer
    arrays = _inputs(types, request["seed"])
    fixed = _run(executable, arrays, argument_kinds, tpu)
    original, _, original_kinds, _ = _compile(Path(request["base"]).read_text(), cpu)
    expected = _run(original, arrays, original_kinds, cpu)
    answer["output_memory_kinds"] = [array.sharding.memory_kind for array in fixed]
    answer["declared_memory_kinds"] = declared
    # To XLA an unpinned_host output is device memory (docs/semantics.md): it is placed there.
    expected_kinds = [PLACED_KIND.get(kind, kind) for kind in declared]
    answer["kinds_equal"] = answer["output_memory_kinds"] == expected_kinds
    answer["values_equal"] = len(fixed) == len(expected) and all(
        np.allclose(np.asarray(a), np.asarray(b), rtol=1e-5, atol=1e-5, equal_nan=True)
        for a, b in zip(fixed, expected, strict=True)
    )
    return answer


def serve(platform: str) -> None:
    """Answers one JSON request per line of stdin with one JSON line on stdout."""
    import os

    import jax

    tpu = jax.devices(platform)[0]
    cpu = jax.devices("cpu")[0]
    answers = os.fdopen(os.dup(sys.stdout.fileno()), "w")
    os.dup2(2, 1)  # whatever libtpu prints goes to stderr, not into the answers
    hello = {
        "jax": jax.__version__,
        "platform_version": str(tpu.client.platform_version).strip(),
        "device_kind": str(tpu.device_kind),
    }
    answers.write(json.dumps(hello) + "\n")
    answers.flush()
    for line in sys.stdin:
        request = json.loads(line)
        try:
            answer = serve_one(request, tpu, cpu)
        except Exception as error:  # a failure of the run, not a verdict
            answer = {"status": "ok", "run_error": f"{type(error).__name__}: {error}"[:2000]}
        answers.write(json.dumps(answer) + "\n")
        answers.flush()
        if "run_error" in answer:
            # A program that fails on the chip halts the TPU runtime of this process (every
            # later run fails "The program continuator has halted unexpectedly"): the
            # driver starts a new worker.
            return


# --- the driver -------------------------------------------------------------------------


class Worker:
    """A ``serve`` process, started again after it dies."""

    def __init__(self, log: Path, platform: str) -> None:
        self.log = log
        self.platform = platform
        self.process: subprocess.Popen[str] | None = None
        self.hello: dict[str, Any] = {}

    def ask(self, request: dict[str, Any]) -> dict[str, Any] | None:
        """The answer to ``request``, or None when the worker died on it."""
        if self.process is None:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "tools.differential.chip", "--serve"]
                + ["--platform", self.platform],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=self.log.open("a"),
                text=True,
                cwd=REPO_ROOT,
            )
            assert self.process.stdout is not None
            self.hello = json.loads(self.process.stdout.readline())
        assert self.process.stdin is not None and self.process.stdout is not None
        try:
            self.process.stdin.write(json.dumps(request) + "\n")
            self.process.stdin.flush()
            line = self.process.stdout.readline()
        except BrokenPipeError:
            line = ""
        if line:
            answer: dict[str, Any] = json.loads(line)
            if "run_error" in answer:
                self.close()  # the worker ends after a failed run
            return answer
        self.process.wait()
        self.process = None
        return None

    def close(self) -> None:
        if self.process is not None and self.process.stdin is not None:
            self.process.stdin.close()
            self.process.wait()
        self.process = None


def summary(results: dict[str, dict[str, Any]], verdicts: dict[str, Any]) -> dict[str, Any]:
    counted: dict[str, Any] = {
        "modules": len(results),
        "chip_verdict": 0,
        "crash": 0,
        "agree": 0,
        "disagree": [],
        "fixes_run": 0,
        "values_equal": 0,
        "kinds_equal": 0,
        "root_special_case_run": 0,
        "root_special_case_in_device_memory": 0,
        "itself_run": 0,
        "itself_values_equal": 0,
        "halted": [],
        "run_errors": [],
        "differ": [],
    }
    for name, result in results.items():
        if result["status"] == "crash":
            counted["crash"] += 1
            continue
        counted["chip_verdict"] += 1
        recorded = verdicts["modules"][name]["xla"]["status"]
        if recorded == result["status"]:
            counted["agree"] += 1
        else:
            counted["disagree"].append(f"{name}: compile-only {recorded}, chip {result['status']}")
        if "run_error" in result:
            counted["run_errors"].append(f"{name}: {result['run_error']}")
            if "halted" in result["run_error"]:
                counted["halted"].append(name)
        module = verdicts["modules"][name]
        if "values_equal" in result and original_of(name, module) is None:
            if runs_beside(name, module) != name:
                counted["itself_run"] += 1
                counted["itself_values_equal"] += result["values_equal"]
                continue
            counted["root_special_case_run"] += 1
            counted["root_special_case_in_device_memory"] += result["kinds_equal"]
            if not (result["values_equal"] and result["kinds_equal"]):
                counted["differ"].append(name)
        elif "values_equal" in result:
            counted["fixes_run"] += 1
            counted["values_equal"] += result["values_equal"]
            counted["kinds_equal"] += result["kinds_equal"]
            if not (result["values_equal"] and result["kinds_equal"]):
                counted["differ"].append(name)
    return counted


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, help="the results (JSON), written as they come")
    parser.add_argument("--only", help="only the modules whose name matches this")
    parser.add_argument("--verdicts", type=Path, default=layout.SUITE / "verdicts.json")
    parser.add_argument(
        "--run-itself",
        help="also run the modules whose name matches this beside themselves on CPU",
    )
    parser.add_argument(
        "--platform",
        default="tpu",
        help="the chip's platform; cpu tries the harness on a machine without one (the "
        "verdicts are then XLA:CPU's, which has no host offloader)",
    )
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(args.platform)
        return
    if args.out is None:
        parser.error("--out is required")
    verdicts = json.loads(args.verdicts.read_text())
    names = single_device_modules(verdicts, args.only)
    log = args.out.with_suffix(".log")
    worker = Worker(log, args.platform)
    itself = re.compile(args.run_itself) if args.run_itself else None
    results: dict[str, dict[str, Any]] = {}
    started = time.perf_counter()
    for seed, name in enumerate(names):
        module = verdicts["modules"][name]
        path = layout.module_path(layout.SUITE, name, module)
        request: dict[str, Any] = {"module": str(path), "seed": seed}
        original = runs_beside(name, module, itself)
        if original is not None:
            base = layout.module_path(layout.SUITE, original, verdicts["modules"][original])
            request["base"] = str(base)
        answer = worker.ask(request)
        results[name] = answer if answer is not None else {"status": "crash"}
        document = {
            "machine": worker.hello,
            "compile_only": verdicts.get("generated", {}),
            "seconds": round(time.perf_counter() - started, 1),
            "summary": summary(results, verdicts),
            "modules": results,
        }
        args.out.write_text(json.dumps(document, indent=1))
    worker.close()
    print(json.dumps(summary(results, verdicts), indent=1))


if __name__ == "__main__":
    main()
