"""The fix in JAX (``Report.jax_fix``): a move to device memory where device ops compute on a
value in host memory, ``out_shardings`` where host memory only passes through to an output,
complete wherever the outputs are known, and XLA:TPU compiles the program the fix makes."""

from __future__ import annotations

import ast
import inspect
import json
import textwrap
from collections.abc import Callable
from typing import Any

import pytest
from conftest import EXAMPLE, MODULES, differential_module

import hostoffload
import hostoffload.testing
from hostoffload import Report, check, jax_fix
from hostoffload.jax_fix import JaxFix, Output
from tools.differential import layout

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")

from jax.sharding import SingleDeviceSharding  # noqa: E402

CPU = jax.devices("cpu")[0]
PINNED = SingleDeviceSharding(CPU, memory_kind="pinned_host")
ONLY_FAILING = "only the outputs that fail are known here"
HLO_DIR = layout.HLO_SUITE


def arg(sharding: SingleDeviceSharding) -> jax.ShapeDtypeStruct:
    return jax.ShapeDtypeStruct((8,), jnp.float32, sharding=sharding)


def step(params: jax.Array, opt_state: jax.Array) -> tuple[jax.Array, jax.Array]:
    new_state = opt_state * 0.9 + params
    return params - new_state, new_state


def state_through(params: jax.Array, opt_state: jax.Array) -> dict[str, Any]:
    return {"params": params * 2.0, "state": (opt_state.reshape(2, 4), params)}


def plan_of(report: Report) -> JaxFix:
    plan = jax_fix.plan(report.errors, report.outputs)
    assert plan is not None
    return plan


def test_state_computed_on_device_is_moved_there_where_first_used() -> None:
    report = hostoffload.check_jax(step, arg(SingleDeviceSharding(CPU)), arg(PINNED))
    (move,) = plan_of(report).moves
    first_use = inspect.getsourcelines(step)[1] + 1
    assert (move.location.file, move.location.line) == (__file__, first_use)
    assert move.statement == "opt_state = jax.device_put(opt_state, jax.memory.Space.Device)"
    assert move.computed_by == "stablehlo.multiply"
    fix = report.jax_fix()
    assert fix is not None and f"{__file__}:{first_use}:" in fix.splitlines()[0]
    # Moving the state fixes both outputs: nothing is left for out_shardings.
    assert plan_of(report).out_shardings is None and "out_shardings" not in fix


def test_moving_the_state_as_the_fix_says_compiles_clean() -> None:
    def fixed(params: jax.Array, opt_state: jax.Array) -> tuple[jax.Array, jax.Array]:
        opt_state = jax.device_put(opt_state, jax.memory.Space.Device)
        return step(params, opt_state)

    assert hostoffload.check_jax(fixed, arg(SingleDeviceSharding(CPU)), arg(PINNED)).ok


def test_values_passed_through_get_a_complete_out_shardings() -> None:
    args = (arg(SingleDeviceSharding(CPU)), arg(PINNED))
    report = hostoffload.check_jax(state_through, *args)
    assert report.outputs is not None
    assert [o.result_info for o in report.outputs] == [
        "result['params']",
        "result['state'][0]",
        "result['state'][1]",
    ]
    plan = plan_of(report)
    assert plan.moves == () and plan.host_outputs == (1,)
    fix = report.jax_fix()
    assert fix is not None and ONLY_FAILING not in fix
    namespace: dict[str, Any] = {"sharding": SingleDeviceSharding(CPU)}
    exec(fix.replace("out_shardings=", "out_shardings = "), namespace)
    assert namespace["out_shardings"] == {"params": None, "state": (PINNED, None)}
    fixed = hostoffload.check_jax(state_through, *args, out_shardings=namespace["out_shardings"])
    assert fixed.ok


def test_outputs_declared_in_host_memory_stay_there() -> None:
    def twice(x: jax.Array) -> tuple[jax.Array, jax.Array]:
        return x, x

    report = hostoffload.check_jax(twice, arg(PINNED), out_shardings=(None, PINNED))
    assert [o.memory_kind for o in report.outputs or ()] == ["device", "pinned_host"]
    fix = report.jax_fix()
    # (host, None) would move output 1 to device memory and fail there instead.
    assert fix is not None and fix.splitlines()[-1] == "out_shardings=host"


def test_every_route_that_lowers_knows_every_output() -> None:
    args = (arg(SingleDeviceSharding(CPU)), arg(PINNED))
    lowered = jax.jit(state_through).trace(*args).lower(lowering_platforms=("tpu",))
    report = check(lowered)
    assert report.outputs is not None and len(report.outputs) == 3
    text = report.to_text(jax_fix=True)
    assert "fix in JAX:" in text and ONLY_FAILING not in text
    with pytest.raises(AssertionError) as failed:
        hostoffload.testing.assert_no_mismatch(state_through, *args)
    assert "out_shardings={'params': None, 'state': (host, None)}" in str(failed.value)
    assert ONLY_FAILING not in str(failed.value)


def test_outputs_survive_json() -> None:
    report = check(EXAMPLE)
    assert report.outputs == (Output("result[0]", "device"), Output("result[1]", "device"))
    assert Report.from_json(report.to_json()) == report
    assert "outputs" not in json.loads(Report(entry="main").to_json())
    assert Report(entry="main").jax_fix() is None


