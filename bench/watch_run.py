"""What checking costs a JAX program compiled on CPU: ``hostoffload.watch`` on the models.

On a machine without a TPU, the watch (and ``pytest --hostoffload``, ``hostoffload run``) lowers
every program JAX compiles for CPU a second time, for TPU, and checks that lowering. For every
model of ``bench/models.py`` and variant at each size, in a fresh process, this reports the
program's own way to an executable on CPU (``jax.jit(step).trace(*args).lower().compile()``:
its CPU lowering and XLA:CPU's compile), the same under ``watch("record")``, and the watch's
parts: the TPU lowering and the check of it. The goal is the TPU lowering at most half of
XLA:CPU's compile. Run from the repository root::

    python -m bench.watch_run --sizes 2000,10000 --repeat 3
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from typing import Any

from bench.run import REPO_ROOT


def measure_one(model_name: str, variant: str, units: int, repeat: int) -> dict[str, Any]:
    """Medians over ``repeat`` runs, each on a new step function (no cache answers)."""
    import hostoffload
    from bench.models import MODELS, count_ops

    model = MODELS[model_name]
    runs: dict[str, list[float]] = {
        "cpu_lower_s": [],
        "cpu_compile_s": [],
        "watched_s": [],
        "tpu_lower_s": [],
        "check_s": [],
    }
    ops = 0
    verdict = ""
    for _ in range(repeat):
        traced = model.traced(variant, units)
        started = time.perf_counter()
        lowered = traced.lower()
        lowered_at = time.perf_counter()
        lowered.compile()
        runs["cpu_lower_s"].append(lowered_at - started)
        runs["cpu_compile_s"].append(time.perf_counter() - lowered_at)

        traced = model.traced(variant, units)
        with hostoffload.watch("record") as watcher:
            started = time.perf_counter()
            traced.lower().compile()
            runs["watched_s"].append(time.perf_counter() - started)
        verdict = "e1200" if watcher.mismatches else "ok"

        traced = model.traced(variant, units)
        started = time.perf_counter()
        tpu = traced.lower(lowering_platforms=("tpu",))
        runs["tpu_lower_s"].append(time.perf_counter() - started)
        ops = count_ops(tpu)
        started = time.perf_counter()
        hostoffload.check(tpu)
        runs["check_s"].append(time.perf_counter() - started)
    row: dict[str, Any] = {"model": model_name, "variant": variant, "ops": ops}
    row.update({name: statistics.median(values) for name, values in runs.items()})
    row["watch_verdict"] = verdict
    return row


def table(rows: list[dict[str, Any]]) -> str:
    lines = [
        "| model | variant | ops | CPU lower s | XLA:CPU compile s | watched s | TPU lower s "
        "| check s | TPU lower / XLA:CPU compile | watch verdict |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        share = row["tpu_lower_s"] / row["cpu_compile_s"]
        lines.append(
            f"| {row['model']} | {row['variant']} | {row['ops']:,} | {row['cpu_lower_s']:.2f} "
            f"| {row['cpu_compile_s']:.2f} | {row['watched_s']:.2f} | {row['tpu_lower_s']:.2f} "
            f"| {row['check_s']:.2f} | {share:.2f} | {row['watch_verdict']} |"
        )
    return "\n".join(lines)


def main() -> None:
    from bench.models import MODELS, VARIANTS

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="2000,10000", help="ops, comma-separated")
    parser.add_argument("--models", nargs="+", default=list(MODELS), choices=list(MODELS))
    parser.add_argument("--variants", nargs="+", default=list(VARIANTS), choices=list(VARIANTS))
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--json", help="also write the measurements here")
    parser.add_argument(
        "--one", nargs=3, metavar=("MODEL", "VARIANT", "UNITS"), help=argparse.SUPPRESS
    )
    args = parser.parse_args()
    if args.one:
        model, variant, units = args.one
        print(json.dumps(measure_one(model, variant, int(units), args.repeat)))
        return
    rows = []
    for name in args.models:
        for ops in (int(size) for size in args.sizes.split(",")):
            units = MODELS[name].units_for(ops)
            for variant in args.variants:
                command = [sys.executable, "-m", "bench.watch_run", "--repeat", str(args.repeat)]
                command += ["--one", name, variant, str(units)]
                child = subprocess.run(command, capture_output=True, text=True, cwd=REPO_ROOT)
                if child.returncode != 0:
                    sys.exit(
                        f"measuring {name} {variant} at {ops} ops failed:\n{child.stderr[-3000:]}"
                    )
                rows.append(json.loads(child.stdout.splitlines()[-1]))
                print(f"{name} {variant} {rows[-1]['ops']:,} ops done", file=sys.stderr, flush=True)
    if args.json:
        with open(args.json, "w") as out:
            json.dump(rows, out, indent=1)
    print(table(rows))


if __name__ == "__main__":
    main()
