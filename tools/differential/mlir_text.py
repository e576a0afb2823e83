"""Read and edit the entry signature of a generic-form module with jaxlib's MLIR.

Used by the harness only (it needs jaxlib, never libtpu): the declared memory kind and
``jax.result_info`` of each result of ``@main``, and a copy of a module with some results
re-declared in another memory kind (nothing else changes).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from jax._src.interpreters import mlir as jax_mlir

ir: Any = jax_mlir.ir


@dataclass(frozen=True)
class Result:
    memory_kind: str  # "" when the attribute is absent (device for XLA)
    result_info: str


def _main(module: Any) -> Any:
    for op in module.body.operations:
        if op.operation.name != "func.func":
            continue
        if ir.StringAttr(op.attributes["sym_name"]).value == "main":
            return op
    raise ValueError("no @main in the module")


def _string(attrs: Any, key: str) -> str:
    if key not in attrs:
        return ""
    attr = attrs[key]
    return ir.StringAttr(attr).value if isinstance(attr, ir.StringAttr) else str(attr)


def results(text: str) -> list[Result]:
    """The results of ``@main`` in order."""
    with jax_mlir.make_ir_context():
        module = ir.Module.parse(text)  # keep it alive while its ops are used
        main = _main(module)
        count = len(ir.FunctionType(ir.TypeAttr(main.attributes["function_type"]).value).results)
        if "res_attrs" not in main.attributes:
            return [Result("", "") for _ in range(count)]
        out = []
        for attrs in ir.ArrayAttr(main.attributes["res_attrs"]):
            entries = ir.DictAttr(attrs)
            out.append(
                Result(_string(entries, "mhlo.memory_kind"), _string(entries, "jax.result_info"))
            )
        return out


def with_result_kinds(text: str, kinds: dict[int, str]) -> str:
    """``text`` with result ``i`` of ``@main`` declared ``mhlo.memory_kind = kinds[i]``."""
    with jax_mlir.make_ir_context():
        module = ir.Module.parse(text)
        main = _main(module)
        new = []
        for index, attrs in enumerate(ir.ArrayAttr(main.attributes["res_attrs"])):
            entries = ir.DictAttr(attrs)
            fields = {entries[k].name: entries[k].attr for k in range(len(entries))}
            if index in kinds:
                fields["mhlo.memory_kind"] = ir.StringAttr.get(kinds[index])
            new.append(ir.DictAttr.get(fields))
        main.attributes["res_attrs"] = ir.ArrayAttr.get(new)
        asm: str = module.operation.get_asm(print_generic_op_form=True, enable_debug_info=True)
        return asm
