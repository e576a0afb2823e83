"""On a machine without a TPU, the JAX routes give XLA:TPU's verdict.

``hostoffload.watch()``, ``pytest --hostoffload`` and ``hostoffload run`` see the programs JAX
compiles. On CPU that is the CPU lowering, in which JAX drops every ``jax.device_put`` between
memories inside ``jit`` (and the moves of remat offload policies) but keeps ``pinned_host``
arguments; checking it would report E1200 on correct programs and miss rejected ones. The
routes check the lowering for the platform that offloads instead (TPU by default).

Every single-device JAX program of the differential suite (``tools/differential/catalogue.py``
and its JAX-level mutants) is built here for the CPU device and compiled ahead of time on CPU,
as a user's CPU CI would; the E1200 outputs the watch records must be those XLA:TPU rejected
(``test/differential/verdicts.json``, docs/differential.md).
"""

from pathlib import Path
from typing import Any

import pytest
from conftest import (
    CHIP_HALTS,
    MODULES,
    REPO_ROOT,
    e1200_outputs,
    run_hostoffload,
    xla_e1200_outputs,
)

import hostoffload

jax = pytest.importorskip("jax")

from tools.differential import catalogue, worker  # noqa: E402  (needs jax)

pytest_plugins = ["pytester"]

# The moves JAX drops when it lowers for CPU, and the catalogue programs that make them; each
# kind has programs XLA:TPU compiles and programs it rejects with E1200.
MOVES_DROPPED_ON_CPU: dict[str, tuple[str, ...]] = {
    "device_put of an array between memories inside jit": (
        "host_arg_device_put_device",
        "device_put_host_no_out_shardings",
        "device_put_host_host_out_shardings",
        "device_put_host_device_out_shardings",
        "device_put_memory_space_api",
        "device_put_host_and_back",
        "device_put_host_then_compute",
        "device_put_host_then_compute_device_out",
        "device_put_host_compute_then_device",
        "device_put_unpinned_two_outputs",
        "scan_offload_ys",
        "scan_offload_ys_partial_out",
        "while_host_carry_to_device",
        "while_host_passthrough",
        "scan_over_host_xs_to_device",
        "cond_host_to_device",
        "cond_offload_in_branches",
        "optimization_barrier_offload",
        "slice_compute_then_device",
        "slice_to_device_then_compute",
    ),
    "device_put of a pytree between memories inside jit": (
        "device_put_pytree_host",
        "device_put_pytree_host_and_back",
        "device_put_pytree_unpinned",
        "adam_pytree_state_to_device_and_back",
        "adam_pytree_state_to_device_and_back_out_shardings",
        "adam_pytree_state_sharding_trees",
    ),
    "pinned_host optimizer state moved to device, updated and moved back": (
        "sgd_state_to_device_and_back",
        "sgd_state_to_device_and_back_out_shardings",
        "adam_pytree_state_to_device_and_back",
        "adam_pytree_state_to_device_and_back_out_shardings",
        "sgd_state_updated_on_host",
    ),
    "unpinned_host output after a device_put": (
        "device_put_unpinned_no_out_shardings",
        "device_put_unpinned_two_outputs",
        "device_put_pytree_unpinned",
        "device_put_space_host_unpinned_out",
        "nested_jit_unpinned_inside",
        "compute_on_result_to_unpinned",
    ),
    "remat offload policy under scan": (
        "remat_offload_scan_grad",
        "remat_offload_scan_value_and_grad",
        "remat_offload_dots_scan_grad",
        "remat_offload_scan_grad_both",
        "remat_offload_scan_grad_host_weights",
        "remat_offload_scan_grad_weights_on_host",
    ),
    "device_put inside a nested jit": (
        "nested_jit_offload_inside",
        "nested_jit_offload_inside_computed",
        "nested_jit_unpinned_inside",
    ),
    "compute_on": (
        "compute_on_device_host",
        "compute_on_device_host_to_host",
        "compute_on_host_arg",
        "compute_on_host_arg_then_device",
        "compute_on_result_to_unpinned",
        "compute_on_result_to_host",
    ),
}

# Every single-device JAX program of the suite with an XLA:TPU verdict (the mesh programs need
# the devices of a TPU topology; a program whose TPU compile crashed libtpu has no verdict).
ROUTE_PROGRAMS = sorted(
    name
    for name, entry in MODULES.items()
    if entry["kind"] in ("program", "jax_mutant")
    and "devices" not in entry
    and xla_e1200_outputs(name) is not None
)

# A correct SGD step whose pinned_host momentum is moved to device, updated and moved back:
# its CPU lowering has neither move, so the update reads host memory into a device output.
SGD_STEP = "sgd_state_to_device_and_back"
# Output 0 moved to unpinned_host inside jit and declared device: the CPU lowering drops the
# move, and with it the E1200 XLA:TPU raises.
UNPINNED_OUTPUT = "device_put_unpinned_two_outputs"

# Compiles one catalogue program, named on the command line, on the CPU device.
COMPILE_SCRIPT = """\
import sys

import jax

from tools.differential import catalogue

programs = {p.name: p for p in catalogue.programs(jax.devices("cpu")[0])}
program = programs[sys.argv[1]]
jax.jit(program.fn, **program.jit_kwargs).trace(*program.args).lower().compile()
print("compiled", program.name)
"""

