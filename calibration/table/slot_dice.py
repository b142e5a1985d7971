"""The dice stage for dice that lie in slots (Pyradice: the quarry's three stacked layers,
the spaces of each player's board): each slot is read where it is, rather than its die
found by the dice reader's detector, which was never trained on dice packed side by side
in a block (on a rendered quarry it boxed 14 things, none of them one die).

A slot's die, if there is one, shows its top face one die above the slot's floor: that
square of the plane is warped square-on (as calibration.table.dice_top reads a typed die)
and read by the pip classifier; its body colour is measured on the same square of the
photo as taken and named with the profile's palette. A stack is read from its top layer
down: a slot under a die seen in the layer above is covered (the rules list only the dice
whose top is uncovered) and not read. A slot holds a die when its square reads as one die
face (:data:`SURE_FACE`), whole (not the corners of the dice below meeting in it: every
quarter of it one body colour) and not the mat (:data:`NOT_A_DIE`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import cv2
import numpy as np

from calibration.layouts import Layout, Slot
from calibration.palette import lab, normalise, two_means
from calibration.perception import Perception, matches, resolve
from calibration.table.dice import DICE_CELL_MM, DICE_PPM
from calibration.table.dice_top import lifted_px
from calibration.table.gate import Box, ChangeGate
from calibration.table.learning import TableLearner
from calibration.table.sight import Sight
from engine.observation import Observed
from vision.dice.detections import FACE_NAMES, Detections

if TYPE_CHECKING:
    from calibration.profile import Profile
    from vision.dice.reader import DiceReader

SQUARE = 1.3
"""Side of the square read round a slot's top face, over the die's edge (as
calibration.table.dice_top.CROP_SIDE: a die set a little askew still fits)."""
SURE_FACE = 0.8
"""Least probability of the face read for a slot to hold a whole die. Uncovered dice of
rendered quarries read 0.95-1.00; the corners of four dice meeting in an empty slot's
square, or a die half covered by its neighbour above, 0.3-0.8 (two seeds, 50 slots)."""
NOT_A_DIE = 0.5
"""The classifier's P(not a die) above which a slot is empty (bare mat reads 0.9+)."""
ONE_COLOUR = 25.0
"""Largest difference (Lab) between the median colours of two quarters of a slot's square
for it to show one die: an empty slot of an upper layer shows the corners of four dice of
the layer below, which are of one colour only one time in sixty-four (the game's colours
lie 60+ apart; one die's top face, lit from one side, within 10)."""
SAME_COLOUR = 0.5
"""Least palette probability of the colour a slot's die is read as."""
PRESENT = 0.99
"""Existence probability of a die read so (the rules weigh a die against its absence)."""
MARGIN_MM = 16.0
"""Room round a change within which slots are read again (a die's neighbours above and
below it change their cover with it)."""


@dataclass(frozen=True)
class SlotDice:
    """Dice lie in the slots of the zones ``zones`` (patterns), read slot by slot."""

    zones: tuple[str, ...]
    only_leave: tuple[str, ...] = ()
    """Zones that dice only leave during play (Pyradice's quarry): a slot the match believes
    empty is not read. The state the match believes in tells which slots hold dice: those
    it lists and every slot under them (a die rests on the dice below it). Without this, an
    upper layer's empty slot over dice of one colour read as a die (rendered quarries, late
    in the match: 2 of 3 matches); a die believed taken that is still there shows as the
    die that was taken instead, still there: the rules see that."""


