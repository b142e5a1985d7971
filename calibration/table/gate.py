"""The table reader's change gate: a zone of the table is read again only where it changed.

Each zone's last reading is kept with the zone's look on the table plane (rectified at
1 px/mm through the geometry fitted to the frame, colours normalised to their mean). A new
frame is compared cell by cell; a zone whose cells all stayed keeps its reading, and a zone
that changed in a small part is read again only round that part, when its reader can.

A changed cell is then asked whether the change is only the light's (:func:`lit_alike`): a
light turned on elsewhere moves every shadow and lights each face of a piece anew, which
changed nearly every zone at once and made about one reading in eight read the whole table
again (simulated IceDice: those set the 95th percentile of the processing time). The light
keeps each colour's hue and dims or brightens by at most a shadow's depth; a piece or a die
put down, taken or turned changes a hue (a coloured thing on the paper) or the brightness
far beyond a shadow (black on white). Not for the dice: a pip is too small for this test,
and a white die taken from the white paper changes its ink beyond the light's reach and the
rest as a shadow would (asked in sliding cells, simulated Quarriors, 6 matches: 176 repairs
proposed, 7 without; calibration.table.dice_top.TopCache keeps what did not change).
A zone whose last reading is not what the state the match believes in puts there is read
again even then (:func:`agrees`): that reading may be the stale one (a table put back after a
foul as the light changed would keep showing the foul, and a foul made as the light changed
would never show).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from calibration.table.sight import Sight
from engine.observation import Observed

Box = tuple[float, float, float, float]
"""x0, y0, x1, y1 on the mat, mm"""

ZONE_CHANGE = 20.0
"""Largest mean difference of one colour channel over one ZONE_CELL_MM cell of a piece zone
(rectified at 1 px/mm, normalised to its mean) from its last reading above which the zone
is read again (in colour: a card laid on one of the same grey changed nothing in grey).
A card or a pyramid taken or put down changes its cells by 40+; sensor noise, JPEG and a
light change (normalised out) by under 8; a shadow's edge by ~10-15."""
ZONE_CELL_MM = 8
PARTIAL_SHARE = 0.5
"""A piece zone whose changed cells span less than this share of it is read again only
there (a vault of twenty pyramids costs ~10x more to read whole than round one new piece)."""


LIGHT_HUE = 0.12
"""Largest change of a pixel's chromaticity (sum over B, G, R of |share of the sum|) the
light alone makes: a moved shadow or a face lit from another side keeps its hue (measured on
rendered tables, light from any side and 0.8-1.15 bright: UNMEASURED on real tables)."""
LIGHT_RATIO = (0.4, 2.5)
"""Range of a pixel's brightness over its last (both views normalised to their mean) that
the light alone makes: a shadow (the renderer's ambient share 0.6) or a face turned from the
light; black pips or a black piece on the paper: under 0.2."""
LIGHT_SHARE = 0.25
"""Share of a cell's pixels that must change beyond the light's reach for the cell to count
as changed (each compared with its last look and the looks 1 px beside it: a bumped camera's
re-fitted geometry leaves edges a pixel off)."""
_EPS = 6.0


def beyond_light(new: np.ndarray, old: np.ndarray) -> np.ndarray:
    """Per pixel of two normalised views (as :func:`mean_normalised`), whether it changed
    more than the light does (LIGHT_HUE, LIGHT_RATIO) from the old view's pixel there and
    from each of its neighbours (a re-fitted geometry leaves edges a pixel off).

    The neighbours are asked only of the pixels the one under them says changed: under a
    light change that is a few in a thousand (the Quarriors dice zones, 640 x 880 px at
    DICE_PPM: 26 ms of CPU where asking every neighbour everywhere took 63, one run)."""
    def split(v: np.ndarray) -> list[np.ndarray]:
        b, g, r = v[..., 0] + _EPS, v[..., 1] + _EPS, v[..., 2] + _EPS
        lum = b + g + r
        return [b / lum, g / lum, r / lum, lum]

    def differ(n: list[np.ndarray], o: list[np.ndarray]) -> np.ndarray:
        hue = np.abs(n[0] - o[0]) + np.abs(n[1] - o[1]) + np.abs(n[2] - o[2])
        return (hue > LIGHT_HUE) | (n[3] < LIGHT_RATIO[0] * o[3]) | (
            n[3] > LIGHT_RATIO[1] * o[3])

    n, o = split(new), split(old)
    changed = differ(n, o)
    ys, xs = np.nonzero(changed)
    if not len(ys):
        return changed
    padded = [np.pad(x, 1, mode="edge") for x in o]
    here = [x[ys, xs] for x in n]
    still = np.ones(len(ys), bool)
    for dy in (0, 1, 2):
        for dx in (0, 1, 2):
            if (dy, dx) != (1, 1):
                still &= differ(here, [x[ys + dy, xs + dx] for x in padded])
    changed[ys, xs] = still
    return changed


