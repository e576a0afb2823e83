"""Where tensors enter host memory, and the steps of their way: the parts a report's findings
and a trace share (:mod:`hostoffload.report`, :mod:`hostoffload.tracing`)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal, cast

from hostoffload.diagnostic import Location

StartKind = Literal["argument", "annotation"]
#: A location as the JSON holds it (an object, or an index into the table), read or written.
ReadLocation = Callable[[Any], Location]
WriteLocation = Callable[[Location], Any]


@dataclass(frozen=True)
class Start:
    """Where a tensor enters host memory: a ``pinned_host`` entry argument or an annotation."""

    kind: StartKind
    argument_index: int | None
    name: str
    reason: str
    location: Location
    #: In input converted from HLO, the instruction XLA's E1200 names for this start.
    xla_name: str | None = None

    @classmethod
    def from_json(cls, data: Mapping[str, Any], location: ReadLocation) -> Start:
        """Reads a start whose location ``location`` reads."""
        return cls(
            kind=cast(StartKind, data["kind"]),
            argument_index=data["argument_index"],
            name=data["name"],
            reason=data["reason"],
            location=location(data["location"]),
            xla_name=data.get("xla_name"),
        )

    def to_json(self, location: WriteLocation) -> dict[str, Any]:
        data = {
            "kind": self.kind,
            "argument_index": self.argument_index,
            "name": self.name,
            "reason": self.reason,
            "location": location(self.location),
        }
        if self.xla_name is not None:
            data["xla_name"] = self.xla_name
        return data


@dataclass(frozen=True)
class PathStep:
    """One step from a start to the output: the start itself, an op, ``call @f`` or
    ``return from @f``."""

    what: str
    location: Location

    @classmethod
    def from_json(cls, data: Mapping[str, Any], location: ReadLocation) -> PathStep:
        return cls(data["what"], location(data["location"]))

    def to_json(self, location: WriteLocation) -> dict[str, Any]:
        return {"what": self.what, "location": location(self.location)}


def header_json(
    source: str | None,
    platform: str | None,
    xla_release: str | None,
    xla_release_reason: str | None,
    entry: str,
) -> dict[str, Any]:
    """What a report's or a trace's JSON begins with: the members known of the module."""
    data: dict[str, Any] = {}
    if source is not None:
        data["source"] = source
    if platform is not None:
        data["platform"] = platform
    if xla_release is not None:
        data["xla_release"] = xla_release
    if xla_release_reason is not None:
        data["xla_release_reason"] = xla_release_reason
    data["entry"] = entry
    return data
