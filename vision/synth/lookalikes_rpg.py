"""Dice that a d6 pip reader must not report: RPG dice (d4, d8, d10, d12, d20) and six-sided
dice with numerals instead of pips.

An RPG die is seen from above as its silhouette (a triangle, hexagon, kite or decagon)
around the face up, with the slanted facets between them shaded by how they face the lamp
and a numeral on the face up (small ones on some facets). Styles: opaque, translucent,
metal, and enamel in metal rims. Real photos of dice piles are full of them.
"""

from __future__ import annotations

import logging

import cv2
import numpy as np

from vision.synth.lookalike_stamp import (
    Patch,
    Stage,
    blank_patch,
    cover,
    detail,
    fill,
    glyph,
    new_mask,
    rounded_rect,
    stamp,
)

logger = logging.getLogger(__name__)

_BODIES = ((40, 40, 190), (170, 80, 30), (40, 190, 225), (60, 150, 40), (130, 40, 110),
           (30, 30, 32), (225, 225, 225), (150, 150, 40), (30, 110, 230), (80, 20, 90))
_INKS = ((235, 235, 235), (60, 180, 225), (25, 25, 25), (40, 40, 200))
_METALS = ((60, 160, 205), (185, 185, 190), (70, 70, 75), (60, 100, 175))


def _ngon(n: int, r: float, start_deg: float, stretch: float = 1.0) -> np.ndarray:
    a = np.deg2rad(start_deg + np.arange(n) * 360.0 / n)
    return np.stack([r * np.cos(a), r * np.sin(a) * stretch], axis=1)


def _shape(kind: str, r: float) -> tuple[np.ndarray, np.ndarray]:
    """(silhouette, face up) polygons about the origin for a die of circumradius ``r``."""
    if kind == "d4":
        return _ngon(3, r, -90), np.zeros((1, 2))  # the apex points up at the centre
    if kind == "d8":
        return _ngon(6, r, -90), _ngon(3, r, -90)
    if kind == "d10":
        sil = np.array([[0, -1], [0.6, -0.45], [0.62, 0.25], [0, 0.8], [-0.62, 0.25],
                        [-0.6, -0.45]]) * r
        face = np.array([[0, -0.95], [0.42, -0.05], [0, 0.5], [-0.42, -0.05]]) * r
        return sil, face
    if kind == "d12":
        return _ngon(10, r, -90), _ngon(5, r * 0.55, -90)
    return _ngon(6, r, -90), _ngon(3, r * 0.55, 90)  # d20


def _facets(sil: np.ndarray, face: np.ndarray) -> list[np.ndarray]:
    """Triangles filling the ring between the silhouette and the face up: each silhouette
    edge to its nearest face corner, each face edge to its nearest silhouette corner."""
    tris = []
    for i in range(len(sil)):
        a, b = sil[i], sil[(i + 1) % len(sil)]
        j = int(np.argmin(np.linalg.norm(face - (a + b) / 2, axis=1)))
        tris.append(np.array([a, b, face[j]]))
    if len(face) > 2:
        for j in range(len(face)):
            a, b = face[j], face[(j + 1) % len(face)]
            k = int(np.argmin(np.linalg.norm(sil - (a + b) / 2, axis=1)))
            tris.append(np.array([a, b, sil[k]]))
    return tris


def _poly(mask_shape: tuple[int, int], pts: np.ndarray, c: float) -> np.ndarray:
    m = new_mask(mask_shape)
    cv2.fillPoly(m, [np.round((pts + c) * 16).astype(np.int32)], 255, cv2.LINE_AA, shift=4)
    return cover(m)


def _style(rng: np.random.Generator) -> tuple[str, tuple[float, ...], tuple[float, ...]]:
    """(style, body BGR, ink BGR)."""
    style = str(rng.choice(["opaque", "opaque", "translucent", "translucent", "metal",
                            "enamel"]))
    if style == "metal":
        body = _METALS[int(rng.integers(len(_METALS)))]
        ink = (25.0, 25.0, 25.0) if rng.random() < 0.6 else _BODIES[int(rng.integers(5))]
    else:
        body = _BODIES[int(rng.integers(len(_BODIES)))]
        ink = _INKS[int(rng.integers(len(_INKS)))]
        if abs(sum(ink) - sum(body)) < 150:
            ink = (25.0, 25.0, 25.0) if sum(body) > 380 else (235.0, 235.0, 235.0)
    return style, tuple(float(v) for v in body), tuple(float(v) for v in ink)


