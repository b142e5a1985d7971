"""Regenerate the shipped layout files: ``python -m calibration.make_layouts``.

The JSON files in ``calibration/layouts/`` are the source of truth (players may edit them);
this script is how the shipped ones were drawn, so that a change of the house geometry (marker
size, border) is one edit here. Markers sit in a 40 mm border band round the mat, never inside
a zone, so dice and cards never hide them and a sheet cut never runs through one.

Sizes that no source gives are assumptions, stated in each file's ``doc``: Pyramid Dice cards
are taken as 44 x 63 mm, Pyradice board spaces as 22 mm, Looney pyramids up to 25 mm wide.
"""

from __future__ import annotations

import json
import logging
import math
import re
from collections.abc import Callable

from calibration.layouts import LAYOUT_DIR, Layout, Marker, Point, Slot, Zone, layout_to_dict

logger = logging.getLogger(__name__)

BORDER = 40.0
MARKER = 30.0
MARKER_PITCH = 90.0
GAP = 6.0
IDS_PER_MAT = 40

Rect = tuple[float, float, float, float]  # x0, y0, x1, y1


def rect(x0: float, y0: float, x1: float, y1: float) -> tuple[Point, ...]:
    return ((x0, y0), (x1, y0), (x1, y1), (x0, y1))


def border_markers(w: float, h: float, base: int) -> tuple[Marker, ...]:
    """Markers evenly along the four edges (corners included), ids base, base+1, ..."""
    c = BORDER / 2
    nx = max(2, math.floor((w - 2 * c) / MARKER_PITCH) + 1)
    ny = max(2, math.floor((h - 2 * c) / MARKER_PITCH) + 1)
    xs = [c + i * (w - 2 * c) / (nx - 1) for i in range(nx)]
    ys = [c + i * (h - 2 * c) / (ny - 1) for i in range(ny)]
    centres = [(x, c) for x in xs] + [(w - c, y) for y in ys[1:-1]]
    centres += [(x, h - c) for x in reversed(xs)] + [(c, y) for y in reversed(ys[1:-1])]
    if len(centres) > IDS_PER_MAT:
        raise ValueError("too many markers for one id block")
    return tuple(Marker(base + i, p, MARKER) for i, p in enumerate(centres))


def split(r: Rect, n: int, gap: float = GAP) -> list[Rect]:
    """n equal rectangles side by side."""
    return split_shares(r, (1.0,) * n, gap)


def bands(w: float, h: float, top: float, bottom: float) -> tuple[Rect, Rect, Rect]:
    """Far band, middle, near band of the inner area."""
    x0, y0, x1, y1 = BORDER, BORDER, w - BORDER, h - BORDER
    return ((x0, y0, x1, y0 + top), (x0, y0 + top + GAP, x1, y1 - bottom - GAP),
            (x0, y1 - bottom, x1, y1))


