"""The dice stage: the reader's detections → the game's dice on the table.

The dice reader (detector + pip classifier, ONNX) reads the light-balanced frame; detections
off the game's dice zones (card art and pyramids make the detector fire too) and on printed
markers are dropped; boxes are snapped to the die on the mat (calibration.table.refine);
the dice the reader missed that the mat shows are added (calibration.table.dice_top); dice
the players enrolled are read as such; each die is placed in its zone and slot
(calibration.table.objects), given its probability of being a die, and, for a game with
catalogued dice, its type and face read square-on. The dice are read again only where the
dice zones changed (calibration.table.gate).

It also keeps what the table learnt of its dice from confirmed moves
(calibration.table.learning): the reader reads with that correction, and each reading's
dice are handed to the learner.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

import numpy as np

from calibration.layouts import Layout
from calibration.perception import HEAP_CONFUSION, Perception, matches, resolve
from calibration.printing.mat import READ_PPM, mat_raster
from calibration.table.enrolled import EnrolledDice
from calibration.table.gate import Box, ChangeGate, agrees, inside
from calibration.table.learning import TableLearner, seen_dice
from calibration.table.objects import observed_objects, on_markers, snapped
from calibration.table.sight import Sight
from engine.observation import Observed
from vision.dice.detections import Detections

if TYPE_CHECKING:
    from calibration.table.dice_top import TopCache, TopReading
    from vision.dice.reader import DiceReader
    from vision.faces.reading import DieFaceReader

logger = logging.getLogger(__name__)

MAX_DIE_CONFIDENCE = 0.995
"""Ceiling of a die's existence probability (a shadow or a crumb can always fool both)."""
FOUND_ON_MAT = 0.5
"""Detector score given to a die found only by its difference from the mat (the classifier's
P(a die) on its crop may raise it, see _die_confidence)."""
CONFIRMED_DIE = 0.97
"""Probability that a die is real when two independent readings agree: the mat shows a
die-sized thing there (calibration.table.dice_top.find_on_mat) and its top face reads
square-on as one face of the game's dice with at least CONFIRMED_FACE. Without it the
existence score is the detector's or the pip classifier's, neither trained on custom dice
(IceDice: 0.5-0.7), and every roll's outcome was weighed against "a false die and a missed
one" and asked. The last session's count on rendered IceDice tables (160 dice): no extra
die; on real tables UNMEASURED."""
CONFIRMED_FACE = 0.9
"""A face read at least this sure (square-on for catalogued dice, by the pip classifier for
plain d6) is one of the two readings that confirm a die (CONFIRMED_DIE, SURE_PLAIN_DIE)."""
SURE_PLAIN_DIE = 0.95
"""Least existence probability of a plain d6 (a game whose spec gives its dice zones and no
catalogued dice) whose face the classifier reads with at least CONFIRMED_FACE. The mat
rarely confirms these (calibration.table.dice_top.find_on_mat found 0-1 of the 3 white dice
on simulated Pyramid Dice tables), and the detector and the classifier's "not a die" score
white dice showing 2 or 1 at 0.4-0.9: every such roll or Ra re-roll was weighed against "a
false die and a missed one", and asked (simulated Pyramid Dice, seed 200, 10 matches: 11 of
the 38 questions, 9 of them with the truth on top at 0.70-0.90). Measured on simulated
Pyramid Dice (seeds 200-209, 300-324, 400-414 with fouls): of 718 die readings scored below
0.9 with a face read at 0.9 or more, none was a die that was not there; the only two readings
of no die (a second box on one die, 0.86 and 0.88) read their face at 0.73-0.74. On real
tables UNMEASURED."""
TYPE_CONFIDENCE = 0.97
"""Probability given to the die type read by nearest face means; the rest stays "something
else". A chosen value, UNMEASURED: no command measures the type read on whole tables yet
(`dicetable pieces` measures faces of a known type)."""
DICE_PPM, DICE_CELL_MM = 2.0, 3.0
"""The dice zones are compared finer than a piece zone (calibration.table.gate), in sliding
windows: a die turned by hand from 5 to 3 changes its 8 mm cells at 1 px/mm by only 13 (under
ZONE_CHANGE: the turn went unseen), its 3 mm cells at 2 px/mm by 90. A purple die with gold
pips turned from 4 to 5 changed those cells by only 18 in a simulated match (``simulate
--dice purple-skull --seed 10``: unseen, the die read 4 for the rest of the turn), by 25-45
in still renders; its sliding windows by 47-70 (``calibration.table.gate._cells``)."""