PYTEST_FILE = f"""\
import jax
import pytest

from tools.differential import catalogue

PROGRAMS = {{p.name: p for p in catalogue.programs(jax.devices("cpu")[0])}}


@pytest.mark.parametrize("name", [{SGD_STEP!r}, {UNPINNED_OUTPUT!r}])
def test_compile(name):
    program = PROGRAMS[name]
    jax.jit(program.fn, **program.jit_kwargs).trace(*program.args).lower().compile()
"""


@pytest.fixture(scope="module")
def programs() -> dict[str, Any]:
    """Every program of :data:`ROUTE_PROGRAMS`, its arguments placed on the CPU device."""
    built = {p.name: p for p in catalogue.programs(jax.devices("cpu")[0]) if p.name in MODULES}
    for program in list(built.values()):
        for index in range(len(MODULES[program.name]["declared_memory_kinds"])):
            mutant = worker.flipped(program, index)
            if mutant.name in MODULES:
                built[mutant.name] = mutant
    return built


def compile_on_cpu(program: Any, **watch_options: Any) -> hostoffload.watch:
    """Compiles ``program`` ahead of time on CPU under a recording watch, which it returns."""
    with hostoffload.watch("record", **watch_options) as watcher:
        jax.jit(program.fn, **program.jit_kwargs).trace(*program.args).lower().compile()
    return watcher


def recorded_e1200_outputs(watcher: hostoffload.watch) -> list[int | None]:
    return sorted({i for report in watcher.reports for i in e1200_outputs(report)})


def test_every_kind_of_move_has_programs_xla_compiles_and_rejects() -> None:
    for kind, names in MOVES_DROPPED_ON_CPU.items():
        assert set(names) <= set(ROUTE_PROGRAMS), kind
        verdicts = {bool(xla_e1200_outputs(name)) for name in names}
        assert verdicts == {False, True}, kind


@pytest.mark.usefixtures("cpu_host_memory")
@pytest.mark.parametrize("name", ROUTE_PROGRAMS)
def test_watch_on_cpu_gives_the_verdict_of_xla_tpu(programs: dict[str, Any], name: str) -> None:
    watcher = compile_on_cpu(programs[name])
    expected = xla_e1200_outputs(name)
    assert recorded_e1200_outputs(watcher) == expected
    # One module compiled; a report only where it has errors (E1200, or a halt of the chip's
    # core that HOE105 predicts), for the TPU lowering.
    fails = bool(expected) or name in CHIP_HALTS
    assert [report.platform for report in watcher.reports] == ["tpu"] * fails


@pytest.mark.usefixtures("cpu_host_memory")
def test_the_routes_do_not_check_what_xla_cpu_compiles(programs: dict[str, Any]) -> None:
    program = programs[SGD_STEP]
    jitted = jax.jit(program.fn, **program.jit_kwargs)
    cpu_lowering = hostoffload.check(jitted.trace(*program.args).lower())
    assert cpu_lowering.platform is None
    assert e1200_outputs(cpu_lowering) == [0]
    assert xla_e1200_outputs(SGD_STEP) == []
    assert compile_on_cpu(program).mismatches == []


@pytest.mark.usefixtures("cpu_host_memory")
def test_the_cuda_lowering_when_asked(programs: dict[str, Any]) -> None:
    program = programs[UNPINNED_OUTPUT]
    assert e1200_outputs(hostoffload.check(jax.jit(program.fn).trace(*program.args).lower())) == []
    watcher = compile_on_cpu(program, platform="cuda")
    # The CUDA lowering keeps the move to unpinned_host, as the TPU lowering does.
    assert recorded_e1200_outputs(watcher) == xla_e1200_outputs(UNPINNED_OUTPUT)
    assert [report.platform for report in watcher.reports] == ["cuda"]


@pytest.mark.usefixtures("cpu_host_memory")
def test_pytest_option_gives_the_verdict_of_xla_tpu(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert xla_e1200_outputs(SGD_STEP) == [] and xla_e1200_outputs(UNPINNED_OUTPUT) == [0]
    monkeypatch.setenv("PYTHONPATH", str(REPO_ROOT))
    pytester.makepyfile(test_programs=PYTEST_FILE)
    result = pytester.runpytest_subprocess("--hostoffload", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(
        [
            "*error: E1200: *output 0*",
            f"FAILED test_programs.py::test_compile[[]{UNPINNED_OUTPUT}[]]*",
        ]
    )


@pytest.mark.usefixtures("cpu_host_memory")
def test_run_gives_the_verdict_of_xla_tpu(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert xla_e1200_outputs(SGD_STEP) == [] and xla_e1200_outputs(UNPINNED_OUTPUT) == [0]
    monkeypatch.setenv("PYTHONPATH", str(REPO_ROOT))
    script = tmp_path / "train.py"
    script.write_text(COMPILE_SCRIPT)
    correct = run_hostoffload("run", script, SGD_STEP)
    assert (correct.returncode, correct.stdout) == (0, f"compiled {SGD_STEP}\n"), correct.stderr
    rejected = run_hostoffload("run", script, UNPINNED_OUTPUT)
    assert rejected.returncode == 1
    assert "error: E1200: " in rejected.stderr
    assert "compiled" not in rejected.stdout
