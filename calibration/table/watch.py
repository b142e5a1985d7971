"""Zones the camera watches without reading them (Perception.watched_zones; Quarriors' Wilds):
whether each looks different from when the match's record last changed what lies there.

Quarriors' Wilds hold some 57 dice, each standing on its Power Card; reading their types
and faces cost more than a reading's budget (calibration/games/quarriors.py), and the rules
know every change of them from the moves. But a capture takes a die from its card and a
cull puts one back: when the capturer's Used Pile, a heap, hides the captured die, the Wilds
are what shows the capture was made (simulated Quarriors, 5 matches: 5 of the 9 moves
recorded wrong were an 'end' recorded without the capture before it, the captured die
unseen in the heap and the Wilds unread).

The look kept for a zone is the one of the reading after which the record last changed
what lies there (a capture, a cull accepted or answered): a change the record has not
followed yet stays a change at every reading until it does (a capture left to the next
move is still seen then). It is compared as the dice are (calibration.table.gate: sliding
windows of 3 mm cells at 2 px/mm, the light's changes set aside).

The look kept follows the light: at a reading that shows no die-sized change against it
nor against the reading before, it becomes this reading's look. Kept from the record's
last change alone, it was turns old and lit otherwise (simulated Quarriors, seed 2: 2 720
of the Wilds' 3 358 cells changed against it with nothing moved), so every change was
judged as one under a changed light, where a white die taken from the white paper looks
like a shadow gone, and a Devotee of the Holy Query's capture went unseen two readings
running, then recorded as an 'end' without it. A change is also looked for against the
reading before (the same light, mostly): once seen, the zone is changed until the record
follows it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from calibration.layouts import Layout
from calibration.table.gate import ZONE_CHANGE, _cells, lit_alike, mean_normalised
from calibration.table.sight import Sight
from engine.observation import Shift, View, in_zone

Typer = Callable[[Sight, np.ndarray], list[tuple[bool, dict[str, float]]]]
"""At each point (mm) of a sight: whether a die lies there (its top face's outline is
found) and its type as read there (calibration.table.dice.DiceStage.dice_at)."""

WATCH_PPM, WATCH_CELL_MM = 2.0, 3.0
"""As the dice zones (calibration.table.dice.DICE_PPM): a die taken leaves a 16 mm hole."""


CHANGE_CELLS = 3
"""A change is a die's worth: a square of CHANGE_CELLS x CHANGE_CELLS changed cells (9 mm; a
die taken leaves a 16 mm hole). The edges of every die, a pixel off when the camera's fit
moved by a fraction of one, changed scattered cells: 17 of the Wilds' 3 000 with nothing
moved in a simulated match (seed 3)."""


def _changes(look: np.ndarray, ref: np.ndarray, cell: int) -> np.ndarray:
    """The cells of die-sized changes between two looks of a zone."""
    raw = _cells(look, ref, cell, sliding=True) > ZONE_CHANGE
    lit = lit_alike(look, ref, cell, where=raw) if raw.any() else raw
    return _die_changes(raw, lit)


def _die_changes(raw: np.ndarray, lit: np.ndarray) -> np.ndarray:
    """The cells of die-sized changes. Where little of the zone changed at all (``raw``:
    at most LOCAL_MOST dice's worth of cells, the light's changes too), each die-sized
    patch of it: a white die taken from the white paper or put on it changes its ink's
    cells beyond the light's reach and the rest as a shadow would (rendered: Basic Quiddity
    dice taken from the Wilds, unseen). Else (a light changed, a camera knocked: the cells
    round every die) only the patches of cells beyond the light's doing (``lit``)."""
    if int(raw.sum()) <= LOCAL_MOST * DIE_CELLS * DIE_CELLS:
        return _cores(raw).astype(bool)
    return _cores(lit).astype(bool)


DIE_CELLS = 6
"""a die's side in cells (16 mm dice, 3 mm cells, with its shadow)"""
LOCAL_MOST = 3
"""see _die_changes (chosen: a die taken changed some 70 of the Wilds' 3 400 cells at 2 px/mm,
a light changed most of the cells round its 57 dice)"""


def _cores(cells: np.ndarray) -> np.ndarray:
    """The changed cells of die-sized changes (CHANGE_CELLS square), grown back. The cells'
    one-cell holes are filled first: a die whose top is about as light as the mat (a Death
    spell's white face on the Wilds' paper) changed its outline and its ink, not every cell
    in between (rendered: a 3 x 3 core of changed cells nowhere, the die taken unseen)."""
    import cv2

    k = np.ones((CHANGE_CELLS, CHANGE_CELLS), np.uint8)
    closed = cv2.morphologyEx(cells.astype(np.uint8), cv2.MORPH_CLOSE, k,
                              borderType=cv2.BORDER_CONSTANT, borderValue=0)
    core = cv2.erode(closed, k, borderType=cv2.BORDER_CONSTANT, borderValue=0)
    return np.asarray(cv2.dilate(core, k), np.uint8) & np.asarray(closed, np.uint8)