Lap = Callable[[str], None]
"""Marks the end of a named step of a reading (its time is kept: the reader's timings)."""


@dataclass
class DiceStage:
    """One table's dice reading (see the module docstring)."""

    spec: Perception
    layout: Layout
    reader: DiceReader
    face_reader: DieFaceReader | None = None
    edition: str = "rainbow"
    enrolled: EnrolledDice | None = None
    """the dice the players enrolled (games with ordinary dice), or None"""
    learner: TableLearner | None = field(default_factory=TableLearner)
    """what the table learnt of its dice from confirmed moves (None: learn nothing)"""
    last_detections: Detections | None = None
    """the reader's dice of the last reading, as placed on the table (the live picture)"""
    _mat_dice: np.ndarray | None = field(default=None, repr=False)
    """the dice the mat showed (mm) in the last reading"""
    _tops: TopCache | None = field(default=None, repr=False)
    """the last reading of each die typed by colour (Quarriors), kept while it lies unchanged"""

    def __post_init__(self) -> None:
        self.zones = resolve(self.layout, self.spec.dice_zones or ())
        self.heaps = resolve(self.layout, self.spec.heap_zones)
        self.types = list(self.spec.types(self.edition))

    # --- the stage ----------------------------------------------------------------------------
    def read(self, sight: Sight, gate: ChangeGate, lap: Lap) -> list[Observed]:
        """The dice of this frame (the last reading where the dice zones did not change)."""
        if self.spec.dice_zones is None:
            return self._read(sight, lap)
        # Dice that did not move are not read again (most moves take a piece or a card)
        poly = np.concatenate([np.array(self.layout.zone(z).polygon) for z in self.zones])
        lo, hi = poly.min(axis=0), poly.max(axis=0)
        region = (float(lo[0]), float(lo[1]), float(hi[0]), float(hi[1]))
        if not self.spec.partial_dice:
            return list(gate.cached("dice", sight, region, lambda: self._read(sight, lap),
                                    ppm=DICE_PPM, cell_mm=DICE_CELL_MM, light=False,
                                    sliding=True))
        # light=False: a light test counting pixels in sliding windows (4 a 3 mm window, the
        # changed parts grown 0.75 edges: commits c9bf25a and 40ea24b, reverted in 10fd3c8)
        # left a light change alone reading nothing again (8 other lights: at most 2 such
        # pixels a window; a die turned in place 5 at least), but in `simulate --game
        # quarriors --matches 10 --seed 0 --workers 1` run beside the code before
        # (2026-12-02; with the day's other reading changes too) took 0.864 of the moves
        # without a question where 0.890 and proposed 86 repairs where 40 (a Used Pile read
        # short for many readings: a heap's zone is never doubted, and no light change reads
        # it whole again any more), and its CPU p95 stayed 536 ms where 548 (bumped cameras,
        # not lights, set the tail now)
        return list(gate.cached("dice", sight, region,
                                lambda core=None: self._read(sight, lap, core),
                                partial=True, ppm=DICE_PPM, cell_mm=DICE_CELL_MM,
                                light=False, sliding=True,
                                apart_mm=PART_APART * self.spec.die_mm,
                                doubt=lambda last: self._doubted(sight, last)))

    def _doubted(self, sight: Sight, last: list[Observed]) -> list[Box]:
        """The boxes of the zones (not heaps) whose last reading is not what the state the
        match believes in puts there (calibration.table.gate.agrees): read again, though
        nothing changed there (read in parts, a die misread or missed stayed so until its
        zone changed: simulated, 5 matches, dice of the Active Pools, Ready Areas and Spent
        Piles wrong in 1 in 5 more readings than read whole each time). Their dice's kept
        readings are forgotten (TopCache.forget): else they would read as they did."""
        if sight.expected is None:
            return []
        out = []
        for zone in self.zones:
            if zone in self.heaps:
                continue
            here = [o for o in last if o.zone == zone]
            if not agrees(here, sight.expected, zone):
                poly = np.array(self.layout.zone(zone).polygon)
                (x0, y0), (x1, y1) = poly.min(axis=0), poly.max(axis=0)
                out.append((float(x0), float(y0), float(x1), float(y1)))
                if self._tops is not None:
                    self._tops.forget(out[-1])
        return out

    def _read(self, sight: Sight, lap: Lap, core: Box | None = None) -> list[Observed]:
        """The dice of the dice zones; with ``core`` (Perception.partial_dice) only those
        whose place lies in that box (mm), read on the part of the frame round it."""
        image, table = sight.image, sight.table
        layout = table.layout
        self._mat_dice = None
        lit = sight.balanced
        part = None if core is None else self._part(sight, core)
        det = self._detect(lit if part is None else lit[part[1]:part[3], part[0]:part[2]],
                           None if part is None else part[4])
        if part is not None:
            det = _shifted(det, part[0], part[1])
        lap("dice")
        # Only detections in the game's dice zones are dice (card art and pyramids make the
        # detector fire too), and none on a printed marker.
        rough: Any = table.geometry.to_mm(det.center, layout.object_height_mm) if len(det) \
            else []
        near = _grown(core, self.spec.die_mm / 2) if core is not None else None
        keep = [i for i, (m, p) in enumerate(zip(on_markers(table, det), rough, strict=True))
                if m is None and self.spec.dice_may_lie(layout.locate(
                    (float(p[0]), float(p[1])))[0])
                and (near is None or inside((float(p[0]), float(p[1])), near))]
        det = det[np.array(keep, np.int64)]
        det, heights = snapped(table, det, image, sight.paper)
        det, heights = self._on_mat(sight, det, heights, core)
        if self.enrolled is not None and not self.types:
            det = self.enrolled.read(image, det)
        objects = observed_objects(table, det, image, "die", heights, sight.paper)
        idx = [i for i, o in enumerate(objects) if self.spec.dice_may_lie(o.zone)]
        det = det[np.array(idx, np.int64)]
        objects = [objects[i] for i in idx]
        self.last_detections = det if core is None else self._kept_detections(sight, core,
                                                                              det)
        objects = self._die_confidence(image, det, objects)
        lap("dice_table")
        dice = self._typed(sight, lit, objects)
        lap("faces")
        if core is not None:  # (the dice elsewhere are the reading before's: ChangeGate)
            dice = [o for o in dice if o.position_mm is not None
                    and inside(o.position_mm, core)]
        return dice

    def _detect(self, image: np.ndarray, long_side: int | None) -> Detections:
        """The reader's dice in the (light-balanced) image, read with what the table learnt."""
        clf = getattr(self.reader, "classifier", None)
        learnt = self.learner.residual if self.learner is not None else None
        # (catalogued dice are read square-on by the face reader: the pip classifier's
        # second look at their symbols cost ~7 ms a Quarriors reading, in a cProfile of a
        # simulated match, for faces unused)
        second = not self.types
        if learnt is not None and clf is not None and clf.has_features:
            clf.adapt(learnt)  # the reader is shared by the process's tables
            try:
                return self.reader.read(image, balanced=True, long_side=long_side,
                                        second_look=second)
            finally:
                clf.adapt(None)
        return self.reader.read(image, balanced=True, long_side=long_side, second_look=second)

    def _part(self, sight: Sight, core: Box) -> tuple[int, int, int, int, int | None]:
        """(x0, y0, x1, y1) px of the frame round ``core`` (mm) and PART_MARGIN dice beyond
        it, and the long side the detector sees that part at: the frame's scale, as when it
        reads the whole frame."""
        box = _grown(core, PART_MARGIN * self.spec.die_mm)
        corners = np.array([[box[0], box[1]], [box[2], box[1]], [box[2], box[3]],
                            [box[0], box[3]]], np.float64)
        px = sight.table.geometry.to_px(corners)
        h, w = sight.image.shape[:2]
        x0, y0 = (max(0, int(np.floor(v))) for v in px.min(axis=0))
        x1, y1 = min(w, int(np.ceil(px[:, 0].max()))), min(h, int(np.ceil(px[:, 1].max())))
        detector = getattr(self.reader, "detector", None)
        home = getattr(detector, "long_side", None)
        long_side = int(round(max(x1 - x0, y1 - y0) * home / max(h, w))) if home else None
        return x0, y0, max(x1, x0 + 1), max(y1, y0 + 1), long_side

    def _kept_detections(self, sight: Sight, core: Box, det: Detections) -> Detections:
        """The live picture's boxes: the last reading's outside ``core``, and ``det``."""
        last = self.last_detections
        if last is None or not len(last):
            return det
        mm = sight.table.geometry.to_mm(last.center, sight.table.layout.object_height_mm)
        outside = np.array([not inside((float(p[0]), float(p[1])), core) for p in mm], bool)
        return Detections.concat([last[np.nonzero(outside)[0]], det])

    # --- the steps ----------------------------------------------------------------------------
    def _die_confidence(self, image: np.ndarray, det: Detections, objects: list[Observed]
                        ) -> list[Observed]:
        """Each die's probability of being a die: the larger of the detector's score and the
        classifier's P(a die) on the snapped crop (the detector sees the whole frame at a few
        hundred pixels and scores clearly visible dice 0.4-0.8; the classifier, calibrated,
        sees the die itself). Read low, a real die is cheaply explained away as a false
        detection plus a missed die, and a roll's outcome is asked instead of recorded."""
        if not objects or not hasattr(self.reader, "classifier"):
            return objects
        clf = self.reader.classifier
        crops = clf.preprocess(image, det.xyxy)
        if clf.has_features and self.learner is not None and not self.types:
            # one pass gives the learner what it needs and the existence score alike
            logits, features = clf.infer_features(crops)
            self.learner.seen(seen_dice(objects, features, logits))
            if self.learner.residual is not None:
                logits = self.learner.residual.apply(logits, features)
        else:
            logits = clf.infer(crops)
        _, not_die = clf.postprocess(logits)
        out = []
        for o, nd in zip(objects, not_die, strict=True):
            conf = float(np.clip(max(o.confidence, 1.0 - float(nd)), 0.0, MAX_DIE_CONFIDENCE))
            out.append(Observed(o.kind, o.zone, o.slot, o.dists, conf, o.position_mm))
        return out

    def _on_mat(self, sight: Sight, det: Detections, heights: np.ndarray | None,
                core: Box | None = None) -> tuple[Detections, np.ndarray | None]:
        """The reader's dice, one per die (two boxes on one die are one), and the dice the
        reader missed that the mat shows (calibration.table.dice_top): a die it was never
        trained on is still a die-sized thing on the paper that was not there. With
        ``core``: the mat looked at round it only, its dice there."""
        from calibration.table.dice_top import cube_box, find_on_mat, merge_close

        if self.spec.dice_zones is None:
            return det, heights
        image, layout, g = sight.image, sight.table.layout, sight.table.geometry
        zones = self.zones
        edge = self.spec.die_mm
        if heights is None:
            heights = np.full(len(det), layout.object_height_mm)
        pos = np.array([g.to_mm(c[None], float(z))[0]
                        for c, z in zip(det.center, heights, strict=True)]).reshape(-1, 2)
        keep = merge_close(pos, det.confidence, edge)
        det, heights, pos = det[keep], np.asarray(heights)[keep], pos[keep]
        poly = np.concatenate([np.array(layout.zone(z).polygon) for z in zones])
        (x0, y0), (x1, y1) = np.floor(poly.min(axis=0)), np.ceil(poly.max(axis=0))
        if core is not None:  # (a blob cut by the part's edge lies beyond the core)
            g0, g1, g2, g3 = _grown(core, PART_MARGIN * edge)
            x0, y0 = max(x0, np.floor(g0)), max(y0, np.floor(g1))
            x1, y1 = min(x1, np.ceil(g2)), min(y1, np.ceil(g3))
        ref = mat_raster(layout)
        a, b = int(round(x0 * READ_PPM)), int(round(y0 * READ_PPM))
        ref = ref[b:b + int(round((y1 - y0) * READ_PPM)),
                  a:a + int(round((x1 - x0) * READ_PPM))]
        found = find_on_mat(image, g, (float(x0), float(y0), float(x1), float(y1)), ref, edge,
                            inside=lambda p: layout.locate(p)[0] in zones
                            and (core is None or inside(p, core)),
                            heap=lambda p: layout.locate(p)[0] in self.heaps)
        self._mat_dice = np.array(found, np.float64).reshape(-1, 2)
        new = [p for p in found
               if not len(pos) or np.hypot(*(pos - p).T).min() >= edge * 0.7]
        if not new:
            return det, heights
        boxes = np.stack([cube_box(g, p, edge) for p in new])
        h, w = image.shape[:2]
        boxes = np.clip(boxes, 0, [w - 1, h - 1, w - 1, h - 1]).astype(np.float32)
        from vision.colours import die_colour_names

        clf = self.reader.classifier
        crops = clf.preprocess(image, boxes)
        faces, _ = clf.postprocess(clf.infer(crops))
        body, pip = die_colour_names(crops)
        extra = Detections(boxes, np.full(len(new), FOUND_ON_MAT, np.float32),
                           faces.astype(np.float32), tuple(body), tuple(pip))
        both = Detections(np.concatenate([det.xyxy, extra.xyxy]),
                          np.concatenate([det.confidence, extra.confidence]),
                          np.concatenate([det.face_probs, extra.face_probs]),
                          det.body_colour + extra.body_colour, det.pip_colour + extra.pip_colour)
        return both, np.concatenate([heights, np.full(len(new), edge / 2)])

    def _typed(self, sight: Sight, image: np.ndarray, objects: list[Observed]
               ) -> list[Observed]:
        """Type and face of each die of a game with catalogued dice, read square-on from the
        top face's plane, on the crop centred on the die's outline (which also says where the
        die lies)."""
        from calibration.table.dice_top import TopCache, read_top_faces

        types = self._in_play(sight)
        if not types:  # plain d6; measured on Pyramid Dice only (SURE_PLAIN_DIE)
            return self._confirmed(objects) if self.spec.dice_zones is not None else objects
        if self.face_reader is None or not objects:
            return objects
        edge = self.spec.die_mm
        centres = np.array([o.position_mm for o in objects], np.float64)
        faceless = self.spec.type_only_zones
        if self._tops is None:
            self._tops = TopCache()
        read = read_top_faces(self.face_reader, image, sight.table.geometry, centres, edge,
                              types, [o.zone is not None and matches(o.zone, faceless)
                                      for o in objects] if faceless else None, self._tops)
        read = _heaped(read, [o.zone if o.zone in self.heaps else None for o in objects])
        dice = []
        for o, r in zip(objects, read, strict=True):
            dists: dict[str, Any] = {name: dict(d) for name, d in o.dists
                                     if name not in ("face", "colour")}
            # a type read by colour says how sure it is (a state that cannot hold it then
            # weighs the next likeliest); else the face model's pick at TYPE_CONFIDENCE
            dists["type"] = {t: round(p * TYPE_CONFIDENCE, 4) for t, p in r.types.items()} \
                if r.types else {r.type: TYPE_CONFIDENCE}
            if r.faces:
                dists["face"] = r.faces
            at = (round(r.centre_mm[0], 2), round(r.centre_mm[1], 2))
            conf = o.confidence
            mat = self._mat_dice
            if r.probability >= CONFIRMED_FACE and mat is not None and len(mat) and float(
                    np.hypot(*(mat - at).T).min()) < edge * 0.7:
                conf = max(conf, CONFIRMED_DIE)
            dice.append(Observed.make("die", o.zone, o.slot, confidence=conf,
                                      position_mm=at, **dists))
        return _one_per_die(dice, edge)

    def dice_at(self, sight: Sight, points: np.ndarray) -> list[tuple[bool, dict[str, float]]]:
        """At each point (mm): whether a die lies there (its top face's outline is found:
        calibration.table.dice_top.locate_top) and its type as read there, as for the dice
        zones (colours and face model, among the types in play). A watched zone's changes
        (calibration.table.watch: the die taken from the Wilds, read on the look before)."""
        from calibration.table.dice_top import locate_top, read_top_faces

        types = self._in_play(sight)
        if self.face_reader is None or not types or not len(points):
            return [(False, {}) for _ in points]
        edge = self.spec.die_mm
        geometry, lit = sight.table.geometry, sight.balanced
        out: list[tuple[bool, dict[str, float]]] = []
        for p in np.asarray(points, np.float64).reshape(-1, 2):
            outline = locate_top(lit, geometry, p, edge)
            if outline is None:
                out.append((False, {}))
                continue
            r = read_top_faces(self.face_reader, lit, geometry,
                               np.array([outline.centre_mm]), edge, types)[0]
            out.append((True, dict(r.types) if r.types else {r.type: TYPE_CONFIDENCE}))
        return out

    def _in_play(self, sight: Sight) -> list[str]:
        """The die types a reading reads among: the match's (Quarriors: the Power Cards
        dealt, and the basic dice; no other die comes onto the table during it)."""
        types = self.types
        if types and sight.expected is not None:
            here = {e.attr("type") for e in sight.expected if e.kind == "die"}
            here |= set(self.spec.in_play)
            types = [t for t in types if t in here] or types
        return types

    def _confirmed(self, objects: list[Observed]) -> list[Observed]:
        """Plain d6: a die whose face the reader's classifier reads with at least
        CONFIRMED_FACE is a die with at least SURE_PLAIN_DIE (see there)."""
        out = []
        for o in objects:
            face = o.dist("face")
            if face and o.confidence < SURE_PLAIN_DIE and max(
                    q for _, q in face) >= CONFIRMED_FACE:
                o = Observed(o.kind, o.zone, o.slot, o.dists, SURE_PLAIN_DIE, o.position_mm)
            out.append(o)
        return out

    # --- what the table learns ---------------------------------------------------------------
    def resume_learning(self, profile_file: Any) -> None:
        """Start from what an earlier session of this table learnt (its profile's
        [adaptation], when made for this classifier)."""
        from calibration.adaptation_store import load_from_profile
        from vision.dice.adapt import AdaptationError, file_sha256

        clf = getattr(self.reader, "classifier", None)
        if self.learner is None or clf is None or not clf.has_features:
            return
        try:
            kept = load_from_profile(profile_file)
        except AdaptationError as exc:
            logger.warning("%s; the table starts learning its dice afresh", exc)
            return
        if kept is not None and kept.residual is not None and \
                kept.classifier_sha256 == file_sha256(clf.path):
            self.learner.prior = self.learner.residual = kept.residual
            logger.info("reading with what this table learnt of its dice before (%d dice)",
                        kept.dice)

    def save_learning(self, profile_file: Any) -> None:
        """Keep what the table learnt in its profile file."""
        from calibration.adaptation_store import save_to_profile
        from vision.dice.adapt import Adaptation, AdaptationError, file_sha256

        learner = self.learner
        assert learner is not None and learner.residual is not None
        kept = Adaptation(classifier_sha256=file_sha256(self.reader.classifier.path),
                          residual=learner.residual, die_side=None, dice=learner.fitted_on,
                          source="live")
        try:
            save_to_profile(profile_file, kept)
        except AdaptationError as exc:  # the table reads on with what it learnt
            logger.warning("%s: what the table learnt of its dice is not kept", exc)


