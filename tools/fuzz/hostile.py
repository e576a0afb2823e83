"""Generators of large hostile modules, written at test time rather than committed.

Each generator returns MLIR text in the generic form whose entry argument is declared
``pinned_host`` and reaches output 0 of ``@main`` (declared in device memory), so the check
must report exactly one E1200 however large the module is; ``outputs`` returns it from every
output instead, for one E1200 per output::

    python tools/fuzz/hostile.py nested 300 > nested.mlir      # 300 nested regions
    python tools/fuzz/hostile.py uses 200000 > uses.mlir       # a value with 200k uses
    python tools/fuzz/hostile.py chain 1000000 > chain.mlir    # a module of over 1M ops
    python tools/fuzz/hostile.py outputs 50000 > outputs.mlir  # 50k failing outputs
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Iterator

TENSOR = "tensor<4xf32>"
HEAD = (
    '"func.func"() <{arg_attrs = [{mhlo.memory_kind = "pinned_host"}], '
    f"function_type = ({TENSOR}) -> {TENSOR}, "
    'res_attrs = [{mhlo.memory_kind = "device"}], sym_name = "main"}> ({\n'
    f"^bb0(%arg0: {TENSOR}):\n"
)
TAIL = "}) : () -> ()\n"


def nested(depth: int) -> Iterator[str]:
    """``depth`` stablehlo.if ops, each inside the true branch of the one before; the
    innermost yields the host argument, which every level yields on up to the return (the
    false branches yield a device constant)."""
    yield HEAD
    yield '  %p = "stablehlo.constant"() <{value = dense<true> : tensor<i1>}> : () -> tensor<i1>\n'
    yield f'  %d = "stablehlo.constant"() <{{value = dense<0.0> : {TENSOR}}}> : () -> {TENSOR}\n'
    for level in range(depth):
        yield f'  %r{level} = "stablehlo.if"(%p) ({{\n'
    yield f'  "stablehlo.return"(%arg0) : ({TENSOR}) -> ()\n'
    for level in reversed(range(depth)):
        yield f'  }}, {{\n  "stablehlo.return"(%d) : ({TENSOR}) -> ()\n'
        yield f"  }}) : (tensor<i1>) -> {TENSOR}\n"
        if level > 0:
            yield f'  "stablehlo.return"(%r{level}) : ({TENSOR}) -> ()\n'
    yield f'  "func.return"(%r0) : ({TENSOR}) -> ()\n'
    yield TAIL


def uses(count: int) -> Iterator[str]:
    """``count`` ops that each use the host argument; the last one is returned."""
    yield HEAD
    for index in range(count):
        yield f'  %{index} = "stablehlo.negate"(%arg0) : ({TENSOR}) -> {TENSOR}\n'
    yield f'  "func.return"(%{count - 1}) : ({TENSOR}) -> ()\n'
    yield TAIL


def chain(count: int) -> Iterator[str]:
    """A chain of ``count`` ops, each computing on the one before and the host argument."""
    yield HEAD
    yield f'  %0 = "stablehlo.negate"(%arg0) : ({TENSOR}) -> {TENSOR}\n'
    for index in range(1, count):
        yield (
            f'  %{index} = "stablehlo.add"(%{index - 1}, %arg0) : '
            f"({TENSOR}, {TENSOR}) -> {TENSOR}\n"
        )
    yield f'  "func.return"(%{count - 1}) : ({TENSOR}) -> ()\n'
    yield TAIL


def outputs(count: int) -> Iterator[str]:
    """``count`` outputs that all return the host argument, with every memory kind declared
    as modules converted from HLO declare them: one string of memory spaces for the module,
    the argument in space 5 (pinned host), every output in space 0 (device)."""
    types = ", ".join([TENSOR] * count)
    yield '"builtin.module"() ({\n'
    yield (
        f'"func.func"() <{{function_type = ({TENSOR}) -> ({types}), sym_name = "main"}}> ({{\n'
        f"^bb0(%arg0: {TENSOR}):\n"
    )
    yield f'  "func.return"({", ".join(["%arg0"] * count)}) : ({types}) -> ()\n'
    yield TAIL
    spaces = ";".join(["0"] * count)
    yield (
        '}) {mhlo.frontend_attributes = {arg_memory_spaces = "5", '
        f'out_memory_spaces = "{spaces}"}}}} : () -> ()\n'
    )


GENERATORS: dict[str, Callable[[int], Iterator[str]]] = {
    "nested": nested,
    "uses": uses,
    "chain": chain,
    "outputs": outputs,
}


def generate(kind: str, size: int) -> str:
    return "".join(GENERATORS[kind](size))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("kind", choices=sorted(GENERATORS))
    parser.add_argument("size", type=int)
    args = parser.parse_args()
    sys.stdout.writelines(GENERATORS[args.kind](args.size))


if __name__ == "__main__":
    main()