def change_centres(cells: np.ndarray, origin: tuple[float, float], cell_mm: float
                   ) -> list[tuple[float, float]]:
    """The centre (mm) of each die-sized change among the changed ``cells`` of a look
    whose corner is at ``origin``."""
    import cv2

    n, _, stats, centres = cv2.connectedComponentsWithStats(_cores(cells), connectivity=8)
    return [(origin[0] + (float(cx) + 0.5) * cell_mm, origin[1] + (float(cy) + 0.5) * cell_mm)
            for (cx, cy), st in zip(centres[1:], stats[1:], strict=True)
            if st[4] >= CHANGE_CELLS * CHANGE_CELLS]


@dataclass
class ZoneWatch:
    """The watched zones of one table (see the module docstring)."""

    layout: Layout
    zones: tuple[str, ...]
    typer: Typer | None = None
    """reads the dice where a zone changed (None: the zone is told changed or not only)"""
    shifts: tuple[Shift, ...] = ()
    """the dice seen coming into or leaving the zones at the last :meth:`observe`"""
    _last: dict[str, np.ndarray] = field(default_factory=dict)
    """each zone's look at the last reading that saw it whole"""
    _pending: dict[str, np.ndarray] = field(default_factory=dict)
    """the die-sized changes seen against the reading before, that the record has not
    followed yet (the zone is changed until it does)"""
    _ref: dict[str, np.ndarray | None] = field(default_factory=dict)
    """each zone's look when the record last changed what lies there (None: not seen yet)"""
    _held: dict[str, View] = field(default_factory=dict)
    """what the record put in each zone then"""
    _last_sight: dict[str, Sight] = field(default_factory=dict)
    _ref_sight: dict[str, Sight | None] = field(default_factory=dict)
    """the sights of those looks (what a die that left is read on)"""

    def expect(self, view: View) -> None:
        """The record's state before a reading: where it changed what lies in a zone, the
        zone's last look (the reading that led to the change) is the one to compare with."""
        for zone in self.zones:
            held = in_zone(view, zone)
            if self._held.get(zone) != held:
                if zone in self._held:
                    self._ref[zone] = self._last.get(zone)
                    self._ref_sight[zone] = self._last_sight.get(zone)
                self._pending.pop(zone, None)
                self._held[zone] = held

    def observe(self, sight: Sight, seen: frozenset[str]) -> tuple[tuple[str, bool], ...]:
        """(zone, changed) for each watched zone seen whole in ``sight`` that has a look to
        compare with."""
        from vision.pieces.pyramids import rectify

        out = []
        shifts: list[Shift] = []
        cell = int(round(WATCH_CELL_MM * WATCH_PPM))
        for zone in self.zones:
            if zone not in seen:
                continue
            poly = np.array(self.layout.zone(zone).polygon, np.float64)
            (x0, y0), (x1, y1) = poly.min(axis=0), poly.max(axis=0)
            look = mean_normalised(rectify(sight.image, sight.table.geometry.homography,
                                           (float(x0), float(y0), float(x1), float(y1)),
                                           WATCH_PPM))
            before = self._last.get(zone)
            self._last[zone] = look
            self._last_sight[zone] = sight
            ref = self._ref.get(zone)
            if ref is None or ref.shape != look.shape:
                self._ref[zone] = look  # the first look: nothing to compare with yet
                self._ref_sight[zone] = sight
                continue
            cells = _changes(look, ref, cell)
            if before is not None and before.shape == look.shape:
                lately = _changes(look, before, cell)
                if lately.any():
                    pending = self._pending.get(zone)
                    self._pending[zone] = lately if pending is None else pending | lately
            pending = self._pending.get(zone)
            if pending is not None and not cells.any():
                cells = pending  # (told die by die where it was seen)
            changed = bool(cells.any())
            if not changed:
                # nothing moved: the look kept follows the light (module docstring)
                self._ref[zone] = look
                self._ref_sight[zone] = sight
            out.append((zone, changed))
            then = self._ref_sight.get(zone)
            if changed and self.typer is not None and then is not None:
                shifts += self._shifts(zone, sight, then, change_centres(
                    cells, (float(x0), float(y0)), WATCH_CELL_MM))
        self.shifts = tuple(shifts)
        return tuple(out)

    def _shifts(self, zone: str, now: Sight, then: Sight,
                centres: list[tuple[float, float]]) -> list[Shift]:
        """Each die-sized change told as a die that came (one lies there now, none did
        then), one that left (the reverse), or both (one taken, another put in its place);
        a change where no die lies either time (a shadow, a card nudged) tells nothing."""
        if not centres or len(centres) > MOST_CHANGES or self.typer is None:
            return []
        points = np.array(centres, np.float64)
        out = []
        for (was, before), (is_, after) in zip(self.typer(then, points),
                                               self.typer(now, points), strict=True):
            if was:
                out.append(Shift(zone, False, _dist(before)))
            if is_:
                out.append(Shift(zone, True, _dist(after)))
        return out


MOST_CHANGES = 4
"""die-sized changes beyond which a zone's change is not told die by die (a card swept, the
dice laid again): only that it changed"""


def _dist(types: dict[str, float]) -> tuple[tuple[str, float], ...]:
    return tuple(sorted(((t, round(float(p), 4)) for t, p in types.items()),
                        key=lambda tp: -tp[1]))
