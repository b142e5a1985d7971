"""Detections: validated shapes, the explicit empty value, vectorised accessors."""

from __future__ import annotations

from contextlib import nullcontext as does_not_raise

import numpy as np
import pytest

from vision.dice.detections import FACE_SYMBOL, FACE_UNREADABLE, NUM_FACE_CLASSES, Detections


def onehot(classes: list[int]) -> np.ndarray:
    p = np.full((len(classes), NUM_FACE_CLASSES), 0.01, np.float32)
    p[np.arange(len(classes)), classes] = 1 - 0.01 * (NUM_FACE_CLASSES - 1)
    return p


BOX = [[0, 0, 10, 10]]


@pytest.mark.parametrize(("kwargs", "expectation"), [
    ({"xyxy": BOX, "confidence": [0.5]}, does_not_raise()),
    ({"xyxy": np.zeros((0, 4)), "confidence": []}, does_not_raise()),
    ({"xyxy": [0, 0, 10, 10], "confidence": [0.5]}, pytest.raises(ValueError, match="shape")),
    ({"xyxy": [[0, 0, 10]], "confidence": [0.5]}, pytest.raises(ValueError, match="shape")),
    ({"xyxy": [[10, 0, 0, 10]], "confidence": [0.5]}, pytest.raises(ValueError, match="x1")),
    ({"xyxy": [[0, 0, np.nan, 10]], "confidence": [0.5]}, pytest.raises(ValueError, match="fin")),
    ({"xyxy": BOX, "confidence": [0.5, 0.2]}, pytest.raises(ValueError, match="confidence")),
    ({"xyxy": BOX, "confidence": [1.5]}, pytest.raises(ValueError, match="confidence")),
    ({"xyxy": BOX, "confidence": [0.5], "face_probs": np.ones((1, 3))},
     pytest.raises(ValueError, match="face_probs")),
    ({"xyxy": BOX, "confidence": [0.5], "face_probs": np.ones((1, NUM_FACE_CLASSES))},
     pytest.raises(ValueError, match="sum to 1")),
    ({"xyxy": BOX, "confidence": [0.5], "body_colour": ("red", "blue")},
     pytest.raises(ValueError, match="colour")),
])
def test_validation(kwargs: dict, expectation) -> None:  # noqa: ANN001
    with expectation:
        Detections(**kwargs)


def test_empty_is_empty_and_well_shaped() -> None:
    d = Detections.empty()
    assert len(d) == 0
    assert d.xyxy.shape == (0, 4)
    assert d.face_probs.shape == (0, NUM_FACE_CLASSES)
    assert d.value.shape == (0,)
    assert d.center.shape == (0, 2)
    assert len(d[np.zeros(0, bool)]) == 0


def test_values_symbols_and_unreadable() -> None:
    d = Detections(xyxy=[[0, 0, 10, 10], [20, 20, 40, 30], [5, 5, 6, 6]],
                   confidence=[0.9, 0.8, 0.7],
                   face_probs=onehot([4, FACE_SYMBOL, FACE_UNREADABLE]),
                   body_colour=("red", "white", "black"), pip_colour=("white", "black", "white"))
    assert d.value.tolist() == [5, 1, 0]
    assert d.symbol.tolist() == [False, True, False]
    assert d.center.tolist() == [[5, 5], [30, 25], [5.5, 5.5]]
    np.testing.assert_allclose(d.value_probability, 1 - 0.01 * (NUM_FACE_CLASSES - 1), rtol=1e-5)
    sub = d[np.array([False, True, True])]
    assert len(sub) == 2
    assert sub.body_colour == ("white", "black")
    assert sub.value.tolist() == [1, 0]


def test_unclassified_dice_have_uniform_face_probabilities() -> None:
    d = Detections(xyxy=BOX, confidence=[0.5])
    np.testing.assert_allclose(d.face_probs, 1 / NUM_FACE_CLASSES)
    assert d.body_colour == ("unknown",)
