"""The fix for a JAX program, in Python: where to move a value to device memory, and one
``out_shardings=`` pytree for ``jax.jit``.

Every E1200 output is reached from a start (an argument in host memory, or a move to host) by
a path of ops. Where an op on that path computes on the value, the program meant to compute on
device: the fix moves the start to device memory where it is first used, with
``x = jax.device_put(x, jax.memory.Space.Device)``, which brings every output computed from it
back to device memory. Where the value only passes through ops that move data to the output
(:func:`computes_on_device` tells them apart), the fix keeps that output in host memory with
``out_shardings``.

JAX names each output by its path in the function's result, ``jax.result_info``: ``result``
for a single array, ``result[0]`` in a tuple, ``result['a'][1]`` in a dict holding a tuple.
The pytree is built from those paths: ``host`` where an output is to stay in host memory (it
fails with E1200, or is declared ``pinned_host`` already), ``None`` (JAX's own choice, as
without ``out_shardings``) everywhere else, and a subtree whose outputs are all ``host``
becomes a single ``host``, which JAX applies to the whole subtree.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TypeAlias

from hostoffload.diagnostic import Location

HOST = "host"
UNSPECIFIED = "None"
HOST_DEFINITION = (
    'host = sharding.with_memory_kind("pinned_host")  # sharding: the output\'s sharding, '
    "e.g. SingleDeviceSharding(device) or NamedSharding(mesh, spec)"
)
TO_DEVICE = "jax.device_put({0}, jax.memory.Space.Device)"
# The expression a move names when the start has no Python name: a value moved to host by an
# annotation, or an argument of a lowering without JAX's argument names.
PLACEHOLDER = "x"

# What a path step that only moves data is called (the way the analysis names steps): the
# value's elements reach the output unchanged, in another shape, place or memory. Every
# other op computes on them. These are the ops XLA's HostOffloader follows without computing
# (cpp/lib/Analysis/OpRules.cpp), where a broadcast counts whole and a convert never: this
# decides what the program does to the value, not how XLA places it.
_MOVES_DATA = frozenset(
    {
        "func.call",
        "func.return",
        "mhlo.bitcast",
        "mhlo.copy",
        "sdy.manual_computation",
        "sdy.named_computation",
        "sdy.return",
        "sdy.sharding_constraint",
        "stablehlo.broadcast_in_dim",
        "stablehlo.case",
        "stablehlo.dynamic_slice",
        "stablehlo.dynamic_update_slice",
        "stablehlo.get_tuple_element",
        "stablehlo.if",
        "stablehlo.optimization_barrier",
        "stablehlo.reshape",
        "stablehlo.return",
        "stablehlo.slice",
        "stablehlo.transpose",
        "stablehlo.tuple",
        "stablehlo.while",
    }
)
_MOVES_DATA_CUSTOM_CALLS = frozenset(
    {
        "MoveToDevice",
        "MoveToHost",
        "SPMDFullToShardShape",
        "SPMDShardToFullShape",
        "Sharding",
        "annotate_device_placement",
        "xla.sdy.FuncResultSharding",
    }
)
_CUSTOM_CALL = "stablehlo.custom_call @"
_CALL_STEPS = ("call @", "return from @")

_ROOT = "result"
_KEY = re.compile(r"\[(\d+)\]|\[('(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\")\]")
_ARGUMENT_NAME = re.compile(r"^argument '(.*)'$")

Key: TypeAlias = int | str
Tree: TypeAlias = bool | dict[Key, "Tree"]


class Start(Protocol):
    """What the fix reads of a :class:`hostoffload.report.Start` (which imports this module)."""

    @property
    def kind(self) -> str: ...
    @property
    def name(self) -> str: ...
    @property
    def location(self) -> Location: ...


class PathStep(Protocol):
    """What the fix reads of a :class:`hostoffload.report.PathStep`."""

    @property
    def what(self) -> str: ...
    @property
    def location(self) -> Location: ...


class Finding(Protocol):
    """What the fix reads of a :class:`hostoffload.report.Finding`."""

    @property
    def code(self) -> str: ...
    @property
    def output_index(self) -> int | None: ...
    @property
    def result_info(self) -> str: ...
    @property
    def starts(self) -> Sequence[Start]: ...
    @property
    def more_starts(self) -> bool: ...
    @property
    def path(self) -> Sequence[PathStep]: ...


@dataclass(frozen=True)
class Output:
    """One output of the entry function: its ``jax.result_info`` path and its declared
    ``mhlo.memory_kind``, each ``""`` where the module gives none (HLO has no paths)."""

    result_info: str
    memory_kind: str

    @classmethod
    def from_json(cls, data: Any) -> Output:
        return cls(data["result_info"], data["memory_kind"])

    def to_json(self) -> dict[str, str]:
        return {"result_info": self.result_info, "memory_kind": self.memory_kind}


@dataclass(frozen=True)
class DeviceMove:
    """A value in host memory that device ops compute on, moved to device memory where it is
    first used: ``statement`` goes right before the statement at ``location``."""

    start: Start
    #: The Python expression of the argument moved (``opt_state``, ``p['m']``); ``None`` when
    #: it has none, and the statement names :data:`PLACEHOLDER` instead.
    name: str | None
    #: Where the value is first used; unknown (no file) without debug info.
    location: Location
    #: The first op on the way to an output that computes on the value.
    computed_by: str

    @property
    def expression(self) -> str:
        return self.name or PLACEHOLDER

    @property
    def statement(self) -> str:
        return f"{self.expression} = {TO_DEVICE.format(self.expression)}"

    def text(self) -> str:
        """A comment saying where and why, then :attr:`statement`."""
        what = self.start.name
        if self.start.kind == "annotation":
            what = f"the value moved to host at {_place(self.start.location)} ({what})"
        why = f"device ops compute on {what} in host memory ({self.computed_by})"
        if self.location.file is not None:
            where = f"{self.location.file}:{self.location.line}"
            comment = f"# {where}: {why}: move it to device memory before its first use, here"
        else:
            comment = f"# {why}: move it to device memory before its first use"
        if self.name is None:
            comment += f" ({PLACEHOLDER}: {what})"
        return f"{comment}\n{self.statement}"


@dataclass(frozen=True)
class JaxFix:
    """The fix for every E1200 of a report: the moves to device memory first, then the
    ``out_shardings`` text for the outputs the moves leave in host memory (``None`` when they
    leave none)."""

    moves: tuple[DeviceMove, ...]
    #: The output indices ``out_shardings`` keeps in host memory, in order.
    host_outputs: tuple[int, ...]
    out_shardings: str | None

    def text(self) -> str:
        parts = [move.text() for move in self.moves]
        if self.out_shardings is not None:
            passing = "the outputs host memory only passes through to"
            lead = f"# then keep {passing}" if self.moves else f"# keep {passing}"
            parts.append(f"{lead} in host memory, for jax.jit:\n{self.out_shardings}")
        return "\n".join(parts)


def computes_on_device(step: str) -> bool:
    """Whether the path step named ``step`` (``stablehlo.multiply``, ``call @f``) computes on
    the value, rather than only moving it."""
    if step.startswith(_CUSTOM_CALL):
        return step[len(_CUSTOM_CALL) :] not in _MOVES_DATA_CUSTOM_CALLS
    return step not in _MOVES_DATA and not step.startswith(_CALL_STEPS)


def plan(errors: Iterable[Finding], outputs: Sequence[Output] | None) -> JaxFix | None:
    """The fix for the E1200 errors among ``errors``; ``None`` when there are none.

    ``outputs`` are all the entry function's outputs in order (:attr:`Report.outputs`); without
    them the ``out_shardings`` pytree holds the failing outputs only, and says so.
    """
    failing = [finding for finding in errors if finding.code == "E1200"]
    if not failing:
        return None
    moves: dict[Start, DeviceMove] = {}
    for finding in failing:
        computed_by = _computed_by(finding)
        if computed_by is None or finding.more_starts:
            continue
        for start in finding.starts:
            if start not in moves:
                moves[start] = _move(start, computed_by, failing)
    kept = [
        finding
        for finding in failing
        if finding.more_starts or not all(start in moves for start in finding.starts)
    ]
    host_outputs = tuple(sorted({f.output_index for f in kept if f.output_index is not None}))
    text = _out_shardings(kept, host_outputs, outputs) if kept else None
    ordered = sorted(moves.values(), key=lambda move: _position(move.location))
    return JaxFix(tuple(ordered), host_outputs, text)


def out_shardings(failing: Sequence[str], outputs: Sequence[str] | None) -> str:
    """The ``host`` definition and the ``out_shardings=`` argument that keeps the outputs of
    the ``jax.result_info`` paths ``failing`` in host memory, of all the function's outputs
    ``outputs`` (``None``: not known).

    Where a path is not made of tuple indices and dict keys (a dataclass field, a custom
    pytree), the text names the outputs to keep in host memory instead of giving a pytree.
    """
    known = list(outputs) if outputs is not None else list(failing)
    keys = {path: _keys(path) for path in [*known, *failing]}
    if any(path_keys is None for path_keys in keys.values()):
        listed = ", ".join(failing)
        return f"{HOST_DEFINITION}\n# in out_shardings, give host for each of: {listed}"
    tree: Tree = False
    failing_set = set(failing)
    for path in known:
        tree = _insert(tree, keys[path] or (), path in failing_set)
    # Only a tree whose every output is known may be collapsed into one host for a subtree.
    lines = [HOST_DEFINITION, f"out_shardings={_render(tree, collapse=outputs is not None)}"]
    if outputs is None:
        lines.append(
            "# only the outputs that fail are known here: add None for every other output, "
            "and the tuples and dicts holding them"
        )
    return "\n".join(lines)


def _computed_by(finding: Finding) -> str | None:
    """The first op on the finding's path (after its start) that computes on the value."""
    return next((step.what for step in finding.path[1:] if computes_on_device(step.what)), None)


