"""The calibration procedure: one photo of the mat (with the game's dice on it) -> a Profile.

1. Find the mat's markers and fit the table geometry (any 3 markers will do; all is better).
2. Measure the paper's white round the markers: the white reference of this light.
3. Find the dice lying on the mat's zones (blobs of not-paper, no dice reader needed) and name
   their colours after the game's palette (or the names given); each colour's measured
   distribution becomes a palette class.
"""

from __future__ import annotations

import logging

import numpy as np

from calibration.geometry.homography import Geometry, estimate
from calibration.layouts import Layout
from calibration.palette import (
    Palette,
    assign_names,
    body_pixels,
    build_palette,
    find_dice,
    lab,
    white_reference,
)
from calibration.profile import Profile

logger = logging.getLogger(__name__)


class CalibrationError(ValueError):
    """The photo cannot calibrate the table; the message says what to change."""


def enrol_palette(image: np.ndarray, geometry: Geometry, layout: Layout,
                  colours: tuple[str, ...] | None, white: np.ndarray) -> Palette:
    """Palette classes from the dice lying on the mat (empty when there are none)."""
    boxes = find_dice(image, geometry, layout, white)
    if not boxes:
        return Palette(())
    pixels = [body_pixels(image, b, white) for b in boxes]
    keep = [i for i, px in enumerate(pixels) if len(px) >= 10]
    names = colours or layout.palette
    try:
        labels = assign_names([lab(pixels[i]).mean(axis=0) for i in keep], tuple(names))
    except ValueError as exc:
        raise CalibrationError(str(exc)) from None
    samples: dict[str, list[np.ndarray]] = {}
    for i, name in zip(keep, labels, strict=True):
        samples.setdefault(name, []).append(pixels[i])
    if colours:
        missing = [c for c in colours if c not in samples]
        if missing:
            raise CalibrationError(f"no die of colour {', '.join(missing)} found on the mat: "
                                   "lay one die of each colour in a zone, 5 cm from the others")
    logger.info("palette: %s", {k: len(v) for k, v in samples.items()})
    return build_palette(samples)


def calibrate_image(image: np.ndarray, layout: Layout, *, colours: tuple[str, ...] | None = None,
                    source: str = "", focal_px: float | None = None) -> Profile:
    """A profile from one photo of the mat (GeometryError / CalibrationError explain failures)."""
    geometry = estimate(layout, image, focal_px=focal_px)
    white = white_reference(image, geometry, layout)
    palette = enrol_palette(image, geometry, layout, colours, white)
    return Profile(layout, geometry, palette, tuple(float(v) for v in white),  # type: ignore
                   source=source)
