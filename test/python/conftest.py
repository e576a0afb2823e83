"""Constants and helpers shared by the Python test suite: ``from conftest import ...``.

The JAX programs the tests run on are those of the differential suite (``test/differential``):
real TPU lowerings of ``tools/differential/catalogue.py``, each with XLA:TPU's verdict in
``verdicts.json`` (docs/differential.md), in folders by kind (``tools/differential/layout.py``).
"""

from __future__ import annotations

import functools
import importlib.metadata
import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from hostoffload import Report
from hostoffload.mlir import ir
from hostoffload.releases import (
    ENVIRONMENT_VARIABLE,
    LIBTPU_DISTRIBUTION,
    chosen_xla_release,
    modelled_on,
    newest_xla_release,
    xla_release_of_platform_version,
)
from tools.differential import layout

REPO_ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = REPO_ROOT / "examples" / "offloaded_state.mlir"
DIFFERENTIAL_DIR = layout.SUITE
VERDICTS: dict[str, Any] = json.loads((DIFFERENTIAL_DIR / "verdicts.json").read_text())
MODULES: dict[str, dict[str, Any]] = VERDICTS["modules"]
# The XLA release of the libtpu that recorded the verdicts, known by its build line: the
# checker must agree with the release it models.
RECORDED_XLA_RELEASE = xla_release_of_platform_version(VERDICTS["generated"]["platform_version"])


def recordings(directory: Path) -> dict[str, dict[str, Any]]:
    """Every recording of a suite in ``directory`` by its file name, one per libtpu release:
    verdicts.json (0.0.42.1, which recorded the modules) and verdicts-libtpu-<version>.json,
    which compiled the same modules with another release."""
    return {
        path.name: json.loads(path.read_text()) for path in sorted(directory.glob("verdicts*.json"))
    }


# What every recording says of the libtpu that made it.
RECORDED_VERSIONS = ("jax", "jaxlib", "libtpu", "platform_version", "topology", "date")


def recorded_release(document: dict[str, Any]) -> str:
    """The XLA release of the libtpu that made a recording, known by its build line."""
    return xla_release_of_platform_version(document["generated"]["platform_version"])


RECORDINGS = recordings(DIFFERENTIAL_DIR)


def _libtpu_installed() -> bool:
    try:
        importlib.metadata.version(LIBTPU_DISTRIBUTION)
    except importlib.metadata.PackageNotFoundError:
        return False
    return True


# The suite's expectations are those of the newest XLA, which the check models by default where
# no libtpu is installed (CI). Where one is (the [oracle] extra), the default follows it
# (docs/semantics.md, section 15): the suite, and every process it starts, names the newest
# instead. The tests of that choice (test_xla_release_choice.py) set their own.
if _libtpu_installed():
    os.environ[ENVIRONMENT_VARIABLE] = newest_xla_release()
# How a report's summary line names the XLA it models by default.
_DEFAULT_RELEASE = chosen_xla_release()
MODELLED_ON_NEWEST = modelled_on(_DEFAULT_RELEASE.name, _DEFAULT_RELEASE.reason).strip()
# XLA:TPU's message on a lone unpinned_host output that its root special case copies to host
# memory, in XLA release 2026-06: HOE104 predicts it.
DMA_HBM_TO_HBM = "FAILED_PRECONDITION: Unimplemented DMA from hbm to hbm."

# What a crash of MLIR, of our C++ or of Python prints; never in the output of a run.
CRASH_MARKERS = ("Stack dump", "PLEASE submit a bug report", "Assertion", "Traceback")
# The output index of each E1200 error in the text of offload-opt or python -m hostoffload.
E1200_OUTPUT = re.compile(r"error: E1200: .*?; output (\d+)")


def differential_module(name: str) -> Path:
    """The recorded module ``name`` of the differential suite."""
    return layout.module_path(DIFFERENTIAL_DIR, name, MODULES[name])


# The modules a TPU v5e compiled and then halted on whatever their inputs (HOE105;
# test_tpu_limits.py holds HOE105 and HOW109 against every halt): those without a
# dynamic_slice, whose start the inputs choose (HOW109, a warning).
CHIP_HALTS = frozenset(
    name
    for name in json.loads((DIFFERENTIAL_DIR / "chip.json").read_text())["summary"]["halted"]
    if "stablehlo.dynamic_slice" not in differential_module(name).read_text()
)