def _move(start: Start, computed_by: str, failing: Sequence[Finding]) -> DeviceMove:
    if start.kind == "argument":
        # The analysis places an argument at its first use in the function.
        return DeviceMove(start, _expression(start.name), start.location, computed_by)
    # A move to host is first used by the first step after it, on the way to any output
    # (a path starts at the start it names).
    uses = [
        finding.path[1].location
        for finding in failing
        if len(finding.path) > 1 and finding.path[0].what == start.name and start in finding.starts
    ]
    located = [use for use in uses if use.file is not None]
    first = min(located, key=_position) if located else start.location
    return DeviceMove(start, None, first, computed_by)


def _expression(name: str) -> str | None:
    """The Python expression an argument's name is (``opt_state``, ``p['m']``,
    ``params[1]['w']``), or ``None`` for a name that is none (``argument #2``, an HLO
    parameter's name)."""
    match = _ARGUMENT_NAME.match(name)
    if match is None:
        return None
    try:
        node = ast.parse(match[1], mode="eval").body
    except SyntaxError:
        return None
    while isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant):
        node = node.value
    return match[1] if isinstance(node, ast.Name) else None


def _position(location: Location) -> tuple[str, int, int]:
    return (location.file or "", location.line or 0, location.column or 0)


def _place(location: Location) -> str:
    if location.file is None:
        return "an unknown place"
    return f"{location.file}:{location.line}"


