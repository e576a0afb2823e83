"""Every outcome of XLA:TPU on the differential suite, and whether the check predicted it.

A module's outcome is what XLA:TPU did with it: compiled (and, where the chip ran it, ran or
halted the core), failed with E1200 on some outputs, failed with another error, or aborted
libtpu's process. The check predicts an outcome from its findings: E1200 where it reports
one (XLA's HostOffloader runs before the passes that fail otherwise, unless it fails itself
while it traces), else the failure its other codes name, else a clean compile; a warning
that says XLA:TPU fails only on some shapes or inputs (HOW108, HOW109) admits both. A module
agrees when the outcome is one the findings predict, and, for E1200, on the same outputs.
Run from the repository root::

    python -m tools.differential.outcomes [--verdicts verdicts.json]
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tools.differential import layout

COMPILED = "compiled"
E1200 = "e1200"
HALT = "halt"
ABORT = "abort"
ERROR = "error"


@dataclass(frozen=True)
class Failure:
    """A failure of XLA:TPU other than E1200: what its message holds, the codes that predict
    it (an error: it always fails so; a warning: it may), and whether it comes before E1200
    (in XLA's HostOffloader itself, while it traces host memory)."""

    name: str
    marker: str
    errors: frozenset[str] = frozenset()
    warnings: frozenset[str] = frozenset()
    before_e1200: bool = False


# The failures the check knows, in the order a module's outcome is matched against them.
FAILURES = (
    Failure("dma_hbm_to_hbm", "Unimplemented DMA from hbm to hbm", frozenset({"HOE104"})),
    Failure("dma_host_to_host", "Unimplemented DMA from host to host", frozenset({"HOE108"})),
    Failure("host_gather", "Fusion must have backend config", frozenset({"HOE107"})),
    Failure(
        "async_slice_in_two_dimensions",
        "Async slice only supports slicing in 1 dimension",
        frozenset({"HOE106"}),
    ),
    Failure(
        "host_write_into_device_argument", "is not in host memory space", frozenset({"HOE102"})
    ),
    Failure(
        "strict_host_compute",
        "Automatic host compute offloading is disabled",
        frozenset({"HOE101"}),
    ),
    Failure(
        "host_sort_aborts",
        "Expected shape index to be non-empty",
        frozenset({"HOE110"}),
        before_e1200=True,
    ),
    Failure(
        "host_carry_from_device",
        "Expect host execute operand subshape to be the same as the output subshape",
        frozenset({"HOE109"}),
    ),
    Failure(
        "unpinned_host_argument",
        "Shape mismatch between parameter number 0",
        warnings=frozenset({"HOW106"}),
    ),
    Failure("copy_to_unpinned_host_aborts", "CopyArrayExplicit", warnings=frozenset({"HOW108"})),
    Failure(
        HALT,
        "Async slices in the lane dimension must start on chunk boundaries",
        frozenset({"HOE105"}),
        frozenset({"HOW109"}),
    ),
)

# The modules whose outcome the check does not predict yet, with the XLA releases where it
# fails so, and why (docs/differential.md, "Outcomes").
UNPREDICTED = {
    # The gradient of a scan's remat offload with its weights in host memory: both fixes fail
    # in XLA:TPU's verifier after optimization (an async-start's shape, a fusion's operand).
    "remat_offload_scan_grad_weights_on_host__fix_device": ("2026-06", "2026-09"),
    "remat_offload_scan_grad_weights_on_host__fix_host": ("2026-06", "2026-09"),
}


def xla_outcome(entry: dict[str, Any], chip: dict[str, Any] | None) -> str | None:
    """What XLA:TPU did with the module recorded as ``entry`` (and, where the chip ran it, as
    ``chip``): a failure's name, ``compiled``, ``e1200``, ``error``/``abort`` for a failure the
    check does not know, or None where there is no verdict (a time-out)."""
    xla = entry["xla"]
    status = xla["status"]
    if status == "timeout":
        return None
    if status == "e1200":
        return E1200
    if status == "ok":
        run_error = (chip or {}).get("run_error", "")
        return HALT if "halted" in run_error else COMPILED
    for failure in FAILURES:
        if failure.marker in xla["message"]:
            return failure.name
    return ABORT if status == "crash" else ERROR


def predicted_outcomes(codes: set[str]) -> set[str]:
    """The outcomes that findings of ``codes`` predict."""
    for failure in FAILURES:
        if failure.before_e1200 and codes & failure.errors:
            return {failure.name}
    if "E1200" in codes:
        return {E1200}
    for failure in FAILURES:
        if codes & failure.errors:
            return {failure.name}
    predicted = {COMPILED}
    for failure in FAILURES:
        if codes & failure.warnings:
            predicted.add(failure.name)
    return predicted


def agrees(
    outcome: str,
    codes: set[str],
    xla_outputs: list[int] | None,
    our_outputs: list[int],
    ran: bool,
) -> bool:
    """Whether the findings (``codes``, and the outputs of their E1200s) predict ``outcome``;
    a module that was not ``ran`` on a chip, compiled, agrees with a halt predicted when it
    runs."""
    predicted = predicted_outcomes(codes)
    if not ran and HALT in predicted:
        predicted.add(COMPILED)
    if outcome not in predicted:
        return False
    return outcome != E1200 or xla_outputs == our_outputs


def ran_on_chip(chip: dict[str, Any] | None) -> bool:
    """Whether the chip ran the module (it compiles others only)."""
    return chip is not None and ("values_equal" in chip or "run_error" in chip)


def findings_of(text: str, xla_release: str) -> tuple[set[str], list[int]]:
    """The codes of the check's findings on ``text`` and the outputs of its E1200s."""
    import hostoffload

    report = hostoffload.check(text, xla_release=xla_release)
    outputs = sorted({f.output_index for f in report.findings if f.code == "E1200"})
    return {f.code for f in report.findings}, [o for o in outputs if o is not None]


def table(verdicts: Path, chip: Path | None) -> dict[str, Any]:
    """Per outcome of XLA:TPU, how many modules had it and how many the check predicted; the
    modules where it did not."""
    from hostoffload.releases import xla_release_of_platform_version

    document = json.loads(verdicts.read_text())
    release = xla_release_of_platform_version(document["generated"]["platform_version"])
    runs = json.loads(chip.read_text())["modules"] if chip else {}
    counts: Counter[str] = Counter()
    agreeing: Counter[str] = Counter()
    disagree: list[str] = []
    for name, entry in document["modules"].items():
        outcome = xla_outcome(entry, runs.get(name))
        if outcome is None:
            continue
        text = layout.module_path(verdicts.parent, name, entry).read_text()
        codes, outputs = findings_of(text, release)
        counts[outcome] += 1
        ran = ran_on_chip(runs.get(name))
        if agrees(outcome, codes, entry["xla"].get("e1200_outputs"), outputs, ran):
            agreeing[outcome] += 1
        else:
            disagree.append(f"{name}: XLA {outcome}, predicted {sorted(predicted_outcomes(codes))}")
    return {
        "xla_release": release,
        "modules": sum(counts.values()),
        "agree": sum(agreeing.values()),
        "by_outcome": {o: {"modules": counts[o], "agree": agreeing[o]} for o in sorted(counts)},
        "disagree": disagree,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--verdicts", type=Path, default=layout.SUITE / "verdicts.json")
    parser.add_argument(
        "--chip",
        type=Path,
        default=layout.SUITE / "chip.json",
        help="the chip's runs (recorded with the libtpu of --verdicts); 'none' to leave out",
    )
    args = parser.parse_args()
    chip = None if str(args.chip) == "none" else args.chip
    print(json.dumps(table(args.verdicts, chip), indent=1))


if __name__ == "__main__":
    main()
