"""The E1200 check on the corpus of real JAX lowerings in ``test/corpus``.

``test/corpus/generate.py`` lowers each program for TPU and records in ``expected.json`` the
entry outputs XLA rejects with E1200; every module must give exactly those errors.
"""

import json
import re
import subprocess
from pathlib import Path

import pytest

from hostoffload.mlir import ir, passmanager

REPO_ROOT = Path(__file__).resolve().parents[2]
CORPUS_DIR = REPO_ROOT / "test" / "corpus"
EXPECTED: dict[str, dict[str, object]] = json.loads((CORPUS_DIR / "expected.json").read_text())

E1200_OUTPUT = re.compile(r"error: E1200: .*?; output (\d+)")


def check(name: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["offload-opt", str(CORPUS_DIR / f"{name}.mlir"), "--host-offload-check"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=REPO_ROOT,
    )


def test_corpus_matches_expected_json() -> None:
    listed = set(EXPECTED)
    on_disk = {path.stem for path in CORPUS_DIR.glob("*.mlir")}
    assert listed, "expected.json lists no program"
    assert sorted(listed - on_disk) == [], "listed in expected.json but not generated"
    assert sorted(on_disk - listed) == [], "stray .mlir not listed in expected.json"
    for name, entry in EXPECTED.items():
        outputs = entry["e1200_outputs"]
        assert isinstance(outputs, list), name
        assert outputs == sorted(set(outputs)), name
        assert isinstance(entry["description"], str) and entry["description"], name


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_corpus_program(name: str) -> None:
    expected = EXPECTED[name]["e1200_outputs"]
    assert isinstance(expected, list)
    result = check(name)
    assert "Stack dump" not in result.stderr, result.stderr
    assert "PLEASE submit a bug report" not in result.stderr, result.stderr
    assert result.returncode == (1 if expected else 0), result.stderr
    found = {int(index) for index in E1200_OUTPUT.findall(result.stderr)}
    assert found == set(expected), result.stderr


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_check_never_changes_the_module(name: str) -> None:
    with ir.Context():
        module = ir.Module.parse((CORPUS_DIR / f"{name}.mlir").read_text())
        before = module.operation.get_asm(print_generic_op_form=True, enable_debug_info=True)
        pipeline = passmanager.PassManager.parse("builtin.module(host-offload-check)")
        try:
            pipeline.run(module.operation)
        except ir.MLIRError:
            assert EXPECTED[name]["e1200_outputs"], "the check failed on a clean module"
        after = module.operation.get_asm(print_generic_op_form=True, enable_debug_info=True)
    assert after == before
