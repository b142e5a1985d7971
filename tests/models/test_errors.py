"""models.training.errors gives each die the reader gets wrong one cause: missed by the
detector, dropped as 'not a die', cut in the wrong place, or misread. A stand-in detector and
classifier on a drawn image; no trained model."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("torch", reason="torch is not installed (extra 'train')")

from models.training import errors  # noqa: E402
from vision.dice.classifier import NOT_A_DIE  # noqa: E402
from vision.dice.detections import Detections  # noqa: E402

#: Four dice, 40 px each, on a grey image; each drawn in its own colour so the stand-in
#: classifier can tell from the crop's centre which die (and how well centred) it is.
BOXES = np.array([[10, 10, 50, 50], [100, 10, 140, 50], [10, 100, 50, 140],
                  [100, 100, 140, 140]], np.float64)
COLOURS = [(200, 0, 0), (0, 200, 0), (0, 0, 200), (200, 200, 0)]
TRUTH = np.array([2, 3, 4, 5])  # classes 0..5, values 3, 4, 5, 6


def _image() -> np.ndarray:
    img = np.full((160, 160, 3), 128, np.uint8)
    for (x0, y0, x1, y1), c in zip(BOXES.astype(int), COLOURS, strict=True):
        img[y0:y1, x0:x1] = c
    img[100:140, 44:50] = (60, 60, 60)  # die 2's right edge: what an off-centre box centres on
    return img


class _Detector:
    """Finds die 0 well, die 1 well, die 2 with a box half off it, and never die 3."""

    def __init__(self, boxes: np.ndarray) -> None:
        self.boxes = boxes

    def __call__(self, image: np.ndarray) -> Detections:
        return Detections(xyxy=self.boxes, confidence=np.ones(len(self.boxes)))


def _logits(crops: np.ndarray) -> np.ndarray:
    """Die 0 read right, die 1 called 'not a die', die 2 right only when centred."""
    out = np.zeros((len(crops), NOT_A_DIE + 1), np.float32)
    for i, c in enumerate(crops):
        centre = c[c.shape[0] // 2, c.shape[1] // 2].astype(int)
        if tuple(centre) == COLOURS[0]:
            out[i, 2] = 20
        elif tuple(centre) == COLOURS[1]:
            out[i, NOT_A_DIE] = 20
        elif tuple(centre) == COLOURS[2]:
            out[i, 4] = 20
        else:
            out[i, 0] = 20  # anything off-centre or unknown reads as a 1
    return out


def test_each_error_gets_its_cause() -> None:
    shifted = BOXES[2] + [19, 0, 19, 0]  # centre still inside the label, crop centre off it
    found = np.stack([BOXES[0], BOXES[1], shifted])
    rows, right, extra, fit = errors.analyse_photo(_image(), BOXES, TRUTH, _Detector(found),
                                              _Detector(found), _logits)
    assert right == 1 and extra == 0
    assert len(fit) == 3 and fit[0] == pytest.approx((1.0, 1.0))
    causes = {r["label"]: r["cause"] for r in rows}
    assert causes == {1: "dropped", 2: "placement", 3: "missed"}
    by = {r["label"]: r for r in rows}
    assert by[2]["read"] == 1 and by[2]["truth_box_read"] == 5 and by[2]["iou"] < 0.7
    assert by[3]["weak_peak"] is False


def test_iou() -> None:
    a = np.array([0, 0, 10, 10.0])
    assert errors.iou(a, a) == pytest.approx(1.0)
    assert errors.iou(a, a + [5, 0, 5, 0]) == pytest.approx(50 / 150)
    assert errors.iou(a, a + 20) == 0.0
