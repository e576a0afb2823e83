"""XLA's own HostOffloader trace, recorded from libtpu's log, against ``hostoffload trace``.

XLA's HostOffloader logs its walk of host memory (``xla/hlo/transforms/host_offloader.cc``):
each start (``Host parameter #i streamed into program``, ``Offloading "X" to host.``), each
walk from it (``Walking down host memory offload paths starting from (I, {index})``), every
instruction it visits (``Visiting instruction``), every buffer it puts in host memory
(``Setting ... to memory space 5``), an output it streams to host memory, an instruction it
turns into host compute (a warning), and the trace that leads to an E1200. libtpu passes its
own ``--vmodule=`` to its logger, so ``TF_CPP_VMODULE`` has no effect; the log is switched on
with ``LIBTPU_INIT_ARGS=--vmodule=host_offloader=4`` and goes to the ``--log_dir`` given there.

``record`` (needs libtpu, one process at a time) compiles the programs of the HLO dumps
(``catalogue_hlo.py``: each as its dumps were made) compile-only, one process each, with that
log on, and writes for each ``<program>.host_offloader`` module what the log says, the
instructions it names as the dump gives them, and ``compiled.memory_analysis()``'s host sizes::

    flock /tmp/libtpu.lock ../oracle-0052/bin/python -m tools.differential.xla_trace record

``compare`` (pure Python, no libtpu) checks the trace ``hostoffload trace`` gives for the dump
against one module's record; ``test/python/test_xla_trace.py`` runs it on every module.
docs/differential.md ("XLA's own trace") says what is compared and why totals differ.
"""

from __future__ import annotations

import argparse
import datetime
import hashlib
import json
import math
import os
import re
import subprocess
import sys
import tempfile
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tools.differential import catalogue_hlo, layout

REPO_ROOT = Path(__file__).resolve().parents[2]
# The HLO form whose instruction names XLA's log uses: the module HostOffloader runs on.
FORM = "host_offloader"
LOG_FLAGS = "--vmodule=host_offloader=4"
# The dump XLA writes of the module as HostOffloader gets it (after HostOffloadLegalize).
OFFLOADER_DUMP = ".host_offloading.after_host-offload-legalize.before_host-offloader.txt"
COMPILE_TIMEOUT_S = 600


def record_path(libtpu_version: str) -> Path:
    return layout.SUITE / f"xla-trace-libtpu-{libtpu_version}.json"


# --- XLA's log ------------------------------------------------------------------------------

# glog's prefix: severity, date, time, thread, file:line.
_LOG_LINE = re.compile(r"^[IWEF]\d{4} [\d:.]+\s+\d+ host_offloader\.cc:\d+\] (.*)$")
_ENTRY = r"\{Instr: (\S+), ShapeIndex: \{([\d,]*)\}\}"
_PARAMETER = re.compile(
    r"Host parameter #(\d+) streamed into program with shape: (\S+) at index \{([\d,]*)\}"
)
_OFFLOADING = re.compile(r'Offloading "(.+)" to host\.$')
_WALKING = re.compile(
    r"Walking down host memory offload paths starting from \((\S+), \{([\d,]*)\}\)\. "
    r"Insert copy before: (\w+)"
)
_VISITING = re.compile(rf"Visiting instruction: {_ENTRY}$")
_HOST_COMPUTE = re.compile(r'Found an instruction \("(.+)"\) which does device compute')
_STREAMED = re.compile(rf"Memory offloaded starting from {_ENTRY} is output streamed$")
_TRACE_START = "Instruction trace leading to error:"
_TRACE_ENTRY = re.compile(rf"^  {_ENTRY}$")
_SETTING = re.compile(rf"Setting {_ENTRY} to memory space 5$")
_REMOVING_MOVE_TO_HOST = re.compile(r'Removing MoveToHost custom call "(.+)"$')
_ROOT_COPY = re.compile(r'Custom call "(.+)" is entry computation root\. Inserted copy')
_COPY_BEFORE = re.compile(r'Inserted copy "(.+)" before custom call "(.+)"$')
_DYNAMIFIED = re.compile(r'Changed slice "(.+)" into dynamic slice')


def _index(text: str) -> list[int]:
    return [int(part) for part in text.split(",") if part]


