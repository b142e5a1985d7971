"""Fixtures for the vision tests: the shared real-dice set (skip with a reason when absent)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def real_dice_dir() -> Path:
    env = os.environ.get("DICETABLE_SHARED")
    shared = Path(env) if env else ROOT.parent / "shared"
    return shared / "data" / "real-dice"


@pytest.fixture(scope="session")
def real_dice() -> Path:
    path = real_dice_dir()
    if not (path / "manifest.csv").is_file():
        pytest.skip(f"real-dice photos not found at {path} (set DICETABLE_SHARED to the "
                    "shared data folder)")
    return path


@pytest.fixture(scope="session")
def reader():  # noqa: ANN201 - DiceReader with the shipped models
    from vision.dice.reader import DiceReader

    return DiceReader()
