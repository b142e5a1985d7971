"""Raster mats: the mat as an image (PNG output, the renderer's table, the calibration's
reference of where ink is), at a given resolution in pixels per millimetre.

Pixel (i, j) covers mat millimetres [j, j + 1) / ppm horizontally, so its centre is at
(j + 0.5) / ppm; polygons are drawn with sub-pixel precision so the marker corners a camera
sees in a rendered photo are where the layout says they are.
"""

from __future__ import annotations

import logging
import struct
import zlib
from functools import cache
from pathlib import Path

import cv2
import numpy as np

from calibration.atomicfile import write_atomic
from calibration.layouts import Layout
from calibration.printing.drawing import Fill, Outline, Shape, Text, ink_extent, mat_shapes

logger = logging.getLogger(__name__)

_SHIFT = 4  # fixed-point bits for cv2 drawing: 1/16 pixel
_HERSHEY = cv2.FONT_HERSHEY_SIMPLEX


def _pts(points: tuple[tuple[float, float], ...], ppm: float,
         origin: tuple[float, float]) -> np.ndarray:
    arr = (np.asarray(points, np.float64) - origin) * ppm
    # Edges lie on pixel boundaries in mm space; cv2 puts pixel centres at integers.
    return np.round((arr - 0.5) * (1 << _SHIFT)).astype(np.int32)


def draw_shapes(img: np.ndarray, shapes: list[Shape], ppm: float,
                origin: tuple[float, float] = (0.0, 0.0)) -> None:
    """Draw shapes (mat mm) into a grey uint8 image whose top-left pixel is at `origin` mm."""
    for s in shapes:
        if isinstance(s, Fill):
            cv2.fillPoly(img, [_pts(s.points, ppm, origin)], int(s.grey * 255), cv2.LINE_AA,
                         _SHIFT)
        elif isinstance(s, Outline):
            thick = max(1, round(s.width * ppm))
            cv2.polylines(img, [_pts(s.points, ppm, origin)], True, int(s.grey * 255), thick,
                          cv2.LINE_AA, _SHIFT)
        elif isinstance(s, Text):
            scale = s.size * ppm / 22.0  # Hershey simplex caps are ~22 px tall at scale 1
            if scale < 0.2:
                continue
            thick = max(1, round(scale * 1.5))
            (tw, th), base = cv2.getTextSize(s.text, _HERSHEY, scale, thick)
            x = (s.x - origin[0]) * ppm - (tw / 2 if s.centred else 0)
            y = (s.y - origin[1]) * ppm
            if not s.upside_down:
                cv2.putText(img, s.text, (round(x), round(y)), _HERSHEY, scale,
                            int(s.grey * 255), thick, cv2.LINE_AA)
                continue
            # Draw upright on a patch, turn it half round, and lay it ending at the anchor.
            patch = np.full((th + base + 2, tw + 2), 255, np.uint8)
            cv2.putText(patch, s.text, (1, th + 1), _HERSHEY, scale, int(s.grey * 255), thick,
                        cv2.LINE_AA)
            patch = patch[::-1, ::-1]
            x0 = round((s.x - origin[0]) * ppm + (tw / 2 if s.centred else 0)) - patch.shape[1]
            y0 = round(y) - (base + 1)
            ys, xs = max(0, y0), max(0, x0)
            ye, xe = min(img.shape[0], y0 + patch.shape[0]), min(img.shape[1], x0 + patch.shape[1])
            if ye > ys and xe > xs:
                img[ys:ye, xs:xe] = np.minimum(img[ys:ye, xs:xe],
                                               patch[ys - y0:ye - y0, xs - x0:xe - x0])


def render_mat(layout: Layout, ppm: float = 4.0) -> np.ndarray:
    """The whole mat as a BGR uint8 image, ppm pixels per millimetre."""
    w, h = layout.size_mm
    img = np.full((round(h * ppm), round(w * ppm)), 255, np.uint8)
    draw_shapes(img, mat_shapes(layout), ppm)
    return cv2.cvtColor(img, cv2.COLOR_GRAY2BGR)


READ_PPM = 2.0
"""Resolution at which the table reader compares the table with its mat (dice found on the
mat, pyramids, card slots and card areas), px per mm."""


@cache
def mat_raster(layout: Layout) -> np.ndarray:
    """The mat as printed, at READ_PPM: the reference the table reader tells dice, pieces
    and cards from (rendered once per layout, read-only)."""
    raster = render_mat(layout, READ_PPM)
    raster.setflags(write=False)
    return raster


@cache
def paper_mask(layout: Layout, ppm: float = 2.0, clearance_mm: float = 2.0) -> np.ndarray:
    """bool (H, W): mat pixels that are bare paper at least clearance_mm from any ink.

    Comparing a photo with the mat only there makes the test indifferent to how the printer
    drew the lines and the letters. Cached (read-only): it is needed for every frame.
    """
    w, h = layout.size_mm
    img = np.full((round(h * ppm), round(w * ppm)), 255, np.uint8)
    shapes = mat_shapes(layout)
    draw_shapes(img, shapes, ppm)
    # Printed letters are Helvetica, the raster's are Hershey: count a label's whole box as
    # ink (a little wider than Helvetica's), so no printed letter passes for a die.
    for t in shapes:
        if isinstance(t, Text):
            x0, y0, x1, y1 = ink_extent(t)
            grow = (x1 - x0) * 0.1 + 1.0
            cv2.rectangle(img, (int((x0 - grow) * ppm), int((y0 - 1) * ppm)),
                          (int((x1 + grow) * ppm) + 1, int((y1 + 1) * ppm) + 1), 0, -1)
    ink: np.ndarray = (img < 250).astype(np.uint8)
    k = max(1, round(clearance_mm * ppm)) * 2 + 1
    ink = cv2.dilate(ink, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
    free = ink == 0
    free.setflags(write=False)
    return free


def _png_chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(
        ">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def png_bytes(img: np.ndarray, dpi: float) -> bytes:
    """PNG with its physical resolution recorded (pHYs), so viewers print it at true size."""
    ok, buf = cv2.imencode(".png", img)
    if not ok:
        raise ValueError("PNG encoding failed")
    data = buf.tobytes()
    ppm_metre = round(dpi / 0.0254)
    phys = _png_chunk(b"pHYs", struct.pack(">IIB", ppm_metre, ppm_metre, 1))
    end_ihdr = 8 + 4 + 4 + 13 + 4  # signature, IHDR length + type + data + crc
    return data[:end_ihdr] + phys + data[end_ihdr:]


def write_png(layout: Layout, path: str | Path, dpi: float = 150.0) -> tuple[int, int]:
    """Write the whole mat as one PNG at `dpi`; returns (width, height) in pixels."""
    img = render_mat(layout, dpi / 25.4)
    write_atomic(path, png_bytes(img, dpi))
    return img.shape[1], img.shape[0]
