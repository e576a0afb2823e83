"""Shared fixtures for the Python test suite."""

from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def examples_dir() -> Path:
    return REPO_ROOT / "examples"