@dataclass
class Walk:
    """One walk of XLA's HostOffloader: from ``start`` (instruction, shape index)."""

    start: tuple[str, list[int]]
    insert_copy_before: bool
    visited: list[tuple[str, list[int]]] = field(default_factory=list)
    host_compute: list[str] = field(default_factory=list)
    set_to_host: list[tuple[str, list[int]]] = field(default_factory=list)
    # The entry-root visits XLA streams to a host output (the last visit before its message).
    streamed: list[tuple[str, list[int]]] = field(default_factory=list)
    error_trace: list[tuple[str, list[int]]] | None = None
    move_to_device: list[str] = field(default_factory=list)
    dynamified_slices: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "start": list(self.start),
            "insert_copy_before": self.insert_copy_before,
            "visited": [list(v) for v in self.visited],
            "host_compute": self.host_compute,
            "set_to_host": [list(v) for v in self.set_to_host],
            "streamed": [list(v) for v in self.streamed],
            "error_trace": None
            if self.error_trace is None
            else [list(v) for v in self.error_trace],
            "move_to_device": self.move_to_device,
            "dynamified_slices": self.dynamified_slices,
        }


@dataclass
class Origin:
    """What puts a tensor in host memory in XLA's log: an S(5) parameter or a MoveToHost."""

    kind: str  # "argument" or "annotation"
    parameter: int | None = None
    shape_index: list[int] = field(default_factory=list)
    shape: str | None = None
    operand: str | None = None
    # MoveToHost custom calls the log names as removed in this start's part of the log: the
    # last is the start's own (HandleMoveToHostCustomCall removes it after its walks).
    removed_move_to_host: list[str] = field(default_factory=list)
    root_copy_of: str | None = None
    walks: list[Walk] = field(default_factory=list)


def log_messages(lines: Iterable[str]) -> Iterator[str]:
    """The messages of host_offloader.cc in a glog file, without their prefixes."""
    for line in lines:
        matched = _LOG_LINE.match(line.rstrip("\n"))
        if matched:
            yield matched[1]


def parse_log(lines: Iterable[str]) -> list[Origin]:
    """XLA's starts, in the order it walks them, from the lines of libtpu's INFO log."""
    origins: list[Origin] = []
    walk: Walk | None = None
    in_trace = False
    for message in log_messages(lines):
        if in_trace:
            entry = _TRACE_ENTRY.match(message)
            if entry and walk is not None and walk.error_trace is not None:
                walk.error_trace.append((entry[1], _index(entry[2])))
                continue
            in_trace = False
        if matched := _PARAMETER.search(message):
            origins.append(
                Origin(
                    "argument",
                    parameter=int(matched[1]),
                    shape=matched[2],
                    shape_index=_index(matched[3]),
                )
            )
            walk = None
        elif matched := _OFFLOADING.search(message):
            origins.append(Origin("annotation", operand=matched[1]))
            walk = None
        elif matched := _WALKING.search(message):
            if not origins:
                raise ValueError(f"a walk before any start: {message}")
            walk = Walk((matched[1], _index(matched[2])), matched[3] == "true")
            origins[-1].walks.append(walk)
        elif matched := _REMOVING_MOVE_TO_HOST.search(message):
            if origins:
                origins[-1].removed_move_to_host.append(matched[1])
        elif matched := _ROOT_COPY.search(message):
            origins[-1].root_copy_of = matched[1]
        elif walk is None:
            continue
        elif matched := _VISITING.search(message):
            walk.visited.append((matched[1], _index(matched[2])))
        elif matched := _HOST_COMPUTE.search(message):
            walk.host_compute.append(matched[1])
        elif _STREAMED.search(message):
            walk.streamed.append(walk.visited[-1])
        elif message == _TRACE_START:
            walk.error_trace = []
            in_trace = True
        elif matched := _SETTING.search(message):
            walk.set_to_host.append((matched[1], _index(matched[2])))
        elif matched := _COPY_BEFORE.search(message):
            walk.move_to_device.append(matched[2])
        elif matched := _DYNAMIFIED.search(message):
            walk.dynamified_slices.append(matched[1])
    return origins


# --- HLO text of a dump ---------------------------------------------------------------------

_INSTRUCTION = re.compile(r"^\s*(ROOT\s+)?%([\w.\-]+) = (.*)$")
_OPCODE = re.compile(r" ([a-z][a-z0-9\-]*)\(")
_TARGET = re.compile(r'custom_call_target="([^"]+)"')
_ENTRY_LAYOUT = "entry_computation_layout={"


@dataclass(frozen=True)
class Instruction:
    opcode: str
    operands: tuple[str, ...]
    target: str | None
    computation: str
    root: bool


def _closing(text: str, start: int) -> int:
    """The index of the bracket that closes the one at ``start``."""
    depth = 0
    for index in range(start, len(text)):
        if text[index] in "([{":
            depth += 1
        elif text[index] in ")]}":
            depth -= 1
            if depth == 0:
                return index
    raise ValueError(f"unbalanced: {text[start : start + 80]}")


