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
  rendered IceDice tables). So :func:`locate_top` first finds the die's top face itself, by
  its outline, and :func:`read_top_faces` reads the crop centred there.

Why not keep the surest of several crops round the estimate (the first version): a crop
shifted towards a side face shows that face's pictograms beside the top face's, and the face
model is then often surer of the wrong face (IceDice's size die: S read as SM, SL as ML; 17
of 753 live rolls misread, each one confidently, so recorded without a question).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import cv2
import numpy as np

from calibration.geometry.homography import Geometry

CROP_SIDE = 1.3
"""Side of a top-face crop over the die's edge (a face turned 45 degrees still fits, its
corners cut a little; measured best of 1.15 / 1.3 / 1.45 on rendered tables)."""
SEARCH_MM = 2.0
"""Step of the 3 x 3 crops read round a die's estimated place when its outline is not found
(the estimate is off by ~2.6 mm median, up to 8 mm, on rendered IceDice tables)."""
_GRID = np.array([(i, j) for j in (-1, 0, 1) for i in (-1, 0, 1)], np.float64)
"""The 3 x 3 search's offsets, in steps."""
LOCATE_PPM = 4.0
"""Resolution of the outline search, px/mm."""
LOCATE_WINDOW = 2.2
"""Side of the square searched for a die's outline, over the die's edge."""
LOCATE_REACH = 0.45
"""The outline's centre is searched within this share of the edge round the estimate
(estimates are off by up to ~8 mm of 18 on rendered IceDice tables)."""
LOCATE_YAWS = np.arange(-12.0, 12.1, 6.0)
"""Yaws (degrees) of the coarse outline search, round the yaw the crop's edges point to
(:func:`_edges_yaw`); the best is refined by half a step. The edges' yaw is off the outline's
by 2.8 degrees median, 7.1 at the 90th percentile and 17 at most (67 dice of a simulated
Quarriors match, seed 5, against the search over all yaws): 7 outlines fitted a die rather
than 17 (each ~0.7 ms)."""
LOCATE_COARSE = 1.5
"""The outline is searched first at LOCATE_PPM / this, then at LOCATE_PPM within FINE_REACH_MM
and FINE_YAWS of the best (:func:`locate_top`). Measured by a probe (not a shipped command)
of 973 outline searches on simulated Quarriors tables (seeds 3 and 5, 2500 frames each),
against the true place of the nearest rendered die: the whole search at LOCATE_PPM / coarse
to fine at 1.5: centre off by over 1.5 mm 14.4 % / 13.1 %, over 3 mm 10.9 % / 9.5 %, no
outline 20 / 17; 10.4 / 5.5 ms a search. At 2: 12.8 % / 9.6 %, 4.7 ms (inside the noise of
the 1.5's: 1.5 kept). Yet in `simulate --game quarriors --matches 20` run beside the code
before it, the faces stage (this search, the face model, the colours) stayed 72 / 70 ms at
p50 and 223 / 223 ms at p95: the slowest tenth of its readings (its --report) spend about 3
times the mean in every stage, readings that read most of the table again."""
RIVAL_SHARE, RIVAL_MM = 0.85, 2.0
"""The coarse search's best outline at another yaw, at least RIVAL_SHARE as strong and more
than RIVAL_MM from its best, is searched fine too (the stronger fine outline is taken): a
square of a printed zone corner and a die's two edges beat the die's own at the coarse
resolution (66 / 59.3, beyond 0.9), and fine it fell to 54 where the die's own held 65 (a
Basic Quiddity at an Active Pool's corner read 5 mm off, its Q2 as Q1 at 0.99: simulated
Quarriors, seed 1, frame 5049). Measured by probes, not a shipped command: on 12 rendered
Quarriors tables (228 dice off the Wilds, estimates 3 mm off at random), 20 % of the
searches search a rival, and about as many outlines land over 1.5 / 3 mm off as without
(8.1 % / 4.1 % against 7.7 % / 4.5 %); a search cost 6.2 ms of CPU where 5.0. A die 0.5-2 mm from
a zone's printed corner is still found 2-9 mm off in 19 of 192 searches (21 without): its
printed lines, seen through the top face's plane a few mm nearer the camera, outweigh the
die's own faint side (UNSOLVED: the printed mat's edges would have to be masked in both
planes)."""
FINE_REACH_MM = 1.5
"""Reach of the fine outline search round the coarse one's centre (mm)."""
FINE_YAWS = (-1.5, 0.0, 1.5)
"""Yaws of the fine outline search round the coarse one's (degrees; its yaws are 3 apart)."""
FINE_MARGIN = 0.25
"""The fine search's square is the die's edge, twice its reach and this share of the edge
(the Sobel and the side sums' borders)."""
EDGE_SHARE = 0.7
"""Middle share of each side of the outline that is scored (a die's corners are rounded)."""
EDGE_CLIP = 80.0
"""Sobel response (ksize 3, grey 0..255) at which an edge counts as a whole edge: a
pictogram's black edge or a printed line next to the die must not outweigh the die's own
faint white-on-white edge."""
MIN_OUTLINE = 45.0
"""Weakest side's mean clipped edge response below which no outline is taken as found.
Rendered IceDice throws (117 size and 117 colour dice, any light side, bumped cameras)
measure 58-80 (1 % under 60); 90 places of the rolling area with no die, up to 33 (its
printed lines and lettering). UNMEASURED on real tables."""
MASK_PPM = 2.0
"""Resolution of the mat comparison that finds dice, px/mm."""
HEAP_BLOB = 40
"""Most dice one blob of a heap zone is taken to hold (a settled frame shows no hand)."""
HEAP_AREA = 1.4
"""Blob area per die of a heap, in top faces (a lone die's blob is 1.25: its sides and
shadow; in a heap they overlap their neighbours). Simulated Quarriors, seed 0, 261 readings,
3 599 Used Pile dice, counted by a probe (not a shipped command) of each reading's Used Pile
dice against the rendered table's: missed / extra / typed right 7.3 % / 0.5 % / 0.907 with heaps not
split, 1.1 % / 3.5 % / 0.961 at 1.25, 2.0 % / 2.3 % / 0.957 at 1.4, 2.4 % / 2.1 % / 0.956
at 1.6 (a die found that is not there costs the rules more than one missed in a heap)."""
MERGE_SHARE = 0.7
"""Two dice closer than this share of a die's edge are one die (dice cannot overlap)."""


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
    dst = np.array([[0, 0], [px, 0], [px, px], [0, px]], np.float32)
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
                reference: np.ndarray, edge_mm: float, inside: Any = None, heap: Any = None
                ) -> list[tuple[float, float]]:
    """Mat points (mm) of dice in `region` of the mat: blobs that differ from the printed
    mat (`reference`: the region of the mat raster at MASK_PPM) with a die's size; `inside`
    (mm point -> bool) keeps those in the dice zone. A blob of two or three touching dice is
    split by its area; in a heap zone (`heap`: mm point -> bool; Quarriors' Used Pile) a
    blob of up to HEAP_BLOB dice is too."""
    from vision.pieces.card_slots import not_mat
    from vision.pieces.pyramids import rectify

    top = rectify(image, geometry.homography, region, MASK_PPM)
    if reference.shape != top.shape:
        return []
    mask: np.ndarray = not_mat(top, reference).astype(np.uint8)
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
            mid = (region[0] + cents[j][0] / MASK_PPM, region[1] + cents[j][1] / MASK_PPM)
            count = int(round(area / (HEAP_AREA * face)))
            if heap is None or count > HEAP_BLOB or not heap(mid):
                continue  # a hand's shadow, a card: not dice
        centres: Any
        if count <= 1:
            centres = [cents[j]]
        else:
            # (the blob's own box, not the whole view: a heap's dozen blobs each scanned the
            # region once: ~20 ms a Quarriors reading in a cProfile of a simulated match)
            x, y = stats[j, cv2.CC_STAT_LEFT], stats[j, cv2.CC_STAT_TOP]
            ys, xs = np.nonzero(comp[y:y + h, x:x + w] == j)
            # every other pixel: half the points to split (the 14-dice heap test still finds them)
            pts = np.column_stack([xs + x, ys + y]).astype(np.float32)[::2]
            crit = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 20, 0.1)
            # (OpenCV takes None for bestLabels; the type stubs of 4.x do not say so, 5.x's do)
            _, _, centres = cv2.kmeans(  # type: ignore[call-overload, unused-ignore]
                pts, count, None, crit, 3, cv2.KMEANS_PP_CENTERS)
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
    types: dict[str, float] | None = None
    """how likely each type is, of a set told apart by colour (None: ``type`` alone)"""


