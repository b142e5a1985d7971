"""What a mat looks like, as a list of vector shapes in mat millimetres.

Both the PDF writer and the raster renderer draw the same shapes, so the printed mat, the PNG
and the image the calibration compares a photo with agree to the printer's accuracy. Shapes
are plain values: filled polygons (marker cells), outlines (zones, slots) and text.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

import cv2
import numpy as np

from calibration.layouts import Layout, Marker, Point

logger = logging.getLogger(__name__)

#: Grey levels (0 black .. 1 white).
ZONE_GREY = 0.45
SLOT_GREY = 0.7
TEXT_GREY = 0.35


@dataclass(frozen=True, slots=True)
class Fill:
    """A filled polygon."""

    points: tuple[Point, ...]
    grey: float = 0.0


@dataclass(frozen=True, slots=True)
class Outline:
    """A closed polyline (dashed when dash > 0, mm)."""

    points: tuple[Point, ...]
    width: float
    grey: float
    dash: float = 0.0


@dataclass(frozen=True, slots=True)
class Text:
    """One line of text, anchored at its left baseline (or centred on x when centred)."""

    x: float
    y: float
    text: str
    size: float
    """Cap height in mm (roughly: the font size is size / 0.72)."""
    grey: float = TEXT_GREY
    centred: bool = False
    upside_down: bool = False
    """Turned half round about its anchor (for the players across the table)."""


Shape = Fill | Outline | Text


def marker_dictionary(name: str) -> cv2.aruco.Dictionary:
    return cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, name))


def marker_cells(marker: Marker, dictionary: cv2.aruco.Dictionary) -> list[Fill]:
    """Black cells of one marker, one rectangle per horizontal run of black cells."""
    n = dictionary.markerSize + 2
    bits = cv2.aruco.generateImageMarker(dictionary, marker.id, n) < 128
    cell = marker.size / n
    x0 = marker.centre[0] - marker.size / 2
    y0 = marker.centre[1] - marker.size / 2
    out = []
    for r in range(n):
        c = 0
        while c < n:
            if bits[r, c]:
                start = c
                while c < n and bits[r, c]:
                    c += 1
                out.append(Fill(((x0 + start * cell, y0 + r * cell), (x0 + c * cell, y0 + r * cell),
                                 (x0 + c * cell, y0 + (r + 1) * cell),
                                 (x0 + start * cell, y0 + (r + 1) * cell))))
            else:
                c += 1
    return out


def mat_shapes(layout: Layout) -> list[Shape]:
    """Every shape of the mat: outlines and labels first, markers last (on top)."""
    shapes: list[Shape] = []
    w, h = layout.size_mm
    shapes.append(Outline(((0, 0), (w, 0), (w, h), (0, h)), 0.3, SLOT_GREY))
    for zone in layout.zones:
        shapes.append(Outline(zone.polygon, 0.8, ZONE_GREY))
        xs = [p[0] for p in zone.polygon]
        ys = [p[1] for p in zone.polygon]
        far = ":" in zone.name and (min(ys) + max(ys)) / 2 < layout.size_mm[1] / 2
        if far:  # a player across the table reads their zone's name the right way up
            shapes.append(Text(max(xs) - 3, max(ys) - 7, zone.label, 4.5, upside_down=True))
        else:
            shapes.append(Text(min(xs) + 3, min(ys) + 7, zone.label, 4.5))
        for slot in zone.slots:
            if slot.height:
                continue  # stacked on other dice: nothing to print
            shapes.append(Outline(slot.polygon, 0.4, SLOT_GREY))
            sx = [p[0] for p in slot.polygon]
            sy = [p[1] for p in slot.polygon]
            size = min(3.0, (max(sy) - min(sy)) / 5)
            # At the slot's top: overlapping cards (the pyramid) leave only that strip.
            shapes.append(Text((min(sx) + max(sx)) / 2, min(sy) + size + 1.5, slot.id, size,
                               grey=SLOT_GREY, centred=True))
    # The mat's name in the border, in the gap between the two bottom-left markers and clear
    # of their quiet zones, so a print can be identified.
    bottom = sorted((m for m in layout.markers if m.centre[1] > h - 40), key=lambda m: m.centre[0])
    if len(bottom) >= 2:
        x = (bottom[0].centre[0] + bottom[1].centre[0]) / 2
        room = bottom[1].centre[0] - bottom[0].centre[0] - bottom[0].size - 12
        caption = f"dicetable {layout.key} #{min(layout.marker_ids())}-{max(layout.marker_ids())}"
        size = min(2.5, room / max(1, len(caption)) / 0.55 * 0.72)
        shapes.append(Text(x, bottom[0].centre[1] + size / 2, caption, size, centred=True))
    dictionary = marker_dictionary(layout.marker_dictionary)
    for marker in layout.markers:
        shapes.extend(marker_cells(marker, dictionary))
    return shapes


def ink_extent(shape: Shape) -> tuple[float, float, float, float]:
    """Bounding box (x0, y0, x1, y1) of a shape's ink, mm."""
    if isinstance(shape, Text):
        width = text_width(shape.text, shape.size)
        x0 = shape.x - width / 2 if shape.centred else shape.x
        if shape.upside_down:
            x0 = shape.x - width / 2 if shape.centred else shape.x - width
            return (x0, shape.y - shape.size * 0.3, x0 + width, shape.y + shape.size * 1.1)
        return (x0, shape.y - shape.size * 1.1, x0 + width, shape.y + shape.size * 0.3)
    pts = np.asarray(shape.points)
    pad = shape.width / 2 if isinstance(shape, Outline) else 0.0
    return (pts[:, 0].min() - pad, pts[:, 1].min() - pad, pts[:, 0].max() + pad,
            pts[:, 1].max() + pad)


def text_width(text: str, size: float) -> float:
    """Approximate width of Helvetica text of cap height `size` (0.55 em per character)."""
    return len(text) * size / 0.72 * 0.55
