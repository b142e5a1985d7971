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

from device.observer_pieces import PIECE_ZONES, PIECES_PPM, PiecesReading, _mat
from device.observer_zones import DICE_CELL_MM, DICE_PPM, _norm
from engine.observation import Observation, Observed
from vision.frame import Frame

logger = logging.getLogger(__name__)

READ_ZONES: dict[str, tuple[str, ...]] = {
    "icedice": ("rolling", "counter", "vault:0", "vault:1", "vault:2", "vault:3", "vault:4"),
    "pyramid_dice": ("rolling", "pyramid", "side", "area:0", "area:1", "area:2", "area:3"),
}
"""Zones whose content the camera reads, per game (others: every zone)."""
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


BUMP_RESPONSE = 0.3
"""Phase correlation peak (0..1) above which a marker's patch is taken as found shifted in
the new frame (a knocked camera moves the markers by up to ~14 px of ~70 on the simulated
table: 4 mm and 0.7 degrees); markers are then refined from there (calibration.markers).
Fewer than half the markers found so, or a fit whose error is over BUMP_FIT times the last
fit's, and the whole image is searched (~40 ms of CPU on a 1280 x 960 frame, against ~3 ms
this way; on 8 simulated bumps the two fits agree within 0.19 px, errors 0.68-0.73 px for a
last fit's 0.70)."""
BUMP_FIT = 1.5
MARKER_CHANGE = 14.0
"""Mean grey difference (0..255, each patch normalised to its mean) of the markers' patches
from the last fit above which the markers are looked for again (a bumped camera moves them
by pixels: a difference of 40+; sensor noise and light changes: under 5)."""


