"""The observer's change gate: a zone of the table is read again only where it changed.

Each zone's last reading is kept with the zone's look on the table plane (rectified at
1 px/mm through the geometry fitted to the frame, colours normalised to their mean). A new
frame is compared cell by cell; a zone whose cells all stayed keeps its reading, and a zone
that changed in a small part is read again only round that part, when its reader can.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from engine.observation import Observed

ZONE_CHANGE = 20.0
"""Largest mean difference of one colour channel over one ZONE_CELL_MM cell of a piece zone
(rectified at 1 px/mm, normalised to its mean) from its last reading above which the zone
is read again (in colour: a card laid on one of the same grey changed nothing in grey).
A card or a pyramid taken or put down changes its cells by 40+; sensor noise, JPEG and a
light change (normalised out) by under 8; a shadow's edge by ~10-15."""
ZONE_CELL_MM = 8
PARTIAL_SHARE = 0.5
"""A piece zone whose changed cells span less than this share of it is read again only
there (a vault of twenty pyramids costs ~10x more to read whole than round one new piece)."""
DICE_PPM, DICE_CELL_MM = 2.0, 3.0
"""The dice zone is compared finer: a die turned by hand from 5 to 3 changes its 8 mm cells
at 1 px/mm by only 13 (under ZONE_CHANGE: the turn went unseen), its 3 mm cells at 2 px/mm
by 90."""


def _norm(patch: np.ndarray) -> np.ndarray:
    f = patch.astype(np.float32)
    return f * (128.0 / max(float(f.mean()), 1.0))


def _cells(a: np.ndarray, b: np.ndarray, c: int = ZONE_CELL_MM) -> np.ndarray:
    """Mean absolute difference of two rectified views per cell of c x c pixels (the
    largest of the colour channels')."""
    import cv2

    d = np.abs(a - b)
    if d.ndim == 3:  # (channel by channel: numpy's reduction over a last axis of 3 is slow)
        d = np.maximum(np.maximum(d[..., 0], d[..., 1]), d[..., 2])
    h, w = d.shape
    if h < c or w < c:
        return np.full((1, 1), float(d.mean()), np.float32)
    return cv2.resize(d[:h // c * c, :w // c * c], (w // c, h // c),
                      interpolation=cv2.INTER_AREA)


class ZoneGate:
    """Mixin of :class:`device.observer.TableObserver`: the zone readings it keeps
    (``self._zone_cache``: key -> (the zone's look, its objects))."""

    _zone_cache: dict[str, tuple[np.ndarray, list[Observed]]]

    def _zone_view(self, prof: Any, image: np.ndarray, region: tuple, ppm: float = 1.0
                   ) -> np.ndarray:
        from vision.pyramids import rectify

        # in colour: a card laid on another of about the same grey is still a change
        return _norm(rectify(image, prof.geometry.homography, region, ppm))

    def _cached(self, key: str, prof: Any, image: np.ndarray, region: tuple,
                read: Any, partial: bool = False, owns: Any = None, ppm: float = 1.0,
                cell_mm: float = ZONE_CELL_MM) -> list[Observed]:
        """The zone's last reading if nothing in it changed; else read it again — with
        `partial`, only the part that changed (`read(core)` returns the objects it read
        round the core box; those of the last reading it does not `own(obj, core)` stand,
        by default those whose place lies outside the core)."""
        view = self._zone_view(prof, image, region, ppm)
        hit = self._zone_cache.get(key)
        if hit is not None and hit[0].shape == view.shape:
            cell_px = max(1, int(round(cell_mm * ppm)))
            cells = _cells(view, hit[0], cell_px)
            if cells.max() <= ZONE_CHANGE:
                return hit[1]
            ys, xs = np.nonzero(cells > ZONE_CHANGE)
            c = cell_px / ppm  # a cell's side, mm
            core = (region[0] + xs.min() * c, region[1] + ys.min() * c,
                    region[0] + (xs.max() + 1) * c, region[1] + (ys.max() + 1) * c)
            area = (core[2] - core[0]) * (core[3] - core[1])
            if partial and area < PARTIAL_SHARE * (region[2] - region[0]) * (
                    region[3] - region[1]):
                fresh = read(core)
                if owns is None:
                    kept = [o for o in hit[1] if o.position_mm is None
                            or not (core[0] <= o.position_mm[0] < core[2]
                                    and core[1] <= o.position_mm[1] < core[3])]
                else:
                    kept = [o for o in hit[1] if not owns(o, core)]
                got = kept + fresh
                self._zone_cache[key] = (view, got)
                return got
        got = read(None) if partial else read()
        self._zone_cache[key] = (view, got)
        return got
