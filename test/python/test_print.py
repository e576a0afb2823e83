"""The generic text printed through a path (hostoffload._print) is what MLIR's get_asm gives,
for modules of jaxlib's MLIR and of ours, in memory and through a temporary file."""

from __future__ import annotations

import os

import pytest
from conftest import EXAMPLE

from hostoffload import _generic, _print, _source
from hostoffload.mlir import ir

GET_ASM = {"binary": True, "print_generic_op_form": True, "enable_debug_info": True}


def jax_module_operation() -> object:
    import jax
    import jax.numpy as jnp

    def step(x: jax.Array) -> jax.Array:
        return jnp.sin(x) * 2

    lowered = jax.jit(step).trace(jnp.ones((4,), jnp.float32)).lower(lowering_platforms=("tpu",))
    return lowered.compiler_ir("stablehlo").operation


@pytest.mark.parametrize("memfd", [True, False], ids=["memfd", "temporary-file"])
def test_jaxlib_module_prints_as_get_asm_does(memfd: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("jax")
    if not memfd:
        monkeypatch.delattr(os, "memfd_create", raising=False)
    operation = jax_module_operation()
    text = _print.generic_text(operation)
    assert b"loc(" in text and b'"func.func"' in text
    assert text == operation.get_asm(**GET_ASM)


def test_own_module_prints_as_get_asm_does() -> None:
    with _source.new_context():
        module = ir.Module.parse(EXAMPLE.read_text())
        # Not UTF-8 in an attribute's body: printed as it is.
        module.operation.attributes["test.bytes"] = ir.Attribute.parse('"\\FF"')
        text = _print.generic_text(module.operation)
        assert text == module.operation.get_asm(**GET_ASM)
        assert _generic.generic_form(module.operation) == text.decode("utf-8", "surrogateescape")
