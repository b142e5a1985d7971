"""The dice stage's geometry: the reader's detections placed on the table.

Each detection's box centre is taken back to the mat through the homography and corrected
for its height (a die's centre is above the table; seen from an angle it would otherwise land
millimetres off), then placed in the layout's zone and slot. Face probabilities pass through
whole; the body colour is measured under this frame's white reference and classified with the
profile's palette.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from calibration.geometry.homography import Geometry
from calibration.layouts import Zone
from calibration.palette import die_colour, white_reference
from calibration.profile import Profile
from calibration.table.refine import refine_boxes
from engine.observation import Observed
from vision.dice.detections import FACE_NAMES, Detections


def _face_dist(probs: np.ndarray) -> dict[str, float]:
    # Pip faces only: the symbol / unreadable mass stays out ("something else").
    return {FACE_NAMES[k]: round(float(probs[k]), 4) for k in range(6) if probs[k] > 1e-4}


def snapped(profile: Profile, detections: Detections, image: np.ndarray,
            white: np.ndarray | None = None) -> tuple[Detections, np.ndarray | None]:
    """The detections with their boxes snapped to the die on the mat, and the height each
    box centre stands for (calibration.refine)."""
    if len(detections) == 0:
        return detections, None
    if white is None:
        white = white_reference(image, profile.geometry, profile.layout)
    boxes, heights = refine_boxes(image, detections.xyxy, profile.geometry, profile.layout,
                                  white, 2 * profile.layout.object_height_mm)
    return Detections(boxes, detections.confidence, detections.face_probs,
                      detections.body_colour, detections.pip_colour), heights


def on_markers(profile: Profile, detections: Detections) -> list[int | None]:
    """Per detection, the printed marker it lies on (black and white squares look like dice
    to a dice detector), or None. Judged at table height, where markers are."""
    if len(detections) == 0:
        return []
    mm = profile.geometry.to_mm(detections.center)
    return [profile.layout.marker_at((float(x), float(y))) for x, y in mm]


def observed_objects(profile: Profile, detections: Detections, image: np.ndarray,
                     kind: str = "die", heights: np.ndarray | None = None,
                     white: np.ndarray | None = None) -> list[Observed]:
    """One Observed per detection, in the detections' order (profile already fitted).

    `heights` (mm above the table of each box centre) defaults to the layout's object height.
    """
    g, layout = profile.geometry, profile.layout
    if len(detections) == 0:
        return []
    if heights is None:
        mm = g.to_mm(detections.center, layout.object_height_mm)
    else:
        mm = np.concatenate([g.to_mm(c[None], float(z)) for c, z in
                             zip(detections.center, heights, strict=True)])
    if not profile.palette.classes:
        white = None
    elif white is None:
        white = white_reference(image, g, layout)
    out = []
    base = np.full(len(detections), layout.object_height_mm) if heights is None else heights
    for i in range(len(detections)):
        p = (round(float(mm[i, 0]), 2), round(float(mm[i, 1]), 2))
        zone, slot = layout.locate(p)
        if zone is not None and len(layout.zone(zone).levels) > 1:
            p, slot = _stacked_slot(g, layout.zone(zone), detections.center[i], float(base[i]))
        dists: dict[str, Any] = {"face": _face_dist(detections.face_probs[i])}
        if white is not None:
            colour = die_colour(image, detections.xyxy[i], white)
            dists["colour"] = {} if colour is None else profile.palette.classify(colour)
        out.append(Observed.make(kind, zone, slot, confidence=float(detections.confidence[i]),
                                 position_mm=p, **dists))
    return out


def _stacked_slot(g: Geometry, zone: Zone, centre: np.ndarray, height: float
                  ) -> tuple[tuple[float, float], str | None]:
    """(footprint, slot) of a die in a zone whose slots stack (a quarry's layers).

    Seen from above, one pixel is a different table point for each layer's height: the die
    is on the layer for which that point falls nearest a slot's centre. Straight under the
    camera the layers coincide, and the lowest wins a tie.
    """
    best: tuple[float, tuple[float, float], str | None] = (float("inf"), (0.0, 0.0), None)
    for level in zone.levels:
        q = g.to_mm(centre[None], height + level)[0]
        p = (round(float(q[0]), 2), round(float(q[1]), 2))
        slot_id = zone.slot_at(p, level)
        if slot_id is None:
            continue
        c = next(s.centre for s in zone.slots if s.id == slot_id)
        d = float(np.hypot(p[0] - c[0], p[1] - c[1]))
        if d < best[0] - 1e-6:
            best = (d, p, slot_id)
    if best[2] is None:
        q = g.to_mm(centre[None], height)[0]
        return (round(float(q[0]), 2), round(float(q[1]), 2)), None
    return best[1], best[2]
