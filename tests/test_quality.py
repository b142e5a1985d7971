"""ruff on the whole tree, mypy on every package (as pyproject.toml configures it) and
mypy --strict on engine/ are part of the test suite."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def run(*cmd: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=300)


@pytest.mark.skipif(shutil.which("ruff") is None, reason="ruff is not installed (extra 'dev')")
def test_ruff() -> None:
    result = run("ruff", "check", ".")
    assert result.returncode == 0, result.stdout + result.stderr


def test_mypy_strict_on_engine() -> None:
    pytest.importorskip("mypy", reason="mypy is not installed (extra 'dev')")
    result = run(sys.executable, "-m", "mypy", "--strict", "engine")
    assert result.returncode == 0, result.stdout + result.stderr


def test_mypy_on_every_package() -> None:
    pytest.importorskip("mypy", reason="mypy is not installed (extra 'dev')")
    result = run(sys.executable, "-m", "mypy")  # the files and flags of pyproject.toml
    assert result.returncode == 0, result.stdout + result.stderr
