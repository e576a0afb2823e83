"""Where a user waits on real JAX programs: the models of ``bench/models.py`` at each size.

For every model, variant (``ok``, ``e1200``) and size it reports, in one run:

- JAX's lowering (``jax.jit(step).trace(*args).lower(lowering_platforms=("tpu",))``) and the
  module's op count;
- ``hostoffload.check(lowered)`` end to end, as a user calls it, after a first check of a small
  program in the same process (a process's first check also pays for the library's imports
  and first context);
- ``offload-opt --host-offload-check`` on the module's generic text, end to end (start to
  exit), with MLIR's parse, the module's verification and the check pass from
  ``--mlir-timing``, and its peak RSS;
- ``offload-opt`` on ``lowered.as_text()`` (pretty StableHLO, what a user saves) through the
  command a user types, which converts the text with jaxlib in a child first;
- with ``--xla``, XLA:TPU's time from the text to its verdict (needs libtpu, one process at a
  time: the differential harness's lock is held meanwhile).

Every time is measured ``--repeat`` times (3 by default) and reported as a range.

The fast paths (cpp/include/hostoffload/FastPaths.h; docs/performance.md, "The fast paths") are
switched by ``HOSTOFFLOAD_PLAIN``. ``--both`` measures each model with them and without
(``HOSTOFFLOAD_PLAIN=1``), ``--both NAMES`` without those named; ``--pieces`` with all of them,
without any, and without each one alone (``--check-pieces``/``--opt-pieces NAMES``: only those,
each measured only on that route; ``a+b`` turns ``a`` and ``b`` off together). The model is
lowered once; each measurement of ``check(lowered)`` runs in a child forked from the process
that holds the lowering, with the switch set before the library first reads it, and the modes
take turns in every repeat so that they share the machine's minutes. The second table gives,
for each mode, how much longer ``check(lowered)`` and ``offload-opt`` take than with every fast
path (medians).
Run from the repository root::

    python -m bench.models_run                          # 100k and 1M ops, every model
    python -m bench.models_run --sizes 10000 --json out.json
    python -m bench.models_run --smoke                  # 2k ops, one repeat: the test suite's
    python -m bench.models_run --sizes 100000,1000000 --both
    python -m bench.models_run --sizes 100000 --pieces --no-pretty
    python -m bench.models_run --sizes 1000000 --models adam_host --variants e1200 \\
        --check-pieces parse-in-parts,lexer-positions --repeat 5
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.run import REPO_ROOT, timings, xla_compile
from hostoffload._driver import DRIVER

# The differential harness's lock (tools/differential/run.py): held while libtpu runs.
LIBTPU_USERS_LOCK = Path.home() / ".cache" / "hostoffload" / "differential.lock"
SMOKE_OPS = 2000

# The one switch of the fast paths, read once by the library (cpp/include/hostoffload/
# FastPaths.h): "1" turns every one off, a comma-separated list of names those named, "" none.
PLAIN_VARIABLE = "HOSTOFFLOAD_PLAIN"
ALL_OFF = "1"

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

# The `offload-opt` command a user types: the shim that converts other forms first.
SHIM = "from hostoffload._driver import main; main()"


def run_offload_opt(command: list[str], mode: str) -> tuple[str, float, float]:
    """Runs ``command`` (offload-opt) with the fast paths as ``mode`` says; returns its
    stderr, its own peak RSS in MB and its wall time from start to exit in seconds."""
    launcher = subprocess.run(
        [sys.executable, "-S", "-c", RSS_LAUNCHER, *command],
        capture_output=True,
        text=True,
        env={**os.environ, PLAIN_VARIABLE: mode},
    )
    rss_mb, exit_code, wall_s = launcher.stdout.split()
    if int(exit_code) not in (0, 1):
        raise RuntimeError(f"{command} failed with {exit_code}:\n{launcher.stderr[-2000:]}")
    return launcher.stderr, float(rss_mb), float(wall_s)


def offload_opt_paths(mode: str) -> str:
    """What ``offload-opt`` says of its fast paths with ``HOSTOFFLOAD_PLAIN=mode``."""
    version = subprocess.run(
        [str(DRIVER), "--version"],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, PLAIN_VARIABLE: mode},
    ).stdout
    return version.rpartition("fast paths: ")[2].strip()


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def small_lowering() -> Any:
    """A small program lowered for TPU, whose check pays for a process's first use of the
    library (its imports, the first context) before a model's is measured."""
    import jax
    import jax.numpy as jnp

    argument = jax.ShapeDtypeStruct((2,), jnp.float32)
    return jax.jit(lambda x: x * 2).trace(argument).lower(lowering_platforms=("tpu",))