def lit_alike(new: np.ndarray, old: np.ndarray, c: int, where: np.ndarray | None = None
              ) -> np.ndarray:
    """Per c x c cell of two normalised views (as :func:`_cells`), whether what changed in it
    is more than the light's doing (:func:`beyond_light` in LIGHT_SHARE of it). ``where``:
    only these cells are asked (the others come out False): a move changes a few cells of
    the Quarriors Wilds at 2 px/mm, and asked whole the test cost 52 ms a reading on mean,
    15 ms asked where they changed (probe, not a shipped command: simulated seed 0, 3000
    frames, the dice zones asked too)."""
    import cv2

    h, w = new.shape[:2]
    if h < c or w < c:
        return np.full((1, 1), float(beyond_light(new, old).mean()) > LIGHT_SHARE)
    rows, cols = h // c, w // c
    if where is None:
        where = np.ones((rows, cols), bool)
    out = np.zeros((rows, cols), bool)
    n, _, boxes, _ = cv2.connectedComponentsWithStats(where.astype(np.uint8), connectivity=8)
    for x, y, bw, bh, _ in boxes[1:n]:
        # the cells' pixels, and 1 px round them for the neighbours
        y0, x0, y1, x1 = y * c, x * c, (y + bh) * c, (x + bw) * c
        ya, xa, yb, xb = max(0, y0 - 1), max(0, x0 - 1), min(h, y1 + 1), min(w, x1 + 1)
        changed = beyond_light(new[ya:yb, xa:xb], old[ya:yb, xa:xb])[
            y0 - ya:y1 - ya, x0 - xa:x1 - xa]
        share = changed.reshape(bh, c, bw, c).mean(axis=(1, 3))
        out[y:y + bh, x:x + bw] |= share > LIGHT_SHARE
    return out & where


def mean_normalised(patch: np.ndarray) -> np.ndarray:
    f = patch.astype(np.float32)
    return f * (128.0 / max(float(f.mean()), 1.0))


def _cells(a: np.ndarray, b: np.ndarray, c: int = ZONE_CELL_MM, sliding: bool = False
           ) -> np.ndarray:
    """Mean absolute difference of two rectified views per cell of c x c pixels (the
    largest of the colour channels'). ``sliding``: each cell gives the largest mean of the
    c x c windows whose corner lies in it, so a change smaller than a cell counts whole
    wherever it falls (a pip that appears across four cells gave each a quarter)."""
    import cv2

    d = cv2.absdiff(a, b)
    if d.ndim == 3:  # (channel by channel: numpy's reduction over a last axis of 3 is slow)
        d = cv2.max(cv2.max(d[..., 0], d[..., 1]), d[..., 2])
    h, w = d.shape
    if h < c or w < c:
        return np.full((1, 1), float(d.mean()), np.float32)
    if sliding:
        means = cv2.blur(d, (c, c), anchor=(0, 0), borderType=cv2.BORDER_REPLICATE)
        # each cell's largest mean: the c x c maximum anchored at its corner (a dilation,
        # half the time of numpy's maximum over the cells' axes)
        most = cv2.dilate(means[:h // c * c, :w // c * c], np.ones((c, c), np.uint8),
                          anchor=(0, 0), borderType=cv2.BORDER_REPLICATE)
        return np.ascontiguousarray(most[::c, ::c], np.float32)
    return cv2.resize(d[:h // c * c, :w // c * c], (w // c, h // c),
                      interpolation=cv2.INTER_AREA)


def _unions(boxes: list[Box]) -> list[Box]:
    """The boxes, those that overlap joined into the box round them (each object is then
    read in one box only)."""
    out = list(boxes)
    merged = True
    while merged:
        merged = False
        for i in range(len(out)):
            for j in range(i + 1, len(out)):
                a, b = out[i], out[j]
                if a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]:
                    out[i] = (min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]),
                              max(a[3], b[3]))
                    del out[j]
                    merged = True
                    break
            if merged:
                break
    return out


def inside(point: tuple[float, float], box: Box) -> bool:
    """Whether a mat point lies in a box (x0, y0, x1, y1), its far edges excluded."""
    return box[0] <= point[0] < box[2] and box[1] <= point[1] < box[3]


def cores(cells: np.ndarray, region: Box, cell_mm: float, apart_mm: float) -> list[Box]:
    """The boxes (mm) round the changed ``cells`` of a view of ``region``: one round them
    all, or with a finite ``apart_mm`` one round each group of changes nearer than that to
    one another."""
    ys, xs = np.nonzero(cells)
    if not math.isfinite(apart_mm):
        return [(region[0] + xs.min() * cell_mm, region[1] + ys.min() * cell_mm,
                 region[0] + (xs.max() + 1) * cell_mm, region[1] + (ys.max() + 1) * cell_mm)]
    import cv2

    grow = max(1, int(math.ceil(apart_mm / cell_mm)))
    near = cv2.dilate(cells.astype(np.uint8), np.ones((grow, grow), np.uint8))
    n, labels = cv2.connectedComponents(near, connectivity=8)
    out = []
    for i in range(1, n):
        yy, xx = np.nonzero((labels == i) & cells)
        if len(xx):
            out.append((region[0] + xx.min() * cell_mm, region[1] + yy.min() * cell_mm,
                        region[0] + (xx.max() + 1) * cell_mm,
                        region[1] + (yy.max() + 1) * cell_mm))
    return out


