"""Structured mutations of MLIR modules in the generic form, for tools/fuzz/fuzz.py.

The seeds are real modules (test/differential, the lit tests) printed in the generic form, where
every op is one line, regions open with ``({`` and close with ``})``, and attributes are
``name = value`` in braces. Each mutation works on that text and knows the shapes the analysis
cares about: the op names it dispatches on, the attributes it reads and their types, operand
wiring, region shapes, whole ops (deleted, duplicated, moved), and truncation. A mutated module
may not parse; the fuzzer wants those too.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Sequence

# The ops the analysis dispatches on (cpp/lib), and a few it does not.
OP_NAMES = (
    "stablehlo.custom_call",
    "stablehlo.tuple",
    "stablehlo.get_tuple_element",
    "stablehlo.optimization_barrier",
    "stablehlo.while",
    "stablehlo.if",
    "stablehlo.case",
    "stablehlo.return",
    "stablehlo.dynamic_slice",
    "stablehlo.slice",
    "stablehlo.dynamic_update_slice",
    "stablehlo.reshape",
    "stablehlo.broadcast_in_dim",
    "sdy.sharding_constraint",
    "func.call",
    "func.return",
    "stablehlo.add",
    "stablehlo.reduce",
    "builtin.module",
    "func.func",
)

# The attributes the analysis and the fix read.
ATTRIBUTE_NAMES = (
    "mhlo.memory_kind",
    "_xla_buffer_placement",
    "mhlo.frontend_attributes",
    "call_target_name",
    "index",
    "callee",
    "output_operand_aliases",
    "arg_memory_spaces",
    "out_memory_spaces",
    "_xla_compute_type",
    "jax.result_info",
    "mhlo.layout_mode",
    "sym_name",
    "sym_visibility",
    "arg_attrs",
    "res_attrs",
    "function_type",
    "has_side_effect",
)

STRINGS = (
    '"pinned_host"',
    '"unpinned_host"',
    '"device"',
    '"vmem"',
    '"pinned_device"',
    '"host"',
    '""',
    '"\\FF\\FE"',
    '"pinned_host\\00"',
    '"annotate_device_placement"',
    '"MoveToHost"',
    '"MoveToDevice"',
    '"Sharding"',
    '"xla.sdy.FuncResultSharding"',
    '"SPMDFullToShardShape"',
    '"5;0"',
    '"5"',
    '"0;5;6"',
    '";;x;"',
    '"-1;99999999999999999999"',
    '"main"',
)

VALUES = (
    *STRINGS,
    "0 : i32",
    "1 : i32",
    "-1 : i32",
    "7 : i64",
    "1 : ui32",
    "1 : si8",
    "18446744073709551615 : ui64",
    "170141183460469231731687303715884105727 : i128",
    "-9223372036854775808 : i64",
    "1.0 : f32",
    "true",
    "unit",
    "[]",
    '["pinned_host"]',
    "[0, 1]",
    "{}",
    '{_xla_buffer_placement = "pinned_host"}',
    '{_xla_buffer_placement = "device"}',
    '{_xla_compute_type = "host"}',
    '{arg_memory_spaces = "5", out_memory_spaces = "0"}',
    "@main",
    "@missing",
    "@main::@inner",
    "dense<0> : tensor<i32>",
    "#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, "
    "operand_tuple_indices = []>",
    "[#stablehlo.output_operand_alias<output_tuple_indices = [99], operand_index = 0, "
    "operand_tuple_indices = []>]",
    "() -> ()",
    "(tensor<4xf32>) -> tensor<4xf32>",
    "[{}]",
    '[{mhlo.memory_kind = "pinned_host"}]',
)

TYPES = (
    "tensor<4xf32>",
    "tensor<f32>",
    "tensor<?x4xf32>",
    "tensor<0xf32>",
    "tensor<9223372036854775807xf32>",
    "tuple<tensor<4xf32>, tensor<4xf32>>",
    "tuple<>",
    "tuple<tuple<tensor<4xf32>>>",
    "i32",
    "i1",
    "!stablehlo.token",
    "none",
    "index",
)

# Snippets to insert into an attribute dictionary.
ATTRIBUTE_INSERTS = (
    'mhlo.memory_kind = "pinned_host"',
    'mhlo.memory_kind = "unpinned_host"',
    "mhlo.memory_kind = 5 : i32",
    'mhlo.frontend_attributes = {_xla_buffer_placement = "pinned_host"}',
    'mhlo.frontend_attributes = {_xla_buffer_placement = "device"}',
    "mhlo.frontend_attributes = 3 : i32",
    'mhlo.frontend_attributes = {_xla_compute_type = "host"}',
    'call_target_name = "annotate_device_placement"',
    'call_target_name = "MoveToHost"',
    "index = 0 : i32",
    "index = 5 : i32",
    'mhlo.layout_mode = "auto"',
)

INTEGERS = (
    "0",
    "1",
    "-1",
    "2",
    "63",
    "64",
    "65",
    "2147483647",
    "4294967296",
    "9223372036854775807",
    "-9223372036854775808",
    "18446744073709551616",
)

RAW_BYTES = (b"\xff", b"\xfe\xff", b"\x00", b'"', b"{", b"}", b"(", b")", b"\n", b"%", b"^", b"#")

_OP_NAME = re.compile(r'"([A-Za-z_][\w$.]*)"\(')
_ATTRIBUTE = re.compile(r"(?<![\w.])(" + "|".join(re.escape(n) for n in ATTRIBUTE_NAMES) + r") = ")
_TYPE = re.compile(r"(?:tensor|tuple)<")
_SSA_USE = re.compile(r"%[\w$.#-]+")
_SSA_DEFINITION = re.compile(r"^\s*(%[\w$.-]+)(?::\d+)? = ", re.MULTILINE)
_BLOCK_ARGUMENTS = re.compile(r"(%[\w$.-]+): ")
_INTEGER = re.compile(r"(?<![\w.#%@\"])-?\d+(?![\w.])")
_ATTRIBUTE_DICT_START = re.compile(r"<\{|\{(?=[A-Za-z_\"])")

Mutation = Callable[[random.Random, str, Sequence[str]], str]


def _value_end(text: str, start: int) -> int:
    """The end of the attribute value starting at ``start``: the next ``,`` or closing
    bracket at nesting depth 0, skipping string literals."""
    depth = 0
    index = start
    while index < len(text):
        char = text[index]
        if char == '"':
            index += 1
            while index < len(text) and text[index] != '"':
                index += 2 if text[index] == "\\" else 1
        elif char in "([{<":
            depth += 1
        elif char in ")]}>":
            if depth == 0:
                return index
            depth -= 1
        elif char in ",\n" and depth == 0:
            return index
        index += 1
    return index


def _matching_close(text: str, open_index: int) -> int | None:
    """The index of the ``)`` closing the ``(`` at ``open_index``, skipping strings."""
    depth = 0
    index = open_index
    while index < len(text):
        char = text[index]
        if char == '"':
            index += 1
            while index < len(text) and text[index] != '"':
                index += 2 if text[index] == "\\" else 1
        elif char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
            if depth == 0:
                return index
        index += 1
    return None


def _replace_random_match(
    rng: random.Random, text: str, pattern: re.Pattern[str], make: Callable[[re.Match[str]], str]
) -> str:
    matches = list(pattern.finditer(text))
    if not matches:
        return text
    match = rng.choice(matches)
    return text[: match.start()] + make(match) + text[match.end() :]


def op_name(rng: random.Random, text: str, _: Sequence[str]) -> str:
    """Renames an op to one the analysis dispatches on."""
    return _replace_random_match(rng, text, _OP_NAME, lambda _m: f'"{rng.choice(OP_NAMES)}"(')


def attribute_value(rng: random.Random, text: str, _: Sequence[str]) -> str:
    """Gives an attribute the analysis reads a value of another kind or type."""
    matches = list(_ATTRIBUTE.finditer(text))
    if not matches:
        return text
    match = rng.choice(matches)
    end = _value_end(text, match.end())
    return text[: match.end()] + rng.choice(VALUES) + text[end:]


def attribute_insert(rng: random.Random, text: str, _: Sequence[str]) -> str:
    """Adds an attribute the analysis reads to some attribute dictionary."""
    matches = list(_ATTRIBUTE_DICT_START.finditer(text))
    if not matches:
        return text
    match = rng.choice(matches)
    return text[: match.end()] + rng.choice(ATTRIBUTE_INSERTS) + ", " + text[match.end() :]


def attribute_delete(rng: random.Random, text: str, _: Sequence[str]) -> str:
    """Removes one attribute the analysis reads."""
    matches = list(_ATTRIBUTE.finditer(text))
    if not matches:
        return text
    match = rng.choice(matches)
    end = _value_end(text, match.end())
    if end < len(text) and text[end] == ",":
        end += 1
    return text[: match.start()] + text[end:]


def type_change(rng: random.Random, text: str, _: Sequence[str]) -> str:
    """Replaces a tensor or tuple type with another type."""
    matches = list(_TYPE.finditer(text))
    if not matches:
        return text
    match = rng.choice(matches)
    depth = 0
    end = match.end() - 1
    while end < len(text):
        if text[end] == "<":
            depth += 1
        elif text[end] == ">" and text[end - 1] != "-":
            depth -= 1
            if depth == 0:
                break
        end += 1
    return text[: match.start()] + rng.choice(TYPES) + text[end + 1 :]


def type_change_all(rng: random.Random, text: str, _: Sequence[str]) -> str:
    """Replaces every occurrence of one tensor type with another type, so that the module
    stays consistent (and usually parses) while ops see values of a new kind."""
    found = sorted(set(re.findall(r"tensor<[^<>]*>", text)))
    if not found:
        return text
    return text.replace(rng.choice(found), rng.choice(TYPES))


def rewire(rng: random.Random, text: str, _: Sequence[str]) -> str:
    """Makes an op use another value: an operand now names another SSA value."""
    names: list[str] = _SSA_DEFINITION.findall(text) + _BLOCK_ARGUMENTS.findall(text)
    if not names:
        return text
    uses = [m for m in _SSA_USE.finditer(text) if not text.startswith(" =", m.end())]
    if not uses:
        return text
    use = rng.choice(uses)
    return text[: use.start()] + rng.choice(names) + text[use.end() :]


def _random_region(rng: random.Random, text: str) -> tuple[int, int] | None:
    """The offsets of the ``(`` and ``)`` around a random op's regions ``({ ... })``."""
    starts = [m.start() for m in re.finditer(r"\(\{", text)]
    if not starts:
        return None
    start = rng.choice(starts)
    end = _matching_close(text, start)
    return None if end is None else (start, end)


def region_empty(rng: random.Random, text: str, _: Sequence[str]) -> str:
    """Empties a region: ``({ ... })`` becomes ``({})`` (or loses its blocks' arguments)."""
    region = _random_region(rng, text)
    if region is None:
        return text
    start, end = region
    if rng.random() < 0.5:
        return text[:start] + "({})" + text[end + 1 :]
    body = re.sub(r"\^bb\d+\([^)]*\):", "^bb0:", text[start : end + 1], count=1)
    return text[:start] + body + text[end + 1 :]


def region_duplicate(rng: random.Random, text: str, _: Sequence[str]) -> str:
    """Gives an op one more region, a copy of one it has, or drops one of several."""
    region = _random_region(rng, text)
    if region is None:
        return text
    start, end = region
    regions = text[start + 1 : end]
    if rng.random() < 0.5:
        return text[: start + 1] + regions + ", " + regions + text[end:]
    parts = regions.split("}, {")
    if len(parts) < 2:
        return text[:start] + text[end + 1 :]
    parts.pop(rng.randrange(len(parts)))
    joined = "}, {".join(parts)
    if not joined.startswith("{"):
        joined = "{" + joined
    if not joined.endswith("}"):
        joined += "}"
    return text[: start + 1] + joined + text[end:]


def line_delete(rng: random.Random, text: str, _: Sequence[str]) -> str:
    """Deletes an op (or any line)."""
    lines = text.splitlines(keepends=True)
    if len(lines) < 2:
        return text
    del lines[rng.randrange(len(lines))]
    return "".join(lines)


def line_duplicate(rng: random.Random, text: str, _: Sequence[str]) -> str:
    """Duplicates an op, which then defines its results twice unless renamed."""
    lines = text.splitlines(keepends=True)
    if not lines:
        return text
    index = rng.randrange(len(lines))
    copy = lines[index]
    if rng.random() < 0.7:
        copy = re.sub(r"^(\s*)%([\w$.-]+)", r"\1%dup_\2", copy)
    lines.insert(index + 1, copy)
    return "".join(lines)


def line_move(rng: random.Random, text: str, _: Sequence[str]) -> str:
    """Moves an op elsewhere (uses before definitions, into or out of regions)."""
    lines = text.splitlines(keepends=True)
    if len(lines) < 3:
        return text
    line = lines.pop(rng.randrange(len(lines)))
    lines.insert(rng.randrange(len(lines) + 1), line)
    return "".join(lines)


def splice(rng: random.Random, text: str, seeds: Sequence[str]) -> str:
    """Inserts a few lines of another seed."""
    other = rng.choice(seeds).splitlines(keepends=True)
    lines = text.splitlines(keepends=True)
    if not other or not lines:
        return text
    start = rng.randrange(len(other))
    chunk = other[start : start + rng.randint(1, 4)]
    index = rng.randrange(len(lines) + 1)
    return "".join(lines[:index] + chunk + lines[index:])


def integer(rng: random.Random, text: str, _: Sequence[str]) -> str:
    """Replaces an integer (an index, a dimension, a count) with an extreme one."""
    return _replace_random_match(rng, text, _INTEGER, lambda _m: rng.choice(INTEGERS))


def truncate(rng: random.Random, text: str, _: Sequence[str]) -> str:
    """Cuts the module short."""
    if not text:
        return text
    return text[: rng.randrange(len(text))]


TEXT_MUTATIONS: tuple[Mutation, ...] = (
    op_name,
    op_name,
    attribute_value,
    attribute_value,
    attribute_value,
    attribute_insert,
    attribute_insert,
    attribute_delete,
    type_change,
    type_change_all,
    type_change_all,
    rewire,
    rewire,
    rewire,
    region_empty,
    region_duplicate,
    line_delete,
    line_duplicate,
    line_move,
    splice,
    integer,
    integer,
)


def mutate_bytes(rng: random.Random, data: bytes) -> bytes:
    """Byte-level damage: random bytes, invalid UTF-8, NUL, unbalanced brackets."""
    if not data:
        return rng.choice(RAW_BYTES)
    position = rng.randrange(len(data))
    choice = rng.random()
    if choice < 0.4:
        return data[:position] + rng.choice(RAW_BYTES) + data[position:]
    if choice < 0.7:
        return data[:position] + bytes([rng.randrange(256)]) + data[position + 1 :]
    return data[:position] + bytes(rng.randrange(256) for _ in range(rng.randint(1, 16)))


def mutate(rng: random.Random, seeds: Sequence[str]) -> bytes:
    """A new input: a seed under one to four structured mutations, sometimes truncated or
    damaged at the byte level."""
    text = rng.choice(seeds)
    for _ in range(rng.choice((1, 1, 1, 2, 2, 3, 4))):
        text = rng.choice(TEXT_MUTATIONS)(rng, text, seeds)
    roll = rng.random()
    if roll < 0.04:
        text = truncate(rng, text, seeds)
    data = text.encode("utf-8", "surrogateescape")
    if 0.04 <= roll < 0.08:
        data = mutate_bytes(rng, data)
    return data
