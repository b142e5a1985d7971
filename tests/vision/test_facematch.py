"""The classical face matcher: a die's yaw from its edges, and correlation with the shots."""

from __future__ import annotations

import cv2
import numpy as np

from vision.dietypes import custom
from vision.facecrops import STEADY, TRAIN, face_crops
from vision.facematch import ShotMatcher, yaw_mod90
from vision.faces_eval import distinct_glyph_seeds


def _square(angle: float) -> np.ndarray:
    img = np.full((96, 96), 60, np.float32)
    box = cv2.boxPoints(((48, 48), (50, 50), angle))
    cv2.fillPoly(img, [box.astype(np.int32)], 200.0)
    return cv2.GaussianBlur(img, (0, 0), 1.0)


def test_the_yaw_of_a_square_is_found_up_to_a_quarter_turn():
    for angle in (0.0, 12.0, 33.0, 61.0, 80.0):
        found = yaw_mod90(_square(angle))
        diff = (found - angle + 45) % 90 - 45  # the same square a quarter turn on
        assert abs(diff) < 2, (angle, found)


def test_a_face_correlates_best_with_its_own_shots():
    die = custom("t", [str(k) for k in range(6)], "#e6d2a0", "#202020",
                 seeds=distinct_glyph_seeds(424_242), bold=True)
    faces = die.faces
    rng = np.random.default_rng(0)
    matcher = ShotMatcher({f.label: face_crops(die, f, 3, rng, STEADY) for f in faces})
    right = 0
    for k, f in enumerate(faces):
        scores = matcher.scores(face_crops(die, f, 4, rng, TRAIN))
        assert scores.shape == (4, 6) and np.all(scores <= 1.0 + 1e-6)
        right += int((scores.argmax(axis=1) == k).sum())
    assert right >= 21  # of 24; `dicetable pieces` measures the figure
