"""Synthetic generic-form StableHLO modules: the one generator of the benchmark, the fuzzing
tools and the test suite.

Every generator takes a size and yields the module's text line by line, so that a module of
millions of ops needs no more memory than a line. Two families:

- ``SHAPES``, the benchmark's shapes (``bench/run.py``): about ``size`` ops shaped to stress
  one part of the analysis, with a mix of host and device memory;
- ``HOSTILE``, inputs that are extreme in one trait only (``test_robustness.py``): the entry
  argument is declared ``pinned_host`` and reaches output 0 of ``@main``, declared in device
  memory, so the check must report exactly one E1200 however large the module is
  (``memory_space_outputs`` reports one per output instead).

Run from the repository root::

    python -m tools.generate chain 1000000 chain.mlir       # a benchmark shape, 1M ops
    python -m tools.generate deep_ifs 300 > nested.mlir     # 300 nested regions
    python -m tools.generate many_uses 200000 > uses.mlir   # a value with 200k uses
"""

from __future__ import annotations

import argparse
import itertools
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

Generator = Callable[[int], Iterator[str]]

# --- The benchmark's shapes --------------------------------------------------------------

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


SHAPES: dict[str, Generator] = {
    "chain": chain,
    "fanout": fanout,
    "callgraph": callgraph,
    "loops": loops,
    "nested": nested,
    "outputs": outputs,
}

# --- Hostile inputs: one E1200 (one per output for memory_space_outputs) ------------------

HOSTILE_TENSOR = "tensor<4xf32>"
HOSTILE_TAIL = "}) : () -> ()\n"


def hostile_main(body: Iterator[str], returned: str) -> Iterator[str]:
    """``@main`` with one argument declared pinned_host, ``body``, and ``returned`` returned
    from its one result, declared in device memory."""
    t = HOSTILE_TENSOR
    yield (
        '"func.func"() <{arg_attrs = [{mhlo.memory_kind = "pinned_host"}], '
        f"function_type = ({t}) -> {t}, "
        'res_attrs = [{mhlo.memory_kind = "device"}], sym_name = "main"}> ({\n'
        f"^bb0(%arg0: {t}):\n"
    )
    yield from body
    yield f'  "func.return"({returned}) : ({t}) -> ()\n'
    yield HOSTILE_TAIL


def deep_ifs(depth: int) -> Iterator[str]:
    """``depth`` stablehlo.if ops, each inside the true branch of the one before; the
    innermost yields the host argument, which every level yields on up to the return (the
    false branches yield a device constant)."""

    def body(t: str) -> Iterator[str]:
        yield (
            '  %p = "stablehlo.constant"() <{value = dense<true> : tensor<i1>}> '
            ": () -> tensor<i1>\n"
        )
        yield f'  %d = "stablehlo.constant"() <{{value = dense<0.0> : {t}}}> : () -> {t}\n'
        for level in range(depth):
            yield f'  %r{level} = "stablehlo.if"(%p) ({{\n'
        yield f'  "stablehlo.return"(%arg0) : ({t}) -> ()\n'
        for level in reversed(range(depth)):
            yield f'  }}, {{\n  "stablehlo.return"(%d) : ({t}) -> ()\n'
            yield f"  }}) : (tensor<i1>) -> {t}\n"
            if level > 0:
                yield f'  "stablehlo.return"(%r{level}) : ({t}) -> ()\n'

    return hostile_main(body(HOSTILE_TENSOR), "%r0")


def many_uses(count: int) -> Iterator[str]:
    """``count`` ops that each use the host argument; the last one is returned."""
    t = HOSTILE_TENSOR
    body = (f'  %{index} = "stablehlo.negate"(%arg0) : ({t}) -> {t}\n' for index in range(count))
    return hostile_main(body, f"%{count - 1}")


def long_chain(count: int) -> Iterator[str]:
    """A chain of ``count`` ops, each computing on the one before and the host argument."""
    t = HOSTILE_TENSOR
    first = f'  %0 = "stablehlo.negate"(%arg0) : ({t}) -> {t}\n'
    rest = (
        f'  %{index} = "stablehlo.add"(%{index - 1}, %arg0) : ({t}, {t}) -> {t}\n'
        for index in range(1, count)
    )
    return hostile_main(itertools.chain([first], rest), f"%{count - 1}")


def memory_space_outputs(count: int) -> Iterator[str]:
    """``count`` outputs that all return the host argument, with every memory kind declared
    as modules converted from HLO declare them: one string of memory spaces for the module,
    the argument in space 5 (pinned host), every output in space 0 (device)."""
    t = HOSTILE_TENSOR
    types = ", ".join([t] * count)
    yield '"builtin.module"() ({\n'
    yield (
        f'"func.func"() <{{function_type = ({t}) -> ({types}), sym_name = "main"}}> ({{\n'
        f"^bb0(%arg0: {t}):\n"
    )
    yield f'  "func.return"({", ".join(["%arg0"] * count)}) : ({types}) -> ()\n'
    yield HOSTILE_TAIL
    spaces = ";".join(["0"] * count)
    yield (
        '}) {mhlo.frontend_attributes = {arg_memory_spaces = "5", '
        f'out_memory_spaces = "{spaces}"}}}} : () -> ()\n'
    )


HOSTILE: dict[str, Generator] = {
    "deep_ifs": deep_ifs,
    "many_uses": many_uses,
    "long_chain": long_chain,
    "memory_space_outputs": memory_space_outputs,
}

GENERATORS: dict[str, Generator] = {**SHAPES, **HOSTILE}


def lines(name: str, size: int) -> Iterator[str]:
    """The module ``name`` of ``size`` as lines, each ending in a newline."""
    for line in GENERATORS[name](size):
        yield line if line.endswith("\n") else line + "\n"


def generate(name: str, size: int) -> str:
    """The module ``name`` of ``size`` as one string."""
    return "".join(lines(name, size))


def write_module(name: str, size: int, path: Path) -> Path:
    """Streams the module ``name`` of ``size`` to ``path`` (its directory is created)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w") as out:
        out.writelines(lines(name, size))
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("name", choices=sorted(GENERATORS))
    parser.add_argument("size", type=int)
    parser.add_argument("output", type=Path, nargs="?", help="the file to write (default: stdout)")
    args = parser.parse_args()
    if args.output is None:
        sys.stdout.writelines(lines(args.name, args.size))
    else:
        write_module(args.name, args.size, args.output)


if __name__ == "__main__":
    main()
