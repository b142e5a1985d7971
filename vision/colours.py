"""Named die colours: the palette the renderer paints with and the reader names colours from.

Body and pip colours are measured on the die's top face (a 2-cluster split of its pixels:
the larger cluster is the body, the smaller the pips) and named by the nearest palette entry
in CIE Lab, with a chroma test first so that greys are never called "blue" under warm light.
"""

from __future__ import annotations

import logging

import cv2
import numpy as np

logger = logging.getLogger(__name__)

#: Name -> typical BGR. Several entries may share a name (light and dark shades).
PALETTE: dict[str, tuple[int, int, int]] = {
    "white": (232, 232, 228),
    "ivory": (200, 232, 240),
    "black": (28, 28, 30),
    "grey": (128, 128, 128),
    "red": (40, 35, 200),
    "orange": (30, 120, 240),
    "yellow": (40, 215, 235),
    "gold": (40, 150, 190),
    "brown": (35, 70, 120),
    "green": (60, 160, 40),
    "teal": (150, 150, 30),
    "blue": (190, 90, 30),
    "purple": (140, 40, 110),
    "pink": (180, 120, 240),
}
#: Extra shades used only for naming (name, BGR).
_SHADES: tuple[tuple[str, tuple[int, int, int]], ...] = (
    ("red", (30, 25, 130)),
    ("green", (40, 90, 20)),
    ("blue", (110, 50, 20)),
    ("purple", (90, 25, 70)),
    ("teal", (90, 90, 20)),
    ("yellow", (90, 190, 210)),
    ("pink", (200, 170, 250)),
)
_ACHROMATIC = ("white", "grey", "black")


def _lab(bgr: np.ndarray) -> np.ndarray:
    arr = np.clip(np.asarray(bgr, np.float32).reshape(-1, 1, 3) / 255.0, 0, 1)
    return cv2.cvtColor(arr, cv2.COLOR_BGR2Lab).reshape(-1, 3)


_REF_NAMES = tuple(PALETTE) + tuple(n for n, _ in _SHADES)
_REF_LAB = _lab(np.array(list(PALETTE.values()) + [c for _, c in _SHADES], np.float32))
_CHROMATIC = np.array([n not in _ACHROMATIC for n in _REF_NAMES])


def name_colours(bgr: np.ndarray) -> tuple[str, ...]:
    """Names of N BGR colours ((N, 3) array, 0..255)."""
    bgr = np.asarray(bgr, np.float32).reshape(-1, 3)
    if len(bgr) == 0:
        return ()
    lab = _lab(bgr)
    chroma = np.hypot(lab[:, 1], lab[:, 2])
    names = []
    for lab_i, chroma_i in zip(lab, chroma, strict=True):
        if chroma_i < 14:
            # Greys: by lightness only; hue is meaningless and light tints would mislead.
            light = lab_i[0]
            names.append("white" if light > 70 else ("black" if light < 28 else "grey"))
            continue
        d = np.linalg.norm((_REF_LAB - lab_i) * np.array([0.5, 1.0, 1.0]), axis=1)
        d[~_CHROMATIC] = np.inf
        names.append(_REF_NAMES[int(np.argmin(d))])
    return tuple(names)


def measure_die_colours(crop: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(body BGR, pip BGR) of a die centred in a square BGR crop.

    The centre of the crop is mostly the top face; two-means on its pixels (seeded by the
    darkest and lightest) separates body from pips without a random start.
    """
    h, w = crop.shape[:2]
    core = crop[h // 4: h - h // 4, w // 4: w - w // 4].reshape(-1, 3).astype(np.float32)
    if len(core) < 4:
        mean = crop.reshape(-1, 3).mean(axis=0)
        return mean, mean
    light = core.sum(axis=1)
    centres = np.stack([core[np.argmin(light)], core[np.argmax(light)]])
    labels = np.zeros(len(core), np.int64)
    for _ in range(6):
        dist = ((core[:, None, :] - centres[None]) ** 2).sum(axis=2)
        labels = dist.argmin(axis=1)
        for k in range(2):
            if np.any(labels == k):
                centres[k] = core[labels == k].mean(axis=0)
    counts = np.bincount(labels, minlength=2)
    body = int(np.argmax(counts))
    return centres[body], centres[1 - body]


def die_colour_names(crops: list[np.ndarray]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Body and pip colour names for a list of die crops."""
    if not crops:
        return (), ()
    pairs = [measure_die_colours(c) for c in crops]
    body = name_colours(np.array([p[0] for p in pairs]))
    pip = name_colours(np.array([p[1] for p in pairs]))
    return body, pip
