"""Where every tensor in host memory goes: the trace of a checked module.

The analysis follows each start (a ``pinned_host`` entry argument, an annotation that moves a
tensor to host) as XLA's HostOffloader does; :class:`Trace` gives, for each, the tensor, the
ops its host memory passes through and its fates, with totals per step and per Python line,
as text (:meth:`Trace.to_text`), JSON (:meth:`Trace.to_json`, ``trace.schema.json``) or a page
(:meth:`Trace.to_html`). :func:`hostoffload.trace` and :func:`hostoffload.trace_jax` make one;
so does :func:`hostoffload.check` with ``trace=True`` (:attr:`Report.trace`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from hostoffload.diagnostic import Location
from hostoffload.releases import modelled_on
from hostoffload.starts import PathStep, Start, header_json

FateKind = Literal["device", "host_compute", "output", "mismatch", "host_call"]
#: How the text names each fate.
_FATE_TEXT: dict[str, str] = {
    "device": "moved to device",
    "host_compute": "computed on the host",
    "output": "returned in host memory",
    "mismatch": "E1200: returned as an output not in host memory",
    "host_call": "consumed by a call on the host",
}


@dataclass(frozen=True)
class TraceFate:
    """Where the host memory of a start ends: ``kind`` at op ``what`` (``location``), the way
    there from the start (``from_start`` when another start's host memory reached it first),
    and for ``device``, ``output`` and ``mismatch`` the tensor that ends there."""

    kind: FateKind
    what: str
    location: Location
    output_index: int | None
    type: str | None
    shape: tuple[int, ...] | None
    dtype: str | None
    bytes: int | None
    from_start: int | None
    path: tuple[PathStep, ...]
    path_steps_omitted: int

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "kind": self.kind,
            "at": _op_json(PathStep(self.what, self.location)),
        }
        if self.output_index is not None:
            data["output_index"] = self.output_index
        if self.type is not None:
            data["tensor"] = _tensor_json(self.type, self.shape, self.dtype, self.bytes)
        if self.from_start is not None:
            data["from_start"] = self.from_start
        data["path"] = [_op_json(step) for step in self.path]
        data["path_steps_omitted"] = self.path_steps_omitted
        return data


@dataclass(frozen=True)
class StartTrace:
    """The trace of start ``index`` of the report: its tensor, its fates (of host compute the
    first few; ``host_compute_ops`` counts them, ``first_host_compute_ops`` those its host
    memory reached before any other start's) and every op its host memory passes through."""

    index: int
    type: str
    shape: tuple[int, ...] | None
    dtype: str | None
    bytes: int | None
    #: The tensor is in host memory already (another start's host memory reaches it, or an
    #: earlier start is at the same value): XLA makes no buffer for it.
    already_in_host: bool
    fates: tuple[TraceFate, ...]
    host_compute_ops: int
    first_host_compute_ops: int
    through: tuple[PathStep, ...]

    @property
    def unused(self) -> bool:
        """Nothing uses the tensor in host memory."""
        return not self.fates


@dataclass(frozen=True)
class Totals:
    """Per step of the program (one run of the entry function)."""

    starts: int
    bytes_to_host: int
    bytes_to_device: int
    bytes_output_in_host: int
    host_compute_ops: int
    mismatches: int
    unused_starts: int


@dataclass(frozen=True)
class Line:
    """The starts at one line of source (``file`` and ``line`` ``None`` for those without)."""

    file: str | None
    line: int | None
    starts: tuple[int, ...]
    bytes_to_host: int
    bytes_to_device: int
    host_compute_ops: int


@dataclass(frozen=True, kw_only=True)
class Trace:
    """Where the host memory of every start of one module goes."""

    entry: str
    starts: tuple[Start, ...]
    traces: tuple[StartTrace, ...]
    source: str | None = None
    platform: str | None = None
    xla_release: str | None = None
    #: Why it is that release, as :attr:`hostoffload.Report.xla_release_reason` says.
    xla_release_reason: str | None = None

    @property
    def totals(self) -> Totals:
        return Totals(
            starts=len(self.starts),
            bytes_to_host=sum(_new_bytes(trace) for trace in self.traces),
            bytes_to_device=sum(_own_bytes(trace, "device") for trace in self.traces),
            bytes_output_in_host=sum(
                fate.bytes or 0 for fate in _distinct_outputs(self.traces, "output")
            ),
            host_compute_ops=sum(trace.first_host_compute_ops for trace in self.traces),
            mismatches=len(list(_distinct_outputs(self.traces, "mismatch"))),
            unused_starts=sum(trace.unused for trace in self.traces),
        )

    @property
    def lines(self) -> tuple[Line, ...]:
        """The starts grouped by the line of their location, in the order of each line's
        first start."""
        groups: dict[tuple[str | None, int | None], list[int]] = {}
        for start in range(len(self.starts)):
            location = self.starts[start].location
            groups.setdefault((location.file, location.line), []).append(start)
        return tuple(
            Line(
                file=file,
                line=line,
                starts=tuple(indices),
                bytes_to_host=sum(_new_bytes(self.traces[i]) for i in indices),
                bytes_to_device=sum(_own_bytes(self.traces[i], "device") for i in indices),
                host_compute_ops=sum(self.traces[i].first_host_compute_ops for i in indices),
            )
            for (file, line), indices in groups.items()
        )

    def to_json(self, *, indent: int | None = None) -> str:
        """The trace as ``trace.schema.json`` declares it."""
        data = header_json(
            self.source, self.platform, self.xla_release, self.xla_release_reason, self.entry
        )
        data["starts"] = [
            _start_json(start, trace) for start, trace in zip(self.starts, self.traces, strict=True)
        ]
        data["totals"] = vars(self.totals)
        data["lines"] = [{**vars(line), "starts": list(line.starts)} for line in self.lines]
        return json.dumps(data, indent=indent)

    def to_html(self) -> str:
        """A page of its own (no network) drawing each start's way to its fates, grouped by
        Python line and searchable."""
        from hostoffload.trace_page import render_page

        return render_page(json.loads(self.to_json()), title=self.source)

    def __str__(self) -> str:
        return self.to_text()

    def _repr_html_(self) -> str:
        """The trace in a notebook: :meth:`to_html`'s page in a sandboxed frame."""
        from hostoffload._html import trace_html

        return trace_html(json.loads(self.to_json()), self.source)

    def to_text(self) -> str:
        """Compiler-style text grouped by line: each line's totals, each start there with its
        tensor, then its fates, then the totals of the step."""
        out: list[str] = []
        for line in self.lines:
            where = _place(line.file, line.line, None, self.source)
            out.append(
                f"{where}{_count(len(line.starts), 'start')}: {_size(line.bytes_to_host)} to "
                f"host, {_size(line.bytes_to_device)} back to device, "
                f"{_count(line.host_compute_ops, 'host-compute op')}"
            )
            for index in line.starts:
                out.extend(self._start_text(index))
        totals = self.totals
        prefix = f"{self.source}: " if self.source is not None else ""
        out.append(
            f"{prefix}@{self.entry}: {_count(totals.starts, 'start')} per step: "
            f"{_size(totals.bytes_to_host)} to host, {_size(totals.bytes_to_device)} back to "
            f"device, {_size(totals.bytes_output_in_host)} returned in host memory, "
            f"{_count(totals.host_compute_ops, 'host-compute op')}, "
            f"{_count(totals.mismatches, 'E1200 output')}, "
            f"{_count(totals.unused_starts, 'unused start')}"
            f"{modelled_on(self.xla_release, self.xla_release_reason)}"
        )
        return "\n".join(out)

    def _start_text(self, index: int) -> list[str]:
        start = self.starts[index]
        trace = self.traces[index]
        where = _at(start.location, self.source)
        tensor = _tensor_text(trace.type, trace.dtype, trace.shape, trace.bytes)
        if trace.already_in_host:
            tensor += ", already in host memory"
        lines = [f"  {where}#{index} {start.name}: {tensor}"]
        if trace.unused:
            lines.append("      unused: nothing uses it in host memory")
        for fate in trace.fates:
            text = _FATE_TEXT[fate.kind]
            if fate.kind == "device" and fate.output_index is not None:
                # XLA's root special case: copied to host and back for the output.
                text = f"copied to host and back to device for output {fate.output_index}"
            elif fate.output_index is not None:
                text += f" (output {fate.output_index})"
            elif fate.kind == "device" and not fate.what.startswith("stablehlo.custom_call"):
                text = f"read into device memory by {fate.what}"
            elif fate.kind != "host_compute":
                text += f" by {fate.what}"
            else:
                text += f": {fate.what}"
            if fate.bytes is not None and fate.kind != "host_compute":
                text += f", {_size(fate.bytes)}"
            if fate.from_start is not None:
                text += f" (joining #{fate.from_start}'s host memory)"
            lines.append(f"    {_at(fate.location, self.source)}{text}")
        shown = sum(fate.kind == "host_compute" for fate in trace.fates)
        if trace.host_compute_ops > shown:
            more = _count(trace.host_compute_ops - shown, "more host-compute op")
            lines.append(f"      and {more}")
        return lines


def _new_bytes(trace: StartTrace) -> int:
    """The bytes a start puts in host memory: none for a tensor there already."""
    return 0 if trace.already_in_host else trace.bytes or 0


def _own_bytes(trace: StartTrace, kind: str) -> int:
    """The bytes of the fates of ``kind`` that this start's host memory reached first."""
    return sum(
        fate.bytes or 0 for fate in trace.fates if fate.kind == kind and fate.from_start is None
    )


def _distinct_outputs(traces: Iterable[StartTrace], kind: str) -> Iterable[TraceFate]:
    """The fates of ``kind`` (an output's), one per output."""
    seen: dict[int | None, TraceFate] = {}
    for trace in traces:
        for fate in trace.fates:
            if fate.kind == kind:
                seen.setdefault(fate.output_index, fate)
    return seen.values()


def _op_json(step: PathStep) -> dict[str, Any]:
    data: dict[str, Any] = {"op": step.what, "location": step.location.to_json()}
    name = _location_name(step.location)
    if name is not None:
        data["name"] = name
    return data


def _location_name(location: Location) -> str | None:
    """The name a location gives (``findLocationName`` of the analysis): that of a name
    location, ``loc("name"(...))``, or of one first in a fused location,
    ``loc(fused["name", ...])``."""
    spelling = location.mlir
    for prefix in ('loc("', 'loc(fused["'):
        if spelling.startswith(prefix):
            break
    else:
        return None
    start = len(prefix)
    end = start
    while end < len(spelling) and spelling[end] != '"':
        end += 2 if spelling[end] == "\\" else 1
    # A file location is "file":line:col, a name "name" then ( ) , or ].
    if end >= len(spelling) or spelling[end + 1 : end + 2] == ":":
        return None
    # The escapes are bytes of UTF-8, which MLIR prints one by one.
    raw = _MLIR_ESCAPE.sub(_unescape, spelling[start:end])
    try:
        return raw.encode("latin-1").decode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        return raw


# MLIR prints a string's quote, backslash and unprintable bytes as \ and two hex digits.
_MLIR_ESCAPE = re.compile(r"\\([0-9A-Fa-f]{2}|\\)")


def _unescape(match: re.Match[str]) -> str:
    escaped = match[1]
    return "\\" if escaped == "\\" else chr(int(escaped, 16))


def _tensor_json(
    type_: str, shape: Sequence[int] | None, dtype: str | None, size: int | None
) -> dict[str, Any]:
    return {
        "type": type_,
        "shape": None if shape is None else list(shape),
        "dtype": dtype,
        "bytes": size,
    }


def _start_json(start: Start, trace: StartTrace) -> dict[str, Any]:
    data: dict[str, Any] = {"index": trace.index, "kind": start.kind}
    if start.argument_index is not None:
        data["argument_index"] = start.argument_index
    data["name"] = start.name
    data["reason"] = start.reason
    data["location"] = start.location.to_json()
    if start.xla_name is not None:
        data["xla_name"] = start.xla_name
    data["tensor"] = _tensor_json(trace.type, trace.shape, trace.dtype, trace.bytes)
    if trace.already_in_host:
        data["already_in_host"] = True
    data["fates"] = [fate.to_json() for fate in trace.fates]
    data["host_compute_ops"] = trace.host_compute_ops
    data["through"] = [_op_json(step) for step in trace.through]
    return data


def _tensor_text(
    type_: str, dtype: str | None, shape: Sequence[int] | None, size: int | None
) -> str:
    what = type_
    if dtype is not None and shape is not None:
        what = f"{dtype}[{','.join(map(str, shape))}]"
    return what if size is None else f"{what}, {_size(size)}"


def _place(file: str | None, line: int | None, column: int | None, source: str | None) -> str:
    if file is None:
        return f"{source}: " if source is not None else ""
    where = f"{file}:{line}"
    return f"{where}:{column}: " if column is not None else f"{where}: "


def _at(location: Location, source: str | None) -> str:
    return _place(location.file, location.line, location.column, source)


def _size(count: int) -> str:
    """Bytes as people read them: 512 B, 4.0 KiB, 1.5 MiB."""
    if count < 1024:
        return f"{count} B"
    size = count / 1024
    for unit in ("KiB", "MiB", "GiB"):
        if size < 1024 or unit == "GiB":
            break
        size /= 1024
    return f"{size:.1f} {unit}"


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}{'' if number == 1 else 's'}"
