"""Which card slots of a layout hold a card: the Pyramid Dice pyramid and side area.

Cards overlap: a nearer row lies on the lower part of the row behind it. A slot is judged on
the part of its footprint that only its own card can cover: its polygon less the slots
behind it (whose cards reach into it from below) and less the slots in front that hold a
card (which lie on it). So the slots are decided front to back.

A pixel counts as "not the mat" when its chroma differs from the empty mat's, or its
brightness does by much more than a shadow dims it: the shadow of a hand that has just left,
or a change of light, scales brightness but keeps chroma, so it never fills a slot.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

import cv2
import numpy as np

from vision.pyramids import rectify

logger = logging.getLogger(__name__)

#: Share of a slot's own region that must differ from the mat for "card".
FILLED_SHARE = 0.5
#: Margin (mm) taken off each own region: cards are placed by hand, a few mm off.
PLACEMENT_MM = 2.0


@dataclass(frozen=True, slots=True)
class CardSlot:
    """A card place on the table."""

    id: str
    polygon: tuple[tuple[float, float], ...]
    """Footprint, table mm."""
    behind: tuple[str, ...] = ()
    """Slots whose cards lie under this one's and reach into its footprint."""
    in_front: tuple[str, ...] = ()
    """Slots whose cards lie on this one's."""


def not_mat(top: np.ndarray, reference: np.ndarray) -> np.ndarray:
    """bool mask of a rectified view: where it is not the empty mat (shadows excepted)."""
    f = top.astype(np.float32) / 255.0 + 0.02
    r = reference.astype(np.float32) / 255.0 + 0.02
    gain = np.median(f.sum(axis=2)) / max(float(np.median(r.sum(axis=2))), 1e-3)
    lum_f, lum_r = f.sum(axis=2), r.sum(axis=2) * gain
    ratio = lum_f / np.maximum(lum_r, 1e-3)
    chroma = np.abs(f / lum_f[..., None] - r / np.maximum(r.sum(axis=2), 1e-3)[..., None]).sum(2)
    # a shadow or a light change is smooth: what the ratio does within a few mm is a card
    log_ratio = np.log(np.maximum(ratio, 1e-3))
    local = np.abs(log_ratio - cv2.GaussianBlur(log_ratio, (0, 0), 8))
    mask = (chroma > 0.09) | (ratio < 0.4) | (ratio > 1.5) | (local > 0.25)
    k = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (3, 3))
    return cv2.morphologyEx(mask.astype(np.uint8), cv2.MORPH_OPEN, k).astype(bool)


def read_slots(image: np.ndarray, table_to_px: np.ndarray, slots: list[CardSlot],
               reference: np.ndarray, region: tuple[float, float, float, float],
               ppm: float = 2.0) -> dict[str, float]:
    """P(card) per slot id.

    Args:
        image: BGR uint8 photo; table_to_px: table mm -> pixels.
        slots: front rows first (each slot's `in_front` already decided).
        reference: the empty mat over `region` at `ppm`, BGR uint8.
    """
    top = rectify(image, table_to_px, region, ppm)
    changed = not_mat(top, reference)
    by_id = {s.id: s for s in slots}
    h, w = changed.shape

    def poly_mask(poly: tuple[tuple[float, float], ...]) -> np.ndarray:
        m = np.zeros((h, w), np.uint8)
        pts = (np.asarray(poly) - [region[0], region[1]]) * ppm
        cv2.fillPoly(m, [np.round(pts * 16).astype(np.int32)], 1, cv2.LINE_AA, 4)
        return m

    margin = cv2.getStructuringElement(cv2.MORPH_RECT, (int(2 * PLACEMENT_MM * ppm) + 1,) * 2)
    out: dict[str, float] = {}
    for s in slots:
        own = cv2.erode(poly_mask(s.polygon), margin)
        for other in s.behind + tuple(o for o in s.in_front if out.get(o, 0.0) >= 0.5):
            own &= 1 - cv2.dilate(poly_mask(by_id[other].polygon), margin)
        n = int(own.sum())
        if n == 0:
            # Nothing of it shows: the cards in front cover it whole. A covered card cannot
            # be taken (pyramid rule), so it is there if they are.
            out[s.id] = 0.99 if s.in_front else 0.5
            continue
        share = float(changed[own.astype(bool)].mean())
        # a smooth step around FILLED_SHARE: far from it is near certainty
        out[s.id] = float(1 / (1 + np.exp(-(share - FILLED_SHARE) * 20)))
    return out
