"""Finding the mat's ArUco markers in an image, and many precise points on each.

ArUco gives each marker's four outer corners. Blur rounds corners and noise jitters them by a
fraction of a pixel, and with half the markers under hands a homography extrapolates that
jitter across the mat. So, once a marker is identified, every corner of its black and white
cells (where the cells around a grid point form a corner, not a straight edge) is predicted
from its four corners and refined to sub-pixel: some twenty points per marker instead of four.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from functools import cache

import cv2
import numpy as np

from calibration.layouts import Marker
from calibration.printing.drawing import marker_dictionary

logger = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class MarkerSighting:
    """Markers found in an image: ids (N,) and their corners (N, 4, 2) in pixels."""

    ids: np.ndarray
    corners: np.ndarray


def detect_markers(image: np.ndarray, dictionary: str = "DICT_4X4_1000") -> MarkerSighting:
    """Every marker of the dictionary in a BGR or grey image, corners refined to sub-pixel."""
    cv2.setNumThreads(1)
    grey = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    params = cv2.aruco.DetectorParameters()
    params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
    params.cornerRefinementWinSize = 4
    params.cornerRefinementMaxIterations = 50
    params.cornerRefinementMinAccuracy = 0.01
    detector = cv2.aruco.ArucoDetector(marker_dictionary(dictionary), params)
    corners, ids, _ = detector.detectMarkers(grey)
    if ids is None or len(ids) == 0:
        return MarkerSighting(np.zeros(0, np.int64), np.zeros((0, 4, 2), np.float64))
    return MarkerSighting(ids.reshape(-1).astype(np.int64),
                          np.asarray(corners, np.float64).reshape(-1, 4, 2))



@cache
def _cell_corners(dictionary: str, marker_id: int) -> tuple[tuple[float, float], ...]:
    """Grid points (in cells from the marker's top-left) where the cells around form a
    corner: one or three of the four dark, or two dark on a diagonal."""
    d = marker_dictionary(dictionary)
    n = d.markerSize + 2
    bits = cv2.aruco.generateImageMarker(d, marker_id, n) < 128
    pad = np.pad(bits, 1, constant_values=False)  # the white quiet zone round the marker
    out = []
    for i in range(n + 1):
        for j in range(n + 1):
            q = pad[i:i + 2, j:j + 2]
            k = int(q.sum())
            if k in (1, 3) or (k == 2 and q[0, 0] == q[1, 1]):
                out.append((float(j), float(i)))
    return tuple(out)


def refined_points(grey: np.ndarray, marker: Marker, corners_px: np.ndarray,
                   dictionary: str) -> tuple[np.ndarray, np.ndarray]:
    """(mat mm (N, 2), pixels (N, 2)) of the marker's cell corners, refined to sub-pixel.

    Points that the refinement moved by more than a third of a cell (a finger, a die's
    edge) are dropped.
    """
    n = marker_dictionary(dictionary).markerSize + 2
    cell = marker.size / n
    x0, y0 = marker.centre[0] - marker.size / 2, marker.centre[1] - marker.size / 2
    grid = np.array(_cell_corners(dictionary, marker.id))
    mm = grid * cell + [x0, y0]
    local, _ = cv2.findHomography(np.array(marker.corners()), corners_px, 0)
    if local is None:
        return np.zeros((0, 2)), np.zeros((0, 2))
    guess = cv2.perspectiveTransform(mm[None], local)[0].astype(np.float32)
    cell_px = float(np.mean(np.linalg.norm(np.roll(corners_px, 1, axis=0) - corners_px,
                                           axis=1))) / n
    if cell_px < 4:
        return np.zeros((0, 2)), np.zeros((0, 2))  # too small to refine anything inside
    win = max(2, int(cell_px * 0.35))
    crit = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 40, 0.01)
    ref = cv2.cornerSubPix(grey, guess.copy().reshape(-1, 1, 2), (win, win), (-1, -1),
                           crit).reshape(-1, 2)
    ok = np.linalg.norm(ref - guess, axis=1) < cell_px / 3
    return mm[ok], ref[ok].astype(np.float64)
