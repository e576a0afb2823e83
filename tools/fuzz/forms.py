"""A fuzzer for the front ends that read forms through jaxlib: HLO text, MLIR bytecode,
StableHLO portable artifacts, serialized jax.export artifacts and pretty-printed StableHLO.

    python -m tools.fuzz.forms --executions 1000000 --out fuzz-forms   # from the repository root
    python -m tools.fuzz.forms --time 60 --out fuzz-forms-smoke --seed 1

The seeds are the inputs of test/lit/forms (one JAX program in every form) plus hostile ones
made here: huge elided and explicit literals, huge shapes. A worker subprocess mutates them
(per form: truncation, byte damage, invalid UTF-8, line edits, huge numbers, memory spaces,
splices) and hands each to ``hostoffload.check`` as bytes, in process, converting in the
worker itself (as the Python API does for every form); every ``--driver-every``-th input also
goes through ``offload-opt`` (the console-script shim, which converts in a child process).

Invariants: ``check`` returns a Report or raises InputError, never anything else; the worker
neither dies (a signal or an abort in jaxlib, XLA or our code), nor hangs (30 s), nor exceeds
its memory limit (``--memory-gb``, as a MemoryError or a crash); ``offload-opt`` exits with
0, 1 or 2, never a signal. The protocol, the records in ``OUT/crashes/`` and ``OUT/stats.json``
are those of tools/fuzz/fuzz.py.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import random
import re
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import traceback
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, BinaryIO

from tools.fuzz import fuzz
from tools.fuzz.fuzz import DONE, INPUT, REPO_ROOT, RESULT, Stats, _log, _messages, _record, _send

# Sent before and after the conversion through jaxlib, so that the parent knows whether a
# worker died in jaxlib (which the API and offload-opt run in a child process) or after it.
CONVERTING = b"C"
CONVERTED = b"V"
# A small conversion is quick: a worker silent for --hang-seconds is stuck in jaxlib, which
# hangs on enough inputs that fuzz.py's 30 s for each would spend much of the run waiting; its
# start may take this long.
STARTUP_SECONDS = 300.0

INPUTS = REPO_ROOT / "test" / "lit" / "forms" / "Inputs"
SEED_FILES = (
    "step.before_optimizations.txt",
    "step.hlo.txt",
    "step.mlirbc",
    "step.export",
    "step.pretty.mlir",
    "step.pretty-debug.mlir",
)
# How often each form is fuzzed, by its seed file's suffix: HLO most, as the text most
# likely to be damaged by hand.
WEIGHTS = {".txt": 6, ".mlirbc": 2, ".export": 2, ".mlir": 1}

HUGE_ELIDED = """HloModule huge, entry_computation_layout={()->f32[100000000000]{0}}

ENTRY %main () -> f32[100000000000] {
  ROOT %c = f32[100000000000]{0} constant({...})
}
"""
HUGE_TUPLE_ELIDED = """HloModule huge,
  entry_computation_layout={()->(f32[4000000000]{0}, s8[9000000000]{0})}

ENTRY %main () -> (f32[4000000000], s8[9000000000]) {
  ROOT %c = (f32[4000000000]{0}, s8[9000000000]{0}) constant(({...}, {...}))
}
"""
HUGE_SHAPES = """HloModule shapes,
  entry_computation_layout={(f32[99999999999]{0:S(5)})->f32[99999999999]{0}}

