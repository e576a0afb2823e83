"""hostoffload.check_jax, and hostoffload.check on JAX's objects and pretty-printed text."""

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from conftest import e1200_outputs

from hostoffload import InputError, check, check_jax

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")

from jax.sharding import SingleDeviceSharding  # noqa: E402

CPU = jax.devices("cpu")[0]
DEVICE = SingleDeviceSharding(CPU, memory_kind="device")
PINNED = SingleDeviceSharding(CPU, memory_kind="pinned_host")
UNPINNED = SingleDeviceSharding(CPU, memory_kind="unpinned_host")
THIS_FILE = str(Path(__file__))


def arg(sharding: SingleDeviceSharding) -> jax.ShapeDtypeStruct:
    return jax.ShapeDtypeStruct((8,), jnp.float32, sharding=sharding)


def step(params: jax.Array, opt_state: jax.Array) -> tuple[jax.Array, jax.Array]:
    new_state = opt_state * 0.9 + params
    return params - new_state, new_state


def offload_inside(x: jax.Array) -> jax.Array:
    return jax.device_put(x, jax.memory.Space.Host) * 2.0


def double_output(x: jax.Array) -> tuple[jax.Array, jax.Array]:
    return x * 2.0, x + 1.0


def lowered_step(platform: str = "tpu") -> object:
    return jax.jit(step).trace(arg(DEVICE), arg(PINNED)).lower(lowering_platforms=(platform,))


@pytest.mark.parametrize("platform", ["tpu", "cuda"])
def test_check_jax_lowers_without_a_device(platform: str) -> None:
    report = check_jax(step, arg(DEVICE), arg(PINNED), platform=platform)
    assert e1200_outputs(report) == [0, 1]
    (start,) = report.starts
    assert start.name == "argument 'opt_state'"
    # Locations are this test's own lines.
    assert {f.location.file for f in report.findings} == {THIS_FILE}


def test_check_jax_passes_jit_options() -> None:
    report = check_jax(double_output, arg(DEVICE), out_shardings=(UNPINNED, DEVICE))
    assert e1200_outputs(report) == [0]
    assert report.errors[0].declared_memory_kind == "unpinned_host"
    clean = check_jax(step, arg(DEVICE), arg(PINNED), out_shardings=(PINNED, PINNED))
    assert clean.ok


def test_check_jax_takes_a_jitted_function() -> None:
    assert e1200_outputs(check_jax(jax.jit(step), arg(DEVICE), arg(PINNED))) == [0, 1]
    with pytest.raises(TypeError, match="already jitted"):
        check_jax(jax.jit(step), arg(DEVICE), arg(PINNED), donate_argnums=0)


def test_check_jax_refuses_cpu() -> None:
    with pytest.raises(ValueError, match="platform must be 'tpu' or 'cuda'"):
        check_jax(step, arg(DEVICE), arg(PINNED), platform="cpu")  # type: ignore[arg-type]


def test_cpu_lowering_drops_device_put_to_host() -> None:
    tpu = check(jax.jit(offload_inside).trace(arg(DEVICE)).lower(lowering_platforms=("tpu",)))
    cpu = check(jax.jit(offload_inside).trace(arg(DEVICE)).lower(lowering_platforms=("cpu",)))
    assert [start.kind for start in tpu.starts] == ["annotation"]
    assert [f.code for f in tpu.warnings] == ["HOW101"]
    assert cpu.starts == () and cpu.findings == ()


def test_lowered_and_jaxlib_module_give_the_same_report() -> None:
    lowered = lowered_step()
    module = lowered.compiler_ir("stablehlo")
    before = str(module)
    from_lowered = check(lowered)
    assert check(module) == from_lowered
    assert check(module.operation) == from_lowered
    assert str(module) == before
    assert e1200_outputs(from_lowered) == [0, 1]


def test_pretty_text_is_read_through_jaxlib(tmp_path: Path) -> None:
    module = lowered_step().compiler_ir("stablehlo")
    pretty = module.operation.get_asm(enable_debug_info=True)
    assert pretty.startswith("#loc") or "module @jit_step" in pretty.splitlines()[0]
    assert check(pretty) == check(module)

    # Without debug info the locations are those of the text, in the file given.
    path = tmp_path / "pretty.mlir"
    path.write_text(str(module))
    report = check(path)
    assert e1200_outputs(report) == [0, 1]
    assert {f.location.file for f in report.findings} == {str(path)}


def test_bytecode_is_read_through_jaxlib(tmp_path: Path) -> None:
    module = lowered_step().compiler_ir("stablehlo")
    path = tmp_path / "step.mlirbc"
    with path.open("wb") as stream:
        module.operation.write_bytecode(stream)
    assert e1200_outputs(check(path)) == [0, 1]


def test_mistake_in_pretty_text_is_located_by_jaxlib() -> None:
    pretty = str(lowered_step().compiler_ir("stablehlo"))
    broken = pretty.replace("stablehlo.add %", "stablehlo.add %%", 1)
    line = next(n for n, text in enumerate(broken.splitlines(), 1) if "%%" in text)
    with pytest.raises(InputError) as caught:
        check(broken)
    (diagnostic,) = caught.value.diagnostics
    assert diagnostic.location.line == line
    assert diagnostic.message == "invalid SSA name"


def test_jitted_function_is_not_a_source() -> None:
    with pytest.raises(InputError, match="use hostoffload.check_jax"):
        check(jax.jit(step))


NO_JAX = textwrap.dedent(
    """
    import sys
    sys.modules["jax"] = sys.modules["jaxlib"] = None  # as if the [jax] extra were not installed
    import hostoffload
    try:
        hostoffload.check(sys.stdin.read())
    except hostoffload.InputError as error:
        print(error)
    """
)


def test_pretty_text_without_jax_says_how_to_get_the_generic_form() -> None:
    pretty = str(lowered_step().compiler_ir("stablehlo"))
    result = subprocess.run(
        [sys.executable, "-c", NO_JAX], input=pretty, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    (line,) = result.stdout.splitlines()
    assert line.startswith("error: the input is pretty-printed StableHLO")
    assert "pip install 'hostoffload[jax]'" in line
    assert "print_generic_op_form=True, enable_debug_info=True" in line


def test_what_jax_lowered_is_not_verified_again(monkeypatch: pytest.MonkeyPatch) -> None:
    """JAX verifies each module it lowers; a module of jaxlib's given directly is verified."""
    from hostoffload import _source

    parse = _source._hostoffload.parse
    verified: list[bool] = []

    def recording_parse(context: object, text: bytes, name: bytes, verify: bool) -> object:
        verified.append(verify)
        return parse(context, text, name, verify)

    monkeypatch.setattr(_source._hostoffload, "parse", recording_parse)
    lowered = lowered_step()
    traced = jax.jit(step).trace(arg(DEVICE), arg(PINNED))
    assert check(lowered) == check(lowered.compiler_ir("stablehlo"))
    assert e1200_outputs(check(traced)) == [0, 1]
    assert verified == [False, True, False]
