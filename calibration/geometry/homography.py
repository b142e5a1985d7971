"""Table geometry from the mat's ArUco markers: pixels <-> mat millimetres.

Every corner of every marker that is seen and belongs to the mat is one correspondence; a
RANSAC fit keeps the consistent ones (a marker half under a die, a stray marker of another
mat) and a least-squares fit on them gives the homography, so any few markers anywhere on the
mat are enough and hands may cover the rest. From the homography and the camera's focal
length (estimated from the homography itself when the view is oblique enough, else assumed)
comes the camera's position, used to correct positions for height: a die's centre is 8 mm
above the table, and seen from an angle its image lies several millimetres off its footprint.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

import cv2
import numpy as np

from calibration.geometry.lens import distort, fit_k1, undistort, worth_it
from calibration.geometry.markers import MarkerSighting, detect_markers, refined_points
from calibration.layouts import Layout, all_layouts

logger = logging.getLogger(__name__)

MIN_MARKERS = 3
"""Fewer markers than this give too short a baseline to trust millimetres."""
RANSAC_PX = 3.0
MIN_SPREAD = 0.3
"""Below this share of the mat's area spanned by the markers used, fit a camera pose."""
DEFAULT_FOV_DEG = 62.2
"""Horizontal field of view assumed when the view is too square-on to measure it (the
Raspberry Pi camera v2; a v3 is 66 deg, most webcams 60-70 deg)."""
MIN_TILT_FOR_FOCAL_DEG = 12.0


class GeometryError(ValueError):
    """The mat cannot be located in the image; the message tells the user what to do."""


@dataclass(frozen=True, slots=True)
class Geometry:
    """Where the mat lies in one camera's image."""

    homography: np.ndarray
    """3x3, mat mm (x, y, 1) -> pixels."""
    image_size: tuple[int, int]
    """(width, height) of the images it applies to."""
    focal_px: float
    camera_mm: tuple[float, float, float]
    """Camera centre: mat x, y and height above the table, mm."""
    error_px: float
    """RMS reprojection error of the marker corners used, pixels."""
    error_mm: float
    """RMS distance, on the mat, between where the corners were seen and where they are."""
    markers_seen: int
    markers_used: int
    markers_total: int
    k1: float = 0.0
    """Radial distortion of the lens (calibration.geometry.lens); 0 for none."""

    @property
    def tilt_deg(self) -> float:
        """Angle between the mat's normal and the camera's optical axis."""
        h = np.asarray(self.homography, np.float64)
        k = np.array([[self.focal_px, 0, self.image_size[0] / 2],
                      [0, self.focal_px, self.image_size[1] / 2], [0, 0, 1]])
        r1, r2 = _rotation_columns(np.linalg.inv(k) @ h)
        normal = np.cross(r1, r2)
        return float(np.degrees(np.arccos(min(1.0, abs(normal[2])))))

    def to_mm(self, px: np.ndarray, height_mm: float = 0.0) -> np.ndarray:
        """Mat points (N, 2) under pixels (N, 2) of things `height_mm` above the table."""
        px = np.asarray(px, np.float64).reshape(-1, 2)
        if len(px) == 0:
            return np.zeros((0, 2))
        px = undistort(px, self.k1, self.focal_px, self.image_size)
        q = cv2.perspectiveTransform(px[None], np.linalg.inv(self.homography))[0]
        if height_mm:
            c = np.array(self.camera_mm[:2])
            q = c + (q - c) * (1 - height_mm / self.camera_mm[2])
        return q

    def to_px(self, mm: np.ndarray) -> np.ndarray:
        """Pixels (N, 2) of mat points (N, 2) on the table."""
        mm = np.asarray(mm, np.float64).reshape(-1, 2)
        if len(mm) == 0:
            return np.zeros((0, 2))
        px = cv2.perspectiveTransform(mm[None], self.homography)[0]
        return distort(px, self.k1, self.focal_px, self.image_size)


