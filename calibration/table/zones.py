"""The zones stage: which zones of the table the camera sees whole this frame.

``zones_seen`` lists the zones that are in the frame and that no hand or arm reaches into
(see :func:`occluders`); the rules count nothing as missing from a zone they are not told
was seen.
"""

from __future__ import annotations

from functools import cache

import cv2
import numpy as np

from calibration.geometry.homography import Geometry
from calibration.layouts import Layout
from calibration.palette import PAPER_LEVEL, lab, normalise, white_reference
from calibration.printing.mat import paper_mask

OCC_PPM = 0.5
"""Resolution of the occlusion test, pixels per mm (2 mm pixels: cheap, and enough)."""
OCCLUDED_FRACTION = 0.02
"""A zone with more than this share of its area under a hand or an arm is not seen."""
IN_VIEW_FRACTION = 0.97


@cache
def _zone_masks(layout: Layout) -> dict[str, np.ndarray]:
    """Each zone's area on the occlusion raster."""
    w, h = layout.size_mm
    out = {}
    for zone in layout.zones:
        m = np.zeros((round(h * OCC_PPM), round(w * OCC_PPM)), np.uint8)
        cv2.fillPoly(m, [np.round(np.array(zone.polygon) * OCC_PPM).astype(np.int32)], 1)
        out[zone.name] = m.astype(bool)
    return out


def occluders(layout: Layout, geometry: Geometry, image: np.ndarray, white: np.ndarray
              ) -> tuple[np.ndarray, np.ndarray]:
    """(occluded, in frame): bool rasters of the mat at OCC_PPM.

    Foreign means neither paper nor ink: dice, cards, pieces, hands. Dice, cards and pieces
    lie inside the zones, which keep 40 mm from the mat's edge; a hand or an arm always
    reaches in from beyond the edge. So the foreign regions that touch the mat's edge (or
    run out of the frame) are what hides the table, and the rest are the game's objects.
    """
    w, h = layout.size_mm
    size = (round(w * OCC_PPM), round(h * OCC_PPM))
    to_mat = np.diag([OCC_PPM, OCC_PPM, 1.0]) @ np.linalg.inv(geometry.homography)
    top = cv2.warpPerspective(image, to_mat, size, flags=cv2.INTER_AREA,
                              borderMode=cv2.BORDER_CONSTANT, borderValue=(0, 0, 0))
    frame = cv2.warpPerspective(np.full(image.shape[:2], 255, np.uint8), to_mat, size,
                                flags=cv2.INTER_NEAREST, borderMode=cv2.BORDER_CONSTANT,
                                borderValue=0) > 0
    col = lab(normalise(top.reshape(-1, 3), white)).reshape(size[1], size[0], 3)
    paper_l = lab(np.array([[PAPER_LEVEL] * 3]))[0, 0]
    foreign = ((col[..., 0] < paper_l - 15) | (np.hypot(col[..., 1], col[..., 2]) > 15))
    foreign &= paper_mask(layout, OCC_PPM, 1.0)
    # Bridge the ink an arm lies across (lines, letters, the markers' black squares).
    k = np.ones((5, 5), np.uint8)
    foreign = cv2.morphologyEx(foreign.astype(np.uint8), cv2.MORPH_CLOSE, k).astype(bool)
    reach = (foreign | ~frame).astype(np.uint8)
    _, labels = cv2.connectedComponents(reach)
    edge = set(np.unique(np.concatenate([labels[0], labels[-1], labels[:, 0], labels[:, -1],
                                         labels[~frame]]))) - {0}
    return foreign & np.isin(labels, list(edge)), frame


def zones_seen(layout: Layout, geometry: Geometry, image: np.ndarray,
               white: np.ndarray | None = None) -> frozenset[str]:
    """Zones wholly in the frame and not reached into by a hand or an arm (see occluders)."""
    if white is None:
        white = white_reference(image, geometry, layout)
    occluded, frame = occluders(layout, geometry, image, white)
    seen = set()
    for name, area in _zone_masks(layout).items():
        n = int(area.sum())
        if n == 0 or frame[area].mean() < IN_VIEW_FRACTION:
            continue
        if occluded[area].sum() <= OCCLUDED_FRACTION * n:
            seen.add(name)
    return frozenset(seen)