ENTRY %main (p: f32[99999999999]) -> f32[99999999999] {
  %p = f32[99999999999]{0} parameter(0)
  %z = f32[] constant(0)
  %b = f32[99999999999]{0} broadcast(%z), dimensions={}
  ROOT %a = f32[99999999999]{0} add(%p, %b)
}
"""

_NUMBER = re.compile(rb"\d+")
_MEMORY_SPACE = re.compile(rb"S\(\d+\)")
_EXTREMES = (b"0", b"-1", b"4294967296", b"99999999999", b"18446744073709551616", b"1e309")
_DAMAGE = (b"\xff", b"\xc3", b"\x00", b"{", b"}", b"(", b")", b'"', b"{...}", b"\n", b"ML\xefR")


@dataclass
class FormStats(Stats):
    api_runs: int = 0
    jaxlib_crashes: int = 0
    jaxlib_hangs: int = 0


def load_seeds() -> list[bytes]:
    seeds = [(INPUTS / name).read_bytes() for name in SEED_FILES]
    return [*seeds, HUGE_ELIDED.encode(), HUGE_TUPLE_ELIDED.encode(), HUGE_SHAPES.encode()]


def _truncate(rng: random.Random, data: bytes, seeds: list[bytes]) -> bytes:
    return data[: rng.randrange(len(data) + 1)]


def _damage(rng: random.Random, data: bytes, seeds: list[bytes]) -> bytes:
    position = rng.randrange(len(data) + 1)
    return data[:position] + rng.choice(_DAMAGE) + data[position + rng.randrange(3) :]


def _flip(rng: random.Random, data: bytes, seeds: list[bytes]) -> bytes:
    if not data:
        return data
    changed = bytearray(data)
    for _ in range(rng.randint(1, 8)):
        changed[rng.randrange(len(changed))] = rng.randrange(256)
    return bytes(changed)


def _lines(rng: random.Random, data: bytes, seeds: list[bytes]) -> bytes:
    lines = data.split(b"\n")
    index = rng.randrange(len(lines))
    choice = rng.random()
    if choice < 0.4:
        del lines[index]
    elif choice < 0.7:
        lines.insert(rng.randrange(len(lines) + 1), lines[index])
    else:
        other = rng.choice(seeds).split(b"\n")
        lines.insert(index, rng.choice(other))
    return b"\n".join(lines)


def _numbers(rng: random.Random, data: bytes, seeds: list[bytes]) -> bytes:
    found = list(_NUMBER.finditer(data))
    if not found:
        return data
    match = rng.choice(found)
    return data[: match.start()] + rng.choice(_EXTREMES) + data[match.end() :]


def _memory_spaces(rng: random.Random, data: bytes, seeds: list[bytes]) -> bytes:
    space = f"S({rng.choice((0, 1, 5, 6, 7, 255, 4294967296))})".encode()
    found = list(_MEMORY_SPACE.finditer(data))
    if found:
        match = rng.choice(found)
        return data[: match.start()] + space + data[match.end() :]
    return data.replace(b"{0}", b"{0:" + space + b"}", 1)


def _splice(rng: random.Random, data: bytes, seeds: list[bytes]) -> bytes:
    other = rng.choice(seeds)
    cut = rng.randrange(len(data) + 1)
    return data[:cut] + other[rng.randrange(len(other) + 1) :]


MUTATIONS: tuple[Callable[[random.Random, bytes, list[bytes]], bytes], ...] = (
    _truncate,
    _damage,
    _flip,
    _lines,
    _numbers,
    _memory_spaces,
    _splice,
)


def mutate(rng: random.Random, seeds: list[bytes]) -> bytes:
    weights = [WEIGHTS.get(Path(name).suffix, 1) for name in SEED_FILES] + [1, 1, 1]
    data = rng.choices(seeds, weights=weights)[0]
    for _ in range(rng.choice((0, 1, 1, 2, 3))):
        data = rng.choice(MUTATIONS)(rng, data, seeds)
    return data


def run_input(
    data: bytes, stream: BinaryIO, api: bool, driver: str | None
) -> tuple[bool, list[tuple[str, str]]]:
    """Whether the check gave a report, and the problems found. The conversion runs here, in
    the worker, between CONVERTING and CONVERTED; with ``api`` the input also goes through
    ``hostoffload.check`` as a user calls it (converting in a child process)."""
    import hostoffload
    from hostoffload import _convert
    from hostoffload._forms import read_head, recognise

    problems: list[tuple[str, str]] = []
    form = recognise(read_head(io.BytesIO(data).read))
    source: bytes | None = data
    if form.needs_jax and form.name != "PRETTY":
        _send(stream, CONVERTING, b"")
        source = _call(problems, _convert.to_generic, data, form, None)
        _send(stream, CONVERTED, b"")
    report = source is not None and _call(problems, hostoffload.check, source) is not None
    if api:
        _call(problems, hostoffload.check, data)
    if driver is not None:
        problems.extend(_run_driver(driver, data))
    return report, problems


def _call(problems: list[tuple[str, str]], function: Callable[..., Any], *args: Any) -> Any:
    """``function(*args)``, or None when it raised InputError; other exceptions are problems."""
    import hostoffload

    try:
        return function(*args)
    except hostoffload.InputError:
        return None
    except MemoryError:
        problems.append(("memory", "MemoryError"))
    except Exception:
        problems.append(("exception", traceback.format_exc()))
    return None


def _run_driver(driver: str, data: bytes) -> list[tuple[str, str]]:
    with tempfile.NamedTemporaryFile(suffix=".input") as file:
        file.write(data)
        file.flush()
        try:
            result = subprocess.run(
                [driver, file.name, "--host-offload-check", "-o", os.devnull],
                capture_output=True,
                timeout=120,
            )
        except subprocess.TimeoutExpired:
            return [("driver-hang", "offload-opt did not finish in 120 s")]
    if result.returncode in (0, 1, 2):
        return []
    stderr = result.stderr.decode(errors="replace")[-3000:]
    return [("driver-crash", f"offload-opt exited with {result.returncode}\n{stderr}")]


def worker(
    seed: int, first: int, count: int, api_every: int, driver_every: int, memory_gb: float
) -> None:
    limit = int(memory_gb * 2**30)
    resource.setrlimit(resource.RLIMIT_DATA, (limit, limit))
    # The protocol owns the original stdout; anything native code prints goes to stderr.
    stream = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    driver = shutil.which("offload-opt") if driver_every else None
    _reuse_one_jaxlib_context()
    seeds = load_seeds()
    _warm_up(seeds)
    rng = random.Random(seed)
    for index in range(first, first + count):
        data = mutate(rng, seeds)
        api = api_every > 0 and index % api_every == api_every - 1
        use_driver = driver if driver_every and index % driver_every == driver_every - 1 else None
        _send(stream, INPUT, data)
        report, problems = run_input(data, stream, api, use_driver)
        result = {"report": report, "api": api, "driver": bool(use_driver), "problems": problems}
        _send(stream, RESULT, json.dumps(result).encode())
    _send(stream, DONE, b"")


def _warm_up(seeds: list[bytes]) -> None:
    """Converts and checks every seed once, before the first input: the first conversion of
    each form imports the rest of jaxlib, which is no hang however long a loaded machine takes."""
    import hostoffload
    from hostoffload import _convert
    from hostoffload._forms import recognise

    for seed in seeds:
        form = recognise(seed)
        try:
            generic = _convert.to_generic(seed, form, None) if form.needs_jax else seed
            hostoffload.check(generic)
        except hostoffload.InputError:
            pass


def _reuse_one_jaxlib_context() -> None:
    """Makes the converters of this worker share one jaxlib context: creating one takes
    longer than converting a small module."""
    from jax._src.interpreters import mlir as jax_mlir

    from hostoffload import _convert

    context = jax_mlir.make_ir_context()
    context.enable_multithreading(False)

    @contextmanager
    def shared() -> Iterator[Any]:
        with context:
            yield context

    _convert._jaxlib_context = shared  # type: ignore[assignment]


def _worker_messages(
    stream: IO[bytes], hang_seconds: float
) -> Iterator[tuple[bytes, bytes] | None]:
    """The worker's messages, as fuzz.py's, but the first may take STARTUP_SECONDS: on a
    loaded machine a niced worker is slow to import jax and warm up, which is no hang."""
    fuzz.HANG_SECONDS = STARTUP_SECONDS
    for message in _messages(stream):
        fuzz.HANG_SECONDS = hang_seconds
        yield message


def _run_worker(
    out: Path, stats: FormStats, args: argparse.Namespace, seed: int, count: int
) -> None:
    stats.workers += 1
    stderr_path = out / "worker.stderr"
    command = [sys.executable, "-m", "tools.fuzz.forms", "--worker", "--seed", str(seed)]
    command += ["--count", str(count), "--driver-every", str(args.driver_every)]
    command += ["--api-every", str(args.api_every), "--first", str(stats.executions)]
    command += ["--memory-gb", str(args.memory_gb)]
    with stderr_path.open("wb") as stderr:
        process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=stderr, cwd=REPO_ROOT)
    assert process.stdout is not None
    current: bytes | None = None
    converting = False
    finished = False
    for message in _worker_messages(process.stdout, args.hang_seconds):
        if message is None:
            process.kill()
            process.wait()
            kind = "jaxlib-hang" if converting else "hang"
            stats.jaxlib_hangs += converting
            _record(out, stats, kind, f"no answer in {args.hang_seconds} s", current or b"")
            return
        tag, payload = message
        if tag == INPUT:
            current = payload
        elif tag in (CONVERTING, CONVERTED):
            converting = tag == CONVERTING
        elif tag == RESULT:
            result = json.loads(payload)
            stats.executions += 1
            stats.reports += result["report"]
            stats.api_runs += result["api"]
            stats.driver_runs += result["driver"]
            for kind, text in result["problems"]:
                _record(out, stats, kind, text, current or b"")
            current = None
        elif tag == DONE:
            finished = True
    status = process.wait()
    if not finished and current is not None:
        reason = f"signal {signal.Signals(-status).name}" if status < 0 else f"exit {status}"
        stderr_text = stderr_path.read_text(errors="replace")[-5000:]
        # A death in jaxlib is what the child processes of the API and offload-opt contain.
        kind = "jaxlib-crash" if converting else "crash"
        if converting:
            stats.jaxlib_crashes += 1
        _record(out, stats, kind, f"{reason}\n{stderr_text}", current)
    elif not finished:
        # Between inputs: the installed package changed under the worker (a reinstall).
        _log(out, f"worker failed between inputs: {stderr_path.read_text(errors='replace')[-500:]}")


def parent(args: argparse.Namespace) -> int:
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    stats = FormStats()
    start = time.monotonic()
    seeds = random.Random(args.seed)
    _log(out, f"fuzzing forms: executions={args.executions} time={args.time} seed={args.seed}")
    next_report = start
    while stats.executions < args.executions and time.monotonic() - start < args.time:
        count = min(args.batch, args.executions - stats.executions)
        _run_worker(out, stats, args, seeds.randrange(2**32), count)
        if time.monotonic() >= next_report or stats.executions >= args.executions:
            next_report = time.monotonic() + args.report_every
            _write_stats(out, stats, time.monotonic() - start)
    _write_stats(out, stats, time.monotonic() - start)
    return 1 if any(not kind.startswith("jaxlib") for kind in stats.problems) else 0


def _write_stats(out: Path, stats: FormStats, elapsed: float) -> None:
    rate = stats.executions / elapsed if elapsed else 0.0
    problems = {k: v for k, v in stats.problems.items() if not k.startswith("jaxlib")}
    data = {
        "executions": stats.executions,
        "reports": stats.reports,
        "api_runs": stats.api_runs,
        "driver_runs": stats.driver_runs,
        "jaxlib_crashes_isolated_by_the_child": stats.jaxlib_crashes,
        "jaxlib_hangs_isolated_by_the_child": stats.jaxlib_hangs,
        "workers": stats.workers,
        "seconds": round(elapsed, 1),
        "executions_per_second": round(rate, 1),
        "problems": problems,
        "distinct_problems": sorted(x for x in stats.signatures if not x.startswith("jaxlib")),
        "distinct_jaxlib_crashes": sorted(x for x in stats.signatures if x.startswith("jaxlib")),
    }
    (out / "stats.json").write_text(json.dumps(data, indent=2) + "\n")
    _log(
        out,
        f"{stats.executions} executions ({stats.reports} reports, {stats.api_runs} API and "
        f"{stats.driver_runs} driver runs, {stats.jaxlib_crashes} jaxlib crashes and "
        f"{stats.jaxlib_hangs} hangs) in {elapsed:.0f} s, {rate:.0f}/s; "
        f"problems: {problems or 'none'}",
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="fuzz-forms", help="where the log, stats and crashes go")
    parser.add_argument("--executions", type=int, default=1_000_000, help="stop after this many")
    parser.add_argument("--time", type=float, default=float("inf"), help="or after this many s")
    parser.add_argument("--seed", type=int, default=0, help="the seed of the whole run")
    parser.add_argument("--batch", type=int, default=20000, help="inputs per worker process")
    parser.add_argument("--api-every", type=int, default=0, help="run check() on every N")
    parser.add_argument("--driver-every", type=int, default=0, help="run offload-opt on every N")
    parser.add_argument("--memory-gb", type=float, default=4.0, help="the worker's memory limit")
    parser.add_argument("--report-every", type=float, default=30.0, help="seconds between logs")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--count", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--first", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument(
        "--hang-seconds", type=float, default=10.0, help="a worker silent this long hangs"
    )
    args = parser.parse_args(argv)
    if args.worker:
        worker(args.seed, args.first, args.count, args.api_every, args.driver_every, args.memory_gb)
        return 0
    return parent(args)


if __name__ == "__main__":
    sys.exit(main())
