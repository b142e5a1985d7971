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

from vision.colours import die_colour_names
from vision.cores import use_one_core
from vision.dice.classifier import FaceClassifier
from vision.dice.detections import Detections
from vision.dice.detector import DiceDetector
from vision.dice.photometry import normalise_light
from vision.dice.scales import (
    SMALLEST,
    TILE,
    band,
    detect_pass,
    detect_pyramid,
    inside_bigger,
    merge_by_reading,
    outsized,
    pass_sides,
    pyramid_sides,
    specks,
)

logger = logging.getLogger(__name__)

#: A detection is dropped when the classifier says "not a die" with at least this probability.
NOT_A_DIE_DROP = 0.5
#: Dice read with less confidence than this are read again in 3 more orientations (averaged);
#: few dice are that uncertain, so the cost is small and the hard ones get a second look.
SECOND_LOOK_BELOW = 0.9
#: The image pyramid's finer passes (over the detector's home scale) stop once the smallest
#: die read surely (SURE_DIE) is at least this many px at the finest pass run so far: a die
#: of the same table that a finer pass would be needed for (under the least size the
#: detector finds, SMALLEST) would then be over 1.3 times smaller than it, more than the
#: perspective of a photo of a table makes of one size of dice. Photos of dice big enough for
#: the home scale pay for no finer pass (the bench's frames: dice of 20 px there).
FINER_UNTIL_PX = 1.1 * SMALLEST
#: A die read surely: P(a die) and its face's probability both at least this.
SURE_DIE = 0.9
#: ... the smallest but for a tenth of them (a speck read surely, or a box round the top face
#: of a die only, would otherwise run the finer passes for nothing).
FINER_PERCENTILE = 10.0


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
                 any_scale: bool = True) -> None:
        """``any_scale``: look for dice of any size by the image pyramid (``vision.dice.scales``:
        close-ups and large photos of a whole table); False reads at the detector's home
        scale only, for callers that know their dice are of its sizes (the live table, from
        the mat's calibration)."""
        use_one_core()
        self.any_scale = any_scale
        self.detect_threshold = detect_threshold
        """The detector's own threshold (an adaptation may read with another)."""
        self.die_side: tuple[float, float] | None = None
        self.detector = DiceDetector(detector_path, threshold=detect_threshold)
        self.classifier = FaceClassifier(classifier_path) if turns is None else \
            FaceClassifier(classifier_path, turns=turns)
        self.timings = Timings()

    def read(self, image: np.ndarray, balanced: bool = False,
             long_side: int | None = None, second_look: bool = True) -> Detections:
        """Dice in a (H, W, 3) uint8 BGR image. ``balanced``: the image is already
        :func:`vision.dice.photometry.normalise_light`'s (a caller that cuts crops of its own from
        the balanced photo balances it once, not twice). ``long_side``: the image is seen at
        that many px on its longer side instead of the detector's (a part cut from a photo
        seen at the photo's scale); only with ``any_scale`` off. ``second_look`` off (with
        ``any_scale`` off): the unsure are not read again turned (a caller that reads the
        faces its own way: the symbols of a game's catalogued dice, which the pip classifier
        reads unsure nearly always)."""
        self.timings = Timings()
        t = time.perf_counter()
        if not balanced:
            image = normalise_light(image)
        t = self.timings.add("light", t)
        if self.any_scale and self.die_side is None:
            found, crops, faces, not_die = self._coarse_to_fine(image)
            t = self.timings.add("detect+classify", t)
        else:
            # (a part seen at its photo's scale is read as the photo is: not a coarse pass)
            found = self.candidates(image) if long_side is None or self.any_scale \
                else self.detector(image, long_side, coarse=False)
            t = self.timings.add("detect", t)
            crops = self.classifier.preprocess(image, found.xyxy)
            t = self.timings.add("crop", t)
            faces, not_die = self._classify(crops, second_look)
            t = self.timings.add("classify", t)
        if len(found) == 0:
            return Detections.empty()
        keep = not_die < NOT_A_DIE_DROP
        if self.any_scale:
            # The passes' boxes of one die are merged once read: the surest reading stays.
            kept = np.nonzero(keep)[0]
            keep[:] = False
            keep[kept[merge_by_reading(found.xyxy[kept], faces[kept])]] = True
            for drop in (inside_bigger, specks):  # each on the boxes the last one left
                kept = np.nonzero(keep)[0]
                keep[kept[drop(found.xyxy[kept], faces[kept])]] = False
            kept = np.nonzero(keep)[0]
            sure = faces[kept].max(axis=1) * (1 - not_die[kept])
            keep[kept[outsized(found.xyxy[kept], sure)]] = False
        body, pip = die_colour_names(crops[keep])
        self.timings.add("colour", t)
        return found[keep].with_faces(faces[keep], body, pip)

    def candidates(self, image: np.ndarray) -> Detections:
        """The detector's boxes in a light-balanced image, unread and (for any scale)
        unmerged."""
        if not self.any_scale:
            return self.detector(image)
        return detect_pyramid(self.detector, image, self.die_side)

    def _classify(self, crops: np.ndarray, second_look: bool = True
                  ) -> tuple[np.ndarray, np.ndarray]:
        """Face probabilities and P(not a die) of crops, a second look for the unsure."""
        faces, not_die = self.classifier.postprocess(self.classifier.infer(crops))
        unsure = np.nonzero(faces.max(axis=1) < SECOND_LOOK_BELOW)[0]
        if second_look and len(unsure) and self.classifier.turns < 4:
            faces[unsure], not_die[unsure] = self._second_look(crops[unsure], faces[unsure],
                                                               not_die[unsure])
        return faces, not_die

    def _coarse_to_fine(self, image: np.ndarray
                        ) -> tuple[Detections, np.ndarray, np.ndarray, np.ndarray]:
        """The image pyramid's passes up to the detector's home scale, then the finer ones
        while the dice read surely do not yet show that the table's dice are big enough
        for the passes run (FINER_UNTIL_PX); each pass's boxes read as they come, each kept
        within its band (vision.dice.scales.band: the last pass run keeps any smaller)."""
        long = max(image.shape[:2])
        sides = pyramid_sides(long, self.detector.long_side)
        passes: list[tuple[int, Detections, np.ndarray, np.ndarray, np.ndarray]] = []
        for i, side in enumerate(sides):
            if side > self.detector.long_side and passes and self._big_enough(passes, long):
                break
            found = detect_pass(self.detector, image, side, TILE)
            lo, hi = band(i, len(sides))
            px = pass_sides(found, side, long)
            held = px <= hi
            if side < self.detector.long_side:
                # never the last pass run (the home scale always runs): its boxes under its
                # band would be dropped once read, so they are not read (the bench's frames:
                # 77 crops read for 40 dice without this)
                held &= px >= lo
            found = found[held]
            crops = self.classifier.preprocess(image, found.xyxy)
            faces, not_die = self._classify(crops)
            passes.append((side, found, crops, faces, not_die))
        keep = []
        for i, (side, found, *_) in enumerate(passes):
            lo = 0.0 if i == len(passes) - 1 else band(i, len(sides))[0]
            keep.append(pass_sides(found, side, long) >= lo)
        dets = [p[1][k] for p, k in zip(passes, keep, strict=True) if k.any()]
        if not dets:
            return Detections.empty(), np.zeros((0, 1, 1, 3), np.uint8), \
                np.zeros((0, 8), np.float32), np.zeros(0, np.float32)
        found = Detections(xyxy=np.concatenate([d.xyxy for d in dets]),
                           confidence=np.concatenate([d.confidence for d in dets]))
        pick = [(p, k) for p, k in zip(passes, keep, strict=True) if k.any()]
        crops = np.concatenate([p[2][k] for p, k in pick])
        faces = np.concatenate([p[3][k] for p, k in pick])
        not_die = np.concatenate([p[4][k] for p, k in pick])
        return found, crops, faces, not_die

    @staticmethod
    def _big_enough(passes: list, long: int) -> bool:
        """Whether the dice read surely so far are all big enough at the finest pass run
        (FINER_UNTIL_PX) for a finer pass to find nothing of this table's dice, and
        outnumber the boxes that pass found too small to read surely (dice a finer pass
        would read: a 4032-px photo of 180 dice of 60 px, 8 px at the home scale, whose
        coarse pass read one cluster of them surely, found 8 of them without this)."""
        side = passes[-1][0]
        sizes = []
        for own, found, _, faces, not_die in passes:
            # (a pip of a big die can read surely as a 1: only boxes the detector could take
            # for a die at their own pass count)
            sure = (faces.max(axis=1) >= SURE_DIE) & (1 - not_die >= SURE_DIE) & (
                pass_sides(found, own, long) >= SMALLEST)
            sizes += list(pass_sides(found[sure], side, long)) if sure.any() else []
        _, found, _, faces, not_die = passes[-1]
        small = ((faces.max(axis=1) < SURE_DIE) | (1 - not_die < SURE_DIE)) & (
            not_die < NOT_A_DIE_DROP) & (pass_sides(found, side, long) < FINER_UNTIL_PX)
        return bool(sizes) and float(np.percentile(sizes, FINER_PERCENTILE)) >= FINER_UNTIL_PX \
            and len(sizes) >= int(small.sum())

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
