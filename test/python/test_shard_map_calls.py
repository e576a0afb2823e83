"""Calls inside shard_map bodies, and recursion, through the Python API and offload-opt.

The programs are real JAX lowerings for TPU over a mesh of two CPU devices (made in a child
process, where ``--xla_force_host_platform_device_count`` can still take effect): a nested
``jit`` and a ``compute_on`` in a ``shard_map`` body are each a ``func.call`` inside
``sdy.manual_computation``, which MLIR's own verifier cannot resolve (docs/semantics.md,
"Calls inside Shardy regions").
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from conftest import e1200_outputs, e1200_outputs_in, run_offload_opt

from hostoffload import InputError, check, fix

pytest.importorskip("jax")
from tools.differential import mlir_text  # noqa: E402  (needs jax)

LOWER = textwrap.dedent(
    """
    import json, sys

    import jax
    import numpy as np
    from jax.experimental.compute_on import compute_on
    from jax.sharding import Mesh, NamedSharding, PartitionSpec as P

    mesh = Mesh(np.array(jax.devices("cpu")[:2]), ("x",))
    spec = P("x")


    def sharding(kind):
        return NamedSharding(mesh, spec, memory_kind=kind)


    def smap(body):
        return jax.shard_map(body, mesh=mesh, in_specs=spec, out_specs=spec)


    @compute_on("device_host")
    @jax.jit
    def host_sine(y):
        return jax.numpy.sin(y)


    def nested_jit_offload(x):
        return jax.jit(lambda y: jax.device_put(y * 2.0, jax.memory.Space.Host))(x)


    def compute_on_body(x):
        return host_sine(x) + 1.0


    def lower(body, **jit_kwargs):
        arg = jax.ShapeDtypeStruct((16, 128), jax.numpy.float32, sharding=sharding("device"))
        lowered = jax.jit(smap(body), **jit_kwargs).trace(arg).lower(lowering_platforms=("tpu",))
        return lowered.compiler_ir("stablehlo").operation.get_asm(
            print_generic_op_form=True, enable_debug_info=True
        )


    json.dump(
        {
            "nested_jit_offload": lower(nested_jit_offload, out_shardings=sharding("pinned_host")),
            "compute_on": lower(compute_on_body),
        },
        open(sys.argv[1], "w"),
    )
    """
)

# A call inside the shard_map body: the region op's body holds a func.call.
CALL_IN_BODY = re.compile(r'"sdy\.manual_computation"[^\n]*\n(?:[^\n]*\n)*?\s*%\S+ = "func\.call"')

RECURSIVE = """\
func.func @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %0 = call @f(%arg0) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func private @f(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %0 = call @g(%arg0) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func private @g(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %0 = call @f(%arg0) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
"""


@pytest.fixture(scope="module")
def lowered(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    out = tmp_path_factory.mktemp("shard_map") / "lowered.json"
    env = dict(os.environ, XLA_FLAGS="--xla_force_host_platform_device_count=8")
    env["JAX_PLATFORMS"] = "cpu"
    subprocess.run([sys.executable, "-c", LOWER, str(out)], check=True, env=env, timeout=300)
    programs: dict[str, str] = json.loads(out.read_text())
    for text in programs.values():
        assert CALL_IN_BODY.search(text), "the lowering has no func.call in a shard_map body"
    return programs


def test_nested_jit_that_offloads_to_a_host_output_is_clean(lowered: dict[str, str]) -> None:
    assert check(lowered["nested_jit_offload"]).errors == ()


def test_compute_on_in_a_shard_map_body_is_clean(lowered: dict[str, str]) -> None:
    assert check(lowered["compute_on"]).errors == ()


def test_offloaded_result_of_a_nested_jit_reaches_a_device_output(
    lowered: dict[str, str], tmp_path: Path
) -> None:
    # XLA:TPU rejects exactly this module with E1200 on output 0 (the differential suite's
    # m2_shard_map_nested_jit_offload__out0_device).
    text = mlir_text.with_result_kinds(lowered["nested_jit_offload"], {0: "device"})
    report = check(text)
    assert e1200_outputs(report) == [0]
    # Both moves to host reach it: the one in the nested jit, whose result comes out of the
    # call in the body, and the one JAX adds at the top for the pinned_host out_shardings.
    starts = report.errors[0].starts
    assert len(starts) == 2
    assert len({start.location.line for start in starts}) == 2
    path = tmp_path / "device_out.mlir"
    path.write_text(text)
    result = run_offload_opt(path, "--host-offload-check")
    assert result.returncode == 1, result.stderr
    assert e1200_outputs_in(result.stderr) == [0]


@pytest.mark.parametrize("strategy", ["host", "device"])
def test_both_fixes_load_and_come_out_clean(lowered: dict[str, str], strategy: str) -> None:
    text = mlir_text.with_result_kinds(lowered["nested_jit_offload"], {0: "device"})
    fixed = fix(text, strategy=strategy)
    assert CALL_IN_BODY.search(fixed)
    assert check(fixed).errors == ()


def test_a_missing_callee_in_a_shard_map_body_is_a_located_input_error(
    lowered: dict[str, str], tmp_path: Path
) -> None:
    text = lowered["compute_on"]
    callee = re.search(r'"func\.call"\(%\S+\) <\{callee = @([\w.<>-]+)', text)
    assert callee
    broken = text.replace(f"callee = @{callee.group(1)}", "callee = @missing", 1)
    with pytest.raises(InputError) as raised:
        check(broken)
    (diagnostic,) = raised.value.diagnostics
    assert diagnostic.message == "'func.call' op 'missing' does not reference a valid function"
    assert diagnostic.location.line is not None
    path = tmp_path / "missing.mlir"
    path.write_text(broken)
    result = run_offload_opt(path, "--host-offload-check")
    assert result.returncode == 2, result.stderr
    assert "'missing' does not reference a valid function" in result.stderr


def test_recursion_is_hoe103_at_the_call_that_closes_the_cycle(tmp_path: Path) -> None:
    report = check(RECURSIVE)
    (error,) = report.errors
    assert error.code == "HOE103"
    assert error.message.startswith("HOE103: recursive call: @f -> @g -> @f;")
    assert error.location.line == 10
    assert [note.location.line for note in error.notes] == [6]
    path = tmp_path / "recursive.mlir"
    path.write_text(RECURSIVE)
    result = run_offload_opt(path, "--host-offload-check")
    assert result.returncode == 1, result.stderr
    assert "recursive.mlir:10:8: error: HOE103: recursive call: @f -> @g -> @f" in result.stderr


def test_the_differential_summary_never_counts_an_unloadable_module_as_agreement() -> None:
    from tools.differential import run

    def entry(exit_code: int, ours: list[int], xla: list[int]) -> dict[str, object]:
        checker = {"e1200_outputs": ours, "exit_code": exit_code, "crashed": False}
        checker["loaded"] = exit_code in (0, 1)
        agrees = checker["loaded"] and ours == xla
        return {
            "kind": "program",
            "checker": checker,
            "agrees": agrees,
            "xla": {"status": "e1200" if xla else "ok", "e1200_outputs": xla},
        }

    modules = {
        "agrees": entry(1, [0], [0]),
        "unloadable_xla_accepts": entry(2, [], []),
        "unloadable_xla_rejects": entry(2, [], [0]),
        "disagrees": entry(0, [], [0]),
    }
    summary = run.summary(modules)
    assert summary["agree"] == 1
    assert summary["unloadable"] == ["unloadable_xla_accepts", "unloadable_xla_rejects"]
    assert summary["disagree"] == ["disagrees"]
    assert summary["by_kind"]["program"] == {
        "modules": 4,
        "agree": 1,
        "disagree": 1,
        "unloadable": 2,
    }
