"""Differential test of ``host-offload-check`` against the real XLA:TPU compiler (opt-in).

Lowers every program of ``catalogue.py`` for a TPU device of a compile-only topology, compiles
each module with libtpu, runs our checker on it and compares the two verdicts: the set of entry
outputs for which XLA raises E1200. XLA reports only the first offending output, so for every
module it rejects the harness re-declares candidate outputs ``pinned_host`` and recompiles
until it knows the whole set. Mutants flip the declared memory kinds of the outputs of the
programs XLA accepts (in the module, and through ``out_shardings``). When the installed build
has ``host-offload-fix``, the modules it produces with both strategies are compiled too.
Our checker models the XLA release of the installed libtpu, known by its build line.

Needs a venv with ``jax==0.10.2 jaxlib==0.10.2`` and a libtpu release from 0.0.42.1 to 0.0.52
(``pip install '.[oracle]'``) and an ``offload-opt``. From the repository root::

    ../oracle-venv/bin/python -m tools.differential.run --out test/differential

writes ``verdicts.json`` and each module, in generic form, to a folder of its kind
(``layout.py``): ``test/differential/programs/<module>.mlir`` and so on, which
``test/python/test_differential.py`` checks without libtpu. ``--recompile --verdicts
verdicts-libtpu-0.0.52.json`` compiles the modules recorded there with another libtpu
release instead, into a verdicts file of its own. Every libtpu job runs in its own process,
one at a time, under ``--memory-gb`` of address space and ``--timeout`` seconds; with
``--serve`` one process compiles module after module, and a module that ends it is compiled
again in a process of its own: an abort there is recorded as a crash, never as a verdict.
``--recompile --gpu-target h100`` compiles them with XLA:GPU instead (``gpu.py``).
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import fcntl
import hashlib
import json
import os
import re
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hostoffload.releases import xla_release_named, xla_release_of_platform_version
from tools.differential import gpu, layout, mlir_text

REPO_ROOT = Path(__file__).resolve().parents[2]
# libtpu's own lock file: libtpu fixes its path, and holds it while a process uses the TPU.
LIBTPU_LOCK = Path("/tmp/libtpu_lockfile")
# Ours, against two runs at once (they would share libtpu and the staging files).
HARNESS_LOCK = (
    Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    / "hostoffload"
    / "differential.lock"
)
E1200_OUTPUT = re.compile(r"error: E1200: .*?; output (\d+)")
# What XLA's HostOffloader logs at --vmodule=host_offloader=2 (see worker_environment).
XLA_TRACE_STEP = re.compile(r"host_offloader\.cc:\d+\]\s+(\{Instr: .*\})\s*$")
XLA_HOST_COMPUTE = re.compile(r'Found an instruction \("([^"]+)"\) which does device compute')
XLA_FATAL = re.compile(r"^F\d{4} [\d:. ]+\S+\] (.*)$")
WARNING_CODE = re.compile(r"warning: (HOW\d{3})")
# Our errors other than E1200 (XLA's other failures the check predicts).
ERROR_CODE = re.compile(r"error: (HOE\d{3})")
FIX_STRATEGIES = ("host", "device")


@dataclass
class Settings:
    offload_opt: str
    timeout: float
    memory_gb: float
    topology: str
    lock_wait: float
    staging: Path
    log: bool = True
    serve: bool = False
    # The XLA release our checker models: that of the libtpu compiling (set once known).
    xla_release: str = ""
    # An XLA:GPU target of gpu.py to compile for instead of TPU ("": TPU).
    gpu_target: str = ""

    @property
    def platform(self) -> str:
        """The platform our checker models: that of the compiler."""
        return "cuda" if self.gpu_target else "tpu"

    def compiler_args(self, topology: str | None = None) -> list[str]:
        """The worker's options that say what it compiles for."""
        args = ["--topology", topology or self.topology]
        return args + (["--gpu-target", self.gpu_target] if self.gpu_target else [])


@dataclass
class Stats:
    compiles: int = 0
    compile_seconds: list[float] = field(default_factory=list)
    peak_rss_mb: float = 0.0
    slowest: tuple[float, str] = (0.0, "")
    timeouts: list[str] = field(default_factory=list)
    crashes: list[str] = field(default_factory=list)


STATS = Stats()


def say(settings: Settings, message: str) -> None:
    if settings.log:
        print(message, flush=True)


# --- libtpu jobs -------------------------------------------------------------------------------


