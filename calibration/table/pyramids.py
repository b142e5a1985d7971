"""The pieces stage for Looney pyramids (IceDice): each zone's pyramids, read on the table
plane against the mat's own raster (vision.pieces.pyramids), with colour and size distributions."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from calibration.layouts import Layout
from calibration.perception import resolve
from calibration.printing.mat import READ_PPM, mat_raster
from calibration.profile import Profile
from calibration.table.gate import Box, ChangeGate
from calibration.table.sight import Sight
from engine.observation import Observed
from vision.pieces.pyramids import RAINBOW, SUITS_EDITION

PARTIAL_MARGIN_MM = 45.0
"""Room read round the changed cells: a whole large pyramid (37 mm base) and its lean."""
PIECE_CONFIDENCE = 0.98
"""Ceiling of a pyramid's existence probability. At 1.0 one piece misread as two (a large
one leaning over a marker) cost more than the rules' "unexplained" margin in every reading
that followed, and the match stalled in alerts; at 0.98 the extra piece costs the same in
every explanation and the moves are still told apart."""
ZONE_MARGIN_MM = 12.0
"""A zone is searched for pyramids this much beyond its edges (a tall piece leans out)."""


@dataclass(frozen=True)
class Pyramids:
    """Pyramids stand in the zones ``zones`` (patterns); their colours are the palette of
    the table's edition (``palettes``; RAINBOW for any other)."""

    zones: tuple[str, ...]
    palettes: Mapping[str, tuple[str, ...]] = field(
        default_factory=lambda: {"rainbow": RAINBOW, "suits": SUITS_EDITION})

    def start(self, layout: Layout, edition: str) -> PyramidStage:
        return PyramidStage(resolve(layout, self.zones), self.palettes.get(edition, RAINBOW))

    def photo(self, image: np.ndarray, table: Profile, edition: str) -> list[dict[str, Any]]:
        """Every pyramid of one photo of the table, read over the whole mat at once (a
        photo is read once: no zone is known to be unchanged), as `read --json` rows."""
        from vision.pieces.pyramids import read_pyramids

        layout, g = table.layout, table.geometry
        region = (0.0, 0.0, *layout.size_mm)
        out: list[dict[str, Any]] = []
        for p in read_pyramids(image, g.homography, region, reference=mat_raster(layout),
                               nadir=g.camera_mm[:2], palette=self.palettes.get(edition, RAINBOW),
                               ppm=READ_PPM):
            zone, slot = layout.locate((p.x, p.y))
            out.append({"kind": "piece", "type": "pyramid", "zone": zone, "slot": slot,
                        "position_mm": [round(p.x, 1), round(p.y, 1)],
                        "colour": max(p.colour, key=p.colour.__getitem__),
                        "size": max(p.size, key=p.size.__getitem__),
                        "colours": {k: round(v, 4) for k, v in p.colour.items()},
                        "sizes": {k: round(v, 4) for k, v in p.size.items()},
                        "base_mm": round(p.base_mm, 1)})
        return out


@dataclass
class PyramidStage:
    """One table's pyramid reader: each of its zones read again only where it changed."""

    zones: tuple[str, ...]
    palette: tuple[str, ...]

    def read(self, sight: Sight, gate: ChangeGate) -> list[Observed]:
        out: list[Observed] = []
        for zone in self.zones:
            out += self._zone(sight, gate, zone)
        return out

    def _zone(self, sight: Sight, gate: ChangeGate, zone: str) -> list[Observed]:
        from vision.pieces.pyramids import read_pyramids

        image, layout, g = sight.image, sight.table.layout, sight.table.geometry
        poly = np.array(layout.zone(zone).polygon)
        (x0, y0), (x1, y1) = poly.min(axis=0) - ZONE_MARGIN_MM, poly.max(axis=0) + ZONE_MARGIN_MM
        w, h = layout.size_mm
        x0, y0, x1, y1 = max(0.0, x0), max(0.0, y0), min(w, x1), min(h, y1)
        x0, y0 = np.floor(x0 * READ_PPM) / READ_PPM, np.floor(y0 * READ_PPM) / READ_PPM
        region = (float(x0), float(y0), float(x1), float(y1))

        def read(core: Box | None = None) -> list[Observed]:
            sx0, sy0, sx1, sy1 = region
            if core is not None:  # the changed part, with room for a whole piece round it
                sx0 = max(sx0, np.floor((core[0] - PARTIAL_MARGIN_MM) * READ_PPM) / READ_PPM)
                sy0 = max(sy0, np.floor((core[1] - PARTIAL_MARGIN_MM) * READ_PPM) / READ_PPM)
                sx1 = min(sx1, core[2] + PARTIAL_MARGIN_MM)
                sy1 = min(sy1, core[3] + PARTIAL_MARGIN_MM)
            ref = mat_raster(layout)
            a, b = int(round(sx0 * READ_PPM)), int(round(sy0 * READ_PPM))
            rw = int(round((sx1 - sx0) * READ_PPM))
            rh = int(round((sy1 - sy0) * READ_PPM))
            out = []
            for p in read_pyramids(image, g.homography, (float(sx0), float(sy0), float(sx1),
                                                         float(sy1)),
                                   reference=ref[b:b + rh, a:a + rw],
                                   nadir=g.camera_mm[:2], palette=self.palette, ppm=READ_PPM):
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

        return gate.cached(zone, sight, region, read, partial=True)
