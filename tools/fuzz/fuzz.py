"""A structured fuzzer for hostoffload.check and hostoffload.fix (both strategies).

    python -m tools.fuzz.fuzz --executions 1000000 --out fuzz-run   # from the repository root
    python -m tools.fuzz.fuzz --time 60 --out fuzz-smoke --seed 1

The parent process only coordinates: a worker subprocess mutates real modules (test/differential,
test/lit/check, test/lit/robustness; see mutate.py), runs each input through the Python API
and checks the invariants below, many inputs per process. Before running an input the worker
hands it to the parent, so that when the worker dies (a segfault or an abort in MLIR or in our
C++) or hangs, the parent knows the input, records it with the worker's stderr in
``OUT/crashes/``, and starts a new worker. Every other problem (an exception that is not
``InputError``, a broken invariant, a driver crash) is recorded the same way without a restart.

Invariants, on every input:

- ``check`` returns a ``Report`` or raises ``InputError``; nothing else;
- ``fix`` (``host`` and ``device``) returns a str or raises ``InputError``;

and on every input that parses:

- our parse, whole and in two parts, gives the module (or errors) of MLIR's own parse;
- ``check`` of the text and ``check`` of a module object agree;
- the report's values as ``check`` has the extension build them are what ``json.loads``
  makes of the C API's JSON for the same module;
- the ``host-offload-check`` pass and ``check`` never change the IR (printed before and after);
- ``check`` and ``fix`` never change a module object they are given;
- a fixed module parses and verifies, and re-checks without E1200;
- a module without a finding the strategy fixes (E1200; for ``host`` also HOE102, see
  docs/fix.md) comes out of ``fix`` unchanged, and fixing a fixed module changes nothing;
- with ``--driver-every N``, every N-th such input also goes through ``offload-opt`` (check
  and both fixes): exit code 0 or 1, never a signal, and the same verdict as ``check``.

``OUT/stats.json`` holds the counts, the time and the rate; ``OUT/fuzz.log`` the progress.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import select
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import time
import traceback
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import IO, Any, BinaryIO

from tools.differential import layout

REPO_ROOT = Path(__file__).resolve().parents[2]
# Besides the differential suite's modules (layout.recorded_modules).
SEED_GLOBS = (
    "test/lit/check/*.mlir",
    "test/lit/fix/*.mlir",
    "test/lit/robustness/*.mlir",
    "examples/*.mlir",
)
# How long one input may take in the worker before it counts as a hang.
HANG_SECONDS = 30.0
CRASH_MARKERS = ("Stack dump", "PLEASE submit a bug report", "Assertion", "Segmentation fault")

# Messages from the worker: a tag byte, then a length-prefixed payload.
INPUT, RESULT, DONE = b"I", b"R", b"D"


# ---------------------------------------------------------------------------------------------
# The worker.
# ---------------------------------------------------------------------------------------------


def load_seeds() -> list[str]:
    """The seed modules in the generic form, with and without debug info."""
    from hostoffload.mlir import ir

    seeds: list[str] = []
    paths = layout.recorded_modules(layout.SUITE)
    paths += [path for pattern in SEED_GLOBS for path in sorted(REPO_ROOT.glob(pattern))]
    for path in paths:
        for chunk in path.read_text(errors="surrogateescape").split("// -----"):
            with ir.Context() as context:
                context.allow_unregistered_dialects = True
                context.enable_multithreading(False)
                try:
                    module = ir.Module.parse(chunk)
                except (ir.MLIRError, RuntimeError, TypeError):
                    continue
                operation = module.operation
                seeds.append(operation.get_asm(print_generic_op_form=True))
                seeds.append(operation.get_asm(print_generic_op_form=True, enable_debug_info=True))
    return seeds


@dataclass
class Outcome:
    """What one input did; ``problems`` are (kind, message) pairs."""

    parsed: bool = False
    report: bool = False
    fixed: int = 0
    driver: bool = False
    problems: list[tuple[str, str]] = field(default_factory=list)


def _generic(operation: Any) -> bytes:
    text: bytes = operation.get_asm(binary=True, print_generic_op_form=True, enable_debug_info=True)
    return text


def _check_parse_in_parts(outcome: Outcome, data: bytes, whole: Any, whole_errors: str) -> None:
    """Invariant: our parse, of the whole text (``whole``, without the lexer's positions where
    every op carries a location) and in two parts (here wherever a body can be cut; see
    cpp/lib/ParallelParse.cpp), gives the module, or the errors, of MLIR's parse of the whole."""
    from hostoffload.mlir import ir
    from hostoffload.mlir._mlir_libs import _hostoffload

    with ir.Context() as context:
        context.allow_unregistered_dialects = True
        context.enable_multithreading(False)
        mlir, mlir_errors = _hostoffload.parse(
            context, data, parallel_body_bytes=1 << 62, lexer_positions=True
        )
        parts, errors = _hostoffload.parse(context, data, parallel_body_bytes=0)
        for what, module, module_errors in (
            ("in parts", parts, errors),
            ("of the whole", whole, whole_errors),
        ):
            if (module is None) != (mlir is None):
                outcome.problems.append(("invariant", f"the parse {what} and MLIR's disagree"))
            elif module is None:
                if module_errors != mlir_errors:
                    outcome.problems.append(("invariant", f"the parse {what} gave other errors"))
            elif _generic(module.operation) != _generic(mlir.operation):
                outcome.problems.append(("invariant", f"the parse {what} gave another module"))


