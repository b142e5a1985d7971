"""The observer's dice: the reader's detections merged with the dice the mat shows
(calibration.dice_top), each die's existence probability, type and face read square-on for
games with catalogued dice, the tracker that says whether the dice were thrown, and the
readers loaded once per process."""

from __future__ import annotations

import logging
import os
import threading
from dataclasses import dataclass
from typing import Any

import numpy as np

from device.observer_pieces import PIECES_PPM, _mat
from device.table_learning import TableLearner, seen_dice
from engine.observation import Observed

logger = logging.getLogger(__name__)

DICE_ZONES: dict[str, tuple[str, ...]] = {"icedice": ("rolling",),
                                          "pyramid_dice": ("rolling",)}
"""Where a game's dice lie: a 'die' found elsewhere is a piece's or a card's detail."""
TRACK_MM = 6.0
"""A die whose nearest die of the last reading is farther than this has moved (a die that
is only looked at again moves < 1 mm; a thrown one lands centimetres away)."""
MAX_DIE_CONFIDENCE = 0.995
"""Ceiling of a die's existence probability (a shadow or a crumb can always fool both)."""
FOUND_ON_MAT = 0.5
"""Detector score given to a die found only by its difference from the mat (the classifier's
P(a die) on its crop may raise it, see _die_confidence)."""
CONFIRMED_DIE = 0.97
"""Probability that a die is real when two independent readings agree: the mat shows a
die-sized thing there (calibration.dice_top.find_on_mat) and its top face reads square-on as
one face of the game's dice with at least CONFIRMED_FACE. Without it the existence score is
the detector's or the pip classifier's, neither trained on custom dice (IceDice: 0.5-0.7),
and every roll's outcome was weighed against "a false die and a missed one" and asked.
The last session's count on rendered IceDice tables (160 dice): no extra die; on real tables
UNMEASURED."""
CONFIRMED_FACE = 0.9
"""A face read at least this sure (square-on for catalogued dice, by the pip classifier for
plain d6) is one of the two readings that confirm a die (CONFIRMED_DIE, SURE_PLAIN_DIE)."""
SURE_PLAIN_DIE = 0.95
"""Least existence probability of a plain d6 (a game with no catalogued dice whose dice zone
is known, DICE_ZONES: Pyramid Dice; Pyradice is not measured) whose face the classifier
reads with at least CONFIRMED_FACE. The mat rarely confirms these
(calibration.dice_top.find_on_mat found 0-1 of the 3 white dice on simulated Pyramid Dice
tables), and the detector and the classifier's "not a die" score white dice showing 2 or 1
at 0.4-0.9: every such roll or Ra re-roll was weighed against "a false die and a missed
one", and asked (simulated Pyramid Dice, seed 200, 10 matches: 11 of the 38 questions, 9
of them with the truth on top at 0.70-0.90). Measured on simulated Pyramid Dice (seeds
200-209, 300-324, 400-414 with fouls): of 718 die readings scored below 0.9 with a face read at 0.9
or more, none was a die that was not there; the only two readings of no die (a second box
on one die, 0.86 and 0.88) read their face at 0.73-0.74. On real tables UNMEASURED."""
TYPE_CONFIDENCE = 0.97
"""Probability given to the die type read by nearest face means; the rest stays "something
else". A chosen value, UNMEASURED: no command measures the type read on whole tables yet
(`dicetable pieces` measures faces of a known type)."""




@dataclass
class DieTracker:
    """Did the dice leave their places since the last reading? (the camera's own answer to
    "was this a throw?": dice that were not thrown stay put).

    True when at least half of them did (a throw moves every die it throws; both IceDice
    dice, all three Pyramid Dice dice), False when none did, None when fewer did: one die
    of three off its place is a die turned by hand and put back a little aside, or a die
    the reader missed once, as likely as a throw whose dice landed where dice lay; the
    rules then weigh the moves by what the faces show alone."""

    last: np.ndarray | None = None

    def update(self, positions: np.ndarray) -> bool | None:
        prev, self.last = self.last, positions
        if prev is None:
            # The first reading is the reference the match starts from: the dice lie where
            # they were found, nothing has been thrown since.
            return False
        if len(positions) == 0 and len(prev) == 0:
            return False
        if len(positions) == 0 or len(prev) == 0:
            return True
        d = np.linalg.norm(positions[:, None, :] - prev[None, :, :], axis=2)
        moved = max(int((d.min(axis=1) > TRACK_MM).sum()), int((d.min(axis=0) > TRACK_MM).sum()))
        if moved == 0:
            return False
        return True if 2 * moved >= max(len(positions), len(prev)) else None



