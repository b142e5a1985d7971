"""Drawing reader results on a copy of the photo (for ``dicetable read --annotate``)."""

from __future__ import annotations

import logging

import cv2
import numpy as np

from vision.dice.detections import Detections

logger = logging.getLogger(__name__)


def annotate(image: np.ndarray, det: Detections) -> np.ndarray:
    """A copy of ``image`` with each die's box, value and probability drawn on it."""
    out = image.copy()
    scale = max(0.4, min(out.shape[:2]) / 900)
    thick = max(1, int(round(scale * 2)))
    for box, value, prob, sym in zip(det.xyxy, det.value, det.value_probability, det.symbol,
                                     strict=True):
        x0, y0, x1, y1 = (int(round(v)) for v in box)
        colour = (0, 200, 0) if prob >= 0.9 else ((0, 200, 255) if prob >= 0.6 else (0, 0, 255))
        cv2.rectangle(out, (x0, y0), (x1, y1), colour, thick)
        text = ("?" if value == 0 else str(int(value))) + ("*" if sym else "")
        text += f" {prob:.2f}"
        cv2.putText(out, text, (x0, max(10, y0 - 3)), cv2.FONT_HERSHEY_SIMPLEX, scale * 0.8,
                    colour, thick, cv2.LINE_AA)
    return out