def top_level(text: str) -> list[str]:
    """``text`` split at its commas outside brackets."""
    parts, depth, begin = [], 0, 0
    for index, char in enumerate(text):
        depth += char in "([{"
        depth -= char in ")]}"
        if char == "," and depth == 0:
            parts.append(text[begin:index].strip())
            begin = index + 1
    parts.append(text[begin:].strip())
    return [part for part in parts if part]


def instructions(text: str) -> dict[str, Instruction]:
    """Every instruction of an HLO dump (one a line), by name; ``ENTRY`` is the entry's name."""
    found: dict[str, Instruction] = {}
    computation = ""
    for line in text.splitlines():
        matched = _INSTRUCTION.match(line)
        if not matched:
            if line and not line[0].isspace() and line.rstrip().endswith("{"):
                computation = "ENTRY" if line.startswith("ENTRY ") else line.split()[0].lstrip("%")
            continue
        rest = matched[3]
        opcode = _OPCODE.search(rest)
        if opcode is None:
            raise ValueError(f"no opcode in: {line}")
        paren = opcode.end() - 1
        operands = re.findall(r"%([\w.\-]+)", rest[paren : _closing(rest, paren)])
        target = _TARGET.search(rest)
        found[matched[2]] = Instruction(
            opcode[1], tuple(operands), target[1] if target else None, computation, bool(matched[1])
        )
    return found


def entry_result(text: str) -> tuple[list[str], bool]:
    """The entry's output shapes, with their layouts, from ``entry_computation_layout``, and
    whether the entry returns a tuple (each output is then a tuple index)."""
    begin = text.index(_ENTRY_LAYOUT) + len(_ENTRY_LAYOUT) - 1
    layout_text = text[begin + 1 : _closing(text, begin)]
    parameters_end = _closing(layout_text, 0)
    result = layout_text[parameters_end + 1 :].removeprefix("->")
    is_tuple = result.startswith("(")
    return (top_level(result[1:-1]) if is_tuple else [result]), is_tuple


# --- Sizes ----------------------------------------------------------------------------------

ELEMENT_BYTES = {
    "pred": 1, "s8": 1, "u8": 1, "f8e4m3fn": 1, "f8e5m2": 1,
    "bf16": 2, "f16": 2, "s16": 2, "u16": 2,
    "f32": 4, "s32": 4, "u32": 4,
    "f64": 8, "s64": 8, "u64": 8, "c64": 8, "c128": 16,
}  # fmt: skip
_ARRAY_SHAPE = re.compile(r"^(\w+)\[([\d,]*)\](?:\{([\d,]*)(?::(.*))?\})?$")
_TILE = re.compile(r"T\(([\d,]+)\)")


def shape_bytes(shape: str, tiled: bool) -> int:
    """The bytes of an array shape such as ``f32[8]{0:T(128)S(5)}``: of its elements, or
    (``tiled``) of its elements padded to its first tile, as XLA:TPU lays it out."""
    matched = _ARRAY_SHAPE.match(shape)
    if matched is None or matched[1] not in ELEMENT_BYTES:
        raise ValueError(f"not an array shape of known element size: {shape}")
    dims = _index(matched[2])
    if tiled and matched[4] and (tile := _TILE.search(matched[4])):
        sizes = _index(tile[1])
        physical = [dims[d] for d in reversed(_index(matched[3]))]
        physical = [1] * (len(sizes) - len(physical)) + physical  # a scalar is one tile
        minor = len(physical) - len(sizes)
        dims = physical[:minor] + [
            math.ceil(dim / size) * size for dim, size in zip(physical[minor:], sizes, strict=True)
        ]
    return math.prod(dims) * ELEMENT_BYTES[matched[1]]


def is_host(shape: str) -> bool:
    return "S(5)" in shape


# --- Comparison with ``hostoffload trace`` (no libtpu) --------------------------------------

# HLO instructions the StableHLO form has no op for: a tuple's elements are values of their own
# and a get-tuple-element is that value; a parameter is a block argument.
WITHOUT_OP = frozenset({"tuple", "get-tuple-element", "parameter"})
SLICES = frozenset({"slice", "dynamic-slice"})


@dataclass(frozen=True)
class End:
    """Where host memory ends: a fate kind of trace.schema.json, at an instruction (by name)
    or, for 'output' and 'mismatch', at an entry output (by index)."""

    kind: str
    at: str | int

    def __str__(self) -> str:
        where = f"output {self.at}" if isinstance(self.at, int) else repr(self.at)
        return f"{self.kind} at {where}"


