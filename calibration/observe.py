"""Reader detections + calibration -> the engine's Observation (table mm, zones, slots, colours).

Each detection's box centre is taken back to the mat through the homography and corrected
for its height (a die's centre is above the table; seen from an angle it would otherwise land
millimetres off), then placed in the layout's zone and slot. Face probabilities pass through
whole; the body colour is measured under this frame's white reference and classified with the
profile's palette. ``zones_seen`` lists the zones that are in the frame and not covered by
something that is neither paper nor a detected die (a hand, an arm, a box lid).
"""

from __future__ import annotations

import logging
from dataclasses import replace
from typing import Any

import numpy as np

from calibration.homography import Geometry, check
from calibration.layouts import Layout, Zone, contains
from calibration.mat import paper_mask
from calibration.palette import PAPER_LEVEL, die_colour, lab, normalise, white_reference
from calibration.profile import Profile
from calibration.refine import refine_boxes
from engine.observation import Observation, Observed
from vision.detections import FACE_NAMES, Detections

logger = logging.getLogger(__name__)

SAMPLE_MM = 6.0
"""Spacing of the points at which a zone is checked for occlusion."""
OCCLUDED_FRACTION = 0.12
"""A zone with more than this share of foreign (not paper, not die) points is not seen."""
IN_VIEW_FRACTION = 0.97


def current_geometry(profile: Profile, image: np.ndarray) -> tuple[Profile, str]:
    """The profile fitted to this frame: scaled to its size, re-estimated if the camera moved.

    Returns (profile, status) with status ``ok``, ``moved`` or ``unseen`` (see homography.check).
    """
    prof = profile.for_image(int(image.shape[1]), int(image.shape[0]))
    result = check(prof.layout, prof.geometry, image)
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


def zones_seen(layout: Layout, geometry: Geometry, image: np.ndarray,
               detections: Detections | None = None, white: np.ndarray | None = None
               ) -> frozenset[str]:
    """Zones wholly in the frame and not covered by anything but the detected dice."""
    h_img, w_img = image.shape[:2]
    ppm = 1.0 / SAMPLE_MM
    free = paper_mask(layout, 0.5, 2.5)  # 2 mm pixels: cheap, clear of all ink
    if white is None:
        white = white_reference(image, geometry, layout)
    paper_l = lab(np.array([[PAPER_LEVEL] * 3]))[0, 0]
    boxes = detections.xyxy if detections is not None else np.zeros((0, 4))
    seen = set()
    for zone in layout.zones:
        poly = np.array(zone.polygon)
        lo, hi = poly.min(axis=0), poly.max(axis=0)
        gx, gy = np.meshgrid(np.arange(lo[0] + 3, hi[0] - 2, 1 / ppm),
                             np.arange(lo[1] + 3, hi[1] - 2, 1 / ppm))
        pts = np.column_stack([gx.ravel(), gy.ravel()])
        pts = pts[[contains(zone.polygon, (float(x), float(y))) for x, y in pts]]
        if len(pts) == 0:
            continue
        px = geometry.to_px(pts)
        inside = (px[:, 0] >= 0) & (px[:, 0] < w_img) & (px[:, 1] >= 0) & (px[:, 1] < h_img)
        if inside.mean() < IN_VIEW_FRACTION:
            continue
        pts, px = pts[inside], px[inside]
        fi = np.clip((pts * 0.5).astype(int), 0, [free.shape[1] - 1, free.shape[0] - 1])
        keep = free[fi[:, 1], fi[:, 0]]
        for x0, y0, x1, y1 in boxes:  # a die and its shadow are expected, not foreign
            bw, bh = x1 - x0, y1 - y0
            keep &= ~((px[:, 0] > x0 - bw * 0.6) & (px[:, 0] < x1 + bw * 0.6)
                      & (px[:, 1] > y0 - bh * 0.6) & (px[:, 1] < y1 + bh * 0.6))
        if keep.sum() < 5:
            seen.add(zone.name)  # all dice and ink: nothing says it is covered
            continue
        xy = np.round(px[keep]).astype(int)
        xy[:, 0] = np.clip(xy[:, 0], 0, w_img - 1)
        xy[:, 1] = np.clip(xy[:, 1], 0, h_img - 1)
        col = lab(normalise(image[xy[:, 1], xy[:, 0]].astype(np.float32), white))
        foreign = (col[:, 0] < paper_l - 15) | (np.hypot(col[:, 1], col[:, 2]) > 15)
        if foreign.mean() <= OCCLUDED_FRACTION:
            seen.add(zone.name)
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
    seen = zones_seen(prof.layout, prof.geometry, image, detections, white)
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
