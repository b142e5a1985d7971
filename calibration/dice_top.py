"""Dice on a calibrated mat: finding them and reading their top faces square-on.

The dice reader sees the whole photo and knows nothing of the table; with a calibration the
camera's pose is known, and two things get much better:

- Finding dice. A die is whatever differs from the printed mat, in the dice zone, with a
  die's size there (:func:`find_on_mat`). A die the detector was never trained on (an IceDice
  colour die is a coloured square, not pips) is found all the same, and two boxes on one die
  are one die (:func:`merge_close`).
- Reading a face. A crop of the photo's box shows the top face skewed and the sides of the
  die beside it, the more so the farther the die lies from under the camera. Here the top
  face's plane (one die size above the mat) is warped to a square crop (:func:`top_crops`), so
  the face model sees the face as from straight above. Where the die stands is known to a
  millimetre or two, and a face crop off by 3 mm loses a tenth of the readings (measured on
  rendered IceDice tables), so :func:`read_top_faces` reads a few crops round the estimate
  and keeps the surest, which also tells where the die is.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np

from calibration.homography import Geometry

GAME_DIE_MM: dict[str, float] = {"icedice": 18.0}
"""Edge of a game's dice, mm. UNVERIFIED for IceDice (no measurement of the real dice was
available; 18 mm is a common size of printed-face dice); others: the standard 16 mm."""
DEFAULT_DIE_MM = 16.0
CROP_SIDE = 1.3
"""Side of a top-face crop over the die's edge (a face turned 45 degrees still fits, its
corners cut a little; measured best of 1.15 / 1.3 / 1.45 on rendered tables)."""
SEARCH_MM = 2.0
"""Step of the 3 x 3 search round a die's estimated place (measured: the estimate is off by
~2 mm median for a white die on white paper, 1 mm for a coloured one)."""
_GRID = np.array([(i, j) for j in (-1, 0, 1) for i in (-1, 0, 1)], np.float64)
"""The 3 x 3 search's offsets, in steps."""
MASK_PPM = 2.0
"""Resolution of the mat comparison that finds dice, px/mm."""
MERGE_SHARE = 0.7
"""Two dice closer than this share of a die's edge are one die (dice cannot overlap)."""


def die_mm(game: str) -> float:
    return GAME_DIE_MM.get(game, DEFAULT_DIE_MM)


def lifted_px(geometry: Geometry, mm: np.ndarray, height_mm: float) -> np.ndarray:
    """Pixels of mat points (N, 2) raised `height_mm` above the table: the ray through such
    a point meets the table farther from the camera's foot."""
    cam = np.asarray(geometry.camera_mm[:2], np.float64)
    h = geometry.camera_mm[2]
    pts = np.asarray(mm, np.float64).reshape(-1, 2)
    return geometry.to_px(cam + (pts - cam) * h / (h - height_mm))


def top_crops(image: np.ndarray, geometry: Geometry, centres_mm: np.ndarray, edge_mm: float,
              px: int, side: float = CROP_SIDE) -> np.ndarray:
    """(N, px, px, 3) uint8: the square of `side` x edge round each die's top face, seen from
    straight above."""
    out = np.zeros((len(centres_mm), px, px, 3), np.uint8)
    s = edge_mm * side / 2
    dst = np.float32([[0, 0], [px, 0], [px, px], [0, px]])
    for i, (x, y) in enumerate(np.asarray(centres_mm, np.float64).reshape(-1, 2)):
        sq = np.array([[x - s, y - s], [x + s, y - s], [x + s, y + s], [x - s, y + s]])
        src = lifted_px(geometry, sq, edge_mm).astype(np.float32)
        m = cv2.getPerspectiveTransform(src, dst)
        out[i] = cv2.warpPerspective(image, m, (px, px), flags=cv2.INTER_AREA,
                                     borderMode=cv2.BORDER_REPLICATE)
    return out


def cube_box(geometry: Geometry, centre_mm: tuple[float, float], edge_mm: float,
             margin: float = 1.1) -> np.ndarray:
    """Image box (x0, y0, x1, y1) of a die lying at `centre_mm` (any yaw)."""
    r = edge_mm / 2 * np.sqrt(2) * margin
    a = np.linspace(0, 2 * np.pi, 12, endpoint=False)
    ring = np.column_stack([centre_mm[0] + r * np.cos(a), centre_mm[1] + r * np.sin(a)])
    px = np.concatenate([geometry.to_px(ring), lifted_px(geometry, ring, edge_mm)])
    return np.concatenate([px.min(axis=0), px.max(axis=0)]).astype(np.float32)


