"""Play-mat layouts: the mat's size, its ArUco markers, and the named zones and slots, in mm.

A layout is a data file per game and player count (``calibration/layouts/<game>-<n>.json``).
Coordinates are millimetres on the mat with the origin at its top-left corner, x to the right
and y down (the far side of the table is the top). Zone names are the ones the engine's games
use (``rolling``, ``bank``, ``vault:0``, ``pyramid``, ``area:1``, ``board:0``, ``wilds``...);
slots carry the engine's slot ids (``r3c2`` in the Pyramid Dice pyramid).

Marker ids are unique across every shipped layout, so two mats on one table are told apart
and a photo names the mat it shows.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

logger = logging.getLogger(__name__)

LAYOUT_DIR = Path(__file__).with_name("layouts")
FORMAT = "dicetable-layout/1"

#: Game name (and the spellings users type) -> canonical name.
GAME_ALIASES = {
    "icedice": "icedice", "ice_dice": "icedice",
    "pyramid_dice": "pyramid_dice", "pyramiddice": "pyramid_dice",
    "ピラミッド・ダイス": "pyramid_dice",
    "pyradice": "pyradice",
    "quarriors": "quarriors", "quarriors!": "quarriors",
}

Point = tuple[float, float]


class LayoutError(ValueError):
    """A layout is missing or malformed; the message says which and why."""


@dataclass(frozen=True, slots=True)
class Marker:
    """One printed ArUco marker."""

    id: int
    """Id in the layout's dictionary."""
    centre: Point
    size: float
    """Side of the black square (the marker's outer corners), mm."""

    def corners(self) -> tuple[Point, Point, Point, Point]:
        """Outer corners in ArUco's order: top-left, top-right, bottom-right, bottom-left."""
        x, y, h = self.centre[0], self.centre[1], self.size / 2
        return ((x - h, y - h), (x + h, y - h), (x + h, y + h), (x - h, y + h))


@dataclass(frozen=True, slots=True)
class Slot:
    """A place for one object inside a zone (a card in the pyramid, a die on a board)."""

    id: str
    polygon: tuple[Point, ...]
    """Footprint on the table."""
    height: float = 0.0
    """Height of the slot's floor above the table, mm: a die of a quarry's second layer
    rests on the first (seen from above, a slot's point at that height is in the polygon)."""

    @property
    def centre(self) -> Point:
        return centroid(self.polygon)


@dataclass(frozen=True, slots=True)
class Zone:
    """A named area of the mat."""

    name: str
    """Engine zone name."""
    label: str
    """What the mat prints."""
    polygon: tuple[Point, ...]
    slots: tuple[Slot, ...] = ()

    @property
    def levels(self) -> tuple[float, ...]:
        """Distinct slot floor heights, lowest first ((0.0,) for a flat zone)."""
        return tuple(sorted({s.height for s in self.slots})) or (0.0,)

    def slot_at(self, p: Point, height: float = 0.0) -> str | None:
        """The slot at `height` holding point p: of the slots containing it, the one whose
        centre is nearest (overlapping cards: the one lying on top shows most of it there)."""
        best, best_d = None, float("inf")
        for slot in self.slots:
            if slot.height == height and contains(slot.polygon, p):
                c = slot.centre
                d = (c[0] - p[0]) ** 2 + (c[1] - p[1]) ** 2
                if d < best_d:
                    best, best_d = slot.id, d
        return best


@dataclass(frozen=True, slots=True)
class Layout:
    """A whole mat."""

    game: str
    players: int
    title: str
    size_mm: Point
    markers: tuple[Marker, ...]
    zones: tuple[Zone, ...]
    palette: tuple[str, ...] = ()
    """Die colours of the game, the default names for colour enrolment."""
    object_height_mm: float = 8.0
    """Height above the table of the point a detection's centre stands for (a 16 mm die's
    centre): positions are corrected for parallax with it."""
    marker_dictionary: str = "DICT_4X4_1000"
    doc: str = ""

    @property
    def key(self) -> str:
        return f"{self.game}-{self.players}"

    def zone(self, name: str) -> Zone:
        for z in self.zones:
            if z.name == name:
                return z
        raise KeyError(name)

    def outline(self, zone: str | None, slot: str | None = None) -> tuple[Point, ...] | None:
        """The polygon of ``slot`` in ``zone`` (the zone's own when the slot is None or not
        one of its slots); None when there is no such zone."""
        z = next((z for z in self.zones if z.name == zone), None)
        if z is None:
            return None
        return next((s.polygon for s in z.slots if s.id == slot), z.polygon) \
            if slot is not None else z.polygon

    def locate(self, p: Point) -> tuple[str | None, str | None]:
        """(zone, slot) of a mat point; (None, None) outside every zone."""
        for z in self.zones:
            if contains(z.polygon, p):
                return z.name, z.slot_at(p)
        return None, None

    def marker_at(self, p: Point, margin: float = 4.0) -> int | None:
        """Id of the printed marker under point p (within `margin` mm of it), if any."""
        for m in self.markers:
            h = m.size / 2 + margin
            if abs(p[0] - m.centre[0]) <= h and abs(p[1] - m.centre[1]) <= h:
                return m.id
        return None

    def marker_ids(self) -> frozenset[int]:
        return frozenset(m.id for m in self.markers)