@dataclass
class TableObserver(PiecesReading):
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
    tracker: DieTracker = field(default_factory=DieTracker)
    timings: dict[str, float] = field(default_factory=dict)
    last_detections: Any = None
    camera_status: str = "ok"
    _fitted: Any = None
    _marker_patches: list[tuple[tuple[int, ...], np.ndarray, int, np.ndarray]] | None = None
    _zone_cache: dict[str, tuple[np.ndarray, list[Observed]]] = field(default_factory=dict)
    _mat_dice: np.ndarray | None = None  # the dice the mat shows (mm), last reading
    _expected: Any = None  # the view of the state the match is believed in (expect)
    _white: Any = None  # the paper's BGR in the frame being read
    card_looks: dict[str, np.ndarray] = field(default_factory=dict)
    """card id -> the look of its top band, learnt from the pyramid as dealt"""

    def __post_init__(self) -> None:
        from vision.dietypes import game_types

        if self.reader is None:
            from vision.reader import DiceReader

            self.reader = DiceReader()
        if self.face_reader is None and game_types(self.game):
            from vision.faces import DieFaceReader

            self.face_reader = DieFaceReader()

    def __call__(self, frame: Frame) -> Observation:
        return self.observe(frame.image, frame.seq)

    def expect(self, view: Any) -> None:
        """The view of the match's current state (the runtime tells it before each reading):
        the pyramid's cards are known by their slots, so each card's look is learnt there
        once, and a card in the side area is then known by its look."""
        self._expected = view

    def table_outline(self) -> tuple[np.ndarray, tuple[int, int]]:
        """The mat's outline in the image (pixels) and the image size it is given in: the
        settler looks for hands over the table there."""
        g = self.profile.geometry
        w, h = self.profile.layout.size_mm
        return g.to_px(np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float64)), g.image_size

    # --- geometry ---------------------------------------------------------------------------
    def _patches(self, prof: Any, grey: np.ndarray) -> list:
        """Per marker in view: (its box with room round it, the box's normalised grey, the
        marker's id, its corners in pixels)."""
        out = []
        h, w = grey.shape
        for m in prof.layout.markers:
            px = prof.geometry.to_px(np.array(m.corners(), np.float64))
            (x0, y0), (x1, y1) = px.min(axis=0), px.max(axis=0)
            gx, gy = (x1 - x0) * 0.3, (y1 - y0) * 0.3
            box = (max(0, int(x0 - gx)), max(0, int(y0 - gy)), min(w, int(x1 + gx) + 1),
                   min(h, int(y1 + gy) + 1))
            if box[2] - box[0] > 4 and box[3] - box[1] > 4:
                out.append((box, _norm(grey[box[1]:box[3], box[0]:box[2]]), m.id, px))
        return out

    def _shifted_markers(self, grey: np.ndarray) -> Any:
        """The markers where their patches moved to since the last fit (phase correlation of
        each patch with the same box now), or None when fewer than half are found so."""
        import cv2

        from calibration.markers import MarkerSighting

        ids, corners = [], []
        for (x0, y0, x1, y1), ref, mid, px in self._marker_patches or []:
            now = _norm(grey[y0:y1, x0:x1])
            win = cv2.createHanningWindow((now.shape[1], now.shape[0]), cv2.CV_32F)
            (dx, dy), response = cv2.phaseCorrelate(ref, now, win)
            if response >= BUMP_RESPONSE:
                ids.append(mid)
                corners.append(px + (dx, dy))
        if 2 * len(ids) < len(self._marker_patches or []) or not ids:
            return None
        return MarkerSighting(np.array(ids, np.int64), np.array(corners, np.float64))

    def geometry(self, image: np.ndarray) -> Any:
        """The profile fitted to this frame (markers searched only when they changed)."""
        import cv2

        from calibration.observe import current_geometry

        grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
        same_size = self._fitted is not None and self._fitted.geometry.image_size == (
            image.shape[1], image.shape[0])
        if same_size and self._marker_patches:
            diffs = [float(np.abs(_norm(grey[b[1]:b[3], b[0]:b[2]]) - ref).mean())
                     for b, ref, _, _ in self._marker_patches]
            if float(np.median(diffs)) <= MARKER_CHANGE:
                return self._fitted
        prof = None
        shifted = self._shifted_markers(grey) if same_size else None
        if shifted is not None:
            last = self._fitted.geometry.error_px
            prof, self.camera_status = current_geometry(self.profile, image, shifted)
            if self.camera_status == "unseen" or prof.geometry.error_px > BUMP_FIT * last:
                prof = None
        if prof is None:
            prof, self.camera_status = current_geometry(self.profile, image)
        # (a bumped camera keeps the zone readings: they are compared on the table plane,
        # through the geometry fitted now, and read again only where the table changed)
        self._fitted = prof
        self._marker_patches = self._patches(prof, grey)
        return prof

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
        _, not_die = clf.postprocess(clf.infer(clf.preprocess(image, det.xyxy)))
        out = []
        for o, nd in zip(objects, not_die, strict=True):
            conf = float(np.clip(max(o.confidence, 1.0 - float(nd)), 0.0, MAX_DIE_CONFIDENCE))
            out.append(Observed(o.kind, o.zone, o.slot, o.dists, conf, o.position_mm))
        return out

    # --- dice -------------------------------------------------------------------------------
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
        if self.face_reader is None or not types or not objects:
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

    # --- the observation --------------------------------------------------------------------
    def observe(self, image: np.ndarray, seq: int | None = None) -> Observation:
        from calibration.observe import observed_objects, on_markers, snapped, zones_seen
        from calibration.palette import white_reference

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
            det = self.reader.read(image)
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
            objects = observed_objects(prof, det, image, "die", heights, white)
            idx = [i for i, o in enumerate(objects) if dice_zones is None or o.zone in dice_zones]
            det = det[np.array(idx, np.int64)]
            objects = [objects[i] for i in idx]
            self.last_detections = det
            objects = self._die_confidence(image, det, objects)
            lap("dice_table")
            dice = self._typed(prof, image, objects)
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
        _READERS[key] = (DiceReader(), faces)
    return _READERS[key]
