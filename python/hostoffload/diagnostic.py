"""Locations, diagnostics and :class:`InputError`: what every result of hostoffload points with.

The JSON shape of each type is the one of ``report.schema.json``, so a report converts to JSON
and back without loss. A report users get writes every location in place; the analysis (and
``Report.to_json(locations="table")``) writes each distinct location once, in a table
(:func:`locations_from_json`, :class:`LocationTable`), and refers to it by index. Errors write
theirs in place.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

UNKNOWN_MLIR_LOCATION = "loc(unknown)"

#: The key of the errors that kept an input from being checked, in the JSON users get
#: (:meth:`InputError.to_json`).
INPUT_ERRORS_KEY = "input_errors"
#: The same errors' key in the JSON of the C API, which the package reads (``analysisFailure``
#: and ``parseFailure`` of ``report.schema.json``).
ANALYSIS_ERRORS_KEY = "errors"

# MLIR's spelling of a file location, alone (`loc("-":3:5)`, for what MLIR made up while
# parsing text) or inside a name, call site or fusion (`loc(fused["add.1", "f.txt":3:0])`, as
# in modules converted from HLO), where the first is the innermost frame.
_FILE_LOCATION = re.compile(r'"((?:[^"\\]|\\.)*)":(\d+):(\d+)')


@dataclass(frozen=True)
class Location:
    """Where something is: the file, line and column a user can open, and MLIR's spelling.

    For JAX programs ``file:line:column`` is the innermost Python frame, its column counted from
    1 as editors count it (JAX's spelling in ``mlir`` counts from 0); all three are ``None`` when
    the location has no file, e.g. ``loc(unknown)`` or an argument's name.
    """

    file: str | None
    line: int | None
    column: int | None
    mlir: str

    @classmethod
    def unknown(cls) -> Location:
        return cls(None, None, None, UNKNOWN_MLIR_LOCATION)

    @classmethod
    def from_mlir(cls, spelling: str, buffer_name: str | None) -> Location:
        """Reads a location MLIR printed; ``buffer_name`` replaces the file ``-`` of parsed text."""
        match = _FILE_LOCATION.search(spelling)
        if match is None:
            return cls(None, None, None, spelling)
        file = match[1]
        if file == "-" and buffer_name is not None:
            file = buffer_name
        return cls(file, int(match[2]), int(match[3]), spelling)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Location:
        return cls(data["file"], data["line"], data["column"], data["mlir"])

    def to_json(self) -> dict[str, Any]:
        return {"file": self.file, "line": self.line, "column": self.column, "mlir": self.mlir}

    @property
    def is_unknown(self) -> bool:
        return self.file is None and self.mlir == UNKNOWN_MLIR_LOCATION

    def __str__(self) -> str:
        if self.file is None:
            return self.mlir
        parts = [self.file, self.line, self.column]
        return ":".join(str(part) for part in parts if part is not None)


def locations_from_json(entries: Sequence[Mapping[str, Any]]) -> Sequence[Location]:
    """A report's table of locations, one :class:`Location` per entry, shared by everything
    that refers to it. An entry is a whole location (``mlir``), or a call site (``callee``,
    ``caller``) or a name location (``name``, ``child``) whose parts are earlier entries."""
    return _LocationEntries(entries)


class _LocationEntries(Sequence[Location]):
    """The locations of a table, each made when first asked for. Most entries are only parts
    of others (the frames of call stacks): their spelling is never needed alone, and making
    every entry's would take memory quadratic in how deep locations nest."""

    def __init__(self, entries: Sequence[Mapping[str, Any]]) -> None:
        self._entries = entries
        self._made: dict[int, Location] = {}

    def __len__(self) -> int:
        return len(self._entries)

    def __getitem__(self, index: Any) -> Any:
        # A report asks for its locations over and over, mostly made already.
        if type(index) is int:
            made = self._made.get(index)
            if made is not None:
                return made
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        index = range(len(self))[index]
        made = self._made.get(index)
        if made is None:
            entry = self._entries[index]
            made = Location(entry["file"], entry["line"], entry["column"], self._spelling(index))
            self._made[index] = made
        return made

    def _spelling(self, index: int) -> str:
        """MLIR's spelling of entry ``index``, its parts written in place (with a stack of
        its own: locations nest as deep as their maker likes)."""
        pieces: list[str] = ["loc("]
        pending: list[str | int] = [")", index]
        while pending:
            item = pending.pop()
            if isinstance(item, str):
                pieces.append(item)
                continue
            entry = self._entries[item]
            if "callee" in entry:
                pending += [")", entry["caller"], " at ", entry["callee"], "callsite("]
            elif "child" in entry:
                pending += [")", entry["child"], f"{entry['name']}("]
            else:
                pieces.append(entry["mlir"][len("loc(") : -len(")")])
        return "".join(pieces)


class LocationTable:
    """The table of locations of a report being written: each distinct location once, whole,
    and referred to by its index."""

    def __init__(self) -> None:
        self._indices: dict[Location, int] = {}

    def index(self, location: Location) -> int:
        return self._indices.setdefault(location, len(self._indices))

    def to_json(self) -> list[dict[str, Any]]:
        return [location.to_json() for location in self._indices]


@dataclass(frozen=True)
class Note:
    """A remark attached to a finding or a diagnostic."""

    message: str
    location: Location

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Note:
        return cls(data["message"], Location.from_json(data["location"]))

    def to_json(self) -> dict[str, Any]:
        return {"message": self.message, "location": self.location.to_json()}


@dataclass(frozen=True)
class Diagnostic:
    """An error that kept hostoffload from analysing its input, with its notes."""

    message: str
    location: Location
    notes: tuple[Note, ...] = ()

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Diagnostic:
        notes = tuple(Note.from_json(note) for note in data["notes"])
        return cls(data["message"], Location.from_json(data["location"]), notes)

    def to_json(self) -> dict[str, Any]:
        return {
            "message": self.message,
            "location": self.location.to_json(),
            "notes": [note.to_json() for note in self.notes],
        }


def render(
    severity: str,
    message: str,
    location: Location,
    notes: Sequence[Note],
    source: str | None,
) -> str:
    """Formats one diagnostic the way compilers do, notes indented below it."""
    lines = [f"{_prefix(location, source)}{severity}: {message}"]
    lines.extend(f"  {_prefix(note.location, source)}note: {note.message}" for note in notes)
    return "\n".join(lines)


def _prefix(location: Location, source: str | None) -> str:
    # An unknown location says nothing; the input it came from at least says where to look.
    if location.is_unknown:
        return f"{source}: " if source is not None else ""
    return f"{location}: "


class InputError(ValueError):
    """The input could not be analysed: unparseable text, a missing file, an unsupported
    object, or no entry function. ``diagnostics`` holds MLIR's located reasons."""

    def __init__(self, first: Diagnostic, *rest: Diagnostic, source: str | None = None) -> None:
        self.diagnostics: tuple[Diagnostic, ...] = (first, *rest)
        self.source = source
        super().__init__(
            "\n".join(
                render("error", d.message, d.location, d.notes, source) for d in self.diagnostics
            )
        )

    def __reduce__(self) -> tuple[Any, ...]:
        # Rebuilt from the diagnostics, not from the text, so that it crosses process pools.
        return (partial(InputError, source=self.source), self.diagnostics)

    @classmethod
    def unlocated(cls, message: str, *, source: str | None = None) -> InputError:
        return cls(Diagnostic(message, Location.unknown()), source=source)

    def to_json(self) -> dict[str, Any]:
        """The JSON of an input that could not be checked: ``input_errors`` (and ``source``)."""
        data: dict[str, Any] = {}
        if self.source is not None:
            data["source"] = self.source
        data[INPUT_ERRORS_KEY] = [d.to_json() for d in self.diagnostics]
        return data


def diagnostics_from_json(data: Mapping[str, Any]) -> tuple[Diagnostic, ...]:
    """The errors of the JSON of an input that could not be checked: :meth:`InputError.to_json`'s
    ``input_errors``, or the C API's ``errors``."""
    key = INPUT_ERRORS_KEY if INPUT_ERRORS_KEY in data else ANALYSIS_ERRORS_KEY
    return tuple(Diagnostic.from_json(error) for error in data[key])
