"""The pieces stage for cards (Pyramid Dice): the card slots of a zone, and the cards of the
area zones, where cards lie in columns with each card's top band showing
(calibration.printing.card_layout.CARD_BAND_MM): each column's height gives its count, and in the
zones named ``known_by_look`` each card is known by the look of its band (vision.pieces.card_looks),
learnt from the slot the state placed the card in. The other areas are counted only: the
rules know which cards they are from the moves.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from calibration.layouts import Layout
from calibration.perception import resolve
from calibration.printing.card_layout import CARD_BAND_MM, CARD_COLUMN_GAP_MM, CARD_MM, card_slots
from calibration.printing.mat import READ_PPM, mat_raster
from calibration.profile import Profile
from calibration.table.gate import Box, ChangeGate
from calibration.table.sight import Sight
from engine.observation import Observed

AREA_CARD_CONFIDENCE = 0.95
"""Confidence of a card counted from a column's bands (a band hidden by the next column's
shadow or a card laid crooked miscounts; UNVERIFIED on real tables)."""
BLOB_GROWTH_MM = 2.0
"""How much taller a column's not-mat blob measures than its cards (edges, the closing)."""


@dataclass(frozen=True)
class Cards:
    """Card slots in the zone ``slots``, cards counted in the zones ``areas`` (patterns),
    and known by their looks in ``known_by_look``."""

    slots: str
    areas: tuple[str, ...] = ()
    known_by_look: tuple[str, ...] = ()

    def start(self, layout: Layout, edition: str) -> CardStage:
        return CardStage(self.slots, resolve(layout, self.areas),
                         resolve(layout, self.known_by_look))

    def photo(self, image: np.ndarray, table: Profile, edition: str) -> list[dict[str, Any]]:
        """Every card place of one photo of the table, present or not, as `read --json`
        rows: the slots of ``slots`` and those of the areas that have places (Pyramid Dice's
        side area), read at once."""
        from vision.pieces.card_slots import read_slots

        layout, g = table.layout, table.geometry
        zones = [z for z in (self.slots, *resolve(layout, self.areas)) if layout.zone(z).slots]
        slots, zone_of = [], {}
        for z in zones:
            for s in card_slots(layout, z):
                slots.append(s)
                zone_of[s.id] = z
        poly = np.concatenate([np.array(layout.zone(z).polygon) for z in zones])
        x0, y0 = poly.min(axis=0)
        x1, y1 = poly.max(axis=0)
        mat = mat_raster(layout)
        ref = mat[int(y0 * READ_PPM):int(round(y1 * READ_PPM)),
                  int(x0 * READ_PPM):int(round(x1 * READ_PPM))]
        got = read_slots(image, g.homography, slots, ref, (x0, y0, x1, y1), READ_PPM)
        return [{"kind": "card", "type": "card", "zone": zone_of[s.id], "slot": s.id,
                 "present": got[s.id] >= 0.5, "probability": round(got[s.id], 4)}
                for s in slots]