class DiceReading:
    """Mixin of :class:`device.observer.TableObserver` (its game, edition, readers and the
    dice the mat showed in the last reading)."""

    game: str
    edition: str
    reader: Any
    face_reader: Any
    enrolment: Any
    _mat_dice: np.ndarray | None
    _enrolled: tuple[int, dict[str, Any]] | None
    _enrol_reader: Any
    _preparing: threading.Thread | None
    learner: TableLearner | None

    def _enrolled_dice(self) -> dict[str, Any]:
        """The dice the players enrolled in the profile file (``enrolment``), read again
        whenever the file changes: a die taught from the phone during a match is read from
        its next throw on. A file made unreadable meanwhile keeps the dice read before."""
        from calibration.enrolment import EnrolmentError, load_enrolled

        if self.enrolment is None:
            return {}
        try:
            stamp = os.stat(self.enrolment).st_mtime_ns
        except OSError:
            return {} if self._enrolled is None else self._enrolled[1]
        if self._enrolled is None or self._enrolled[0] != stamp:
            try:
                dice = load_enrolled(self.enrolment)
            except EnrolmentError as exc:
                logger.warning("%s; the dice enrolled before it are read as they were", exc)
                dice = {} if self._enrolled is None else self._enrolled[1]
            self._enrolled = (stamp, dice)
            self._prepare_enrolled(dice)
        return self._enrolled[1]

    def _enrol_face_reader(self) -> Any:
        if self._enrol_reader is None:
            from vision.faces import DieFaceReader

            self._enrol_reader = self.face_reader or DieFaceReader()
        return self._enrol_reader

    def _prepare_enrolled(self, dice: dict[str, Any]) -> None:
        """Prepare the enrolled dice on a thread of their own, as soon as the file is read
        (at start and whenever it changes): preparing a die takes 2-3 s for a wholly new one
        enrolled with five shots a face, which its first reading would otherwise spend, with
        the dice lying there waiting to be read. A reading that needs a die still being
        prepared waits for it (DieFaceReader's lock)."""
        if not dice or self._types():
            return
        reader = self._enrol_face_reader()

        def prepare() -> None:
            for name, die in sorted(dice.items()):
                try:
                    reader.prepare(die)
                except ValueError as exc:  # stale, or no shot yet: its reading says so
                    logger.info("enrolled die %s not prepared: %s", name, exc)
                except Exception as exc:  # a thread's error must not be lost
                    logger.warning("enrolled die %s not prepared ahead (%s): it is prepared "
                                   "when first read", name, exc)

        self._preparing = threading.Thread(target=prepare, name="prepare-enrolled",
                                           daemon=True)
        self._preparing.start()

    def _with_enrolled(self, image: np.ndarray, det: Any) -> Any:
        """The dice read as faces of an enrolled die (a skull on a d6's 1 read as the 1)
        where one fits (calibration.enrolled_read). Games with catalogued dice read them by
        their type (_typed); enrolment is for the ordinary dice of the others."""
        if self._types():
            return det
        dice = self._enrolled_dice()  # each reading: a die taught meanwhile is prepared now
        if not dice or len(det) == 0:
            return det
        from calibration.enrolled_read import read_enrolled_dice, with_enrolled_faces

        return with_enrolled_faces(det, read_enrolled_dice(self._enrol_face_reader(), image, det,
                                                           dice))

    def _die_confidence(self, image: np.ndarray, det: Any, objects: list[Observed]
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
        if clf.has_features and self.learner is not None and not self._types():
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


    def _on_mat(self, prof: Any, image: np.ndarray, det: Any, heights: Any) -> tuple[Any, Any]:
        """The reader's dice, one per die (two boxes on one die are one), and the dice the
        reader missed that the mat shows (calibration.dice_top): a die it was never trained
        on is still a die-sized thing on the paper that was not there."""
        from calibration.dice_top import cube_box, find_on_mat, merge_close
        from vision.detections import Detections

        layout, g = prof.layout, prof.geometry
        zones = DICE_ZONES.get(self.game)
        if zones is None:
            return det, heights
        edge = self.die_edge_mm
        if heights is None:
            heights = np.full(len(det), layout.object_height_mm)
        pos = np.array([g.to_mm(c[None], float(z))[0]
                        for c, z in zip(det.center, heights, strict=True)]).reshape(-1, 2)
        keep = merge_close(pos, det.confidence, edge)
        det, heights, pos = det[keep], np.asarray(heights)[keep], pos[keep]
        poly = np.concatenate([np.array(layout.zone(z).polygon) for z in zones])
        (x0, y0), (x1, y1) = np.floor(poly.min(axis=0)), np.ceil(poly.max(axis=0))
        ref = _mat(layout)
        a, b = int(round(x0 * PIECES_PPM)), int(round(y0 * PIECES_PPM))
        ref = ref[b:b + int(round((y1 - y0) * PIECES_PPM)),
                  a:a + int(round((x1 - x0) * PIECES_PPM))]
        found = find_on_mat(image, g, (float(x0), float(y0), float(x1), float(y1)), ref, edge,
                            inside=lambda p: layout.locate(p)[0] in zones)
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

    @property
    def die_edge_mm(self) -> float:
        from calibration.dice_top import die_mm

        return die_mm(self.game)

    def _types(self) -> list[str]:
        """The game's catalogued die types on this table (one IceDice edition)."""
        from vision.dietypes import game_types

        other = "suits" if self.edition == "rainbow" else "rainbow"
        return [t for t in game_types(self.game) if not t.endswith("-" + other)]

    def _typed(self, prof: Any, image: np.ndarray, objects: list[Observed]) -> list[Observed]:
        """Type and face of each die of a game with catalogued dice, read square-on from the
        top face's plane, on the crop centred on the die's outline (which also says where the
        die lies)."""
        from calibration.dice_top import read_top_faces

        types = self._types()
        if not types:  # plain d6; measured on Pyramid Dice only (SURE_PLAIN_DIE)
            return self._confirmed(objects) if self.game in DICE_ZONES else objects
        if self.face_reader is None or not objects:
            return objects
        centres = np.array([o.position_mm for o in objects], np.float64)
        read = read_top_faces(self.face_reader, image, prof.geometry, centres,
                              self.die_edge_mm, types)
        dice = []
        for o, r in zip(objects, read, strict=True):
            dists: dict[str, Any] = {name: dict(d) for name, d in o.dists
                                     if name not in ("face", "colour")}
            dists["type"] = {r.type: TYPE_CONFIDENCE}
            dists["face"] = r.faces
            at = (round(r.centre_mm[0], 2), round(r.centre_mm[1], 2))
            conf = o.confidence
            mat = self._mat_dice
            if r.probability >= CONFIRMED_FACE and mat is not None and len(mat) and float(
                    np.hypot(*(mat - at).T).min()) < self.die_edge_mm * 0.7:
                conf = max(conf, CONFIRMED_DIE)
            dice.append(Observed.make("die", o.zone, o.slot, confidence=conf,
                                      position_mm=at, **dists))
        return dice

    def _confirmed(self, objects: list[Observed]) -> list[Observed]:
        """Plain d6 (Pyramid Dice): a die whose face the reader's classifier reads with at
        least CONFIRMED_FACE is a die with at least SURE_PLAIN_DIE (see there)."""
        out = []
        for o in objects:
            face = o.dist("face")
            if face and o.confidence < SURE_PLAIN_DIE and max(
                    q for _, q in face) >= CONFIRMED_FACE:
                o = Observed(o.kind, o.zone, o.slot, o.dists, SURE_PLAIN_DIE, o.position_mm)
            out.append(o)
        return out


_READERS: dict[str, tuple[Any, Any]] = {}


def shared_readers(game: str) -> tuple[Any, Any]:
    """(DiceReader, DieFaceReader or None) loaded once per process and game (the simulator
    plays many matches; loading the ONNX sessions again for each would dominate)."""
    from vision.dietypes import game_types

    key = "typed" if game_types(game) else "plain"
    if key not in _READERS:
        from vision.reader import DiceReader

        faces = None
        if key == "typed":
            from vision.faces import DieFaceReader

            faces = DieFaceReader()
        # The table's scale is known from the mat: its dice are at the main pass's sizes.
        _READERS[key] = (DiceReader(any_scale=False), faces)
    return _READERS[key]
