"""Shared rendered mats (rasterising a mat once per session keeps the tests fast)."""

from __future__ import annotations

import numpy as np
import pytest

from calibration.layouts import load_layout
from calibration.render.synthetic import MatRenderer


@pytest.fixture(scope="session")
def renderers() -> dict[str, MatRenderer]:
    return {g: MatRenderer(load_layout(g)) for g in ("icedice", "pyramid_dice", "pyradice",
                                                     "quarriors")}


def table_grid(layout, nx: int = 12, ny: int = 9) -> np.ndarray:
    w, h = layout.size_mm
    return np.stack(np.meshgrid(np.linspace(0, w, nx), np.linspace(0, h, ny)), -1).reshape(-1, 2)