@dataclass
class CardStage:
    """One table's card reader, with the looks of the cards it learnt."""

    slots: str
    areas: tuple[str, ...]
    known_by_look: tuple[str, ...]
    looks: dict[str, np.ndarray] = field(default_factory=dict)
    """card id -> the look of its top band, learnt from the slots as dealt"""

    def read(self, sight: Sight, gate: ChangeGate) -> list[Observed]:
        cards = list(self._slots(sight, gate))  # (a copy: the gate keeps its own)
        for zone in self.areas:
            cards += self._area(sight, gate, zone)
        return cards

    def _area(self, sight: Sight, gate: ChangeGate, zone: str) -> list[Observed]:
        """Cards counted in an area zone: one per card band of each column."""
        from vision.pieces.pyramids import rectify

        layout, g = sight.table.layout, sight.table.geometry
        poly = np.array(layout.zone(zone).polygon)
        (x0, y0), (x1, y1) = poly.min(axis=0) + 1, poly.max(axis=0) - 1
        region = (float(x0), float(y0), float(x1), float(y1))
        identified = zone in self.known_by_look

        def read() -> list[Observed]:
            import cv2

            from vision.pieces.card_looks import band_seen, identify
            from vision.pieces.card_slots import not_mat

            top = rectify(sight.image, g.homography, region, READ_PPM)
            colour = top
            ref = mat_raster(layout)
            a, b = int(round(x0 * READ_PPM)), int(round(y0 * READ_PPM))
            ref = ref[b:b + top.shape[0], a:a + top.shape[1]]
            if ref.shape != top.shape:
                return []
            mask: np.ndarray = not_mat(top, ref).astype(np.uint8)
            mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((5, 5), np.uint8))
            n, comp, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
            out = []
            pitch = (CARD_MM[0] + CARD_COLUMN_GAP_MM) * READ_PPM
            for k in range(1, n):
                left, top_, w, h = (int(v) for v in stats[k, :4])
                if w < CARD_MM[0] * 0.6 * READ_PPM or h < CARD_MM[1] * 0.6 * READ_PPM:
                    continue  # not a card (a die's shadow, a crumb)
                # Columns that touch make one blob: measure each column's height apart.
                cols = max(1, int(round((w + CARD_COLUMN_GAP_MM * READ_PPM) / pitch)))
                for j in range(cols):
                    a0 = left + int(j * pitch)
                    a1 = min(left + w, a0 + int(CARD_MM[0] * READ_PPM))
                    # the middle half of the column: a neighbour's edge never reaches it
                    q = (a1 - a0) // 4
                    rows = np.flatnonzero((comp[top_:top_ + h, a0 + q:a1 - q] == k).any(axis=1))
                    if len(rows) == 0:
                        continue
                    hh = (rows[-1] - rows[0] + 1) / READ_PPM
                    if hh < CARD_MM[1] * 0.6:
                        continue
                    # the blob is a little taller than the cards (edges, the closing)
                    count = 1 + max(0, int(round((hh - CARD_MM[1] - BLOB_GROWTH_MM)
                                                 / CARD_BAND_MM)))
                    cx = x0 + (a0 + a1) / 2 / READ_PPM
                    cy = y0 + (top_ + rows[0]) / READ_PPM + hh / 2
                    for i in range(count):
                        ids: dict[str, float] = {}
                        if identified and self.looks:
                            # the i-th card's top band shows: known by its look
                            b0 = top_ + rows[0] + int(round(i * CARD_BAND_MM * READ_PPM))
                            b1 = b0 + int(round(CARD_BAND_MM * READ_PPM))
                            seen = band_seen(colour, (a0, b0, a1, b1), READ_PPM, sight.paper)
                            if seen is not None:
                                ids = identify(seen, self.looks)
                        extra = {"card": ids} if ids else {}
                        out.append(Observed.make(
                            "card", zone, None, confidence=AREA_CARD_CONFIDENCE,
                            position_mm=(round(cx, 1), round(cy, 1)), **extra))
            return out

        return gate.cached(zone, sight, region, read)

    def _slots(self, sight: Sight, gate: ChangeGate) -> list[Observed]:
        """The card slots (the areas are counted by _area); after a card is taken or removed
        only the slots round the change are read again. The look of each card the state
        places in a slot that holds one is learnt once."""
        from vision.pieces.card_slots import read_slots

        zone = self.slots
        layout, g = sight.table.layout, sight.table.geometry
        slots = card_slots(layout, zone)
        boxes = {s.id: (*np.min(s.polygon, axis=0), *np.max(s.polygon, axis=0))
                 for s in slots}
        (rx0, ry0), (rx1, ry1) = np.array(layout.zone(zone).polygon).min(axis=0), \
            np.array(layout.zone(zone).polygon).max(axis=0)
        region = (float(rx0), float(ry0), float(rx1), float(ry1))

        def touched(sid: str | None, core: Box) -> bool:
            b = boxes.get(sid or "")
            return b is not None and b[0] < core[2] and core[0] < b[2] and \
                b[1] < core[3] and core[1] < b[3]

        def read(core: Box | None = None) -> list[Observed]:
            sub = slots if core is None else [s for s in slots if touched(s.id, core)]
            if not sub:
                return []
            # the slots not read keep their last reading for the cards lying on them
            last = gate.readings.get(zone)
            known = {o.slot: o.confidence for o in last[1]} if last and core else {}
            pts = np.array([p for s in sub for p in s.polygon])
            x0 = max(region[0], np.floor((pts[:, 0].min() - 3) * READ_PPM) / READ_PPM)
            y0 = max(region[1], np.floor((pts[:, 1].min() - 3) * READ_PPM) / READ_PPM)
            x1 = min(region[2], pts[:, 0].max() + 3)
            y1 = min(region[3], pts[:, 1].max() + 3)
            ref = mat_raster(layout)
            a, b = int(round(x0 * READ_PPM)), int(round(y0 * READ_PPM))
            ref = ref[b:b + int(round((y1 - y0) * READ_PPM)),
                      a:a + int(round((x1 - x0) * READ_PPM))]
            got = read_slots(sight.image, g.homography, sub, ref, (x0, y0, x1, y1), READ_PPM,
                             known={k: v for k, v in known.items() if k is not None},
                             others=tuple(s for s in slots if s not in sub),
                             paper=sight.paper if core is not None else None)
            return [Observed.make("card", zone, sid, confidence=round(p, 4))
                    for sid, p in got.items() if p >= 0.5]

        cards = gate.cached(zone, sight, region, read, partial=True,
                            owns=lambda o, core: touched(o.slot, core))
        if sight.expected is not None:
            self._learn_looks(sight, {o.slot for o in cards})
        return cards

    def _learn_looks(self, sight: Sight, present: set[str | None]) -> None:
        from vision.pieces.card_looks import band_look
        from vision.pieces.pyramids import rectify

        slots = {s.id: s for s in sight.table.layout.zone(self.slots).slots}
        for e in sight.expected or ():
            cid = e.attr("card")
            if e.kind != "card" or e.zone != self.slots or cid is None or \
                    cid in self.looks or e.slot not in present or e.slot not in slots:
                continue
            poly = np.array(slots[e.slot].polygon)
            (x0, y0), (x1, _) = poly.min(axis=0), poly.max(axis=0)
            # the card lies about 1 mm inside its slot; its top band is what shows of it
            band = (float(x0) + 1, float(y0) + 1, float(x1) - 1, float(y0) + 1 + CARD_BAND_MM)
            top = rectify(sight.image, sight.table.geometry.homography, band, READ_PPM)
            look = band_look(top, (0, 0, top.shape[1], top.shape[0]), READ_PPM, sight.paper)
            if look is not None:
                self.looks[cid] = look
