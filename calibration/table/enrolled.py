"""The dice stage's enrolled dice: the dice the players enrolled, found among the dice of a
photo, and the enrolment file they are read from, followed as it changes.

An ordinary die with a skull on the 1 may read as "a symbol" to the pip classifier, or, worse,
as a confident 3 (two eyes and a mouth are three blobs); a new die's faces read as symbols
or as unreadable. So when an enrolled die keeps a catalogued type's faces (``--base d6``)
every die is compared with it, otherwise only the dice read as symbols or unsure. The
comparison (vision.faces.reading: correlation with the players' shots, and the face model's
embedding) runs over the enrolled faces and the base type's rendered faces together; only a
die read as an *enrolled* face is re-read (a pip face stays the pip classifier's: it reads
pips better).
"""

from __future__ import annotations

import logging
import os
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from vision.dice.detections import FACE_NAMES, Detections
from vision.faces.reading import DieFaceReader, EnrolledDie

logger = logging.getLogger(__name__)

PIP_SURE = 0.9
"""A die whose pip value the classifier gives at least this probability, with no symbol
flag, is an ordinary face: enrolled dice are not looked at for it."""


def needs_enrolled(det: Detections, enrolled: dict[str, EnrolledDie]) -> np.ndarray:
    """Indices of the detections to compare with the enrolled dice."""
    if any(d.base for d in enrolled.values()):
        return np.arange(len(det))
    unsure = (det.value == 0) | det.symbol | (det.value_probability < PIP_SURE)
    return np.flatnonzero(unsure)


def read_enrolled_dice(reader: DieFaceReader, image: np.ndarray, det: Detections,
                       enrolled: dict[str, EnrolledDie]) -> list[dict[str, Any] | None]:
    """Per detection: ``{"die", "face", "probability", "faces"}`` of the enrolled die it is
    read as, or None (not looked at, or no enrolled face fits well enough)."""
    out: list[dict[str, Any] | None] = [None] * len(det)
    look = needs_enrolled(det, enrolled) if enrolled else np.zeros(0, int)
    if len(look) == 0:
        return out
    crops = reader.crops(image, det.xyxy[look])
    best: list[tuple[float, str, Any] | None] = [None] * len(look)
    for name, die in sorted(enrolled.items()):
        try:
            readings = reader.read_enrolled(crops, die)
        except ValueError:  # an enrolled die without a single shot yet
            continue
        for k, r in enumerate(readings):
            if r.label not in die.shots:  # rejected, or a base face: not this die's business
                continue
            held = best[k]
            if held is None or r.probability > held[0]:
                best[k] = (r.probability, name, r)
    for k, i in enumerate(look):
        chosen = best[k]
        if chosen is not None:
            p, name, r = chosen
            out[int(i)] = {"die": name, "face": r.label, "probability": round(p, 4),
                           "faces": {lb: round(v, 4) for lb, v in r.dist.items() if v > 1e-4}}
    return out


def with_enrolled_faces(det: Detections, readings: list[dict[str, Any] | None]) -> Detections:
    """The detections with the face of each die read as an enrolled one (`readings`, from
    :func:`read_enrolled_dice`) in place of the pip classifier's: the enrolled distribution
    over the pip faces 1-6; a label that is no pip face (a die enrolled with a "skull")
    counts as a symbol, which the rules cannot take for a number."""
    if not any(r is not None for r in readings):
        return det
    probs = np.array(det.face_probs, np.float64, copy=True)
    symbol = FACE_NAMES.index("symbol")
    for i, r in enumerate(readings):
        if r is None:
            continue
        row = np.zeros(probs.shape[1])
        for label, p in r["faces"].items():
            row[FACE_NAMES.index(label) if label in FACE_NAMES[:6] else symbol] += p
        # the faces' probabilities were rounded and the smallest left out: the rest is
        # "not readable", never a pip
        row[FACE_NAMES.index("unreadable")] += max(0.0, 1.0 - row.sum())
        probs[i] = row / row.sum()
    return det.with_faces(probs.astype(np.float32), det.body_colour, det.pip_colour)


@dataclass
class EnrolledDice:
    """The dice enrolled in one profile file (``path``), read again whenever the file
    changes: a die taught from the phone during a match is read from its next throw on. A
    file made unreadable meanwhile keeps the dice read before."""

    path: Path | str
    face_reader: DieFaceReader | None = None
    """the die-face model that reads them (opened on first use when None)"""
    _loaded: tuple[int, dict[str, EnrolledDie]] | None = field(default=None, repr=False)
    preparing: threading.Thread | None = field(default=None, repr=False)
    """the thread preparing the dice read last (see :meth:`prepare`)"""

    def reader(self) -> DieFaceReader:
        if self.face_reader is None:
            self.face_reader = DieFaceReader()
        return self.face_reader

    def dice(self) -> dict[str, EnrolledDie]:
        """The enrolled dice now (the file read again when it changed)."""
        from calibration.enrolment import EnrolmentError, load_enrolled

        try:
            stamp = os.stat(self.path).st_mtime_ns
        except OSError:
            return {} if self._loaded is None else self._loaded[1]
        if self._loaded is None or self._loaded[0] != stamp:
            try:
                dice = load_enrolled(self.path)
            except EnrolmentError as exc:
                logger.warning("%s; the dice enrolled before it are read as they were", exc)
                dice = {} if self._loaded is None else self._loaded[1]
            self._loaded = (stamp, dice)
            self.prepare(dice)
        return self._loaded[1]

    def prepare(self, dice: dict[str, EnrolledDie]) -> None:
        """Prepare the enrolled dice on a thread of their own, as soon as the file is read
        (at start and whenever it changes): preparing a die takes 2-3 s for a wholly new one
        enrolled with five shots a face, which its first reading would otherwise spend, with
        the dice lying there waiting to be read. A reading that needs a die still being
        prepared waits for it (DieFaceReader's lock)."""
        if not dice:
            return
        reader = self.reader()

        def run() -> None:
            for name, die in sorted(dice.items()):
                try:
                    reader.prepare(die)
                except ValueError as exc:  # stale, or no shot yet: its reading says so
                    logger.info("enrolled die %s not prepared: %s", name, exc)
                except Exception as exc:  # a thread's error must not be lost
                    logger.warning("enrolled die %s not prepared ahead (%s): it is prepared "
                                   "when first read", name, exc)

        self.preparing = threading.Thread(target=run, name="prepare-enrolled", daemon=True)
        self.preparing.start()

    def read(self, image: np.ndarray, det: Detections) -> Detections:
        """The detections with the dice read as faces of an enrolled die (a skull on a d6's
        1 read as the 1) where one fits. The file is looked at each reading: a die taught
        meanwhile is prepared now."""
        dice = self.dice()
        if not dice or len(det) == 0:
            return det
        return with_enrolled_faces(det, read_enrolled_dice(self.reader(), image, det, dice))
