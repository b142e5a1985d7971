"""The change gate's light test (calibration.table.gate.lit_alike) on synthetic views."""

from __future__ import annotations

from typing import Any

import numpy as np

from calibration.table.gate import LIGHT_HUE, LIGHT_RATIO, LIGHT_SHARE, beyond_light, lit_alike


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
        old = _paper(h, w, seed)
        new = old * float(rng.uniform(0.3, 3.0))
        spots = rng.random((h, w)) < float(rng.random())
        new[spots] = rng.uniform(0, 255, (int(spots.sum()), 3))
        assert np.array_equal(beyond_light(new, old), _beyond_light_by_definition(new, old))


def test_counted_in_sliding_windows() -> None:
    """``pixels``: a cell changed when some c x c window whose corner lies in it holds that
    many pixels changed beyond the light (the whole view's test, windows cut at its edge);
    a change of a few pixels across four cells counts, which the shares test misses."""
    rng = np.random.default_rng(3)
    for seed in range(12):
        h, w, c = int(rng.integers(12, 60)), int(rng.integers(12, 60)), int(rng.integers(2, 7))
        old = _paper(h, w, seed)
        new = old * float(rng.uniform(0.8, 1.2))
        spots = rng.random((h, w)) < 0.05
        new[spots] = 0.0
        changed = np.pad(beyond_light(new, old), ((0, c), (0, c))).astype(int)
        most = np.zeros((h // c, w // c), int)
        for y in range(h // c * c):
            for x in range(w // c * c):
                most[y // c, x // c] = max(most[y // c, x // c],
                                           int(changed[y:y + c, x:x + c].sum()))
        for pixels in (1, 3, 5):
            assert np.array_equal(lit_alike(new, old, c, pixels=pixels), most >= pixels)
            # (asked in many parts the view is tested whole; in a few, part by part)
            for share in (0.5, 0.03):
                where = rng.random(most.shape) < share
                assert np.array_equal(lit_alike(new, old, c, where=where, pixels=pixels),
                                      (most >= pixels) & where)
    # four black pixels at the meeting of four 6 px cells: each holds one (a share of 1/36)
    old = _paper(24, 24, 0)
    new = old.copy()
    new[5:7, 5:7] = 0.0
    assert not lit_alike(new, old, 6).any()
    assert lit_alike(new, old, 6, pixels=4)[0, 0]


def _read_twice(before: np.ndarray, after: np.ndarray, grow_mm: float, obj: object
                ) -> tuple[list, list]:
    """(the boxes read, the objects got) of a partial dice gate shown ``before`` and then
    ``after`` (its views, at 2 px/mm of a 100 mm square), the first reading ``obj``."""
    from types import SimpleNamespace

    from calibration.table.gate import ChangeGate

    gate = ChangeGate()
    views = iter([before, after])
    gate._zone_view = lambda sight, region, ppm=1.0: next(views)  # type: ignore[method-assign]
    cores: list = []

    def read(core: object = None) -> list:
        cores.append(core)
        return [obj] if core is None else []

    sight: Any = SimpleNamespace(expected=None)
    for _ in range(2):
        got = gate.cached("dice", sight, (0.0, 0.0, 100.0, 100.0), read, partial=True,
                          ppm=2.0, cell_mm=3.0, light=True, light_pixels=4, sliding=True,
                          grow_mm=grow_mm, doubt=lambda last: [])
    return cores, got


def test_a_die_whose_corner_changed_is_read_again_with_the_growth() -> None:
    """A partial zone's changed part reaches ``grow_mm`` beyond its changed cells: a die
    whose ink alone changed at its corner (its body changed as a shadow would) has its
    centre there and is read again, not kept as it was read before."""
    from engine.observation import Observed

    before = _paper(200, 200, 0)
    after = before.copy()
    after[50:54, 50:54] = 0.0  # the die at (20, 20) mm: ink 6 mm off its centre
    die = Observed.make("die", "pool", face={"Q1": 1.0}, position_mm=(20.0, 20.0))
    cores, got = _read_twice(before, after, 0.0, die)
    assert cores[0] is None and cores[1] is not None  # read whole, then round the change
    assert got == [die], "kept: its centre lies beyond the box round the change"
    cores, got = _read_twice(before, after, 12.0, die)
    assert cores[1] is not None and got == [], "the die was kept as read before"
