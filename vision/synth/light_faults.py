"""Faults of the light in a photo, applied to a rendered image after the fact: hard-edged
sun patches and shadow bands across everything (dice included), uneven exposure and a
colour cast.

Real photos of tables are lit by a window, a ceiling lamp, a torch or a desk lamp, seldom
evenly: a phone's photo under tungsten light is orange, a sun patch through a window burns
half a die white, a person's or a window frame's shadow cuts across the dice. The renderer's
one directional light and ambient term give none of that.
"""

from __future__ import annotations

import logging

import cv2
import numpy as np

logger = logging.getLogger(__name__)


def colour_cast(rng: np.random.Generator) -> np.ndarray:
    """(3,) BGR gains of a white balance gone wrong: warm lamp, cold daylight, fluorescent
    green, or neutral."""
    kind = int(rng.integers(5))
    if kind == 0:  # tungsten: orange
        return np.array([rng.uniform(0.65, 0.9), rng.uniform(0.9, 1.0), 1.05], np.float32)
    if kind == 1:  # shade or LED daylight: blue
        return np.array([1.08, rng.uniform(0.97, 1.03), rng.uniform(0.8, 0.95)], np.float32)
    if kind == 2:  # fluorescent: green
        return np.array([rng.uniform(0.9, 1.0), 1.05, rng.uniform(0.88, 0.98)], np.float32)
    return (1 + rng.normal(0, 0.03, 3)).astype(np.float32)


def exposure_field(h: int, w: int, rng: np.random.Generator) -> np.ndarray:
    """(h, w) gain: overall exposure, a slope of light across the frame and a vignette."""
    y = np.linspace(-1, 1, h, dtype=np.float32)[:, None]
    x = np.linspace(-1, 1, w, dtype=np.float32)[None, :]
    ang = rng.uniform(0, 2 * np.pi)
    slope = float(rng.uniform(0, 0.45))
    gain = 1 + slope * (x * float(np.cos(ang)) + y * float(np.sin(ang)))
    gain = gain - float(rng.uniform(0, 0.35)) * (x * x + y * y) / 2
    if rng.random() < 0.15:  # a torch or a desk lamp: a pool of light, dark beyond it
        cx, cy = rng.uniform(-0.6, 0.6, 2)
        r2 = ((x - float(cx)) ** 2 + (y - float(cy)) ** 2) / float(rng.uniform(0.3, 1.2)) ** 2
        gain = gain * (0.15 + 0.85 * np.exp(-r2)) * 1.3
    return (gain * float(rng.uniform(0.7, 1.2))).astype(np.float32)


def _band(h: int, w: int, rng: np.random.Generator) -> np.ndarray:
    """(h, w) float32 mask of a straight band across the whole frame."""
    ang = rng.uniform(0, np.pi)
    c = rng.uniform(0.1, 0.9, 2) * (w, h)
    width = rng.uniform(0.05, 0.5) * max(h, w)
    d = np.array([np.cos(ang), np.sin(ang)]) * 2 * max(h, w)
    n = np.array([-np.sin(ang), np.cos(ang)]) * width / 2
    quad = np.array([c - d - n, c + d - n, c + d + n, c - d + n])
    mask = np.zeros((h, w), np.float32)
    cv2.fillPoly(mask, [np.round(quad * 4).astype(np.int32)], 1.0, cv2.LINE_AA, shift=2)
    return mask


def _patch(h: int, w: int, rng: np.random.Generator) -> np.ndarray:
    """(h, w) float32 mask of a sun patch: a slanted window pane, sometimes cut into four
    by the window's bars."""
    c = rng.uniform(0.1, 0.9, 2) * (w, h)
    size = rng.uniform(0.2, 0.8, 2) * (w, h)
    box = cv2.boxPoints(((float(c[0]), float(c[1])), (float(size[0]), float(size[1])),
                         float(rng.uniform(0, 180))))
    shear = rng.normal(0, 0.15 * max(h, w), (4, 2))  # the pane, seen slanting on the table
    mask = np.zeros((h, w), np.float32)
    cv2.fillPoly(mask, [np.round((box + shear) * 4).astype(np.int32)], 1.0, cv2.LINE_AA,
                 shift=2)
    if rng.random() < 0.3:
        bar = max(2, int(rng.uniform(0.01, 0.04) * max(h, w)))
        mid = np.round(box.mean(axis=0) + shear.mean(axis=0)).astype(int)
        cv2.line(mask, (int(mid[0]) - w, int(mid[1])), (int(mid[0]) + w, int(mid[1])), 0.0, bar)
        cv2.line(mask, (int(mid[0]), int(mid[1]) - h), (int(mid[0]), int(mid[1]) + h), 0.0, bar)
    return mask


def apply_light_faults(image: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """(h, w, 3) uint8 BGR image under uneven, coloured light: each fault drawn at random.

    Args:
        image: the rendered photo, uint8 BGR.
        rng: draws which faults and how strong.
    Returns:
        A new uint8 image of the same shape.
    """
    h, w = image.shape[:2]
    gain = exposure_field(h, w, rng) if rng.random() < 0.8 else np.ones((h, w), np.float32)
    if rng.random() < 0.2:  # shadow bands: a window frame, a person, a lamp's arm
        for _ in range(int(rng.integers(1, 3))):
            soft = rng.uniform(0.5, 6.0)
            band = cv2.GaussianBlur(_band(h, w, rng), (0, 0), soft)
            gain *= 1 - float(rng.uniform(0.3, 0.65)) * band
    sun = None
    if rng.random() < 0.15:  # a hard-edged sun patch, warmer and much brighter
        sun = cv2.GaussianBlur(_patch(h, w, rng), (0, 0), rng.uniform(0.5, 4.0))
        gain *= 1 + float(rng.uniform(0.4, 1.2)) * sun
    out = image.astype(np.float32) * gain[..., None]
    cast = colour_cast(rng) if rng.random() < 0.75 else np.ones(3, np.float32)
    out *= cast
    if sun is not None:
        out *= 1 + sun[..., None] * np.array([-0.08, 0.0, 0.06], np.float32)
    return np.clip(out + 0.5, 0, 255).astype(np.uint8)