def _type_probs(face_reader: Any, logits: np.ndarray, dtype: str) -> tuple[list[str], np.ndarray]:
    """Calibrated probabilities over one type's faces from the model's logits (as
    DieFaceReader.read_type, which would run the model again for each type)."""
    from vision.faces.dietypes import get_type

    labels = list(get_type(dtype).labels)
    cols = [face_reader.labels.index(lb) for lb in labels]
    z = logits[:, cols] / face_reader.temperature
    e = np.exp(z - z.max(axis=1, keepdims=True))
    return labels, e / e.sum(axis=1, keepdims=True)


@dataclass(frozen=True)
class Outline:
    """A die's top face found by its outline."""

    centre_mm: tuple[float, float]
    yaw_deg: float
    """Yaw of the outline's sides, -45..45 (a square's yaw is known only modulo 90)."""
    strength: float
    """Mean clipped edge response along the weakest side (see MIN_OUTLINE)."""


def _plane_grey(image: np.ndarray, geometry: Geometry, centre_mm: np.ndarray, half_mm: float,
                px: int, height_mm: float) -> np.ndarray:
    x, y = centre_mm
    sq = np.array([[x - half_mm, y - half_mm], [x + half_mm, y - half_mm],
                   [x + half_mm, y + half_mm], [x - half_mm, y + half_mm]])
    src = lifted_px(geometry, sq, height_mm).astype(np.float32)
    dst = np.array([[0, 0], [px, 0], [px, px], [0, px]], np.float32)
    m = cv2.getPerspectiveTransform(src, dst)
    warped = cv2.warpPerspective(image, m, (px, px), flags=cv2.INTER_AREA,
                                 borderMode=cv2.BORDER_REPLICATE)
    return cv2.cvtColor(warped, cv2.COLOR_BGR2GRAY).astype(np.float32)


