"""Degraded copies of enrolment shots: seeded, varied, and still the same face."""

from __future__ import annotations

import numpy as np

from vision.faces.dietypes import custom
from vision.faces.match import ShotMatcher
from vision.faces.shotaug import degraded
from vision.measure.faces import distinct_glyph_seeds
from vision.synth.facecrops import STEADY, face_crops


def _die():
    return custom("t", [str(k) for k in range(6)], "#e6d2a0", "#202020",
                  seeds=distinct_glyph_seeds(515_151), bold=True)


def test_copies_are_seeded_and_differ_from_one_another():
    shot = face_crops(_die(), _die().faces[0], 1, np.random.default_rng(0), STEADY)[0]
    a = degraded(shot, 5, np.random.default_rng(3))
    b = degraded(shot, 5, np.random.default_rng(3))
    assert a.shape == (5, *shot.shape) and a.dtype == np.uint8
    assert np.array_equal(a, b)
    diffs = [np.abs(a[i].astype(int) - a[j]).mean() for i in range(5) for j in range(i)]
    assert min(diffs) > 2 and all(np.abs(c.astype(int) - shot).mean() > 2 for c in a)


def test_a_copy_still_shows_its_face():
    die = _die()
    rng = np.random.default_rng(1)
    shots = {f.label: face_crops(die, f, 2, rng, STEADY) for f in die.faces}
    matcher = ShotMatcher(shots)
    right = n = 0
    for k, f in enumerate(die.faces):
        got = matcher.scores(degraded(shots[f.label][0], 4, rng)).argmax(axis=1)
        right += int((got == k).sum())
        n += len(got)
    assert right >= n - 2  # copies are hard, not another face
