"""Reports as GitHub Actions workflow commands, which GitHub shows as annotations on the files.

One ``::error`` or ``::warning`` line per finding, ``::error file=F,line=L,col=C,title=T::M``,
with the notes in the message (after a newline, which the command escapes). Files under the
repository root are named relative to it, as GitHub expects; an input that could not be
checked becomes an ``::error`` at that input, and a dump of XLA:CPU a ``::warning`` there.
"""

from __future__ import annotations

import os
from pathlib import Path

from hostoffload.codes import codes
from hostoffload.diagnostic import InputError, Location
from hostoffload.report import Finding, Report


def annotations(report: Report, root: Path | None) -> list[str]:
    """One workflow command per finding of ``report``, after a ``::warning`` at its input with
    its :attr:`~hostoffload.report.Report.lowering_warning`, if it has one."""
    found = [_finding(finding, report.source, root) for finding in report.findings]
    if report.lowering_warning is None:
        return found
    where = _properties(Location.unknown(), report.source, root, None)
    return [_command("warning", where, report.lowering_warning), *found]


def failure_annotations(failure: InputError, root: Path | None) -> list[str]:
    """One ``::error`` per diagnostic of an input that could not be checked."""
    return [
        _command("error", _properties(d.location, failure.source, root, None), d.message)
        for d in failure.diagnostics
    ]


def _finding(finding: Finding, source: str | None, root: Path | None) -> str:
    known = codes().get(finding.code)
    title = f"{finding.code}: {known.summary}" if known else finding.code
    notes = [f"note: {note.message}" for note in finding.notes]
    message = "\n".join([finding.message, *notes])
    properties = _properties(finding.location, source, root, title)
    return _command(finding.severity, properties, message)


def _properties(
    location: Location, source: str | None, root: Path | None, title: str | None
) -> dict[str, str]:
    properties: dict[str, str] = {}
    file = location.file if location.file is not None else source
    if file is not None:
        properties["file"] = _repository_path(file, root)
        if location.file is not None and location.line is not None and location.line >= 1:
            properties["line"] = str(location.line)
            if location.column is not None and location.column >= 1:
                properties["col"] = str(location.column)
    if title is not None:
        properties["title"] = title
    return properties


def _repository_path(file: str, root: Path | None) -> str:
    if root is None:
        return file
    try:
        return Path(os.path.abspath(file)).relative_to(os.path.abspath(root)).as_posix()
    except ValueError:
        return file


def _command(name: str, properties: dict[str, str], message: str) -> str:
    fields = ",".join(f"{key}={_escape_property(value)}" for key, value in properties.items())
    head = f"::{name} {fields}" if fields else f"::{name}"
    return f"{head}::{_escape_data(message)}"


def _escape_data(text: str) -> str:
    # The escapes of GitHub's own toolkit (@actions/core, command.ts).
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")
