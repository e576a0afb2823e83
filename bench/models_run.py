"""Where a user waits on real JAX programs: the models of ``bench/models.py`` at each size.

For every model, variant (``ok``, ``e1200``) and size it reports, in one run:

- JAX's lowering (``jax.jit(step).trace(*args).lower(lowering_platforms=("tpu",))``) and the
  module's op count;
- ``hostoffload.check(lowered)`` end to end, and the same steps timed one by one: ``print``
  (jaxlib prints the generic text), ``parse`` (our MLIR parses it), ``analysis`` (the C++
  analysis alone), ``report`` (what ``check()`` does after it: the extension makes the
  ``Report``'s objects from the analysis); and, for the ideas of issue 20, the print without
  debug information, the report built with Python's cyclic GC on, and the routes before,
  each beyond the analysis: the dicts ``json.loads`` would make (``report_values_s``) read
  by ``Report.from_json`` (``report_from_values_s``, both), and the JSON text written by the
  C API and decoded by ``json.loads`` (``json_route_s``);
- the findings: how many, their JSON's size, and how much of it is the table of distinct
  locations they refer to;
- ``offload-opt``'s native driver (which reads the generic text as it is) on the text: MLIR's
  parse and the check pass (``--mlir-timing``), with its peak RSS; and the peak RSS of the
  measuring process after lowering and after checking;
- ``offload-opt`` on ``lowered.as_text()`` (pretty StableHLO, what a user saves): the whole
  run, once, through the command a user types (which converts the text with jaxlib in a
  child first), its E1200 and the megabytes of its messages;
- with ``--xla``, XLA:TPU's time from the text to its verdict (needs libtpu, one process at a
  time: the differential harness's lock is held meanwhile).

``--plain`` measures the plain path instead: ``HOSTOFFLOAD_PLAIN=1`` is set for every process
it runs, which turns off every fast path the library and ``offload-opt`` can turn off at run
time (cpp/include/hostoffload/FastPaths.h; docs/performance.md, "The fast paths");
``--plain NAMES`` turns off only those named (comma-separated, from FastPaths.def). ``--both``
(or ``--both NAMES``) measures each model and size with the fast paths and then without, and
the table has a row for each; each row's ``paths`` is what the library itself reported in
that process.

Each size is measured in a fresh process (so peak RSS is that size's); ``--repeat N`` repeats
every check and offload-opt measurement N times and reports the median. Run from the
repository root::

    python -m bench.models_run                          # 10k, 100k, 1M ops, every model
    python -m bench.models_run --sizes 10000 --repeat 3 --json out.json
    python -m bench.models_run --smoke                  # 2k ops, what the test suite runs
    python -m bench.models_run --sizes 100000,1000000 --both --json both.json
    python -m bench.models_run --sizes 1000000 --both own-heap     # one fast path's worth
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import itertools
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

from bench.run import REPO_ROOT, timings, xla_compile
from hostoffload._driver import DRIVER

# The differential harness's lock (tools/differential/run.py): held while libtpu runs.
LIBTPU_USERS_LOCK = Path.home() / ".cache" / "hostoffload" / "differential.lock"
SMOKE_OPS = 2000


# A child of this process (which holds JAX and the lowering) would start from its peak RSS:
# Linux carries the peak over fork and exec. A small Python in between runs offload-opt.
RSS_LAUNCHER = """
import os, subprocess, sys, time
started = time.perf_counter()
process = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL)
_, status, usage = os.wait4(process.pid, 0)
wall = time.perf_counter() - started
print(usage.ru_maxrss / 1024, os.waitstatus_to_exitcode(status), wall)
"""

# The one switch of the fast paths, read by the library (cpp/include/hostoffload/FastPaths.h):
# "1" turns every one off, a comma-separated list of names those named, "" none.
PLAIN_VARIABLE = "HOSTOFFLOAD_PLAIN"


# The `offload-opt` command a user types: the shim that converts other forms first.
SHIM = "from hostoffload._driver import main; main()"


def run_offload_opt(command: list[str]) -> tuple[str, float, float]:
    """Runs ``command`` (offload-opt); returns its stderr, its own peak RSS in MB and its wall
    time from start to exit in seconds."""
    launcher = subprocess.run(
        [sys.executable, "-S", "-c", RSS_LAUNCHER, *command], capture_output=True, text=True
    )
    rss_mb, exit_code, wall_s = launcher.stdout.split()
    if int(exit_code) not in (0, 1):
        raise RuntimeError(f"{command} failed with {exit_code}:\n{launcher.stderr[-2000:]}")
    return launcher.stderr, float(rss_mb), float(wall_s)


def median_of(repeat: int, step: Callable[[], Any]) -> tuple[float, Any]:
    """The median seconds of ``repeat`` runs of ``step``, and its last result."""
    seconds, result = [], None
    for _ in range(repeat):
        started = time.perf_counter()
        result = step()
        seconds.append(time.perf_counter() - started)
    return statistics.median(seconds), result


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def findings_size(text: str) -> dict[str, int]:
    """How large the analysis' findings are, and how much of that is the table of the distinct
    locations they refer to."""
    data = json.loads(text)
    findings = data.get("findings", [])
    locations = data.get("locations", [])
    return {
        "findings": len(findings),
        "e1200": sum(f["code"] == "E1200" for f in findings),
        "notes": sum(len(f["notes"]) for f in findings),
        "json_bytes": len(text.encode()),
        "locations": len(locations),
        "location_bytes": len(json.dumps(locations, separators=(",", ":")).encode()),
    }


def timed(run: Callable[[], object]) -> float:
    """The seconds ``run`` takes."""
    started = time.perf_counter()
    run()
    return time.perf_counter() - started


def measure_parts(generic: bytes) -> tuple[dict[str, float], str]:
    """``check()``'s steps after the print, one by one, on a fresh parse of ``generic``; and
    the analysis JSON text."""
    from hostoffload import _source
    from hostoffload.api import no_cyclic_gc
    from hostoffload.diagnostic import locations_from_json
    from hostoffload.mlir._mlir_libs import _hostoffload
    from hostoffload.report import REPORT_CLASSES, Report

    def analysis_alone(operation: Any) -> None:
        _hostoffload.analyze_data(operation, "", False, True, report=False)

    def report_objects(operation: Any) -> object:
        _, data = _hostoffload.analyze_data(
            operation, "", False, True, classes=REPORT_CLASSES, locations=locations_from_json
        )
        return Report.from_objects(data, None)

    def report_values(operation: Any) -> object:
        return _hostoffload.analyze_data(operation, "", False, True)[1]

    def report_from_values(operation: Any) -> object:
        return Report.from_json(report_values(operation))

    def json_route(operation: Any) -> str:
        _, text = _hostoffload.analyze(operation, "", False, True)
        json.loads(text)
        return text

    with _source.new_context() as context:
        started = time.perf_counter()
        module = _source._parse_generic(generic, None, context, verify=False)
        parse_s = time.perf_counter() - started
        operation = module.operation
        # The first analysis of a freshly parsed module, as check() runs it. Each route below
        # runs the analysis again: what it takes beyond the analysis is its time less that of
        # the analysis alone run in the same seconds, the faster of two (at 1M ops the
        # analysis alone varies by a third from one run to the next).
        analysis_s = timed(partial(analysis_alone, operation))
        # As check() builds the report: its objects made by the extension with the report's
        # classes, with the cyclic GC off; then with the GC on.
        report_runs, alone = [], []
        for _ in range(2):
            with no_cyclic_gc():
                report_runs.append(timed(partial(report_objects, operation)))
            alone.append(timed(partial(analysis_alone, operation)))
        report_with_gc_s = timed(partial(report_objects, operation))
        # The routes before: the dicts json.loads would make, then Report.from_json; the
        # analysis writing JSON text, which Python decodes.
        with no_cyclic_gc():
            values_s = timed(partial(report_values, operation))
            from_values_s = timed(partial(report_from_values, operation))
            started = time.perf_counter()
            text = json_route(operation)
            json_s = time.perf_counter() - started
        del module, operation
        context_started = time.perf_counter()
    teardown_s = time.perf_counter() - context_started
    again = min(alone)
    return {
        "parse_s": parse_s,
        "analysis_s": analysis_s,
        "report_s": max(0.0, min(report_runs) - again),
        "report_with_gc_s": max(0.0, report_with_gc_s - again),
        "report_values_s": max(0.0, values_s - again),
        "report_from_values_s": max(0.0, from_values_s - again),
        "json_route_s": max(0.0, json_s - again),
        "teardown_s": teardown_s,
    }, text


def measure_one(
    model_name: str, variant: str, units: int, repeat: int, out: Path
) -> dict[str, Any]:
    """Every measurement of one model at one size, in this process."""
    import hostoffload
    from bench.models import MODELS, count_ops
    from hostoffload import _convert
    from hostoffload.mlir._mlir_libs import _hostoffload

    started = time.perf_counter()
    lowered = MODELS[model_name].lower(variant, units)
    lower_s = time.perf_counter() - started
    rss_lowered = peak_rss_mb()
    ops = count_ops(lowered)

    check_s, report = median_of(repeat, lambda: hostoffload.check(lowered))
    rss_checked = peak_rss_mb()
    print_s, generic = median_of(repeat, lambda: _convert.lowered_to_generic(lowered))
    print_plain_s, _ = median_of(
        repeat,
        lambda: lowered.compiler_ir("stablehlo").operation.get_asm(
            binary=True, print_generic_op_form=True, enable_debug_info=False
        ),
    )
    parts: dict[str, list[float]] = {}
    text = ""
    for _ in range(repeat):
        measured, text = measure_parts(generic)
        for key, value in measured.items():
            parts.setdefault(key, []).append(value)

    path = out / f"{model_name}-{variant}-{units}.mlir"
    path.write_bytes(generic)
    offload_opt = str(DRIVER)
    opt: dict[str, list[float]] = {}
    opt_e1200 = set()
    for _ in range(repeat):
        parse_err, _, _ = run_offload_opt(
            [offload_opt, str(path), "--mlir-timing", "-o", "/dev/null"]
        )
        command = [
            offload_opt,
            str(path),
            "--host-offload-check",
            "--mlir-timing",
            "-o",
            "/dev/null",
        ]
        check_err, rss_opt, wall_opt = run_offload_opt(command)
        opt_e1200.add(check_err.count("error: E1200"))
        opt.setdefault("opt_parse_s", []).append(timings(parse_err)["Parser"][0])
        opt.setdefault("opt_pass_s", []).append(timings(check_err)["HostOffloadCheckPass"][0])
        opt.setdefault("opt_check_parse_s", []).append(timings(check_err)["Parser"][0])
        opt.setdefault("opt_rss_mb", []).append(rss_opt)
        opt.setdefault("opt_wall_s", []).append(wall_opt)
    pretty = out / f"{model_name}-{variant}-{units}.pretty.mlir"
    pretty.write_text(lowered.as_text())
    started = time.perf_counter()
    pretty_err, pretty_rss, _ = run_offload_opt(
        [sys.executable, "-c", SHIM, str(pretty), "--host-offload-check", "-o", "/dev/null"]
    )
    pretty_s = time.perf_counter() - started
    return {
        "model": model_name,
        "variant": variant,
        "paths": _hostoffload.describe_fast_paths(),
        "units": units,
        "ops": ops,
        "text_mb": len(generic) / 2**20,
        "lower_s": lower_s,
        "check_s": check_s,
        "print_s": print_s,
        "print_no_debug_info_s": print_plain_s,
        **{key: statistics.median(values) for key, values in parts.items()},
        **{key: statistics.median(values) for key, values in opt.items()},
        "rss_lowered_mb": rss_lowered,
        "rss_checked_mb": rss_checked,
        "report_ok": report.ok,
        "report_e1200": sum(f.code == "E1200" for f in report.findings),
        "offload_opt_e1200": sorted(opt_e1200),
        "pretty_s": pretty_s,
        "pretty_e1200": pretty_err.count("error: E1200"),
        "pretty_messages_mb": len(pretty_err.encode()) / 2**20,
        "pretty_rss_mb": pretty_rss,
        **findings_size(text),
        "module": str(path),
    }


def libtpu_python(given: str | None) -> str:
    """The Python that times XLA:TPU; exits with what to do when it has no libtpu."""
    python = given or sys.executable
    probe = subprocess.run(
        [
            python,
            "-c",
            "import importlib.util, sys; sys.exit(importlib.util.find_spec('libtpu') is None)",
        ],
        capture_output=True,
    )
    if probe.returncode != 0:
        sys.exit(
            f"--xla needs libtpu, which {python} cannot import: pip install libtpu==0.0.42.1 "
            "(or pass --xla-python, a Python with hostoffload's [oracle] extra)"
        )
    return python


def xla_seconds(python: str, path: Path, extra_locks: list[Path]) -> tuple[float | None, str]:
    """XLA:TPU on ``path``, holding the differential harness's lock (and ``extra_locks``, those
    other libtpu users on the machine take) so that no other libtpu process runs at the same
    time."""
    with contextlib.ExitStack() as held:
        for lock in (LIBTPU_USERS_LOCK, *extra_locks):
            lock.parent.mkdir(parents=True, exist_ok=True)
            fcntl.flock(held.enter_context(lock.open("a")), fcntl.LOCK_EX)
        return xla_compile(python, path)


def table(rows: list[dict[str, Any]]) -> str:
    lines = [
        "| model | variant | paths | ops | lower s | check s | check/lower | print | parse "
        "| analysis | report | report/check | opt parse s | opt pass/parse | opt check s "
        "| as_text() s (messages MB) | findings (KB, locations) | RSS MB (lowered, checked, opt) "
        "| XLA:TPU s | verdict |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        xla = "" if r.get("xla_s") is None else f"{r['xla_s']:.1f} ({r['xla_status']})"
        if r.get("xla_s") is None and r.get("xla_status"):
            xla = r["xla_status"]
        expected = (r["report_e1200"] > 0) == (r["variant"] == "e1200")
        verdict = f"{r['report_e1200']} E1200" + ("" if expected else " UNEXPECTED")
        locations = r["location_bytes"] / r["json_bytes"] if r["json_bytes"] else 0
        lines.append(
            f"| {r['model']} | {r['variant']} | {r['paths']} | {r['ops']:,} | {r['lower_s']:.2f} | "
            f"{r['check_s']:.3f} | {r['check_s'] / r['lower_s']:.2f} | {r['print_s']:.3f} | "
            f"{r['parse_s']:.3f} | {r['analysis_s']:.3f} | {r['report_s']:.3f} | "
            f"{r['report_s'] / r['check_s']:.2f} | {r['opt_parse_s']:.3f} | "
            f"{r['opt_pass_s'] / r['opt_parse_s']:.3f} | {r['opt_wall_s']:.3f} | "
            f"{r['pretty_s']:.2f} ({r['pretty_messages_mb']:.1f}) | {r['findings']} "
            f"({r['json_bytes'] / 1024:.0f}, {locations:.0%}) | {r['rss_lowered_mb']:.0f}, "
            f"{r['rss_checked_mb']:.0f}, {r['opt_rss_mb']:.0f} | {xla} | {verdict} |"
        )
    return "\n".join(lines)


def main() -> None:
    from bench.models import MODELS, VARIANTS

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000,100000,1000000", help="ops, comma-separated")
    parser.add_argument("--models", nargs="+", default=list(MODELS), choices=list(MODELS))
    parser.add_argument("--variants", nargs="+", default=list(VARIANTS), choices=list(VARIANTS))
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--smoke", action="store_true", help=f"{SMOKE_OPS} ops, one repeat")
    parser.add_argument("--json", type=Path, help="also write the measurements here")
    parser.add_argument("--data", type=Path, help="keep the generic text of each model here")
    parser.add_argument("--xla", action="store_true", help="also time XLA:TPU (needs libtpu)")
    parser.add_argument("--xla-python", help="the Python with libtpu for --xla (default: this)")
    parser.add_argument(
        "--xla-lock",
        type=Path,
        action="append",
        default=[],
        help="another lock file that libtpu users share, held while XLA compiles (repeatable)",
    )
    paths = parser.add_mutually_exclusive_group()
    paths.add_argument(
        "--plain",
        nargs="?",
        const="1",
        metavar="NAMES",
        help=f"{PLAIN_VARIABLE}=NAMES for every process: 1 (default) every fast path off, or "
        "those named (comma-separated)",
    )
    paths.add_argument(
        "--both", nargs="?", const="1", metavar="NAMES", help="the fast paths, then as --plain"
    )
    parser.add_argument(
        "--one", nargs=4, metavar=("MODEL", "VARIANT", "UNITS", "OUT"), help=argparse.SUPPRESS
    )
    args = parser.parse_args()

    if args.one:
        model, variant, units, out = args.one
        print(json.dumps(measure_one(model, variant, int(units), args.repeat, Path(out))))
        return
    if not DRIVER.is_file():
        sys.exit(f"offload-opt's native driver is missing at {DRIVER}: pip install . first")
    xla_python = libtpu_python(args.xla_python) if args.xla else None
    sizes = [SMOKE_OPS] if args.smoke else [int(size) for size in args.sizes.split(",")]
    repeat = 1 if args.smoke else args.repeat
    # The values of HOSTOFFLOAD_PLAIN measured, each in turn.
    modes = ["", args.both] if args.both else [args.plain] if args.plain else [""]
    started = time.perf_counter()
    rows = []
    with tempfile.TemporaryDirectory(prefix="hostoffload-models-") as scratch:
        out = args.data or Path(scratch)
        out.mkdir(parents=True, exist_ok=True)
        for name in args.models:
            for ops in sizes:
                units = MODELS[name].units_for(ops)
                for variant, mode in itertools.product(args.variants, modes):
                    command = [sys.executable, "-m", "bench.models_run", "--repeat", str(repeat)]
                    command += ["--one", name, variant, str(units), str(out)]
                    child = subprocess.run(
                        command,
                        capture_output=True,
                        text=True,
                        cwd=REPO_ROOT,
                        env={**os.environ, PLAIN_VARIABLE: mode},
                    )
                    if child.returncode != 0:
                        failed = f"measuring {name} {variant} at {ops} ops ({mode!r}) failed"
                        sys.exit(f"{failed}:\n{child.stderr[-3000:]}")
                    row = json.loads(child.stdout.splitlines()[-1])
                    if xla_python:
                        row["xla_s"], row["xla_status"] = xla_seconds(
                            xla_python, Path(row["module"]), args.xla_lock
                        )
                    if args.data is None:
                        Path(row["module"]).unlink(missing_ok=True)
                    rows.append(row)
                    if args.json:
                        args.json.write_text(json.dumps(rows, indent=1))
                    done = f"{name} {variant} {row['ops']:,} ops ({row['paths']}) done"
                    print(done, file=sys.stderr, flush=True)
    print(table(rows))
    print(f"\n{len(rows)} measurements in {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