@dataclass
class SlotDiceStage:
    """One table's reading of its slots' dice (see the module docstring)."""

    spec: Perception
    layout: Layout
    reader: DiceReader
    learner: TableLearner | None = None
    """(the slots' dice teach nothing yet: calibration.table.learning labels the detector's
    dice)"""
    last_detections: Detections | None = None
    _boxes: dict[str, dict[str | None, np.ndarray]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        assert self.spec.slot_dice is not None
        self.zones = resolve(self.layout, self.spec.slot_dice.zones)
        # per zone: each slot's id -> the slots of lower layers under it
        self._under = {z: _under(self.layout.zone(z).slots) for z in self.zones}

    def read(self, sight: Sight, gate: ChangeGate, lap: Any) -> list[Observed]:
        dice: list[Observed] = []
        for zone in self.zones:
            dice += self._zone(sight, gate, zone)
        self.last_detections = self._detections(sight, dice)
        lap("dice")
        return dice

    def _zone(self, sight: Sight, gate: ChangeGate, zone: str) -> list[Observed]:
        z = self.layout.zone(zone)
        lo, hi = np.array(z.polygon).min(axis=0), np.array(z.polygon).max(axis=0)
        region = (float(lo[0]), float(lo[1]), float(hi[0]), float(hi[1]))
        boxes = {s.id: _box(s) for s in z.slots}

        def near(sid: str | None, core: Box) -> bool:
            b = boxes.get(sid or "")
            return b is not None and b[0] < core[2] + MARGIN_MM and \
                core[0] - MARGIN_MM < b[2] and b[1] < core[3] + MARGIN_MM and \
                core[1] - MARGIN_MM < b[3]

        def read(core: Box | None = None) -> list[Observed]:
            kept: list[Observed] = []
            if core is not None:
                last = gate.readings.get(zone)
                kept = [o for o in (last[1] if last else []) if not near(o.slot, core)]
            todo = [s for s in z.slots if core is None or near(s.id, core)]
            return self._slots(sight, zone, todo, {o.slot for o in kept})

        # compared as finely as the dice zones are, and the light's test left out: a die
        # turned by a skill changes only its pips (calibration.table.dice.DICE_PPM)
        return gate.cached(zone, sight, region, read, partial=True,
                           owns=lambda o, core: near(o.slot, core), ppm=DICE_PPM,
                           cell_mm=DICE_CELL_MM, light=False, sliding=True)

    def _slots(self, sight: Sight, zone: str, slots: list[Slot], above: set[str | None]
               ) -> list[Observed]:
        """The dice of ``slots``, read from the top layer down; ``above``: slots of the zone
        outside these that hold a die seen. A slot under a die holds one too (a die rests on
        the dice below it: the rules' pyradice.rests_on_four), so it covers the slots under
        it in turn."""
        out: list[Observed] = []
        under = self._under[zone]
        covered: set[str] = set()
        for sid in above:
            covered |= under.get(sid or "", set())
        spec = self.spec.slot_dice
        if spec is not None and sight.expected is not None and \
                matches(zone, spec.only_leave):
            held: set[str] = set()
            for e in sight.expected:
                if e.zone == zone and e.slot is not None:
                    held |= {e.slot} | under.get(e.slot, set())
            slots = [s for s in slots if s.id in held]
        for height in sorted({s.height for s in slots}, reverse=True):
            layer = [s for s in slots if s.height == height and s.id not in covered]
            if not layer:
                continue
            for s, o in zip(layer, self._read_layer(sight, zone, layer), strict=True):
                if o is not None:
                    out.append(o)
                    covered |= under[s.id]
        return out

    def _read_layer(self, sight: Sight, zone: str, slots: list[Slot]
                    ) -> list[Observed | None]:
        edge = self.spec.die_mm
        lit = _squares(sight.balanced, sight.table, slots, edge, self.reader.classifier.crop_px)
        raw = _squares(sight.image, sight.table, slots, edge, 32)
        clf = self.reader.classifier
        faces, not_die = clf.postprocess(clf.infer(lit))
        palette = sight.table.palette
        out: list[Observed | None] = []
        for s, f, nd, sq in zip(slots, faces, not_die, raw, strict=True):
            top = int(np.argmax(f[:6]))
            colours = None
            if float(nd) <= NOT_A_DIE and float(f[top]) >= SURE_FACE:
                colours = _quarters(sq, sight.paper, palette)
            if colours is None:
                out.append(None)
                continue
            dist = {FACE_NAMES[k]: round(float(f[k]), 4) for k in range(6) if f[k] > 1e-4}
            out.append(Observed.make("die", zone, s.id, confidence=PRESENT,
                                     position_mm=(round(s.centre[0], 2), round(s.centre[1], 2)),
                                     face=dist, colour=colours))
        return out

    def _detections(self, sight: Sight, dice: list[Observed]) -> Detections:
        """The slots' dice as boxes in the frame (the live picture draws them)."""
        slots: dict[tuple[str, str | None], Slot] = {(z.name, s.id): s for z in self.layout.zones
                                                     for s in z.slots}
        boxes, probs = [], []
        for o in dice:
            s = slots[(o.zone or "", o.slot)]
            sq = _corners(s.centre, self.spec.die_mm / 2)
            px = lifted_px(sight.table.geometry, sq, s.height + self.spec.die_mm)
            boxes.append([*px.min(axis=0), *px.max(axis=0)])
            row = np.zeros(len(FACE_NAMES), np.float32)
            for name, p in o.dist("face") or ():
                row[FACE_NAMES.index(name)] = p
            # (the faces' probabilities were rounded and the smallest left out)
            row[FACE_NAMES.index("unreadable")] += max(0.0, 1.0 - float(row.sum()))
            probs.append(row / row.sum())
        return Detections(np.array(boxes, np.float32).reshape(-1, 4),
                          np.full(len(boxes), PRESENT, np.float32),
                          np.array(probs, np.float32).reshape(-1, len(FACE_NAMES)))

    # (nothing is kept in the profile: see ``learner``)
    def resume_learning(self, profile_file: Any) -> None:
        return None

    def save_learning(self, profile_file: Any) -> None:
        return None


def _box(s: Slot) -> tuple[float, float, float, float]:
    p = np.array(s.polygon)
    return (float(p[:, 0].min()), float(p[:, 1].min()), float(p[:, 0].max()),
            float(p[:, 1].max()))


def _overlap(a: Slot, b: Slot) -> bool:
    """Whether two slots' footprints overlap (more than touching)."""
    ba, bb = _box(a), _box(b)
    return min(ba[2], bb[2]) - max(ba[0], bb[0]) > 0.5 and \
        min(ba[3], bb[3]) - max(ba[1], bb[1]) > 0.5


def _corners(centre: tuple[float, float], half: float) -> np.ndarray:
    x, y = centre
    return np.array([[x - half, y - half], [x + half, y - half], [x + half, y + half],
                     [x - half, y + half]])


def _squares(image: np.ndarray, table: Profile, slots: list[Slot], edge: float, px: int
             ) -> np.ndarray:
    """(N, px, px, 3) uint8: the square of SQUARE x edge round each slot's top face, one
    die above its floor, seen from straight above."""
    out = np.zeros((len(slots), px, px, 3), np.uint8)
    dst = np.array([[0, 0], [px, 0], [px, px], [0, px]], np.float32)
    for i, s in enumerate(slots):
        src = lifted_px(table.geometry, _corners(s.centre, edge * SQUARE / 2),
                        s.height + edge).astype(np.float32)
        m = cv2.getPerspectiveTransform(src, dst)
        out[i] = cv2.warpPerspective(image, m, (px, px), flags=cv2.INTER_AREA,
                                     borderMode=cv2.BORDER_REPLICATE)
    return out


def _quarters(square: np.ndarray, paper: np.ndarray, palette: Any) -> dict[str, float] | None:
    """The palette's reading of a slot's body colour when its square shows one colour all
    over (every quarter's median colour within ONE_COLOUR of the others': one die; a median
    passes over the pips), else None (the corners of four dice, or no die). The colour read
    is the body's: what is left of the square's middle when its pips are set apart (2-means
    in Lab, as calibration.palette.body_pixels)."""
    n = square.shape[0]
    rim = n // 8  # the square's rim may show a neighbour
    inner = square[rim:n - rim, rim:n - rim]
    m = inner.shape[0]
    px = lab(normalise(inner.reshape(-1, 3), paper))
    grid = px.reshape(m, m, 3)
    q = _quarter_medians(grid)
    if float(np.sqrt(((q[:, None] - q[None]) ** 2).sum(axis=2)).max()) > ONE_COLOUR:
        return None
    labels = two_means(px)
    body = labels == int(np.bincount(labels, minlength=2).argmax())
    dist = palette.classify(px[body].mean(axis=0))
    if max(dist.values(), default=0.0) < SAME_COLOUR:
        return None
    return {k: round(float(v), 4) for k, v in dist.items() if v > 1e-4}


def _quarter_medians(grid: np.ndarray) -> np.ndarray:
    """(4, 3): the median colour of each quarter of an (m, m, 3) square (top left, top
    right, bottom left, bottom right; the middle row and column of an odd square go to
    the bottom and right quarters)."""
    m = grid.shape[0]
    h = m // 2
    if m == 2 * h:  # the four at once
        return np.median(grid.reshape(2, h, 2, h, 3).transpose(0, 2, 1, 3, 4)
                         .reshape(4, h * h, 3), axis=1)
    return np.array([np.median(grid[ys, xs].reshape(-1, 3), axis=0)
                     for ys, xs in ((slice(0, h), slice(0, h)), (slice(0, h), slice(h, m)),
                                    (slice(h, m), slice(0, h)), (slice(h, m), slice(h, m)))])


def _under(slots: tuple[Slot, ...]) -> dict[str, set[str]]:
    """Each slot's id -> the ids of the slots of lower layers under it, however deep."""
    direct = {s.id: [t.id for t in slots if t.height < s.height and _overlap(s, t)]
              for s in slots}
    out: dict[str, set[str]] = {}

    def below(sid: str) -> set[str]:
        if sid not in out:
            found: set[str] = set()
            for t in direct[sid]:
                found |= {t} | below(t)
            out[sid] = found
        return out[sid]

    for s in slots:
        below(s.id)
    return out
