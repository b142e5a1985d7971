"""Things that come in from the frame's edge: hands, feet (shoes or socks with the leg) and
furniture legs. Webcam views of a floor have chair legs and feet at their edges, and a
player's hand is often half in the picture.

Each is ``draw(img, at, inward, stage, rng) -> (N, 4) boxes``: ``at`` is a point of the
frame's edge in ``img``'s pixels and ``inward`` the unit vector into the frame there.
"""

from __future__ import annotations

import logging

import cv2
import numpy as np

from vision.synth.lookalike_stamp import (
    Stage,
    blank_patch,
    cover,
    detail,
    fill,
    lit,
    new_mask,
    rounded,
    stamp,
    touches,
)

logger = logging.getLogger(__name__)

_SKIN = ((150, 180, 225), (125, 155, 205), (95, 125, 175), (65, 90, 130), (45, 62, 92))
_CLOTH = ((30, 30, 32), (60, 60, 65), (90, 50, 30), (45, 55, 70), (140, 140, 145),
          (35, 40, 110))


def _pick(table, rng: np.random.Generator) -> tuple[float, float, float]:
    c = np.clip(np.asarray(table[int(rng.integers(len(table)))], np.float32)
                + rng.normal(0, 8, 3), 0, 255)
    return float(c[0]), float(c[1]), float(c[2])


def _angle(inward: np.ndarray) -> float:
    """Rotation (degrees, getRotationMatrix2D's sense) turning a patch's up (-y) to
    ``inward``."""
    return float(np.degrees(np.arctan2(inward[0], -inward[1])) * -1)


def _capsule(mask: np.ndarray, a: np.ndarray, b: np.ndarray, r: float) -> None:
    cv2.line(mask, tuple(np.round(a * 16).astype(int)), tuple(np.round(b * 16).astype(int)),
             255, max(1, int(2 * r)), cv2.LINE_AA, shift=4)


def _box(b: np.ndarray | None) -> np.ndarray:
    return (np.zeros((0, 4)) if b is None else b[None]).astype(np.float64)


def hand(img: np.ndarray, at: tuple[float, float], inward: np.ndarray, stage: Stage,
         rng: np.random.Generator) -> np.ndarray:
    """A hand reaching in from the edge, fingers first, its forearm out of the frame."""
    palm_mm, finger_mm, arm_mm = rng.uniform(75, 95), rng.uniform(55, 80), 60.0
    zoom, s = detail(finger_mm + palm_mm + arm_mm, stage.mm_per_px, 256)
    palm_w, finger = palm_mm / s, finger_mm / s
    w, h = int(palm_w * 1.6), int((finger_mm + palm_mm + arm_mm) / s)
    p = blank_patch(w, h)
    skin = _pick(_SKIN, rng)
    sleeve = _pick(_CLOTH, rng) if rng.random() < 0.6 else skin
    mask = new_mask((h, w))
    cx, top = w / 2, finger * 0.05
    base = top + finger
    spread = rng.uniform(0.0, 0.25)
    for k, frac in enumerate((0.9, 1.0, 0.95, 0.75)):  # index to little finger
        x = cx + (k - 1.5) * palm_w * 0.24
        tip = np.array([x + (k - 1.5) * finger * spread, base - finger * frac])
        _capsule(mask, np.array([x, base]), tip, palm_w * 0.105)
    cv2.ellipse(mask, ((float(cx), float(base + palm_w * 0.45)),
                       (float(palm_w), float(palm_w * 1.1)), 0), 255, -1, cv2.LINE_AA)
    thumb_side = 1 if rng.random() < 0.5 else -1
    _capsule(mask, np.array([cx + thumb_side * palm_w * 0.45, base + palm_w * 0.6]),
             np.array([cx + thumb_side * palm_w * 0.75, base + palm_w * 0.05]), palm_w * 0.12)
    fill(p, mask, skin)
    rounded(p, mask, palm_w * 0.1, 0.45)
    sleeve_mask = new_mask((h, w))
    cv2.rectangle(sleeve_mask, (int(cx - palm_w * 0.55), int(base + palm_w * 0.8)),
                  (int(cx + palm_w * 0.55), h), 255, -1)
    fill(p, sleeve_mask, sleeve)
    lit(p, rng.uniform(0, 360), 0.2)
    reach = rng.uniform(20, 90) / stage.mm_per_px  # how far the fingertips come in
    centre = np.asarray(at) + inward * (reach + (top - h / 2) * zoom)
    return _box(stamp(img, p, tuple(centre), stage, angle_deg=_angle(inward),
                      height_mm=rng.uniform(15, 40),
                      side_bgr=(skin[0] * 0.6, skin[1] * 0.6, skin[2] * 0.6),
                      zoom=zoom))


