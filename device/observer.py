"""The real observer: a settled camera frame -> the engine's Observation.

Built once from a calibration profile, it runs the whole reading chain on every frame it is
given, for a real camera (`dicetable serve --camera SPEC --profile P`) and for the rendered
simulated table alike:

frame → DiceReader (detector + pip classifier, ONNX), plus the dice the mat shows
(calibration.dice_top) → type and face of the game's catalogued dice read square-on →
pyramids, card slots and card areas on the table plane (device.observer_pieces) → zones,
slots, positions through the profile's homography, re-fitted from the markers when the
camera was bumped (calibration.observe) → Observation, with ``dice_moved`` from a die
tracker. Each zone (the dice's too) is read again only where it changed
(device.observer_zones).
The camera fit is in device.observer_camera, the dice in device.observer_dice.

What the camera cannot read is left out of ``zones_seen`` so the rules do not count it as
missing: the Bank (stacks nest: only each stack's largest piece shows). The rules know what lies
there from the moves they saw.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from device.observer_camera import CameraFit
from device.observer_dice import DICE_ZONES, DiceReading, DieTracker, shared_readers
from device.observer_pieces import PIECE_ZONES, PiecesReading
from device.observer_zones import DICE_CELL_MM, DICE_PPM
from device.table_learning import TableLearner
from engine.observation import Observation, Observed
from vision.frame import Frame

logger = logging.getLogger(__name__)

SAVE_EVERY = 5
"""What the table learnt is written to its profile at its first fit and every this many fits
after (each fit comes every few dice; a Pi's SD card need not be written at every move)."""

READ_ZONES: dict[str, tuple[str, ...]] = {
    "icedice": ("rolling", "counter", "vault:0", "vault:1", "vault:2", "vault:3", "vault:4"),
    "pyramid_dice": ("rolling", "pyramid", "side", "area:0", "area:1", "area:2", "area:3"),
}
"""Zones whose content the camera reads, per game (others: every zone)."""


@dataclass
class TableObserver(CameraFit, DiceReading, PiecesReading):
    """Callable frame -> Observation for one calibrated table (see the module docstring).

    Two cheap gates keep the slow steps for the frames that need them: the markers are
    looked for again only when their patches of the image changed (a bumped camera), and a
    zone (the dice's, a piece zone, the card pyramid) is read again only where it changed
    since its last reading; otherwise its last reading stands."""

    profile: Any
    """calibration.profile.Profile"""
    game: str
    reader: Any = None
    """vision.reader.DiceReader (loaded when None)"""
    face_reader: Any = None
    """vision.faces.DieFaceReader (loaded when None and the game has catalogued dice)"""
    edition: str = "rainbow"
    enrolment: Any = None
    """The profile file whose [enrolment] holds the dice the players enrolled (`dicetable
    enrol`, the phone), or None; read again when it changes."""
    tracker: DieTracker = field(default_factory=DieTracker)
    learner: TableLearner | None = field(default_factory=TableLearner)
    """What the table learnt of its dice from confirmed moves (None: learn nothing)."""
    timings: dict[str, float] = field(default_factory=dict)
    last_detections: Any = None
    camera_status: str = "ok"
    _fitted: Any = None
    _marker_patches: list[tuple[tuple[int, ...], np.ndarray, int, np.ndarray]] | None = None
    _zone_cache: dict[str, tuple[np.ndarray, list[Observed]]] = field(default_factory=dict)
    _mat_dice: np.ndarray | None = None  # the dice the mat shows (mm), last reading
    _enrolled: Any = None  # (the enrolment file's mtime, its enrolled dice)
    _enrol_reader: Any = None  # the die-face model that reads enrolled dice (opened on use)
    _preparing: Any = None  # the thread preparing the enrolled dice (observer_dice)
    _expected: Any = None  # the view of the state the match is believed in (expect)
    _white: Any = None  # the paper's BGR in the frame being read
    card_looks: dict[str, np.ndarray] = field(default_factory=dict)
    """card id -> the look of its top band, learnt from the pyramid as dealt"""

    def __post_init__(self) -> None:
        if self.reader is None or self.face_reader is None:
            # One reader pair per process and game (shared_readers: the table's scale is
            # known from the mat, so the dice reader keeps to its main pass).
            reader, faces = shared_readers(self.game)
            if self.reader is None:
                self.reader = reader
            if self.face_reader is None:
                self.face_reader = faces
        if self.enrolment is not None:
            self._enrolled_dice()  # prepares them now, not at the first throw
            self._resume_learning()

    def __call__(self, frame: Frame) -> Observation:
        return self.observe(frame.image, frame.seq)

    def expect(self, view: Any) -> None:
        """The view of the match's current state (the runtime tells it before each reading):
        the pyramid's cards are known by their slots, so each card's look is learnt there
        once, and a card in the side area is then known by its look."""
        self._expected = view

    def learn(self, key: int, view: Any, posterior: float, live: set[int]) -> None:
        """The rules explained the last reading with ``posterior`` and the match is now in
        the state of ``view``, its last live entry ``key`` (the runtime tells it after each
        reading): its dice are labelled by that state and the reader's correction refitted
        (device.table_learning); every SAVE_EVERY fits it is kept in the profile file."""
        learner = self.learner
        if learner is None:
            return
        learner.confirm(key, view, posterior)
        if learner.refit(live) and self.enrolment is not None and learner.fits and \
                learner.fits % SAVE_EVERY == 1 % SAVE_EVERY:
            self._save_learning()

    def _resume_learning(self) -> None:
        """Start from what an earlier session of this table learnt (its profile's
        [adaptation], when made for this classifier)."""
        from calibration.adaptation_store import load_from_profile
        from vision.adapt import AdaptationError, file_sha256

        clf = getattr(self.reader, "classifier", None)
        if self.learner is None or clf is None or not clf.has_features:
            return
        try:
            kept = load_from_profile(self.enrolment)
        except AdaptationError as exc:
            logger.warning("%s; the table starts learning its dice afresh", exc)
            return
        if kept is not None and kept.residual is not None and \
                kept.classifier_sha256 == file_sha256(clf.path):
            self.learner.prior = self.learner.residual = kept.residual
            logger.info("reading with what this table learnt of its dice before (%d dice)",
                        kept.dice)

    def _save_learning(self) -> None:
        from calibration.adaptation_store import save_to_profile
        from vision.adapt import Adaptation, AdaptationError, file_sha256

        learner = self.learner
        assert learner is not None and learner.residual is not None
        kept = Adaptation(classifier_sha256=file_sha256(self.reader.classifier.path),
                          residual=learner.residual, die_side=None, dice=learner.fitted_on,
                          source="live")
        try:
            save_to_profile(self.enrolment, kept)
        except AdaptationError as exc:  # the table reads on with what it learnt
            logger.warning("%s: what the table learnt of its dice is not kept", exc)

    def table_outline(self) -> tuple[np.ndarray, tuple[int, int]]:
        """The mat's outline in the image (pixels) and the image size it is given in: the
        settler looks for hands over the table there."""
        g = self.profile.geometry
        w, h = self.profile.layout.size_mm
        return g.to_px(np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float64)), g.image_size

    # --- the observation --------------------------------------------------------------------
    def observe(self, image: np.ndarray, seq: int | None = None) -> Observation:
        from calibration.observe import observed_objects, on_markers, snapped, zones_seen
        from calibration.palette import white_reference
        from vision.photometry import normalise_light

        t = {"t": time.perf_counter()}
        self.timings = {}

        def lap(name: str) -> None:
            now = time.perf_counter()
            self.timings[name] = round((now - t["t"]) * 1000, 1)
            t["t"] = now

        prof = self.geometry(image)
        layout = prof.layout
        white = white_reference(image, prof.geometry, layout)
        self._white = white
        lap("geometry")
        dice_zones = DICE_ZONES.get(self.game)

        def read_dice() -> list[Observed]:
            self._mat_dice = None
            # The typed dice's faces are cut from the photo the reader balanced (a lamp far
            # warmer or cooler than the face models trained with, or a quarter of the
            # exposure, cost square-on readings: device.light_faces).
            lit = normalise_light(image)
            clf = getattr(self.reader, "classifier", None)
            learnt = self.learner.residual if self.learner is not None else None
            if learnt is not None and clf is not None and clf.has_features:
                clf.adapt(learnt)  # the reader is shared by the process's tables
                try:
                    det = self.reader.read(lit, balanced=True)
                finally:
                    clf.adapt(None)
            else:
                det = self.reader.read(lit, balanced=True)
            lap("dice")
            # Only detections in the game's dice zones are dice (card art and pyramids make
            # the detector fire too), and none on a printed marker.
            rough = prof.geometry.to_mm(det.center, layout.object_height_mm) if len(det) \
                else []
            keep = [i for i, (m, p) in enumerate(zip(on_markers(prof, det), rough, strict=True))
                    if m is None and (dice_zones is None or layout.locate(
                        (float(p[0]), float(p[1])))[0] in dice_zones)]
            det = det[np.array(keep, np.int64)]
            det, heights = snapped(prof, det, image, white)
            det, heights = self._on_mat(prof, image, det, heights)
            det = self._with_enrolled(image, det)
            objects = observed_objects(prof, det, image, "die", heights, white)
            idx = [i for i, o in enumerate(objects) if dice_zones is None or o.zone in dice_zones]
            det = det[np.array(idx, np.int64)]
            objects = [objects[i] for i in idx]
            self.last_detections = det
            objects = self._die_confidence(image, det, objects)
            lap("dice_table")
            dice = self._typed(prof, lit, objects)
            lap("faces")
            return dice

        if dice_zones is None:
            dice = read_dice()
        else:
            # Dice that did not move are not read again (most moves take a piece or a card)
            poly = np.concatenate([np.array(layout.zone(z).polygon) for z in dice_zones])
            region = tuple(float(v) for v in (*poly.min(axis=0), *poly.max(axis=0)))
            dice = list(self._cached("dice", prof, image, region, read_dice, ppm=DICE_PPM,
                                     cell_mm=DICE_CELL_MM, light=False))
        readable = READ_ZONES.get(self.game)
        pieces: list[Observed] = []
        if layout.game == "icedice":
            for zone in (z.name for z in layout.zones):
                if zone in PIECE_ZONES and (readable is None or zone in readable):
                    pieces += self._pyramids(prof, image, zone)
        elif layout.game == "pyramid_dice":
            pieces = list(self._cards(prof, image))  # (a copy: the cache keeps its own)
            for zone in (z.name for z in layout.zones):
                if zone == "side" or zone.startswith("area:"):
                    pieces += self._area_cards(prof, image, zone)
        lap("pieces")
        seen = zones_seen(layout, prof.geometry, image, white)
        if readable is not None:
            seen = frozenset(z for z in seen if z in readable)
        positions = np.array([o.position_mm for o in dice if o.position_mm is not None],
                             np.float64).reshape(-1, 2)
        moved = self.tracker.update(positions)
        lap("zones")
        return Observation(tuple(dice + pieces), seen, None, seq, moved)