# The codes each strategy of fix acts on (docs/fix.md).
FIXED_CODES = {"host": frozenset({"E1200", "HOE102"}), "device": frozenset({"E1200"})}


def _e1200(report: Any) -> list[int | None]:
    return [f.output_index for f in report.errors if f.code == "E1200"]


def _call(outcome: Outcome, what: str, function: Any, *args: Any, **kwargs: Any) -> Any:
    """Calls the API; returns the result, None for an InputError, and records anything else."""
    from hostoffload import InputError

    try:
        return function(*args, **kwargs)
    except InputError:
        return None
    except Exception as error:  # noqa: BLE001 - the fuzzer records every other exception
        outcome.problems.append(
            ("exception", f"{what}: {type(error).__name__}: {error}\n{traceback.format_exc()}")
        )
        return None


def run_input(data: bytes, as_str: bool, driver: str | None) -> Outcome:
    """Runs one input through check and both fixes and checks the invariants."""
    import hostoffload
    from hostoffload.mlir import ir, passmanager
    from hostoffload.mlir._mlir_libs import _hostoffload
    from hostoffload.report import Report

    outcome = Outcome()
    source: str | bytes = data.decode("utf-8", "surrogateescape") if as_str else data
    text_report = _call(outcome, "check(text)", hostoffload.check, source)

    # Parsed as hostoffload parses, single-threaded and through its C API: MLIR's Python
    # bindings abort on some verifier errors (test_robustness.py).
    with ir.Context() as context:
        context.allow_unregistered_dialects = True
        context.enable_multithreading(False)
        module, errors = _hostoffload.parse(context, data)
        _check_parse_in_parts(outcome, data, module, errors)
        if module is None:
            # Not a module: the API must say so with InputError, for fix too.
            if text_report is not None:
                outcome.problems.append(("invariant", "check(text) gave a report on bad input"))
            _call(outcome, "fix(text, host)", hostoffload.fix, source, "host")
            return outcome
        outcome.parsed = True
        before = _generic(module.operation)

        object_report = _call(outcome, "check(module)", hostoffload.check, module)
        if _generic(module.operation) != before:
            outcome.problems.append(("invariant", "check changed the module it was given"))
        if (text_report is None) != (object_report is None) or (
            text_report is not None and text_report.to_json() != object_report.to_json()
        ):
            outcome.problems.append(("invariant", "check(text) and check(module) disagree"))
        report = object_report
        outcome.report = report is not None
        succeeded, text = _hostoffload.analyze(module.operation)
        built = _hostoffload.analyze_data(module.operation)
        if built[0] != succeeded or json.dumps(built[1]) != json.dumps(json.loads(text)):
            outcome.problems.append(("invariant", "the report's values and its JSON disagree"))
        # check() adds the entry's outputs for the JAX fix and why it models its XLA release,
        # which the analysis JSON has not.
        analysed = (
            replace(report, outputs=None, xla_release_reason=None) if report is not None else None
        )
        if analysed is not None and analysed.to_json() != Report.from_json(text).to_json():
            outcome.problems.append(("invariant", "check()'s report and its JSON disagree"))

        try:
            pipeline = passmanager.PassManager.parse("builtin.module(host-offload-check)")
            pipeline.run(module.operation)
        except ir.MLIRError:
            pass
        except Exception as error:  # noqa: BLE001
            outcome.problems.append(("exception", f"host-offload-check pass: {error!r}"))
        if _generic(module.operation) != before:
            outcome.problems.append(("invariant", "the host-offload-check pass changed the IR"))

        verdicts: dict[str, bool] = {}
        for strategy in ("host", "device"):
            fixed = _call(outcome, f"fix(module, {strategy})", hostoffload.fix, module, strategy)
            if _generic(module.operation) != before:
                outcome.problems.append(("invariant", f"fix {strategy} changed its module"))
            verdicts[strategy] = fixed is not None
            if fixed is None:
                continue
            outcome.fixed += 1
            _check_fixed(outcome, strategy, fixed, before, report)

    if driver is not None:
        outcome.driver = True
        _run_driver(outcome, driver, data, report, verdicts)
    return outcome