def libtpu_lock_holders() -> list[int]:
    """Processes other than this one that hold libtpu's lock file open."""
    if not LIBTPU_LOCK.exists():
        return []
    holders = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit() or int(proc.name) == os.getpid():
            continue
        with contextlib.suppress(OSError):
            for fd in (proc / "fd").iterdir():
                with contextlib.suppress(OSError):
                    if os.readlink(fd) == str(LIBTPU_LOCK):
                        holders.append(int(proc.name))
                        break
    return holders


def wait_for_libtpu(settings: Settings) -> None:
    if settings.gpu_target:
        return
    deadline = time.monotonic() + settings.lock_wait
    while holders := libtpu_lock_holders():
        if time.monotonic() > deadline:
            raise SystemExit(f"libtpu is in use by process(es) {holders} ({LIBTPU_LOCK})")
        say(settings, f"  waiting: libtpu is in use by {holders}")
        time.sleep(5)


def worker_environment(settings: Settings) -> dict[str, str]:
    """libtpu logging that shows HostOffloader's trace and host-compute conversions on
    stderr; libtpu's log files go to the staging directory (removed after the run)."""
    env = dict(os.environ)
    if settings.gpu_target:
        # XLA:GPU logs to stderr through absl; the plugin needs no CUDA to compile.
        env.update(JAX_PLATFORMS="cpu", TF_CPP_MIN_LOG_LEVEL="0")
        env["TF_CPP_VMODULE"] = "host_offloader=2"
        return env
    env["TPU_STDERR_LOG_LEVEL"] = "0"
    env["TPU_MIN_LOG_LEVEL"] = "0"
    flags = f"--vmodule=host_offloader=2 --log_dir={settings.staging / 'tpu_logs'}"
    env["LIBTPU_INIT_ARGS"] = (env.get("LIBTPU_INIT_ARGS", "") + " " + flags).strip()
    return env


def xla_log(stderr: str) -> dict[str, Any]:
    """HostOffloader's own account of a compile, from the worker's stderr."""
    lines = stderr.splitlines()
    trace: list[str] = []
    if any("Instruction trace leading to error" in line for line in lines):
        start = max(i for i, line in enumerate(lines) if "Instruction trace leading to" in line)
        for line in lines[start + 1 :]:
            match = XLA_TRACE_STEP.search(line)
            if not match:
                break
            trace.append(match.group(1))
    host_compute = sorted({m.group(1) for line in lines if (m := XLA_HOST_COMPUTE.search(line))})
    fatal = [m.group(1) for line in lines if (m := XLA_FATAL.match(line))]
    log: dict[str, Any] = {}
    if trace:
        log["xla_trace"] = trace
    if host_compute:
        log["xla_host_compute"] = host_compute
    if fatal:
        log["fatal"] = fatal[0]
    return log


