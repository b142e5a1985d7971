"""Noise fields and colour ramps the procedural table surfaces are built from.

Everything here works on one-channel float32 "tone" fields: a surface is mostly a tone
field pushed through a colour ramp at the end (:func:`ramp`), because whole-image float
arithmetic on three channels is what makes a surface slow, and a ramp through ``cv2.LUT``
costs about as much as one copy. Sizes are in pixels; the surfaces convert their
millimetre feature sizes with the surface's ``mm_per_px`` before calling in.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

import cv2
import numpy as np

logger = logging.getLogger(__name__)

BGR = tuple[float, float, float]


def smooth(h: int, w: int, cell_px: float, rng: np.random.Generator) -> np.ndarray:
    """(h, w) float32 noise with features about ``cell_px`` wide, std about 1.

    Cubic upsampling of a coarse normal grid: the cheapest band-limited noise there is.
    """
    gh = max(2, int(round(h / max(cell_px, 1.0))) + 2)
    gw = max(2, int(round(w / max(cell_px, 1.0))) + 2)
    small = rng.standard_normal((gh, gw), dtype=np.float32)
    return cv2.resize(small, (w, h), interpolation=cv2.INTER_CUBIC)


def streaks(h: int, w: int, along_px: float, across_px: float, rng: np.random.Generator
            ) -> np.ndarray:
    """(h, w) noise stretched along x: long thin features (wood pores, fibres, vinyl print)."""
    gh = max(2, int(round(h / max(across_px, 1.0))) + 2)
    gw = max(2, int(round(w / max(along_px, 1.0))) + 2)
    small = rng.standard_normal((gh, gw), dtype=np.float32)
    return cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR)


def fbm(h: int, w: int, cell_px: float, rng: np.random.Generator, octaves: int = 3,
        gain: float = 0.5) -> np.ndarray:
    """Several octaves of :func:`smooth`, each half as wide and ``gain`` as strong."""
    out = np.zeros((h, w), np.float32)
    amp = 1.0
    for k in range(octaves):
        out += amp * smooth(h, w, cell_px / 2 ** k, rng)
        amp *= gain
    return out


def grain(h: int, w: int, rng: np.random.Generator, sigma_px: float = 0.0) -> np.ndarray:
    """(h, w) per-pixel noise in about [-1, 1] (fibres, paper, sensor-free texture).

    Uniform draws, not normal ones: five times cheaper and nobody sees the difference.
    """
    g: np.ndarray = rng.random((h, w), dtype=np.float32) * 2 - 1
    if sigma_px > 0.3:
        g = cv2.GaussianBlur(g, (0, 0), sigma_px)
        g = g * (1.0 / max(float(g.std()), 1e-3) * 0.55)
    return g


def speckle(h: int, w: int, rate: float, size_px: float, rng: np.random.Generator
            ) -> np.ndarray:
    """(h, w) float32 mask in [0, 1] of sparse flecks ``size_px`` wide covering about
    ``rate`` of the surface (odd-coloured fibres in a carpet, stone crystals)."""
    gh, gw = max(1, int(h / max(size_px, 1.0))), max(1, int(w / max(size_px, 1.0)))
    dots = (rng.random((gh, gw), dtype=np.float32) < rate).astype(np.float32)
    out = cv2.resize(dots, (w, h), interpolation=cv2.INTER_LINEAR)
    return np.clip(out * 1.6, 0, 1)


def ramp(tone: np.ndarray, stops: Sequence[tuple[float, BGR]]) -> np.ndarray:
    """(h, w, 3) uint8 BGR: a tone field in [0, 1] coloured by a piecewise-linear ramp.

    ``stops`` are (position in [0, 1], BGR) pairs in increasing position.
    """
    pos = np.array([p for p, _ in stops], np.float32)
    cols = np.array([c for _, c in stops], np.float32)
    levels = np.linspace(0, 1, 256, dtype=np.float32)
    ramp = np.stack([np.interp(levels, pos, cols[:, k]) for k in range(3)], axis=1)
    lut = np.clip(ramp + 0.5, 0, 255).astype(np.uint8).reshape(1, 256, 3)
    idx = cv2.convertScaleAbs(tone, alpha=255.0)
    return cv2.LUT(cv2.merge([idx, idx, idx]), lut)


def shade(img: np.ndarray, gain: np.ndarray) -> np.ndarray:
    """``img`` (uint8 BGR) times a one-channel gain field, saturating (lighting, folds)."""
    g = cv2.merge([gain, gain, gain])
    return cv2.multiply(img, g, dtype=cv2.CV_8U, scale=1.0) if img.dtype == np.uint8 else \
        img * g


def mix(a: np.ndarray, b: np.ndarray, alpha: np.ndarray) -> np.ndarray:
    """uint8 BGR blend of ``a`` and ``b`` by a one-channel alpha in [0, 1]."""
    al = cv2.merge([alpha, alpha, alpha])
    out = a.astype(np.float32)
    out += (b.astype(np.float32) - out) * al
    return np.clip(out, 0, 255).astype(np.uint8)


def jitter_colour(bgr: Sequence[float], rng: np.random.Generator, amount: float = 12.0
                  ) -> BGR:
    """A colour near ``bgr``: the same kind of thing is never quite the same colour."""
    c = np.clip(np.asarray(bgr, np.float32) * rng.uniform(0.85, 1.12)
                + rng.normal(0, amount, 3), 0, 255)
    return float(c[0]), float(c[1]), float(c[2])


def scaled(bgr: Sequence[float], k: float) -> BGR:
    """``bgr`` times ``k``, clipped to [0, 255]."""
    c = np.clip(np.asarray(bgr, np.float32) * k, 0, 255)
    return float(c[0]), float(c[1]), float(c[2])


def axes_px(h: int, w: int) -> tuple[np.ndarray, np.ndarray]:
    """Row (h, 1) and column (1, w) pixel coordinates as float32, for broadcasting."""
    return (np.arange(h, dtype=np.float32)[:, None], np.arange(w, dtype=np.float32)[None, :])


def smoothstep(e0: float, e1: float, x: np.ndarray) -> np.ndarray:
    """Hermite step from 0 at ``e0`` to 1 at ``e1`` (soft, anti-aliased edges)."""
    t = np.clip((x - e0) / (e1 - e0), 0, 1)
    return t * t * (3 - 2 * t)


def soft_light(h: int, w: int, mm_per_px: float, rng: np.random.Generator,
               strength: float = 0.08) -> np.ndarray:
    """(h, w) gain about 1: the slow brightness changes of any real surface (bumps, light
    fall-off, a cloth not lying flat)."""
    return 1.0 + strength * smooth(h, w, 180.0 / mm_per_px, rng)