def _check_fixed(outcome: Outcome, strategy: str, fixed: str, before: bytes, report: Any) -> None:
    import hostoffload

    if (
        report is not None
        and not any(finding.code in FIXED_CODES[strategy] for finding in report.errors)
        and fixed.encode(errors="surrogateescape") != before
    ):
        outcome.problems.append(
            ("invariant", f"fix {strategy} changed a module with nothing for it to fix")
        )
    try:
        recheck = hostoffload.check(fixed)
    except hostoffload.InputError as error:
        outcome.problems.append(("invariant", f"fix {strategy} output does not check: {error}"))
        return
    except Exception as error:  # noqa: BLE001
        outcome.problems.append(("exception", f"check(fixed {strategy}): {error!r}"))
        return
    if _e1200(recheck):
        outcome.problems.append(("invariant", f"fix {strategy} output still has E1200"))
    again = _call(outcome, f"fix(fixed, {strategy})", hostoffload.fix, fixed, strategy)
    if again is not None and again != fixed:
        outcome.problems.append(("invariant", f"fix {strategy} is not idempotent"))


def _run_driver(
    outcome: Outcome, driver: str, data: bytes, report: Any, verdicts: dict[str, bool]
) -> None:
    with tempfile.NamedTemporaryFile(suffix=".mlir") as file:
        file.write(data)
        file.flush()
        passes = {
            "check": "--host-offload-check",
            "host": "--host-offload-fix=strategy=host",
            "device": "--host-offload-fix=strategy=device",
        }
        for what, flag in passes.items():
            try:
                result = subprocess.run(
                    [driver, file.name, flag, "-o", os.devnull],
                    capture_output=True,
                    timeout=HANG_SECONDS,
                )
            except subprocess.TimeoutExpired:
                outcome.problems.append(("driver-hang", f"offload-opt {flag}"))
                continue
            stderr = result.stderr.decode(errors="replace")
            # Exit 2: input offload-opt cannot use, which the API raises InputError for.
            if result.returncode not in (0, 1, 2) or any(m in stderr for m in CRASH_MARKERS):
                outcome.problems.append(
                    ("driver-crash", f"offload-opt {flag}: exit {result.returncode}\n{stderr}")
                )
                continue
            if what == "check":
                agrees = result.returncode == (2 if report is None else int(not report.ok))
            else:
                agrees = (result.returncode == 0) == verdicts[what]
            if not agrees:
                outcome.problems.append(
                    (
                        "driver-verdict",
                        f"offload-opt {flag} exit {result.returncode}, API report "
                        f"{report is not None}, fixes {verdicts}",
                    )
                )


def _send(stream: BinaryIO, tag: bytes, payload: bytes) -> None:
    stream.write(tag + struct.pack("<I", len(payload)) + payload)
    stream.flush()