@dataclass
class Agreement:
    """The comparison of one module's trace with XLA's log of it."""

    differences: list[str] = field(default_factory=list)
    # XLA's starts matched with a start of the trace.
    compared: int = 0
    # The trace's starts XLA's log has no walk for, and why.
    unwalked: dict[str, str] = field(default_factory=dict)
    # Instructions and ends of the trace past the E1200 where XLA stopped its walk.
    unchecked: int = 0
    # XLA's host sizes, and the same totals of the trace (bytes).
    bytes: dict[str, int] = field(default_factory=dict)


def _output_index(record: Mapping[str, Any], shape_index: list[int]) -> int:
    return shape_index[0] if record["output_tuple"] else 0


def xla_ends(record: Mapping[str, Any], start: Mapping[str, Any]) -> set[End]:
    """Where XLA's walks from ``start`` end: outputs it streams, the output of its E1200,
    MoveToDevice and slices read into device memory, instructions it makes host compute,
    host calls whose operand it puts in host memory."""
    info = record["instructions"]
    ends: set[End] = set()
    if start["kind"] == "annotation" and not start["walks"] and not start.get("root_copy_of"):
        # HandleRedundantCopiesBackToHost kept a host call's result in host memory for all its
        # uses before the walks, so its MoveToHost has none left: what it is returned as is
        # returned in host memory (XLA's host output bytes count it).
        ends.update(End("output", index) for index in start.get("returned_as", []))
    if start.get("root_copy_of"):
        # XLA's root special case: the lone output, moved to host from device memory, is
        # copied to host and back, and the output is in device memory (no host output bytes,
        # a host temporary); the trace ends it at the return, back in device memory.
        ends.add(End("device", "func.return"))
    for walk in start["walks"]:
        warned = set(walk["host_compute"])
        ends.update(End("output", _output_index(record, index)) for _, index in walk["streamed"])
        if walk["error_trace"]:
            ends.add(End("mismatch", _output_index(record, walk["error_trace"][-1][1])))
        for name, _ in walk["visited"]:
            instruction = info.get(name, {})
            if instruction.get("target") == "MoveToDevice" or (
                instruction.get("opcode") in SLICES and name not in warned
            ):
                ends.add(End("device", name))
        ends.update(End("host_compute", name) for name in warned)
        for name, index in walk["set_to_host"]:
            if info.get(name, {}).get("opcode") == "async-start" and index[:1] == [0]:
                ends.add(End("host_call", name))
    return ends


def trace_ends(start: Mapping[str, Any]) -> set[End]:
    """The ends of a start of the trace (its fates)."""
    return {
        End(fate["kind"], fate["output_index"])
        if fate["kind"] in ("output", "mismatch")
        else End(fate["kind"], fate["at"].get("name", fate["at"]["op"]))
        for fate in start["fates"]
    }


def _reached(start: Mapping[str, Any]) -> set[str]:
    """The instructions XLA's walks from ``start`` visit or put in host memory."""
    return {name for walk in start["walks"] for name, _ in walk["visited"] + walk["set_to_host"]}


def _own_op(start: Mapping[str, Any]) -> str | None:
    """The name of a trace start's own op (an annotation's custom call)."""
    return start["through"][0].get("name") if start["through"] else None


def _describe(start: Mapping[str, Any]) -> str:
    if start["kind"] == "argument":
        return f"XLA's host parameter #{start['parameter']}"
    return f"XLA's MoveToHost {start['move_to_host']!r} (of {start['operand']!r})"


def agreement(record: Mapping[str, Any], trace: str | Mapping[str, Any]) -> Agreement:
    """How the trace (``hostoffload.Trace.to_json()`` of the module's dump) agrees with one
    module's record of XLA's log: see docs/differential.md, "XLA's own trace"."""
    document: Mapping[str, Any] = json.loads(trace) if isinstance(trace, str) else trace
    result = Agreement()
    if not record["same_instructions"]:
        result.differences.append("XLA compiled another module than the dump: record it again")
    ours = document["starts"]
    arguments = {s["argument_index"]: s for s in ours if s["kind"] == "argument"}
    annotations = {_own_op(s): s for s in ours if s["kind"] == "annotation"}
    info = record["instructions"]
    earlier: set[str] = set()
    earlier_ends: set[End] = set()
    matched: set[int] = set()
    for start in record["starts"]:
        reached = _reached(start)
        described = _describe(start)
        for name in sorted(n for n in reached if not info.get(n, {}).get("in_dump")):
            result.differences.append(f"{described} reaches {name!r}, which the dump has not")
        with_op = {n for n in reached if info.get(n, {}).get("opcode", "") not in WITHOUT_OP}
        ends = xla_ends(record, start)
        if start["kind"] == "argument":
            mine = arguments.get(start["parameter"]) if not start["shape_index"] else None
        else:
            mine = annotations.get(start["move_to_host"])
        if mine is None:
            result.differences.append(f"{described}: no start of the trace is it")
        else:
            matched.add(mine["index"])
            result.compared += 1
            _compare_start(record, start, mine, with_op, ends, earlier, earlier_ends, result)
        earlier |= with_op
        earlier_ends |= ends
    walked = set().union(*(_reached(s) for s in record["starts"]))
    for start in ours:
        if start["index"] in matched:
            continue
        if start["kind"] == "annotation" and _own_op(start) in walked:
            result.unwalked[start["name"]] = (
                "its MoveToHost is on the way of an earlier start, whose walk removes it"
            )
        elif record["status"] == "e1200":
            result.unwalked[start["name"]] = "XLA stopped at its E1200 before this start"
        else:
            result.differences.append(f"start {start['index']} ({start['name']}): not in XLA's log")
    _compare_totals(record, document, result)
    return result


