"""The colour palette: each die colour of the game as measured on this table, in CIE Lab.

Colours are measured relative to the mat's paper: the white quiet zone round every visible
marker is the white reference, and each image is scaled so that paper is the same light grey
(a von Kries correction). A warm lamp or a dim evening then shifts paper and dice alike, and
the palette taken at calibration still applies.

Each colour keeps the mean and covariance of its dice's body pixels; a die is classified by
the Mahalanobis distance of its mean body colour to each, with a reject option: a colour
farther than ``REJECT_D2`` from every class is reported as unknown (an empty distribution),
never forced onto the nearest name.
"""

from __future__ import annotations

import functools
import itertools
import logging
import math
from dataclasses import dataclass

import cv2
import numpy as np

from calibration.geometry.homography import Geometry
from calibration.layouts import Layout
from calibration.printing.mat import paper_mask
from vision.colours import PALETTE

logger = logging.getLogger(__name__)

PAPER_LEVEL = 235.0
DIE_MM = 16.0
"""Edge of the dice shown for enrolment."""
"""The grey level paper is scaled to (kept under 255 so white dice do not clip)."""
REJECT_D2 = 16.27
"""Squared Mahalanobis distance beyond which a colour is "none of these" (chi-square, 3
degrees of freedom, 99.9 %)."""
COV_FLOOR = (25.0, 16.0, 16.0)
"""Variance added to each class (L, a, b; Lab units squared): sensor noise, and the spread
between dice of one colour that one enrolment photo cannot show."""
SHADING = (0.5, 0.65, 0.8, 1.0, 1.15)
"""A die's face is lit more or less depending on where it lies and how it turns: shading
scales the light a face reflects without changing its hue, so a class is measured on its
pixels scaled by each of these factors, which stretches it along that one direction."""


def lab(bgr: np.ndarray) -> np.ndarray:
    """(N, 3) Lab of (N, 3) BGR values on the 0..255 scale (floats, may exceed 255)."""
    arr = np.asarray(bgr, np.float32).reshape(-1, 1, 3) / 255.0
    return cv2.cvtColor(np.clip(arr, 0, 1.2), cv2.COLOR_BGR2Lab).reshape(-1, 3)


def white_reference(image: np.ndarray, geometry: Geometry, layout: Layout) -> np.ndarray:
    """BGR of the mat's paper in this image: median of the quiet zone round each marker in
    view (a hand over some of them does not move a median)."""
    rings = []
    for m in layout.markers:
        h = m.size / 2
        for r in (h + 1.5, h + 3.0):
            t = np.linspace(-r, r, 9)
            ring = [(m.centre[0] + a, m.centre[1] + b) for a in t for b in (-r, r)]
            ring += [(m.centre[0] + b, m.centre[1] + a) for a in t for b in (-r, r)]
            rings.append(np.array(ring))
    pts = geometry.to_px(np.concatenate(rings))
    w, hgt = image.shape[1], image.shape[0]
    ok = (pts[:, 0] >= 0) & (pts[:, 0] < w - 1) & (pts[:, 1] >= 0) & (pts[:, 1] < hgt - 1)
    if ok.sum() < 20:
        return np.array([PAPER_LEVEL] * 3)
    xy = np.round(pts[ok]).astype(int)
    samples = image[xy[:, 1], xy[:, 0]].astype(np.float64)
    # Paper is the lightest thing there: drop samples that a hand or a shadow darkened.
    bright = samples.sum(axis=1)
    samples = samples[bright >= np.percentile(bright, 40)]
    return np.maximum(np.median(samples, axis=0), 1.0)


def normalise(bgr: np.ndarray, white: np.ndarray) -> np.ndarray:
    """BGR scaled so that `white` becomes PAPER_LEVEL grey."""
    return np.asarray(bgr, np.float32) * (PAPER_LEVEL / np.asarray(white, np.float32))


def body_pixels(image: np.ndarray, box: np.ndarray, white: np.ndarray) -> np.ndarray:
    """White-normalised BGR pixels of a die's body: the central part of its box (mostly the
    top face), split in two by 2-means in Lab (body and pips, seeded with the darkest and
    lightest pixel); the larger cluster is the body."""
    x0, y0, x1, y1 = (float(v) for v in box)
    cx, cy, hw, hh = (x0 + x1) / 2, (y0 + y1) / 2, (x1 - x0) * 0.3, (y1 - y0) * 0.3
    a, b = max(0, int(cx - hw)), max(0, int(cy - hh))
    c, d = min(image.shape[1], int(math.ceil(cx + hw))), min(image.shape[0], int(cy + hh) + 1)
    if c <= a or d <= b:
        return np.zeros((0, 3), np.float32)
    bgr = normalise(image[b:d, a:c].reshape(-1, 3), white)
    px = lab(bgr)
    if len(px) < 4:
        return bgr
    labels = two_means(px)
    big = int(np.bincount(labels, minlength=2).argmax())
    return bgr[labels == big]