SAME_DIE = 0.85
"""Two dice whose top faces were located closer than this share of a die's edge are one die
(two dice lying side by side, not on each other, are an edge apart at least): a die found by
the reader and again on the mat a little off (beyond calibration.table.dice_top.MERGE_SHARE)
was located onto the same outline twice, or onto its own and a neighbour's edges. Measured by
a probe, not a shipped command (simulated Quarriors, seed 3, 200 moves, 906 Used Pile dice):
dice read where there was none 58 without this, 28 at 0.6, 6 at 0.85; dice missed 19, 19,
21."""


PART_MARGIN = 2.0
"""Dice's edges round a changed part (Perception.partial_dice) that are read with it: the
detector and the mat's blobs need the whole die, and a die's top leans off its place"""
PART_APART = 3.0
"""Dice's edges apart beyond which two changes of the dice zones are read each on its own
(ChangeGate.cached's apart_mm)"""


def _grown(box: Box, mm: float) -> Box:
    return (box[0] - mm, box[1] - mm, box[2] + mm, box[3] + mm)


def _shifted(det: Detections, dx: int, dy: int) -> Detections:
    """Detections of a part of a frame cut at (dx, dy) px, in the frame's pixels."""
    if not len(det):
        return det
    return replace(det, xyxy=det.xyxy + np.array([dx, dy, dx, dy], det.xyxy.dtype))


