"""Benchmarks of the host-offload check: time and memory as ratios, which hold on a noisy machine.

For every benchmark shape of ``tools/generate.py`` and every size it reports, in one run:

- parse and check time from ``offload-opt --mlir-timing`` (same process), and their ratio;
- the check run a second time in the same pipeline, which no check a user runs does: it gets
  the memory the first freed back from the heap without page faults;
- the CPU time of a whole ``offload-opt --host-offload-check`` run over a parse-only run;
- peak RSS of ``offload-opt --host-offload-check`` over a parse-only run of the same module;
- ``hostoffload`` from Python end to end (parse, check, report);
- the Python baseline of ``bench/baseline.py`` on the same module (sizes up to ``--baseline-max``),
  and how many times faster the C++ analysis is;
- the time of each fix pass (``--host-offload-fix=strategy=host`` and ``strategy=device``) over
  parse: the fix rewrites every failing output, so it is where a module with many outputs
  would show a cost per output that grows with the outputs;
- how check time grows from each size to the next, next to how MLIR's parse grows;
- with ``--xla-python`` (a Python with jax and libtpu, see docs/differential.md), XLA:TPU's
  time from the module text to its verdict (parse and compile-only; sizes up to ``--xla-max``)
  and how many times sooner ours (parse and check, in ``offload-opt``) is.

With ``--repeat N`` every offload-opt measurement is the median of N rounds, the sizes of a shape
measured in turn (each size's first round, then each size's second, ...) so that the growth from
one size to the next compares runs made in the same minutes. Each round checks a freshly parsed
module twice (the check alone, and the check run twice), so the first check is the median of
2N samples. Run from the repository root::

    python -m bench.run                        # 10k, 100k, 1M ops, every shape
    python -m bench.run --sizes 4000000 --shapes chain fanout
    python -m bench.run --smoke                # 2k ops per shape
    python -m bench.run --xla-python ../oracle-venv/bin/python --sizes 10000,100000
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from tools.generate import SHAPES, write_module

BENCH_DIR = Path(__file__).resolve().parent
REPO_ROOT = BENCH_DIR.parent

TIMING_LINE = re.compile(
    r"^\s*([0-9.]+) \(\s*[0-9.]+%\)\s+"
    r"(Parser|HostOffloadCheckPass|HostOffloadFixPass|HostOffloadVerifier)\s*$"
)
XLA_TIMEOUT_S = 1800


@dataclass(frozen=True)
class Measurement:
    shape: str
    ops: int
    parse_s: float
    check_s: float
    check_over_parse: float
    check_again_s: float | None
    again_over_parse: float | None
    fix_host_s: float
    fix_device_s: float
    cpu_run_ratio: float
    rss_parse_mb: float
    rss_check_mb: float
    rss_ratio: float
    python_end_to_end_s: float
    baseline_s: float | None
    baseline_speedup: float | None
    run_s: float
    verdict_s: float
    xla_s: float | None
    xla_status: str | None
    xla_speedup: float | None


def run_measured(command: list[str]) -> tuple[str, float, float]:
    """Runs `command`; returns its stderr, its peak RSS in MB and its CPU seconds."""
    process = subprocess.Popen(
        command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
    )
    assert process.stderr is not None
    stderr = process.stderr.read()
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode not in (0, 1):
        raise RuntimeError(f"{command} failed with {process.returncode}:\n{stderr[-2000:]}")
    return stderr, usage.ru_maxrss / 1024, usage.ru_utime + usage.ru_stime


def timings(stderr: str) -> dict[str, list[float]]:
    """Seconds per timed step, in pipeline order (a pass run twice is listed twice)."""
    found: dict[str, list[float]] = {}
    for line in stderr.splitlines():
        match = TIMING_LINE.match(line)
        if match:
            found.setdefault(match.group(2), []).append(float(match.group(1)))
    return found


PYTHON_CHECK = """
import sys, time
start = time.perf_counter()
try:
    import hostoffload
    report = hostoffload.check(sys.argv[1])
except AttributeError:
    from hostoffload.mlir import ir
    from hostoffload.mlir._mlir_libs import _hostoffload
    with ir.Context():
        _hostoffload.analyze(ir.Module.parse(open(sys.argv[1]).read()).operation)
print(time.perf_counter() - start)
"""

# Run from the repository root, which is then on sys.path.
BASELINE = """
import sys, time
from bench.baseline import find_mismatches
from hostoffload.mlir import ir
with ir.Context():
    module = ir.Module.parse(open(sys.argv[1]).read())
    start = time.perf_counter()
    find_mismatches(module)
    print(time.perf_counter() - start)
