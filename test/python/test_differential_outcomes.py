"""Every outcome of XLA:TPU on the differential suite against what the check predicts
(tools/differential/outcomes.py): compiled, halted on the chip, E1200 on the same outputs,
each other error and abort. A module agrees only where the findings predict its outcome."""

from pathlib import Path

import pytest
from conftest import REPO_ROOT

from tools.differential import outcomes

SUITE = REPO_ROOT / "test" / "differential"


@pytest.mark.parametrize(
    ("verdicts", "chip"),
    [("verdicts.json", "chip.json"), ("verdicts-libtpu-0.0.52.json", None)],
)
def test_every_outcome_is_predicted_but_the_known_ones(verdicts: str, chip: str | None) -> None:
    table = outcomes.table(SUITE / verdicts, SUITE / chip if chip else None)
    disagree = {line.split(":")[0] for line in table["disagree"]}
    expected = {
        name for name, releases in outcomes.UNPREDICTED.items() if table["xla_release"] in releases
    }
    assert disagree == expected
    assert table["agree"] == table["modules"] - len(expected)
    by_outcome = table["by_outcome"]
    # Beside E1200 and clean compiles, the failures the other codes predict are counted.
    assert by_outcome["host_carry_from_device"] == {"modules": 1, "agree": 1}
    assert by_outcome["host_gather"] == {"modules": 2, "agree": 2}
    assert by_outcome["dma_host_to_host"] == {"modules": 2, "agree": 2}
    if chip:
        assert by_outcome["halt"] == {"modules": 18, "agree": 18}


def test_a_halt_counts_only_where_the_chip_ran_the_module() -> None:
    entry = {"xla": {"status": "ok", "message": ""}}
    assert outcomes.xla_outcome(entry, None) == outcomes.COMPILED
    halted = {"status": "ok", "run_error": "Core halted unexpectedly ... halted"}
    assert outcomes.xla_outcome(entry, halted) == outcomes.HALT
    codes = {"HOE105"}
    assert outcomes.agrees(outcomes.COMPILED, codes, [], [], ran=False)
    assert not outcomes.agrees(outcomes.COMPILED, codes, [], [], ran=True)
    assert outcomes.agrees(outcomes.HALT, codes, [], [], ran=True)
    assert not outcomes.agrees(outcomes.HALT, set(), [], [], ran=True)


def test_e1200_agrees_only_on_the_same_outputs() -> None:
    assert outcomes.agrees(outcomes.E1200, {"E1200"}, [0, 2], [0, 2], ran=False)
    assert not outcomes.agrees(outcomes.E1200, {"E1200"}, [0], [0, 2], ran=False)
    # An error predicted beside E1200: XLA's HostOffloader reports E1200 first.
    assert outcomes.predicted_outcomes({"E1200", "HOE107"}) == {outcomes.E1200}


def test_the_command_prints_the_table(tmp_path: Path) -> None:
    import json
    import subprocess
    import sys

    result = subprocess.run(
        [sys.executable, "-m", "tools.differential.outcomes", "--chip", "none"],
        capture_output=True,
        text=True,
        cwd=REPO_ROOT,
        timeout=600,
    )
    assert result.returncode == 0, result.stderr
    table = json.loads(result.stdout)
    assert table["xla_release"] == "2026-06"
    assert table["modules"] == sum(o["modules"] for o in table["by_outcome"].values())