def _compare_start(
    record: Mapping[str, Any],
    start: Mapping[str, Any],
    mine: Mapping[str, Any],
    with_op: set[str],
    ends: set[End],
    earlier: set[str],
    earlier_ends: set[End],
    result: Agreement,
) -> None:
    """One start of XLA's log against the trace's start ``mine``; ``earlier`` and
    ``earlier_ends``: what XLA's earlier starts reached (XLA's walk skips an instruction an
    earlier walk put in host memory; the trace lists everything the start's memory reaches)."""
    label = f"start {mine['index']} ({mine['name']})"
    differences = result.differences
    info = record["instructions"]
    errored = any(walk["error_trace"] for walk in start["walks"])
    walks = start["walks"]
    # XLA's E1200 names the start of the walk that fails; without one, any walk's start.
    starts = [w["start"][0] for w in walks if w["error_trace"]] or [w["start"][0] for w in walks]
    if starts and mine.get("xla_name") not in starts:
        differences.append(f"{label}: xla_name {mine.get('xla_name')!r}, XLA starts from {starts}")
    # An argument's own entry is the argument (XLA's parameter, which has no op); the ops its
    # fates are at are reached too.
    ops = mine["through"][1:] if mine["kind"] == "argument" else mine["through"]
    ops += [fate["at"] for fate in mine["fates"]]
    through = {op["name"] for op in ops if "name" in op}
    for name in sorted(with_op - through):
        differences.append(
            f"{label}: XLA reaches {name!r} ({info[name]['opcode']}), the trace does not"
        )
    # What GetStartingInstructions passes over before the walks: the annotation and the
    # bitcasts after it.
    before = {start.get("move_to_host")} | {n for w in walks for n in w.get("after_annotation", [])}
    if not walks:
        # A host call's result that HandleRedundantCopiesBackToHost kept in host memory: every
        # MoveToHost of it, one after another, is a copy XLA drops.
        before |= {
            other.get("move_to_host")
            for other in record["starts"]
            if not other["walks"] and other.get("operand") == start.get("operand")
        }
    extra = sorted(through - with_op - earlier - before)
    if errored:
        result.unchecked += len(extra)
    else:
        differences.extend(f"{label}: the trace passes through {n!r}, XLA does not" for n in extra)
    mine_ends = trace_ends(mine)
    host_compute = {end for end in ends if end.kind == "host_compute"}
    for end in sorted(ends - mine_ends - host_compute, key=str):
        differences.append(f"{label}: XLA ends {end}, the trace does not")
    beyond = sorted(mine_ends - ends - earlier_ends, key=str)
    if errored:
        result.unchecked += len(beyond)
    else:
        differences.extend(f"{label}: the trace ends {end}, XLA does not" for end in beyond)
    count = mine["host_compute_ops"]
    alone = not errored and not (through & earlier)
    if count < len(host_compute) or (alone and count != len(host_compute)):
        differences.append(
            f"{label}: {count} host compute ops, XLA converts {len(host_compute)} "
            f"({', '.join(sorted(str(end.at) for end in host_compute))})"
        )
    if start["kind"] == "argument":
        size = shape_bytes(start["shape"], tiled=False)
        if mine["tensor"]["bytes"] != size:
            differences.append(
                f"{label}: {mine['tensor']['bytes']} bytes, XLA's {start['shape']} has {size}"
            )


