"""The diagnostic codes of the check, as the analysis declares them.

The table is the C++ one (``cpp/include/hostoffload/FindingCodes.def``), read through the
extension; docs/diagnostics.md describes the same codes for readers. The SARIF rules, the
``--ignore`` option and the GitHub annotations read it here. The codes are explained on the
page that the ``Diagnostics`` project URL of the installed package names (``[project.urls]``
in pyproject.toml), so that the address is written down once; XLA's own codes (E1200) also on
XLA's page for the code (:func:`xla_page`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from importlib.metadata import PackageNotFoundError, metadata
from typing import Literal, cast

Severity = Literal["error", "warning"]

DIAGNOSTICS_URL_LABEL = "Diagnostics"

# XLA's page on one of its error codes, as XLA's messages link it ("See ... for more details.").
XLA_ERROR_PAGE = "https://openxla.org/xla/errors/error_{number}"
# XLA's codes are "E" and four digits; ours start with "HO" and have no page there.
_XLA_CODE = re.compile(r"E(\d{4})")


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

    @property
    def help(self) -> str:
        """The description with XLA's page on the code when it is XLA's, for SARIF's
        ``help``."""
        page = xla_page(self.code)
        if page is None:
            return self.description
        return f"{self.description} XLA explains {self.code} at {page}"


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


def xla_page(code: str) -> str | None:
    """XLA's page on ``code`` when it is one of XLA's codes (``E1200``), ``None`` for ours."""
    match = _XLA_CODE.fullmatch(code)
    return XLA_ERROR_PAGE.format(number=match[1]) if match else None


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
