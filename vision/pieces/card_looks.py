"""Knowing a card by its look: the top band of its face, seen on the table plane.

Cards whose identity the rules already know (Pyramid Dice's pyramid: each slot's card was
entered at setup) teach their look; a card seen elsewhere (the side area, where cards lie in
columns with only each card's top band showing) is then told by the look that fits best.
Only the top band is used, because it is all that shows of a covered card in a column, and
of a pyramid card under the row in front.

A look is the inside of the band (its border left out), colours relative to the mat's paper
in the same frame (a dimmer or tinted light does not change it). A card is laid by hand a few
millimetres off: each known look is slid over the band seen, with that much room round it,
and the best fit counts (root mean square difference).
"""

from __future__ import annotations

import cv2
import numpy as np

INSET_MM = (3.0, 2.0)
"""Left out of a band at each side and at top and bottom (the card's border, the edge of the
card lying on it)."""
SLACK_MM = 3.0
"""How far off its place a card may lie in the band seen."""
SCALE = 0.02
"""Difference (RMS of colours relative to the paper) by which one card is e times less likely
than another. UNMEASURED on real cards; a rendered Pyramid Dice match (seed 0, 12 side cards
at four moments) read every card right, at 0.48-1.0."""
FLOOR = 1e-3


def _norm(patch: np.ndarray, white: np.ndarray) -> np.ndarray:
    return patch.astype(np.float32) / np.maximum(np.asarray(white, np.float32), 1.0)


def band_look(top: np.ndarray, box: tuple[int, int, int, int], ppm: float,
              white: np.ndarray) -> np.ndarray | None:
    """The look of the band `box` (x0, y0, x1, y1 pixels at `ppm` px/mm) of a rectified BGR
    view whose paper is `white` (BGR); None when too little of it is left."""
    x0, y0, x1, y1 = box
    dx, dy = int(round(INSET_MM[0] * ppm)), int(round(INSET_MM[1] * ppm))
    x0, y0, x1, y1 = max(0, x0 + dx), max(0, y0 + dy), min(top.shape[1], x1 - dx), \
        min(top.shape[0], y1 - dy)
    if x1 - x0 < 8 or y1 - y0 < 4:
        return None
    return _norm(top[y0:y1, x0:x1], white)


def band_seen(top: np.ndarray, box: tuple[int, int, int, int], ppm: float,
              white: np.ndarray) -> np.ndarray | None:
    """The band `box` of a view with SLACK_MM of room round its inside, to slide looks over."""
    x0, y0, x1, y1 = box
    dx = int(round((INSET_MM[0] - SLACK_MM) * ppm))
    dy = int(round((INSET_MM[1] - SLACK_MM) * ppm))
    x0, y0, x1, y1 = max(0, x0 + dx), max(0, y0 + dy), min(top.shape[1], x1 - dx), \
        min(top.shape[0], y1 - dy)
    if x1 - x0 < 8 or y1 - y0 < 4:
        return None
    return _norm(top[y0:y1, x0:x1], white)


def identify(seen: np.ndarray, looks: dict[str, np.ndarray]) -> dict[str, float]:
    """P(each known card | the band seen), best first (every known card listed)."""
    if not looks:
        return {}
    ids, d = [], []
    for cid, look in looks.items():
        h, w = min(look.shape[0], seen.shape[0]), min(look.shape[1], seen.shape[1])
        y0, x0 = (look.shape[0] - h) // 2, (look.shape[1] - w) // 2
        tpl = np.ascontiguousarray(look[y0:y0 + h, x0:x0 + w])
        res = cv2.matchTemplate(seen, tpl, cv2.TM_SQDIFF)
        ids.append(cid)
        d.append(float(np.sqrt(max(float(res.min()), 0.0) / tpl.size)))
    dd = np.array(d)
    w_ = np.exp(-(dd - dd.min()) / SCALE)
    p = np.maximum(w_ / w_.sum(), FLOOR)
    order = np.argsort(-p)
    return {ids[k]: round(float(p[k]), 4) for k in order}
