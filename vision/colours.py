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
    d = np.linalg.norm((_REF_LAB[None] - lab[:, None]) * np.array([0.5, 1.0, 1.0]), axis=2)
    d[:, ~_CHROMATIC] = np.inf
    nearest = d.argmin(axis=1)
    # Greys: by lightness only; hue is meaningless and light tints would mislead.
    grey = np.where(lab[:, 0] > 70, "white", np.where(lab[:, 0] < 28, "black", "grey"))
    names = [str(grey[i]) if chroma[i] < 14 else _REF_NAMES[nearest[i]] for i in range(len(lab))]
    return tuple(names)


def measure_die_colours(crops: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(body BGR (N, 3), pip BGR (N, 3)) of dice centred in square BGR crops (N, h, w, 3).

    The centre of a crop is mostly the die's top face; two-means on its pixels, started from
    the darkest and the lightest pixel (no random start), separates body from pips. The
    larger cluster is the body. All dice are processed at once.
    """
    crops = np.asarray(crops)
    n, h, w = crops.shape[:3]
    # Every other pixel of the central half is plenty for two colours and 4x cheaper.
    core = crops[:, h // 4: h - h // 4: 2, w // 4: w - w // 4: 2].reshape(n, -1, 3).astype(
        np.float32)
    light = core.sum(axis=2)
    rows = np.arange(n)
    centres = np.stack([core[rows, light.argmin(axis=1)], core[rows, light.argmax(axis=1)]], 1)
    labels = np.zeros(core.shape[:2], np.int64)
    for _ in range(3):  # starts at the extremes, so it settles in two or three steps
        dist = ((core[:, :, None, :] - centres[:, None, :, :]) ** 2).sum(axis=3)
        labels = dist.argmin(axis=2)
        onehot = np.stack([labels == 0, labels == 1], axis=2).astype(np.float32)  # (n, p, 2)
        counts = onehot.sum(axis=1)  # (n, 2)
        sums = np.einsum("npk,npc->nkc", onehot, core)
        centres = np.where(counts[..., None] > 0, sums / np.maximum(counts[..., None], 1),
                           centres)
    counts = np.stack([(labels == 0).sum(axis=1), (labels == 1).sum(axis=1)], axis=1)
    body = counts.argmax(axis=1)
    body_bgr = centres[rows, body]
    # Pip edges blend into the body; the pip colour is the mean of the pip pixels farthest
    # from the body colour (the upper half of that cluster by distance).
    far = ((core - body_bgr[:, None]) ** 2).sum(axis=2)
    is_pip = labels != body[:, None]
    cut = _masked_median(far, is_pip)
    sel = (is_pip & (far >= cut[:, None])).astype(np.float32)
    pip_bgr = np.einsum("np,npc->nc", sel, core) / np.maximum(sel.sum(axis=1), 1)[:, None]
    pip_bgr = np.where(sel.sum(axis=1, keepdims=True) > 0, pip_bgr, centres[rows, 1 - body])
    return body_bgr, pip_bgr


def die_colour_names(crops: np.ndarray) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Body and pip colour names for die crops (N, h, w, 3)."""
    if len(crops) == 0:
        return (), ()
    body, pip = measure_die_colours(crops)
    return name_colours(body), name_colours(pip)


def _masked_median(values: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """(N,) median of each row's ``values`` where ``mask`` holds (0 where it holds nowhere),
    as ``np.median`` row by row gives it, without a Python loop over the rows."""
    k = mask.sum(axis=1)
    ordered = np.sort(np.where(mask, values, np.inf), axis=1)
    rows = np.arange(len(values))
    lo = ordered[rows, np.maximum(k - 1, 0) // 2]
    hi = ordered[rows, np.maximum(k, 1) // 2]
    return np.where(k > 0, (lo + hi) / 2, 0.0)
