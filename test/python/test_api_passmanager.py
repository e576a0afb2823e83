"""The check as an MLIR pass from Python: pipelines with options, and diagnostics as objects."""

from pathlib import Path

import pytest
from conftest import CLEAN, EXAMPLE

from hostoffload.mlir import ir, passmanager

Seen = list[tuple[str, str, list[str]]]


def run_check(path: Path, options: str) -> tuple[bool, Seen]:
    """Runs host-offload-check{options} on the module at path; returns (succeeded, diagnostics)."""
    seen: Seen = []

    def handler(diagnostic: ir.Diagnostic) -> bool:
        notes = [note.message for note in diagnostic.notes]
        seen.append((str(diagnostic.severity), diagnostic.message, notes))
        return True

    with ir.Context() as context:
        context.emit_error_diagnostics = True
        context.attach_diagnostic_handler(handler)
        module = ir.Module.parse(path.read_text())
        pipeline = passmanager.PassManager.parse(f"builtin.module(host-offload-check{{{options}}})")
        try:
            pipeline.run(module.operation)
        except ir.MLIRError:
            return False, seen
    return True, seen


def test_pipeline_with_options_runs_on_a_clean_module() -> None:
    assert run_check(CLEAN, "entry=main strict=true") == (True, [])


def test_errors_warnings_and_notes_reach_the_handler() -> None:
    succeeded, seen = run_check(EXAMPLE, "entry=main strict=false")
    assert not succeeded
    assert [(severity, message.split(":")[0]) for severity, message, _ in seen] == [
        ("DiagnosticSeverity.ERROR", "E1200"),
        ("DiagnosticSeverity.ERROR", "E1200"),
        ("DiagnosticSeverity.WARNING", "HOW101"),
    ]
    notes = seen[0][2]
    assert notes[0].startswith("in host memory from the start: argument 'opt_state'")
    assert notes[1].startswith("path: argument 'opt_state' -> stablehlo.multiply")
    assert [note.split(" (")[0] for note in notes[2:]] == ["fix", "fix"]


def test_strict_makes_host_compute_an_error() -> None:
    _, seen = run_check(EXAMPLE, "entry=main strict=true")
    assert [(severity, message.split(":")[0]) for severity, message, _ in seen][-1] == (
        "DiagnosticSeverity.ERROR",
        "HOE101",
    )


def test_unknown_option_is_refused() -> None:
    with ir.Context(), pytest.raises(ValueError, match="no-such-option"):
        passmanager.PassManager.parse("builtin.module(host-offload-check{no-such-option=1})")
