"""One photo of a calibrated table read with the table reader's stages: what `dicetable read
--profile` adds to the dice reader's dice, the pieces of `read --game G --profile`, and the
observation `dicetable calibrate --selftest` scores. A photo is read once and whole: no zone
is known to be unchanged, and the dice are the ones the caller's reader found (or the
renderer's truth)."""

from __future__ import annotations

import logging
from typing import Any

import numpy as np

from calibration.palette import white_reference
from calibration.perception import perception
from calibration.profile import Profile
from calibration.table.fit import current_geometry
from calibration.table.objects import observed_objects, on_markers, snapped
from calibration.table.zones import zones_seen
from engine.observation import Observation
from vision.dice.detections import Detections

logger = logging.getLogger(__name__)


def read_detections(profile: Profile, detections: Detections, image: np.ndarray, *,
                    frame: int | None = None, moved: bool | None = None,
                    kind: str = "die", refit: bool = True, snap: bool = True
                    ) -> Observation:
    """The engine's Observation of one photo's detections.

    Args:
        profile: the table's calibration.
        detections: the dice reader's result on `image` (or the renderer's truth).
        image: the photo (BGR uint8).
        frame: its sequence number, for the record.
        moved: whether the dice moved since the last observation.
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


def read_table_pieces(profile: Profile, image: np.ndarray, edition: str = "rainbow"
                      ) -> list[dict[str, Any]]:
    """The pieces of a calibrated table photo, by the piece readers of its game's spec
    (IceDice: pyramids; Pyramid Dice: card places), as `read --json` rows."""
    spec = perception(profile.layout.game)
    return [row for piece in spec.pieces for row in piece.photo(image, profile, edition)]