def _one_per_die(dice: list[Observed], edge_mm: float) -> list[Observed]:
    """``dice`` (in their order) without the second reading of a die (SAME_DIE): of two,
    the surer one stays."""
    kept: list[int] = []
    for i in sorted(range(len(dice)), key=lambda i: -dice[i].confidence):
        p = dice[i].position_mm
        if p is None or all(math.dist(p, q) >= SAME_DIE * edge_mm
                            for q in (dice[j].position_mm for j in kept) if q is not None):
            kept.append(i)
    return [dice[i] for i in sorted(kept)]


def _heaped(read: list[TopReading], heaps: list[str | None]) -> list[TopReading]:
    """The type readings of dice in a heap (``heaps``: each die's heap zone, or None) with
    HEAP_CONFUSION of each spread over the types read in its heap, in their shares."""
    by_heap: dict[str, dict[str, float]] = {}
    for r, zone in zip(read, heaps, strict=True):
        if zone is not None:
            mix = by_heap.setdefault(zone, {})
            for t, p in (r.types or {r.type: 1.0}).items():
                mix[t] = mix.get(t, 0.0) + p
    out = []
    for r, zone in zip(read, heaps, strict=True):
        if zone is None:
            out.append(r)
            continue
        mix = by_heap[zone]
        total = sum(mix.values())
        own = r.types or {r.type: 1.0}
        types = {t: (1 - HEAP_CONFUSION) * own.get(t, 0.0) + HEAP_CONFUSION * q / total
                 for t, q in (mix | own).items()}
        out.append(replace(r, types={t: round(p, 4) for t, p in types.items()}))
    return out
