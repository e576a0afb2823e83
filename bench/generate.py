"""Synthetic generic-form StableHLO modules shaped to stress the host-offload analysis.

Every shape writes about ``ops`` operations, streaming the text so that 4M-op modules
need no more memory than a line. Each function documents what it stresses.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Iterator
from pathlib import Path

TENSOR = "tensor<8xf32>"
BINARY = f"({TENSOR}, {TENSOR}) -> {TENSOR}"
UNARY = f"({TENSOR}) -> {TENSOR}"


def annotate(result: str, operand: str, placement: str) -> str:
    return (
        f'  {result} = "stablehlo.custom_call"({operand}) <{{api_version = 1 : i32, '
        'backend_config = "", call_target_name = "annotate_device_placement", '
        "called_computations = [], has_side_effect = true}> "
        f'{{mhlo.frontend_attributes = {{_xla_buffer_placement = "{placement}"}}}} : {UNARY}'
    )


def main_header(arguments: list[str], results: list[str], name: str = "main") -> str:
    arg_attrs = ", ".join(f"{{mhlo.memory_kind = {kind!r}}}" for kind in arguments)
    res_attrs = ", ".join(
        f'{{jax.result_info = "result[{i}]", mhlo.memory_kind = "{kind}"}}'
        for i, kind in enumerate(results)
    )
    types = ", ".join([TENSOR] * len(arguments))
    result_types = ", ".join([TENSOR] * len(results))
    block_args = ", ".join(f"%arg{i}: {TENSOR}" for i in range(len(arguments)))
    return (
        f'"func.func"() <{{arg_attrs = [{arg_attrs}], function_type = ({types}) -> '
        f'({result_types}), res_attrs = [{res_attrs}], sym_name = "{name}", '
        f'sym_visibility = "public"}}> ({{\n^bb0({block_args}):'
    ).replace("'", '"')


def func_return(values: list[str]) -> str:
    types = ", ".join([TENSOR] * len(values))
    return f'  "func.return"({", ".join(values)}) : ({types}) -> ()\n}}) : () -> ()'


def chain(ops: int) -> Iterator[str]:
    """A long dependence chain with an offload round trip every 1000 ops: every value is
    traced, and host memory enters device code a thousand times."""
    yield main_header(["device"], ["pinned_host"])
    previous = "%arg0"
    for i in range(ops):
        if i % 1000 == 500:
            yield annotate(f"%v{i}", previous, "pinned_host")
        elif i % 1000 == 999:
            yield annotate(f"%v{i}", previous, "device")
        else:
            yield f'  %v{i} = "stablehlo.add"({previous}, {previous}) : {BINARY}'
        previous = f"%v{i}"
    yield func_return([previous])


def fanout(ops: int) -> Iterator[str]:
    """One host argument used by every op of the module: a value with ``ops`` uses."""
    yield main_header(["pinned_host", "device"], ["pinned_host", "device"])
    for i in range(ops):
        yield f'  %v{i} = "stablehlo.add"(%arg0, %arg1) : {BINARY}'
    yield annotate("%back", "%v1", "device")
    yield func_return(["%v0", "%back"])


def callgraph(ops: int) -> Iterator[str]:
    """Thousands of functions whose every call site reaches one shared callee: the callee's
    summary must be reused, never re-walked per call site."""
    functions = max(1, ops // 100)
    calls_per_function = 10
    yield '"builtin.module"() ({'
    yield main_header(["pinned_host", "device"], ["pinned_host", "device"])
    previous = "%arg0"
    for f in range(functions):
        yield f'  %m{f} = "func.call"({previous}, %arg1) <{{callee = @f{f}}}> : {BINARY}'
        previous = f"%m{f}"
    yield annotate("%back", "%arg1", "device")
    yield func_return([previous, "%back"])
    for f in range(functions):
        yield (
            f'"func.func"() <{{function_type = {BINARY}, sym_name = "f{f}", '
            f'sym_visibility = "private"}}> ({{\n^bb0(%a: {TENSOR}, %b: {TENSOR}):'
        )
        previous = "%a"
        for c in range(calls_per_function):
            yield f'  %c{c} = "func.call"({previous}, %b) <{{callee = @leaf}}> : {BINARY}'
            previous = f"%c{c}"
        yield func_return([previous])
    yield (
        f'"func.func"() <{{function_type = {BINARY}, sym_name = "leaf", '
        'sym_visibility = "private"}> ({'
    )
    yield f"^bb0(%a: {TENSOR}, %b: {TENSOR}):"
    previous = "%a"
    for i in range(80):
        yield f'  %l{i} = "stablehlo.multiply"({previous}, %b) : {BINARY}'
        previous = f"%l{i}"
    yield func_return([previous])
    yield "}) : () -> ()"


def loops(ops: int) -> Iterator[str]:
    """While loops each carrying 200 values, a quarter of them in host memory."""
    carried = 200
    loop_count = max(1, ops // (2 * carried))
    yield main_header(["pinned_host", "device"], ["pinned_host", "device"])
    types = ", ".join([TENSOR] * carried)
    previous = ["%arg0" if i % 4 == 0 else "%arg1" for i in range(carried)]
    for loop in range(loop_count):
        block_args = ", ".join(f"%b{loop}_{i}: {TENSOR}" for i in range(carried))
        yield f'  %w{loop}:{carried} = "stablehlo.while"({", ".join(previous)}) ({{'
        yield f"  ^bb0({block_args}):"
        yield (
            '    %cond = "stablehlo.constant"() <{value = dense<true> : tensor<i1>}> '
            ": () -> tensor<i1>"
        )
        yield '    "stablehlo.return"(%cond) : (tensor<i1>) -> ()'
        yield "  }, {"
        yield f"  ^bb0({block_args}):"
        for i in range(carried):
            yield f'    %n{i} = "stablehlo.negate"(%b{loop}_{i}) : {UNARY}'
        results = ", ".join(f"%n{i}" for i in range(carried))
        yield f'    "stablehlo.return"({results}) : ({types}) -> ()'
        yield f"  }}) : ({types}) -> ({types})"
        previous = [f"%w{loop}#{i}" for i in range(carried)]
    yield annotate("%back", previous[1], "device")
    yield func_return([previous[0], "%back"])


def nested(ops: int) -> Iterator[str]:
    """Case and while regions nested 200 deep, repeated: the analysis must not recurse on
    nesting depth."""
    depth = 200
    nests = max(1, ops // (2 * depth))
    yield main_header(["pinned_host", "device"], ["pinned_host", "device"])
    previous = "%arg0"
    index = '"stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>'
    for nest in range(nests):
        yield f"  %i{nest} = {index}"
        for level in range(depth):
            yield f'  %k{nest}_{level} = "stablehlo.case"(%i{nest}) ({{'
        yield f'  %inner{nest} = "stablehlo.tanh"({previous}) : {UNARY}'
        for level in reversed(range(depth)):
            value = f"%inner{nest}" if level == depth - 1 else f"%k{nest}_{level + 1}"
            yield f'  "stablehlo.return"({value}) : ({TENSOR}) -> ()'
            yield f"  }}) : (tensor<i32>) -> {TENSOR}"
        previous = f"%k{nest}_0"
    yield annotate("%back", "%arg1", "device")
    yield func_return([previous, "%back"])


def outputs(ops: int) -> Iterator[str]:
    """Thousands of outputs taken along two long chains, one from a host argument and one
    from a device argument; one output in ten is declared in device memory. Each output of
    the host chain declared so is an E1200 error whose way from the argument is as long as
    the chain up to it: the analysis must not walk each of those ways again."""
    count = max(2, ops // 10)
    kinds = ["pinned_host" if i % 10 else "device" for i in range(count)]
    yield main_header(["pinned_host", "device"], kinds)
    previous = {0: "%arg0", 1: "%arg1"}
    values = []
    for i in range(count):
        chain = i % 2
        for step in range(10):
            yield f'  %o{i}_{step} = "stablehlo.negate"({previous[chain]}) : {UNARY}'
            previous[chain] = f"%o{i}_{step}"
        values.append(previous[chain])
    yield func_return(values)


SHAPES: dict[str, Callable[[int], Iterator[str]]] = {
    "chain": chain,
    "fanout": fanout,
    "callgraph": callgraph,
    "loops": loops,
    "nested": nested,
    "outputs": outputs,
}


def write_module(shape: str, ops: int, path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w") as out:
        for line in SHAPES[shape](ops):
            out.write(line)
            out.write("\n")
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("shape", choices=sorted(SHAPES))
    parser.add_argument("ops", type=int)
    parser.add_argument("output", type=Path)
    args = parser.parse_args()
    write_module(args.shape, args.ops, args.output)


if __name__ == "__main__":
    main()
