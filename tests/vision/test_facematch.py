"""The classical face matcher: a die's yaw from its edges, and correlation with the shots."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.faces.dietypes import custom
from vision.faces.match import ShotMatcher, WindowBank, yaw_mod90
from vision.measure.faces import distinct_glyph_seeds
from vision.synth.facecrops import STEADY, TRAIN, face_crops


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


def test_the_window_bank_finds_what_opencvs_template_search_finds():
    rng = np.random.default_rng(3)
    for margin in (0, 6):
        g = cv2.GaussianBlur(rng.normal(0, 1, (48, 48)).astype(np.float32), (0, 0), 1.0)
        g[20:30, 10:14] = 0.0  # a patch with no contrast somewhere
        wins = [np.ascontiguousarray(g[y:y + 24, x:x + 24] + rng.normal(0, s, (24, 24))
                                     .astype(np.float32))
                for x, y, s in ((3, 7, 0.1), (20, 11, 0.5), (12, 12, 2.0), (0, 0, 0.0))]
        best, tops = WindowBank(wins).search(g, margin)
        inner = np.ascontiguousarray(g[margin:48 - margin, margin:48 - margin])
        for k, w in enumerate(wins):
            _, mx, _, loc = cv2.minMaxLoc(cv2.matchTemplate(inner, w, cv2.TM_CCOEFF_NORMED))
            assert abs(best[k] - mx) < 1e-4
            assert tuple(tops[k]) == (loc[0] + margin, loc[1] + margin)


def test_a_bank_holds_windows_of_one_size_only():
    with pytest.raises(ValueError, match="one size"):
        WindowBank([np.zeros((24, 24), np.float32), np.zeros((20, 20), np.float32)])