def worker(seed: int, count: int, driver_every: int, with_jax: bool) -> None:
    # The protocol owns the original stdout; anything native code prints goes to stderr.
    stream = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    if not with_jax:
        # Without the [jax] extra, text that does not parse is not handed to jaxlib.
        sys.modules["jax"] = sys.modules["jaxlib"] = None  # type: ignore[assignment]
    driver = shutil.which("offload-opt") if driver_every else None
    seeds = load_seeds()
    from tools.fuzz.mutate import mutate

    rng = random.Random(seed)
    parsed = 0
    for _ in range(count):
        data = mutate(rng, seeds)
        as_str = rng.random() < 0.2
        use_driver = driver if driver_every and parsed % driver_every == driver_every - 1 else None
        _send(stream, INPUT, data)
        outcome = run_input(data, as_str, use_driver)
        parsed += outcome.parsed
        result = {
            "parsed": outcome.parsed,
            "report": outcome.report,
            "fixed": outcome.fixed,
            "driver": outcome.driver,
            "problems": outcome.problems,
        }
        _send(stream, RESULT, json.dumps(result).encode())
    _send(stream, DONE, b"")


# ---------------------------------------------------------------------------------------------
# The parent.
# ---------------------------------------------------------------------------------------------


@dataclass
class Stats:
    executions: int = 0
    parsed: int = 0
    reports: int = 0
    fixed: int = 0
    driver_runs: int = 0
    workers: int = 0
    problems: dict[str, int] = field(default_factory=dict)
    signatures: set[str] = field(default_factory=set)


def _read_exactly(stream: IO[bytes], size: int, deadline: float) -> bytes | None:
    """Reads ``size`` bytes; None at end of file; raises TimeoutError after ``deadline``."""
    chunks: list[bytes] = []
    remaining = size
    fd = stream.fileno()
    while remaining:
        timeout = deadline - time.monotonic()
        if timeout <= 0 or not select.select([fd], [], [], timeout)[0]:
            raise TimeoutError
        chunk = os.read(fd, remaining)
        if not chunk:
            return None
        chunks.append(chunk)
        remaining -= len(chunk)
    return b"".join(chunks)


def _messages(stream: IO[bytes]) -> Iterator[tuple[bytes, bytes] | None]:
    """The worker's messages; None when it went silent for HANG_SECONDS."""
    while True:
        deadline = time.monotonic() + HANG_SECONDS
        try:
            header = _read_exactly(stream, 5, deadline)
            if header is None:
                return
            payload = _read_exactly(stream, struct.unpack("<I", header[1:])[0], deadline)
        except TimeoutError:
            yield None
            return
        if payload is None:
            return
        yield header[:1], payload


def _signature(kind: str, message: str) -> str:
    """Problems with the same kind and first relevant line are one problem."""
    lines = [line for line in message.splitlines() if line.strip()]
    for line in lines:
        if any(marker in line for marker in ("Assertion", "error:", "Error")):
            return f"{kind}: {line.strip()[:200]}"
    return f"{kind}: {lines[0].strip()[:200] if lines else ''}"


def _record(out: Path, stats: Stats, kind: str, message: str, data: bytes) -> None:
    stats.problems[kind] = stats.problems.get(kind, 0) + 1
    signature = _signature(kind, message)
    digest = hashlib.sha1(data).hexdigest()[:12]
    crashes = out / "crashes"
    crashes.mkdir(exist_ok=True)
    (crashes / f"{kind}-{digest}.mlir").write_bytes(data)
    (crashes / f"{kind}-{digest}.txt").write_text(f"{signature}\n\n{message}\n")
    if signature not in stats.signatures:
        stats.signatures.add(signature)
        _log(out, f"NEW {signature} -> crashes/{kind}-{digest}.mlir")


def _log(out: Path, line: str) -> None:
    stamp = time.strftime("%H:%M:%S")
    with (out / "fuzz.log").open("a") as log:
        log.write(f"{stamp} {line}\n")
    print(f"{stamp} {line}", flush=True)


