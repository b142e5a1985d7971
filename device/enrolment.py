"""Enrolment from the phone: one photo at a time of a die showing a named face.

The same steps as ``dicetable enrol`` (find the die, cut its crop, store its embedding in the
profile's ``[enrolment]`` table) behind an object the web app holds. The models load on the
first photo, not when the server starts, so a server that never enrols never pays for them.
Writes to the profile are serialised: two phones enrolling at once must not lose a shot.
"""

from __future__ import annotations

import logging
import threading
from pathlib import Path
from typing import Any

import numpy as np

from calibration.enrolment import EnrolmentError, check_name, enrol, load_enrolled
from vision.faces.dietypes import catalogue
from vision.imageio import ImageError, decode_image

logger = logging.getLogger(__name__)


class EnrolmentRefused(ValueError):
    """A photo or a name the enrolment cannot use; the message says why."""


def shot_crop(image: np.ndarray, reader: Any, detector: Any) -> np.ndarray:
    """The crop of the die a photo shows: the detector's most confident die, or, for a
    close-up in which no die is found, the picture's centre square (the die is the picture)."""
    found = detector(image)
    if len(found):
        best = int(np.argmax(found.confidence))
        return np.asarray(reader.crops(image, found.xyxy[best:best + 1]))
    h, w = image.shape[:2]
    s = min(h, w) / 1.15  # the crop adds 15 % around a box: the box is the square's middle
    box = np.array([[(w - s) / 2, (h - s) / 2, (w + s) / 2, (h + s) / 2]])
    return np.asarray(reader.crops(image, box))


class Enroller:
    """Adds phone photos to the enrolled dice of one profile file."""

    def __init__(self, profile: str | Path) -> None:
        self.profile = Path(profile)
        self._lock = threading.Lock()
        self._models: tuple[Any, Any] | None = None

    def _load(self) -> tuple[Any, Any]:
        if self._models is None:
            from vision.dice.detector import DiceDetector
            from vision.faces.reading import DieFaceReader

            self._models = (DieFaceReader(), DiceDetector())
        return self._models

    def dice(self) -> dict[str, Any]:
        """Every enrolled die: its base type and the number of shots per face."""
        try:
            enrolled = load_enrolled(self.profile)
        except EnrolmentError as exc:
            raise EnrolmentRefused(str(exc)) from None
        return {name: {"base": d.base, "shots": {k: len(v) for k, v in d.shots.items()}}
                | ({"stale": True} if d.stale else {}) for name, d in sorted(enrolled.items())}

    def add(self, die: str, face: str, data: bytes, base: str | None = None) -> dict[str, Any]:
        """Store one photo of `die` showing `face`; returns the die's shots per face."""
        try:  # before the photo is decoded: a bad name costs nothing
            check_name("die name", die)
            check_name("face label", face)
        except EnrolmentError as exc:
            raise EnrolmentRefused(str(exc)) from None
        if base is not None and base not in catalogue():
            raise EnrolmentRefused(
                f"unknown base type {base!r}; known: {', '.join(sorted(catalogue()))}")
        try:
            image = decode_image(data)
        except ImageError as exc:
            raise EnrolmentRefused(f"the photo: {exc}") from None
        reader, detector = self._load()
        crop = shot_crop(image, reader, detector)
        with self._lock:
            try:
                entry = enrol(self.profile, die, face, crop, base)
            except EnrolmentError as exc:
                raise EnrolmentRefused(str(exc)) from None
        logger.info("enrolled a shot of %s face %s in %s", die, face, self.profile)
        return {"die": entry.name, "base": entry.base,
                "shots": {k: len(v) for k, v in entry.shots.items()}}
