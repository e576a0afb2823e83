"""Reports as SARIF 2.1.0, the format code-scanning tools and editors read.

One log, one run, one result per finding. Inputs that could not be analysed become error
notifications of the run's invocation, which then reports ``executionSuccessful: false``.

Given a ``root`` (the repository, see :func:`repository_root`), files under it are named
relative to it, with the base ``SRCROOT`` that the run's ``originalUriBaseIds`` maps to the
root's own URI: code scanning (GitHub's among them) matches results to the files of the
repository that way. Other files get ``file:`` URIs when their path is absolute.
"""

from __future__ import annotations

import json
import os
import urllib.parse
from collections.abc import Sequence
from importlib.metadata import version
from pathlib import Path, PurePath
from typing import Any

from hostoffload.codes import codes, former_codes, help_uri, xla_page
from hostoffload.diagnostic import InputError, Location
from hostoffload.report import Finding, Report

SCHEMA = (
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
)

# The uriBaseId of files under the repository root.
ROOT_BASE_ID = "SRCROOT"


def repository_root(start: Path | None = None) -> Path | None:
    """The nearest directory at or above ``start`` (default: the current one) that holds
    ``.git`` (a directory, or the file of a worktree), or ``None`` outside a repository."""
    directory = Path(os.path.abspath(start if start is not None else Path.cwd()))
    for candidate in (directory, *directory.parents):
        if (candidate / ".git").exists():
            return candidate
    return None


def to_sarif(
    reports: Sequence[Report],
    failures: Sequence[InputError] = (),
    *,
    root: Path | None = None,
    indent: int | None = 2,
) -> str:
    """:func:`sarif_log` as JSON text."""
    return json.dumps(sarif_log(reports, failures, root=root), indent=indent)


def sarif_log(
    reports: Sequence[Report], failures: Sequence[InputError] = (), *, root: Path | None = None
) -> dict[str, Any]:
    """The SARIF log of ``reports``, with ``failures`` as tool execution notifications, and
    a report's :attr:`~hostoffload.report.Report.lowering_warning` as one of level warning.

    Each result carries its start(s) as ``relatedLocations``, the path as a ``codeFlow``, and
    the output's details and both fixes in its property bag: SARIF's own ``fixes`` are byte
    replacements in a file, which ours (an MLIR attribute and a JAX call) are not. ``root``
    makes the files under it repository-relative (see the module's documentation).
    """
    codes = sorted({finding.code for report in reports for finding in report.findings})
    uris = _Uris(root)
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
                    *(
                        _notification(diagnostic.message, diagnostic.location, failure.source, uris)
                        for failure in failures
                        for diagnostic in failure.diagnostics
                    ),
                    *(
                        _notification(
                            warning, Location.unknown(), report.source, uris, level="warning"
                        )
                        for report in reports
                        if (warning := report.lowering_warning) is not None
                    ),
                ],
            }
        ],
        "results": [
            _result(finding, codes.index(finding.code), report.source, uris)
            for report in reports
            for finding in report.findings
        ],
    }
    if root is not None:
        run["originalUriBaseIds"] = {ROOT_BASE_ID: {"uri": _directory_uri(root)}}
    return {"$schema": SCHEMA, "version": "2.1.0", "runs": [run]}


def _rule(code: str) -> dict[str, Any]:
    known = codes().get(code)
    severity = (
        known.severity if known else ("error" if code.startswith(("E", "HOE")) else "warning")
    )
    rule: dict[str, Any] = {"id": code, "defaultConfiguration": {"level": severity}}
    # A code scanning service matches the alerts of a rule renamed from its former id.
    former = [old for old, new in former_codes().items() if new == code]
    if former:
        rule["deprecatedIds"] = former
    if known is not None:
        rule["shortDescription"] = {"text": known.summary}
        rule["fullDescription"] = {"text": known.description}
        rule["help"] = {"text": known.help}
    # XLA's own code is explained on XLA's page; ours on the package's.
    uri = xla_page(code) or help_uri()
    if uri is not None:
        rule["helpUri"] = uri
    return rule


def _result(finding: Finding, rule_index: int, source: str | None, uris: _Uris) -> dict[str, Any]:
    result: dict[str, Any] = {
        "ruleId": finding.code,
        "ruleIndex": rule_index,
        "level": finding.severity,
        "message": {"text": finding.message},
        "locations": [_location(finding.location, source, uris)],
    }
    if source is not None:
        result["analysisTarget"] = uris.artifact(source)
    if finding.starts:
        result["relatedLocations"] = [
            {
                "id": index,
                **_location(start.location, None, uris),
                "message": {"text": start.reason},
            }
            for index, start in enumerate(finding.starts)
        ]
    if finding.path:
        steps = [
            {
                "location": {
                    **_location(step.location, None, uris),
                    "message": {"text": step.what},
                }
            }
            for step in finding.path
        ]
        if finding.path_steps_omitted:
            # A long path comes as its first and last steps; the gap goes where they part.
            from hostoffload.mlir._mlir_libs._hostoffload import PATH_STEPS_AT_EACH_END

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


def _notification(
    message: str, location: Location, source: str | None, uris: _Uris, *, level: str = "error"
) -> dict[str, Any]:
    return {
        "level": level,
        "message": {"text": message},
        "locations": [_location(location, source, uris)],
    }


def _location(location: Location, fallback: str | None, uris: _Uris) -> dict[str, Any]:
    """A SARIF location: the file position when known, else the file ``fallback`` names (code
    scanning wants a file on every result); MLIR's spelling always rides along."""
    sarif: dict[str, Any] = {"properties": {"mlirLocation": location.mlir}}
    if location.file is not None:
        physical: dict[str, Any] = {"artifactLocation": uris.artifact(location.file)}
        # SARIF lines and columns start at 1; a location without them (0) gives none.
        if location.line is not None and location.line >= 1:
            region = {"startLine": location.line}
            if location.column is not None and location.column >= 1:
                region["startColumn"] = location.column
            physical["region"] = region
        sarif["physicalLocation"] = physical
    elif fallback is not None:
        sarif["physicalLocation"] = {"artifactLocation": uris.artifact(fallback)}
    return sarif


class _Uris:
    """Artifact locations of file names, relative to ``root`` for the files under it."""

    def __init__(self, root: Path | None) -> None:
        self._root = Path(os.path.abspath(root)) if root is not None else None

    def artifact(self, path: str) -> dict[str, str]:
        if self._root is not None:
            try:
                relative = Path(os.path.abspath(path)).relative_to(self._root)
            except ValueError:
                pass
            else:
                return {"uri": _relative_uri(relative), "uriBaseId": ROOT_BASE_ID}
        if PurePath(path).is_absolute():
            return {"uri": Path(path).as_uri()}
        return {"uri": _relative_uri(PurePath(path))}


def _relative_uri(path: PurePath) -> str:
    # A file name that is not UTF-8 holds surrogates (os.fsdecode): its bytes are escaped.
    return urllib.parse.quote(path.as_posix(), errors="surrogateescape")


def _directory_uri(directory: Path) -> str:
    # A base URI ends with "/", so that relative URIs resolve inside it.
    uri = Path(os.path.abspath(directory)).as_uri()
    return uri if uri.endswith("/") else f"{uri}/"