def xla_e1200_outputs(name: str) -> list[int] | None:
    """The outputs XLA:TPU rejects with E1200 in module ``name``; None without a verdict."""
    outputs = MODULES[name]["xla"]["e1200_outputs"]
    return None if outputs is None else list(outputs)


# Recorded modules on which our checker does not give XLA's verdict, with the reason:
# test_differential.py runs each as a strict xfail; the other tests leave them out.
KNOWN_DISAGREEMENTS: dict[str, str] = {}
# The catalogue's programs as JAX lowers them (no mutants, no fixes) that XLA gave a verdict on.
ALL_PROGRAMS = sorted(
    name
    for name, entry in MODULES.items()
    if entry["kind"] == "program" and xla_e1200_outputs(name) is not None
)
# Those the checker agrees with XLA on, for the tests of the API, the CLI and the reports.
PROGRAMS = [name for name in ALL_PROGRAMS if name not in KNOWN_DISAGREEMENTS]
PROGRAMS_WITH_E1200 = [name for name in PROGRAMS if xla_e1200_outputs(name)]
# A JAX lowering without findings: a pinned_host argument returned to a pinned_host output.
CLEAN = differential_module("host_arg_passthrough_host_out")
# A JAX lowering with warnings only: host compute in a cond whose result moves back to device.
HOST_COMPUTE_ONLY = differential_module("cond_host_to_device")


def run_offload_opt(
    *args: str | Path, stdin: str | None = None, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    """``offload-opt ARGS`` from the repository root, its output as text."""
    return subprocess.run(
        ["offload-opt", *map(str, args)],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=REPO_ROOT,
    )


def run_hostoffload(
    *args: str | Path, stdin: str | None = None, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    """``python -m hostoffload ARGS`` from the repository root, its output as text."""
    return subprocess.run(
        [sys.executable, "-m", "hostoffload", *map(str, args)],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=REPO_ROOT,
    )


def crash_markers_in(output: str) -> list[str]:
    """The crash markers found in ``output``: a test asserts there are none."""
    return [marker for marker in CRASH_MARKERS if marker in output]


def e1200_outputs_in(output: str) -> list[int]:
    """The output indices of the E1200 errors in the text of a run, sorted, once each."""
    return sorted({int(index) for index in E1200_OUTPUT.findall(output)})


def e1200_outputs(report: Report) -> list[int | None]:
    """The output indices of the report's E1200 errors, in the report's order."""
    return [finding.output_index for finding in report.errors if finding.code == "E1200"]


def generic_asm(operation: ir.Operation) -> str:
    """The operation as ``hostoffload.fix`` prints modules: generic form, with locations."""
    return operation.get_asm(print_generic_op_form=True, enable_debug_info=True)


# MLIR's --split-input-file marker, which the lit tests use.
SPLIT_MARKER = re.compile(rb"^// -----\s*$", re.MULTILINE)


def module_inputs() -> Iterator[tuple[str, bytes]]:
    """Every JAX lowering of the differential suite, the example, and every module of the lit
    tests (tuple outputs, long paths, HLO-style modules, bad input), with their names."""
    for path in layout.recorded_modules(DIFFERENTIAL_DIR) + [EXAMPLE]:
        yield path.stem, path.read_bytes()
    for path in sorted((REPO_ROOT / "test" / "lit").glob("*/*.mlir")):
        for index, text in enumerate(SPLIT_MARKER.split(path.read_bytes())):
            yield f"{path.parent.name}/{path.stem}:{index}", text


@functools.cache
def _cpu_compiles_host_outputs() -> bool:
    import jax
    from jax.sharding import SingleDeviceSharding

    host = SingleDeviceSharding(jax.devices("cpu")[0], memory_kind="pinned_host")
    state = jax.ShapeDtypeStruct((4,), jax.numpy.float32, sharding=host)
    try:
        jax.jit(lambda x: x * 2, out_shardings=host).lower(state).compile()
    except jax.errors.JaxRuntimeError:
        return False
    return True


@pytest.fixture
def cpu_host_memory() -> None:
    """Skips a test that compiles or runs programs with arrays in host memory on CPU, which
    XLA:CPU does from jaxlib 0.10 on: before, it has no implementation of the placement
    custom call (``No registered implementation for untyped custom call to
    annotate_device_placement for Host``) and keeps results in device memory."""
    if not _cpu_compiles_host_outputs():
        pytest.skip("this jaxlib's XLA:CPU does not place arrays in host memory (jaxlib < 0.10)")