def agrees(objects: list[Observed], expected: Any, zone: str) -> bool:
    """Whether a zone's reading shows what the view ``expected`` (the state the match believes
    in; None: not known) puts in ``zone``: as many objects, each matched to one expected on
    its kind, slot and the top value of each attribute it was read for (what is counted,
    not read, as cards in the players' areas, matches on its count). Unknown: True."""
    if expected is None:
        return True
    left = [e for e in expected if e.zone == zone]
    if len(left) != len(objects):
        return False
    for o in objects:
        hit = next((e for e in left if e.kind == o.kind and e.slot == o.slot and all(
            o.dist(n) is None or o.top(n) == v for n, v in e.attrs)), None)
        if hit is None:
            return False
        left.remove(hit)
    return True


class ChangeGate:
    """The zone readings one table keeps (``readings``: key -> (the zone's look, its
    objects); a piece zone's key is the zone's name, the dice's ``dice``), and the test of
    each new frame against them (see the module docstring)."""

    def __init__(self) -> None:
        self.readings: dict[str, tuple[np.ndarray, list[Observed]]] = {}

    def _zone_view(self, sight: Sight, region: tuple[float, float, float, float],
                   ppm: float = 1.0) -> np.ndarray:
        from vision.pieces.pyramids import rectify

        # in colour: a card laid on another of about the same grey is still a change
        return mean_normalised(rectify(sight.image, sight.table.geometry.homography, region, ppm))

    def cached(self, key: str, sight: Sight, region: tuple[float, float, float, float],
               read: Callable[..., list[Observed]], partial: bool = False,
               owns: Callable[[Observed, Box], bool] | None = None, ppm: float = 1.0,
               cell_mm: float = ZONE_CELL_MM, light: bool = True, sliding: bool = False,
               apart_mm: float | None = None,
               doubt: Callable[[list[Observed]], list[Box]] | None = None) -> list[Observed]:
        """The zone's last reading if nothing in it changed; else read it again — with
        `partial`, only the part that changed (`read(core)` returns the objects it read
        round the core box; those of the last reading it does not `own(obj, core)` stand,
        by default those whose place lies outside the core). `light`: a change that is
        only the light's (:func:`lit_alike`) reads nothing again; off for the dice, whose
        pips are too small for its test (a die turned by hand from 4 to 6 passed it). A
        zone whose last reading disagrees with the state the match believes in
        (:func:`agrees`) is read again even when only the light changed. `sliding`: cells
        compared as :func:`_cells` says (the dice: a turned die changes only pips).
        ``apart_mm`` (with ``partial``): changes at least that far apart are read again
        each round itself (:func:`cores`), not the box round them all (a Quarriors move
        changes one player's Active Pool and Spent Pile, and a draw after an 'end' both
        players' sides of the mat). ``doubt`` (with ``partial``): the boxes of the last
        reading's objects to read again though nothing changed there (a die read as the
        state does not hold it: read again, it may read right)."""
        view = self._zone_view(sight, region, ppm)
        hit = self.readings.get(key)
        if hit is not None and hit[0].shape == view.shape:
            cell_px = max(1, int(round(cell_mm * ppm)))
            cells = _cells(view, hit[0], cell_px, sliding) > ZONE_CHANGE
            again = doubt(hit[1]) if partial and doubt is not None else []
            if not cells.any() and not again:
                return hit[1]
            if light:
                cells &= lit_alike(view, hit[0], cell_px, where=cells)
            if not cells.any():
                # only the light changed (or nothing, but zones are doubted). The last
                # reading's zones that are not the table the
                # match believes in (a foul still seen, a misread) are read again, else a
                # change the light test took for the light's (the table put back after a foul,
                # as the light changed) is never seen: with ``doubt`` those it names (a key
                # holding several zones, the dice's), else the whole key
                settled = not again if doubt is not None and partial else \
                    agrees(hit[1], sight.expected, key)
                if settled:  # its look now is the one to compare
                    self.readings[key] = (view, hit[1])
                    return hit[1]
                if doubt is None or not partial:
                    cells[:] = True
            c = cell_px / ppm  # a cell's side, mm
            boxes = cores(cells, region, c, apart_mm if apart_mm is not None else math.inf) \
                if cells.any() else []
            boxes = _unions(boxes + again)
            area = sum((b[2] - b[0]) * (b[3] - b[1]) for b in boxes)
            if partial and area < PARTIAL_SHARE * (region[2] - region[0]) * (
                    region[3] - region[1]):
                fresh = [o for core in boxes for o in read(core)]
                if owns is None:
                    kept = [o for o in hit[1] if o.position_mm is None
                            or not any(inside(o.position_mm, core) for core in boxes)]
                else:
                    kept = [o for o in hit[1] if not any(owns(o, core) for core in boxes)]
                got = kept + fresh
                self.readings[key] = (view, got)
                return got
        got = read(None) if partial else read()
        self.readings[key] = (view, got)
        return got