def test_without_outputs_the_pytree_says_it_holds_the_failing_ones_only() -> None:
    report = Report(
        entry="main", findings=check(differential_module("host_arg_passthrough")).errors
    )
    fix = report.jax_fix()
    assert fix is not None and ONLY_FAILING in fix
    complete = report.jax_fix(["result"])
    assert complete is not None and ONLY_FAILING not in complete


@pytest.mark.parametrize(
    "name",
    [
        "host_arg_passthrough.before_optimizations",
        "host_arg_returned_twice.before_optimizations",
    ],
)
def test_hlo_names_outputs_by_index_never_an_empty_list(name: str) -> None:
    report = check(HLO_DIR / f"{name}.hlo.txt")
    assert report.outputs is not None and all(o.result_info == "" for o in report.outputs)
    fix = report.jax_fix()
    assert fix is not None
    assert ": ," not in fix and not fix.rstrip().endswith(":")
    failing = sorted({f.output_index for f in report.errors})
    listed = ", ".join(map(str, failing))
    assert f"give host for output{'s' if len(failing) > 1 else ''} {listed} of " in fix


@pytest.mark.parametrize(
    ("step_name", "computes"),
    [
        ("stablehlo.multiply", True),
        ("stablehlo.reduce", True),
        ("stablehlo.convert", True),
        ("stablehlo.custom_call @foo", True),
        ("stablehlo.reshape", False),
        ("stablehlo.slice", False),
        ("stablehlo.while", False),
        ("call @inner", False),
        ("return from @inner", False),
        ("stablehlo.custom_call @annotate_device_placement", False),
    ],
)
def test_what_computes_on_device(step_name: str, computes: bool) -> None:
    assert jax_fix.computes_on_device(step_name) is computes


# --- The fix applied to the differential programs, and XLA:TPU's verdict on the result. ----


def catalogue() -> dict[str, Any]:
    from tools.differential import catalogue

    return {program.name: program for program in catalogue.programs(CPU)}


def variants() -> list[str]:
    from tools.differential.catalogue import JAX_FIXED

    return sorted(name for name in MODULES if name.endswith(JAX_FIXED))


def original_of(variant: str) -> str:
    from tools.differential.catalogue import JAX_FIXED

    return variant.removesuffix(JAX_FIXED)


def test_the_fixed_variants_are_recorded() -> None:
    from tools.differential.catalogue import JAX_FIXED

    programs = catalogue()
    made = sorted(name for name in programs if name.endswith(JAX_FIXED))
    assert made == variants() and len(made) >= 10
    for name in made:
        assert MODULES[original_of(name)]["xla"]["status"] == "e1200", name


def applied(fn: Callable[..., Any], moves: tuple[jax_fix.DeviceMove, ...]) -> str:
    """``fn``'s body with each move's statement put before the innermost statement holding the
    line it names, as ``ast.unparse`` writes it (quotes and layout as Python's own)."""
    lines, first = inspect.getsourcelines(fn)
    function = _function(textwrap.dedent("".join(lines)))
    for move in moves:
        line = move.location.line - first + 1
        holders = [
            (body, index)
            for node in ast.walk(function)
            for body in _bodies(node)
            for index, statement in enumerate(body)
            if statement.lineno <= line <= (statement.end_lineno or statement.lineno)
            and not isinstance(statement, ast.FunctionDef)
        ]
        body, index = max(holders, key=lambda holder: holder[0][holder[1]].lineno)
        body.insert(index, ast.parse(move.statement).body[0])
    return _unparsed_body(function)


def body_of(fn: Callable[..., Any]) -> str:
    return _unparsed_body(_function(textwrap.dedent(inspect.getsource(fn))))


def _function(source: str) -> ast.FunctionDef:
    function = ast.parse(source).body[0]
    assert isinstance(function, ast.FunctionDef)
    # A docstring says what the program is, not what it does.
    if ast.get_docstring(function) is not None:
        function.body = function.body[1:]
    return function


def _bodies(node: ast.AST) -> list[list[ast.stmt]]:
    return [
        getattr(node, field)
        for field in ("body", "orelse", "finalbody")
        if isinstance(getattr(node, field, None), list)
    ]


def _unparsed_body(function: ast.FunctionDef) -> str:
    return "\n".join(ast.unparse(statement) for statement in function.body)


@pytest.mark.parametrize("variant", variants())
def test_the_first_fix_offered_is_the_variant(variant: str) -> None:
    programs = catalogue()
    original, fixed = programs[original_of(variant)], programs[variant]
    plan = plan_of(check(differential_module(original.name)))
    if fixed.fn is not original.fn:
        # A move: the fix's statements at the lines it names, and nothing else.
        assert plan.moves and plan.out_shardings is None
        assert {move.location.file for move in plan.moves} == {"tools/differential/catalogue.py"}
        assert applied(original.fn, plan.moves) == body_of(fixed.fn)
        assert fixed.jit_kwargs == original.jit_kwargs
    else:
        assert plan.moves == () and plan.out_shardings is not None
        namespace: dict[str, Any] = {"sharding": SingleDeviceSharding(CPU)}
        exec(plan.out_shardings.replace("out_shardings=", "out_shardings = "), namespace)
        assert fixed.jit_kwargs["out_shardings"] == namespace["out_shardings"]


@pytest.mark.parametrize("variant", variants())
def test_the_fixed_variant_passes_the_check_and_xla_compiles_it(variant: str) -> None:
    assert check(differential_module(variant)).ok
    assert MODULES[variant]["xla"]["status"] == "ok", MODULES[variant]["xla"]["message"]
