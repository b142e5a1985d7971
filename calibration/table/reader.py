"""The table reader: a settled camera frame → the engine's Observation, for one calibrated
table (`dicetable serve --camera SPEC --profile P`, the rendered simulated table, the tests).

Built once from a calibration profile and the game's perception spec (calibration.games), it
runs its stages in order on every frame it is given, each a module of this package:

1. camera fit (``fit``): the profile fitted to the frame, re-fitted from the markers when
   the camera was bumped;
2. light (``sight``): the paper's white in this frame, the frame balanced for the face
   readers;
3. dice (``dice``): the dice reader's detections made the game's dice on the table;
4. pieces: the spec's piece readers (``pyramids``, ``cards``);
5. zones (``zones``): the zones seen whole, and the die tracker's "were the dice thrown?".

Each zone (the dice's too) is read again only where it changed (``gate``). What the camera
cannot read is left out of ``zones_seen`` so the rules do not count it as missing (IceDice's
Bank: nested stacks show only their largest piece); the rules know what lies there from the
moves they saw.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from calibration.palette import white_reference
from calibration.perception import HEAP_MISS, PieceStage, perception, resolve
from calibration.profile import Profile
from calibration.table.dice import DiceStage
from calibration.table.enrolled import EnrolledDice
from calibration.table.fit import CameraFit
from calibration.table.gate import ChangeGate
from calibration.table.learning import TableLearner
from calibration.table.readers import shared_readers
from calibration.table.sight import Sight
from calibration.table.slot_dice import SlotDiceStage
from calibration.table.tracker import DieTracker
from calibration.table.watch import ZoneWatch
from calibration.table.zones import zones_seen
from engine.observation import Expected, Observation, Observed, View
from vision.dice.reader import DiceReader
from vision.faces.reading import DieFaceReader
from vision.frame import Frame

logger = logging.getLogger(__name__)

SAVE_EVERY = 5
"""What the table learnt is written to its profile at its first fit and every this many fits
after (each fit comes every few dice; a Pi's SD card need not be written at every move)."""


@dataclass
class TableReader:
    """Frame -> Observation for one calibrated table (see the module docstring); it provides
    :class:`calibration.table.protocol.TableReading`. Made with :meth:`build`."""

    fit: CameraFit
    dice: DiceStage | SlotDiceStage
    pieces: tuple[PieceStage, ...]
    enrolment: Path | str | None = None
    """The profile file whose [enrolment] holds the dice the players enrolled (`dicetable
    enrol`, the phone) and where what the table learnt of its dice is kept; or None."""
    gate: ChangeGate = field(default_factory=ChangeGate)
    tracker: DieTracker = field(default_factory=DieTracker)
    timings: dict[str, float] = field(default_factory=dict)
    expected: View | None = None
    """the view of the state the match is believed in (:meth:`expect`)"""
    last: tuple[Profile, tuple[Observed, ...]] | None = None
    """the table as fitted to the frame last read, and what was read there (:meth:`locate`)"""
    miss: tuple[tuple[str, float], ...] = ()
    """(zone, HEAP_MISS) of each of the table's heap zones (Perception.heap_zones), told to
    the rules with every reading (Observation.miss)"""
    watch: ZoneWatch | None = None
    """the zones watched without being read (Perception.watched_zones), or None"""

    @classmethod
    def build(cls, profile: Profile, game: str, reader: DiceReader | None = None,
              face_reader: DieFaceReader | None = None, *, edition: str = "rainbow",
              enrolment: Path | str | None = None, learn: bool = True) -> TableReader:
        """The reader of a table calibrated as ``profile`` where ``game`` is played.

        Args:
            reader, face_reader: the dice and die-face readers (each process's shared ones
                when None: the table's scale is known from the mat, so the dice reader keeps
                to its main pass).
            edition: the game's edition on this table (IceDice: rainbow or suits).
            enrolment: the profile file holding the enrolled dice and what the table learnt.
            learn: learn the table's dice from confirmed moves (calibration.table.learning).
        """
        spec = perception(game)
        if reader is None or face_reader is None:
            shared, faces = shared_readers(bool(spec.die_types))
            reader = reader or shared
            face_reader = face_reader or faces
        types = spec.types(edition)
        dice: DiceStage | SlotDiceStage
        if spec.slot_dice is not None:
            dice = SlotDiceStage(spec, profile.layout, reader)
        else:
            dice = DiceStage(spec, profile.layout, reader, face_reader, edition,
                             enrolled=EnrolledDice(enrolment, face_reader)
                             if enrolment is not None and not types else None,
                             learner=TableLearner() if learn else None)
        pieces = tuple(p.start(profile.layout, edition) for p in spec.pieces)
        watched = resolve(profile.layout, spec.watched_zones)
        table = cls(CameraFit(profile), dice, pieces, enrolment,
                    miss=tuple((z, HEAP_MISS) for z in resolve(profile.layout, spec.heap_zones)),
                    watch=ZoneWatch(profile.layout, watched,
                                    dice.dice_at if isinstance(dice, DiceStage) else None)
                    if watched else None)
        if enrolment is not None:
            if isinstance(dice, DiceStage) and dice.enrolled is not None:
                dice.enrolled.dice()  # prepares them now, not at the first throw
            dice.resume_learning(enrolment)
        return table

    # --- the protocol --------------------------------------------------------------------
    def read(self, frame: Frame) -> Observation:
        return self.observe(frame.image, frame.seq)

    def expect(self, view: View) -> None:
        """The view of the match's current state (the runtime tells it before each reading):
        the pyramid's cards are known by their slots, so each card's look is learnt there
        once, and a card in the side area is then known by its look."""
        self.expected = view
        if self.watch is not None:
            self.watch.expect(view)

    def learn(self, key: int, view: View, posterior: float, live: set[int]) -> None:
        """The rules explained the last reading with ``posterior`` and the match is now in
        the state of ``view``, its last live entry ``key`` (the runtime tells it after each
        reading): its dice are labelled by that state and the reader's correction refitted
        (calibration.table.learning); every SAVE_EVERY fits it is kept in the profile file."""
        learner = self.dice.learner
        if learner is None:
            return
        learner.confirm(key, view, posterior)
        if learner.refit(live) and self.enrolment is not None and learner.fits and \
                learner.fits % SAVE_EVERY == 1 % SAVE_EVERY:
            self.dice.save_learning(self.enrolment)

    def outline(self) -> tuple[np.ndarray, tuple[int, int]]:
        """The mat's outline in the image (pixels) and the image size it is given in: the
        settler looks for hands over the table there."""
        return self.fit.outline()

    def annotated(self, image: np.ndarray) -> np.ndarray:
        """The frame just read with the reader's dice drawn on it."""
        det = self.dice.last_detections
        if det is None or not len(det):
            return image
        from vision.dice.annotate import annotate

        return annotate(image, det)

    # --- the reading ---------------------------------------------------------------------
    @property
    def camera_status(self) -> str:
        """``ok``, ``moved`` (re-fitted from the markers) or ``unseen`` (too few markers)."""
        return self.fit.status

    def observe(self, image: np.ndarray, seq: int | None = None) -> Observation:
        """The Observation of one frame (``moved`` is the die tracker's: were the dice
        thrown since the last reading?)."""
        t = {"t": time.perf_counter()}
        self.timings = {}

        def lap(name: str) -> None:
            # (summed: the dice stage's steps run once per changed part, partial_dice)
            now = time.perf_counter()
            self.timings[name] = round(self.timings.get(name, 0.0) + (now - t["t"]) * 1000, 1)
            t["t"] = now

        table = self.fit(image)
        sight = Sight(image, table, white_reference(image, table.geometry, table.layout),
                      self.expected)
        lap("geometry")
        dice = self.dice.read(sight, self.gate, lap)
        pieces = [o for stage in self.pieces for o in stage.read(sight, self.gate)]
        lap("pieces")
        spec = self.dice.spec
        whole = zones_seen(table.layout, table.geometry, image, sight.paper)
        seen = frozenset(z for z in whole if spec.reads(z))
        changed = self.watch.observe(sight, whole) if self.watch is not None else ()
        positions = np.array([o.position_mm for o in dice if o.position_mm is not None],
                             np.float64).reshape(-1, 2)
        moved = self.tracker.update(positions)
        lap("zones")
        self.last = (table, tuple(dice + pieces))
        return Observation(tuple(dice + pieces), seen, None, seq, moved,
                           miss=self.miss, changed=changed,
                           shifts=self.watch.shifts if self.watch is not None else ())

    def locate(self, obj: Expected) -> tuple[np.ndarray, bool] | None:
        """Where ``obj`` lies in the frame last read (the protocol's): the object read in
        its zone and slot that shows what ``obj`` shows (else any of its kind there), boxed
        a die's size round its place; else its slot's or zone's outline."""
        if self.last is None:
            return None
        table, objects = self.last
        layout, geometry = table.layout, table.geometry
        there = [o for o in objects if o.kind == obj.kind and o.zone == obj.zone
                 and o.slot == obj.slot and o.position_mm is not None]
        alike = [o for o in there if all(o.dist(n) is None or o.top(n) == v
                                         for n, v in obj.attrs)]
        hits = alike or there
        if hits and hits[0].position_mm is not None:
            x, y = hits[0].position_mm
            half = self.dice.spec.die_mm * 0.9
            corners = np.array([[x - half, y - half], [x + half, y - half],
                                [x + half, y + half], [x - half, y + half]])
            uv = geometry.to_px(corners)
            return np.array([*uv.min(axis=0), *uv.max(axis=0)]), True
        polygon = layout.outline(obj.zone, obj.slot)
        if polygon is None:
            return None
        uv = geometry.to_px(np.array(polygon, np.float64))
        return np.array([*uv.min(axis=0), *uv.max(axis=0)]), False