def _compare_totals(
    record: Mapping[str, Any], document: Mapping[str, Any], result: Agreement
) -> None:
    """The totals of the trace against XLA's verdict, its host compute and its host sizes."""
    totals = document["totals"]
    if record["status"] == "ok":
        warned = {name for s in record["starts"] for w in s["walks"] for name in w["host_compute"]}
        if totals["mismatches"] or totals["host_compute_ops"] != len(warned):
            result.differences.append(
                f"totals: {totals['mismatches']} mismatches and {totals['host_compute_ops']} "
                f"host compute ops; XLA compiles it, converting {len(warned)}"
            )
    elif record["status"] == "e1200" and not totals["mismatches"]:
        result.differences.append("totals: no mismatch; XLA rejects it with E1200")
    memory = record.get("memory_analysis")
    if not memory:
        return
    parameters = [s["shape"] for s in record["starts"] if s["kind"] == "argument"]
    outputs = [shape for shape in record["outputs"] if is_host(shape)]
    ours_arguments = sum(
        s["tensor"]["bytes"] or 0 for s in document["starts"] if s["kind"] == "argument"
    )
    result.bytes = {
        "host_argument_size_in_bytes": memory["host_argument_size_in_bytes"],
        "host_output_size_in_bytes": memory["host_output_size_in_bytes"],
        "host_temp_size_in_bytes": memory["host_temp_size_in_bytes"],
        "trace_argument_bytes": ours_arguments,
        "trace_bytes_output_in_host": totals["bytes_output_in_host"],
        "trace_bytes_to_host": totals["bytes_to_host"],
    }
    for what, shapes, xla_size, size in (
        ("arguments", parameters, "host_argument_size_in_bytes", ours_arguments),
        ("outputs", outputs, "host_output_size_in_bytes", totals["bytes_output_in_host"]),
    ):
        tiled = sum(shape_bytes(shape, tiled=True) for shape in shapes)
        if memory[xla_size] != tiled:
            result.differences.append(
                f"host {what}: XLA's {xla_size} {memory[xla_size]} is not the tiled size "
                f"{tiled} of its host {what} {shapes}"
            )
        logical = sum(shape_bytes(shape, tiled=False) for shape in shapes)
        if size != logical:
            result.differences.append(
                f"host {what}: the trace has {size} bytes, XLA's {shapes} have {logical}"
            )


def compare(record: Mapping[str, Any], trace: str | Mapping[str, Any]) -> list[str]:
    """The differences between the trace of a module and XLA's log of it (none: they agree)."""
    return agreement(record, trace).differences


# --- Recording (needs libtpu) ---------------------------------------------------------------


def compile_program(program: str, scratch: Path) -> dict[str, Any]:
    """Compiles ``program`` of ``catalogue_hlo`` as its dumps were made, compile-only, dumping
    the host offloading pipeline's modules to ``scratch``; XLA's verdict, the host sizes of
    its memory analysis, and the versions. Runs in a process of its own (``compile`` job),
    whose libtpu logs to the ``--log_dir`` of ``LIBTPU_INIT_ARGS``."""
    import numpy as np
    from jax._src import compiler
    from jax._src.interpreters import mlir as jax_mlir
    from jax._src.lib import xla_client

    from tools.differential import worker

    devices = worker.tpu_devices(catalogue_hlo.TOPOLOGY)[:1]
    (found,) = [p for p in catalogue_hlo.PROGRAMS if p.source == program]
    text = catalogue_hlo.source_text(found, devices[0])
    memory: dict[str, int] | None = None
    error: BaseException | None = None
    with jax_mlir.make_ir_context():
        options = compiler.get_compile_options(
            num_replicas=1,
            num_partitions=1,
            device_assignment=np.array([devices]),
            backend=devices[0].client,
        )
        debug = options.executable_build_options.debug_options
        debug.xla_dump_to = str(scratch)
        debug.xla_dump_hlo_pass_re = catalogue_hlo.DUMP_PASS_RE
        try:
            # Not catalogue_hlo.compile_text: the executable is kept for its memory analysis.
            executable = devices[0].client.compile(
                jax_mlir.ir.Module.parse(text),
                executable_devices=xla_client.DeviceList(tuple(devices)),
                compile_options=options,
            )
            stats = executable.get_compiled_memory_stats()
            memory = {
                name: int(getattr(stats, name))
                for name in dir(stats)
                if name.startswith("host_") and name.endswith("_in_bytes")
            }
        except Exception as caught:  # XLA's verdict
            error = caught
    return {
        **worker.verdict(error),
        "memory_analysis": memory,
        "versions": worker.versions(devices[0], catalogue_hlo.TOPOLOGY),
    }


def _named(origins: list[Origin]) -> set[str]:
    """Every instruction name the log gives."""
    names: set[str] = set()
    for origin in origins:
        names.update(filter(None, [origin.operand, origin.root_copy_of]))
        names.update(origin.removed_move_to_host)
        for walk in origin.walks:
            names.add(walk.start[0])
            for entries in (walk.visited, walk.set_to_host, walk.streamed, walk.error_trace or []):
                names.update(name for name, _ in entries)
            names.update(walk.host_compute + walk.move_to_device + walk.dynamified_slices)
    return names


