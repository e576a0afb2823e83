"""Every Python example of docs/python-api.md runs as it is, from the repository root."""

import re
import subprocess
import sys

import pytest
from conftest import REPO_ROOT

DOC = REPO_ROOT / "docs" / "python-api.md"
EXAMPLES = re.findall(r"```python\n(.*?)```", DOC.read_text(), flags=re.DOTALL)


def test_the_doc_has_examples() -> None:
    assert len(EXAMPLES) >= 4


@pytest.mark.parametrize("code", EXAMPLES, ids=[f"example{i}" for i in range(len(EXAMPLES))])
def test_example_runs(code: str) -> None:
    if "import jax" in code:
        pytest.importorskip("jax")
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=300, cwd=REPO_ROOT
    )
    assert result.returncode == 0, result.stderr