def two_means(px: np.ndarray, rounds: int = 8) -> np.ndarray:
    """Labels 0 / 1 of (N, 3) Lab pixels split in two by ``rounds`` rounds of 2-means,
    seeded with the darkest and the lightest pixel (a die's body and its pips). A round
    that labels every pixel as the one before ends it: the centres it would compute are the
    ones it used, so every later round would give the same labels (one die's pixels settle
    in 2-3 rounds: the eight were most of the time a slot's colour took to read)."""
    centres = px[[px[:, 0].argmin(), px[:, 0].argmax()]].copy()
    labels = np.zeros(len(px), int)
    for r in range(rounds):
        # the nearer centre, the first on a tie (argmin of the two squared distances)
        new = (((px - centres[1]) ** 2).sum(axis=1) <
               ((px - centres[0]) ** 2).sum(axis=1)).astype(labels.dtype)
        if r and np.array_equal(new, labels):
            break
        labels = new
        for k in (0, 1):
            mask = labels == k
            if mask.any():
                centres[k] = px[mask].mean(axis=0)
    return labels


@dataclass(frozen=True, slots=True)
class ColourClass:
    """One die colour as measured: mean and covariance of body pixels in Lab."""

    name: str
    mean: tuple[float, float, float]
    cov: tuple[tuple[float, float, float], ...]
    samples: int
    """Dice it was measured on."""


@dataclass(frozen=True, slots=True)
class Palette:
    """The game's colours under this table's light."""

    classes: tuple[ColourClass, ...]

    def names(self) -> tuple[str, ...]:
        return tuple(c.name for c in self.classes)

    def distances(self, lab_mean: np.ndarray) -> np.ndarray:
        """Squared Mahalanobis distance of one Lab colour to each class."""
        out = []
        for c in self.classes:
            diff = np.asarray(lab_mean, np.float64) - np.array(c.mean)
            out.append(float(diff @ np.linalg.solve(np.array(c.cov), diff)))
        return np.array(out)

    def classify(self, lab_mean: np.ndarray) -> dict[str, float]:
        """Probability of each colour name; {} when the colour is none of them (rejected).

        Probabilities are the Gaussian posterior over classes (equal priors), scaled down as
        the best class gets less likely, so they may sum to less than 1: the rest is
        "another colour".
        """
        if not self.classes:
            return {}
        d2 = self.distances(lab_mean)
        if d2.min() > REJECT_D2:
            return {}
        logdet = np.array([_logdet(c.cov) for c in self.classes])
        log_like = -0.5 * (d2 + logdet)
        post = np.exp(log_like - log_like.max())
        post /= post.sum()
        fit = _chi2_sf3(float(d2.min()))
        scale = min(1.0, fit / 0.05)  # inside the 95 % ellipsoid: full confidence
        return {c.name: round(float(p * scale), 4) for c, p in zip(self.classes, post,
                                                                   strict=True) if p > 1e-4}


@functools.lru_cache(maxsize=256)
def _logdet(cov: tuple[tuple[float, float, float], ...]) -> float:
    """log |cov| of a colour class (a palette's classes are read for every die)."""
    return float(np.linalg.slogdet(np.array(cov))[1])


def _chi2_sf3(x: float) -> float:
    """Survival function of the chi-square distribution with 3 degrees of freedom."""
    return math.erfc(math.sqrt(x / 2)) + math.sqrt(2 * x / math.pi) * math.exp(-x / 2)


def die_colour(image: np.ndarray, box: np.ndarray, white: np.ndarray) -> np.ndarray | None:
    """Mean Lab of a die's body, or None when its box holds no pixels."""
    px = body_pixels(image, box, white)
    return lab(px).mean(axis=0) if len(px) else None


def build_palette(samples: dict[str, list[np.ndarray]]) -> Palette:
    """Classes from body pixels: name -> one (N, 3) normalised BGR array per die."""
    classes = []
    for name, per_die in samples.items():
        bgr = np.concatenate(per_die)
        px = lab(np.concatenate([bgr * k for k in SHADING]))
        mean = px.mean(axis=0)
        cov = np.cov(px.T) + np.diag(COV_FLOOR)
        classes.append(ColourClass(
            name, (float(mean[0]), float(mean[1]), float(mean[2])),
            tuple((float(r[0]), float(r[1]), float(r[2])) for r in cov), len(per_die)))
    return Palette(tuple(classes))