def centroid(poly: tuple[Point, ...]) -> Point:
    """Area centroid of a simple polygon (vertex mean for degenerate ones)."""
    a = cx = cy = 0.0
    n = len(poly)
    for i in range(n):
        x0, y0 = poly[i]
        x1, y1 = poly[(i + 1) % n]
        cross = x0 * y1 - x1 * y0
        a += cross
        cx += (x0 + x1) * cross
        cy += (y0 + y1) * cross
    if abs(a) < 1e-9:
        return (sum(p[0] for p in poly) / n, sum(p[1] for p in poly) / n)
    return (cx / (3 * a), cy / (3 * a))


def contains(poly: tuple[Point, ...], p: Point) -> bool:
    """Point in polygon (even-odd rule); points on an edge may go either way."""
    x, y = p
    inside = False
    n = len(poly)
    for i in range(n):
        x0, y0 = poly[i]
        x1, y1 = poly[(i + 1) % n]
        if (y0 > y) != (y1 > y) and x < x0 + (y - y0) * (x1 - x0) / (y1 - y0):
            inside = not inside
    return inside


def game_name(name: str) -> str:
    """Canonical game name; LayoutError naming the known games otherwise."""
    key = name.strip().lower().replace("-", "_").replace(" ", "_")
    if key in GAME_ALIASES:
        return GAME_ALIASES[key]
    known = ", ".join(sorted(set(GAME_ALIASES.values())))
    raise LayoutError(f"unknown game {name!r} (known: {known})")


def available() -> dict[str, tuple[int, ...]]:
    """Game -> player counts that have a layout file."""
    out: dict[str, list[int]] = {}
    for path in sorted(LAYOUT_DIR.glob("*.json")):
        game, _, n = path.stem.rpartition("-")
        if game and n.isdigit():
            out.setdefault(game, []).append(int(n))
    return {g: tuple(sorted(ns)) for g, ns in out.items()}


def default_players(game: str) -> int:
    counts = available().get(game_name(game), ())
    if not counts:
        raise LayoutError(f"no layout for {game!r}")
    return 2 if 2 in counts else counts[0]


@cache
def load_layout(game: str, players: int | None = None) -> Layout:
    """The shipped layout of a game for a player count (the game's default count if None)."""
    g = game_name(game)
    n = default_players(g) if players is None else players
    path = LAYOUT_DIR / f"{g}-{n}.json"
    if not path.exists():
        counts = available().get(g, ())
        raise LayoutError(f"no {g} mat for {n} players (mats exist for "
                          f"{', '.join(map(str, counts)) or 'none'})")
    return parse_layout(json.loads(path.read_text(encoding="utf-8")), str(path))


def all_layouts() -> list[Layout]:
    return [load_layout(g, n) for g, counts in available().items() for n in counts]


def _points(value: Any, where: str) -> tuple[Point, ...]:
    try:
        pts = tuple((float(x), float(y)) for x, y in value)
    except (TypeError, ValueError):
        raise LayoutError(f"{where}: expected a list of [x, y] points") from None
    if len(pts) < 3:
        raise LayoutError(f"{where}: a polygon needs at least 3 points")
    return pts


def parse_layout(data: dict[str, Any], source: str = "layout") -> Layout:
    """Build a Layout from its JSON form, checking the format."""
    if data.get("format") != FORMAT:
        raise LayoutError(f"{source}: format must be {FORMAT!r}")
    try:
        markers = tuple(Marker(int(m["id"]), (float(m["centre"][0]), float(m["centre"][1])),
                               float(m["size"])) for m in data["markers"])
        zones = tuple(
            Zone(str(z["name"]), str(z.get("label", z["name"])),
                 _points(z["polygon"], f"{source}: zone {z['name']}"),
                 tuple(Slot(str(s["id"]), _points(s["polygon"], f"{source}: slot {s['id']}"),
                            float(s.get("height_mm", 0.0)))
                       for s in z.get("slots", ())))
            for z in data["zones"])
        w, h = (float(v) for v in data["size_mm"])
        return Layout(str(data["game"]), int(data["players"]), str(data.get("title", "")),
                      (w, h), markers, zones, tuple(data.get("palette", ())),
                      float(data.get("object_height_mm", 8.0)),
                      str(data.get("marker_dictionary", "DICT_4X4_1000")),
                      str(data.get("doc", "")))
    except (KeyError, TypeError, IndexError) as exc:
        raise LayoutError(f"{source}: missing or malformed field {exc}") from None


def layout_to_dict(layout: Layout) -> dict[str, Any]:
    """The JSON form (inverse of parse_layout)."""
    def pts(poly: tuple[Point, ...]) -> list[list[float]]:
        return [[round(x, 2), round(y, 2)] for x, y in poly]

    return {
        "format": FORMAT, "game": layout.game, "players": layout.players,
        "title": layout.title, "doc": layout.doc,
        "size_mm": list(layout.size_mm), "object_height_mm": layout.object_height_mm,
        "palette": list(layout.palette), "marker_dictionary": layout.marker_dictionary,
        "markers": [{"id": m.id, "centre": [round(m.centre[0], 2), round(m.centre[1], 2)],
                     "size": m.size} for m in layout.markers],
        "zones": [{"name": z.name, "label": z.label, "polygon": pts(z.polygon),
                   **({"slots": [{"id": s.id, "polygon": pts(s.polygon),
                                  **({"height_mm": s.height} if s.height else {})}
                                 for s in z.slots]}
                      if z.slots else {})} for z in layout.zones],
    }