def _move_to_host_of(origin: Origin, offloaded: Mapping[str, Instruction]) -> str | None:
    """The MoveToHost custom call of an annotation start. The log names it when XLA copies it
    at the root, or removes it after the start's walks (the last removal of the start's part
    of the log that no walk visited: a walk removes the MoveToHosts it visits); else the dump
    does, when one MoveToHost has the operand the log names (an earlier start may have given
    it another operand by removing a MoveToHost before it)."""
    if origin.root_copy_of:
        return origin.root_copy_of
    visited = {name for walk in origin.walks for name, _ in walk.visited}
    removed = [name for name in origin.removed_move_to_host if name not in visited]
    if removed:
        return removed[-1]
    candidates = [
        name
        for name, instruction in offloaded.items()
        if instruction.target == "MoveToHost" and instruction.operands[:1] == (origin.operand,)
    ]
    return candidates[0] if len(candidates) == 1 else None


PASSED_TO_START = ("bitcast", "copy", "reshape")


def _between(offloaded: Mapping[str, Instruction], annotation: str, start: str) -> list[str]:
    """The bitcasts and copies from a MoveToHost to the start of a walk from it, which XLA's
    GetStartingInstructions passes over before the walk."""
    for operand in offloaded[start].operands:
        chain, current = [], operand
        while current != annotation and offloaded[current].opcode in PASSED_TO_START:
            chain.append(current)
            current = offloaded[current].operands[0]
        if current == annotation:
            return chain
    return []


def _returned_as(offloaded: Mapping[str, Instruction], name: str) -> list[int]:
    """The entry outputs instruction ``name`` is returned as, as it is or through further
    MoveToHosts (each of which moves nothing: the tensor is in host memory already)."""
    (root,) = [n for n, i in offloaded.items() if i.root and i.computation == "ENTRY"]
    found: list[int] = []
    todo = [name]
    while todo:
        current = todo.pop()
        if current == root:
            found.append(0)
        elif offloaded[root].opcode == "tuple":
            found += [i for i, operand in enumerate(offloaded[root].operands) if operand == current]
        todo += [
            user
            for user, instruction in offloaded.items()
            if instruction.target == "MoveToHost" and instruction.operands[:1] == (current,)
        ]
    return sorted(found)


def module_record(
    origins: list[Origin], dumps: Mapping[str, str], compiled: Mapping[str, Any]
) -> dict[str, Any]:
    """The record of one module: ``origins`` parsed from the log; ``dumps`` the module of the
    test suite (``recorded``), and this compile's dumps of the module entering the host
    offloading pipeline (``pipeline``) and of the one HostOffloader ran on (``offloaded``)."""
    in_recorded = instructions(dumps["recorded"])
    in_offloaded = instructions(dumps["offloaded"])
    starts = []
    for origin in origins:
        start: dict[str, Any] = {"kind": origin.kind}
        annotation = None
        if origin.kind == "argument":
            start |= {
                "parameter": origin.parameter,
                "shape_index": origin.shape_index,
                "shape": origin.shape,
            }
        else:
            annotation = _move_to_host_of(origin, in_offloaded)
            start |= {"operand": origin.operand, "move_to_host": annotation}
            if annotation:
                start["returned_as"] = _returned_as(in_offloaded, annotation)
            if origin.root_copy_of:
                start["root_copy_of"] = origin.root_copy_of
        start["walks"] = [
            walk.to_json()
            | (
                {"after_annotation": _between(in_offloaded, annotation, walk.start[0])}
                if annotation
                else {}
            )
            for walk in origin.walks
        ]
        starts.append(start)
    named = _named(origins) | {
        name
        for start in starts
        for walk in start["walks"]
        for name in walk.get("after_annotation", [])
    }
    shapes = {name: (i.opcode, i.target) for name, i in in_recorded.items()}
    outputs, output_tuple = entry_result(dumps["recorded"])
    return {
        "module_sha256": hashlib.sha256(dumps["recorded"].encode()).hexdigest(),
        "status": compiled["status"],
        "message": compiled["message"],
        # This compile dumped the recorded module's instructions: the log's names are the dump's.
        "same_instructions": shapes
        == {name: (i.opcode, i.target) for name, i in instructions(dumps["pipeline"]).items()},
        "entry_root": next(
            n for n, i in in_offloaded.items() if i.root and i.computation == "ENTRY"
        ),
        "outputs": outputs,
        "output_tuple": output_tuple,
        "memory_analysis": compiled["memory_analysis"],
        "instructions": {
            name: {
                "opcode": in_offloaded[name].opcode,
                "target": in_offloaded[name].target,
                "computation": in_offloaded[name].computation,
                "in_dump": name in in_recorded,
            }
            for name in sorted(named)
            if name in in_offloaded
        },
        "starts": starts,
    }


