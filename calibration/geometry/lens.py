"""Radial lens distortion: one coefficient, measured from the mat's own points.

Webcam and wide Pi lenses bend straight lines (barrel distortion), which a homography cannot
follow: a few pixels at the edges of the view, a millimetre or more on the table. With some
four hundred refined marker points spread over the mat, the one-coefficient model
``x_d = x_u (1 + k1 r_u^2)`` (r in focal lengths from the image centre) is fitted by a 1-D search
for the k1 that lets the undistorted points fit a homography best. It is kept only when it
clearly helps, so a distortion-free camera keeps k1 = 0.
"""

from __future__ import annotations

import logging

import cv2
import numpy as np

logger = logging.getLogger(__name__)

K1_RANGE = (-0.45, 0.25)
MIN_POINTS = 40
"""Fewer points than this (most markers hidden) cannot tell distortion from noise."""


def _k(focal: float, size: tuple[int, int]) -> np.ndarray:
    return np.array([[focal, 0, size[0] / 2], [0, focal, size[1] / 2], [0, 0, 1.0]])


def undistort(px: np.ndarray, k1: float, focal: float, size: tuple[int, int]) -> np.ndarray:
    """Where pixels (N, 2) of a distorted image would be without the distortion."""
    px = np.asarray(px, np.float64).reshape(-1, 2)
    if not k1 or len(px) == 0:
        return px
    k = _k(focal, size)
    return cv2.undistortPoints(px[:, None], k, np.array([k1, 0.0, 0.0, 0.0]),
                               P=k).reshape(-1, 2)


def distort(px: np.ndarray, k1: float, focal: float, size: tuple[int, int]) -> np.ndarray:
    """Where undistorted pixels (N, 2) appear in the camera's image."""
    px = np.asarray(px, np.float64).reshape(-1, 2)
    if not k1 or len(px) == 0:
        return px
    c = np.array([size[0] / 2, size[1] / 2])
    x = (px - c) / focal
    r2 = (x**2).sum(axis=1, keepdims=True)
    return c + x * (1 + k1 * r2) * focal


def _rms(mm: np.ndarray, px: np.ndarray) -> float:
    h, _ = cv2.findHomography(mm, px, 0)
    if h is None:
        return float("inf")
    proj = cv2.perspectiveTransform(mm[None], h)[0]
    return float(np.sqrt(np.mean(np.sum((proj - px) ** 2, axis=1))))


def fit_k1(mm: np.ndarray, px: np.ndarray, focal: float, size: tuple[int, int]
           ) -> tuple[float, float, float]:
    """(k1, rms without, rms with): golden-section search of the homography residual."""
    rms0 = _rms(mm, px)
    if len(mm) < MIN_POINTS:
        return 0.0, rms0, rms0
    lo, hi = K1_RANGE
    g = (np.sqrt(5) - 1) / 2
    a, b = hi - g * (hi - lo), lo + g * (hi - lo)
    fa = _rms(mm, undistort(px, a, focal, size))
    fb = _rms(mm, undistort(px, b, focal, size))
    for _ in range(30):
        if fa < fb:
            hi, b, fb = b, a, fa
            a = hi - g * (hi - lo)
            fa = _rms(mm, undistort(px, a, focal, size))
        else:
            lo, a, fa = a, b, fb
            b = lo + g * (hi - lo)
            fb = _rms(mm, undistort(px, b, focal, size))
    k1 = (lo + hi) / 2
    return float(k1), rms0, _rms(mm, undistort(px, k1, focal, size))


def worth_it(rms0: float, rms1: float) -> bool:
    """Keep a distortion only when it removes a clear part of the residual."""
    return rms1 < 0.75 * rms0 and rms0 - rms1 > 0.15
