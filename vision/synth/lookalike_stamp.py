"""Drawing raised objects on a flat table image so a camera sees them in relief.

A look-alike (a key cap, a coin, an RPG die) is drawn as its top seen from above, a
``Patch``, and stamped on the table image (the scene's ``mat``) with a side and a drop shadow.
The geometry is the camera's own: an object top ``z`` mm high at table point ``p`` is seen
where the ray through it meets the table, ``p + (p - foot) * z / (eye - z)`` (``foot``: the
table point under the camera, ``eye``: its height), so once the renderer warps the mat
through the camera's homography the top lands where a real top would be seen and the strip
between base and top reads as the object's side. The shadow falls away from the lamp as the
renderer's die shadows do.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

import cv2
import numpy as np

logger = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Stage:
    """How raised things on one table image are seen and lit (all in the image's pixels)."""

    mm_per_px: float
    foot_px: tuple[float, float]
    """Table point under the camera, in the image's pixels (may lie outside the image)."""
    eye_px: float
    """Camera height above the table, in the image's pixels."""
    to_lamp: tuple[float, float] = (0.0, 0.0)
    """Horizontal offset of a shadow per unit of height: minus the lamp's direction over
    the tangent of its elevation (the renderer's ``-ldir[:2] / ldir[2]``)."""
    shadow: float = 0.35
    """Darkening under a shadow, 0..1."""
    keep_out: np.ndarray = field(default_factory=lambda: np.zeros((0, 4)))
    """(N, 4) x0, y0, x1, y1 boxes nothing may be drawn over (the dice, things drawn
    before): an object that would reach into one is not drawn at all."""

    def top_shift(self, centre: np.ndarray, height_px: float) -> np.ndarray:
        """Where a top ``height_px`` above ``centre`` is seen, relative to ``centre``."""
        z = min(height_px, 0.8 * self.eye_px)
        return (np.asarray(centre, np.float64) - self.foot_px) * z / (self.eye_px - z)

    def shadow_shift(self, height_px: float) -> np.ndarray:
        return np.asarray(self.to_lamp, np.float64) * height_px


@dataclass(frozen=True, slots=True)
class Patch:
    """The top of an object seen square-on: colour and coverage, centred in the arrays."""

    bgr: np.ndarray
    """(h, w, 3) float32 in [0, 255]."""
    alpha: np.ndarray
    """(h, w) float32 in [0, 1]."""


def blank_patch(w: int, h: int) -> Patch:
    return Patch(np.zeros((h, w, 3), np.float32), np.zeros((h, w), np.float32))


def _placed(patch: Patch, angle_deg: float, at: np.ndarray, origin: np.ndarray,
            zoom: float = 1.0) -> np.ndarray:
    """Affine map putting the patch's centre at ``at`` (image px), rotated and scaled by
    ``zoom``, in an ROI whose top-left corner is ``origin``."""
    h, w = patch.alpha.shape
    m = cv2.getRotationMatrix2D((w / 2, h / 2), angle_deg, zoom)
    m[:, 2] += at - origin - (w / 2, h / 2)
    return m


def _warp(src: np.ndarray, m: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    return cv2.warpAffine(src, m, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT,
                          borderValue=0)


def stamp(img: np.ndarray, patch: Patch, centre: tuple[float, float], stage: Stage, *,
          angle_deg: float = 0.0, height_mm: float = 0.0,
          side_bgr: tuple[float, float, float] | None = None, zoom: float = 1.0
          ) -> np.ndarray | None:
    """Draw ``patch`` raised ``height_mm`` at ``centre`` (px) on ``img`` (uint8 BGR, in place).

    ``zoom``: image pixels per patch pixel (a big soft object, a hand, is drawn coarser and
    enlarged: the same look for a fraction of the work).

    Returns:
        (4,) float64 x0, y0, x1, y1 of the object's footprint (base, side and top, not its
        shadow) in ``img``'s pixels, or None when none of it falls on the image.
    """
    c = np.asarray(centre, np.float64)
    hpx = height_mm / stage.mm_per_px
    top = stage.top_shift(c, hpx)
    shadow = stage.shadow_shift(hpx)
    blur = 0.6 + 0.12 * hpx
    reach = 0.5 * zoom * float(np.hypot(*patch.alpha.shape)) + 3 * blur + 2
    pts = np.array([c, c + top, c + shadow])
    x0, y0 = np.floor(pts.min(axis=0) - reach).astype(int)
    x1, y1 = np.ceil(pts.max(axis=0) + reach).astype(int)
    ih, iw = img.shape[:2]
    x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, iw), min(y1, ih)
    if x1 - x0 < 2 or y1 - y0 < 2:
        return None
    origin = np.array([x0, y0], np.float64)
    size = (x1 - x0, y1 - y0)
    roi = img[y0:y1, x0:x1].astype(np.float32)
    if hpx > 0.3 and stage.shadow > 0:
        a = _soft(_warp(patch.alpha, _placed(patch, angle_deg, c + shadow, origin, zoom), size),
                  blur)
        roi *= (1 - stage.shadow * a)[..., None]
    cover = _warp(patch.alpha, _placed(patch, angle_deg, c, origin, zoom), size)
    if np.hypot(*top) >= 1:
        # The side: the base swept towards the top, one dilation along that segment.
        cover = _sweep(cover, top)
        colour = np.asarray(side_bgr if side_bgr is not None else (60.0, 60.0, 60.0), np.float32)
        roi += (colour - roi) * cover[..., None]
    m = _placed(patch, angle_deg, c + top, origin, zoom)
    a = _warp(patch.alpha, m, size)
    if touches(np.maximum(cover, a) > 0.25, stage.keep_out, origin):
        return None
    roi += (_warp(patch.bgr, m, size) - roi) * a[..., None]
    img[y0:y1, x0:x1] = np.clip(roi + 0.5, 0, 255).astype(np.uint8)
    ys, xs = np.nonzero(np.maximum(cover, a) > 0.25)
    if len(xs) == 0:
        return None
    return np.array([xs.min() + x0, ys.min() + y0, xs.max() + x0 + 1, ys.max() + y0 + 1],
                    np.float64)


def touches(mask: np.ndarray, boxes: np.ndarray, origin: np.ndarray) -> bool:
    """Whether ``mask`` (an ROI whose top-left is ``origin``) is set inside any box."""
    h, w = mask.shape
    for x0, y0, x1, y1 in np.asarray(boxes).reshape(-1, 4) - np.tile(origin, 2):
        if x1 <= 0 or y1 <= 0 or x0 >= w or y0 >= h:
            continue
        if mask[max(0, int(y0)):int(np.ceil(y1)), max(0, int(x0)):int(np.ceil(x1))].any():
            return True
    return False


def _soft(mask: np.ndarray, sigma: float) -> np.ndarray:
    """Gaussian blur; a wide one is done at a quarter of the size (the shadow of a tall
    object is soft: nothing of it is lost, and the blur costs a sixteenth)."""
    if sigma < 4 or min(mask.shape) < 16:
        return cv2.GaussianBlur(mask, (0, 0), sigma)
    h, w = mask.shape
    small = cv2.resize(mask, (max(1, w // 4), max(1, h // 4)), interpolation=cv2.INTER_AREA)
    small = cv2.GaussianBlur(small, (0, 0), sigma / 4)
    return cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR)


def _sweep(mask: np.ndarray, shift: np.ndarray) -> np.ndarray:
    """``mask`` swept along the segment from 0 to ``shift`` (a dilation by that segment). A
    long sweep is done at a reduced size: a dilation costs its kernel's length per pixel."""
    k = int(np.ceil(np.hypot(*shift) / 16.0))
    if k <= 1 or min(mask.shape) < 4 * k:
        return cv2.dilate(mask, _sweep_kernel(shift))
    h, w = mask.shape
    small = cv2.resize(mask, (w // k, h // k), interpolation=cv2.INTER_AREA)
    small = cv2.dilate(small, _sweep_kernel(np.asarray(shift) / k))
    return np.maximum(mask, cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR))


def _sweep_kernel(shift: np.ndarray) -> np.ndarray:
    """Dilation kernel whose maximum spreads an image along the segment from 0 to ``shift``
    (dilate takes the max over src(x + k - anchor): the kernel's line runs backwards)."""
    rx, ry = int(np.ceil(abs(shift[0]))), int(np.ceil(abs(shift[1])))
    k = np.zeros((2 * ry + 1, 2 * rx + 1), np.uint8)
    cv2.line(k, (rx, ry), (int(round(rx - shift[0])), int(round(ry - shift[1]))), 1, 1)
    return k


PATCH_DETAIL_PX = 160
"""Most pixels across an object's patch; a bigger object is drawn coarser and enlarged."""


def detail(size_mm: float, mm_per_px: float, max_px: int = PATCH_DETAIL_PX
           ) -> tuple[float, float]:
    """(zoom: image px per patch px, mm per patch px) for an object ``size_mm`` across, so
    its patch is never over ``max_px`` wide: a coin filling the frame needs no more detail
    than that, and building and warping a patch costs its area."""
    zoom = max(1.0, size_mm / mm_per_px / max_px)
    return zoom, mm_per_px * zoom


def new_mask(shape: tuple[int, ...]) -> np.ndarray:
    """An empty uint8 mask to draw shapes on with 255: OpenCV anti-aliases (LINE_AA) on
    8-bit images only, a float mask gets hard, jagged edges."""
    return np.zeros(shape[:2], np.uint8)


def cover(mask: np.ndarray) -> np.ndarray:
    """A uint8 mask (0..255) as float32 coverage in [0, 1]; float masks pass through."""
    return mask.astype(np.float32) * (1 / 255.0) if mask.dtype == np.uint8 else mask


def rounded_rect(patch: Patch, x0: float, y0: float, x1: float, y1: float, radius: float,
                 bgr: tuple[float, ...], alpha: float = 1.0) -> None:
    """Fill a rounded rectangle (px, anti-aliased) into ``patch`` (in place)."""
    mask = new_mask(patch.alpha.shape)
    r = max(0.0, min(radius, (x1 - x0) / 2, (y1 - y0) / 2))
    pts = []
    for cx, cy, a0 in ((x1 - r, y0 + r, -90), (x1 - r, y1 - r, 0), (x0 + r, y1 - r, 90),
                       (x0 + r, y0 + r, 180)):
        for a in np.deg2rad(np.linspace(a0, a0 + 90, 6)):
            pts.append((cx + r * np.cos(a), cy + r * np.sin(a)))
    poly = np.round(np.array(pts) * 16).astype(np.int32)
    cv2.fillPoly(mask, [poly], 255, cv2.LINE_AA, shift=4)
    fill(patch, mask, bgr, alpha)


def disc(patch: Patch, cx: float, cy: float, r: float, bgr: tuple[float, ...],
         alpha: float = 1.0) -> None:
    """Fill an anti-aliased disc into ``patch`` (in place)."""
    mask = new_mask(patch.alpha.shape)
    cv2.circle(mask, (int(cx * 16), int(cy * 16)), max(1, int(r * 16)), 255, -1, cv2.LINE_AA,
               shift=4)
    fill(patch, mask, bgr, alpha)


def fill(patch: Patch, mask: np.ndarray, bgr: tuple[float, ...] | np.ndarray,
         alpha: float = 1.0) -> None:
    """Paint ``bgr`` (a colour or an (h, w, 3) image) over ``patch`` where ``mask`` (uint8
    0..255 or float 0..1) covers it, times ``alpha``; the patch's coverage grows to hold it.
    Only the mask's bounding box is touched (most shapes are small on their patch)."""
    rows, cols = np.flatnonzero(mask.any(axis=1)), np.flatnonzero(mask.any(axis=0))
    if len(rows) == 0:
        return
    sl = np.s_[rows[0]:rows[-1] + 1, cols[0]:cols[-1] + 1]
    m = cover(mask[sl]) * alpha
    colour = np.asarray(bgr, np.float32)
    if colour.ndim == 3:
        colour = colour[sl]
    patch.bgr[sl] += (colour - patch.bgr[sl]) * m[..., None]
    np.maximum(patch.alpha[sl], m, out=patch.alpha[sl])


def glyph(patch: Patch, text: str, cx: float, cy: float, height: float,
          bgr: tuple[float, ...], alpha: float = 1.0, angle_deg: float = 0.0) -> None:
    """Print ``text`` centred at (cx, cy), caps ``height`` px tall, over the patch's body
    (it does not widen the coverage: ink is on a face, not beside it)."""
    h, w = patch.alpha.shape
    scale = max(0.15, height / 22.0)
    thick = max(1, int(round(scale * 2.2)))
    (tw, th), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, scale, thick)
    mask: np.ndarray = np.zeros((h, w), np.uint8)
    cv2.putText(mask, text, (int(cx - tw / 2), int(cy + th / 2)), cv2.FONT_HERSHEY_SIMPLEX,
                scale, 255, thick, cv2.LINE_AA)
    if angle_deg:
        m = cv2.getRotationMatrix2D((cx, cy), angle_deg, 1.0)
        mask = cv2.warpAffine(mask, m, (w, h))
    a = (mask.astype(np.float32) / 255.0 * alpha)[..., None]
    patch.bgr[:] = patch.bgr * (1 - a) + np.asarray(bgr, np.float32) * a


def lit(patch: Patch, angle_deg: float, strength: float = 0.25) -> None:
    """A linear light gradient across the patch (a curved or slanted top under a lamp)."""
    h, w = patch.alpha.shape
    y, x = np.mgrid[0:h, 0:w].astype(np.float32)
    a = np.deg2rad(angle_deg)
    ramp = ((x - w / 2) * float(np.cos(a)) + (y - h / 2) * float(np.sin(a))) / max(h, w)
    patch.bgr[:] *= (1 + 2 * strength * ramp)[..., None]


def rounded(patch: Patch, mask: np.ndarray, radius_px: float, depth: float = 0.4) -> None:
    """Darken a patch towards the edges of ``mask``, over ``radius_px``: a finger, a shoe or
    a leg is round, and its rim turns away from the light."""
    m = (mask > 0.5).astype(np.uint8)
    dist = cv2.distanceTransform(m, cv2.DIST_L2, 3)
    k = 1 - depth * (1 - np.clip(dist / max(radius_px, 1.0), 0, 1)) ** 2
    patch.bgr[:] *= np.where(m > 0, k, 1.0).astype(np.float32)[..., None]
