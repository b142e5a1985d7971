"""A game's table as a camera sees it: the printed mat with the engine's expected view drawn on
it physically, for the simulated camera and the end-to-end tests.

- the mat is the game's layout (:func:`calibration.printing.mat.render_mat`) laid on the renderer's
  table as :mod:`calibration.render.synthetic` lays it (flipped: see there);
- dice lie in their zone at jittered, non-overlapping places (IceDice colour and size dice
  with their catalogued faces, Pyramid Dice d6s); a die keeps its place until it is thrown or
  turned, so a die tracker can tell a throw from a hand that only moved pieces;
- IceDice's Looney pyramids (:func:`vision.pieces.pyramids.draw_pyramids`) stand in the Counter and
  the Vaults side by side, each keeping its place while it stays; the Bank is drawn as one
  nested stack per colour (what the players do; the camera sees its largest piece);
- Pyramid Dice cards lie in the pyramid's slots (a card's art is fixed by its id), in the side
  area and in each player's area;
- a hand and arm reaching in from an edge, light changes and small camera bumps are the
  caller's choice per frame (:meth:`TableRenderer.frame`).

Positions are the table's physical state (:class:`Placement`), kept between views.
"""

from __future__ import annotations

import logging
import zlib
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field, replace

import cv2
import numpy as np

from calibration.layouts import Layout, Slot, load_layout
from calibration.perception import perception, resolve
from calibration.printing.card_layout import CARD_BAND_MM, CARD_COLUMN_GAP_MM, CARD_MM
from calibration.render.synthetic import MatRenderer, enrolment_dice, pip_colour
from engine.observation import Expected, View, make_view
from vision.colours import PALETTE
from vision.faces.dietypes import DieType, get_type
from vision.pieces.pyramids import BASE_MM, Pyramid, draw_pyramids
from vision.synth.renderer import CameraPose, DieSpec, Lighting, Scene, render

logger = logging.getLogger(__name__)

MAT_PPM = 3.0
"""Raster resolution of the mat laid on the table (px per mm)."""
CARDS_CACHED = 8
"""Mats with their cards drawn kept for drawing again (a table put back after a foul shows
the cards it showed before). Each is a whole mat at MAT_PPM: a Pyramid Dice mat is 8.6 MB,
and the 65 kept before were most of the simulator's 1 GB."""
IMAGE_SIZE = (1280, 960)
"""The simulated camera's frame: a 4:3 mode of the Pi camera."""
CAMERA_TILT_DEG = 12.0
"""A camera on a stand at the table's side looks down at this angle (a guess of a typical
setup, UNVERIFIED; calibration handles 0-35 deg)."""
CAMERA_FILL = 0.9
"""Share of the frame the mat spans (the user frames the mat with a small margin)."""
DIE_GAP_MM = 14.0
"""Least distance between two dice's edges where they land."""
PACKED_PITCH = 1.35
"""Centre to centre, over the die's edge, of dice pushed together in a full zone."""
PACKED_YAW = 8.0
"""Most a pushed-together die is turned from square, degrees."""
PIECE_GAP_MM = 9.0
"""Gap between neighbouring pyramids standing side by side."""


