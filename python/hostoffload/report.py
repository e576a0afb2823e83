"""The result of a host-offload check as typed, immutable data.

:meth:`Report.from_json` reads the JSON the analysis writes (``cpp/lib/CAPI/CAPI.cpp``) and
:meth:`Report.to_json` writes the same JSON back, so reports can be stored and compared.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, cast

from hostoffload import sarif
from hostoffload.diagnostic import Diagnostic, InputError, Location, Note, render

Severity = Literal["error", "warning"]
StartKind = Literal["argument", "annotation"]
Strategy = Literal["host", "device"]


@dataclass(frozen=True)
class Start:
    """Where a tensor enters host memory: a ``pinned_host`` entry argument or an annotation."""

    kind: StartKind
    argument_index: int | None
    name: str
    reason: str
    location: Location

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Start:
        return cls(
            kind=cast(StartKind, data["kind"]),
            argument_index=data["argument_index"],
            name=data["name"],
            reason=data["reason"],
            location=Location.from_json(data["location"]),
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "argument_index": self.argument_index,
            "name": self.name,
            "reason": self.reason,
            "location": self.location.to_json(),
        }


@dataclass(frozen=True)
class PathStep:
    """One step from a start to the output: the start itself, an op, ``call @f`` or
    ``return from @f``."""

    what: str
    location: Location

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> PathStep:
        return cls(data["what"], Location.from_json(data["location"]))

    def to_json(self) -> dict[str, Any]:
        return {"what": self.what, "location": self.location.to_json()}


@dataclass(frozen=True)
class Fix:
    """A way out of E1200, as a change to the module and as the same change in JAX."""

    strategy: Strategy
    module_change: str
    jax_change: str

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Fix:
        return cls(cast(Strategy, data["strategy"]), data["module_change"], data["jax_change"])

    def to_json(self) -> dict[str, Any]:
        return {
            "strategy": self.strategy,
            "module_change": self.module_change,
            "jax_change": self.jax_change,
        }


@dataclass(frozen=True, kw_only=True)
class Finding:
    """One error or warning of the check (codes in docs/diagnostics.md).

    The fields after ``notes`` describe the offending entry output and are set for E1200 only;
    ``result_info`` and ``declared_memory_kind`` are empty when the module does not give them
    (no declared memory kind means device memory).
    """

    code: str
    severity: Severity
    message: str
    location: Location
    notes: tuple[Note, ...] = ()
    output_index: int | None = None
    tuple_index: tuple[int, ...] = ()
    result_info: str = ""
    declared_memory_kind: str = ""
    starts: tuple[Start, ...] = ()
    more_starts: bool = False
    path: tuple[PathStep, ...] = ()
    path_steps_omitted: int = 0
    fixes: tuple[Fix, ...] = ()

    @classmethod
    def from_json(cls, data: Mapping[str, Any], starts: Sequence[Start]) -> Finding:
        """Reads a finding whose ``starts`` are indices into ``starts``."""
        return cls(
            code=data["code"],
            severity=cast(Severity, data["severity"]),
            message=data["message"],
            location=Location.from_json(data["location"]),
            notes=tuple(Note.from_json(note) for note in data["notes"]),
            output_index=data["output_index"],
            tuple_index=tuple(data["tuple_index"]),
            result_info=data["result_info"],
            declared_memory_kind=data["declared_memory_kind"],
            starts=tuple(starts[index] for index in data["starts"]),
            more_starts=data["more_starts"],
            path=tuple(PathStep.from_json(step) for step in data["path"]),
            path_steps_omitted=data["path_steps_omitted"],
            fixes=tuple(Fix.from_json(fix) for fix in data["fixes"]),
        )

    def to_json(self, start_indices: Mapping[Start, int]) -> dict[str, Any]:
        """Writes the finding with its starts as their indices in ``start_indices``."""
        return {
            "code": self.code,
            "severity": self.severity,
            "message": self.message,
            "location": self.location.to_json(),
            "notes": [note.to_json() for note in self.notes],
            "output_index": self.output_index,
            "tuple_index": list(self.tuple_index),
            "result_info": self.result_info,
            "declared_memory_kind": self.declared_memory_kind,
            "starts": [start_indices[start] for start in self.starts],
            "more_starts": self.more_starts,
            "path": [step.to_json() for step in self.path],
            "path_steps_omitted": self.path_steps_omitted,
            "fixes": [fix.to_json() for fix in self.fixes],
        }

    def render(self, source: str | None = None) -> str:
        """The finding as a compiler prints it: ``file:line:col: error: E1200: ...`` and notes."""
        return render(self.severity, self.message, self.location, self.notes, source)


@dataclass(frozen=True, kw_only=True)
class Report:
    """Everything the check found in one module.

    ``source`` names the input (the path given, ``<stdin>`` in the CLI) and is ``None`` for
    text and module objects.
    """

    entry: str
    starts: tuple[Start, ...] = ()
    findings: tuple[Finding, ...] = ()
    source: str | None = None

    @property
    def errors(self) -> tuple[Finding, ...]:
        return tuple(f for f in self.findings if f.severity == "error")

    @property
    def warnings(self) -> tuple[Finding, ...]:
        return tuple(f for f in self.findings if f.severity == "warning")

    @property
    def ok(self) -> bool:
        """True when XLA would accept the program's host offloading (warnings allowed)."""
        return not self.errors

    def __str__(self) -> str:
        lines = [finding.render(self.source) for finding in self.findings]
        prefix = f"{self.source}: " if self.source is not None else ""
        lines.append(f"{prefix}@{self.entry}: {_summary(len(self.errors), len(self.warnings))}")
        return "\n".join(lines)

    @classmethod
    def from_json(cls, data: str | bytes | Mapping[str, Any]) -> Report:
        """Reads the analysis JSON (or :meth:`to_json`'s output).

        Raises :class:`InputError` with the analysis' errors for the JSON of a failed analysis,
        which has only ``errors`` (no entry function, an ambiguous one).
        """
        if not isinstance(data, Mapping):
            data = cast(Mapping[str, Any], json.loads(data))
        source = data.get("source")
        if "entry" not in data:
            raise InputError(*(Diagnostic.from_json(e) for e in data["errors"]), source=source)
        starts = tuple(Start.from_json(start) for start in data["starts"])
        return cls(
            entry=data["entry"],
            starts=starts,
            findings=tuple(Finding.from_json(finding, starts) for finding in data["findings"]),
            source=source,
        )

    def to_json(self, *, indent: int | None = None) -> str:
        """The analysis JSON of this report, plus ``source`` when it is known."""
        # The first of equal starts, as the analysis refers to it; a dict, so that many
        # findings over many starts take linear time.
        start_indices: dict[Start, int] = {}
        for index, start in enumerate(self.starts):
            start_indices.setdefault(start, index)
        data: dict[str, Any] = {
            "errors": [],
            "entry": self.entry,
            "starts": [start.to_json() for start in self.starts],
            "findings": [finding.to_json(start_indices) for finding in self.findings],
        }
        if self.source is not None:
            data["source"] = self.source
        return json.dumps(data, indent=indent)

    def to_sarif(self, *, indent: int | None = 2) -> str:
        """This report as a SARIF 2.1.0 log; see :func:`hostoffload.sarif.sarif_log`."""
        return json.dumps(sarif.sarif_log([self]), indent=indent)


def _summary(errors: int, warnings: int) -> str:
    if not errors and not warnings:
        return "no errors or warnings"
    return f"{_count(errors, 'error')}, {_count(warnings, 'warning')}"


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}{'' if number == 1 else 's'}"
