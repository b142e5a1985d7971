"""Looney pyramids seen from above: drawing them on a table and reading colour and size.

Sizes (base side, mm): small 25, medium 31, large 37 — UNVERIFIED (the figures the project
was given; no public source we could read states them: shared/data/games/README.md and the
IceDice rules give the pieces' count and sizes S/M/L but no dimension; the three sizes nest,
and the reader only needs them well apart). Height is taken as 1.6 x base (INFERRED from
photos: tall, pointed). Both are constants so a measured set can replace them.

Reading works on the table plane: the photo is rectified into table millimetres with the
calibration's homography, pixels that differ from the empty table (the mat raster, or the
table's median colour) in chroma or are much darker are pieces, each piece colour is a
connected region (touching pieces of one colour are cut apart at their cores), and its size
comes from its base. A tall piece leans away from the camera's nadir in a rectified view (its
apex is not on the table plane), so the base side is fitted to the hull away from the apex:
the hull's support function, over the directions the apex does not reach, is that of a
turned square (see :func:`_base_side`).

Stacks: IceDice stacks the Bank by size and colour. From above a same-colour stack shows the
largest piece's outline; the reader reports it as one piece of the largest size with
``stacked=None`` (not measured). The rules engine knows the Bank's content from the moves it
saw, so the Bank's stacks are not counted from the camera.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np

logger = logging.getLogger(__name__)

BASE_MM = {"S": 25.0, "M": 31.0, "L": 37.0}
HEIGHT_RATIO = 1.6
#: Rendered body colours (BGR 0..255) of each pyramid colour; hue is what the reader uses.
COLOURS_BGR = {
    "red": (40, 30, 215), "yellow": (20, 205, 245), "green": (60, 160, 30),
    "blue": (200, 80, 25), "black": (25, 22, 22), "cyan": (215, 185, 20),
    "purple": (160, 40, 125),
}
#: Hue (OpenCV 0..180) of the translucent colours.
HUES = {"red": 0.0, "yellow": 27.0, "green": 55.0, "cyan": 93.0, "blue": 112.0,
        "purple": 148.0}
RAINBOW = ("red", "yellow", "green", "blue", "black")
SUITS_EDITION = ("red", "yellow", "green", "cyan", "purple")


@dataclass(frozen=True, slots=True)
class Pyramid:
    """One pyramid standing on the table (table mm, the mat's own frame)."""

    x: float
    y: float
    colour: str
    size: str
    yaw: float = 0.0


@dataclass(frozen=True, slots=True)
class PyramidReading:
    """A pyramid found in a photo."""

    x: float
    """Base centre, table mm."""
    y: float
    colour: dict[str, float]
    size: dict[str, float]
    base_mm: float
    confidence: float
    stacked: bool | None = None


def _geometry(p: Pyramid) -> tuple[np.ndarray, np.ndarray]:
    s = BASE_MM[p.size] / 2
    a = np.deg2rad(p.yaw)
    rot = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    base = np.array([[-s, -s], [s, -s], [s, s], [-s, s]]) @ rot.T + [p.x, p.y]
    apex = np.array([p.x, p.y, BASE_MM[p.size] * HEIGHT_RATIO])
    return np.column_stack([base, np.zeros(4)]), apex


def draw_pyramids(image: np.ndarray, pieces: list[Pyramid], project, camera_centre: np.ndarray,
                  light_dir: np.ndarray, rng: np.random.Generator) -> None:
    """Draw pieces into a float32 BGR [0, 1] image in place.

    Args:
        project: table points (N, 3) mm -> pixels (N, 2) (the camera).
        camera_centre: (3,) camera position in the same table frame.
        light_dir: (3,) unit vector towards the light.
    """
    order = sorted(pieces, key=lambda p: -np.hypot(p.x - camera_centre[0],
                                                  p.y - camera_centre[1]))
    shadow = np.zeros(image.shape[:2], np.float32)
    for p in pieces:  # shadows first: they lie on the table under every piece
        base, apex = _geometry(p)
        tip = apex[:2] - apex[2] * light_dir[:2] / max(light_dir[2], 0.3)
        pts = project(np.vstack([base, [[*tip, 0.0]]]))
        cv2.fillPoly(shadow, [cv2.convexHull(pts.astype(np.float32)).astype(np.int32)], 1.0,
                     cv2.LINE_AA)
    image *= (1 - 0.3 * cv2.GaussianBlur(shadow, (0, 0), 2.0))[..., None]
    for p in order:
        base, apex = _geometry(p)
        colour = np.asarray(COLOURS_BGR[p.colour], np.float32) / 255.0
        colour = np.clip(colour * rng.uniform(0.9, 1.1, 3), 0, 1)
        opaque = p.colour == "black"
        faces = []
        for i in range(4):
            a, b = base[i], base[(i + 1) % 4]
            n = np.cross(b - a, apex - a)
            n /= np.linalg.norm(n)
            if n[2] < 0:
                n = -n
            centre = (a + b + apex) / 3
            if n @ (camera_centre - centre) <= 0:
                continue
            faces.append((float(n @ light_dir), project(np.vstack([a, b, apex]))))
        for lit, tri in faces:
            shade = 0.55 + 0.45 * max(0.0, lit)
            # Only the face's own box is touched (the mask is 0 elsewhere): a face is a few
            # hundred pixels, the frame hundreds of thousands.
            x0, y0 = np.maximum(np.floor(tri.min(axis=0)).astype(int) - 1, 0)
            x1, y1 = np.ceil(tri.max(axis=0)).astype(int) + 2
            roi = image[y0:y1, x0:x1]
            if roi.size == 0:
                continue
            mask = np.zeros(roi.shape[:2], np.float32)
            cv2.fillPoly(mask, [np.round((tri - (x0, y0)) * 16).astype(np.int32)], 1.0,
                         cv2.LINE_AA, 4)
            m = mask[..., None]
            if opaque:
                body = colour * shade + 0.08 * max(0.0, lit) ** 8
                roi[:] = roi * (1 - m) + body * m
            else:  # translucent plastic: the colour filters the table seen through it
                through = roi * colour * 1.15 * shade
                roi[:] = roi * (1 - m) + np.clip(0.75 * through + 0.25 * colour * shade,
                                                 0, 1) * m
        # a bright rim along the edges seen from above, as on real plastic
        pts = project(np.vstack([base, apex]))
        for i in range(4):
            cv2.line(image, tuple(np.round(pts[i] * 16).astype(int)),
                     tuple(np.round(pts[4] * 16).astype(int)),
                     tuple(float(v) for v in np.clip(colour * 1.3 + 0.1, 0, 1)), 1,
                     cv2.LINE_AA, 4)


def rectify(image: np.ndarray, table_to_px: np.ndarray, region: tuple[float, float, float, float],
            ppm: float) -> np.ndarray:
    """The table region (x0, y0, x1, y1 mm) seen from straight above at `ppm` px/mm."""
    x0, y0, x1, y1 = region
    w, h = int(round((x1 - x0) * ppm)), int(round((y1 - y0) * ppm))
    to_mm = np.array([[1 / ppm, 0, x0 + 0.5 / ppm], [0, 1 / ppm, y0 + 0.5 / ppm], [0, 0, 1]])
    return cv2.warpPerspective(image, table_to_px @ to_mm, (w, h),
                               flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                               borderMode=cv2.BORDER_REPLICATE)


def label_pixels(top: np.ndarray, reference: np.ndarray | None,
                 palette: tuple[str, ...]) -> np.ndarray:
    """Per pixel of a rectified view: index into `palette` of the piece colour there, -1 for
    the table. Chroma finds translucent pieces (the table's own grey ink has none); black is
    much darker than the table under it (a shadow only dims it by a third)."""
    f = top.astype(np.float32) / 255.0
    if reference is None:
        ref = np.median(f.reshape(-1, 3), axis=0)[None, None, :] * np.ones_like(f)
    else:
        ref = reference.astype(np.float32) / 255.0
    # one gain for the whole view: the light may be dimmer or tinted than the reference's
    gain = np.median(f.reshape(-1, 3), axis=0) / np.maximum(
        np.median(ref.reshape(-1, 3), axis=0), 1e-3)
    f = np.clip(f / np.maximum(gain, 1e-3), 0, 1)
    hsv = cv2.cvtColor(f, cv2.COLOR_BGR2HSV)  # H 0..360 for float input
    hue, sat, val = hsv[..., 0] / 2, hsv[..., 1], hsv[..., 2]
    ref_v = ref.max(axis=2)
    ref_sat = 1 - ref.min(axis=2) / np.maximum(ref_v, 1e-3)
    out = np.full(f.shape[:2], -1, np.int32)
    chroma = (sat > 0.35) & (sat - ref_sat > 0.2) & (val > 0.12)
    names = [c for c in palette if c != "black"]
    if names:  # (the nearest hue of the chroma pixels only: most of a view is table)
        hues = np.array([HUES[c] for c in names], np.float32)
        d = np.abs(hue[chroma][:, None] - hues)
        d = np.minimum(d, 180 - d)
        idx = np.array([palette.index(c) for c in names])
        out[chroma] = idx[np.argmin(d, axis=-1)]
    if "black" in palette:
        dark = (val < 0.22) & (val < 0.35 * np.maximum(ref_v, 1e-3)) & ~chroma
        out[dark] = palette.index("black")
    return out


def _base_side_across(hull_mm: np.ndarray, radial: np.ndarray) -> float:
    """Fallback: the hull's width across the radial line over the base's turn there."""
    eps = 1.0
    poly = cv2.approxPolyDP(hull_mm.astype(np.float32), eps, True)[:, 0]
    while len(poly) > 5 and eps < 6:
        eps += 0.5
        poly = cv2.approxPolyDP(hull_mm.astype(np.float32), eps, True)[:, 0]
    n = len(poly)
    if n < 3:
        return 0.0
    apex = int(np.argmax((poly - poly.mean(axis=0)) @ radial))
    edges = [poly[(i + 1) % n] - poly[i] for i in range(n)
             if i != apex and (i + 1) % n != apex]
    if not edges:
        return 0.0
    e = max(edges, key=lambda v: float(np.linalg.norm(v)))
    across = np.array([-radial[1], radial[0]])
    proj = hull_mm @ across
    a = np.arctan2(float(e @ radial), float(e @ across))
    return float((proj.max() - proj.min()) / (abs(np.cos(a)) + abs(np.sin(a))))


_DIRS = np.deg2rad(np.arange(0.0, 360.0, 4.0))
_U = np.stack([np.cos(_DIRS), np.sin(_DIRS)], axis=1)
_YAWS = np.deg2rad(np.arange(0.0, 90.0, 1.0))
#: support half-width of a unit square turned by each yaw, in each direction (yaws x dirs)
_K = 0.5 * (np.abs(np.cos(_DIRS[None, :] - _YAWS[:, None]))
            + np.abs(np.sin(_DIRS[None, :] - _YAWS[:, None])))


ONE_PIECE = 1.1
"""A region whose base side is over this many times a large piece's is more than one piece."""


def _base_side(hull_mm: np.ndarray, radial: np.ndarray,
               clipped: np.ndarray | None = None) -> float:
    """Base side from a piece's hull (mm).

    In the rectified view a pyramid is the convex hull of its base square (on the table
    plane, true to size) and its apex (leaning away from the nadir). The hull's support
    function h(u) = max p.u is fitted, over the directions u where the apex is not the
    support, by that of a square: c.u + s/2 (|cos(u - a)| + |sin(u - a)|), least squares in
    the centre c and side s for each yaw a (1 degree steps); the best yaw's s is the side.
    Every edge of the base that shows takes part, so a piece turned near 45 degrees is
    measured as well as one square to the view.

    When the whole outline gives a side too large for one piece, the directions whose
    support is a `clipped` point (the outline cut by the view's edge or lost against the
    mat's black ink: a black piece merges with a printed marker) say nothing of the base and
    are left out. Only then: a piece standing on the mat's print has half its outline on
    ink, and the fit to what is left misread 2 of 300 pieces of ``dicetable pieces``'
    rainbow tables (a large one as small, one as two) that the whole outline reads right.
    """
    pts = np.asarray(hull_mm, np.float64).reshape(-1, 2)
    if len(pts) < 3:
        return 0.0
    proj = pts @ _U.T
    h = proj.max(axis=0)
    apex = pts[int(np.argmax((pts - pts.mean(axis=0)) @ radial))]
    free = apex @ _U.T < h - 0.75
    side = _square_side(pts, radial, h, free)
    if clipped is not None and clipped.any() and side > ONE_PIECE * BASE_MM["L"]:
        side = _square_side(pts, radial, h,
                            free & ~np.asarray(clipped, bool)[np.argmax(proj, axis=0)])
    return side


def _square_side(pts: np.ndarray, radial: np.ndarray, h: np.ndarray, free: np.ndarray
                 ) -> float:
    """The side of the square whose support function fits the hull's, ``h``, over the
    directions ``free`` (:func:`_base_side`)."""
    if free.sum() < 12:
        return _base_side_across(pts, radial)
    hf, uf = h[free], _U[free]
    m = np.empty((len(_YAWS), len(hf), 3))
    m[:, :, :2] = uf
    m[:, :, 2] = _K[:, free]
    try:
        sol = _fit(m, hf, np.ones(m.shape[:2]))
        # a neighbour standing in front hides part of the piece: the hull falls short of
        # the square there (never beyond it), so those directions are dropped and refitted
        active = np.ones(len(m), bool)
        for _ in range(2):
            keep = (m @ sol[..., None])[..., 0] - hf < 1.0
            active &= (keep.sum(axis=1) >= 8) & ~keep.all(axis=1)
            if not active.any():
                break
            sol[active] = _fit(m[active], hf, keep[active].astype(np.float64))
    except np.linalg.LinAlgError:  # a degenerate spread of directions: no square fits
        return _base_side_across(pts, radial)
    res = (m @ sol[..., None])[..., 0] - hf
    r = np.sum(np.minimum(res, 1.0) ** 2, axis=1) + 4 * np.sum(np.maximum(-res, 0) ** 2, axis=1)
    return float(sol[int(np.argmin(r)), 2])


def _fit(m: np.ndarray, h: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Least squares of m[y] @ x = h over the rows where w[y] is 1, for every yaw y at once
    (normal equations: three unknowns; 90 separate lstsq calls were most of the time an
    IceDice vault took to read)."""
    mw = (m * w[..., None]).transpose(0, 2, 1)
    return np.linalg.solve(mw @ m, (mw @ h)[..., None])[..., 0]


def _radial(pts: np.ndarray, nadir: np.ndarray) -> np.ndarray:
    r = pts.mean(axis=0) - nadir
    return r / max(float(np.linalg.norm(r)), 1e-6)


def _hull(pts: np.ndarray, blind: Any) -> tuple[np.ndarray, np.ndarray | None]:
    """A piece's hull (mm) and which of its corners are clipped (`blind`: mm points -> bool
    per point, or None)."""
    hull = cv2.convexHull(pts)[:, 0]
    return hull, (blind(hull) if blind is not None else None)


def _split(pts: np.ndarray, nadir: np.ndarray, depth: int = 0, blind: Any = None
           ) -> list[tuple[np.ndarray, np.ndarray]]:
    """Pieces of one colour standing side by side touch in the view: a region too wide for
    one large piece is cut in two (k-means on its pixels) until each part fits one."""
    hull, clipped = _hull(pts, blind)
    side = _base_side(hull, _radial(pts, nadir), clipped)
    if side <= ONE_PIECE * BASE_MM["L"] or depth >= 3 or len(pts) < 50:
        return [(pts, np.ones(len(pts), bool))]
    crit = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 20, 0.1)
    # (OpenCV takes None for bestLabels; its type stubs do not say so)
    _, lab, _ = cv2.kmeans(pts, 2, None, crit, 3,  # type: ignore[call-overload]
                           cv2.KMEANS_PP_CENTERS)
    out = []
    for j in (0, 1):
        sel = lab[:, 0] == j
        for sub, keep in _split(pts[sel], nadir, depth + 1, blind):
            idx = np.nonzero(sel)[0][keep]
            mask = np.zeros(len(pts), bool)
            mask[idx] = True
            out.append((sub, mask))
    return out


def _separate(mask: np.ndarray, min_core: int) -> list[np.ndarray]:
    """Pieces of one colour touching in the view: each piece's core (the pixels far from the
    region's edge) stands apart even where the pieces meet corner to corner; every pixel goes
    to the nearest core. A lone piece is convex, so it has one core and is kept whole."""
    closed = cv2.morphologyEx(mask, cv2.MORPH_CLOSE,
                              cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (5, 5)))
    dist = cv2.distanceTransform(closed, cv2.DIST_L2, 5)
    cores = (dist > 0.5 * float(dist.max())).astype(np.uint8)
    n, lab, stats, _ = cv2.connectedComponentsWithStats(cores, connectivity=8)
    keep = [k for k in range(1, n) if stats[k, cv2.CC_STAT_AREA] >= min_core]
    if len(keep) <= 1:
        return [mask.astype(bool)]
    d = np.stack([cv2.distanceTransform((lab != k).astype(np.uint8), cv2.DIST_L2, 5)
                  for k in keep])
    owner = np.argmin(d, axis=0)
    return [mask.astype(bool) & (owner == j) for j in range(len(keep))]


def _reading(pts: np.ndarray, labels: np.ndarray, palette: tuple[str, ...],
             nadir: np.ndarray, blind: Any = None) -> PyramidReading:
    hull, clipped = _hull(pts, blind)
    side = _base_side(hull, _radial(pts, nadir), clipped)
    lik = {s: float(np.exp(-0.5 * ((side - b) / 2.0) ** 2)) for s, b in BASE_MM.items()}
    tot = sum(lik.values()) or 1.0
    votes = np.bincount(labels[labels >= 0], minlength=len(palette))
    colour = {palette[i]: float(v / votes.sum()) for i, v in enumerate(votes) if v}
    c = pts.mean(axis=0)
    return PyramidReading(float(c[0]), float(c[1]), colour,
                          {s: v / tot for s, v in lik.items()}, side,
                          confidence=float(min(1.0, len(pts) / (BASE_MM["S"] ** 2 * 4))))


def read_pyramids(image: np.ndarray, table_to_px: np.ndarray,
                  region: tuple[float, float, float, float], *,
                  reference: np.ndarray | None = None, nadir: tuple[float, float] | None = None,
                  palette: tuple[str, ...] = RAINBOW, ppm: float = 2.0) -> list[PyramidReading]:
    """Every pyramid standing in a table region of a photo.

    Args:
        image: BGR uint8 photo.
        table_to_px: 3x3 homography, table mm -> pixels.
        region: x0, y0, x1, y1 of the table part to search, mm.
        reference: the empty table over the region at `ppm` (the mat raster), if known.
        nadir: the table point under the camera, mm (default: the point seen at the image
            centre, right for a camera looking nearly straight down).
        palette: colour names to tell apart (RAINBOW or SUITS_EDITION).
    """
    top = rectify(image, table_to_px, region, ppm)
    labels = label_pixels(top, reference, palette)
    if nadir is None:
        c = np.array([[[image.shape[1] / 2, image.shape[0] / 2]]])
        nadir = tuple(cv2.perspectiveTransform(c, np.linalg.inv(table_to_px))[0, 0])
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (3, 3))
    min_area = 0.4 * (BASE_MM["S"] * ppm) ** 2
    # Where a piece's outline cannot be seen: the view's edge, and the mat's black ink (a
    # marker under a leaning apex hides it: the outline stops there, not the piece).
    hidden: np.ndarray = np.zeros(labels.shape, np.uint8)
    hidden[:2, :] = hidden[-2:, :] = hidden[:, :2] = hidden[:, -2:] = 1
    if reference is not None:
        hidden |= (reference.max(axis=2) < 128).astype(np.uint8)
    hidden = cv2.dilate(hidden, np.ones((5, 5), np.uint8)).astype(bool)

    def blind(points_mm: np.ndarray) -> np.ndarray:
        xy = np.floor((points_mm - [region[0], region[1]]) * ppm).astype(int)
        xy[:, 0] = xy[:, 0].clip(0, hidden.shape[1] - 1)
        xy[:, 1] = xy[:, 1].clip(0, hidden.shape[0] - 1)
        return hidden[xy[:, 1], xy[:, 0]]

    out = []
    for ci in range(len(palette)):
        mask = cv2.morphologyEx((labels == ci).astype(np.uint8), cv2.MORPH_OPEN, kernel)
        mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, kernel)
        n, comp, stats, cents = cv2.connectedComponentsWithStats(mask, connectivity=8)
        for k in range(1, n):
            if stats[k, cv2.CC_STAT_AREA] < min_area:
                continue
            bx, by, bw, bh = (int(v) for v in stats[k, :4])
            pad = 3
            x0, y0 = max(bx - pad, 0), max(by - pad, 0)
            local = (comp[y0:by + bh + pad, x0:bx + bw + pad] == k).astype(np.uint8)
            for piece in _separate(local, int(0.02 * (BASE_MM["S"] * ppm) ** 2)):
                if piece.sum() < min_area:
                    continue
                ys, xs = np.nonzero(piece)
                ys, xs = ys + y0, xs + x0
                pts = (np.column_stack([xs, ys]) / ppm + [region[0], region[1]]
                       ).astype(np.float32)
                for part, keep in _split(pts, np.asarray(nadir), blind=blind):
                    out.append(_reading(part, labels[ys[keep], xs[keep]], palette,
                                        np.asarray(nadir), blind))
    return out