def card_spot(layout: Layout, zone: str, k: int) -> tuple[float, float, float, float]:
    """(x0, y0, w, h) mm of the k-th card laid in an area zone (columns of banded cards)."""
    zp = np.array(layout.zone(zone).polygon)
    (zx0, zy0), (zx1, zy1) = zp.min(axis=0), zp.max(axis=0)
    w, h = CARD_MM
    h = min(h, zy1 - zy0 - 6)
    per_col = max(1, int((zy1 - zy0 - 6 - h) // CARD_BAND_MM) + 1)
    col, row = divmod(k, per_col)
    cols = max(1, int((zx1 - zx0 - 4) // (w + CARD_COLUMN_GAP_MM)))
    if col >= cols:
        logger.warning("area %s is full: card %d lies on another column", zone, k)
        col %= cols
    return (float(zx0 + 3 + col * (w + CARD_COLUMN_GAP_MM)), float(zy0 + 3 + row * CARD_BAND_MM),
            float(w), float(h))


@dataclass
class Placement:
    """Where each physical object lies (mat mm), carried from one view to the next."""

    dice: list[tuple[Expected, float, float, float, int]] = field(default_factory=list)
    """(object, x, y, yaw, face slot 1..6) per die."""
    pieces: dict[str, list[tuple[Expected, float, float, float]]] = field(default_factory=dict)
    """zone -> (object, x, y, yaw) per standing pyramid."""


def _die_face(exp: Expected, rng: np.random.Generator,
              extra: Mapping[str, DieType] | None = None) -> tuple[str | None, int]:
    """(die type name, face slot 1..6) that shows the expected face up (`extra`: die types
    not in the catalogue, by name)."""
    tname = exp.attr("type") or "d6"
    face = exp.attr("face")
    dtype = (extra or {}).get(tname) or get_type(tname)
    slots = [i + 1 for i, f in enumerate(dtype.faces) if face is None or f.label == face]
    if not slots:
        raise ValueError(f"die type {tname} has no face {face!r}")
    return tname, int(rng.choice(slots))


def _hex(bgr: tuple[int, int, int]) -> str:
    return f"#{bgr[2]:02x}{bgr[1]:02x}{bgr[0]:02x}"


def _overlap(a: Slot, b: Slot) -> bool:
    """Whether two slots' footprints overlap (more than touching)."""
    pa, pb = np.array(a.polygon), np.array(b.polygon)
    lo, hi = np.maximum(pa.min(axis=0), pb.min(axis=0)), np.minimum(pa.max(axis=0),
                                                                     pb.max(axis=0))
    return bool(((hi - lo) > 0.5).all())


def _palette_name(hex_colour: str) -> str:
    """The palette's name nearest a ``#rrggbb`` body colour (what the players would say)."""
    from vision.colours import PALETTE
    from vision.faces.dietypes import hex_bgr

    bgr = np.array(hex_bgr(hex_colour), np.float64)
    return min(PALETTE, key=lambda n: float(np.sum((np.array(PALETTE[n]) - bgr) ** 2)))


class TableRenderer:
    """Draws one game's table (fixed camera pose, changing light, hands, bumps)."""

    def __init__(self, game: str, players: int, seed: int = 0,
                 layout: Layout | None = None,
                 die_types: Mapping[str, DieType] | None = None) -> None:
        self.layout = layout or load_layout(game, players)
        self.die_types = dict(die_types or {})
        """Dice not in the catalogue (one the players enrolled, a d6 with a skull on the 1),
        by the name a die's ``type`` attribute gives."""
        self.game = self.layout.game
        self.mr = MatRenderer(self.layout, ppm=MAT_PPM)
        self.empty_mat = np.ascontiguousarray(self.mr.mat[::-1])  # mat orientation
        self.rng = np.random.default_rng(seed)
        self.camera = self._pose()
        self.die_mm = perception(self.game).die_mm  # the game's dice, as its spec gives
        self.placement = Placement()
        self._cards_cache: dict[tuple, np.ndarray] = {}

    # --- camera ---------------------------------------------------------------------------
    def _pose(self) -> CameraPose:
        """A fixed pose: mat centred, seen from its near long side at CAMERA_TILT_DEG."""
        w, h = self.layout.size_mm
        centre = self.mr.to_table(np.array([[w / 2, h / 2]]))[0]
        base = {"width": IMAGE_SIZE[0], "height": IMAGE_SIZE[1], "fov_deg": 62.0,
                "target_mm": (float(centre[0]), float(centre[1])), "tilt_deg": CAMERA_TILT_DEG,
                "azimuth_deg": -90.0, "roll_deg": 0.0}
        corners = self.mr.to_table(np.array([[0, 0], [w, 0], [w, h], [0, h]]))
        corners = np.column_stack([corners, np.zeros(4)])
        lo, hi = 100.0, 5000.0
        for _ in range(40):
            d = (lo + hi) / 2
            uv, _ = CameraPose(distance_mm=d, **base).project(corners)  # type: ignore[arg-type]
            span = max(np.abs(uv[:, 0] - IMAGE_SIZE[0] / 2).max() / (IMAGE_SIZE[0] / 2),
                       np.abs(uv[:, 1] - IMAGE_SIZE[1] / 2).max() / (IMAGE_SIZE[1] / 2))
            lo, hi = (d, hi) if span > CAMERA_FILL else (lo, d)
        return CameraPose(distance_mm=hi, **base)  # type: ignore[arg-type]

    def bumped(self, rng: np.random.Generator) -> CameraPose:
        """The camera knocked a little: a few mm and a fraction of a degree."""
        c = self.camera
        return replace(c, target_mm=(c.target_mm[0] + float(rng.uniform(-4, 4)),
                                     c.target_mm[1] + float(rng.uniform(-4, 4))),
                       tilt_deg=c.tilt_deg + float(rng.uniform(-0.7, 0.7)),
                       roll_deg=c.roll_deg + float(rng.uniform(-0.5, 0.5)))

    # --- physical state -------------------------------------------------------------------
    def place(self, view: View, thrown: bool) -> Placement:
        """Carry the placement over to `view`: dice keep their places unless `thrown` (then
        they land anew) or turned (same place, new face); pyramids keep theirs while they
        stay in their zone, new ones stand in the first free spot."""
        rng = self.rng
        dice = [e for e in view if e.kind == "die"]
        self._crowded = {z for z, n in Counter(e.zone for e in dice).items()
                         if z is not None and n > self._room(z)}
        old = list(self.placement.dice)
        # a crowded zone whose dice changed is laid again, pushed together (players sweep
        # dice into a Quarriors Used Pile): its dice leave their old places. Not a watched
        # zone (Perception.watched_zones: Quarriors' Wilds, each die standing on its Power
        # Card): a die taken leaves the others standing, one put back takes a free place
        standing = set(resolve(self.layout, perception(self.game).watched_zones))
        swept = {z for z in self._crowded - standing
                 if sorted(repr(e) for e in dice if e.zone == z)
                 != sorted(repr(d[0]) for d in old if d[0].zone == z)}
        old = [d for d in old if d[0].zone not in swept]
        new: list[tuple[Expected, float, float, float, int]] = []
        slots = self._slots()
        if any((e.zone, e.slot) in slots for e in dice):
            # a die in a slot lies there (a quarry's layer, a space of a player's board):
            # it keeps its place while the same die stays in it, whatever else happens
            lying = {(d[0].zone, d[0].slot): d for d in old}
            for e in dice:
                there = lying.get((e.zone, e.slot))
                new.append(there if there is not None and there[0] == e and not thrown
                           else self._land(e, new))
        elif not thrown:
            rest = []
            for e in dice:  # same die, same face: stays
                hit = next((i for i, d in enumerate(old) if d[0] == e), None)
                if hit is None:
                    rest.append(e)
                else:
                    new.append(old.pop(hit))
            for e in rest:  # turned by hand (or a face newly known): same place
                # (a die of its zone, of its type if there is one: a die moved to another
                # zone, a Quarriors die from the Active Pool to the Used Pile, lands there)
                here = [i for i, d in enumerate(old) if d[0].zone == e.zone]
                typed = [i for i in here if old[i][0].attr("type") == e.attr("type")]
                if typed or here:
                    _, x, y, yaw, _ = old.pop((typed or here)[0])
                    new.append((e, x, y, yaw, _die_face(e, rng, self.die_types)[1]))
                else:
                    new.append(self._land(e, new + old))
        else:
            # dice thrown land anew; on a table with dice in several zones (Quarriors: the
            # Active Pool thrown, the piles untouched) only the zones whose dice changed
            unchanged: set[str] = set()
            if len({e.zone for e in dice} | {d[0].zone for d in old}) > 1:
                def content(items: list[Expected], zone: str) -> list[str]:
                    return sorted(repr(e) for e in items if e.zone == zone)

                unchanged = {z for z in {e.zone for e in dice}
                             if content(dice, z) == content([d[0] for d in old], z)}
            new = [d for d in old if d[0].zone in unchanged]
            for e in dice:
                if e.zone not in unchanged:
                    new.append(self._land(e, new))
        pieces: dict[str, list[tuple[Expected, float, float, float]]] = {}
        for zone in sorted({e.zone for e in view if e.kind == "piece"} - {"bank"}):
            want = [e for e in view if e.kind == "piece" and e.zone == zone]
            before = list(self.placement.pieces.get(zone, []))
            kept: list[tuple[Expected, float, float, float] | None] = []
            for e in want:
                at = next((i for i, p in enumerate(before) if p[0] == e), None)
                kept.append(before.pop(at) if at is not None else None)
            taken = [p for p in kept if p is not None]
            for i, e in enumerate(want):
                if kept[i] is None:
                    x, y = self._free_spot(zone, e, taken)
                    kept[i] = (e, x, y, float(rng.uniform(-6, 6)))
                    taken.append(kept[i])  # type: ignore[arg-type]
            pieces[zone] = [p for p in kept if p is not None]
        self.placement = Placement(new, pieces)
        return self.placement

    def _slots(self) -> dict[tuple[str, str | None], Slot]:
        """(zone, slot id) -> slot, of every zone with slots."""
        return {(z.name, sl.id): sl for z in self.layout.zones for sl in z.slots}

    def _land(self, e: Expected, placed: list) -> tuple[Expected, float, float, float, int]:
        slot = self._slots().get((e.zone, e.slot))
        if slot is not None:
            # set in its slot by hand: off its centre by what the slot leaves free round it
            poly = np.array(slot.polygon)
            free = max(0.0, float((poly.max(axis=0) - poly.min(axis=0)).min()) - self.die_mm)
            cx, cy = slot.centre
            dx, dy = self.rng.uniform(-free / 4, free / 4, 2) if free else (0.0, 0.0)
            yaw = float(self.rng.uniform(-8, 8) if free > 2 else self.rng.uniform(-2, 2))
            return (e, float(cx + dx), float(cy + dy), yaw,
                    _die_face(e, self.rng, self.die_types)[1])
        poly = np.array(self.layout.zone(e.zone).polygon)
        if e.zone in getattr(self, "_crowded", ()):
            packed = self._packed_spot(poly, placed)
            if packed is not None:
                return (e, packed[0], packed[1], float(self.rng.uniform(-PACKED_YAW, PACKED_YAW)),
                        _die_face(e, self.rng, self.die_types)[1])
        margin = self.die_mm * 0.9
        lo, hi = poly.min(axis=0) + margin, poly.max(axis=0) - margin
        need = self.die_mm * 1.42 + DIE_GAP_MM
        for _ in range(400):
            p = self.rng.uniform(lo, hi)
            if all(np.hypot(p[0] - d[1], p[1] - d[2]) >= need for d in placed):
                break
        else:
            packed = self._packed_spot(poly, placed)
            if packed is not None:
                return (e, packed[0], packed[1], float(self.rng.uniform(-PACKED_YAW, PACKED_YAW)),
                        _die_face(e, self.rng, self.die_types)[1])
        return (e, float(p[0]), float(p[1]), float(self.rng.uniform(0, 90)),
                _die_face(e, self.rng, self.die_types)[1])

    def _room(self, zone: str) -> int:
        """How many dice land apart in a zone (DIE_GAP_MM): more are pushed together."""
        poly = np.array(self.layout.zone(zone).polygon)
        w, h = poly.max(axis=0) - poly.min(axis=0) - 2 * self.die_mm * 0.9
        need = self.die_mm * 1.42 + DIE_GAP_MM
        # dice landing one by one at random fill about 60 % of a grid's places
        return max(1, int(0.6 * (max(w, 0) // need + 1) * (max(h, 0) // need + 1)))

    def _packed_spot(self, poly: np.ndarray, placed: list) -> tuple[float, float] | None:
        """A zone too full for dice landing apart (a Quarriors Used Pile of 20 dice in 105 x
        80 mm): the dice are pushed together, nearly square to the mat, in rows
        (PACKED_PITCH); the first row place clear of every die there, or None."""
        s = self.die_mm
        half = s * (np.cos(np.radians(PACKED_YAW)) + np.sin(np.radians(PACKED_YAW))) / 2 + 0.5
        lo, hi = poly.min(axis=0) + half, poly.max(axis=0) - half
        pitch = s * PACKED_PITCH
        n = np.floor(np.maximum(hi - lo, 0) / pitch)
        lo = lo + (hi - lo - n * pitch) / 2  # the rows centred in the zone
        for y in lo[1] + pitch * np.arange(n[1] + 1):
            for x in lo[0] + pitch * np.arange(n[0] + 1):
                if all(np.hypot(x - d[1], y - d[2]) >= pitch * 0.98 and not (
                        d[3] % 90 > PACKED_YAW and d[3] % 90 < 90 - PACKED_YAW
                        and np.hypot(x - d[1], y - d[2]) < s * 1.42 + 1) for d in placed):
                    return float(x), float(y)
        return None

    def _free_spot(self, zone: str, e: Expected, taken: list) -> tuple[float, float]:
        """Rows of spots across the zone, nearest the zone's inner corner first."""
        poly = np.array(self.layout.zone(zone).polygon)
        (x0, y0), (x1, y1) = poly.min(axis=0), poly.max(axis=0)
        big = BASE_MM["L"]
        half = BASE_MM[e.attr("size") or "L"] / 2
        rows = max(1, int((y1 - y0) // (big + 2)))
        ys = np.linspace(y0 + big / 2 + 1, y1 - big / 2 - 1, rows) if rows > 1 else \
            np.array([(y0 + y1) / 2])
        for y in ys:
            x = x0 + 2
            row = sorted((p for p in taken if abs(p[2] - y) < 1), key=lambda p: p[1])
            for p in row:
                ph = BASE_MM[p[0].attr("size") or "L"] / 2
                if p[1] - ph - PIECE_GAP_MM >= x + 2 * half:
                    break
                x = p[1] + ph + PIECE_GAP_MM
            if x + 2 * half <= x1 - 1:
                return float(x + half), float(y)
        logger.warning("zone %s is full: a pyramid stands over its edge", zone)
        return float(x1 - half), float(ys[-1])

    # --- drawing --------------------------------------------------------------------------
    def _card_art(self, key: str, w: int, h: int) -> np.ndarray:
        """A card's face (fixed by its id): coloured art with a pale border."""
        rng = np.random.default_rng(zlib.crc32(key.encode()))
        card = np.full((h, w, 3), (225, 235, 240), np.uint8)
        b = max(2, int(min(w, h) * 0.06))
        hsv = np.array([[[rng.integers(0, 180), rng.integers(90, 256), rng.integers(70, 230)]]],
                       np.uint8)
        card[b:h - b, b:w - b] = cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR)[0, 0]
        for _ in range(6):
            cv2.circle(card, (int(rng.uniform(b, w - b)), int(rng.uniform(b, h - b))),
                       int(rng.uniform(0.05, 0.2) * w),
                       tuple(int(v) for v in rng.integers(0, 256, 3)), -1, cv2.LINE_AA)
        return card

    def _mat_with_cards(self, view: View) -> np.ndarray:
        cards = tuple(sorted((e.zone, e.slot or "", e.attr("card") or "")
                             for e in view if e.kind == "card"))
        if not cards:
            return self.mr.mat
        if cards in self._cards_cache:
            return self._cards_cache[cards]
        out = self.empty_mat.copy()
        ppm = MAT_PPM
        slots = {s.id: s for z in self.layout.zones for s in z.slots}
        loose: dict[str, int] = {}
        for zone, slot, cid in cards:
            if slot and slot in slots:
                poly = np.asarray(slots[slot].polygon)
                (sx0, sy0), (sx1, sy1) = poly.min(axis=0), poly.max(axis=0)
                jitter = np.random.default_rng(zlib.crc32(f"{slot}{cid}".encode())).uniform(
                    -1.5, 1.5, 2)
                x0, y0 = sx0 + 1 + jitter[0], sy0 + 1 + jitter[1]
                w, h = sx1 - sx0 - 2, sy1 - sy0 - 2
            else:
                k = loose.get(zone, 0)
                loose[zone] = k + 1
                x0, y0, w, h = card_spot(self.layout, zone, k)
            px0, py0 = int(round(x0 * ppm)), int(round(y0 * ppm))
            pw, ph = int(round(w * ppm)), int(round(h * ppm))
            if pw > 4 and ph > 4:
                # a card looks the same wherever it lies (its art is its id's)
                out[py0:py0 + ph, px0:px0 + pw] = self._card_art(cid, pw, ph)
        raster = np.ascontiguousarray(out[::-1])
        if len(self._cards_cache) > CARDS_CACHED:
            self._cards_cache.clear()
        self._cards_cache[cards] = raster
        return raster

    def _bank_stacks(self, view: View) -> list[Pyramid]:
        """The Bank: one nested stack per colour, seen as its largest piece."""
        bank = [e for e in view if e.kind == "piece" and e.zone == "bank"]
        if not bank:
            return []
        poly = np.array(self.layout.zone("bank").polygon)
        (x0, y0), (x1, y1) = poly.min(axis=0), poly.max(axis=0)
        colours = sorted({e.attr("colour") or "" for e in bank})
        order = ("S", "M", "L")
        out = []
        cols = 3
        for i, c in enumerate(colours):
            size = max((e.attr("size") or "S" for e in bank if e.attr("colour") == c),
                       key=order.index)
            cx = x0 + (x1 - x0) * (i % cols + 0.5) / cols
            cy = y0 + (y1 - y0) * (i // cols + 0.5) / 2
            out.append(Pyramid(float(cx), float(cy), c, size, 8.0 * i))
        return out

    def _die_type(self, e: Expected) -> DieType:
        """How a die is drawn: its type's faces, in the colour its ``colour`` says when it
        has one (a catalogued type drawn in another body colour; a style given for the type,
        ``die_types``, is drawn as given)."""
        tname = e.attr("type") or "d6"
        if tname in self.die_types:
            return self.die_types[tname]
        dtype = get_type(tname)
        colour = e.attr("colour")
        if colour is None or colour not in PALETTE or _palette_name(dtype.body) == colour:
            return dtype
        return replace(dtype, body=_hex(PALETTE[colour]), ink=_hex(PALETTE[pip_colour(colour)]))

    def _supports(self) -> list[tuple[Expected, float, float, float, int]]:
        """The dice a die of a stack's upper layer rests on, where the view lists none: the
        rules list only the dice whose top is uncovered, but those under them are there.
        Their colour and face are no one's to see whole: each is drawn fixed by its slot."""
        slots = self._slots()
        taken = {(e.zone, e.slot) for e, *_ in self.placement.dice}
        resting = [(e.zone, slots[(e.zone, e.slot)]) for e, *_ in self.placement.dice
                   if (e.zone, e.slot) in slots and slots[(e.zone, e.slot)].height > 0]
        out = []
        while resting:
            zone, upper = resting.pop()
            for sl in self.layout.zone(zone).slots:
                if sl.height < upper.height and sl.height >= upper.height - self.die_mm \
                        and (zone, sl.id) not in taken and _overlap(sl, upper):
                    taken.add((zone, sl.id))
                    pick = np.random.default_rng(zlib.crc32(f"{zone}/{sl.id}".encode()))
                    palette = self.layout.palette or ("white",)
                    colour = palette[int(pick.integers(len(palette)))]
                    e = Expected.make("die", zone, sl.id, type="d6", colour=colour)
                    cx, cy = sl.centre
                    out.append((e, float(cx), float(cy), 0.0, int(pick.integers(1, 7))))
                    if sl.height > 0:
                        resting.append((zone, sl))
        return out

    def render_still(self, view: View, *, camera: CameraPose | None = None,
                     light: float = 1.0, light_azimuth: float = 40.0, seed: int = 0
                     ) -> np.ndarray:
        """The table of `view` (placement as last set by :meth:`place`), uint8 BGR."""
        cam = camera or self.camera
        mat = self._mat_with_cards(view)
        slots = self._slots()
        dice = []
        for e, x, y, yaw, face in [*self.placement.dice, *self._supports()]:
            t = self.mr.to_table(np.array([x, y]))[0]
            slot = slots.get((e.zone, e.slot))
            dice.append(DieSpec(float(t[0]), float(t[1]), face, yaw, size_mm=self.die_mm,
                                die_type=self._die_type(e),
                                z_mm=slot.height if slot is not None else 0.0))
        lighting = Lighting(azimuth_deg=light_azimuth, elevation_deg=62.0, ambient=0.6)
        scene = Scene(tuple(dice), cam, lighting, seed, mat, 1 / MAT_PPM)
        img = render(scene).image
        pieces = [Pyramid(x, y, e.attr("colour") or "red", e.attr("size") or "L", yaw)
                  for zone in self.placement.pieces.values() for e, x, y, yaw in zone]
        pieces += self._bank_stacks(view)
        if pieces:
            f = img.astype(np.float32) / 255.0
            _, centre = cam.extrinsics()
            table = []
            for p in pieces:
                tx, ty = self.mr.to_table(np.array([p.x, p.y]))[0]
                table.append(Pyramid(float(tx), float(ty), p.colour, p.size, p.yaw))
            draw_pyramids(f, table, lambda pts: cam.project(pts)[0], centre,
                          lighting.direction, np.random.default_rng(seed))
            img = np.clip(f * 255 + 0.5, 0, 255).astype(np.uint8)
        if light != 1.0:
            img = cv2.convertScaleAbs(img, alpha=light)
        return img

    def calibration_shot(self) -> np.ndarray:
        """The mat with the players' plain dice on it, where they lie now: the photo
        `dicetable calibrate` asks for, taken before the cards and pieces are set out (the
        palette is enrolled from what lies on the mat, so a card's art must not be there).
        Dice read by their faces (IceDice's) enrol no colour: they are left out."""
        saved = self.placement
        if self._coloured():
            # dice told by their colour: the players lay one of each colour apart on bare
            # paper, as `dicetable calibrate` asks
            rng = np.random.default_rng(zlib.crc32(f"enrol {self.layout.key}".encode()))
            dice = [(Expected.make("die", self.layout.locate((d.x, d.y))[0] or "",
                                   type="d6", colour=d.colour, face=str(d.value)),
                     d.x, d.y, float(rng.uniform(0, 90)), d.value)
                    for d in enrolment_dice(self.layout, rng)]
        else:
            dice = list(saved.dice) if self.dice_colours() else []
        self.placement = Placement(dice, {})
        try:
            return self.render_still(make_view(e for e, *_ in dice))
        finally:
            self.placement = saved

    def _coloured(self) -> bool:
        """Whether the game's dice are told apart by their colour (the view gives it)."""
        return any(e.attr("colour") is not None for e, *_ in self.placement.dice)

    def dice_colours(self) -> tuple[str, ...] | None:
        """The colour names the players give `calibrate --colours` for the dice lying out:
        the game's palette for dice told by their colour (one of each laid out,
        :meth:`calibration_shot`), else white for the renderer's plain d6; None for dice
        read by their faces (no colour to enrol) and for no dice."""
        if self._coloured():
            return self.layout.palette
        dice = [e for e, *_ in self.placement.dice]
        if dice and all((e.attr("type") or "d6") == "d6" for e in dice):
            drawn = self.die_types.get("d6")
            return ("white",) if drawn is None else (_palette_name(drawn.body),)
        return None

    def with_hand(self, image: np.ndarray, reach: float, side: int, seed: int) -> np.ndarray:
        """`image` with an arm reaching in from one edge (side 0..3) by `reach` (0..1 of the
        way to the table's middle), and its soft shadow."""
        if reach <= 0:
            return image
        h, w = image.shape[:2]
        rng = np.random.default_rng(seed)
        edge = [(w * rng.uniform(0.3, 0.7), h + 40), (w * rng.uniform(0.3, 0.7), -40),
                (-40, h * rng.uniform(0.3, 0.7)), (w + 40, h * rng.uniform(0.3, 0.7))][side % 4]
        target = (w / 2 + rng.uniform(-0.2, 0.2) * w, h / 2 + rng.uniform(-0.2, 0.2) * h)
        tip = (edge[0] + (target[0] - edge[0]) * reach, edge[1] + (target[1] - edge[1]) * reach)
        # The arm's soft shadow, worked out at 1/8 scale (a blur of this size needs no more).
        q = 8
        shadow = np.zeros((h // q, w // q), np.float32)
        cv2.line(shadow, (int((edge[0] + 30) / q), int((edge[1] + 30) / q)),
                 (int((tip[0] + 30) / q), int((tip[1] + 30) / q)), 1.0,
                 max(1, int((w * 0.07 + 20) / q)))
        shade = np.round(255 * (1 - 0.35 * cv2.GaussianBlur(shadow, (0, 0), 15 / q)))
        shade = cv2.resize(shade.astype(np.uint8), (w, h), interpolation=cv2.INTER_LINEAR)
        # in 8 bits throughout: a film has a dozen of these frames per move
        out = cv2.multiply(image, cv2.merge([shade, shade, shade]), scale=1 / 255)
        width = int(w * 0.07)
        skin = np.array([105, 140, 200], np.float32) * rng.uniform(0.6, 1.1)
        colour = [float(v) for v in np.clip(skin, 0, 255)]
        cv2.line(out, (int(edge[0]), int(edge[1])), (int(tip[0]), int(tip[1])), colour, width,
                 cv2.LINE_AA)
        cv2.circle(out, (int(tip[0]), int(tip[1])), int(width * 0.8), colour, -1, cv2.LINE_AA)
        return out