def check_in_child(lowered: Any, first: Any, mode: str, trace: bool) -> dict[str, Any]:
    """``hostoffload.check(lowered)`` in a child forked from this process, with the fast paths
    as ``mode`` says, after a check of ``first``: its seconds, its verdict, what the library
    says of its fast paths and the child's peak RSS; with ``trace``, then the seconds of
    ``hostoffload.trace(lowered)`` too."""
    reader, writer = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: it never returns into the caller's code
        status = 0
        try:
            os.close(reader)
            os.environ[PLAIN_VARIABLE] = mode
            import hostoffload
            from hostoffload.mlir._mlir_libs import _hostoffload

            hostoffload.check(first)
            started = time.perf_counter()
            report = hostoffload.check(lowered)
            check_s = time.perf_counter() - started
            result = {
                "check_s": check_s,
                "ok": report.ok,
                "e1200": sum(f.code == "E1200" for f in report.findings),
                "paths": _hostoffload.describe_fast_paths(),
                "rss_mb": peak_rss_mb(),
            }
            if trace:
                started = time.perf_counter()
                traced = hostoffload.trace(lowered)
                result["trace_s"] = time.perf_counter() - started
                result["trace_starts"] = len(traced.starts)
            os.write(writer, json.dumps(result).encode())
        except BaseException as error:  # noqa: BLE001 - the parent reports it
            os.write(writer, json.dumps({"error": repr(error)}).encode())
            status = 1
        finally:
            os._exit(status)
    os.close(writer)
    with os.fdopen(reader, "rb") as pipe:
        data = pipe.read()
    os.waitpid(pid, 0)
    result = json.loads(data or b'{"error": "the child wrote nothing"}')
    if "error" in result:
        raise RuntimeError(f"check(lowered) with {PLAIN_VARIABLE}={mode!r}: {result['error']}")
    return result