"""


def python_seconds(script: str, path: Path) -> float:
    result = subprocess.run(
        [sys.executable, "-c", script, str(path.resolve())],
        capture_output=True,
        text=True,
        cwd=REPO_ROOT,
    )
    if result.returncode != 0:
        raise RuntimeError(f"Python measurement on {path} failed:\n{result.stderr[-3000:]}")
    return float(result.stdout.strip().splitlines()[-1])


def xla_compile(xla_python: str, path: Path) -> tuple[float | None, str]:
    """XLA:TPU's time from module text to verdict (parse and compile-only, in a process of its
    own with libtpu) and its status; no time when libtpu crashes or runs out of time."""
    result_path = path.with_suffix(".xla.json")
    try:
        process = subprocess.run(
            [xla_python, "-m", "tools.differential.worker", "compile"]
            + ["--module", str(path.resolve()), "--result", str(result_path.resolve())],
            capture_output=True,
            cwd=REPO_ROOT,
            timeout=XLA_TIMEOUT_S,
        )
    except subprocess.TimeoutExpired:
        return None, f"timeout after {XLA_TIMEOUT_S} s"
    if process.returncode != 0:
        return None, f"crash (exit {process.returncode})"
    result = json.loads(result_path.read_text())
    result_path.unlink()
    status = str(result["status"])
    if status == "error":  # an error of XLA's other than E1200: say which
        status += f": {result['message'].splitlines()[0][:200]}"
    return float(result["parse_seconds"]) + float(result["seconds"]), status


def sample_runs(offload_opt: str, path: Path) -> dict[str, list[float]]:
    """One round of `offload-opt` runs on `path`: check, parse only, check twice, both fixes.

    Returns what the round measured, by key: one value of each, but two of the first check,
    which both the check run and the run checking twice make of a freshly parsed module."""
    check = [offload_opt, str(path), "--host-offload-check"]
    started = time.perf_counter()
    check_err, rss_check, cpu_check = run_measured([*check, "--mlir-timing", "-o", "/dev/null"])
    wall_s = time.perf_counter() - started
    parse_err, rss_parse, cpu_parse = run_measured(
        [offload_opt, str(path), "--mlir-timing", "-o", "/dev/null"]
    )
    twice_err, _, _ = run_measured(
        [*check, "--host-offload-check", "--mlir-timing", "-o", "/dev/null"]
    )
    fix_times = {}
    for strategy in ("host", "device"):
        fix_err, _, _ = run_measured(
            [offload_opt, str(path), f"--host-offload-fix=strategy={strategy}"]
            + ["--mlir-timing", "-o", "/dev/null"]
        )
        fix_times[f"fix_{strategy}"] = [timings(fix_err)["HostOffloadFixPass"][0]]
    check_times = timings(check_err)
    twice_times = timings(twice_err)["HostOffloadCheckPass"]
    sample = {
        **fix_times,
        "run": [wall_s],
        "verdict": [check_times["Parser"][0] + check_times["HostOffloadCheckPass"][0]],
        "parse": [timings(parse_err)["Parser"][0]],
        "check": [check_times["HostOffloadCheckPass"][0], twice_times[0]],
        "cpu_ratio": [cpu_check / cpu_parse],
        "rss_check": [rss_check],
        "rss_parse": [rss_parse],
    }
    # A pass that reports an error ends the pipeline: no second run then.
    if len(twice_times) > 1:
        sample["again"] = [twice_times[1]]
    return sample


def measure_shape(
    offload_opt: str,
    shape: str,
    sizes: list[int],
    data: Path,
    baseline_max: int,
    xla_python: str | None,
    xla_max: int,
    repeat: int,
) -> list[Measurement]:
    """Every size of `shape`, the sizes' rounds taken in turn (round one of each size, then
    round two, ...) so that a quiet or busy minute of the machine falls on all sizes alike and
    the growth from one size to the next compares runs made under the same conditions."""
    paths = {ops: data / f"{shape}-{ops}.mlir" for ops in sizes}
    for ops, path in paths.items():
        if not path.exists():
            write_module(shape, ops, path)
    runs: dict[int, dict[str, list[float]]] = {ops: {} for ops in sizes}
    for _ in range(repeat):
        for ops, path in paths.items():
            for key, values in sample_runs(offload_opt, path).items():
                runs[ops].setdefault(key, []).extend(values)
    return [
        summarize(shape, ops, paths[ops], runs[ops], baseline_max, xla_python, xla_max)
        for ops in sizes
    ]


def summarize(
    shape: str,
    ops: int,
    path: Path,
    runs: dict[str, list[float]],
    baseline_max: int,
    xla_python: str | None,
    xla_max: int,
) -> Measurement:
    """The medians of one size's samples, with the once-only measurements beside them."""
    median = {key: statistics.median(values) for key, values in runs.items()}
    parse_s, check_s, verdict_s = median["parse"], median["check"], median["verdict"]
    run_s = median["run"]
    rss_check, rss_parse = median["rss_check"], median["rss_parse"]
    check_again_s = median.get("again")
    baseline_s = None
    if ops <= baseline_max:
        baseline_s = python_seconds(BASELINE, path)
    xla_s, xla_status = None, None
    if xla_python and ops <= xla_max:
        xla_s, xla_status = xla_compile(xla_python, path)
    return Measurement(
        shape=shape,
        ops=ops,
        parse_s=parse_s,
        check_s=check_s,
        check_over_parse=check_s / parse_s,
        check_again_s=check_again_s,
        again_over_parse=check_again_s / parse_s if check_again_s is not None else None,
        fix_host_s=median["fix_host"],
        fix_device_s=median["fix_device"],
        cpu_run_ratio=median["cpu_ratio"],
        rss_parse_mb=rss_parse,
        rss_check_mb=rss_check,
        rss_ratio=rss_check / rss_parse,
        python_end_to_end_s=python_seconds(PYTHON_CHECK, path),
        baseline_s=baseline_s,
        baseline_speedup=baseline_s / check_s if baseline_s is not None else None,
        run_s=run_s,
        verdict_s=verdict_s,
        xla_s=xla_s,
        xla_status=xla_status,
        xla_speedup=xla_s / verdict_s if xla_s is not None else None,
    )


