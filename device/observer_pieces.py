"""What the observer reads besides the dice: IceDice's pyramids, Pyramid Dice's card slots,
side area and players' areas.

Pyramid Dice's side area and players' areas hold cards in columns with each card's top band
showing (calibration.table_render.CARD_BAND_MM): each column's height gives its count, and a
side card is known by the look of its band (vision.card_looks), learnt from the pyramid slot
the state placed the card in. The players' areas are counted only: the rules know which
cards they are from the moves.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from device.observer_zones import ZoneGate
from engine.observation import Observed

PIECE_ZONES = ("bank", "counter", "vault:0", "vault:1", "vault:2", "vault:3", "vault:4")
"""Where IceDice pyramids stand: a 'pyramid' found elsewhere is a die's colour patch."""
PARTIAL_MARGIN_MM = 45.0
"""Room read round the changed cells: a whole large pyramid (37 mm base) and its lean."""
PIECE_CONFIDENCE = 0.98
"""Ceiling of a pyramid's existence probability. At 1.0 one piece misread as two (a large
one leaning over a marker) cost more than the rules' "unexplained" margin in every reading
that followed, and the match stalled in alerts; at 0.98 the extra piece costs the same in
every explanation and the moves are still told apart."""
AREA_CARD_CONFIDENCE = 0.95
"""Confidence of a card counted from a column's bands (a band hidden by the next column's
shadow or a card laid crooked miscounts; UNVERIFIED on real tables)."""
BLOB_GROWTH_MM = 2.0
"""How much taller a column's not-mat blob measures than its cards (edges, the closing)."""
PIECES_PPM = 2.0
"""Resolution at which pieces and card slots are read (calibration.pieces_read.PPM)."""
ZONE_MARGIN_MM = 12.0
"""A zone is searched for pyramids this much beyond its edges (a tall piece leans out)."""




