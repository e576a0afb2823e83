"""HLO text as the importer of jaxlib must see it, and what the import leaves out.

Three things of an HLO module do not survive XLA's HLO-to-StableHLO importer as the check
needs them, and are handled here on the text, before jaxlib parses it:

- **Instruction names.** The importer names an op after its instruction (``tuple.64``) only
  when the instruction has no ``op_name`` metadata, and JAX gives nearly every instruction
  one. XLA's E1200 names instructions, so every instruction's ``op_name`` is set to its name:
  each op's location becomes ``loc("<name>"(<where>))``.
- **Where an instruction is.** The importer takes the Python frame of the metadata; an
  instruction without one gets the line of the HLO file it is on (``source_file`` and
  ``source_line``), so that every diagnostic points into a file the user has.
- **Elided literals.** XLA prints large constants as ``constant({...})``, and its parser
  makes a literal of zeros of the full shape from that: gigabytes for a large weight. Such a
  constant (data that no annotation moves) becomes an operand-less custom call of the same
  shape, :data:`ELIDED_CONSTANT_TARGET`.

The entry memory spaces (``S(5)`` in ``entry_computation_layout``) are read from jaxlib's
program shape instead, see :func:`memory_spaces`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

ELIDED_CONSTANT_TARGET = "hostoffload.elided_constant"

# `  [ROOT ]%name = ...`: an instruction; computation headers and braces have no `=` there.
_INSTRUCTION = re.compile(r"\s*(?:ROOT\s+)?%?([A-Za-z_][\w.\-]*)\s*=\s")
# A constant whose literal is elided, also inside a tuple: `constant({...})`,
# `constant(({...}, {...}))`.
_ELIDED_CONSTANT = re.compile(r"\bconstant\((?:\{\.\.\.\}|\((?:\{\.\.\.\}|[^()])*\.\.\.[^()]*\))\)")
_PARAMETER = re.compile(r"[^=]*?\sparameter\(")
_METADATA = "metadata={"
_OP_NAME = re.compile(r'\s*op_name="(?:[^"\\]|\\.)*"')
_MEMORY_SPACE = re.compile(r"S\((\d+)\)")


def prepare(text: str, file_name: str) -> str:
    """``text`` with every instruction named after itself, located, and elided literals
    replaced (see the module's documentation); lines that are no instruction stay as they are,
    and no line is added or removed."""
    return "\n".join(_prepare_lines(_statements(text.split("\n")), _hlo_string(file_name)))


def _statements(lines: list[str]) -> Iterator[tuple[int, str]]:
    """The line number and text of each line, an instruction written over several lines
    (XLA's own tests break long ones after a comma) joined with its continuation lines: its
    metadata goes after its last attribute."""
    number = 0
    while number < len(lines):
        start = number
        if _INSTRUCTION.match(lines[number]):
            depth = _open_brackets(lines[number], 0)
            while _continues(lines[number], depth) and number + 1 < len(lines):
                following = lines[number + 1]
                if not following.strip() or _INSTRUCTION.match(following):
                    break
                number += 1
                depth = _open_brackets(following, depth)
        yield start + 1, "\n".join(lines[start : number + 1])
        number += 1


def _continues(line: str, depth: int) -> bool:
    return depth > 0 or line.rstrip().endswith(",")


def _open_brackets(line: str, depth: int) -> int:
    """``depth`` plus the brackets ``line`` opens outside string literals, less those it
    closes."""
    for _, char in _outside_strings(line, 0):
        if char in "({[":
            depth += 1
        elif char in ")}]":
            depth -= 1
    return depth


def _outside_strings(line: str, start: int) -> Iterator[tuple[int, str]]:
    """The characters of ``line`` from ``start`` on that are outside string literals (the
    quotes included), with their indices."""
    in_string = False
    escaped = False
    for index in range(start, len(line)):
        char = line[index]
        if escaped:
            escaped = False
        elif char == "\\":
            escaped = True
        elif char == '"':
            in_string = not in_string
        elif not in_string:
            yield index, char


def _prepare_lines(statements: Iterable[tuple[int, str]], quoted_file: str) -> Iterator[str]:
    for number, line in statements:
        instruction = _INSTRUCTION.match(line)
        if instruction is None:
            yield line
            continue
        if _PARAMETER.match(line, instruction.end()):
            # An entry parameter's location names the function argument: JAX's op_name is
            # the user's name for it, kept; the parameter's line is added after it.
            yield _with_metadata(line, instruction[1], quoted_file, number, keep_op_name=True)
            continue
        line = _ELIDED_CONSTANT.sub(
            f'custom-call(), custom_call_target="{ELIDED_CONSTANT_TARGET}"', line
        )
        yield _with_metadata(line, instruction[1], quoted_file, number)


def _with_metadata(
    line: str, name: str, quoted_file: str, number: int, *, keep_op_name: bool = False
) -> str:
    """``line`` with the op_name ``name``, and located at line ``number`` of the file unless
    its metadata has a Python frame or file (or ``quoted_file`` is empty). With
    ``keep_op_name``, metadata the line has keeps its fields, op_name included, and ``name``
    is used only for metadata the line lacks."""
    quoted_name = _hlo_string(name)
    where = f" source_file={quoted_file} source_line={number}" if quoted_file else ""
    start = _metadata_start(line)
    if start is None:
        body = line.rstrip("\r")
        return f"{body}, metadata={{op_name={quoted_name}{where}}}{line[len(body) :]}"
    end = _closing_brace(line, start)
    if end is None:
        return line
    fields = _OP_NAME.sub("", line[start:end])
    if "stack_frame_id=" in fields or "source_file=" in fields:
        where = ""
    if keep_op_name:
        return f"{line[:end].rstrip()}{where}{line[end:]}" if where else line
    return f"{line[:start]}op_name={quoted_name}{where} {fields.strip()}{line[end:]}"


def _metadata_start(line: str) -> int | None:
    """Where the fields of the line's ``metadata={...}`` start, outside string literals."""
    position = 0
    while True:
        found = line.find(_METADATA, position)
        if found < 0:
            return None
        if line.count('"', 0, found) - line.count('\\"', 0, found) & 1 == 0:
            return found + len(_METADATA)
        position = found + 1


def _closing_brace(line: str, start: int) -> int | None:
    return next((index for index, char in _outside_strings(line, start) if char == "}"), None)


def _hlo_string(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return f'"{escaped}"'


ENTRY_NAMES_ATTR = "hostoffload.hlo_entry"

_ENTRY_HEADER = re.compile(r"\s*ENTRY\s")
_ENTRY_PARAMETER = re.compile(
    r"\s*(?:ROOT\s+)?%?([A-Za-z_][\w.\-]*)\s*=\s[^=]*?\sparameter\((\d+)\)"
)
_ROOT = re.compile(r"\s*ROOT\s+%?([A-Za-z_][\w.\-]*)\s*=")
_TUPLE = re.compile(r"\s*(?:ROOT\s+)?%?([A-Za-z_][\w.\-]*)\s*=\s[^=]*?\stuple\(")
_BARRIER = re.compile(
    r"\s*(?:ROOT\s+)?%?([A-Za-z_][\w.\-]*)\s*=\s[^=]*?\sopt-barrier\(%?([A-Za-z_][\w.\-]*)\)"
)


@dataclass(frozen=True)
class EntryNames:
    """The names XLA gives instructions of the entry computation that the importer keeps
    nowhere: the parameters (parameters are named by JAX's op_name), the root (the root tuple
    is flattened away) and the tuple operand of each opt-barrier (folded into the barrier,
    which takes the tuple's elements)."""

    parameters: dict[int, str]
    root: str | None
    barrier_operands: dict[str, str]


def entry_names(text: str) -> EntryNames:
    """The names of the entry computation XLA's messages use: its E1200 names the parameter a
    host argument starts from, and the instruction that takes a moved tensor, which is the
    root when the move is returned as it is, and the tuple when it goes into an
    opt-barrier."""
    parameters: dict[int, str] = {}
    root = None
    tuples: set[str] = set()
    barriers: dict[str, str] = {}
    lines = iter(text.split("\n"))
    for line in lines:
        if _ENTRY_HEADER.match(line):
            break
    for line in lines:
        if line.strip() == "}":
            break
        if (parameter := _ENTRY_PARAMETER.match(line)) is not None:
            parameters[int(parameter[2])] = parameter[1]
        # A parameter can be the root itself (an argument returned as it is).
        if (found := _ROOT.match(line)) is not None:
            root = found[1]
        if (tuple_ := _TUPLE.match(line)) is not None:
            tuples.add(tuple_[1])
        if (barrier := _BARRIER.match(line)) is not None:
            barriers[barrier[1]] = barrier[2]
    operands = {barrier: operand for barrier, operand in barriers.items() if operand in tuples}
    return EntryNames(parameters, root, operands)


def leaf_counts(program_shape: Any) -> list[int]:
    """How many function arguments the importer makes of each entry parameter."""
    return [sum(1 for _ in _leaves(shape)) for shape in program_shape.parameter_shapes()]


def memory_spaces(program_shape: Any) -> tuple[list[str], list[str]] | None:
    """The memory space of every leaf of the entry parameters and of the entry result, in
    the order the importer flattens them into the function's arguments and results, from a
    jaxlib ``ProgramShape``: ``S(5)`` in a layout is 5, no ``S(...)`` is 0 (device memory).
    None when no layout names a memory space: then the text does not say where the entry
    values live (``lowered.as_text(dialect="hlo")`` leaves that to the compile options)."""
    arguments = [space for shape in program_shape.parameter_shapes() for space in _leaves(shape)]
    results = list(_leaves(program_shape.result_shape()))
    if all(space is None for space in (*arguments, *results)):
        return None
    return [space or "0" for space in arguments], [space or "0" for space in results]


def _leaves(shape: Any) -> Iterator[str | None]:
    if shape.is_tuple():
        for element in shape.tuple_shapes():
            yield from _leaves(element)
        return
    layout = shape.layout() if shape.is_array() else None
    found = _MEMORY_SPACE.search(layout.to_string()) if layout is not None else None
    yield found[1] if found else None