def table(measurements: list[Measurement]) -> str:
    lines = [
        "| shape | ops | parse s | check s | check/parse | again s | again/parse "
        "| CPU run check/parse | RSS check/parse | Python e2e s | baseline s | C++ speedup "
        "| vs previous size (check, again; parse) | fix/parse (host, device) | offload-opt s "
        "| to verdict s | XLA:TPU s | XLA / ours |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    previous: dict[str, Measurement] = {}
    for m in measurements:
        before = previous.get(m.shape)
        growth = ""
        if before and before.check_s > 0:
            growth = f"{m.check_s / before.check_s:.1f}x"
            if m.check_again_s is not None and before.check_again_s:
                growth += f", {m.check_again_s / before.check_again_s:.1f}x"
            growth += f"; {m.parse_s / before.parse_s:.1f}x for {m.ops / before.ops:.0f}x ops"
        again = f"{m.check_again_s:.4f}" if m.check_again_s is not None else ""
        again_ratio = f"{m.again_over_parse:.3f}" if m.again_over_parse is not None else ""
        xla = m.xla_status or ""
        if m.xla_s is not None:
            xla = f"{m.xla_s:.2f} ({m.xla_status})"
        xla_speedup = f"{m.xla_speedup:.0f}x" if m.xla_speedup is not None else ""
        baseline = f"{m.baseline_s:.3f}" if m.baseline_s is not None else ""
        speedup = f"{m.baseline_speedup:.0f}x" if m.baseline_speedup is not None else ""
        lines.append(
            f"| {m.shape} | {m.ops:,} | {m.parse_s:.3f} | {m.check_s:.4f} | "
            f"{m.check_over_parse:.3f} | {again} | {again_ratio} | "
            f"{m.cpu_run_ratio:.3f} | {m.rss_ratio:.3f} | {m.python_end_to_end_s:.3f} | "
            f"{baseline} | {speedup} | {growth} | {m.fix_host_s / m.parse_s:.3f}, "
            f"{m.fix_device_s / m.parse_s:.3f} | {m.run_s:.2f} | {m.verdict_s:.2f} | "
            f"{xla} | {xla_speedup} |"
        )
        previous[m.shape] = m
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000,100000,1000000")
    parser.add_argument("--shapes", nargs="+", default=sorted(SHAPES), choices=sorted(SHAPES))
    parser.add_argument("--data", type=Path, default=BENCH_DIR / ".data")
    parser.add_argument("--baseline-max", type=int, default=100_000)
    parser.add_argument("--json", type=Path, help="also write the measurements here")
    parser.add_argument("--smoke", action="store_true", help="2k ops per shape, quickly")
    parser.add_argument("--xla-python", help="a Python with jax and libtpu: also time XLA:TPU")
    parser.add_argument("--xla-max", type=int, default=100_000)
    parser.add_argument(
        "--repeat", type=int, default=1, help="runs per module; the median of each is reported"
    )
    parser.add_argument(
        "--offload-opt", help="the offload-opt to measure (default: the one on PATH)"
    )
    args = parser.parse_args()

    offload_opt = args.offload_opt or shutil.which("offload-opt")
    if offload_opt is None:
        sys.exit("offload-opt is not on PATH: pip install . first, or give --offload-opt")
    sizes = [2000] if args.smoke else [int(size) for size in args.sizes.split(",")]
    started = time.perf_counter()
    measurements = [
        measurement
        for shape in args.shapes
        for measurement in measure_shape(
            offload_opt,
            shape,
            sizes,
            args.data,
            args.baseline_max,
            args.xla_python,
            args.xla_max,
            args.repeat,
        )
    ]
    print(table(measurements))
    print(f"\n{len(measurements)} measurements in {time.perf_counter() - started:.0f} s")
    if args.json:
        args.json.write_text(json.dumps([asdict(m) for m in measurements], indent=1))


if __name__ == "__main__":
    main()
