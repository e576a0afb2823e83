"""The diagnostic codes of the check, as the analysis declares them.

The table is the C++ one (``cpp/include/hostoffload/FindingCodes.def``), read through the
extension; docs/diagnostics.md describes the same codes for readers. The SARIF rules, the
``--ignore`` option and the GitHub annotations read it here. The codes are explained on the
page that the ``Diagnostics`` project URL of the installed package names (``[project.urls]``
in pyproject.toml), so that the address is written down once.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from importlib.metadata import PackageNotFoundError, metadata
from typing import Literal, cast

Severity = Literal["error", "warning"]

DIAGNOSTICS_URL_LABEL = "Diagnostics"


@dataclass(frozen=True)
class Code:
    """One diagnostic code: its severity, what it means in one line, and the code it replaces
    under ``strict`` (HOE101 replaces HOW101), if any."""

    code: str
    severity: Severity
    summary: str
    strict_form_of: str | None

    @property
    def description(self) -> str:
        """The summary as a paragraph, for SARIF's ``fullDescription``."""
        text = f"{self.summary}."
        if self.strict_form_of is not None:
            text += f" Reported instead of {self.strict_form_of} under strict mode."
        return f"{text} docs/diagnostics.md explains the rule, the notes and the fixes."


@cache
def codes() -> dict[str, Code]:
    """Every code, in the order of docs/diagnostics.md."""
    # Imported here: the extension loads MLIR, which importing hostoffload must not.
    from hostoffload.mlir._mlir_libs import _hostoffload

    return {
        code: Code(code, cast(Severity, severity), summary, strict_form_of)
        for code, severity, summary, strict_form_of in _hostoffload.finding_codes()
    }


@cache
def former_codes() -> dict[str, str]:
    """Our codes as they were printed before they got the ``HO`` prefix (the 12xx range is
    XLA's), each with the code printed now: ``{"W1201": "HOW101", ...}``."""
    from hostoffload.mlir._mlir_libs import _hostoffload

    return dict(_hostoffload.former_finding_codes())


def code_named(text: str) -> str:
    """The code that ``text`` names, in any case: a code, or a former code for the code it
    became (``W1201`` names ``HOW101``). Raises ``ValueError`` saying which codes there are
    for anything else."""
    code = text.strip().upper()
    if code in codes():
        return code
    if code in former_codes():
        return former_codes()[code]
    raise ValueError(
        f"unknown code {text!r}; the codes are {', '.join(codes())} (docs/diagnostics.md)"
    )


@cache
def help_uri() -> str | None:
    """The page that explains every code, or ``None`` when the package metadata has none."""
    try:
        urls = metadata("hostoffload").get_all("Project-URL") or []
    except PackageNotFoundError:
        return None
    for entry in urls:
        label, _, url = entry.partition(",")
        if label.strip() == DIAGNOSTICS_URL_LABEL:
            return url.strip()
    return None