class PiecesReading(ZoneGate):
    """Mixin of :class:`device.observer.TableObserver` (its edition, expected view, paper
    colour and learnt card looks)."""

    edition: str
    _expected: Any
    _white: Any
    card_looks: dict[str, np.ndarray]

    def _pyramids(self, prof: Any, image: np.ndarray, zone: str) -> list[Observed]:
        from vision.pyramids import RAINBOW, SUITS_EDITION, read_pyramids

        layout, g = prof.layout, prof.geometry
        poly = np.array(layout.zone(zone).polygon)
        (x0, y0), (x1, y1) = poly.min(axis=0) - ZONE_MARGIN_MM, poly.max(axis=0) + ZONE_MARGIN_MM
        w, h = layout.size_mm
        x0, y0, x1, y1 = max(0.0, x0), max(0.0, y0), min(w, x1), min(h, y1)
        x0, y0 = np.floor(x0 * PIECES_PPM) / PIECES_PPM, np.floor(y0 * PIECES_PPM) / PIECES_PPM
        region = (float(x0), float(y0), float(x1), float(y1))

        def read(core: tuple | None = None) -> list[Observed]:
            sx0, sy0, sx1, sy1 = region
            if core is not None:  # the changed part, with room for a whole piece round it
                sx0 = max(sx0, np.floor((core[0] - PARTIAL_MARGIN_MM) * PIECES_PPM) / PIECES_PPM)
                sy0 = max(sy0, np.floor((core[1] - PARTIAL_MARGIN_MM) * PIECES_PPM) / PIECES_PPM)
                sx1 = min(sx1, core[2] + PARTIAL_MARGIN_MM)
                sy1 = min(sy1, core[3] + PARTIAL_MARGIN_MM)
            ref = _mat(layout)
            a, b = int(round(sx0 * PIECES_PPM)), int(round(sy0 * PIECES_PPM))
            rw = int(round((sx1 - sx0) * PIECES_PPM))
            rh = int(round((sy1 - sy0) * PIECES_PPM))
            palette = SUITS_EDITION if self.edition == "suits" else RAINBOW
            out = []
            for p in read_pyramids(image, g.homography, (float(sx0), float(sy0), float(sx1),
                                                         float(sy1)),
                                   reference=ref[b:b + rh, a:a + rw],
                                   nadir=g.camera_mm[:2], palette=palette, ppm=PIECES_PPM):
                z, slot = layout.locate((p.x, p.y))
                if z != zone:
                    continue
                if core is not None and not (core[0] <= p.x < core[2]
                                             and core[1] <= p.y < core[3]):
                    continue
                out.append(Observed.make(
                    "piece", z, slot, confidence=min(p.confidence, PIECE_CONFIDENCE),
                    position_mm=(round(p.x, 1), round(p.y, 1)),
                    colour={k: round(v, 4) for k, v in p.colour.items()},
                    size={k: round(v, 4) for k, v in p.size.items()}))
            return out

        return self._cached(zone, prof, image, region, read, partial=True)

    def _area_cards(self, prof: Any, image: np.ndarray, zone: str) -> list[Observed]:
        """Cards counted in an area zone: one per card band of each column."""
        from calibration.table_render import CARD_BAND_MM, CARD_COLUMN_GAP_MM, CARD_MM
        from vision.card_slots import not_mat
        from vision.pyramids import rectify

        layout, g = prof.layout, prof.geometry
        poly = np.array(layout.zone(zone).polygon)
        (x0, y0), (x1, y1) = poly.min(axis=0) + 1, poly.max(axis=0) - 1
        region = (float(x0), float(y0), float(x1), float(y1))

        def read() -> list[Observed]:
            import cv2

            from vision.card_looks import band_seen, identify

            top = rectify(image, g.homography, region, PIECES_PPM)
            colour = top
            ref = _mat(layout)
            a, b = int(round(x0 * PIECES_PPM)), int(round(y0 * PIECES_PPM))
            ref = ref[b:b + top.shape[0], a:a + top.shape[1]]
            if ref.shape != top.shape:
                return []
            mask = not_mat(top, ref).astype(np.uint8)
            mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((5, 5), np.uint8))
            n, comp, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
            out = []
            pitch = (CARD_MM[0] + CARD_COLUMN_GAP_MM) * PIECES_PPM
            for k in range(1, n):
                left, top_, w, h = (int(v) for v in stats[k, :4])
                if w < CARD_MM[0] * 0.6 * PIECES_PPM or h < CARD_MM[1] * 0.6 * PIECES_PPM:
                    continue  # not a card (a die's shadow, a crumb)
                # Columns that touch make one blob: measure each column's height apart.
                cols = max(1, int(round((w + CARD_COLUMN_GAP_MM * PIECES_PPM) / pitch)))
                for j in range(cols):
                    a0 = left + int(j * pitch)
                    a1 = min(left + w, a0 + int(CARD_MM[0] * PIECES_PPM))
                    # the middle half of the column: a neighbour's edge never reaches it
                    q = (a1 - a0) // 4
                    rows = np.flatnonzero((comp[top_:top_ + h, a0 + q:a1 - q] == k).any(axis=1))
                    if len(rows) == 0:
                        continue
                    hh = (rows[-1] - rows[0] + 1) / PIECES_PPM
                    if hh < CARD_MM[1] * 0.6:
                        continue
                    # the blob is a little taller than the cards (edges, the closing)
                    count = 1 + max(0, int(round((hh - CARD_MM[1] - BLOB_GROWTH_MM)
                                                 / CARD_BAND_MM)))
                    cx = x0 + (a0 + a1) / 2 / PIECES_PPM
                    cy = y0 + (top_ + rows[0]) / PIECES_PPM + hh / 2
                    for i in range(count):
                        ids: dict[str, float] = {}
                        if zone == "side" and self.card_looks:
                            # the i-th card's top band shows: known by its look
                            b0 = top_ + rows[0] + int(round(i * CARD_BAND_MM * PIECES_PPM))
                            b1 = b0 + int(round(CARD_BAND_MM * PIECES_PPM))
                            seen = band_seen(colour, (a0, b0, a1, b1), PIECES_PPM,
                                             self._white)
                            if seen is not None:
                                ids = identify(seen, self.card_looks)
                        extra = {"card": ids} if ids else {}
                        out.append(Observed.make(
                            "card", zone, None, confidence=AREA_CARD_CONFIDENCE,
                            position_mm=(round(cx, 1), round(cy, 1)), **extra))
            return out

        return self._cached(zone, prof, image, region, read)

    def _cards(self, prof: Any, image: np.ndarray) -> list[Observed]:
        """The pyramid's card slots (the side area is counted by _area_cards); after a card
        is taken or removed only the slots round the change are read again. The look of
        each card the state places in a slot that holds one is learnt once."""
        from calibration.card_layout import card_slots
        from vision.card_slots import read_slots

        layout, g = prof.layout, prof.geometry
        slots = card_slots(layout, "pyramid")
        boxes = {s.id: (*np.min(s.polygon, axis=0), *np.max(s.polygon, axis=0))
                 for s in slots}
        poly = np.array(layout.zone("pyramid").polygon)
        region = tuple(float(v) for v in (*poly.min(axis=0), *poly.max(axis=0)))

        def touched(sid: str | None, core: tuple) -> bool:
            b = boxes.get(sid or "")
            return b is not None and b[0] < core[2] and core[0] < b[2] and \
                b[1] < core[3] and core[1] < b[3]

        def read(core: tuple | None = None) -> list[Observed]:
            sub = slots if core is None else [s for s in slots if touched(s.id, core)]
            if not sub:
                return []
            # the slots not read keep their last reading for the cards lying on them
            last = self._zone_cache.get("pyramid")
            known = {o.slot: o.confidence for o in last[1]} if last and core else {}
            pts = np.array([p for s in sub for p in s.polygon])
            x0 = max(region[0], np.floor((pts[:, 0].min() - 3) * PIECES_PPM) / PIECES_PPM)
            y0 = max(region[1], np.floor((pts[:, 1].min() - 3) * PIECES_PPM) / PIECES_PPM)
            x1 = min(region[2], pts[:, 0].max() + 3)
            y1 = min(region[3], pts[:, 1].max() + 3)
            ref = _mat(layout)
            a, b = int(round(x0 * PIECES_PPM)), int(round(y0 * PIECES_PPM))
            ref = ref[b:b + int(round((y1 - y0) * PIECES_PPM)),
                      a:a + int(round((x1 - x0) * PIECES_PPM))]
            got = read_slots(image, g.homography, sub, ref, (x0, y0, x1, y1), PIECES_PPM,
                             known={k: v for k, v in known.items() if k is not None},
                             others=tuple(s for s in slots if s not in sub),
                             paper=self._white if core is not None else None)
            return [Observed.make("card", "pyramid", sid, confidence=round(p, 4))
                    for sid, p in got.items() if p >= 0.5]

        cards = self._cached("pyramid", prof, image, region, read, partial=True,
                             owns=lambda o, core: touched(o.slot, core))
        if self._expected is not None:
            self._learn_looks(prof, image, {o.slot for o in cards})
        return cards

    def _learn_looks(self, prof: Any, image: np.ndarray, present: set[str | None]) -> None:
        from calibration.table_render import CARD_BAND_MM
        from vision.card_looks import band_look
        from vision.pyramids import rectify

        slots = {s.id: s for s in prof.layout.zone("pyramid").slots}
        for e in self._expected:
            cid = e.attr("card")
            if e.kind != "card" or e.zone != "pyramid" or cid is None or \
                    cid in self.card_looks or e.slot not in present or e.slot not in slots:
                continue
            poly = np.array(slots[e.slot].polygon)
            (x0, y0), (x1, _) = poly.min(axis=0), poly.max(axis=0)
            # the card lies about 1 mm inside its slot; its top band is what shows of it
            band = (float(x0) + 1, float(y0) + 1, float(x1) - 1, float(y0) + 1 + CARD_BAND_MM)
            top = rectify(image, prof.geometry.homography, band, PIECES_PPM)
            look = band_look(top, (0, 0, top.shape[1], top.shape[0]), PIECES_PPM,
                             self._white)
            if look is not None:
                self.card_looks[cid] = look


def _mat(layout: Any) -> np.ndarray:
    from calibration.pieces_read import mat_raster

    return mat_raster(layout)  # at PIECES_PPM, shared with `read --game` (one raster)
