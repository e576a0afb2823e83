"""The result of a host-offload check as typed, immutable data.

:meth:`Report.from_json` reads the JSON the analysis writes (``cpp/lib/CAPI/CAPI.cpp``, declared
by ``report.schema.json``); :meth:`Report.to_json` writes a report as the same JSON, so reports
can be stored and compared. ``check()`` has the extension make the objects directly, by the
classes of :data:`REPORT_CLASSES` (:meth:`Report.from_objects`). The SARIF and GitHub forms
are in :mod:`hostoffload.sarif` and :mod:`hostoffload.github`, which read reports; this module
knows nothing of them.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, cast

from hostoffload import jax_fix
from hostoffload._forms import CPU_LOWERING
from hostoffload.codes import Severity, code_named, xla_page
from hostoffload.diagnostic import (
    InputError,
    Location,
    LocationTable,
    Note,
    diagnostics_from_json,
    locations_from_json,
    render,
)
from hostoffload.releases import modelled_on
from hostoffload.starts import (
    PathStep,
    ReadLocation,
    Start,
    WriteLocation,
    header_json,
)
from hostoffload.suppressions import Comments

if TYPE_CHECKING:
    from hostoffload.tracing import Trace

JAX_FIX_HEADING = "fix in JAX:"
#: Said once after the findings of a module without debug info, whose own lines stand in for
#: the Python lines; offload-opt says the same (cpp/tools/offload-opt/SourceWindows.cpp,
#: kWithoutDebugInfoHint), and a test compares them.
WITHOUT_DEBUG_INFO_HINT = (
    "this module has no debug info, so the findings point at its own lines: for Python source "
    "lines, save lowered.as_text(debug_info=True) instead of lowered.as_text(), or check the "
    "function with hostoffload.check_jax(fn, *args)"
)
Strategy = Literal["host", "device"]
#: How :meth:`Report.to_json` writes locations: each in place (``inline``), or each distinct
#: one once in a ``locations`` table that the rest refers to by index (``table``).
LocationForm = Literal["inline", "table"]
LOCATION_FORMS: tuple[LocationForm, ...] = ("inline", "table")


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
    def from_json(
        cls, data: Mapping[str, Any], starts: Sequence[Start], location: ReadLocation
    ) -> Finding:
        """Reads a finding whose ``starts`` are indices into ``starts``, and whose locations
        ``location`` reads."""
        return cls(
            code=data["code"],
            severity=cast(Severity, data["severity"]),
            message=data["message"],
            location=location(data["location"]),
            notes=tuple(
                Note(note["message"], location(note["location"])) for note in data["notes"]
            ),
            output_index=data["output_index"],
            tuple_index=tuple(data["tuple_index"]),
            result_info=data["result_info"],
            declared_memory_kind=data["declared_memory_kind"],
            starts=tuple(starts[index] for index in data["starts"]),
            more_starts=data["more_starts"],
            path=tuple(PathStep.from_json(step, location) for step in data["path"]),
            path_steps_omitted=data["path_steps_omitted"],
            fixes=tuple(Fix.from_json(fix) for fix in data["fixes"]),
        )

    def to_json(
        self, start_indices: Mapping[Start, int], location: WriteLocation
    ) -> dict[str, Any]:
        """Writes the finding with its starts as their indices in ``start_indices``, and its
        locations as ``location`` writes them."""
        return {
            "code": self.code,
            "severity": self.severity,
            "message": self.message,
            "location": location(self.location),
            "notes": [
                {"message": note.message, "location": location(note.location)}
                for note in self.notes
            ],
            "output_index": self.output_index,
            "tuple_index": list(self.tuple_index),
            "result_info": self.result_info,
            "declared_memory_kind": self.declared_memory_kind,
            "starts": [start_indices[start] for start in self.starts],
            "more_starts": self.more_starts,
            "path": [step.to_json(location) for step in self.path],
            "path_steps_omitted": self.path_steps_omitted,
            "fixes": [fix.to_json() for fix in self.fixes],
        }

    def render(self, source: str | None = None, *, colour: bool = False) -> str:
        """The finding as a compiler prints it: ``file:line:col: error: E1200: ...`` and notes,
        with ANSI colours as clang uses them when ``colour`` is set."""
        if not colour:
            return render(self.severity, self.message, self.location, self.notes, source)
        lines = [_painted(self.severity, self.message, self.location, source, bold=True)]
        lines.extend(
            f"  {_painted('note', note.message, note.location, source, bold=False)}"
            for note in self.notes
        )
        return "\n".join(lines)


@dataclass(frozen=True, kw_only=True)
class Report:
    """Everything the check found in one module.

    ``source`` names the input (the path given, ``<stdin>`` in the CLI) and is ``None`` for
    text and module objects. ``platform`` is the platform the checked lowering was made for
    (``"tpu"``, ``"cuda"``) when hostoffload lowered the program itself, or the platform a
    file of XLA's dump was compiled for (``"cpu"`` among them), ``None`` otherwise.
    """

    entry: str
    starts: tuple[Start, ...] = ()
    findings: tuple[Finding, ...] = ()
    source: str | None = None
    platform: str | None = None
    #: Every output of the entry function, in order, when the report was made from a module
    #: and an output fails with E1200 (:meth:`jax_fix` reads them); else ``None``.
    outputs: tuple[jax_fix.Output, ...] | None = None
    #: The XLA release whose behaviour the findings model (:mod:`hostoffload.releases`);
    #: ``None`` in a report read from JSON written before releases were told apart.
    xla_release: str | None = None
    #: Why it is that release, in words: ``"libtpu 0.0.42.1, installed here"``,
    #: ``"--xla-release 2026-06"`` (:meth:`hostoffload.releases.ReleaseRequest.chosen`);
    #: ``None`` where unknown (a report read from JSON that does not say).
    xla_release_reason: str | None = None
    #: Where every start's host memory goes, when the check was asked for it
    #: (``check(..., trace=True)``); else ``None``. :meth:`to_json` leaves it out.
    trace: Trace | None = None
    #: The platform the program is compiled for, whose XLA the findings model: ``"tpu"``
    #: (XLA:TPU) or ``"cuda"`` (XLA:GPU).
    compiled_for: str = "tpu"

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

    @property
    def lowering_warning(self) -> str | None:
        """What the check of a lowering for a platform whose XLA does not offload (a dump of
        XLA:CPU) is worth, and what to check instead; None for any other."""
        return CPU_LOWERING if self.platform == "cpu" else None

    def __str__(self) -> str:
        return self.to_text()

    def _repr_html_(self) -> str:
        return self.to_html()

    def to_html(self, *, outputs: Sequence[str] | None = None, heading: str | None = None) -> str:
        """The report as HTML, as a notebook (Jupyter, Colab) shows it: its summary line, each
        finding at its location (a cell's as IPython names it, ``Cell In[3], line 5``) with
        its source window, notes, both fixes and the pages on its code, collapsed to its
        first line above 20 findings, then the fix in JAX (of ``outputs``, see
        :meth:`jax_fix`) and the trace if it has one; ``heading`` above it all."""
        # Imported here: only a notebook shows HTML.
        from hostoffload._html import Summary, report_html

        prefix = f"{self.source}: " if self.source is not None else ""
        remarks = [self.debug_info_hint] if self.debug_info_hint is not None else []
        summary = Summary(
            line=f"{prefix}{self.summary}",
            ok=self.ok,
            warning=self.lowering_warning,
            remarks=remarks,
            jax_fix=self.jax_fix(outputs),
        )
        trace = self.trace._repr_html_() if self.trace is not None else None
        return report_html(json.loads(self.to_json()), summary, heading=heading, trace=trace)

    def to_text(
        self,
        *,
        colour: bool = False,
        summary: bool = True,
        jax_fix: bool = False,
        outputs: Sequence[str] | None = None,
    ) -> str:
        """The compiler-style text (``str(report)``): the findings, then a ``source: @main: 2
        errors, 1 warning (modelled on XLA 2026-06: libtpu 0.0.42.1, installed here)`` line, a note
        on how to get Python lines if the module has no debug info
        (:data:`WITHOUT_DEBUG_INFO_HINT`), and a line with XLA's page on E1200 if found, unless
        ``summary`` is false, then :meth:`jax_fix` (of ``outputs``) indented if ``jax_fix`` is
        set and an output fails; in colour if asked."""
        lines = [finding.render(self.source, colour=colour) for finding in self.findings]
        if self.lowering_warning is not None:
            # First: it says what the findings are worth.
            unknown = Location.unknown()
            lines.insert(
                0,
                _painted("warning", self.lowering_warning, unknown, self.source, bold=True)
                if colour
                else render("warning", self.lowering_warning, unknown, (), self.source),
            )
        prefix = f"{self.source}: " if self.source is not None else ""
        if summary:
            lines.append(f"{prefix}{self.summary}")
            if self.debug_info_hint is not None:
                lines.append(f"{prefix}note: {self.debug_info_hint}")
            lines.extend(
                f"{prefix}XLA's page on {code}: {page}" for code, page in _xla_pages(self.findings)
            )
        fix = self.jax_fix(outputs) if jax_fix else None
        if fix is not None:
            lines.append(f"{prefix}{JAX_FIX_HEADING}")
            lines.extend(f"    {line}" for line in fix.splitlines())
        return "\n".join(lines)

    @property
    def summary(self) -> str:
        """The summary line without the source: ``@main (TPU lowering): 2 errors, 0 warnings
        (modelled on XLA 2026-09: libtpu 0.0.49 to 0.0.52)``."""
        counts = _summary(len(self.errors), len(self.warnings))
        lowering = f" ({self.platform.upper()} lowering)" if self.platform else ""
        return f"@{self.entry}{lowering}: {counts}{self._modelled()}"

    @property
    def debug_info_hint(self) -> str | None:
        """:data:`WITHOUT_DEBUG_INFO_HINT` for findings of a module without debug info, which
        point at its own lines; ``None`` otherwise."""
        return WITHOUT_DEBUG_INFO_HINT if _without_debug_info(self.findings) else None

    def _modelled(self) -> str:
        """Which compiler and XLA the findings model and why, for the summary line; nothing
        where unknown."""
        return modelled_on(self.xla_release, self.xla_release_reason, self.compiled_for)

    def ignoring(self, codes: Iterable[str]) -> Report:
        """This report without the findings whose code is in ``codes`` (a former code such as
        ``W1201`` names the code it became); ``ValueError`` for a code there is not."""
        ignored = frozenset(code_named(code) for code in codes)
        kept = tuple(f for f in self.findings if f.code not in ignored)
        return dataclasses.replace(self, findings=kept)

    def without_suppressed(self) -> Report:
        """This report without the findings that a suppression comment on their line of
        Python source leaves out (``# hostoffload: ignore[HOW101]``, see
        :mod:`hostoffload.suppressions`); each source file is read once."""
        comments = Comments()
        kept = tuple(
            f
            for f in self.findings
            if not comments.suppresses(f.location.file, f.location.line, f.code)
        )
        return self if len(kept) == len(self.findings) else dataclasses.replace(self, findings=kept)

    def with_warnings_as_errors(self) -> Report:
        """This report with every warning turned into an error (``--warnings-as-errors``)."""
        findings = tuple(dataclasses.replace(f, severity="error") for f in self.findings)
        return dataclasses.replace(self, findings=findings)

    def jax_fix(self, outputs: Sequence[str] | None = None) -> str | None:
        """The fix of every E1200 as Python text (:func:`hostoffload.jax_fix.plan`); ``None``
        when no output fails. First, each value in host memory that device ops compute on is
        moved to device memory where it is first used (the line, and ``x =
        jax.device_put(x, jax.memory.Space.Device)``); then the outputs that host memory only
        passes through to are kept there by one ``out_shardings=`` pytree for ``jax.jit``.

        ``outputs`` are the ``jax.result_info`` paths of all the function's outputs in order
        (``result[0]``, ``result['a'][1]``, ...), for a report without :attr:`outputs`; without
        either, the pytree holds the failing outputs only, and a comment says to add ``None``
        for any other.
        """
        plan = jax_fix.plan(self.errors, self._outputs_named(outputs))
        return None if plan is None else plan.text()

    def _outputs_named(self, paths: Sequence[str] | None) -> tuple[jax_fix.Output, ...] | None:
        """:attr:`outputs`, or the outputs of ``paths`` with their declared kinds if known."""
        if paths is None:
            return self.outputs
        known = self.outputs if self.outputs and len(self.outputs) == len(paths) else None
        kinds = [output.memory_kind for output in known] if known else [""] * len(paths)
        return tuple(jax_fix.Output(path, kind) for path, kind in zip(paths, kinds, strict=True))

    @classmethod
    def from_json(cls, data: str | bytes | Mapping[str, Any]) -> Report:
        """Reads :meth:`to_json`'s output, its locations in place or in a table, or the
        analysis JSON of the C API (``report.schema.json``).

        Raises :class:`InputError` with the errors of the JSON of an input that could not be
        checked (:meth:`InputError.to_json`'s ``input_errors``, or the C API's ``errors``).
        """
        if not isinstance(data, Mapping):
            data = cast(Mapping[str, Any], json.loads(data))
        source = data.get("source")
        _raise_unless_analysed(data, source)
        location: ReadLocation = Location.from_json
        if "locations" in data:
            location = locations_from_json(data["locations"]).__getitem__
        starts = tuple(Start.from_json(start, location) for start in data["starts"])
        return cls(
            entry=data["entry"],
            starts=starts,
            findings=tuple(
                Finding.from_json(finding, starts, location) for finding in data["findings"]
            ),
            source=source,
            platform=data.get("platform"),
            outputs=_outputs_from_json(data.get("outputs")),
            xla_release=data.get("xla_release"),
            xla_release_reason=data.get("xla_release_reason"),
            compiled_for=data.get("compiled_for", "tpu"),
        )

    @classmethod
    def from_objects(cls, data: Mapping[str, Any], source: str | None) -> Report:
        """Reads what ``_hostoffload.analyze_data`` makes of the analysis with
        :data:`REPORT_CLASSES`: the JSON's objects, its starts and findings already made.

        Raises :class:`InputError` as :meth:`from_json` does.
        """
        _raise_unless_analysed(data, source)
        return cls(
            entry=data["entry"],
            starts=data["starts"],
            findings=data["findings"],
            source=source,
            xla_release=data["xla_release"],
        )

    def to_json(self, *, indent: int | None = None, locations: LocationForm = "inline") -> str:
        """This report as JSON (``report.schema.json``): ``source`` and ``platform`` when
        known, ``entry``, ``findings``, ``starts`` (which findings refer to by index) and
        ``outputs`` when known. Every location is written in place (``{"file", "line",
        "column", "mlir"}``), or with ``locations="table"`` each distinct one once, in a
        ``locations`` table that the rest refers to by index (smaller for models whose
        locations are long call stacks)."""
        if locations not in LOCATION_FORMS:
            raise ValueError(f"locations must be one of {LOCATION_FORMS}, not {locations!r}")
        # The first of equal starts, as the analysis refers to it; a dict, so that many
        # findings over many starts take linear time.
        start_indices: dict[Start, int] = {}
        for index, start in enumerate(self.starts):
            start_indices.setdefault(start, index)
        table = LocationTable() if locations == "table" else None
        location: WriteLocation = Location.to_json if table is None else table.index
        data = header_json(
            self.source, self.platform, self.xla_release, self.xla_release_reason, self.entry
        )
        if self.compiled_for != "tpu":
            data["compiled_for"] = self.compiled_for
        data["findings"] = [finding.to_json(start_indices, location) for finding in self.findings]
        data["starts"] = [start.to_json(location) for start in self.starts]
        if self.outputs is not None:
            data["outputs"] = [output.to_json() for output in self.outputs]
        if table is not None:
            data["locations"] = table.to_json()
        return json.dumps(data, indent=indent)


#: What makes the objects of each list of the analysis JSON, for ``_hostoffload.analyze_data``:
#: the members of each object are the fields of its class.
REPORT_CLASSES: dict[str, Callable[..., Any]] = {
    "starts": Start,
    "findings": Finding,
    "notes": Note,
    "path": PathStep,
    "fixes": Fix,
}


def _outputs_from_json(data: Sequence[Any] | None) -> tuple[jax_fix.Output, ...] | None:
    return None if data is None else tuple(jax_fix.Output.from_json(output) for output in data)


def _raise_unless_analysed(data: Mapping[str, Any], source: str | None) -> None:
    """Raises :class:`InputError` with the errors of the JSON of an input that could not be
    checked, which has no ``entry`` (no entry function, an ambiguous one)."""
    if "entry" not in data:
        raise InputError(*diagnostics_from_json(data), source=source)


# ANSI styles as clang prints them: the location bold, the severity in its colour.
_BOLD = "\033[1m"
_RESET = "\033[0m"
_SEVERITY_STYLES = {
    "error": "\033[1;31m",
    "warning": "\033[1;35m",
    "note": "\033[1;36m",
}


def _painted(
    severity: str, message: str, location: Location, source: str | None, *, bold: bool
) -> str:
    # The plain line is the prefix, then "severity: message": split it there, so that the
    # coloured text says exactly what the plain text says.
    plain = render(severity, message, location, (), source)
    prefix = plain[: len(plain) - len(f"{severity}: {message}")]
    styled_prefix = f"{_BOLD}{prefix}{_RESET}" if prefix else ""
    styled_message = f"{_BOLD}{message}{_RESET}" if bold else message
    return f"{styled_prefix}{_SEVERITY_STYLES[severity]}{severity}:{_RESET} {styled_message}"


def _without_debug_info(findings: Sequence[Finding]) -> bool:
    """Whether ``findings`` come from a module without debug info: there are some, and none of
    them or their notes is at a line of a Python file (as offload-opt decides too)."""
    locations = (
        location
        for finding in findings
        for location in (finding.location, *(note.location for note in finding.notes))
    )
    return bool(findings) and not any(
        location.file is not None and location.file.endswith(".py") for location in locations
    )


def _xla_pages(findings: Iterable[Finding]) -> list[tuple[str, str]]:
    """XLA's page on each of XLA's codes among ``findings`` (E1200), in order, once each."""
    codes = dict.fromkeys(finding.code for finding in findings)
    return [(code, page) for code in codes if (page := xla_page(code)) is not None]


def _summary(errors: int, warnings: int) -> str:
    if not errors and not warnings:
        return "no errors or warnings"
    return f"{_count(errors, 'error')}, {_count(warnings, 'warning')}"


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}{'' if number == 1 else 's'}"