def measure_one(
    model_name: str,
    variant: str,
    units: int,
    repeat: int,
    out: Path,
    routes: dict[str, str],
    pretty: bool,
    trace: bool = False,
) -> list[dict[str, Any]]:
    """Every measurement of one model at one size, a row per mode; lowered once here.
    ``routes`` maps each mode to the routes it is measured on: "both", "check" or "opt"."""
    modes = list(routes)
    check_only = {mode for mode, route in routes.items() if route == "check"}
    opt_only = {mode for mode, route in routes.items() if route == "opt"}
    from bench.models import MODELS, count_ops
    from hostoffload import _convert

    started = time.perf_counter()
    lowered = MODELS[model_name].lower(variant, units)
    lower_s = time.perf_counter() - started
    rss_lowered = peak_rss_mb()
    ops = count_ops(lowered)
    generic = out / f"{model_name}-{variant}-{units}.mlir"
    generic.write_bytes(_convert.lowered_to_generic(lowered))
    pretty_path = out / f"{model_name}-{variant}-{units}.pretty.mlir"
    if pretty:
        pretty_path.write_text(lowered.as_text())

    first = small_lowering()
    rows = {mode: {"checks": [], "opt": []} for mode in modes}
    for _ in range(repeat):
        for mode in modes:
            if mode in opt_only:
                continue
            rows[mode]["checks"].append(check_in_child(lowered, first, mode, trace))
    for _ in range(repeat):
        for mode in modes:
            if mode in check_only:
                continue
            command = [str(DRIVER), str(generic), "--host-offload-check", "--mlir-timing"]
            stderr, rss, wall = run_offload_opt([*command, "-o", "/dev/null"], mode)
            timed = timings(stderr)
            rows[mode]["opt"].append(
                {
                    "wall_s": wall,
                    "parse_s": timed["Parser"][0],
                    "pass_s": timed["HostOffloadCheckPass"][0],
                    # Builds before MLIR's verifier did the work timed ours apart;
                    # MLIR's, after parsing, is in "Parser".
                    "verify_s": sum(timed.get("HostOffloadVerifier", [])),
                    "rss_mb": rss,
                    "e1200": stderr.count("error: E1200"),
                }
            )
    results = []
    for mode in modes:
        checks, opt = rows[mode]["checks"], rows[mode]["opt"]
        row: dict[str, Any] = {
            "model": model_name,
            "variant": variant,
            "mode": mode,
            "paths": checks[0]["paths"] if checks else offload_opt_paths(mode),
            "units": units,
            "ops": ops,
            "text_mb": generic.stat().st_size / 2**20,
            "lower_s": lower_s,
            "check_s": [c["check_s"] for c in checks],
            "trace_s": [c["trace_s"] for c in checks if "trace_s" in c],
            "trace_starts": max((c.get("trace_starts", 0) for c in checks), default=0),
            "opt_wall_s": [o["wall_s"] for o in opt],
            "opt_parse_s": [o["parse_s"] for o in opt],
            "opt_pass_s": [o["pass_s"] for o in opt],
            "opt_verify_s": [o["verify_s"] for o in opt],
            "rss_lowered_mb": rss_lowered,
            "rss_checked_mb": max((c["rss_mb"] for c in checks), default=0),
            "opt_rss_mb": max((o["rss_mb"] for o in opt), default=0),
            "report_ok": checks[0]["ok"] if checks else None,
            "report_e1200": sorted({c["e1200"] for c in checks}),
            "offload_opt_e1200": sorted({o["e1200"] for o in opt}),
            "module": str(generic),
        }
        if pretty:
            started = time.perf_counter()
            pretty_err, _, _ = run_offload_opt(
                [sys.executable, "-c", SHIM, str(pretty_path), "--host-offload-check"]
                + ["-o", "/dev/null"],
                mode,
            )
            row["pretty_s"] = time.perf_counter() - started
            row["pretty_e1200"] = pretty_err.count("error: E1200")
            row["pretty_messages_mb"] = len(pretty_err.encode()) / 2**20
        results.append(row)
    pretty_path.unlink(missing_ok=True)
    return results


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


def span(values: list[float], digits: int = 2) -> str:
    """A range of measurements as the tables print it; empty where none was made."""
    if not values:
        return ""
    low, high = min(values), max(values)
    return (
        f"{low:.{digits}f}"
        if f"{low:.{digits}f}" == f"{high:.{digits}f}"
        else (f"{low:.{digits}f}–{high:.{digits}f}")
    )


def verdict(row: dict[str, Any]) -> str:
    seen = row["report_e1200"] + row["offload_opt_e1200"]
    found = seen[-1]
    expected = (found > 0) == (row["variant"] == "e1200")
    agreed = set(seen) == {found}
    return f"{found} E1200" + ("" if expected and agreed else " UNEXPECTED")


