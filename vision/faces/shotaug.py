"""Degraded copies of the players' enrolment shots, made when a die is enrolled.

The shots are taken with the die held still under the table's light; the die is later read
thrown, at any yaw, in other light, blurred, smaller or larger in its crop (the camera sees
its sides) and off the crop's centre. The embedding of one sharp shot is a poor stand-in for
all of that, so the reader takes each enrolled face's mean embedding over its shots *and*
over copies of them turned by any angle, scaled, shifted, darkened or brightened, colour
cast, blurred, noised and JPEG-compressed (:func:`degraded`). Ranges: the renderer's harsh
measuring conditions (:data:`vision.synth.facecrops.HARSH`) taken as what a table can do; the
measured crops are rendered independently (other seeds), never from these copies.
"""

from __future__ import annotations

import cv2
import numpy as np

SCALE = (0.7, 1.08)
"""The face is smaller in a thrown die's crop than in a shot (the sides show, the box is
loose): down to about 0.7."""
SHIFT = 0.08
"""Off-centre by up to this share of the crop."""
GAIN = (0.5, 1.4)
CAST = 0.15
BLUR = (0.0, 1.2)
NOISE = (1.0, 8.0)
JPEG = (45, 90)


def degraded(shot: np.ndarray, n: int, rng: np.random.Generator) -> np.ndarray:
    """(n, h, w, 3) uint8: `n` degraded copies of one uint8 BGR crop."""
    h, w = shot.shape[:2]
    out = np.empty((n, h, w, 3), np.uint8)
    base = shot.astype(np.float32) / 255.0
    y, x = np.mgrid[0:h, 0:w].astype(np.float32)
    x, y = x / w - 0.5, y / h - 0.5
    for i in range(n):
        m = np.asarray(cv2.getRotationMatrix2D((w / 2, h / 2), rng.uniform(0, 360),
                                               rng.uniform(*SCALE)), np.float64)
        m[:, 2] += rng.uniform(-SHIFT, SHIFT, 2) * (w, h)
        f = cv2.warpAffine(base, m, (w, h), flags=cv2.INTER_LINEAR,
                           borderMode=cv2.BORDER_REFLECT)
        gain = rng.uniform(*GAIN) * (1 + rng.uniform(-0.2, 0.2) * x + rng.uniform(-0.2, 0.2) * y)
        f = f * gain[..., None] * (1 + rng.uniform(-CAST, CAST, 3)).astype(np.float32)
        b = rng.uniform(*BLUR)
        if b > 0.05:
            f = cv2.GaussianBlur(f, (0, 0), b)
        f = np.clip(f * 255 + rng.normal(0, rng.uniform(*NOISE), f.shape), 0, 255)
        ok, buf = cv2.imencode(".jpg", f.astype(np.uint8),
                               [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(*JPEG))])
        decoded = cv2.imdecode(buf, cv2.IMREAD_COLOR) if ok else None
        out[i] = decoded if decoded is not None else f.astype(np.uint8)
    return out
