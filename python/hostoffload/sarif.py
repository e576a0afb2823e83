"""Reports as SARIF 2.1.0, the format code-scanning tools and editors read.

One log, one run, one result per finding. Inputs that could not be analysed become error
notifications of the run's invocation, which then reports ``executionSuccessful: false``.
"""

from __future__ import annotations

import urllib.parse
from collections.abc import Sequence
from importlib.metadata import version
from pathlib import Path, PurePath
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from hostoffload.diagnostic import InputError, Location
    from hostoffload.report import Finding, Report

SCHEMA = (
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
)

# A long path comes as its first and last six steps (cpp/lib/HostOffloadAnalysis.cpp).
PATH_STEPS_AT_EACH_END = 6

# The short descriptions of docs/diagnostics.md; a code missing here still gets a rule.
RULE_DESCRIPTIONS = {
    "E1200": "A tensor moved to host memory reaches an entry output not declared pinned_host",
    "E1201": "A device op computes on host memory and strict mode forbids host compute",
    "W1201": "A device op computes on host memory: XLA converts it to host compute",
    "W1202": "The only output is a move to host of a device tensor: XLA copies it to host "
    "although the output is declared device",
    "W1203": "A move to host whose result is never used",
    "W1204": "An unknown or non-string memory kind or buffer placement",
    "W1205": "An annotation custom call without exactly one operand and one result",
    "W1206": "An entry argument declared unpinned_host",
    "W1207": 'mhlo.layout_mode = "auto" on an output declared pinned_host',
}


def sarif_log(reports: Sequence[Report], failures: Sequence[InputError] = ()) -> dict[str, Any]:
    """The SARIF log of ``reports``, with ``failures`` as tool execution notifications.

    Each result carries its start(s) as ``relatedLocations``, the path as a ``codeFlow``, and
    the output's details and both fixes in its property bag: SARIF's own ``fixes`` are byte
    replacements in a file, which ours (an MLIR attribute and a JAX call) are not.
    """
    codes = sorted({finding.code for report in reports for finding in report.findings})
    run: dict[str, Any] = {
        "tool": {
            "driver": {
                "name": "hostoffload",
                "version": version("hostoffload"),
                "rules": [_rule(code) for code in codes],
            }
        },
        "invocations": [
            {
                "executionSuccessful": not failures,
                "toolExecutionNotifications": [
                    _notification(diagnostic.message, diagnostic.location, failure.source)
                    for failure in failures
                    for diagnostic in failure.diagnostics
                ],
            }
        ],
        "results": [
            _result(finding, codes.index(finding.code), report.source)
            for report in reports
            for finding in report.findings
        ],
    }
    return {"$schema": SCHEMA, "version": "2.1.0", "runs": [run]}


def _rule(code: str) -> dict[str, Any]:
    rule: dict[str, Any] = {
        "id": code,
        "defaultConfiguration": {"level": "error" if code.startswith("E") else "warning"},
    }
    if code in RULE_DESCRIPTIONS:
        rule["shortDescription"] = {"text": RULE_DESCRIPTIONS[code]}
    return rule


def _result(finding: Finding, rule_index: int, source: str | None) -> dict[str, Any]:
    result: dict[str, Any] = {
        "ruleId": finding.code,
        "ruleIndex": rule_index,
        "level": finding.severity,
        "message": {"text": finding.message},
        "locations": [_location(finding.location, source)],
    }
    if source is not None:
        result["analysisTarget"] = {"uri": _uri(source)}
    if finding.starts:
        result["relatedLocations"] = [
            {"id": index, **_location(start.location, None), "message": {"text": start.reason}}
            for index, start in enumerate(finding.starts)
        ]
    if finding.path:
        steps = [
            {"location": {**_location(step.location, None), "message": {"text": step.what}}}
            for step in finding.path
        ]
        if finding.path_steps_omitted:
            # The steps left out between the first six and the last six, where they would be.
            omitted = finding.path_steps_omitted
            gap = f"({omitted} more step{'' if omitted == 1 else 's'})"
            steps.insert(PATH_STEPS_AT_EACH_END, {"location": {"message": {"text": gap}}})
        result["codeFlows"] = [{"threadFlows": [{"locations": steps}]}]
    result["properties"] = _properties(finding)
    return result


def _properties(finding: Finding) -> dict[str, Any]:
    properties: dict[str, Any] = {"notes": [note.message for note in finding.notes]}
    if finding.output_index is not None:
        properties.update(
            outputIndex=finding.output_index,
            tupleIndex=list(finding.tuple_index),
            resultInfo=finding.result_info,
            declaredMemoryKind=finding.declared_memory_kind,
            moreStarts=finding.more_starts,
        )
    if finding.fixes:
        properties["fixes"] = [
            {
                "strategy": fix.strategy,
                "moduleChange": fix.module_change,
                "jaxChange": fix.jax_change,
            }
            for fix in finding.fixes
        ]
    return properties


def _notification(message: str, location: Location, source: str | None) -> dict[str, Any]:
    return {
        "level": "error",
        "message": {"text": message},
        "locations": [_location(location, source)],
    }


def _location(location: Location, fallback: str | None) -> dict[str, Any]:
    """A SARIF location: the file position when known, else the file ``fallback`` names (code
    scanning wants a file on every result); MLIR's spelling always rides along."""
    sarif: dict[str, Any] = {"properties": {"mlirLocation": location.mlir}}
    if location.file is not None:
        physical: dict[str, Any] = {"artifactLocation": {"uri": _uri(location.file)}}
        # SARIF lines and columns start at 1; JAX columns start at 0, so a column 0 is left out.
        if location.line is not None and location.line >= 1:
            region = {"startLine": location.line}
            if location.column is not None and location.column >= 1:
                region["startColumn"] = location.column
            physical["region"] = region
        sarif["physicalLocation"] = physical
    elif fallback is not None:
        sarif["physicalLocation"] = {"artifactLocation": {"uri": _uri(fallback)}}
    return sarif


def _uri(path: str) -> str:
    if PurePath(path).is_absolute():
        return Path(path).as_uri()
    # A file name that is not UTF-8 holds surrogates (os.fsdecode): its bytes are escaped.
    return urllib.parse.quote(PurePath(path).as_posix(), errors="surrogateescape")
