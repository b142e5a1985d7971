"""The change gate's light test (calibration.table.gate.lit_alike) on synthetic views."""

from __future__ import annotations

import numpy as np

from calibration.table.gate import LIGHT_HUE, LIGHT_RATIO, LIGHT_SHARE, beyond_light, lit_alike


def _paper(h: int, w: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return rng.uniform(150, 210, (h, w, 3)).astype(np.float32)


def _relit(rng: np.random.Generator, h: int, w: int, seed: int, light: tuple[float, float],
           spots: float) -> tuple[np.ndarray, np.ndarray]:
    """(new, old): a paper view, and it relit by a factor in ``light`` with this share of
    its pixels repainted at random."""
    old = _paper(h, w, seed)
    new = old * float(rng.uniform(*light))
    where = rng.random((h, w)) < spots
    new[where] = rng.uniform(0, 255, (int(where.sum()), 3))
    return new, old


def test_asked_only_where_it_is_asked_the_answer_is_the_same() -> None:
    """``where``: only those cells are tested, each as its pixels' test answers (the share
    of its pixels changed beyond the light's doing, each judged with its neighbours in the
    whole view), the other cells False."""
    rng = np.random.default_rng(1)
    for seed in range(20):
        h, w, c = int(rng.integers(20, 80)), int(rng.integers(20, 80)), int(rng.integers(2, 8))
        new, old = _relit(rng, h, w, seed, (0.8, 1.2), 0.1)
        changed = beyond_light(new, old)[:h // c * c, :w // c * c]
        whole = changed.reshape(h // c, c, w // c, c).mean(axis=(1, 3)) > LIGHT_SHARE
        assert np.array_equal(lit_alike(new, old, c), whole)
        for share in (0.4, 0.03):
            where = rng.random(whole.shape) < share
            assert np.array_equal(lit_alike(new, old, c, where=where), whole & where)


def _beyond_light_by_definition(new: np.ndarray, old: np.ndarray) -> np.ndarray:
    """A pixel changed beyond the light when, against the old pixel under it and each of
    that one's 8 neighbours (the view's edge repeated), its chromaticity moved more than
    LIGHT_HUE or its brightness left LIGHT_RATIO of the old one's."""
    h, w = new.shape[:2]
    eps = 6.0
    pad = np.pad(old, ((1, 1), (1, 1), (0, 0)), mode="edge") + eps
    out = np.zeros((h, w), bool)
    for y in range(h):
        for x in range(w):
            n = new[y, x] + eps
            hits = []
            for o in pad[y:y + 3, x:x + 3].reshape(-1, 3):
                hue = float(np.abs(n / n.sum() - o / o.sum()).sum())
                ratio = float(n.sum() / o.sum())
                hits.append(hue > LIGHT_HUE or not LIGHT_RATIO[0] <= ratio <= LIGHT_RATIO[1])
            out[y, x] = all(hits)
    return out


def test_beyond_light_is_its_definition() -> None:
    """The test asks the neighbours only where the pixel under it changed: the same answer
    as asking all nine everywhere, on views changed by the light, by spots, or wholly."""
    rng = np.random.default_rng(2)
    for seed in range(12):
        h, w = (int(v) for v in rng.integers(1, 24, 2))
        new, old = _relit(rng, h, w, seed, (0.3, 3.0), float(rng.random()))
        assert np.array_equal(beyond_light(new, old), _beyond_light_by_definition(new, old))