def table(rows: list[dict[str, Any]]) -> str:
    lines = [
        "| model | variant | paths | ops | lower s | check(lowered) s | check/lower "
        "| offload-opt s | opt parse s | opt (verify + pass)/parse "
        "| RSS MB (lowered, checked, opt) "
        "| as_text() s | XLA:TPU s | verdict |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        xla = "" if r.get("xla_s") is None else f"{r['xla_s']:.1f} ({r['xla_status']})"
        if r.get("xla_s") is None and r.get("xla_status"):
            xla = r["xla_status"]
        check_over_lower = [check / r["lower_s"] for check in r["check_s"]]
        pass_over_parse = [
            (p + v) / q
            for p, v, q in zip(r["opt_pass_s"], r["opt_verify_s"], r["opt_parse_s"], strict=True)
        ]
        pretty = f"{r['pretty_s']:.1f}" if "pretty_s" in r else ""
        lines.append(
            f"| {r['model']} | {r['variant']} | {r['paths']} | {r['ops']:,} | {r['lower_s']:.1f} "
            f"| {span(r['check_s'], 3)} | {span(check_over_lower)} | {span(r['opt_wall_s'])} "
            f"| {span(r['opt_parse_s'])} | {span(pass_over_parse, 3)} "
            f"| {r['rss_lowered_mb']:.0f}, {r['rss_checked_mb']:.0f}, {r['opt_rss_mb']:.0f} "
            f"| {pretty} | {xla} | {verdict(r)} |"
        )
    return "\n".join(lines)


def trace_table(rows: list[dict[str, Any]]) -> str:
    """``trace(lowered)`` against ``check(lowered)`` in the same children."""
    lines = [
        "| model | variant | paths | ops | starts | check(lowered) s | trace(lowered) s "
        "| trace/check |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        if not r["trace_s"]:
            continue
        ratios = [t / c for t, c in zip(r["trace_s"], r["check_s"], strict=True)]
        lines.append(
            f"| {r['model']} | {r['variant']} | {r['paths']} | {r['ops']:,} "
            f"| {r['trace_starts']:,} | {span(r['check_s'], 3)} | {span(r['trace_s'], 3)} "
            f"| {span(ratios)} |"
        )
    return "\n".join(lines)


def longer(row: dict[str, Any], fast: dict[str, Any], key: str) -> str:
    """How much longer ``row`` took than ``fast`` (every fast path on), medians, in percent;
    empty where ``row`` was not measured on that route."""
    if not row[key]:
        return ""
    baseline = statistics.median(fast[key])
    return f"{100 * (statistics.median(row[key]) - baseline) / baseline:+.1f}"


def savings(rows: list[dict[str, Any]]) -> str:
    """For every mode but "every fast path on": how much longer the check and offload-opt
    take in it, as the share of their time with every fast path on."""
    fast_rows = {(r["model"], r["variant"], r["units"]): r for r in rows if r["mode"] == ""}
    lines = [
        "| model | variant | ops | off | check(lowered) % longer | offload-opt % longer |",
        "|---|---|---|---|---|---|",
    ]
    for r in rows:
        fast = fast_rows.get((r["model"], r["variant"], r["units"]))
        if r["mode"] == "" or fast is None:
            continue
        off = "all" if r["mode"] == ALL_OFF else r["mode"].replace(",", " + ")
        lines.append(
            f"| {r['model']} | {r['variant']} | {r['ops']:,} | {off} "
            f"| {longer(r, fast, 'check_s')} | {longer(r, fast, 'opt_wall_s')} |"
        )
    return "\n".join(lines)


def routes_asked(args: argparse.Namespace) -> dict[str, str]:
    """The values of HOSTOFFLOAD_PLAIN to measure, "" (every fast path on) first, each with the
    routes it is measured on ("both", "check" or "opt")."""
    if args.pieces or args.check_pieces is not None or args.opt_pieces is not None:
        from hostoffload.mlir._mlir_libs import _hostoffload

        every = list(_hostoffload.fast_path_names())
        check = every if args.pieces else named(args.check_pieces, every)
        opt = every if args.pieces else named(args.opt_pieces, every)
        routes = {"": "both", ALL_OFF: "both"}
        for mode in dict.fromkeys([*check, *opt]):
            routes[mode] = (
                "both" if mode in check and mode in opt else ("check" if mode in check else "opt")
            )
        return routes
    if args.both:
        return {"": "both", args.both: "both"}
    return {args.plain or "": "both"}


def named(names: str | None, every: list[str]) -> list[str]:
    """The modes a comma-separated list of fast paths names, each one alone or several
    joined by "+" (off together); exits naming one that is no fast path."""
    modes = [mode.strip() for mode in (names or "").split(",") if mode.strip()]
    unknown = [name for mode in modes for name in mode.split("+") if name not in every]
    if unknown:
        sys.exit(f"no fast path is named {', '.join(unknown)}; they are: {', '.join(every)}")
    return [mode.replace("+", ",") for mode in modes]


def main() -> None:
    from bench.models import MODELS, VARIANTS

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="100000,1000000", help="ops, comma-separated")
    parser.add_argument("--models", nargs="+", default=list(MODELS), choices=list(MODELS))
    parser.add_argument("--variants", nargs="+", default=list(VARIANTS), choices=list(VARIANTS))
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--smoke", action="store_true", help=f"{SMOKE_OPS} ops, one repeat")
    parser.add_argument("--json", type=Path, help="also write the measurements here")
    parser.add_argument("--data", type=Path, help="keep the generic text of each model here")
    parser.add_argument(
        "--no-pretty", dest="pretty", action="store_false", help="skip the as_text() route"
    )
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
        const=ALL_OFF,
        metavar="NAMES",
        help=f"{PLAIN_VARIABLE}=NAMES: 1 (default) every fast path off, or those named "
        "(comma-separated)",
    )
    paths.add_argument(
        "--both", nargs="?", const=ALL_OFF, metavar="NAMES", help="the fast paths, then as --plain"
    )
    paths.add_argument(
        "--pieces", action="store_true", help="all fast paths, none, and all but each one"
    )
    parser.add_argument(
        "--check-pieces",
        metavar="NAMES",
        help="as --pieces, those named, check(lowered) only (a+b: a and b off together)",
    )
    parser.add_argument("--opt-pieces", metavar="NAMES", help="as --check-pieces, offload-opt only")
    parser.add_argument(
        "--one", nargs=4, metavar=("MODEL", "VARIANT", "UNITS", "OUT"), help=argparse.SUPPRESS
    )
    parser.add_argument(
        "--trace",
        action="store_true",
        help="also time hostoffload.trace(lowered) after each check(lowered)",
    )
    parser.add_argument("--routes", help=argparse.SUPPRESS)
    args = parser.parse_args()

    repeat = 1 if args.smoke else args.repeat
    if args.one:
        model, variant, units, out = args.one
        rows = measure_one(
            model,
            variant,
            int(units),
            repeat,
            Path(out),
            json.loads(args.routes),
            args.pretty,
            args.trace,
        )
        print(json.dumps(rows))
        return
    if not DRIVER.is_file():
        sys.exit(f"offload-opt's native driver is missing at {DRIVER}: pip install . first")
    xla_python = libtpu_python(args.xla_python) if args.xla else None
    sizes = [SMOKE_OPS] if args.smoke else [int(size) for size in args.sizes.split(",")]
    routes = routes_asked(args)
    started = time.perf_counter()
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="hostoffload-models-") as scratch:
        out = args.data or Path(scratch)
        out.mkdir(parents=True, exist_ok=True)
        for name in args.models:
            for ops in sizes:
                units = MODELS[name].units_for(ops)
                for variant in args.variants:
                    # A fresh process for each model and size: its peak RSS is that size's.
                    command = [sys.executable, "-m", "bench.models_run", "--repeat", str(repeat)]
                    command += ["--one", name, variant, str(units), str(out)]
                    command += ["--routes", json.dumps(routes)]
                    command += [] if args.pretty else ["--no-pretty"]
                    command += ["--trace"] if args.trace else []
                    child = subprocess.run(command, capture_output=True, text=True, cwd=REPO_ROOT)
                    if child.returncode != 0:
                        failed = f"measuring {name} {variant} at {ops} ops failed"
                        sys.exit(f"{failed}:\n{child.stderr[-3000:]}")
                    measured = json.loads(child.stdout.splitlines()[-1])
                    if xla_python:
                        xla = xla_seconds(xla_python, Path(measured[0]["module"]), args.xla_lock)
                        for row in measured:
                            row["xla_s"], row["xla_status"] = xla
                    if args.data is None:
                        Path(measured[0]["module"]).unlink(missing_ok=True)
                    rows += measured
                    if args.json:
                        args.json.write_text(json.dumps(rows, indent=1))
                    done = f"{name} {variant} {measured[0]['ops']:,} ops done"
                    print(done, file=sys.stderr, flush=True)
    print(table(rows))
    if args.trace:
        print()
        print(trace_table(rows))
    if len(routes) > 1:
        print()
        print(savings(rows))
    print(f"\n{len(rows)} measurements in {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
