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
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from calibration.layouts import Layout
from calibration.table.gate import ZONE_CHANGE, _cells, lit_alike, mean_normalised
from calibration.table.sight import Sight
from engine.observation import View, in_zone

WATCH_PPM, WATCH_CELL_MM = 2.0, 3.0
"""As the dice zones (calibration.table.dice.DICE_PPM): a die taken leaves a 16 mm hole."""


CHANGE_CELLS = 3
"""A change is a die's worth: a square of CHANGE_CELLS x CHANGE_CELLS changed cells (9 mm; a
die taken leaves a 16 mm hole). The edges of every die, a pixel off when the camera's fit
moved by a fraction of one, changed scattered cells: 17 of the Wilds' 3 000 with nothing
moved in a simulated match (seed 3)."""


def _die_sized(cells: np.ndarray) -> bool:
    import cv2

    k = np.ones((CHANGE_CELLS, CHANGE_CELLS), np.uint8)
    return bool(cv2.erode(cells.astype(np.uint8), k, borderType=cv2.BORDER_CONSTANT,
                          borderValue=0).any())


@dataclass
class ZoneWatch:
    """The watched zones of one table (see the module docstring)."""

    layout: Layout
    zones: tuple[str, ...]
    _last: dict[str, np.ndarray] = field(default_factory=dict)
    """each zone's look at the last reading that saw it whole"""
    _ref: dict[str, np.ndarray | None] = field(default_factory=dict)
    """each zone's look when the record last changed what lies there (None: not seen yet)"""
    _held: dict[str, View] = field(default_factory=dict)
    """what the record put in each zone then"""

    def expect(self, view: View) -> None:
        """The record's state before a reading: where it changed what lies in a zone, the
        zone's last look (the reading that led to the change) is the one to compare with."""
        for zone in self.zones:
            held = in_zone(view, zone)
            if self._held.get(zone) != held:
                if zone in self._held:
                    self._ref[zone] = self._last.get(zone)
                self._held[zone] = held

    def observe(self, sight: Sight, seen: frozenset[str]) -> tuple[tuple[str, bool], ...]:
        """(zone, changed) for each watched zone seen whole in ``sight`` that has a look to
        compare with."""
        from vision.pieces.pyramids import rectify

        out = []
        cell = int(round(WATCH_CELL_MM * WATCH_PPM))
        for zone in self.zones:
            if zone not in seen:
                continue
            poly = np.array(self.layout.zone(zone).polygon, np.float64)
            (x0, y0), (x1, y1) = poly.min(axis=0), poly.max(axis=0)
            look = mean_normalised(rectify(sight.image, sight.table.geometry.homography,
                                           (float(x0), float(y0), float(x1), float(y1)),
                                           WATCH_PPM))
            self._last[zone] = look
            ref = self._ref.get(zone)
            if ref is None or ref.shape != look.shape:
                self._ref[zone] = look  # the first look: nothing to compare with yet
                continue
            cells = _cells(look, ref, cell, sliding=True) > ZONE_CHANGE
            if cells.any():
                cells &= lit_alike(look, ref, cell)
            out.append((zone, bool(cells.any()) and _die_sized(cells)))
        return tuple(out)
