"""Snap the dice reader's boxes to the die actually lying on the mat.

A detector that sees the whole frame at a few hundred pixels gives boxes that are loose
(often 1.5-2.5 times the die) and off-centre by several pixels, which is millimetres on the
table. The calibration knows the mat: where the paper is bare and what colour it is. Inside
a detection's neighbourhood, the pixels that are strongly coloured or much darker than the
paper, on bare paper, are the die (a white die shows its pips); their blob gives a tight box.
A cast shadow is neither, and printed lines are masked out, so neither pulls the box.
"""

from __future__ import annotations

import logging

import cv2
import numpy as np

from calibration.geometry.homography import Geometry
from calibration.layouts import Layout
from calibration.palette import PAPER_LEVEL, lab, normalise
from calibration.printing.mat import paper_mask

logger = logging.getLogger(__name__)

MASK_PPM = 2.0
"""Resolution of the bare-paper mask, pixels per mm."""


def die_mask(image: np.ndarray, box: np.ndarray, geometry: Geometry, layout: Layout,
             white: np.ndarray) -> tuple[np.ndarray, np.ndarray, tuple[int, int]] | None:
    """Round a box (grown by half its size): bool masks of die-like pixels and of the pixels
    that can be judged (bare paper under them), and the origin of the masks."""
    x0, y0, x1, y1 = (float(v) for v in box)
    gw, gh = (x1 - x0) * 0.5, (y1 - y0) * 0.5
    a, b = max(0, int(x0 - gw)), max(0, int(y0 - gh))
    c, d = min(image.shape[1], int(x1 + gw) + 1), min(image.shape[0], int(y1 + gh) + 1)
    if c - a < 3 or d - b < 3:
        return None
    crop = image[b:d, a:c]
    px = lab(normalise(crop.reshape(-1, 3), white)).reshape(crop.shape)
    paper_l = lab(np.array([[PAPER_LEVEL] * 3]))[0, 0]
    thing = (px[..., 0] < paper_l - 45) | (np.hypot(px[..., 1], px[..., 2]) > 18)
    # Bare paper only: the mat's lines and letters are dark too.
    ys, xs = np.mgrid[b:d, a:c]
    mm = geometry.to_mm(np.column_stack([xs.ravel(), ys.ravel()]).astype(np.float64))
    free = paper_mask(layout, MASK_PPM, 0.7)
    ij = np.round(mm * MASK_PPM - 0.5).astype(int)
    inside = (ij[:, 0] >= 0) & (ij[:, 0] < free.shape[1]) & (ij[:, 1] >= 0) & \
        (ij[:, 1] < free.shape[0])
    ok = np.zeros(len(ij), bool)
    ok[inside] = free[ij[inside, 1], ij[inside, 0]]
    ok = ok.reshape(thing.shape)
    return thing & ok, ok, (a, b)


