"""Photometric shifts of a photo or crop: another camera's exposure, tone curve, white balance,
compression, focus or a grey picture (``models.training.dice.robustness``). Apart from it so that
the tests can use them without torch."""

from __future__ import annotations

from collections.abc import Callable

import cv2
import numpy as np


def _jpeg(c: np.ndarray, q: int) -> np.ndarray:
    out = cv2.imdecode(cv2.imencode(".jpg", c, [cv2.IMWRITE_JPEG_QUALITY, q])[1],
                       cv2.IMREAD_COLOR)
    assert out is not None  # (a JPEG just encoded decodes)
    return out


def _lut(f: Callable[[np.ndarray], np.ndarray]) -> Callable[[np.ndarray], np.ndarray]:
    table = np.clip(f(np.arange(256, dtype=np.float64)), 0, 255).astype(np.uint8)
    return lambda c: table[c]


SHIFTS: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "none": lambda c: c,
    "dark x0.45": _lut(lambda v: v * 0.45),
    "gamma 0.6": _lut(lambda v: 255 * (v / 255) ** 0.6),
    "gamma 1.7": _lut(lambda v: 255 * (v / 255) ** 1.7),
    "warm cast": lambda c: np.clip(c * np.array([0.7, 0.95, 1.2]), 0, 255).astype(np.uint8),
    "cool cast": lambda c: np.clip(c * np.array([1.25, 1.0, 0.75]), 0, 255).astype(np.uint8),
    "jpeg 25": lambda c: _jpeg(c, 25),
    "blur 1.2": lambda c: cv2.GaussianBlur(c, (0, 0), 1.2),
    "grey": lambda c: np.repeat(c.mean(axis=2, keepdims=True), 3, axis=2).astype(np.uint8),
}