def worker(
    settings: Settings, label: str, *args: str, topology: str | None = None
) -> dict[str, Any]:
    """Run one worker job in its own process group; the job's JSON result or a failure."""
    SERVER.stop()  # libtpu admits one process
    wait_for_libtpu(settings)
    result_path = settings.staging / "worker-result.json"
    result_path.unlink(missing_ok=True)
    command = [
        sys.executable,
        "-m",
        "tools.differential.worker",
        *args,
        "--result",
        str(result_path),
        "--memory-gb",
        str(settings.memory_gb),
        *settings.compiler_args(topology),
    ]
    process = subprocess.Popen(
        command,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=REPO_ROOT,
        env=worker_environment(settings),
        start_new_session=True,
    )
    try:
        _, stderr = process.communicate(timeout=settings.timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.communicate()
        STATS.timeouts.append(label)
        return {"status": "timeout", "message": f"no verdict within {settings.timeout:g} s"}
    log = xla_log(stderr)
    if process.returncode != 0 or not result_path.exists():
        STATS.crashes.append(label)
        what = log.get("fatal") or "\n".join(stderr.strip().splitlines()[-15:])
        return {"status": "crash", "message": f"worker exit {process.returncode}: {what}"}
    result: dict[str, Any] = json.loads(result_path.read_text())
    result.update(log)
    rss = float(result.get("max_rss_mb", 0.0))
    STATS.peak_rss_mb = max(STATS.peak_rss_mb, rss)
    if "seconds" in result:
        STATS.compiles += 1
        STATS.compile_seconds.append(float(result["seconds"]))
        STATS.slowest = max(STATS.slowest, (float(result["seconds"]), label))
    return result


@dataclass(frozen=True)
class Target:
    """What a module is compiled for: the first ``devices`` devices of ``topology``."""

    topology: str
    devices: int

    @classmethod
    def of(cls, entry: dict[str, Any], settings: Settings) -> Target:
        # A recorded topology is a TPU's: XLA:GPU compiles every module on its one topology.
        topology = settings.topology if settings.gpu_target else entry.get("topology")
        return cls(topology or settings.topology, entry.get("devices", 1))


class CompileServer:
    """One worker process (``worker serve``) compiling module after module for one topology:
    JAX and libtpu start once instead of once per compile. Only one runs at a time (libtpu
    admits one process); a timeout or a crash ends it, and the next compile starts another."""

    def __init__(self) -> None:
        self.process: subprocess.Popen[str] | None = None
        self.topology = ""

    def stop(self) -> None:
        if self.process is None:
            return
        with contextlib.suppress(OSError):
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.communicate()
        self.process = None

    def start(self, settings: Settings, topology: str) -> subprocess.Popen[str]:
        self.stop()
        wait_for_libtpu(settings)
        command = [sys.executable, "-m", "tools.differential.worker", "serve"]
        command += ["--result", str(settings.staging / "server-result.json")]
        command += ["--memory-gb", str(settings.memory_gb), *settings.compiler_args(topology)]
        self.process = subprocess.Popen(
            command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=(settings.staging / "server-stderr.log").open("w"),
            text=True,
            cwd=REPO_ROOT,
            env=worker_environment(settings),
            start_new_session=True,
        )
        self.topology = topology
        return self.process

    def compile(self, settings: Settings, label: str, path: Path, target: Target) -> dict[str, Any]:
        process = self.process
        if process is None or process.poll() is not None or self.topology != target.topology:
            process = self.start(settings, target.topology)
        assert process.stdin is not None and process.stdout is not None
        log_path = settings.staging / "compile-stderr.log"
        log_path.write_text("")
        request = {"module": str(path), "devices": target.devices, "log": str(log_path)}
        process.stdin.write(json.dumps(request) + "\n")
        process.stdin.flush()
        ready, _, _ = select.select([process.stdout], [], [], settings.timeout)
        line = process.stdout.readline() if ready else ""
        stderr = log_path.read_text(errors="replace")
        log = xla_log(stderr)
        if not ready:
            self.stop()
            STATS.timeouts.append(label)
            return {"status": "timeout", "message": f"no verdict within {settings.timeout:g} s"}
        if not line:
            self.stop()
            STATS.crashes.append(label)
            what = log.get("fatal") or "\n".join(stderr.strip().splitlines()[-15:])
            return {"status": "crash", "message": f"worker ended: {what}"}
        result: dict[str, Any] = json.loads(line)
        result.update(log)
        STATS.peak_rss_mb = max(STATS.peak_rss_mb, float(result.get("max_rss_mb", 0.0)))
        STATS.compiles += 1
        STATS.compile_seconds.append(float(result["seconds"]))
        STATS.slowest = max(STATS.slowest, (float(result["seconds"]), label))
        return result


SERVER = CompileServer()


def xla_compile(settings: Settings, label: str, text: str, target: Target) -> dict[str, Any]:
    path = settings.staging / "compile-input.mlir"
    path.write_text(text)
    devices = ("--devices", str(target.devices))
    if settings.serve:
        served = SERVER.compile(settings, label, path, target)
        if served["status"] not in ("crash", "timeout"):
            return served
        # What ended the shared process may be left over from an earlier module: this one's
        # verdict is that of a process of its own.
        say(settings, f"  {label}: {served['status']} in the shared worker; compiling it alone")
    else:
        served = None
    result = worker(
        settings, label, "compile", "--module", str(path), *devices, topology=target.topology
    )
    if served is not None:
        result["shared_worker"] = served["status"]
    return result


# --- our checker -------------------------------------------------------------------------------


def run_tool(command: list[str], **kwargs: Any) -> subprocess.CompletedProcess[str]:
    """Run ``offload-opt``; wait out a reinstall of the package under it (it disappears)."""
    for attempt in range(12):
        try:
            return subprocess.run(command, capture_output=True, text=True, **kwargs)
        except FileNotFoundError:
            if attempt == 11:
                raise
            time.sleep(10)
    raise AssertionError("unreachable")


def check(settings: Settings, text: str) -> dict[str, Any]:
    path = settings.staging / "check-input.mlir"
    path.write_text(text)
    result = run_tool(
        [
            settings.offload_opt,
            str(path),
            f"--host-offload-check=xla-release={settings.xla_release} platform={settings.platform}",
        ],
        timeout=300,
        cwd=REPO_ROOT,
    )
    return {
        "e1200_outputs": sorted({int(i) for i in E1200_OUTPUT.findall(result.stderr)}),
        "warnings": sorted(set(WARNING_CODE.findall(result.stderr))),
        "errors": sorted(set(ERROR_CODE.findall(result.stderr))),
        "exit_code": result.returncode,
        # Exit 2: offload-opt could not read the module (it gave no verdict); any other
        # status but 0 and 1 is a crash.
        "loaded": result.returncode in (0, 1),
        "crashed": "Stack dump" in result.stderr or result.returncode not in (0, 1, 2),
    }


def fix_available(settings: Settings) -> bool:
    result = run_tool([settings.offload_opt, "--list-passes"], timeout=60)
    return "host-offload-fix" in result.stdout


def fixed(settings: Settings, text: str, strategy: str) -> tuple[str | None, str]:
    """The module ``host-offload-fix{strategy=...}`` makes of ``text`` (generic form)."""
    path = settings.staging / "fix-input.mlir"
    path.write_text(text)
    result = run_tool(
        [
            settings.offload_opt,
            str(path),
            "--pass-pipeline=builtin.module(host-offload-fix{"
            f"strategy={strategy} xla-release={settings.xla_release} "
            f"platform={settings.platform}}})",
            "--mlir-print-op-generic",
            "--mlir-print-debuginfo",
        ],
        timeout=300,
        cwd=REPO_ROOT,
    )
    if result.returncode != 0:
        return None, result.stderr.strip()[-2000:]
    return result.stdout, result.stderr.strip()[-2000:]


# --- the differential run ----------------------------------------------------------------------


def short(message: str) -> str:
    """The lines of an XLA message that say what failed (no URL, no source trace)."""
    lines = [line for line in message.splitlines() if line.strip()]
    keep = [line for line in lines if not line.startswith("See https://")][:3]
    return "\n".join(keep)[:1500]


def xla_record(result: dict[str, Any]) -> dict[str, Any]:
    record = {
        "status": result["status"],
        "message": short(result.get("message", "")),
        "seconds": result.get("seconds"),
        "max_rss_mb": round(float(result.get("max_rss_mb", 0.0)), 1),
    }
    for key in ("xla_trace", "xla_host_compute"):
        if key in result:
            record[key] = result[key]
    if result["status"] == "ok":
        record["e1200_outputs"] = []
    elif result["status"] == "error":
        # Another error than E1200: XLA raised no E1200 on this module (see docs).
        record["e1200_outputs"] = []
    else:
        record["e1200_outputs"] = None
    return record


def probe_e1200_outputs(
    settings: Settings, name: str, text: str, count: int, target: Target
) -> tuple[list[int] | None, dict[str, Any]]:
    """XLA's full set of E1200 outputs: output i offends iff the module with every other
    output re-declared ``pinned_host`` is still rejected with E1200."""
    if count == 1:
        return [0], {"compiles": 0}
    offending: list[int] = []
    unclear: list[int] = []
    compiles = 0
    for index in range(count):
        others = {j: "pinned_host" for j in range(count) if j != index}
        result = xla_compile(
            settings, f"{name} probe {index}", mlir_text.with_result_kinds(text, others), target
        )
        compiles += 1
        if result["status"] == "e1200":
            offending.append(index)
        elif result["status"] != "ok":
            unclear.append(index)
    every = {j: "pinned_host" for j in range(count)}
    all_host = xla_compile(
        settings, f"{name} all host", mlir_text.with_result_kinds(text, every), target
    )
    host_fix = {j: "pinned_host" for j in offending}
    set_host = xla_compile(
        settings, f"{name} xla set host", mlir_text.with_result_kinds(text, host_fix), target
    )
    details = {
        "compiles": compiles + 2,
        "all_outputs_pinned_host": all_host["status"],
        "offending_outputs_pinned_host": set_host["status"],
    }
    if unclear:
        details["unclear_outputs"] = unclear
        return None, details
    # XLA:GPU may fail otherwise once the offending outputs are host memory (docs/
    # differential.md): the set is still the outputs HostOffloader rejects.
    accepted = ("ok", "error") if settings.gpu_target else ("ok",)
    if not offending or set_host["status"] not in accepted:
        return None, details
    return offending, details


def verdict_of(settings: Settings, name: str, text: str, entry: dict[str, Any]) -> None:
    """Compile ``text``, establish XLA's E1200 set, run our checker; fill ``entry``."""
    target = Target.of(entry, settings)
    result = xla_compile(settings, name, text, target)
    entry["xla"] = xla_record(result)
    if result["status"] == "e1200":
        outputs, details = probe_e1200_outputs(
            settings, name, text, len(entry["declared_memory_kinds"]), target
        )
        entry["xla"]["e1200_outputs"] = outputs
        entry["xla"]["probe"] = details
    entry["checker"] = check(settings, text)
    xla_outputs = entry["xla"]["e1200_outputs"]
    entry["agrees"] = (
        None
        if xla_outputs is None
        else entry["checker"]["loaded"] and xla_outputs == entry["checker"]["e1200_outputs"]
    )
    mark = {True: "agree", False: "DISAGREE", None: "no verdict"}[entry["agrees"]]
    if not entry["checker"]["loaded"]:
        mark = "UNLOADABLE"
    say(
        settings,
        f"{name}: xla {entry['xla']['status']} {xla_outputs}, "
        f"ours {entry['checker']['e1200_outputs']} -> {mark}",
    )


def mesh_target(entry: dict[str, Any]) -> dict[str, Any]:
    """The topology and device count a derived module inherits (absent: one device)."""
    return {key: entry[key] for key in ("topology", "devices") if key in entry}


def attribute_mutants(entry: dict[str, Any]) -> list[tuple[int, str]]:
    """Result kind flips of a program XLA accepts: host outputs re-declared elsewhere."""
    flips = []
    for index, kind in enumerate(entry["declared_memory_kinds"]):
        if kind == "pinned_host":
            flips += [(index, "device"), (index, "unpinned_host")]
        elif kind == "unpinned_host":
            flips += [(index, "device"), (index, "pinned_host")]
    return flips


def run(settings: Settings, only: str | None, with_fix: bool, with_jit: bool) -> dict[str, Any]:
    lowered_dir = settings.staging / "lowered"
    args = ["lower", "--out-dir", str(lowered_dir)] + (["--only", only] if only else [])
    lowered = worker(settings, "lower", *args)
    if "modules" not in lowered:
        raise SystemExit(f"lowering failed: {lowered.get('message')}")
    settings.xla_release = settings.xla_release or modelled_release(lowered["versions"])
    count = len(lowered["modules"])
    say(settings, f"lowered {count} modules; checking as XLA {settings.xla_release}")
    modules: dict[str, dict[str, Any]] = {}
    texts: dict[str, str] = {}
    lowering_errors = {}
    for name, info in lowered["modules"].items():
        if "lowering_error" in info:
            lowering_errors[name] = info["lowering_error"]
            continue
        texts[name] = (lowered_dir / f"{name}.mlir").read_text()
        modules[name] = {
            "kind": info["kind"],
            "program": info["base"] or name,
            "base": info["base"],
            "description": info["description"],
            "declared_memory_kinds": info["declared_memory_kinds"],
            "result_info": info["result_info"],
        }
        if info.get("devices", 1) > 1:
            modules[name].update(topology=info["topology"], devices=info["devices"])

    for name in list(modules):
        entry = modules[name]
        verdict_of(settings, name, texts[name], entry)
        if not with_jit:
            continue
        jit = worker(
            settings, f"{name} jit", "jit", "--program", name, topology=entry.get("topology")
        )
        entry["xla_jit"] = {"status": jit["status"], "seconds": jit.get("seconds")}
        if jit["status"] != entry["xla"]["status"]:
            say(settings, f"  note: jax.jit compile says {jit['status']}")

    for name in [n for n, e in modules.items() if e["kind"] == "program"]:
        if modules[name]["xla"]["status"] != "ok":
            continue
        for index, kind in attribute_mutants(modules[name]):
            mutant = f"{name}__out{index}_{kind}"
            kinds = list(modules[name]["declared_memory_kinds"])
            kinds[index] = kind
            texts[mutant] = mlir_text.with_result_kinds(texts[name], {index: kind})
            modules[mutant] = {
                "kind": "attr_mutant",
                "program": name,
                "base": name,
                "description": f"{name} with result {index} re-declared "
                f'mhlo.memory_kind = "{kind}" (module-level mutation)',
                "declared_memory_kinds": kinds,
                "result_info": modules[name]["result_info"],
                **mesh_target(modules[name]),
            }
            verdict_of(settings, mutant, texts[mutant], modules[mutant])

    fix_note = "not run (--no-fix)"
    if with_fix and fix_available(settings):
        fix_note = "run"
        for name in list(modules):
            entry = modules[name]
            if not entry["checker"]["e1200_outputs"]:
                continue  # the fix acts on our findings only: nothing to change
            for strategy in FIX_STRATEGIES:
                text, log = fixed(settings, texts[name], strategy)
                target = f"{name}__fix_{strategy}"
                if text is None:
                    entry.setdefault("fix_failures", {})[strategy] = log
                    say(settings, f"{target}: host-offload-fix failed: {log[:200]}")
                    continue
                texts[target] = text
                modules[target] = {
                    "kind": f"fix_{strategy}",
                    "program": entry["program"],
                    "base": name,
                    "description": f"{name} after host-offload-fix{{strategy={strategy}}}",
                    "declared_memory_kinds": [r.memory_kind for r in mlir_text.results(text)],
                    "result_info": entry["result_info"],
                    **mesh_target(entry),
                }
                verdict_of(settings, target, text, modules[target])
    elif with_fix:
        fix_note = "not available: host-offload-fix is not a registered pass of this offload-opt"

    version = run_tool([settings.offload_opt, "--version"], timeout=60).stdout.split("\n")[0]
    return {
        "versions": lowered["versions"],
        "checker": version.strip(),
        "modules": modules,
        "texts": texts,
        "lowering_errors": lowering_errors,
        "fix": fix_note,
    }


def modelled_release(versions: dict[str, str]) -> str:
    """The XLA release of the libtpu (or jax-cuda12-plugin) whose ``versions`` a worker
    reported."""
    if "jax_cuda12_plugin" in versions:
        return gpu.xla_release_of_plugin(versions["jax_cuda12_plugin"])
    try:
        return xla_release_of_platform_version(versions["platform_version"])
    except ValueError as error:
        raise SystemExit(
            f"{error}: add it to cpp/include/hostoffload/XlaReleases.def, or pass --xla-release"
        ) from None


RECORDED_KEYS = ("xla", "xla_jit", "checker", "agrees", "fix_failures", "module_sha256")


def recompile(settings: Settings, out: Path, only: str | None) -> dict[str, Any]:
    """XLA's verdicts, with the installed libtpu, on the modules recorded in ``out`` (those of
    ``verdicts.json``, as they are on disk): no lowering, no new mutants or fixes."""
    versions = worker(settings, "versions", "versions").get("versions")
    if versions is None:
        raise SystemExit("the worker could not start its compiler")
    settings.xla_release = settings.xla_release or modelled_release(versions)
    if settings.gpu_target:
        versions["gpu_target"] = settings.gpu_target
    recorded = json.loads((out / "verdicts.json").read_text())["modules"]
    pattern = re.compile(only) if only else None
    modules: dict[str, dict[str, Any]] = {}
    texts: dict[str, str] = {}
    for name, entry in recorded.items():
        if pattern and not pattern.search(entry["program"]):
            continue
        texts[name] = layout.module_path(out, name, entry).read_text()
        modules[name] = {k: v for k, v in entry.items() if k not in RECORDED_KEYS}
        modules[name]["module_sha256"] = hashlib.sha256(texts[name].encode()).hexdigest()
    say(settings, f"{len(modules)} recorded modules; checking as XLA {settings.xla_release}")
    for name, entry in modules.items():
        verdict_of(settings, name, texts[name], entry)
    version = run_tool([settings.offload_opt, "--version"], timeout=60).stdout.split("\n")[0]
    return {
        "versions": versions,
        "checker": version.strip(),
        "modules": modules,
        "texts": texts,
        "lowering_errors": {},
        "fix": "not run: the recorded fixes were compiled (--recompile)",
    }


# --- output ------------------------------------------------------------------------------------


def loaded(entry: dict[str, Any]) -> bool:
    """Whether our checker read the module and gave a verdict. A record made before
    "loaded" was recorded tells it by its exit code alone."""
    checker = entry["checker"]
    return bool(checker.get("loaded", checker["exit_code"] in (0, 1) and not checker["crashed"]))


def outcome(entry: dict[str, Any]) -> str:
    """What the run found on ``entry``: "agree", "disagree", "unloadable" (our checker could
    not read the module: never an agreement, whatever XLA said) or "no_xla_verdict"."""
    if not loaded(entry):
        return "unloadable"
    if entry["agrees"] is None:
        return "no_xla_verdict"
    return "agree" if entry["agrees"] else "disagree"


def summary(modules: dict[str, dict[str, Any]]) -> dict[str, Any]:
    by_kind: dict[str, dict[str, int]] = {}
    for entry in modules.values():
        counts = by_kind.setdefault(
            entry["kind"], {"modules": 0, "agree": 0, "disagree": 0, "unloadable": 0}
        )
        counts["modules"] += 1
        if outcome(entry) in counts:
            counts[outcome(entry)] += 1
    return {
        "modules": len(modules),
        "agree": sum(1 for e in modules.values() if outcome(e) == "agree"),
        "disagree": sorted(n for n, e in modules.items() if outcome(e) == "disagree"),
        "unloadable": sorted(n for n, e in modules.items() if outcome(e) == "unloadable"),
        "no_xla_verdict": sorted(n for n, e in modules.items() if outcome(e) == "no_xla_verdict"),
        "xla_e1200": sum(1 for e in modules.values() if e["xla"]["status"] == "e1200"),
        "xla_other_error": sorted(n for n, e in modules.items() if e["xla"]["status"] == "error"),
        "by_kind": by_kind,
    }


def write(
    out: Path, result: dict[str, Any], only: str | None, verdicts: str, command: str
) -> dict[str, Any]:
    """Write ``verdicts`` in ``out``; the module texts too, unless they were recompiled as
    they are there."""
    out.mkdir(parents=True, exist_ok=True)
    verdicts_path = out / verdicts
    recompiled = "module_sha256" in next(iter(result["modules"].values()), {})
    modules: dict[str, dict[str, Any]] = {}
    if only and verdicts_path.exists():
        # A partial run replaces the modules of the programs it regenerated.
        regenerated = {e["program"] for e in result["modules"].values()}
        kept = json.loads(verdicts_path.read_text())["modules"]
        modules = {n: e for n, e in kept.items() if e["program"] not in regenerated}
    modules.update(result["modules"])
    if not recompiled:
        paths = {layout.module_path(out, name, entry) for name, entry in modules.items()}
        for stale in set(layout.recorded_modules(out)) - paths:
            stale.unlink()
        for name, entry in result["modules"].items():
            path = layout.module_path(out, name, entry)
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(result["texts"][name])
    document = {
        "generated": {
            **result["versions"],
            "date": datetime.date.today().isoformat(),
            "command": command,
            "checker": result["checker"],
            "xla_release_modelled": result["xla_release"],
            "host_offload_fix": result["fix"],
        },
        "summary": summary(modules),
        "lowering_errors": result["lowering_errors"],
        "modules": dict(sorted(modules.items())),
    }
    verdicts_path.parent.mkdir(parents=True, exist_ok=True)
    verdicts_path.write_text(json.dumps(document, indent=1, sort_keys=False) + "\n")
    return document


def report(document: dict[str, Any]) -> None:
    summary_ = document["summary"]
    print()
    print(
        f"modules: {summary_['modules']}, agree: {summary_['agree']}, "
        f"unloadable: {len(summary_['unloadable'])}"
    )
    for kind, counts in sorted(summary_["by_kind"].items()):
        print(f"  {kind}: {counts}")
    print(f"XLA raised E1200 on {summary_['xla_e1200']} modules")
    for name in summary_["xla_other_error"]:
        print(f"XLA failed otherwise on {name}: {document['modules'][name]['xla']['message']!r}")
    for name in summary_["no_xla_verdict"]:
        print(f"no XLA verdict for {name}: {document['modules'][name]['xla']}")
    for name in summary_["unloadable"]:
        entry = document["modules"][name]
        print(f"UNLOADABLE {name}: our checker exited {entry['checker']['exit_code']}")
    for name in summary_["disagree"]:
        entry = document["modules"][name]
        print(
            f"DISAGREEMENT {name}: XLA {entry['xla']['e1200_outputs']}, "
            f"ours {entry['checker']['e1200_outputs']}\n  XLA: {entry['xla']['message']!r}"
        )
    seconds = STATS.compile_seconds
    if seconds:
        print(
            f"{STATS.compiles} XLA compiles: total {sum(seconds):.1f} s, "
            f"slowest {STATS.slowest[0]:.2f} s ({STATS.slowest[1]}), "
            f"peak worker RSS {STATS.peak_rss_mb:.0f} MB"
        )
    for label in STATS.timeouts:
        print(f"timeout: {label}")
    for label in STATS.crashes:
        print(f"worker crash: {label}")


@contextlib.contextmanager
def harness_lock() -> Iterator[None]:
    HARNESS_LOCK.parent.mkdir(parents=True, exist_ok=True)
    with HARNESS_LOCK.open("w") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise SystemExit("another differential run holds " + str(HARNESS_LOCK)) from None
        yield


def find_offload_opt(given: str | None) -> str:
    candidates: list[str | None] = [given] if given else []
    candidates += [str(Path(sys.executable).parent / "offload-opt"), shutil.which("offload-opt")]
    for candidate in candidates:
        if candidate and Path(candidate).is_file():
            return candidate
    raise SystemExit("no offload-opt: install hostoffload or pass --offload-opt")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--out", type=Path, default=layout.SUITE)
    parser.add_argument("--only", help="regex: regenerate only the programs it matches")
    parser.add_argument("--offload-opt", help="the checker (default: next to python, PATH)")
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds per libtpu job")
    parser.add_argument("--memory-gb", type=float, default=8.0, help="address space per job")
    parser.add_argument("--topology", help="default: v5e:2x2, or 1x1x8 for --gpu-target")
    parser.add_argument(
        "--gpu-target",
        choices=sorted(gpu.TARGETS),
        help="with --recompile: compile with XLA:GPU for this target (gpu.py) instead of TPU",
    )
    parser.add_argument("--lock-wait", type=float, default=600.0)
    parser.add_argument("--no-fix", action="store_true", help="skip host-offload-fix")
    parser.add_argument(
        "--no-jit", action="store_true", help="skip the second compile through jax.jit"
    )
    parser.add_argument("--quiet", action="store_true")
    parser.add_argument(
        "--serve",
        action="store_true",
        help="compile in one long-lived worker per topology instead of one process per compile",
    )
    parser.add_argument(
        "--checker-note", default="", help="recorded with the checker's version, e.g. a commit"
    )
    parser.add_argument(
        "--verdicts",
        default="verdicts.json",
        help="the name of the verdicts file in --out (one per libtpu release)",
    )
    parser.add_argument(
        "--recompile",
        action="store_true",
        help="compile the modules recorded in --out (its verdicts.json) instead of lowering",
    )
    parser.add_argument(
        "--xla-release",
        help="the XLA release our checker models (default: that of the libtpu's build line)",
    )
    args = parser.parse_args()
    if args.recompile and args.verdicts == "verdicts.json":
        parser.error("--recompile writes another verdicts file: give --verdicts")
    if args.gpu_target and not args.recompile:
        parser.error("--gpu-target compiles recorded modules: give --recompile")
    if args.recompile and not (args.out / "verdicts.json").is_file():
        parser.error(f"--recompile: no recorded suite in {args.out} (no verdicts.json)")
    try:
        xla_release = xla_release_named(args.xla_release) if args.xla_release else ""
    except ValueError as error:
        parser.error(str(error))
    with harness_lock(), tempfile.TemporaryDirectory(prefix="hostoffload-diff-") as staging:
        settings = Settings(
            offload_opt=find_offload_opt(args.offload_opt),
            timeout=args.timeout,
            memory_gb=args.memory_gb,
            topology=args.topology or (gpu.TOPOLOGY if args.gpu_target else "v5e:2x2"),
            lock_wait=args.lock_wait,
            staging=Path(staging),
            log=not args.quiet,
            serve=args.serve,
            xla_release=xla_release,
            gpu_target=args.gpu_target or "",
        )
        started = time.monotonic()
        try:
            if args.recompile:
                result = recompile(settings, args.out.resolve(), args.only)
            else:
                result = run(settings, args.only, not args.no_fix, not args.no_jit)
        finally:
            SERVER.stop()
        result["xla_release"] = settings.xla_release
        if args.checker_note:
            result["checker"] += f" ({args.checker_note})"
        given = [a for a in sys.argv[1:] if not a.startswith("--offload-opt")]
        if args.offload_opt and args.offload_opt in given:  # where this machine keeps it
            given.remove(args.offload_opt)
        command = "python -m tools.differential.run " + " ".join(given)
        document = write(args.out.resolve(), result, args.only, args.verdicts, command)
        report(document)
        print(f"wall time {time.monotonic() - started:.0f} s; wrote {args.out}")


if __name__ == "__main__":
    main()
