"""How cards lie on a mat: their size and the columns players lay them in, and the card
slots of a layout as the card-slot reader wants them: front rows first, each slot with
the slots behind it (their cards reach under it) and in front of it (their cards lie on it).

Pyramid Dice slot ids are ``r<row>c<col>``; row 1 is the apex, at the far end, and each row
lies on the lower part of the row behind it (as engine/games/pyramid_dice covers cards).
The side area's places (``s<n>``) do not overlap: no slot behind or in front.
"""

from __future__ import annotations

import logging
import re

from calibration.layouts import Layout, Slot
from vision.pieces.card_slots import CardSlot

logger = logging.getLogger(__name__)

_ID = re.compile(r"r(\d+)c(\d+)$")

CARD_MM = (44.0, 63.0)
"""A card lying in an area (mini-card size, UNVERIFIED); slot cards take the slot's size."""
CARD_BAND_MM = 14.0
"""Players keep the cards of an area in columns, each card lying on the one before it with
the top band (title) of every card showing, as in patience: how much of a covered card
shows. The camera counts an area's cards from these bands (calibration.table.cards)."""
CARD_COLUMN_GAP_MM = 4.0


def _overlap(a: Slot, b: Slot) -> bool:
    ax = [p[0] for p in a.polygon]
    ay = [p[1] for p in a.polygon]
    bx = [p[0] for p in b.polygon]
    by = [p[1] for p in b.polygon]
    return min(ax) < max(bx) and min(bx) < max(ax) and min(ay) < max(by) \
        and min(by) < max(ay)


def card_slots(layout: Layout, zone: str = "pyramid") -> list[CardSlot]:
    """The zone's card slots, front row first."""
    slots = list(layout.zone(zone).slots)
    rows = {}
    for s in slots:
        m = _ID.match(s.id)
        rows[s.id] = int(m.group(1)) if m else 0
    out = []
    for s in sorted(slots, key=lambda s: (-rows[s.id], s.id)):
        behind = tuple(o.id for o in slots if rows[o.id] == rows[s.id] - 1 and _overlap(s, o))
        front = tuple(o.id for o in slots if rows[o.id] == rows[s.id] + 1 and _overlap(s, o))
        out.append(CardSlot(s.id, s.polygon, behind, front))
    return out
