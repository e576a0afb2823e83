"""A straightforward Python implementation of the E1200 rules, the benchmark's baseline.

It walks the module through the ``hostoffload.mlir`` Python API with the same worklist
rules as the C++ analysis (starts, tuple paths, loops, branches, calls, slices, moves back
to device, implicit host compute) and returns the offending entry outputs. It is what a
user would write without the C++ pass; the benchmark measures how much slower it is.
"""

from __future__ import annotations

from collections import deque

from hostoffload.mlir import ir

TO_HOST = {"pinned_host", "unpinned_host"}


def _string_attr(attributes: ir.OpAttributeMap, name: str) -> str | None:
    if name not in attributes:
        return None
    attribute = attributes[name]
    return attribute.value if isinstance(attribute, ir.StringAttr) else None


def _placement(op: ir.Operation) -> str | None:
    target = _string_attr(op.attributes, "call_target_name")
    if target == "MoveToHost":
        return "pinned_host"
    if target == "MoveToDevice":
        return "device"
    if target != "annotate_device_placement" or "mhlo.frontend_attributes" not in op.attributes:
        return None
    frontend = ir.DictAttr(op.attributes["mhlo.frontend_attributes"])
    if "_xla_buffer_placement" not in frontend:
        return None
    return ir.StringAttr(frontend["_xla_buffer_placement"]).value


def _memory_kinds(function: ir.Operation, key: str) -> list[str]:
    if key not in function.attributes:
        return []
    kinds = []
    for attrs in ir.ArrayAttr(function.attributes[key]):
        dictionary = ir.DictAttr(attrs)
        kind = "mhlo.memory_kind" in dictionary and ir.StringAttr(dictionary["mhlo.memory_kind"])
        kinds.append(kind.value if kind else "device")
    return kinds


def find_mismatches(module: ir.Module) -> list[int]:
    """Returns the sorted indices of @main's outputs that XLA rejects with E1200."""
    functions: dict[str, ir.Operation] = {}
    callers: dict[str, list[ir.Operation]] = {}
    annotations: list[ir.Operation] = []

    def collect(op: ir.Operation) -> ir.WalkResult:
        if op.name == "func.func":
            functions[ir.StringAttr(op.attributes["sym_name"]).value] = op
        elif op.name == "func.call":
            callee = ir.FlatSymbolRefAttr(op.attributes["callee"]).value
            callers.setdefault(callee, []).append(op)
        elif op.name == "stablehlo.custom_call" and _placement(op) in TO_HOST:
            annotations.append(op)
        return ir.WalkResult.ADVANCE

    module.operation.walk(collect)
    entry = functions["main"]
    body = entry.regions[0].blocks[0]
    queue: deque[tuple[ir.Value, tuple[int, ...]]] = deque()
    seen: set[tuple[ir.Value, tuple[int, ...]]] = set()

    def reach(value: ir.Value, path: tuple[int, ...] = ()) -> None:
        if (value, path) not in seen:
            seen.add((value, path))
            queue.append((value, path))

    for index, kind in enumerate(_memory_kinds(entry, "arg_attrs")):
        if kind == "pinned_host":
            reach(body.arguments[index])
    for op in annotations:
        reach(op.results[0])

    outputs: set[int] = set()
    while queue:
        value, path = queue.popleft()
        for use in value.uses:
            user, operand = use.owner, use.operand_number
            name = user.name
            if name == "stablehlo.tuple":
                reach(user.results[0], (operand, *path))
            elif name == "stablehlo.get_tuple_element":
                index = ir.IntegerAttr(user.attributes["index"]).value
                if not path or path[0] == index:
                    reach(user.results[0], path[1:])
            elif name in ("stablehlo.optimization_barrier", "stablehlo.while"):
                reach(user.results[operand], path)
                for region in user.regions:
                    reach(region.blocks[0].arguments[operand], path)
            elif name == "stablehlo.return":
                parent = user.parent
                if parent.name in ("stablehlo.while", "stablehlo.if", "stablehlo.case"):
                    reach(parent.results[operand], path)
                    if parent.name == "stablehlo.while":
                        for region in parent.regions:
                            reach(region.blocks[0].arguments[operand], path)
                else:
                    for result in parent.results:
                        reach(result)
            elif name == "func.call":
                callee = functions[ir.FlatSymbolRefAttr(user.attributes["callee"]).value]
                reach(callee.regions[0].blocks[0].arguments[operand], path)
            elif name == "func.return":
                function = user.parent
                function_name = ir.StringAttr(function.attributes["sym_name"]).value
                if function_name == "main":
                    outputs.add(operand)
                for call in callers.get(function_name, []):
                    reach(call.results[operand], path)
            elif name in ("stablehlo.dynamic_slice", "stablehlo.slice") or (
                name == "stablehlo.custom_call" and _placement(user) == "device"
            ):
                continue
            else:
                for result in user.results:
                    reach(result)
    declared = _memory_kinds(entry, "res_attrs")
    return sorted(i for i in outputs if i >= len(declared) or declared[i] != "pinned_host")
