"""The per-die verifier of enrolled faces (vision.faces.verify) and the matcher's placements."""

from __future__ import annotations

import numpy as np

from vision.faces.dietypes import custom
from vision.faces.match import ShotMatcher
from vision.faces.shotaug import degraded
from vision.faces.verify import FaceVerifier
from vision.measure.faces import distinct_glyph_seeds
from vision.synth.facecrops import STEADY, TRAIN, face_crops


def _die():
    return custom("t", [str(k) for k in range(6)], "#e6d2a0", "#202020",
                  seeds=distinct_glyph_seeds(424_242), bold=True)


def test_scores_where_scores_as_scores_and_places_the_reference_shots():
    die = _die()
    rng = np.random.default_rng(0)
    matcher = ShotMatcher({f.label: face_crops(die, f, 3, rng, STEADY) for f in die.faces})
    crops = face_crops(die, die.faces[2], 3, rng, TRAIN)
    scores, where = matcher.scores_where(crops, 2)
    assert np.array_equal(scores, matcher.scores(crops))
    assert len(where) == 3 and all(len(w) == 6 for w in where)
    assert all(len(places) == 2 for w in where for places in w)
    k, (x, y) = where[0][2][0]
    assert 0 <= k < 28 and 0 <= x <= 24 and 0 <= y <= 24


def test_the_verifier_tells_a_die_s_faces_apart():
    die = _die()
    rng = np.random.default_rng(1)
    samples = {}
    for f in die.faces:
        shots = face_crops(die, f, 3, rng, STEADY)
        samples[f.label] = np.concatenate([shots, *(degraded(s, 6, rng) for s in shots)])
    ver = FaceVerifier(samples, refs=2)
    right = 0
    for k, f in enumerate(die.faces):
        scores = ver.scores(face_crops(die, f, 4, rng, TRAIN))
        assert scores.shape == (4, 6) and np.all(np.isfinite(scores))
        right += int((scores.argmax(axis=1) == k).sum())
    assert right >= 20  # of 24; validate_enrol measures the figure