def _run_worker(
    out: Path, stats: Stats, seed: int, count: int, driver_every: int, with_jax: bool
) -> None:
    stats.workers += 1
    stderr_path = out / "worker.stderr"
    command = [sys.executable, "-m", "tools.fuzz.fuzz", "--worker", "--seed", str(seed)]
    command += ["--count", str(count), "--driver-every", str(driver_every)]
    command += ["--with-jax"] if with_jax else []
    with stderr_path.open("wb") as stderr:
        process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=stderr, cwd=REPO_ROOT)
    assert process.stdout is not None
    current: bytes | None = None
    finished = False
    for message in _messages(process.stdout):
        if message is None:
            process.kill()
            process.wait()
            _record(out, stats, "hang", f"no answer in {HANG_SECONDS:.0f} s", current or b"")
            return
        tag, payload = message
        if tag == INPUT:
            current = payload
        elif tag == RESULT:
            result = json.loads(payload)
            stats.executions += 1
            stats.parsed += result["parsed"]
            stats.reports += result["report"]
            stats.fixed += result["fixed"]
            stats.driver_runs += result["driver"]
            for kind, text in result["problems"]:
                _record(out, stats, kind, text, current or b"")
            current = None
        elif tag == DONE:
            finished = True
    status = process.wait()
    if not finished and current is not None:
        reason = f"signal {signal.Signals(-status).name}" if status < 0 else f"exit {status}"
        _record(
            out, stats, "crash", f"{reason}\n{stderr_path.read_text(errors='replace')}", current
        )
    elif not finished:
        raise RuntimeError(f"the worker failed: {stderr_path.read_text(errors='replace')}")


def parent(args: argparse.Namespace) -> int:
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    stats = Stats()
    start = time.monotonic()
    seeds = random.Random(args.seed)
    next_report = start
    batch = 0
    _log(out, f"fuzzing: executions={args.executions} time={args.time} seed={args.seed}")
    while stats.executions < args.executions and time.monotonic() - start < args.time:
        with_jax = args.jax_every > 0 and batch % args.jax_every == args.jax_every - 1
        count = min(
            args.batch // 10 if with_jax else args.batch, args.executions - stats.executions
        )
        _run_worker(out, stats, seeds.randrange(2**32), count, args.driver_every, with_jax)
        batch += 1
        if time.monotonic() >= next_report or stats.executions >= args.executions:
            next_report = time.monotonic() + args.report_every
            _write_stats(out, stats, time.monotonic() - start)
    _write_stats(out, stats, time.monotonic() - start)
    return 1 if stats.problems else 0


def _write_stats(out: Path, stats: Stats, elapsed: float) -> None:
    rate = stats.executions / elapsed if elapsed else 0.0
    data = {
        "executions": stats.executions,
        "parsed": stats.parsed,
        "reports": stats.reports,
        "fixed_modules": stats.fixed,
        "driver_runs": stats.driver_runs,
        "workers": stats.workers,
        "seconds": round(elapsed, 1),
        "executions_per_second": round(rate, 1),
        "problems": stats.problems,
        "distinct_problems": sorted(stats.signatures),
    }
    (out / "stats.json").write_text(json.dumps(data, indent=2) + "\n")
    _log(
        out,
        f"{stats.executions} executions ({stats.parsed} parsed, {stats.fixed} fixed modules, "
        f"{stats.driver_runs} driver runs) in {elapsed:.0f} s, {rate:.0f}/s; "
        f"problems: {stats.problems or 'none'}",
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="fuzz-out", help="where the log, stats and crashes go")
    parser.add_argument("--executions", type=int, default=1_000_000, help="stop after this many")
    parser.add_argument("--time", type=float, default=float("inf"), help="or after this many s")
    parser.add_argument("--seed", type=int, default=0, help="the seed of the whole run")
    parser.add_argument("--batch", type=int, default=20000, help="inputs per worker process")
    parser.add_argument("--driver-every", type=int, default=0, help="run offload-opt on every N")
    parser.add_argument("--jax-every", type=int, default=0, help="every N-th batch with jax")
    parser.add_argument("--report-every", type=float, default=30.0, help="seconds between logs")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--count", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--with-jax", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        worker(args.seed, args.count, args.driver_every, args.with_jax)
        return 0
    return parent(args)


if __name__ == "__main__":
    sys.exit(main())