# --- enrolment: finding the dice the players show ----------------------------------------------
def find_dice(image: np.ndarray, geometry: Geometry, layout: Layout, white: np.ndarray,
              ppm: float = 2.0) -> list[np.ndarray]:
    """Image boxes (x0, y0, x1, y1) of objects lying on the mat's zones, found as blobs of
    not-paper where the mat has no ink (no dice reader needed)."""
    w, h = layout.size_mm
    size = (round(w * ppm), round(h * ppm))
    scale = np.array([[ppm, 0, 0], [0, ppm, 0], [0, 0, 1.0]])
    to_mat = scale @ np.linalg.inv(geometry.homography)
    if geometry.k1:  # straighten the lens's bend first: the homography is of a pinhole
        cam = np.array([[geometry.focal_px, 0, image.shape[1] / 2],
                        [0, geometry.focal_px, image.shape[0] / 2], [0, 0, 1.0]])
        image = cv2.undistort(image, cam, np.array([geometry.k1, 0.0, 0.0, 0.0]))
    top = cv2.warpPerspective(image, to_mat, size, flags=cv2.INTER_LINEAR,
                              borderMode=cv2.BORDER_CONSTANT, borderValue=(255, 255, 255))
    px = lab(normalise(top.reshape(-1, 3), white)).reshape(size[1], size[0], 3)
    chroma = np.hypot(px[..., 1], px[..., 2])
    paper_l = lab(np.array([[PAPER_LEVEL] * 3]))[0, 0]
    # Coloured, or much darker than paper: a cast shadow is neither, so a die's box is not
    # swollen by its shadow (white dice are found by their pips, merged by the closing).
    thing = ((px[..., 0] < paper_l - 35) | (chroma > 15)) & paper_mask(layout, ppm, 1.0)
    inner = np.zeros_like(thing)
    for z in layout.zones:
        cv2.fillPoly(inner.view(np.uint8), [np.round(np.array(z.polygon) * ppm).astype(
            np.int32)], 1)
    mask: np.ndarray = (thing & inner).astype(np.uint8)
    # Close over the gaps between a white die's pips (a 2 shows two pips 8 mm apart).
    k = round(9 * ppm) | 1
    mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE,
                            cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
    n, _, stats, centroids = cv2.connectedComponentsWithStats(mask)
    blobs = []  # (centre mm, area px)
    for i in range(1, n):
        _, _, bw, bh, area = stats[i]
        if area < 10 * ppm * ppm or bw > 60 * ppm or bh > 60 * ppm:
            continue
        blobs.append((centroids[i] / ppm, float(area)))
    # A die lying across a zone's outline is cut in two by the ink mask: join pieces whose
    # centres are closer than a die.
    merged: list[tuple[np.ndarray, float]] = []
    for c, a in sorted(blobs, key=lambda b: -b[1]):
        for j, (mc, ma) in enumerate(merged):
            if np.linalg.norm(mc - c) < DIE_MM * 1.2:
                merged[j] = ((mc * ma + c * a) / (ma + a), ma + a)
                break
        else:
            merged.append((c, a))
    boxes = []
    half = DIE_MM / 2
    for c, _ in merged:
        # A die's box from its centre and its known size: the blob itself may be a few pips
        # (white die) or a die with part of its shadow.
        corners = np.array([[c[0] - half, c[1] - half], [c[0] + half, c[1] - half],
                            [c[0] + half, c[1] + half], [c[0] - half, c[1] + half]])
        img_pts = geometry.to_px(corners)
        boxes.append(np.concatenate([img_pts.min(axis=0), img_pts.max(axis=0)]))
    return boxes


UNLIKE = 40.0
"""Weighted Lab distance beyond which a die is "none of the names given"."""


def assign_names(colours: list[np.ndarray], names: tuple[str, ...]) -> list[str]:
    """Name each measured Lab colour after one of `names`, by the renderer's typical colours
    (vision.colours.PALETTE) seen through the same normalisation. When there are as many
    dice as names, each name is used once (best total fit); else each die takes its nearest.

    Raises:
        ValueError: a name is unknown, or a die is far from every name given (a colour the
            players did not list).
    """
    unknown = [n for n in names if n not in PALETTE]
    if unknown or not names:
        raise ValueError(f"unknown colour name {', '.join(map(repr, unknown or ['']))}: use "
                         "names from " + ", ".join(PALETTE))
    known = list(names)
    # Dice are shaded (ambient light): compare with the typical colour a little darkened.
    refs = lab(np.array([PALETTE[n] for n in known], np.float32) * 0.85 * PAPER_LEVEL / 255)
    weight = np.array([0.5, 1.0, 1.0])
    cost = np.array([[float(np.linalg.norm((c - r) * weight)) for r in refs] for c in colours])
    if len(colours) == len(known) and len(known) <= 8:
        pick = list(min(itertools.permutations(range(len(known))),
                        key=lambda perm: sum(cost[i, j] for i, j in enumerate(perm))))
    else:
        pick = [int(j) for j in cost.argmin(axis=1)]
    if any(cost[i, j] > UNLIKE for i, j in enumerate(pick)):
        raise ValueError(f"a die on the mat looks like none of {', '.join(known)}: list every "
                         "colour shown (--colours) or take the others away")
    return [known[j] for j in pick]
