"""The diagnostic codes of the check: what each means, in one table.

docs/diagnostics.md describes the same codes for readers; the SARIF rules, the ``--ignore``
option and the reports' help links read this table. The codes are explained on the page that
the ``Diagnostics`` project URL of the installed package names (``[project.urls]`` in
pyproject.toml), so that the address is written down once.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from importlib.metadata import PackageNotFoundError, metadata
from typing import Literal

Severity = Literal["error", "warning"]

DIAGNOSTICS_URL_LABEL = "Diagnostics"


@dataclass(frozen=True)
class Code:
    """One diagnostic code: its default severity, a one-line summary and the full rule."""

    code: str
    severity: Severity
    summary: str
    description: str


CODES: dict[str, Code] = {
    code.code: code
    for code in (
        Code(
            "E1200",
            "error",
            "A tensor moved to host memory reaches an entry output not declared pinned_host",
            "XLA's HostOffloader rejects a program in which a tensor that is in host memory (an "
            'entry argument declared mhlo.memory_kind = "pinned_host", or the result of a move '
            "to host) reaches an output of the entry computation that is declared device memory. "
            "Declare the output pinned_host, or move the value back to device memory before "
            "returning it.",
        ),
        Code(
            "E1201",
            "error",
            "A device op computes on host memory and strict mode forbids host compute",
            "W1201 under strict mode, as XLA reports it when automatic host compute offload is "
            "disabled (xla_disable_automatic_host_compute_offload).",
        ),
        Code(
            "W1201",
            "warning",
            "A device op computes on host memory: XLA converts it to host compute",
            "An op that is not a move computes on a tensor in host memory. XLA accepts this and "
            "runs the op on the host, which is usually slower than moving the tensor to device "
            "memory first. One warning per start of host memory, at the first such op.",
        ),
        Code(
            "W1202",
            "warning",
            "The only output is a move to host of a device tensor: XLA copies it to host although "
            "the output is declared device",
            "XLA special-cases an entry computation whose root is a move to host: it copies the "
            "tensor to host memory without an error, although the output is declared device "
            "memory.",
        ),
        Code(
            "W1203",
            "warning",
            "A move to host whose result is never used",
            "A move to host memory whose result no op uses: the move has no effect.",
        ),
        Code(
            "W1204",
            "warning",
            "An unknown or non-string memory kind or buffer placement",
            "An mhlo.memory_kind (on an argument or a result) or an _xla_buffer_placement that "
            "is not a string or names no memory kind XLA knows; XLA ignores it.",
        ),
        Code(
            "W1205",
            "warning",
            "An annotation custom call without exactly one operand and one result",
            "A memory annotation custom call that does not have exactly one operand and one "
            "result; XLA fails on it with an internal error, and the check does not trace it.",
        ),
        Code(
            "W1206",
            "warning",
            "An entry argument declared unpinned_host",
            "XLA does not trace entry arguments declared unpinned_host; XLA:TPU fails later.",
        ),
        Code(
            "W1207",
            "warning",
            'mhlo.layout_mode = "auto" on an output declared pinned_host',
            'An output declared pinned_host with mhlo.layout_mode = "auto": older XLA releases '
            "fail on it with E1200.",
        ),
    )
}


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
