"""The dice reader: detector + face classifier + colour naming, for any photo.

``DiceReader().read(image)`` returns :class:`Detections` in the image's own pixels. The
classifier's extra "not a die" class removes detector false positives; its calibrated face
probabilities are kept whole so the rules engine can weigh alternatives.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from vision.classifier import FaceClassifier
from vision.colours import die_colour_names
from vision.cores import use_one_core
from vision.detections import Detections
from vision.detector import DiceDetector
from vision.photometry import normalise_light
from vision.scales import (
    detect_at_scales,
    detect_pyramid,
    inside_bigger,
    merge_by_reading,
    specks,
)

logger = logging.getLogger(__name__)

#: A detection is dropped when the classifier says "not a die" with at least this probability.
NOT_A_DIE_DROP = 0.5
#: Dice read with less confidence than this are read again in 3 more orientations (averaged);
#: few dice are that uncertain, so the cost is small and the hard ones get a second look.
SECOND_LOOK_BELOW = 0.9


@dataclass
class Timings:
    """Milliseconds spent in each stage of the last read."""

    stages: dict[str, float] = field(default_factory=dict)

    def add(self, name: str, t0: float) -> float:
        now = time.perf_counter()
        self.stages[name] = self.stages.get(name, 0.0) + (now - t0) * 1000
        return now


class DiceReader:
    """Finds and reads every die in a BGR image (no calibration needed)."""

    def __init__(self, detector_path: str | Path | None = None,
                 classifier_path: str | Path | None = None,
                 detect_threshold: float = 0.3, turns: int | None = None,
                 any_scale: bool = True, pyramid: bool = False) -> None:
        """``any_scale``: look for dice of any size (``vision.scales``: close-ups and large
        photos of a whole table); False reads at the main pass's scale only, for callers that
        know their dice are of its sizes (the live table, from the mat's calibration).
        ``pyramid``: any size by the image pyramid (:func:`vision.scales.detect_pyramid`)
        rather than by the passes that follow the dice the main pass found."""
        use_one_core()
        self.any_scale = any_scale
        self.pyramid = pyramid
        self.die_side: tuple[float, float] | None = None
        self.detector = DiceDetector(detector_path, threshold=detect_threshold)
        self.classifier = FaceClassifier(classifier_path) if turns is None else \
            FaceClassifier(classifier_path, turns=turns)
        self.timings = Timings()

    def read(self, image: np.ndarray, balanced: bool = False) -> Detections:
        """Dice in a (H, W, 3) uint8 BGR image. ``balanced``: the image is already
        :func:`vision.photometry.normalise_light`'s (a caller that cuts crops of its own from
        the balanced photo balances it once, not twice)."""
        self.timings = Timings()
        t = time.perf_counter()
        if not balanced:
            image = normalise_light(image)
        t = self.timings.add("light", t)
        found = self.candidates(image)
        t = self.timings.add("detect", t)
        if len(found) == 0:
            return found
        crops = self.classifier.preprocess(image, found.xyxy)
        t = self.timings.add("crop", t)
        faces, not_die = self.classifier.postprocess(self.classifier.infer(crops))
        unsure = np.nonzero(faces.max(axis=1) < SECOND_LOOK_BELOW)[0]
        if len(unsure) and self.classifier.turns < 4:
            faces[unsure], not_die[unsure] = self._second_look(crops[unsure], faces[unsure],
                                                               not_die[unsure])
        t = self.timings.add("classify", t)
        keep = not_die < NOT_A_DIE_DROP
        if self.any_scale:
            # The passes' boxes of one die are merged once read: the surest reading stays.
            kept = np.nonzero(keep)[0]
            keep[:] = False
            keep[kept[merge_by_reading(found.xyxy[kept], faces[kept])]] = True
            for drop in (inside_bigger, specks):  # each on the boxes the last one left
                kept = np.nonzero(keep)[0]
                keep[kept[drop(found.xyxy[kept], faces[kept])]] = False
        body, pip = die_colour_names(crops[keep])
        self.timings.add("colour", t)
        return found[keep].with_faces(faces[keep], body, pip)

    def candidates(self, image: np.ndarray) -> Detections:
        """The detector's boxes in a light-balanced image, unread and (for any scale)
        unmerged."""
        if not self.any_scale:
            return self.detector(image)
        if self.pyramid or self.die_side is not None:
            return detect_pyramid(self.detector, image, self.die_side)
        return detect_at_scales(self.detector, image, merge=False)

    def _second_look(self, crops: np.ndarray, faces: np.ndarray, not_die: np.ndarray
                     ) -> tuple[np.ndarray, np.ndarray]:
        """Average the probabilities over the four 90-degree turns of the crop.

        The first look already covered the first ``turns`` of them (weighted accordingly).
        """
        done = self.classifier.turns
        ks = range(done, 4)
        turned = np.concatenate([np.rot90(crops, k, axes=(1, 2)) for k in ks])
        f, nd = self.classifier.postprocess(
            self.classifier.infer_once(np.ascontiguousarray(turned)))
        n = len(crops)
        faces = faces * done + f.reshape(len(ks), n, -1).sum(axis=0)
        not_die = not_die * done + nd.reshape(len(ks), n).sum(axis=0)
        return faces / 4, not_die / 4