def rpg_patch(kind: str, size_px: float, rng: np.random.Generator) -> tuple[Patch, tuple]:
    """(top view of an RPG die ``size_px`` across, its side colour)."""
    n = max(6, int(size_px + 3))
    c = n / 2
    sil, face = _shape(kind, size_px / 2)
    style, body, ink = _style(rng)
    p = blank_patch(n, n)
    lamp = rng.uniform(0, 2 * np.pi)
    opacity = rng.uniform(0.7, 0.85) if style == "translucent" else 1.0
    spread = 0.55 if style == "metal" else 0.3
    for tri in _facets(sil, face):
        centroid = tri.mean(axis=0)
        facing = float(centroid @ (np.cos(lamp), np.sin(lamp))) / (size_px / 2)
        k = 0.85 + spread * facing + rng.uniform(-0.08, 0.08)
        fill(p, _poly((n, n), tri, c) * opacity, tuple(v * k for v in body))
    if len(face) > 2:
        top = tuple(min(255.0, v * 1.08) for v in body)
        fill(p, _poly((n, n), face, c) * opacity, top)
    lines = new_mask((n, n))
    for tri in _facets(sil, face):
        cv2.polylines(lines, [np.round((tri + c) * 16).astype(np.int32)], True, 255,
                      max(1, int(size_px / 40)), cv2.LINE_AA, shift=4)
    edges = cover(lines)
    rim = (60.0, 160.0, 205.0) if style == "enamel" else tuple(min(255.0, v * 1.35 + 30)
                                                             for v in body)
    fill(p, edges * p.alpha * (0.9 if style == "enamel" else 0.35), rim)
    _numerals(p, kind, face, c, size_px, ink, rng)
    return p, tuple(v * 0.55 for v in body)


def _numerals(p: Patch, kind: str, face: np.ndarray, c: float, size_px: float,
              ink: tuple, rng: np.random.Generator) -> None:
    top = {"d4": 4, "d8": 8, "d10": 10, "d12": 12, "d20": 20}[kind]
    if kind == "d4":  # a d4 is read at its corners: a numeral near each
        for k, a in enumerate((-90, 30, 150)):
            r = size_px * 0.2
            glyph(p, str(k + 1), c + r * np.cos(np.deg2rad(a)), c + r * np.sin(np.deg2rad(a)),
                  size_px * 0.13, ink, angle_deg=float(-a - 90))
        return
    value = int(rng.integers(1, top + 1))
    text = f"{value - 1}0" if kind == "d10" and rng.random() < 0.3 else str(value)
    centre = face.mean(axis=0) + c
    glyph(p, text, centre[0], centre[1], size_px * (0.22 if len(text) > 1 else 0.28), ink,
          angle_deg=rng.uniform(-40, 40))


def rpg_dice(img: np.ndarray, centre: tuple[float, float], stage: Stage,
             rng: np.random.Generator) -> np.ndarray:
    """A few RPG dice (d4, d8, d10, d12, d20) scattered about ``centre``."""
    px = stage.mm_per_px  # image px, for placing
    zoom, s = detail(26.0, px)  # patch px, for drawing
    found = []
    for _ in range(int(rng.integers(1, 9))):  # a handful, or a pile round the d6
        kind = str(rng.choice(["d4", "d8", "d10", "d12", "d20", "d20"]))
        size = rng.uniform(16.0, 26.0) / s
        patch, side = rpg_patch(kind, size, rng)
        at = (centre[0] + rng.normal(0, 22 / px), centre[1] + rng.normal(0, 22 / px))
        found.append(stamp(img, patch, at, stage, angle_deg=rng.uniform(0, 360),
                           height_mm=size * s * 0.7, side_bgr=side, zoom=zoom))
    return np.array([b for b in found if b is not None], np.float64).reshape(-1, 4)


def numeral_d6(img: np.ndarray, centre: tuple[float, float], stage: Stage,
               rng: np.random.Generator) -> np.ndarray:
    """Six-sided dice with numerals instead of pips, and doubling cubes ("64", "32")."""
    px = stage.mm_per_px  # image px, for placing
    zoom, s = detail(20.0, px)  # patch px, for drawing
    found = []
    for _ in range(int(rng.integers(1, 4))):
        size = rng.uniform(13.0, 20.0) / s
        style, body, ink = _style(rng)
        n = max(5, int(size + 2))
        p = blank_patch(n, n)
        opacity = 0.8 if style == "translucent" else 1.0
        rounded_rect(p, 1, 1, n - 1, n - 1, size * rng.uniform(0.08, 0.2), body, opacity)
        text = str(int(rng.integers(1, 7))) if rng.random() < 0.7 else str(
            int(rng.choice([2, 4, 8, 16, 32, 64])))
        glyph(p, text, n / 2, n / 2, size * (0.5 if len(text) == 1 else 0.35), ink,
              angle_deg=float(rng.choice([0, 90, 180, 270])) + rng.uniform(-5, 5))
        at = (centre[0] + rng.normal(0, 25 / px), centre[1] + rng.normal(0, 25 / px))
        found.append(stamp(img, p, at, stage, angle_deg=rng.uniform(0, 360),
                           height_mm=size * s,
                           side_bgr=(body[0] * 0.6, body[1] * 0.6, body[2] * 0.6),
                           zoom=zoom))
    return np.array([b for b in found if b is not None], np.float64).reshape(-1, 4)
