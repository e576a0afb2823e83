"""hostoffload.mlir and jaxlib's MLIR copy must not break each other in one process."""

import subprocess
import sys
import textwrap

import pytest

pytest.importorskip("jax")

SCRIPT = textwrap.dedent(
    """
    import jax, jax.numpy as jnp
    from jax._src.interpreters import mlir as jax_mlir
    from jax._src.lib.mlir import ir as jax_ir
    from hostoffload.mlir import ir, passmanager

    def with_jax():
        lowered = jax.jit(lambda x: jnp.tanh(x) * 2).lower(jnp.ones(4))
        module = lowered.compiler_ir("stablehlo")
        text = module.operation.get_asm(print_generic_op_form=True, enable_debug_info=True)
        with jax_mlir.make_ir_context():
            reparsed = jax_ir.Module.parse(text)
            assert "stablehlo.tanh" in str(reparsed)
        return text

    def with_ours(text):
        with ir.Context():
            module = ir.Module.parse(text)
            passmanager.PassManager.parse("builtin.module(host-offload-check)").run(
                module.operation
            )
            return str(module)

    for _ in range(2):
        printed = with_ours(with_jax())
        assert "stablehlo.tanh" in printed and "func.func public @main" in printed
    print("ok")
    """
)


@pytest.mark.parametrize("first", ["hostoffload", "jax"])
def test_both_copies_parse_and_print_in_one_process(first: str) -> None:
    imports = (
        "import hostoffload.mlir.ir\nimport jax\n"
        if first == "hostoffload"
        else "import jax\nimport hostoffload.mlir.ir\n"
    )
    script = imports + SCRIPT
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ok"