def seats(players: int) -> tuple[list[int], list[int]]:
    """Players on the near side (left to right) and on the far side (as seen from the near
    side, left to right): clockwise round the table."""
    near = list(range((players + 1) // 2))
    far = list(range(players - 1, len(near) - 1, -1))
    return near, far


# --- the games -------------------------------------------------------------------------------
ICEDICE_MATS = {2: (480.0, 360.0, 80.0), 4: (600.0, 420.0, 80.0), 6: (720.0, 500.0, 120.0)}
"""IceDice mat (width, height, depth of each players' band) by the most players it seats: a
Vault per player, half of them on each long side. From 5 players on the bands are deeper,
so that each Vault has more room than the 4-player mat's (2.5 dm² against 2.1; simulated
6-player matches on 80 mm bands had pyramids spill over their Vault's edge and unread)."""


def icedice(players: int, base: int) -> Layout:
    """The rule text sets no player limit ('2 (although more can play if you have extra
    pyramids)'); the mats stop at MAX_ICEDICE_MAT players (see there)."""
    w, h, band = next(size for most, size in sorted(ICEDICE_MATS.items()) if players <= most)
    far, mid, near = bands(w, h, band, band)
    zones = [Zone(name, label, rect(*r)) for (name, label), r in zip(
        (("bank", "Bank"), ("counter", "Counter"), ("rolling", "Rolling area")),
        split(mid, 3), strict=True)]
    near_p, far_p = seats(players)
    for strip, who in ((near, near_p), (far, far_p)):
        for p, r in zip(who, split(strip, max(1, len(who))), strict=True):
            zones.append(Zone(f"vault:{p}", f"Vault - player {p + 1}", rect(*r)))
    return Layout("icedice", players, f"IceDice, {players} players", (w, h),
                  border_markers(w, h, base), tuple(zones),
                  ("red", "yellow", "green", "blue", "black", "white"), 8.0,
                  doc="Zones: rolling, bank, counter, vault:<player> (players from 0). "
                      "Pieces are Looney pyramids (up to 25 mm wide); the two dice are rolled "
                      "in the rolling area.")


CARD_W, CARD_H, CARD_PITCH, ROW_STEP = 44.0, 63.0, 48.0, 34.0


def side_slots(zone: Rect) -> tuple[Slot, ...]:
    """Places for the cards removed from the pyramid (rules: "put it in an empty place beside
    it"): as many whole cards as fit side by side, GAP apart, centred in the zone; ids
    ``s<n>`` row-major from the far row. The rules give no number of places: the count is
    what the mat has room for (8 on the shipped mats), not a rule."""
    x0, y0, x1, y1 = zone
    cols = int((x1 - x0 + GAP) // (CARD_W + GAP))
    rows = int((y1 - y0 + GAP) // (CARD_H + GAP))
    left = x0 + (x1 - x0 - cols * CARD_W - (cols - 1) * GAP) / 2
    top = y0 + (y1 - y0 - rows * CARD_H - (rows - 1) * GAP) / 2
    out = []
    for r in range(rows):
        for c in range(cols):
            ax, ay = left + c * (CARD_W + GAP), top + r * (CARD_H + GAP)
            out.append(Slot(f"s{r * cols + c + 1}", rect(round(ax, 2), round(ay, 2),
                                                        round(ax + CARD_W, 2),
                                                        round(ay + CARD_H, 2))))
    return tuple(out)


def pyramid_dice(players: int, base: int) -> Layout:
    w, h = 660.0, 480.0
    x0, y0 = BORDER, BORDER
    rows = 7
    pyr_w = rows * CARD_PITCH + 2 * GAP
    pyr_h = (rows - 1) * ROW_STEP + CARD_H + 2 * GAP
    pyr = (x0, y0, x0 + pyr_w, y0 + pyr_h)
    cx = (pyr[0] + pyr[2]) / 2
    slots = []
    for r in range(1, rows + 1):  # apex (row 1) is the far end; row 7 is nearest the players
        top = y0 + GAP + (r - 1) * ROW_STEP
        for c in range(1, r + 1):
            left = cx - r * CARD_PITCH / 2 + (c - 1) * CARD_PITCH + (CARD_PITCH - CARD_W) / 2
            slots.append(Slot(f"r{r}c{c}", rect(left, top, left + CARD_W, top + CARD_H)))
    right = (pyr[2] + GAP, y0, w - BORDER, pyr[3])
    side, rolling = (right[0], right[1], right[2], right[1] + 150), \
        (right[0], right[1] + 150 + GAP, right[2], right[3])
    zones = [Zone("pyramid", "Pyramid", rect(*pyr), tuple(slots)),
             Zone("side", "Side area", rect(*side), side_slots(side)),
             Zone("rolling", "Rolling area", rect(*rolling))]
    near = (x0, pyr[3] + GAP, w - BORDER, h - BORDER)
    for p, area in enumerate(split(near, players)):
        zones.append(Zone(f"area:{p}", f"Cards - player {p + 1}", rect(*area)))
    return Layout("pyramid_dice", players, f"Pyramid Dice, {players} players", (w, h),
                  border_markers(w, h, base), tuple(zones), ("white", "red", "black"), 8.0,
                  doc="Zones: rolling, pyramid (slots r<row>c<col>, row 1 = apex = far end, "
                      "row 7 nearest the players, as engine/games/pyramid_dice), side (places "
                      "s<n> for removed cards, as many as fit; the engine names no side place), "
                      "area:<player>. Cards assumed 44 x 63 mm, rows overlapping by 29 mm.")


SPACE = 22.0


def _board(r: Rect, flip: bool) -> tuple[Slot, ...]:
    """21 spaces: level 1 (6 spaces) nearest the owner, level 6 (1 space) at the top."""
    x0, y0, x1, y1 = r
    cx = (x0 + x1) / 2
    slots = []
    for level in range(1, 7):
        n = 7 - level
        for i in range(1, n + 1):
            left = cx - n * SPACE / 2 + (i - 1) * SPACE
            bottom = y1 - 8 - (level - 1) * SPACE
            sx0, sy0, sx1, sy1 = left + 1, bottom - SPACE + 1, left + SPACE - 1, bottom - 1
            if flip:  # a far player's board faces them: turn it half round about its centre
                cy = (y0 + y1) / 2
                sx0, sx1 = 2 * cx - sx1, 2 * cx - sx0
                sy0, sy1 = 2 * cy - sy1, 2 * cy - sy0
            slots.append(Slot(f"{level}-{i}", rect(sx0, sy0, sx1, sy1)))
    return tuple(slots)


QUARRY_DIE = 16.0
QUARRY_DIMS = {2: ((5, 5), (4, 4), (3, 3)), 3: ((7, 6), (6, 5), (5, 4)),
               4: ((7, 6), (6, 5), (5, 4))}
"""The engine's default quarry shapes (options quarry_2p, quarry_3_4p), bottom layer first."""


def _quarry(r: Rect, dims: tuple[tuple[int, int], ...]) -> tuple[Slot, ...]:
    """Slots L<layer>-<index> (row-major, first row at the far side) of touching 16 mm dice,
    each upper layer centred on the one below and one die higher."""
    cx, cy = (r[0] + r[2]) / 2, (r[1] + r[3]) / 2
    slots = []
    for k, (rows, cols) in enumerate(dims):
        x0, y0 = cx - cols * QUARRY_DIE / 2, cy - rows * QUARRY_DIE / 2
        for i in range(rows * cols):
            row, col = divmod(i, cols)
            sx, sy = x0 + col * QUARRY_DIE, y0 + row * QUARRY_DIE
            slots.append(Slot(f"L{k + 1}-{i + 1}", rect(sx, sy, sx + QUARRY_DIE, sy + QUARRY_DIE),
                              k * QUARRY_DIE))
    return tuple(slots)


def pyradice(players: int, base: int) -> Layout:
    board = 6 * SPACE + 16
    if players <= 2:
        quarry = 170.0
        w, h = 2 * BORDER + 2 * board + quarry + 2 * GAP, 2 * BORDER + 170.0
        xs = BORDER
        rects = {0: (xs, BORDER, xs + board, h - BORDER),
                 1: (w - BORDER - board, BORDER, w - BORDER, h - BORDER)}
        q = (xs + board + GAP, BORDER, w - BORDER - board - GAP, h - BORDER)
        flips = {0: False, 1: False}
    else:
        w = 2 * BORDER + 2 * board + GAP
        h = 2 * BORDER + 2 * board + 2 * GAP + 150
        far, mid, near = bands(w, h, board, board)
        near_p, far_p = seats(players)
        rects, flips = {}, {}
        for band, who, flip in ((near, near_p, False), (far, far_p, True)):
            for p, r in zip(who, split(band, 2), strict=False):
                rects[p], flips[p] = r, flip
        q = mid
    zones = [Zone("quarry", "Quarry", rect(*q), _quarry(q, QUARRY_DIMS[players]))]
    for p in range(players):
        zones.append(Zone(f"board:{p}", f"Pyramid - player {p + 1}", rect(*rects[p]),
                          _board(rects[p], flips[p])))
    return Layout("pyradice", players, f"Pyradice, {players} players", (w, h),
                  border_markers(w, h, base), tuple(zones),
                  ("red", "yellow", "green", "blue"), 8.0,
                  doc="Zones: quarry with slots L<layer>-<index> as engine/games/pyradice/"
                      "quarry.py (the engine's default layer shapes; touching 16 mm dice, upper "
                      "layers centred and 16 mm higher: height_mm), board:<player> with slots "
                      "<level>-<index> as engine/games/pyradice/pyramid.py (level 1 = 6 spaces "
                      "nearest the owner, index from the owner's left ... level 6 = 1 space). "
                      "A die resting on two dice is seen from above in its own space. Spaces "
                      "assumed 22 mm; colours are the engine's default option.")


QUARRIORS_2P_SHARES = (1.45, 0.95, 0.85, 1.1)
"""Widths of a player's Active Pool, Ready Area, Spent Pile and Used Pile on the 2-player
mat, as shares: six to ten dice are thrown into the Active Pool and a dozen and more end in
the Used Pile; a few are set down in the other two. (Four equal 105 x 80 mm zones were too
small: the simulated players' 6-die throws landed touching, and the Used Pile's dice
were pushed together in rows; both were misread.) The Wilds keep a strip of three rows of
dice: they are not read (calibration/games/quarriors.py)."""
QUARRIORS_2P_WILDS_MM = 70.0


def split_shares(r: Rect, shares: tuple[float, ...], gap: float = GAP) -> list[Rect]:
    """Rectangles side by side, their widths in proportion to ``shares``."""
    x0, y0, x1, y1 = r
    room = x1 - x0 - gap * (len(shares) - 1)
    out, x = [], x0
    for s in shares:
        wd = room * s / sum(shares)
        out.append((x, y0, x + wd, y1))
        x += wd + gap
    return out


def quarriors(players: int, base: int) -> Layout:
    names = (("active", "Active Pool"), ("ready", "Ready Area"), ("spent", "Spent Pile"),
             ("used", "Used Pile"))
    if players <= 2:
        w, h = 520.0, 400.0
        band_h = (h - 2 * BORDER - QUARRIORS_2P_WILDS_MM - 2 * GAP) / 2
    else:
        w, h, band_h = 560.0, 560.0, 2 * 70.0 + GAP
    far, mid, near = bands(w, h, band_h, band_h)
    zones = [Zone("wilds", "The Wilds", rect(*mid))]
    near_p, far_p = seats(players)
    for band, who in ((near, near_p), (far, far_p)):
        for p, block in zip(who, split(band, max(1, len(who)), 3 * GAP), strict=True):
            if players <= 2:
                cells = split_shares(block, QUARRIORS_2P_SHARES)
            else:
                bx0, by0, bx1, by1 = block
                mid_y = (by0 + by1) / 2
                cells = split((bx0, by0, bx1, mid_y - GAP / 2), 2) + \
                    split((bx0, mid_y + GAP / 2, bx1, by1), 2)
            for (name, label), r in zip(names, cells, strict=True):
                zones.append(Zone(f"{name}:{p}", f"{label} - player {p + 1}", rect(*r)))
    return Layout("quarriors", players, f"Quarriors!, {players} players", (w, h),
                  border_markers(w, h, base), tuple(zones),
                  ("red", "blue", "green", "yellow", "purple", "black", "white", "orange"), 8.0,
                  doc="Zones: wilds, active:<player>, ready:<player>, spent:<player>, "
                      "used:<player>. The bag is off the mat.")


MAX_ICEDICE_MAT = 6
"""The most IceDice players a shipped mat seats. Not a rule (the rule text sets no limit) but
the room for the Vaults the camera can read: three Vaults of about 200 mm on each long side
of a 720 mm mat. Two 8-player shapes were tried and read poorly. Measured with `dicetable
simulate --game icedice --matches 1 --seed 0` (rendered camera), share of moves recorded
with no question: 1.0 for 2 players, 0.68 for 4, 0.91 for 6 on this mat; 8 players on 840 x
500 (Vaults 185 x 120 mm) 0.35 and on 720 x 560 (156 x 150) 0.32, the rest alerts over
pyramids unread in crowded Vaults (every match still recorded exactly after the simulated
players' answers)."""

GAMES: dict[str, tuple[Callable[[int, int], Layout], tuple[int, ...]]] = {
    "icedice": (icedice, (2, 3, 4)),
    "pyramid_dice": (pyramid_dice, (1, 2, 3, 4, 5)),
    "pyradice": (pyradice, (2, 3, 4)),
    "quarriors": (quarriors, (2, 3, 4)),
}
LATER: tuple[tuple[str, tuple[int, ...]], ...] = (
    ("icedice", tuple(range(5, MAX_ICEDICE_MAT + 1))),
)
"""Mats added after the first ones: their marker blocks follow all of GAMES', so that no
earlier mat's marker ids change (printed mats and calibrated profiles rely on them)."""


def build_all() -> list[Layout]:
    """Every shipped layout; each mat gets its own block of IDS_PER_MAT marker ids."""
    out, block = [], 0
    order = [(make, counts) for make, counts in GAMES.values()]
    order += [(GAMES[game][0], counts) for game, counts in LATER]
    for make, counts in order:
        for n in counts:
            out.append(make(n, block * IDS_PER_MAT))
            block += 1
    return out


def main() -> None:
    LAYOUT_DIR.mkdir(exist_ok=True)
    for layout in build_all():
        path = LAYOUT_DIR / f"{layout.key}.json"
        text = json.dumps(layout_to_dict(layout), indent=1, ensure_ascii=False)
        # One point per line is unreadable: keep innermost lists (points, sizes) on one line.
        text = re.sub(r"\[\s+([-\d.]+),\s+([-\d.]+)\s+\]", r"[\1, \2]", text)
        path.write_text(text + "\n", encoding="utf-8")
        logger.warning("wrote %s", path)


if __name__ == "__main__":
    main()