def record_program(program: str, keep_log: Path | None) -> dict[str, Any]:
    """Compiles ``program`` in a process of its own with HostOffloader's log on; its record.
    ``keep_log``: a file to keep HostOffloader's lines of the log in."""
    recorded = (layout.HLO_SUITE / f"{program}.{FORM}.hlo.txt").read_text()
    with tempfile.TemporaryDirectory(prefix="hostoffload-xla-trace-") as scratch_dir:
        scratch = Path(scratch_dir)
        logs = scratch / "logs"
        logs.mkdir()
        env = dict(os.environ)
        env["LIBTPU_INIT_ARGS"] = " ".join(
            filter(None, [env.get("LIBTPU_INIT_ARGS"), LOG_FLAGS, f"--log_dir={logs}"])
        )
        result = scratch / "result.json"
        command = [sys.executable, "-m", "tools.differential.xla_trace", "compile"]
        command += ["--program", program, "--scratch", str(scratch), "--result", str(result)]
        done = subprocess.run(
            command, env=env, cwd=REPO_ROOT, capture_output=True, text=True,
            timeout=COMPILE_TIMEOUT_S, check=False,
        )  # fmt: skip
        if done.returncode != 0:
            tail = "\n".join(done.stderr.strip().splitlines()[-5:])
            return {"status": "crash", "message": f"exit {done.returncode}: {tail}"[:4000]}
        compiled = json.loads(result.read_text())
        (log,) = logs.glob("*.log.INFO.*")
        lines = [line for line in log.read_text().splitlines() if _LOG_LINE.match(line)]
        if keep_log:
            keep_log.write_text("".join(line + "\n" for line in lines))
        origins = parse_log(lines)
        dumps = {
            "recorded": recorded,
            "pipeline": catalogue_hlo.dump_file(scratch, catalogue_hlo.FORMS[FORM]).read_text(),
            "offloaded": catalogue_hlo.dump_file(scratch, OFFLOADER_DUMP).read_text(),
        }
        return {"versions": compiled["versions"]} | module_record(origins, dumps, compiled)


def record(out: Path | None, only: str | None, logs: Path | None) -> Path:
    """Records every program of ``catalogue_hlo`` (``only``: those it matches) into ``out``
    (by default ``test/differential/xla-trace-libtpu-<version>.json``); ``logs``: a folder to
    keep HostOffloader's lines of each program's log in, as ``<program>.log``."""
    modules: dict[str, Any] = {}
    versions: dict[str, str] = {}
    for program in catalogue_hlo.PROGRAMS:
        if only and not re.search(only, program.source):
            continue
        entry = record_program(program.source, logs / f"{program.source}.log" if logs else None)
        versions = entry.pop("versions", versions)
        modules[f"{program.source}.{FORM}"] = entry
        walks = sum(len(start["walks"]) for start in entry.get("starts", []))
        print(f"{program.source}: {entry['status']}, {walks} walks", flush=True)
    if not versions:
        raise SystemExit("no program compiled: libtpu did not start")
    generated = versions | {"date": datetime.date.today().isoformat(), "log": LOG_FLAGS}
    path = out or record_path(versions["libtpu"])
    if only and path.exists():  # the other programs stay as recorded
        modules = json.loads(path.read_text())["modules"] | modules
    document = {"generated": generated, "modules": dict(sorted(modules.items()))}
    path.write_text(json.dumps(document, indent=1) + "\n")
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("job", choices=["record", "compile"])
    parser.add_argument("--only", help="record the programs this regex matches")
    parser.add_argument("--out", type=Path, help="record: the file to write")
    parser.add_argument("--logs", type=Path, help="record: keep HostOffloader's log lines here")
    parser.add_argument("--program", help="compile: the program of catalogue_hlo")
    parser.add_argument("--scratch", type=Path, help="compile: the folder of its dumps")
    parser.add_argument("--result", type=Path, help="compile: the file of its result")
    args = parser.parse_args()
    if args.job == "record":
        if args.logs:
            args.logs.mkdir(parents=True, exist_ok=True)
        print(f"wrote {record(args.out, args.only, args.logs)}")
        return
    if not (args.program and args.scratch and args.result):
        parser.error("compile needs --program, --scratch and --result")
    from tools.differential import worker

    worker.limit_memory(8.0)
    args.result.write_text(json.dumps(compile_program(args.program, args.scratch)))


if __name__ == "__main__":
    main()