def find_on_mat(image: np.ndarray, geometry: Geometry, region: tuple[float, float, float, float],
                reference: np.ndarray, edge_mm: float, inside: Any = None
                ) -> list[tuple[float, float]]:
    """Mat points (mm) of dice in `region` of the mat: blobs that differ from the printed
    mat (`reference`: the region of the mat raster at MASK_PPM) with a die's size; `inside`
    (mm point -> bool) keeps those in the dice zone. A blob of two or three touching dice is
    split by its area."""
    from vision.card_slots import not_mat
    from vision.pyramids import rectify

    top = rectify(image, geometry.homography, region, MASK_PPM)
    if reference.shape != top.shape:
        return []
    mask = not_mat(top, reference).astype(np.uint8)
    mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8))
    n, comp, stats, cents = cv2.connectedComponentsWithStats(mask, connectivity=8)
    cam = np.asarray(geometry.camera_mm[:2], np.float64)
    k = edge_mm / (geometry.camera_mm[2] - edge_mm)
    face = (edge_mm * MASK_PPM) ** 2
    out: list[tuple[float, float]] = []
    for j in range(1, n):
        area = float(stats[j, cv2.CC_STAT_AREA])
        w, h = stats[j, cv2.CC_STAT_WIDTH], stats[j, cv2.CC_STAT_HEIGHT]
        if area < 0.45 * face or min(w, h) < 0.6 * edge_mm * MASK_PPM:
            continue  # a crumb, a pip's worth, a line's edge
        count = int(round(area / (1.25 * face)))
        if count > 3 or max(w, h) > 4 * edge_mm * MASK_PPM:
            continue  # a hand's shadow, a card: not dice
        ys, xs = np.nonzero(comp == j)
        pts = np.column_stack([xs, ys]).astype(np.float32)
        if count <= 1:
            centres = [cents[j]]
        else:
            crit = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 20, 0.1)
            _, _, centres = cv2.kmeans(pts, count, None, crit, 3, cv2.KMEANS_PP_CENTERS)
        for c in centres:
            # The blob is the die's outline on the mat: its footprint and its top face seen
            # farther out; the footprint's centre lies between.
            seen = np.array([region[0] + (c[0] + 0.5) / MASK_PPM,
                             region[1] + (c[1] + 0.5) / MASK_PPM])
            p = (seen + cam * k / 2) / (1 + k / 2)
            if inside is None or inside((float(p[0]), float(p[1]))):
                out.append((float(p[0]), float(p[1])))
    return out


def merge_close(points: np.ndarray, scores: np.ndarray, edge_mm: float) -> np.ndarray:
    """Indices of the points to keep: of points closer than MERGE_SHARE x edge, the one with
    the best score."""
    order = np.argsort(-np.asarray(scores))
    kept: list[int] = []
    for i in order:
        if all(np.hypot(*(points[i] - points[j])) >= MERGE_SHARE * edge_mm for j in kept):
            kept.append(int(i))
    return np.array(sorted(kept), np.int64)


@dataclass(frozen=True)
class TopReading:
    """One die read square-on."""

    type: str
    faces: dict[str, float]
    probability: float
    centre_mm: tuple[float, float]


def _type_probs(face_reader: Any, logits: np.ndarray, dtype: str) -> tuple[list[str], np.ndarray]:
    """Calibrated probabilities over one type's faces from the model's logits (as
    DieFaceReader.read_type, which would run the model again for each type)."""
    from vision.dietypes import get_type

    labels = list(get_type(dtype).labels)
    cols = [face_reader.labels.index(lb) for lb in labels]
    z = logits[:, cols] / face_reader.temperature
    e = np.exp(z - z.max(axis=1, keepdims=True))
    return labels, e / e.sum(axis=1, keepdims=True)


def read_top_faces(face_reader: Any, image: np.ndarray, geometry: Geometry,
                   centres_mm: np.ndarray, edge_mm: float, types: list[str]
                   ) -> list[TopReading]:
    """Type and face of each die near `centres_mm`: 3 x 3 crops SEARCH_MM apart, each read as
    every type of the game, then 3 x 3 crops half as far apart round the surest; the surest
    (type, crop) of all stands."""
    out = []
    for c in np.asarray(centres_mm, np.float64).reshape(-1, 2):
        best: TopReading | None = None
        for step in (SEARCH_MM, SEARCH_MM / 2):
            at = (c if best is None else np.array(best.centre_mm)) + _GRID * step
            crops = top_crops(image, geometry, at, edge_mm, face_reader.crop_px)
            logits = face_reader.logits(crops)
            for t in types:
                labels, probs = _type_probs(face_reader, logits, t)
                k = int(np.unravel_index(np.argmax(probs), probs.shape)[0])
                p = float(probs[k].max())
                if best is None or p > best.probability:
                    best = TopReading(t, {lb: round(float(v), 4)
                                          for lb, v in zip(labels, probs[k], strict=True)},
                                      p, (float(at[k, 0]), float(at[k, 1])))
        assert best is not None
        out.append(_by_expert(face_reader, image, geometry, best, edge_mm))
    return out


def _by_expert(face_reader: Any, image: np.ndarray, geometry: Geometry, best: TopReading,
               edge_mm: float) -> TopReading:
    """The face of a die whose type has an expert face model (vision.faces: IceDice's size
    die) read again by that model on the surest crop; the shared model still says the type
    and where the die lies. (The shared model read the size die's pictograms a size too
    large on rendered tables: 103 of 1787 rolls, SL as ML 16 %, S as SM 8 %, M as L 6 %.)"""
    if not face_reader.has_expert(best.type):
        return best
    at = np.array(best.centre_mm) + _GRID * SEARCH_MM / 2
    reads = face_reader.read_type(top_crops(image, geometry, at, edge_mm,
                                            face_reader.crop_px), best.type)
    labels = list(reads[0].dist)
    p = np.mean([[r.dist[lb] for lb in labels] for r in reads], axis=0)
    faces = {lb: round(float(v), 4) for lb, v in zip(labels, p, strict=True)}
    return TopReading(best.type, faces, float(p.max()), best.centre_mm)