def _rotation_columns(m: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    lam = (np.linalg.norm(m[:, 0]) + np.linalg.norm(m[:, 1])) / 2
    return m[:, 0] / lam, m[:, 1] / lam


def estimate_focal(h: np.ndarray, size: tuple[int, int]) -> float | None:
    """Focal length (px) from a plane's homography, assuming square pixels and the principal
    point at the centre (Zhang's two constraints, least squares); None if not measurable."""
    t = np.array([[1, 0, -size[0] / 2], [0, 1, -size[1] / 2], [0, 0, 1.0]])
    hc = t @ h
    hc = hc / np.linalg.norm(hc[:, :2])
    (a1, b1, c1), (a2, b2, c2) = hc[:, 0], hc[:, 1]
    a = np.array([a1 * a2 + b1 * b2, a1**2 + b1**2 - a2**2 - b2**2])
    b = np.array([c1 * c2, c1**2 - c2**2])
    denom = float(a @ a)
    if denom <= 0:
        return None
    u = -float(a @ b) / denom
    if u <= 0:
        return None
    f = 1 / np.sqrt(u)
    return float(f) if 0.3 * size[0] < f < 6 * size[0] else None


def camera_centre(h: np.ndarray, focal: float, size: tuple[int, int]
                  ) -> tuple[float, float, float]:
    """Camera centre in mat coordinates (x, y, height above the mat), mm."""
    k = np.array([[focal, 0, size[0] / 2], [0, focal, size[1] / 2], [0, 0, 1]])
    m = np.linalg.inv(k) @ h
    lam = (np.linalg.norm(m[:, 0]) + np.linalg.norm(m[:, 1])) / 2
    if m[2, 2] < 0:  # the mat lies in front of the camera
        lam = -lam
    r1, r2, tvec = m[:, 0] / lam, m[:, 1] / lam, m[:, 2] / lam
    u, _, vt = np.linalg.svd(np.column_stack([r1, r2, np.cross(r1, r2)]))
    rot = u @ vt
    c = -rot.T @ tvec
    return float(c[0]), float(c[1]), float(abs(c[2]))


def _correspondences(layout: Layout, seen: MarkerSighting
                     ) -> tuple[np.ndarray, np.ndarray, int, list[int]]:
    """Outer corners of the layout's markers in view: mat mm, pixels, count, id per corner."""
    by_id = {m.id: m for m in layout.markers}
    mm: list[tuple[float, float]] = []
    px: list[np.ndarray] = []
    ids: list[int] = []
    for mid, corners in zip(seen.ids, seen.corners, strict=True):
        marker = by_id.get(int(mid))
        if marker is None:
            continue
        mm.extend(marker.corners())
        px.extend(corners)
        ids += [int(mid)] * 4
    return (np.asarray(mm, np.float64).reshape(-1, 2), np.asarray(px, np.float64).reshape(-1, 2),
            len(ids) // 4, ids)


def _whose(ids: np.ndarray) -> str | None:
    """The shipped mat most of these marker ids belong to."""
    best, count = None, 0
    for lay in all_layouts():
        c = len(lay.marker_ids() & {int(i) for i in ids})
        if c > count:
            best, count = lay.key, c
    return best


def estimate(layout: Layout, image: np.ndarray, *, focal_px: float | None = None,
             sighting: MarkerSighting | None = None, k1: float | None = None) -> Geometry:
    """Locate the mat in a BGR image.

    Args:
        layout: the mat that is on the table.
        image: the camera's picture.
        focal_px: the camera's focal length if known (a profile's); else measured, or
            assumed from DEFAULT_FOV_DEG when the view is nearly square-on.
        sighting: markers already detected in this image.
        k1: the lens's distortion if known (a profile's); else measured when the markers
            span enough of the view (calibration.geometry.lens).

    Raises:
        GeometryError: too few of the mat's markers are visible, or they do not agree.
    """
    size = (int(image.shape[1]), int(image.shape[0]))
    seen = sighting if sighting is not None else detect_markers(image, layout.marker_dictionary)
    mm, px, n, ids_used = _correspondences(layout, seen)
    total = len(layout.markers)
    if n < MIN_MARKERS:
        other = _whose(seen.ids) if len(seen.ids) else None
        if other and other != layout.key:
            raise GeometryError(f"the markers in view belong to the {other} mat, not "
                                f"{layout.key}: is the right --game / --players given?")
        raise GeometryError(f"{n} of {total} markers seen: is the whole mat in view?")
    lens = k1 if k1 and focal_px else 0.0
    if lens:
        px = undistort(px, lens, focal_px, size)  # type: ignore[arg-type]
    h, inl = cv2.findHomography(mm, px, cv2.RANSAC, RANSAC_PX, maxIters=2000, confidence=0.999)
    if h is None:
        raise GeometryError(f"{n} of {total} markers seen but they do not fit a flat mat: "
                            "is the mat lying flat and fully in view?")
    keep = inl.reshape(-1).astype(bool)
    # Whole markers only: a marker with a bad corner is likely misdetected altogether.
    keep = np.repeat(keep.reshape(-1, 4).all(axis=1), 4)
    used = int(keep.sum()) // 4
    if used < MIN_MARKERS:
        raise GeometryError(f"only {used} of {total} markers agree on where the mat is: is it "
                            "lying flat, and are no two mats with the same markers in view?")
    h, _ = cv2.findHomography(mm[keep], px[keep], 0)
    # Refit on every cell corner of the markers that agree (see calibration.geometry.markers).
    grey = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    by_id = {m.id: m for m in layout.markers}
    agreed = {int(i) for i in np.asarray(ids_used)[::4][keep[::4]]}
    pts_mm, pts_px = [mm[keep]], [px[keep]]
    for mid, corners in zip(seen.ids, seen.corners, strict=True):
        if int(mid) in agreed:
            a, b = refined_points(grey, by_id[int(mid)], corners, layout.marker_dictionary)
            pts_mm.append(a)
            pts_px.append(undistort(b, lens, focal_px, size) if lens else b)  # type: ignore
    all_mm, all_px = np.concatenate(pts_mm), np.concatenate(pts_px)
    h2, inl2 = cv2.findHomography(all_mm, all_px, cv2.RANSAC, 1.5, maxIters=2000)
    if h2 is not None and inl2.sum() >= 4 * MIN_MARKERS:
        fine = inl2.reshape(-1).astype(bool)
        h2, _ = cv2.findHomography(all_mm[fine], all_px[fine], 0)
        if h2 is not None:
            h, mm, px, keep = h2, all_mm, all_px, fine
    h = h / h[2, 2]
    spread = _hull_fraction(mm[keep], layout)
    if k1 is None and spread >= MIN_SPREAD:
        f0 = focal_px if focal_px is not None else _focal(h, size)
        found, rms0, rms1 = fit_k1(mm[keep], px[keep], f0, size)
        if worth_it(rms0, rms1):
            logger.info("lens distortion k1 = %.3f (%.2f -> %.2f px)", found, rms0, rms1)
            px = undistort(px, found, f0, size)
            h, _ = cv2.findHomography(mm[keep], px[keep], 0)
            h = h / h[2, 2]
            if focal_px is None:
                focal_px = _focal(h, size)
            # k1 is in focal lengths: keep the same bend in pixels with the final focal
            lens = found * (focal_px / f0) ** 2
    if spread < MIN_SPREAD:
        # Markers along one edge only (an arm over the rest): a free homography tips about
        # that line and misplaces the far side by millimetres. A camera pose with the known
        # (or assumed) lens has two fewer freedoms and stays put.
        f = focal_px if focal_px is not None else _focal(h, size)
        h = _pose_homography(mm[keep], px[keep], h, f, size)
        focal_px = f
    proj = cv2.perspectiveTransform(mm[keep][None], h)[0]
    err_px = float(np.sqrt(np.mean(np.sum((proj - px[keep]) ** 2, axis=1))))
    back = cv2.perspectiveTransform(px[keep][None], np.linalg.inv(h))[0]
    err_mm = float(np.sqrt(np.mean(np.sum((back - mm[keep]) ** 2, axis=1))))
    if focal_px is None:
        focal_px = _focal(h, size)
    cam = camera_centre(h, focal_px, size)
    return Geometry(h, size, focal_px, cam, err_px, err_mm, n, used, total, float(lens))


def _hull_fraction(mm: np.ndarray, layout: Layout) -> float:
    """Share of the mat's area inside the convex hull of the points used."""
    hull = cv2.convexHull(mm.astype(np.float32))
    return float(cv2.contourArea(hull)) / (layout.size_mm[0] * layout.size_mm[1])


def _pose_homography(mm: np.ndarray, px: np.ndarray, h: np.ndarray, focal: float,
                     size: tuple[int, int]) -> np.ndarray:
    """The homography of the best camera pose with this focal length (principal point at
    the image centre), refined from the free homography's pose."""
    k = np.array([[focal, 0, size[0] / 2], [0, focal, size[1] / 2], [0, 0, 1]])
    obj = np.column_stack([mm, np.zeros(len(mm))]).astype(np.float64)
    ok, rvec, tvec = cv2.solvePnP(obj, px.astype(np.float64), k, None,
                                  flags=cv2.SOLVEPNP_IPPE)
    if not ok:
        return h
    rvec, tvec = cv2.solvePnPRefineLM(obj, px.astype(np.float64), k, None, rvec, tvec)
    rot, _ = cv2.Rodrigues(rvec)
    out = k @ np.column_stack([rot[:, 0], rot[:, 1], tvec.reshape(3)])
    return out / out[2, 2]


def _focal(h: np.ndarray, size: tuple[int, int]) -> float:
    prior = size[0] / 2 / np.tan(np.radians(DEFAULT_FOV_DEG) / 2)
    f = estimate_focal(h, size)
    if f is None:
        return float(prior)
    # Square-on views leave the focal length unmeasurable (the constraints vanish): use the
    # measurement only when the view is oblique enough, judged with the measured value.
    k = np.array([[f, 0, size[0] / 2], [0, f, size[1] / 2], [0, 0, 1]])
    r1, r2 = _rotation_columns(np.linalg.inv(k) @ h)
    n = np.cross(r1, r2)
    tilt = np.degrees(np.arccos(min(1.0, abs(n[2]) / np.linalg.norm(n))))
    return float(f) if tilt >= MIN_TILT_FOR_FOCAL_DEG else float(prior)


@dataclass(frozen=True, slots=True)
class Check:
    """Whether a stored geometry still fits a new image."""

    status: str
    """``ok`` (fits), ``moved`` (the camera or the mat moved: ``geometry`` is the new fit),
    ``unseen`` (too few markers to tell: keep the old geometry)."""
    error_px: float
    """Median distance between the seen corners and where the stored geometry puts them."""
    geometry: Geometry


def check(layout: Layout, geometry: Geometry, image: np.ndarray, *,
          tolerance_px: float | None = None, sighting: MarkerSighting | None = None) -> Check:
    """Does the stored geometry still fit this image? Re-estimate it when it does not.

    The tolerance defaults to the larger of 2 px and three times the fit's own RMS error:
    a bumped camera moves the whole mat by far more, a die nudging the mat by less.
    `sighting`: the markers already found in this image (else searched in the whole image).
    """
    seen = sighting if sighting is not None else detect_markers(image,
                                                                layout.marker_dictionary)
    mm, px, n, _ = _correspondences(layout, seen)
    if n < MIN_MARKERS:
        return Check("unseen", float("nan"), geometry)
    err = float(np.median(np.linalg.norm(geometry.to_px(mm) - px, axis=1)))
    tol = tolerance_px if tolerance_px is not None else max(2.0, 3 * geometry.error_px)
    if err <= tol:
        return Check("ok", err, geometry)
    try:
        new = estimate(layout, image, focal_px=geometry.focal_px, sighting=seen,
                       k1=geometry.k1)
    except GeometryError:
        return Check("unseen", err, geometry)
    logger.info("camera or mat moved: corners off by %.1f px; re-estimated (%.2f px rms)",
                err, new.error_px)
    return Check("moved", err, new)
