"""Dice trays and bowls: a raised rim, shaded, around a floor of another colour, with the
rim's shadow on the floor and on the table outside.

Each function is ``kind(h, w, mm_per_px, rng) -> (h, w, 3) uint8 BGR``, registered in
:mod:`vision.synth.surfaces`. The floor is centred and spans :data:`TRAY_FLOOR` of the image's
half-extent in each direction, so a scene can keep its dice on it. Blue dice in a white
tray and in a dark wooden bowl are among the real tables the reader missed.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

import numpy as np

from vision.synth.surface_noise import (
    BGR,
    axes_px,
    jitter_colour,
    smooth,
    smoothstep,
)
from vision.synth.surfaces_cloth import felt
from vision.synth.surfaces_hard import paper, wood

logger = logging.getLogger(__name__)

TRAY_FLOOR = 0.72
"""Half-extent of a tray's or bowl's floor as a share of the surface's half-extent."""

Draw = Callable[[int, int, float, np.random.Generator], np.ndarray]


def _white_plastic(h: int, w: int, mm_per_px: float, rng: np.random.Generator) -> np.ndarray:
    return paper(h, w, mm_per_px, rng)


def _dark_wood(h: int, w: int, mm_per_px: float, rng: np.random.Generator) -> np.ndarray:
    return (wood(h, w, mm_per_px, rng).astype(np.float32) * rng.uniform(0.35, 0.7)).astype(
        np.uint8)


_FLOORS: tuple[Draw, ...] = (_white_plastic, felt, _dark_wood, wood)
_OUTSIDE: tuple[Draw, ...] = (wood, felt, paper, _dark_wood)


def _rounded_rect_sdf(h: int, w: int, half: tuple[float, float], radius: float
                      ) -> np.ndarray:
    """Signed distance in px to a centred rounded rectangle (negative inside)."""
    y, x = axes_px(h, w)
    qx = np.abs(x - w / 2) - (half[0] - radius)
    qy = np.abs(y - h / 2) - (half[1] - radius)
    outside = np.sqrt(np.maximum(qx, 0) ** 2 + np.maximum(qy, 0) ** 2)
    return outside + np.minimum(np.maximum(qx, qy), 0) - radius


def _circle_sdf(h: int, w: int, radius: float, shift: tuple[float, float] = (0.0, 0.0)
                ) -> np.ndarray:
    y, x = axes_px(h, w)
    return np.sqrt((x - w / 2 + shift[0]) ** 2 + (y - h / 2 + shift[1]) ** 2) - radius


def _light(rng: np.random.Generator) -> tuple[float, float]:
    """Unit 2-vector, in the image, pointing towards the lamp (plain floats: a numpy
    float64 scalar would turn every float32 field it touches into float64)."""
    a = rng.uniform(0, 2 * np.pi)
    return float(np.cos(a)), float(np.sin(a))


def _compose(floor: np.ndarray, rim: np.ndarray, outside: np.ndarray, floor_mask: np.ndarray,
             rim_mask: np.ndarray, gain: np.ndarray) -> np.ndarray:
    """Floor, rim and table blended by their masks, times a light gain (shadows, walls)."""
    out = outside.astype(np.float32)
    out += (rim.astype(np.float32) - out) * rim_mask[..., None]
    out += (floor.astype(np.float32) - out) * floor_mask[..., None]
    out *= gain[..., None]
    return np.clip(out, 0, 255).astype(np.uint8)


def _rim_colour(rng: np.random.Generator) -> BGR:
    return jitter_colour([(60, 60, 62), (150, 150, 150), (30, 30, 32), (40, 70, 110),
                          (225, 225, 225)][int(rng.integers(5))], rng, 8)


