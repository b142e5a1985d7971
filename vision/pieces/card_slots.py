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

from vision.pieces.pyramids import rectify

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


def not_mat(top: np.ndarray, reference: np.ndarray, paper: np.ndarray | None = None
            ) -> np.ndarray:
    """bool mask of a rectified view: where it is not the empty mat (shadows excepted).

    The light's gain is the view's median brightness over the reference's, right when most
    of the view is mat; a view mostly covered (a few card slots read again) gives the
    paper's BGR in this frame (`paper`) instead."""
    # (channels added one by one: numpy's reductions over a last axis of 3 are ~20x slower)
    f = top.astype(np.float32) * (1 / 255.0) + 0.02
    r = reference.astype(np.float32) * (1 / 255.0) + 0.02
    lum_f = f[..., 0] + f[..., 1] + f[..., 2]
    lum_r0 = r[..., 0] + r[..., 1] + r[..., 2]
    if paper is None:
        # (medians of every 4th pixel each way: the same gain, 16 ms less a Quarriors mat)
        gain = np.median(lum_f[::4, ::4]) / max(float(np.median(lum_r0[::4, ::4])), 1e-3)
    else:
        gain = (float(np.sum(paper)) / 255.0 + 0.06) / 3.06  # the raster's paper is white
    lum_r = lum_r0 * gain
    ratio = lum_f / np.maximum(lum_r, 1e-3)
    inv_f, inv_r = 1.0 / lum_f, 1.0 / np.maximum(lum_r0, 1e-3)
    chroma = sum(np.abs(f[..., c] * inv_f - r[..., c] * inv_r) for c in range(3))
    # a shadow or a light change is smooth: what the ratio does within a few mm is a card
    log_ratio = np.log(np.maximum(ratio, 1e-3))
    local = np.abs(log_ratio - cv2.GaussianBlur(log_ratio, (0, 0), 8))
    mask = (chroma > 0.09) | (ratio < 0.4) | (ratio > 1.5) | (local > 0.25)
    k = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (3, 3))
    return cv2.morphologyEx(mask.astype(np.uint8), cv2.MORPH_OPEN, k).astype(bool)


def read_slots(image: np.ndarray, table_to_px: np.ndarray, slots: list[CardSlot],
               reference: np.ndarray, region: tuple[float, float, float, float],
               ppm: float = 2.0, known: dict[str, float] | None = None,
               others: tuple[CardSlot, ...] = (), paper: np.ndarray | None = None
               ) -> dict[str, float]:
    """P(card) per slot id.

    Args:
        image: BGR uint8 photo; table_to_px: table mm -> pixels.
        slots: front rows first (each slot's `in_front` already decided).
        reference: the empty mat over `region` at `ppm`, BGR uint8.
        known: P(card) of slots not read here that may lie in front of those read (a
            reading of part of the layout).
        others: the slots not read here that lie behind or in front of those read.
        paper: the paper's BGR in this frame (see :func:`not_mat`), for a part read alone.
    """
    top = rectify(image, table_to_px, region, ppm)
    changed = not_mat(top, reference, paper)
    masks = _slot_masks(tuple(slots), tuple(float(v) for v in region), float(ppm),
                        changed.shape, tuple(others))
    out: dict[str, float] = {}
    held = dict(known or {})
    for s in slots:
        (y0, y1, x0, x1), own, behind, front = masks[s.id]
        own = own & ~behind
        for other, m in front:
            if out.get(other, held.get(other, 0.0)) >= 0.5:
                own &= ~m
        n = int(own.sum())
        if n == 0:
            # Nothing of it shows: the cards in front cover it whole. A covered card cannot
            # be taken (pyramid rule), so it is there if they are.
            out[s.id] = 0.99 if s.in_front else 0.5
            continue
        share = float(changed[y0:y1, x0:x1][own].mean())
        # a smooth step around FILLED_SHARE: far from it is near certainty
        out[s.id] = float(1 / (1 + np.exp(-(share - FILLED_SHARE) * 20)))
    return out


_Masks = dict[str, tuple[tuple[int, int, int, int], np.ndarray, np.ndarray,
                         list[tuple[str, np.ndarray]]]]
_MASKS: dict[tuple, _Masks] = {}


def _slot_masks(slots: tuple[CardSlot, ...], region: tuple[float, ...], ppm: float,
                shape: tuple[int, int], others: tuple[CardSlot, ...] = ()) -> _Masks:
    """Per slot, within its own box of the view: its footprint less the placement margin,
    the footprints of the slots behind (grown by the margin, taken together), and each slot
    in front's (grown). They depend on the layout only: made once (the same masks were drawn
    full-size for every slot of every reading)."""
    key = (slots, region, ppm, shape, others)
    if key in _MASKS:
        return _MASKS[key]
    h, w = shape
    by_id = {s.id: s for s in others + slots}
    pad = int(2 * PLACEMENT_MM * ppm) + 2
    margin = cv2.getStructuringElement(cv2.MORPH_RECT, (int(2 * PLACEMENT_MM * ppm) + 1,) * 2)

    def poly_px(poly: tuple[tuple[float, float], ...]) -> np.ndarray:
        return (np.asarray(poly) - [region[0], region[1]]) * ppm

    def local(poly: tuple[tuple[float, float], ...], box: tuple[int, int, int, int]
              ) -> np.ndarray:
        y0, y1, x0, x1 = box
        m = np.zeros((y1 - y0, x1 - x0), np.uint8)
        pts = poly_px(poly) - [x0, y0]
        cv2.fillPoly(m, [np.round(pts * 16).astype(np.int32)], 1, cv2.LINE_AA, 4)
        return m

    out: _Masks = {}
    for s in slots:
        px = poly_px(s.polygon)
        x0, y0 = np.floor(px.min(axis=0)).astype(int) - pad
        x1, y1 = np.ceil(px.max(axis=0)).astype(int) + pad
        box = (max(0, int(y0)), min(h, int(y1)), max(0, int(x0)), min(w, int(x1)))
        own = cv2.erode(local(s.polygon, box), margin).astype(bool)
        behind = np.zeros_like(own)
        for other in s.behind:
            behind |= cv2.dilate(local(by_id[other].polygon, box), margin).astype(bool)
        front = [(o, cv2.dilate(local(by_id[o].polygon, box), margin).astype(bool))
                 for o in s.in_front]
        out[s.id] = (box, own, behind, front)
    if len(_MASKS) > 64:
        _MASKS.clear()
    _MASKS[key] = out
    return out
