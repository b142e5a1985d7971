"""Reader detections + calibration -> the engine's Observation (table mm, zones, slots, colours).

Each detection's box centre is taken back to the mat through the homography and corrected
for its height (a die's centre is above the table; seen from an angle it would otherwise land
millimetres off), then placed in the layout's zone and slot. Face probabilities pass through
whole; the body colour is measured under this frame's white reference and classified with the
profile's palette. ``zones_seen`` lists the zones that are in the frame and that no hand or arm
reaches into (see :func:`occluders`).
"""

from __future__ import annotations

import logging
from dataclasses import replace
from functools import cache
from typing import Any

import cv2
import numpy as np

from calibration.homography import Geometry, check
from calibration.layouts import Layout, Zone
from calibration.mat import paper_mask
from calibration.palette import PAPER_LEVEL, die_colour, lab, normalise, white_reference
from calibration.profile import Profile
from calibration.refine import refine_boxes
from engine.observation import Observation, Observed
from vision.detections import FACE_NAMES, Detections

logger = logging.getLogger(__name__)

OCC_PPM = 0.5
"""Resolution of the occlusion test, pixels per mm (2 mm pixels: cheap, and enough)."""
OCCLUDED_FRACTION = 0.02
"""A zone with more than this share of its area under a hand or an arm is not seen."""
IN_VIEW_FRACTION = 0.97


def current_geometry(profile: Profile, image: np.ndarray, sighting: Any = None
                     ) -> tuple[Profile, str]:
    """The profile fitted to this frame: scaled to its size, re-estimated if the camera moved.
    `sighting`: the markers already found in this frame (calibration.markers), if any.

    Returns (profile, status) with status ``ok``, ``moved`` or ``unseen`` (see homography.check).
    """
    prof = profile.for_image(int(image.shape[1]), int(image.shape[0]))
    result = check(prof.layout, prof.geometry, image, sighting=sighting)
    if result.status == "moved":
        prof = replace(prof, geometry=result.geometry)
    return prof, result.status


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


def build_observation(profile: Profile, detections: Detections, image: np.ndarray, *,
                      frame: int | None = None, moved: bool | None = None,
                      kind: str = "die", refit: bool = True, snap: bool = True
                      ) -> Observation:
    """The engine's Observation of one settled frame.

    Args:
        profile: the table's calibration.
        detections: the dice reader's result on `image`.
        image: the frame (BGR uint8).
        frame: its sequence number, for the record.
        moved: whether the settler saw motion since the last observation.
        kind: the engine's object kind of the detections.
        refit: check the markers and follow a moved camera (off when the caller already did).
        snap: tighten the reader's boxes on the die seen against the mat (off for exact boxes).
    """
    prof = current_geometry(profile, image)[0] if refit else profile.for_image(
        int(image.shape[1]), int(image.shape[0]))
    keep = np.array([m is None for m in on_markers(prof, detections)], bool)
    if not keep.all():
        logger.debug("dropped %d detections lying on the mat's markers", int((~keep).sum()))
        detections = detections[np.flatnonzero(keep)]
    heights = None
    # One white reference per frame serves the boxes, the colours and the occlusion test.
    white = white_reference(image, prof.geometry, prof.layout)
    if snap:
        detections, heights = snapped(prof, detections, image, white)
    objects = observed_objects(prof, detections, image, kind, heights, white)
    seen = zones_seen(prof.layout, prof.geometry, image, white)
    return Observation(tuple(objects), seen, moved, frame)


def annotate_detections(profile: Profile, detections: Detections, image: np.ndarray
                        ) -> list[dict[str, Any]]:
    """What `dicetable read --profile` adds to each die, in the detections' order:
    ``zone``, ``slot``, ``position_mm`` [x, y] on the mat, ``colour`` (name or None when the
    palette rejects it or has no classes), ``colour_probability``, and ``marker``: the id of
    the printed marker the detection lies on (then it is the marker, not a die: drop it)."""
    prof, status = current_geometry(profile, image)
    if status == "moved":
        logger.warning("the camera or the mat moved since calibration: re-fitted from the "
                       "markers (%.2f px)", prof.geometry.error_px)
    elif status == "unseen":
        logger.warning("too few of the mat's markers in view to check the calibration; "
                       "using it as it was")
    out = []
    markers = on_markers(prof, detections)
    white = white_reference(image, prof.geometry, prof.layout)
    tight, heights = snapped(prof, detections, image, white)
    objects = observed_objects(prof, tight, image, heights=heights, white=white)
    for o, marker in zip(objects, markers, strict=True):
        colour = o.dist("colour")
        out.append({"zone": o.zone, "slot": o.slot,
                    "position_mm": list(o.position_mm) if o.position_mm else None,
                    "colour": colour[0][0] if colour else None,
                    "colour_probability": colour[0][1] if colour else None,
                    "marker": marker})
    return out