def _side_maps(grey: np.ndarray, rot: np.ndarray, length: int) -> tuple[np.ndarray, np.ndarray]:
    """Clipped edge response of `grey` turned by `rot`, summed along `length` px: across x
    (sides running along y) and across y."""
    px = grey.shape[0]
    g = cv2.warpAffine(grey, rot, (px, px), flags=cv2.INTER_LINEAR,
                       borderMode=cv2.BORDER_REPLICATE)
    ex = np.minimum(np.abs(cv2.Sobel(g, cv2.CV_32F, 1, 0, ksize=3)), EDGE_CLIP)
    ey = np.minimum(np.abs(cv2.Sobel(g, cv2.CV_32F, 0, 1, ksize=3)), EDGE_CLIP)
    return cv2.boxFilter(ex, -1, (1, length)), cv2.boxFilter(ey, -1, (length, 1))


def _edges_yaw(grey: np.ndarray) -> float:
    """The yaw (degrees, as locate_top turns its crop) the edges in ``grey`` point to: the
    mean angle of its gradients modulo 90 (angles taken four times over, weighted by the
    clipped gradient), which a square's four sides share."""
    gx = cv2.Sobel(grey, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(grey, cv2.CV_32F, 0, 1, ksize=3)
    mag = np.minimum(cv2.magnitude(gx, gy), EDGE_CLIP)
    angle = 4.0 * np.arctan2(gy, gx)
    return float(np.degrees(np.arctan2(float((mag * np.sin(angle)).sum()),
                                       float((mag * np.cos(angle)).sum())) / 4.0))


def locate_top(image: np.ndarray, geometry: Geometry, centre_mm: Any, edge_mm: float
               ) -> Outline | None:
    """The top face of the die lying near `centre_mm`, found by the die's outline: a square
    of the die's edge whose four sides all show an edge. Seen from a camera off the die's
    axis, the sides of the outline away from the camera are the top face's own edges (drawn
    true in the plane of the top face), and those facing the camera are the die's foot
    against the table (true in the table's plane: the top face's near edges only border
    the die's lit sides, often faintly). So each side is scored in its own plane, and the
    weakest side scores the square (one strong line, a pictogram's or the mat's, cannot
    carry a square). None when no square's weakest side reaches MIN_OUTLINE.

    Searched coarse to fine (LOCATE_COARSE): the yaws and the whole reach at a lower
    resolution, then round the best at LOCATE_PPM; the whole search at LOCATE_PPM only when
    that finds no outline."""
    c = np.asarray(centre_mm, np.float64).reshape(2)
    step = float(LOCATE_YAWS[1] - LOCATE_YAWS[0]) / 2
    coarse = _outlines(image, geometry, c, edge_mm, LOCATE_PPM / LOCATE_COARSE,
                       LOCATE_WINDOW, LOCATE_REACH, None, step)
    rival = next((f for f in coarse[1:] if f[0] >= RIVAL_SHARE * coarse[0][0] and float(
        np.hypot(*(f[2] - coarse[0][2]))) > RIVAL_MM), None)
    reach = FINE_REACH_MM / edge_mm
    strength, yaw, found = max(
        (_outlines(image, geometry, near, edge_mm, LOCATE_PPM, 1.0 + 2 * reach + FINE_MARGIN,
                   reach, [yaw + d for d in FINE_YAWS], 0.0)[0]
         for _, yaw, near in [coarse[0]] + ([rival] if rival is not None else [])),
        key=lambda f: f[0])
    if strength < MIN_OUTLINE:
        strength, yaw, found = _outline(image, geometry, c, edge_mm, LOCATE_PPM,
                                        LOCATE_WINDOW, LOCATE_REACH, None, step)
    if strength < MIN_OUTLINE:
        return None
    return Outline((float(found[0]), float(found[1])), (45.0 - yaw) % 90.0 - 45.0, strength)


def _outline(image: np.ndarray, geometry: Geometry, c: np.ndarray, edge_mm: float,
             ppm: float, window: float, reach: float, yaws: list[float] | None,
             refine: float) -> tuple[float, float, np.ndarray]:
    """(strength, yaw, centre mm) of the best outline of :func:`locate_top` in the square of
    ``window`` x the edge round ``c`` seen at ``ppm``, its centre within ``reach`` x the edge
    of ``c``; at ``yaws`` (None: round the one the crop's edges point to, LOCATE_YAWS), the
    best refined by ``refine`` degrees either way (0: not refined)."""
    return _outlines(image, geometry, c, edge_mm, ppm, window, reach, yaws, refine)[0]


def _outlines(image: np.ndarray, geometry: Geometry, c: np.ndarray, edge_mm: float,
              ppm: float, window: float, reach: float, yaws: list[float] | None,
              refine: float) -> list[tuple[float, float, np.ndarray]]:
    """The best outline at each yaw :func:`_outline` tries, the strongest first."""
    px = int(round(edge_mm * window * ppm))
    half = edge_mm * window / 2
    top = _plane_grey(image, geometry, c, half, px, edge_mm)
    foot = _plane_grey(image, geometry, c, half, px, 0.0)
    away = c - np.asarray(geometry.camera_mm[:2], np.float64)
    away /= max(float(np.linalg.norm(away)), 1e-9)
    mid = (px - 1) / 2
    e = edge_mm * ppm
    length = int(round(e * EDGE_SHARE)) | 1
    h = int(round(e / 2))
    r = max(1, int(reach * e))
    i0 = int(round(mid)) - r

    def fit(yaw: float) -> tuple[float, np.ndarray]:
        rot = cv2.getRotationMatrix2D((mid, mid), float(yaw), 1.0)
        out = rot[:, :2] @ away  # away from the camera, in the turned crop
        maps = {True: _side_maps(top, rot, length), False: _side_maps(foot, rot, length)}
        sides = np.zeros((4, px, px), np.float32)
        # a square centred at (column j, row i): its sides at j - h, j + h, i - h, i + h
        sides[0][:, h:px - h] = maps[bool(out[0] < 0)][0][:, :px - 2 * h]
        sides[1][:, h:px - h] = maps[bool(out[0] > 0)][0][:, 2 * h:]
        sides[2][h:px - h, :] = maps[bool(out[1] < 0)][1][:px - 2 * h, :]
        sides[3][h:px - h, :] = maps[bool(out[1] > 0)][1][2 * h:, :]
        score = sides.min(axis=0)[i0:i0 + 2 * r + 1, i0:i0 + 2 * r + 1]
        k = np.unravel_index(int(np.argmax(score)), score.shape)
        at = cv2.invertAffineTransform(rot) @ np.array([k[1] + i0, k[0] + i0, 1.0])
        return float(score[k]), at

    if yaws is None:  # the yaws round the one the crop's edges point to (modulo 90)
        yaws = [float(y) for y in _edges_yaw(top) + LOCATE_YAWS]
    fits = {float(y): fit(float(y)) for y in yaws}
    if refine:
        yaw0 = max(fits, key=lambda y: fits[y][0])
        for y in (yaw0 - refine, yaw0 + refine):
            fits[y] = fit(y)
    return [(fits[y][0], y, c + (fits[y][1] - mid) * (2 * half / px))
            for y in sorted(fits, key=lambda y: -fits[y][0])]


@dataclass
class _Kept:
    centre: np.ndarray
    """where the die was read (mm): its look is taken there again, not where the next
    reading's estimate (which wanders by ~1 mm) puts it"""
    look: np.ndarray
    type_only: bool
    reading: TopReading


class TopCache:
    """The last reading of each die of a type set told apart by colour (Quarriors), kept
    while it lies where it lay and looks as it looked, but for the light: in a Quarriors
    reading most dice (the piles, the Ready Area) did not move, and reading one again costs
    ~15 ms (its outline searched, its face read)."""

    KEEP_MM = 1.5
    """a die estimated this near a kept reading's place is looked at there"""
    PX = 48
    """side of the look (px) over CROP_SIDE x the die's edge: ~2.3 px/mm"""
    KEEP_PIXELS = 8
    """most pixels of the look's disc (KEEP_DISC) that may change beyond the light's doing
    (calibration.table.gate.beyond_light) for the die to count as unchanged. Measured by
    probes, not a shipped command. Rendered, one die in one place, each of the 108 pairs of
    faces of the 18 Quarriors dice: 31 such pixels at least (a Scavenging Goblin's 2/2
    against its 2/2*), 106 at the 5th percentile; one face under two lights (69): 2 at
    most. Simulated Quarriors (seeds 0 and 3, 3000 frames each, 661 dice read again near a
    kept reading): 301 kept at 8; 5 of them read otherwise when read again, each with no
    pixel changed (an unsure die read anew). At 24 px a Basic Quiddity turned from Q1 to
    Q2 in place changed 1 such pixel; at 48 px, turned as the light changed (0.85 bright
    from 70 degrees to 1.1 from 200: tests/calibration/test_quarriors_dice.py), 6: kept as
    its Q1 (at 4 it is read anew; 4 was tried with the dice gate's light test, see
    calibration.table.dice.DiceStage.read)."""
    KEEP_DISC = 0.45
    """radius of the disc of the look compared, over the die's edge: inside the top face at
    any yaw"""
    MAX_DICE = 200
    """readings kept at most (a 4-player Quarriors table holds about 130 dice)"""

    def __init__(self) -> None:
        self.last: list[_Kept] = []
        self.hits = 0
        r = self.PX / CROP_SIDE * self.KEEP_DISC
        yy, xx = np.mgrid[:self.PX, :self.PX] - (self.PX - 1) / 2
        self._disc = np.asarray(yy ** 2 + xx ** 2 <= r ** 2)

    def find(self, image: np.ndarray, geometry: Geometry, at: np.ndarray, edge_mm: float,
             type_only: bool) -> _Kept | None:
        """The kept reading of the die estimated at ``at`` (its look now taken where it was
        read), if the die did not change there."""
        from calibration.table.gate import beyond_light

        for kept in self.last:
            if kept.type_only == type_only and \
                    float(np.hypot(*(kept.centre - at))) < self.KEEP_MM:
                look = self.look(image, geometry, kept.centre, edge_mm)
                if int(beyond_light(look, kept.look)[self._disc].sum()) <= self.KEEP_PIXELS:
                    self.hits += 1
                    return _Kept(kept.centre, look, type_only, kept.reading)
                return None
        return None

    def forget(self, box: tuple[float, float, float, float]) -> None:
        """Read the dice in ``box`` (mm) anew next time (a zone whose reading the match
        doubts: its dice read again from the cache would read as they did)."""
        from calibration.table.gate import inside

        self.last = [e for e in self.last
                     if not inside((float(e.centre[0]), float(e.centre[1])), box)]

    def keep(self, read: list[_Kept], centres: np.ndarray) -> None:
        """Keep this call's readings, and the earlier ones of dice it did not look at: a
        reading of one changed part of the table looks only there, and the whole table read
        next should still find the dice elsewhere as they were."""
        older = [e for e in self.last if not len(centres)
                 or float(np.hypot(*(centres - e.centre).T).min()) >= self.KEEP_MM]
        self.last = (read + older)[:self.MAX_DICE]

    def look(self, image: np.ndarray, geometry: Geometry, at: np.ndarray, edge_mm: float
             ) -> np.ndarray:
        from calibration.table.gate import mean_normalised

        return mean_normalised(top_crops(image, geometry, at[None], edge_mm, self.PX)[0])


def read_top_faces(face_reader: Any, image: np.ndarray, geometry: Geometry,
                   centres_mm: np.ndarray, edge_mm: float, types: list[str],
                   type_only: list[bool] | None = None,
                   cache: TopCache | None = None) -> list[TopReading]:
    """Type and face of each die near `centres_mm`, read on the crop centred on its top face
    (:func:`locate_top`). A die whose outline is not found is read as the mean of 3 x 3
    crops SEARCH_MM apart round the estimate: a reading that the crops do not agree on is
    then unsure, and the rules ask rather than record it. ``type_only``: per die, only its
    type is wanted (a zone whose faces the rules do not follow: Quarriors' Used Pile): it is
    typed as any other (face model and colours) and reported with no face (``faces`` empty,
    ``probability`` 0)."""
    out: list[TopReading] = []
    by_body = body_colours(types)
    centres = np.asarray(centres_mm, np.float64).reshape(-1, 2)
    keep = cache if by_body else None  # (dice of other games are read each time)
    kept: list[_Kept] = []
    for i, c in enumerate(centres):
        only = bool(type_only is not None and type_only[i])
        if keep is not None:
            known = keep.find(image, geometry, c, edge_mm, only)
            if known is not None and known.reading.type in types:
                out.append(known.reading)
                kept.append(known)
                continue
        outline = locate_top(image, geometry, c, edge_mm)
        at = np.array([outline.centre_mm]) if outline is not None else c + _GRID * SEARCH_MM
        crops = top_crops(image, geometry, at, edge_mm, face_reader.crop_px)
        logits = face_reader.logits(crops)
        best: TopReading | None = None
        colour = _colour_fit(crops, by_body) if by_body else {}
        score = -np.inf
        fits: dict[str, float] = {}
        by_type: dict[str, dict[str, float]] = {}
        for t in types:
            labels, probs = _type_probs(face_reader, logits, t)
            p = probs.mean(axis=0)
            by_type[t] = dict(zip(labels, (float(v) for v in p), strict=True))
            fit = fits[t] = float(np.log(max(float(p.max()), 1e-6))) + colour.get(t, 0.0)
            if best is None or fit > score:
                score = fit
                best = TopReading(t, {lb: round(float(v), 4)
                                      for lb, v in zip(labels, p, strict=True)},
                                  float(p.max()), outline.centre_mm if outline is not None
                                  else (float(c[0]), float(c[1])))
        assert best is not None
        if colour:
            # the less likely types are kept down to 0.001: the rules pick among them by
            # what the bag can hold (a brown Assistant read 0.99 as the dark red-brown Quake
            # Dragon lost its Assistant at 0.01, and its draw was called unexplained)
            best = replace(best, types=_share(fits, keep=0.001))
        if only:
            # its type is wanted, not its face; the face model still helps type it (a brown
            # Assistant in a pile's shade was read by its colours alone as the dark
            # red-brown Quake Dragon: 52 of 228 Used Pile misreads in the missing and extra
            # objects of `simulate --game quarriors --seed 0 --report`)
            best = replace(best, faces={}, probability=0.0)
        out.append(best if only else _mixed(_by_expert(face_reader, crops, best, logits),
                                            by_type))
        if keep is not None:
            kept.append(_Kept(c, keep.look(image, geometry, c, edge_mm), only, out[-1]))
    if keep is not None:
        keep.keep(kept, centres)
    return out


MIXED_FLOOR = 1e-4
"""Least probability of another type's face kept in a die's face distribution (_mixed)."""
MIXED_CAP = 0.5
"""Another type's face is given at most this share of the likeliest face's probability (the
reading's top face stays the likeliest type's own)."""


def _mixed(best: TopReading, by_type: dict[str, dict[str, float]]) -> TopReading:
    """``best`` (a die typed by colour, its face read as its likeliest type's) with the faces
    its other likely types have and it lacks, each at P(type) P(face | type) (at most
    MIXED_CAP of its top face's). Its own faces stay as read: read as the likeliest type's
    alone, a die the rules know to be another type (what the bag held) kept only the faces
    the two share, at the likeliest type's probabilities (a Basic Quiddity rolled to Q2 and
    read as a Devotee of the Holy Query, whose faces hold a Q1 and no Q2, was recorded as a
    Q1 at 0.99: `simulate --game quarriors --seed 0`, frame 4839). Mixed whole (P(face) over
    all types), the other types' readings of the faces a die shares with them made its own
    faces' rivals likelier: in 4 matches of the same command (seeds 0-3) 0.53 of the moves
    were taken without a question where 0.90 (an Assistant's roll weighed against its other
    faces as the Quake Dragon reads them). The rules weigh type and face each on its own
    (engine.reconcile), so a joint reading cannot be told them."""
    if not best.types or len(best.types) < 2 or not best.faces:
        return best
    total = sum(best.types.values())
    cap = MIXED_CAP * max(best.faces.values())
    faces = dict(best.faces)
    added: dict[str, float] = {}
    for t, share in best.types.items():
        if t == best.type:
            continue
        for label, p in by_type.get(t, {}).items():
            if label not in faces:
                added[label] = added.get(label, 0.0) + share / total * p
    faces.update({lb: round(min(p, cap), 4) for lb, p in added.items() if p >= MIXED_FLOOR})
    return replace(best, faces=faces)


def _share(fits: dict[str, float], keep: float = 0.01) -> dict[str, float]:
    """Log fits as probabilities (those of at least ``keep``)."""
    top = max(fits.values())
    w = {t: float(np.exp(v - top)) for t, v in fits.items()}
    z = sum(w.values())
    return {t: round(v / z, 4) for t, v in w.items() if v / z >= keep}


COLOUR_SIGMA = 18.0
"""Spread (Lab units) of a die body's measured colour round its catalogued one: dice of a
game whose faces all share labels across types (Quarriors: a Q1 on 15 dice) are told apart
by their colours, body and ink. On rendered Quarriors tables (simulated table, seed 3, 40
readings, 377 dice) the type was right for 238 by the face model alone and 368 by the body
and ink colours (Lab, lightness weighted 2)."""
_LAB_WEIGHT = np.array([2.0, 1.0, 1.0])


def body_colours(types: list[str]) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """(body, ink) Lab of each type, for a set of types told apart by their colours: every
    face drawn in its die's two colours (vision.faces.dietypes look kind ``quarriors``); empty for
    any other set (IceDice's colour die shows a colour per face)."""
    from vision.colours import _lab
    from vision.faces.dietypes import get_type, hex_bgr

    dtypes = [get_type(t) for t in types]
    if not dtypes or any(f.look_dict().get("kind") != "quarriors" for d in dtypes
                         for f in d.faces):
        return {}
    return {d.name: (_lab(np.array([hex_bgr(d.body)], np.float32))[0],
                     _lab(np.array([hex_bgr(d.ink)], np.float32))[0]) for d in dtypes}


def _colour_fit(crops: np.ndarray, by_body: dict[str, tuple[np.ndarray, np.ndarray]]
                ) -> dict[str, float]:
    """Log-likelihood of each type from the measured body and ink colours of the crops (a
    face mostly in its ink colour swaps them: tried both ways, the swap a little less
    likely)."""
    from vision.colours import _lab

    body, ink = _face_colours(crops)
    b = _lab(body.astype(np.float32)).mean(axis=0)
    k = _lab(ink.astype(np.float32)).mean(axis=0)

    def d(x: np.ndarray, y: np.ndarray) -> float:
        return float(np.sum((x - y) ** 2 * _LAB_WEIGHT))

    out = {}
    for t, (tb, tk) in by_body.items():
        dist = min(d(b, tb) + 0.5 * d(k, tk), d(k, tb) + 0.5 * d(b, tk) + 2 * COLOUR_SIGMA ** 2)
        out[t] = -dist / (2 * COLOUR_SIGMA ** 2)
    return out


def _face_colours(crops: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(body BGR (N, 3), ink BGR (N, 3)) of square-on top-face crops (top_crops): the body is
    the median of a ring just inside the face's edge, whatever its turn (a Quarriors face's
    pictogram fills its middle: the two larger colour there is often the ink); the ink is
    the mean of the middle's pixels farthest from the body."""
    n, h, w = crops.shape[:3]
    yy, xx = np.mgrid[0:h, 0:w]
    r = np.hypot(xx - (w - 1) / 2, yy - (h - 1) / 2) / w  # in crop widths (face: 1 / CROP_SIDE)
    ring = (r > 0.27) & (r < 0.35)
    middle = r < 0.25
    px = crops.reshape(n, h * w, 3).astype(np.float32)
    body = np.median(px[:, ring.ravel()], axis=1)
    mid = px[:, middle.ravel()]
    far = ((mid - body[:, None]) ** 2).sum(axis=2)
    cut = np.percentile(far, 75, axis=1, keepdims=True)
    sel = (far >= cut).astype(np.float32)
    ink = np.einsum("np,npc->nc", sel, mid) / np.maximum(sel.sum(axis=1), 1)[:, None]
    return body, ink


def _by_expert(face_reader: Any, crops: np.ndarray, best: TopReading,
               logits: np.ndarray | None = None) -> TopReading:
    """The face of a die whose type has an expert face model (vision.faces.reading: IceDice's size
    die) read again with that model on the same crops; the shared model still says the type.
    (The shared model read the size die's pictograms a size too large on rendered tables:
    103 of 1787 rolls, SL as ML 16 %, S as SM 8 %, M as L 6 %.)"""
    if not face_reader.has_expert(best.type):
        return best
    # (the shared model's logits of these crops given: it is not run on them a second time)
    reads = face_reader.read_type(crops, best.type, logits)
    labels = list(reads[0].dist)
    p = np.mean([[r.dist[lb] for lb in labels] for r in reads], axis=0)
    faces = {lb: round(float(v), 4) for lb, v in zip(labels, p, strict=True)}
    return TopReading(best.type, faces, float(p.max()), best.centre_mm, best.types)
