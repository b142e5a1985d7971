"""The part of the camera's picture a question is about, each doubtful object ringed.

A question ("Which was it: roll 3 or roll 5?") is judged against the table: the phone shows
it with a crop of the picture round the objects the candidates disagree on
(``device.matches.doubtful``), each ringed in the question box's amber. The demo's rendered
table (``device.demo_picture``) and a real camera's runtime (``device.runtime``) each locate
the objects in their own picture; the crop is cut here.
"""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np

RING_BGR = (0, 200, 255)
"""The highlight around a doubtful object (amber, as the question box)."""
CONTEXT = 3.0
"""A crop is at least this many times as wide as the doubtful object's box (a die: about
90 mm of table), so that the players see where on the table it lies."""
LEAST_PX = 120.0
WIDTH = 360
"""Width of the crop sent to the phone, px."""

Located = tuple[np.ndarray, bool]
"""(x0, y0, x1, y1) pixel box of an object in the picture, and whether it is the object
itself (True) or only the zone or slot it lies in (False)."""


def ringed_crop(image: np.ndarray, found: Sequence[Located], width: int = WIDTH
                ) -> bytes | None:
    """JPEG of the part of ``image`` (BGR) that holds the boxes ``found``, each ringed, in
    4:3; None when nothing was found or the part is empty."""
    if not found:
        return None
    image = image.copy()
    boxes = np.array([box for box, _ in found], np.float64).reshape(-1, 4)
    for box, exact in found:
        pad = 6 if exact else 2
        cv2.rectangle(image, (int(box[0]) - pad, int(box[1]) - pad),
                      (int(box[2]) + pad, int(box[3]) + pad), RING_BGR, 4 if exact else 3,
                      cv2.LINE_AA)
    x0, y0 = boxes[:, 0].min(), boxes[:, 1].min()
    x1, y1 = boxes[:, 2].max(), boxes[:, 3].max()
    least = max([CONTEXT * float(box[2] - box[0]) for box, exact in found if exact]
                + [LEAST_PX])
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    w = max(x1 - x0 + 40, least, (y1 - y0 + 40) * 4 / 3)
    h = w * 3 / 4
    height, full = image.shape[:2]
    left = int(np.clip(cx - w / 2, 0, max(0, full - w)))
    top = int(np.clip(cy - h / 2, 0, max(0, height - h)))
    part = image[top:top + int(h), left:left + int(w)]
    if part.size == 0:
        return None
    scale = width / part.shape[1]
    part = cv2.resize(part, (width, max(1, round(part.shape[0] * scale))),
                      interpolation=cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR)
    ok, jpeg = cv2.imencode(".jpg", part, [cv2.IMWRITE_JPEG_QUALITY, 80])
    return jpeg.tobytes() if ok else None