def _out_shardings(
    kept: Sequence[Finding], failing: Sequence[int], outputs: Sequence[Output] | None
) -> str:
    """The ``out_shardings`` text keeping the outputs of ``kept``, whose indices are
    ``failing``, in host memory."""
    if outputs is None:
        paths = [f.result_info for f in kept]
        if all(paths):
            return out_shardings(list(dict.fromkeys(paths)), None)
        return _by_index(failing, None)
    if not all(output.result_info for output in outputs):
        return _by_index(failing, len(outputs))
    # Outputs declared pinned_host already stay there: None would let JAX move them.
    host = [
        output.result_info
        for index, output in enumerate(outputs)
        if index in failing or output.memory_kind == "pinned_host"
    ]
    return out_shardings(host, [output.result_info for output in outputs])


def _by_index(failing: Sequence[int], count: int | None) -> str:
    """The fix for outputs that have no ``jax.result_info`` (HLO), by output index."""
    listed = ", ".join(str(index) for index in failing)
    which = f"output {listed}" if len(failing) == 1 else f"outputs {listed}"
    of = f" of {count}" if count is not None else ""
    return (
        f"{HOST_DEFINITION}\n"
        f"# in out_shardings, give host for {which}{of} and None for the others, counting the "
        "outputs in the order of jax.tree.leaves(result) (this module names no result paths)"
    )


def _keys(path: str) -> tuple[Key, ...] | None:
    if not path.startswith(_ROOT):
        return None
    keys: list[Key] = []
    position = len(_ROOT)
    while position < len(path):
        match = _KEY.match(path, position)
        if match is None:
            return None
        keys.append(int(match[1]) if match[1] is not None else ast.literal_eval(match[2]))
        position = match.end()
    return tuple(keys)


def _insert(tree: Tree, keys: tuple[Key, ...], fails: bool) -> Tree:
    if not keys:
        return fails
    children = dict(tree) if isinstance(tree, dict) else {}
    children[keys[0]] = _insert(children.get(keys[0], False), keys[1:], fails)
    return children


def _render(tree: Tree, *, collapse: bool) -> str:
    if not isinstance(tree, dict):
        return HOST if tree else UNSPECIFIED
    if collapse and _all_fail(tree):
        return HOST
    indices = [key for key in tree if isinstance(key, int)]
    if len(indices) == len(tree):
        items = [_render(tree.get(i, False), collapse=collapse) for i in range(max(indices) + 1)]
        return f"({items[0]},)" if len(items) == 1 else f"({', '.join(items)})"
    entries = (f"{key!r}: {_render(value, collapse=collapse)}" for key, value in tree.items())
    return "{" + ", ".join(entries) + "}"


def _all_fail(tree: Tree) -> bool:
    if isinstance(tree, dict):
        return all(_all_fail(child) for child in tree.values())
    return tree