def tray(h: int, w: int, mm_per_px: float, rng: np.random.Generator) -> np.ndarray:
    """A rectangular dice tray: floor, raised rim lit on one side, shadows inside and out."""
    half = (TRAY_FLOOR * w / 2, TRAY_FLOOR * h / 2)
    rim_w = rng.uniform(6, 25) / mm_per_px
    wall_h = rng.uniform(10, 40) / mm_per_px  # height of the rim above the floor
    radius = min(half) * rng.uniform(0.02, 0.3)
    inner = _rounded_rect_sdf(h, w, half, radius)
    outer = inner - rim_w
    lamp = _light(rng)
    reach = wall_h * rng.uniform(0.2, 1.0)  # shadow length: the lamp's elevation
    sx, sy = float(lamp[0] * reach), float(lamp[1] * reach)
    # A floor point is shaded if, walking towards the lamp, it meets the rim.
    shade_in = _rounded_rect_sdf(h, w, (half[0] - abs(sx), half[1] - abs(sy)), radius)
    shade_in = np.roll(shade_in, (int(-sy / 2), int(-sx / 2)), (0, 1))
    floor_mask = smoothstep(0.7, -0.7, inner)
    rim_mask = smoothstep(0.7, -0.7, outer)
    gain = 1 - rng.uniform(0.25, 0.55) * smoothstep(-2, 3, shade_in) * floor_mask
    wall = smoothstep(-1, 1, inner) * smoothstep(wall_h * 0.25 + 1, wall_h * 0.25 - 1, inner)
    tilt = np.sign(np.roll(inner, 1, 1) - inner) * -lamp[0] + np.sign(
        np.roll(inner, 1, 0) - inner) * -lamp[1]
    gain = gain * (1 + 0.3 * wall * tilt)  # inner walls facing the lamp are lit
    outside_shadow = smoothstep(wall_h * 0.3, 0, np.roll(outer, (int(sy), int(sx)), (0, 1)))
    gain = gain * (1 - 0.35 * outside_shadow * (1 - rim_mask))
    rim = np.full((h, w, 3), _rim_colour(rng), np.float32)
    rim *= (1 + 0.05 * smooth(h, w, 30 / mm_per_px, rng))[..., None]
    floor = _FLOORS[int(rng.integers(len(_FLOORS)))](h, w, mm_per_px, rng)
    table = _OUTSIDE[int(rng.integers(len(_OUTSIDE)))](h, w, mm_per_px, rng)
    return _compose(floor, rim, table, floor_mask, rim_mask, gain)


def bowl(h: int, w: int, mm_per_px: float, rng: np.random.Generator) -> np.ndarray:
    """A round bowl (often dark wood): concave floor darker towards a sloping inner wall,
    a lit rim, the wall's shadow inside and the bowl's on the table."""
    radius = TRAY_FLOOR * min(h, w) / 2
    wall_w = radius * rng.uniform(0.12, 0.3)  # the sloping inner wall, seen from above
    rim_w = rng.uniform(4, 15) / mm_per_px
    lamp = _light(rng)
    d = _circle_sdf(h, w, radius)
    floor_mask = smoothstep(0.7, -0.7, d)
    rim_mask = smoothstep(0.7, -0.7, d - wall_w - rim_w)
    y, x = axes_px(h, w)
    r_norm = np.clip((d + radius) / radius, 0, 1)
    # Concave: the floor falls off towards the wall; the wall facing the lamp is lit.
    facing = -((x - w / 2) * lamp[0] + (y - h / 2) * lamp[1]) / np.maximum(d + radius, 1)
    in_wall = smoothstep(-wall_w, 0, d) * smoothstep(wall_w + 1, wall_w - 1, d)
    gain = (1 - 0.35 * r_norm ** 2) * (1 + 0.45 * in_wall * facing)
    reach = wall_w * rng.uniform(0.3, 1.2)
    shadow = smoothstep(-2, 4, _circle_sdf(h, w, radius + wall_w - reach * 0.5,
                                           (float(lamp[0] * reach), float(lamp[1] * reach))))
    gain *= 1 - 0.4 * shadow * smoothstep(0.7, -0.7, d - wall_w)
    outside = smoothstep(reach * 0.5, 0, _circle_sdf(h, w, radius + wall_w + rim_w, (
        float(-lamp[0] * reach), float(-lamp[1] * reach))))
    gain *= 1 - 0.35 * outside * (1 - rim_mask)
    lit_rim = smoothstep(-rim_w - 1, -rim_w, d - wall_w - rim_w) * (1 + 0.35 * facing)
    gain *= 1 + 0.15 * lit_rim * (1 - floor_mask)
    body = _dark_wood(h, w, mm_per_px, rng) if rng.random() < 0.6 else np.full(
        (h, w, 3), _rim_colour(rng), np.uint8)
    floor = body if rng.random() < 0.6 else _FLOORS[int(rng.integers(len(_FLOORS)))](
        h, w, mm_per_px, rng)
    table = _OUTSIDE[int(rng.integers(len(_OUTSIDE)))](h, w, mm_per_px, rng)
    body_light = (body.astype(np.float32) * 1.15).clip(0, 255).astype(np.uint8)
    return _compose(floor, body_light, table, floor_mask, rim_mask, gain.astype(np.float32))