def foot(img: np.ndarray, at: tuple[float, float], inward: np.ndarray, stage: Stage,
         rng: np.random.Generator) -> np.ndarray:
    """A shoe or a socked foot at the edge, toes in, the leg running out of the frame."""
    length_mm, width_mm, leg_mm = rng.uniform(240, 300), rng.uniform(90, 115), 80.0
    zoom, s = detail(length_mm + leg_mm, stage.mm_per_px, 256)
    length, width = length_mm / s, width_mm / s
    w, h = int(width * 1.2), int((length_mm + leg_mm) / s)
    p = blank_patch(w, h)
    shoe = _pick(_CLOTH, rng)
    mask = new_mask((h, w))
    # Toe box and heel: two ellipses; the leg's tube behind.
    cv2.ellipse(mask, ((w / 2, length * 0.28), (width * 0.95, length * 0.56), 0), 255, -1,
                cv2.LINE_AA)
    cv2.ellipse(mask, ((w / 2, length * 0.72), (width * 0.8, length * 0.56), 0), 255, -1,
                cv2.LINE_AA)
    fill(p, mask, shoe)
    rounded(p, mask, width * 0.35, 0.5)
    if rng.random() < 0.5:  # a sock's pattern: bands across the foot
        y = np.arange(h, dtype=np.float32)[:, None] * np.ones((1, w), np.float32)
        band = ((y / max(2.0, rng.uniform(6, 20) / s)) % 2 < 1).astype(np.float32)
        fill(p, band * cover(mask) * (y < length * 0.8) * 0.6, _pick(_CLOTH, rng))
    trouser = new_mask((h, w))
    cv2.ellipse(trouser, ((w / 2, length * 0.82), (width * 0.9, width * 0.7), 0), 255, -1,
                cv2.LINE_AA)
    cv2.rectangle(trouser, (int(w / 2 - width * 0.45), int(length * 0.82)),
                  (int(w / 2 + width * 0.45), h), 255, -1)
    fill(p, trouser, _pick(_CLOTH, rng))
    rounded(p, trouser, width * 0.3, 0.4)
    lit(p, rng.uniform(0, 360), 0.2)
    reach = rng.uniform(40, 160) / stage.mm_per_px
    centre = np.asarray(at) + inward * (reach - h / 2 * zoom)
    return _box(stamp(img, p, tuple(centre), stage, angle_deg=_angle(inward),
                      height_mm=rng.uniform(60, 100),
                      side_bgr=(shoe[0] * 0.5, shoe[1] * 0.5, shoe[2] * 0.5),
                      zoom=zoom))


def furniture_leg(img: np.ndarray, at: tuple[float, float], inward: np.ndarray,
                  stage: Stage, rng: np.random.Generator) -> np.ndarray:
    """A chair or table leg standing near the edge: seen in perspective it runs away from
    the point under the camera, widening, with a cylinder's light across it."""
    s = stage.mm_per_px
    base = np.asarray(at, np.float64) + inward * rng.uniform(15, 120) / s
    radial = base - np.asarray(stage.foot_px)
    radial /= max(float(np.linalg.norm(radial)), 1e-6)
    if radial @ inward > -0.2:  # it would cross the frame: let it lean out instead
        radial = -inward
    width = rng.uniform(25, 60) / s
    z = min(rng.uniform(400, 800) / s, 0.7 * stage.eye_px)
    grow = stage.eye_px / (stage.eye_px - z)
    tip = base + radial * float(np.linalg.norm(base - stage.foot_px)) * (grow - 1) + \
        radial * 200 / s
    perp = np.array([-radial[1], radial[0]])
    quad = np.array([base - perp * width / 2, base + perp * width / 2,
                     tip + perp * width * grow / 2, tip - perp * width * grow / 2])
    x0, y0 = np.floor(quad.min(axis=0)).astype(int)
    x1, y1 = np.ceil(quad.max(axis=0)).astype(int)
    ih, iw = img.shape[:2]
    x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, iw), min(y1, ih)
    if x1 - x0 < 2 or y1 - y0 < 2:
        return np.zeros((0, 4))
    wood = _pick(_CLOTH[:4] + ((40, 70, 110), (180, 180, 185)), rng)
    shadow = new_mask((y1 - y0, x1 - x0))
    lamp = np.asarray(stage.to_lamp) * z * 0.5
    cv2.fillPoly(shadow, [np.round((np.array([quad[0], quad[1], quad[1] + lamp,
                                              quad[0] + lamp]) - [x0, y0]) * 16).astype(
        np.int32)], 255, cv2.LINE_AA, shift=4)
    roi = img[y0:y1, x0:x1].astype(np.float32)
    roi *= (1 - stage.shadow * cv2.GaussianBlur(cover(shadow), (0, 0), 2 + width * 0.1))[
        ..., None]
    leg_mask = new_mask(shadow.shape)
    cv2.fillPoly(leg_mask, [np.round((quad - [x0, y0]) * 16).astype(np.int32)], 255,
                 cv2.LINE_AA, shift=4)
    leg = cover(leg_mask)
    if touches(leg > 0.25, stage.keep_out, np.array([x0, y0], np.float64)):
        return np.zeros((0, 4))
    yy, xx = np.mgrid[y0:y1, x0:x1].astype(np.float32)
    across = ((xx - base[0]) * perp[0] + (yy - base[1]) * perp[1]) / np.maximum(
        1.0, width / 2 * (1 + ((xx - base[0]) * radial[0] + (yy - base[1]) * radial[1]) /
                          max(1.0, float(np.linalg.norm(tip - base))) * (grow - 1)))
    light = (0.75 + 0.35 * np.clip(across, -1, 1) * rng.choice([-1, 1]))[..., None]
    roi += (np.asarray(wood, np.float32) * light - roi) * leg[..., None]
    img[y0:y1, x0:x1] = np.clip(roi, 0, 255).astype(np.uint8)
    ys, xs = np.nonzero(leg > 0.25)
    if len(xs) == 0:
        return np.zeros((0, 4))
    return np.array([[xs.min() + x0, ys.min() + y0, xs.max() + x0 + 1, ys.max() + y0 + 1]],
                    np.float64)