def refine_boxes(image: np.ndarray, boxes: np.ndarray, geometry: Geometry, layout: Layout,
                 white: np.ndarray, die_mm: float = 16.0) -> tuple[np.ndarray, np.ndarray]:
    """Tight boxes (N, 4) for the detections' boxes (N, 4), and the height above the table
    (N,) of the point each box's centre stands for (half a die: its centre).

    A coloured or dark die shows as a whole (top and sides). A box stays as it was when no
    die-like blob of a plausible size is found near it, or only pips (a white die on white
    paper: the reader's box is then the better guess).
    """
    out = np.array(boxes, np.float32, copy=True).reshape(-1, 4)
    heights = np.full(len(out), die_mm / 2)
    for i, box in enumerate(out):
        found = die_mask(image, box, geometry, layout, white)
        if found is None:
            continue
        mask, judged, (a, b) = found
        # Join a white die's pips (a die's face is ~ (box / 1.7) px across).
        k = max(3, int((box[2] - box[0]) / 5) | 1)
        m8 = cv2.morphologyEx(mask.astype(np.uint8), cv2.MORPH_CLOSE, np.ones((k, k), np.uint8))
        n, _, stats, centroids = cv2.connectedComponentsWithStats(m8)
        if n < 2:
            continue
        centre = np.array([(box[0] + box[2]) / 2 - a, (box[1] + box[3]) / 2 - b])
        # The blob nearest the detection's centre, weighted by its size, of those whose
        # centre lies in the detection's own box: the grown neighbourhood also holds the
        # dice next to it, and a white die's 1 (one pip) beside a 6 (six pips and shaded
        # sides) once snapped onto the 6, which then merged with it: a die lost.
        own = [j for j in range(1, n)
               if box[0] - a <= centroids[j][0] <= box[2] - a
               and box[1] - b <= centroids[j][1] <= box[3] - b]
        if not own:
            continue
        score = [stats[j, cv2.CC_STAT_AREA] / (1 + np.linalg.norm(centroids[j] - centre))
                 for j in own]
        j = own[int(np.argmax(score))]
        side_px = _die_px(geometry, box, die_mm)
        # With it, the blobs of the same die: the pips of a white die's 2 or 3 lie apart.
        near = [k for k in range(1, n)
                if np.linalg.norm(centroids[k] - centroids[j]) < 0.75 * side_px]
        x = min(stats[k, cv2.CC_STAT_LEFT] for k in near)
        y = min(stats[k, cv2.CC_STAT_TOP] for k in near)
        x2 = max(stats[k, cv2.CC_STAT_LEFT] + stats[k, cv2.CC_STAT_WIDTH] for k in near)
        y2 = max(stats[k, cv2.CC_STAT_TOP] + stats[k, cv2.CC_STAT_HEIGHT] for k in near)
        area = sum(int(stats[k, cv2.CC_STAT_AREA]) for k in near)
        if area < 0.15 * side_px * side_px:
            continue  # a pip or two, a speck: too little to say where a die is
        if not (0.6 * side_px <= min(x2 - x, y2 - y) and max(x2 - x, y2 - y) <= 2.2 * side_px):
            continue  # not the size a die has here: part of one, or a die and something else
        seen = judged[y:y2, x:x2].sum()
        sparse = seen == 0 or mask[y:y2, x:x2].sum() / seen < 0.5
        cube_w, cube_h = _cube_box(geometry, box, die_mm)
        loose = box[2] - box[0] > 1.3 * cube_w or box[3] - box[1] > 1.3 * cube_h
        if sparse and not loose:
            # A white die's pips and shaded sides, not its whole body: a box that already
            # has a die's size is the better guess; a loose one is worse still.
            continue
        out[i] = (a + x, b + y, a + x2, b + y2)
    return out, heights


def _cube_box(geometry: Geometry, box: np.ndarray, die_mm: float) -> tuple[float, float]:
    """Width and height in pixels of the box of a die standing where this box is."""
    c = np.array([[(box[0] + box[2]) / 2, (box[1] + box[3]) / 2]])
    foot = geometry.to_mm(c, die_mm / 2)[0]
    h = die_mm / 2
    square = foot + np.array([[-h, -h], [h, -h], [h, h], [-h, h]])
    cam = np.array(geometry.camera_mm[:2])
    # the top face seen from the camera lands on the table further out
    top = cam + (square - cam) * geometry.camera_mm[2] / (geometry.camera_mm[2] - die_mm)
    px = geometry.to_px(np.concatenate([square, top]))
    span = px.max(axis=0) - px.min(axis=0)
    return float(span[0]), float(span[1])


def _die_px(geometry: Geometry, box: np.ndarray, die_mm: float) -> float:
    """How many pixels a die's edge spans near this box."""
    c = np.array([[(box[0] + box[2]) / 2, (box[1] + box[3]) / 2]])
    p = geometry.to_mm(c)[0]
    q = geometry.to_px(np.array([p, p + [die_mm, 0], p + [0, die_mm]]))
    return float(max(np.linalg.norm(q[1] - q[0]), np.linalg.norm(q[2] - q[0])))
