"""The change gate's light test (calibration.table.gate.lit_alike) on synthetic views."""

from __future__ import annotations

import numpy as np

from calibration.table.gate import LIGHT_SHARE, beyond_light, lit_alike


def _paper(h: int, w: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return rng.uniform(150, 210, (h, w, 3)).astype(np.float32)


def test_asked_only_where_it_is_asked_the_answer_is_the_same() -> None:
    """``where``: only those cells are tested, each as its pixels' test answers (the share
    of its pixels changed beyond the light's doing, each judged with its neighbours in the
    whole view), the other cells False."""
    rng = np.random.default_rng(1)
    for seed in range(20):
        h, w, c = int(rng.integers(20, 80)), int(rng.integers(20, 80)), int(rng.integers(2, 8))
        old = _paper(h, w, seed)
        new = old * float(rng.uniform(0.8, 1.2))
        spots = rng.random((h, w)) < 0.1
        new[spots] = rng.uniform(0, 255, (int(spots.sum()), 3))
        changed = beyond_light(new, old)[:h // c * c, :w // c * c]
        whole = changed.reshape(h // c, c, w // c, c).mean(axis=(1, 3)) > LIGHT_SHARE
        assert np.array_equal(lit_alike(new, old, c), whole)
        where = rng.random(whole.shape) < 0.4
        assert np.array_equal(lit_alike(new, old, c, where=where), whole & where)
