"""Polyhedral dice (:mod:`vision.synth.polyhedra`) laid among a wild scene's d6.

Players' tables hold RPG dice beside their d6: heaped round them, or scattered. Each solid
gets a body of the colours real RPG sets come in (opaque, translucent, metal, pearl) with
numerals in a colour that stands out, a size about a d6's, and a place on the part of the
surface dice may lie on, touching neither a die nor another solid.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

import numpy as np

from vision.synth.polyhedra import PolySpec

logger = logging.getLogger(__name__)

#: How often each kind comes, out of one: d20s are the commonest, numeral cubes rarer.
KIND_WEIGHTS = {"d4": 0.14, "d6n": 0.14, "d8": 0.16, "d10": 0.2, "d12": 0.12, "d20": 0.24}
STYLE_WEIGHTS = {"opaque": 0.35, "translucent": 0.35, "metal": 0.12, "pearl": 0.18}
#: Bodies (BGR) of RPG sets: saturated plastics, black and white, gem tints.
BODIES = ((40, 40, 190), (30, 25, 140), (170, 80, 30), (120, 40, 10), (40, 190, 225),
          (20, 150, 230), (60, 150, 40), (40, 100, 20), (130, 40, 110), (90, 20, 70),
          (30, 30, 32), (225, 225, 225), (150, 150, 40), (30, 110, 230), (170, 170, 60),
          (200, 200, 120))
METALS = ((60, 160, 205), (185, 185, 190), (70, 70, 75), (60, 100, 175), (80, 120, 150))
INKS = ((235, 235, 235), (60, 180, 225), (25, 25, 25), (40, 40, 200), (40, 150, 190))


def _pick(rng: np.random.Generator, weights: dict[str, float]) -> str:
    names = list(weights)
    p = np.array([weights[n] for n in names])
    return names[int(rng.choice(len(names), p=p / p.sum()))]


def _contrast(body: tuple[float, ...], rng: np.random.Generator) -> tuple[float, float, float]:
    """An ink that reads against ``body`` (real numerals are printed to be read)."""
    for _ in range(8):
        ink = INKS[int(rng.integers(len(INKS)))]
        if abs(sum(ink) - sum(body)) >= 180:
            return (float(ink[0]), float(ink[1]), float(ink[2]))
    return (25.0, 25.0, 25.0) if sum(body) > 380 else (235.0, 235.0, 235.0)


def solid_look(rng: np.random.Generator) -> dict:
    """Body, ink, style, opacity and font of one solid (PolySpec's fields)."""
    style = _pick(rng, STYLE_WEIGHTS)
    if style == "metal":
        body = METALS[int(rng.integers(len(METALS)))]
    elif style == "pearl":
        body = ((232, 228, 240), (200, 220, 235), (170, 200, 230))[int(rng.integers(3))]
    else:
        body = BODIES[int(rng.integers(len(BODIES)))]
    jitter = rng.uniform(0.85, 1.15, 3)
    body_bgr = tuple(float(np.clip(c * j, 0, 255)) for c, j in zip(body, jitter, strict=True))
    return {"body_bgr": body_bgr, "ink_bgr": _contrast(body_bgr, rng), "style": style,
            "alpha": float(rng.uniform(0.45, 0.8)) if style == "translucent" else 1.0,
            "font": int(rng.integers(4))}


def place_solids(rng: np.random.Generator, n: int, dice_mm: np.ndarray, dice_size: np.ndarray,
                 random_point: Callable[[], np.ndarray], fits: Callable[[np.ndarray], bool]
                 ) -> tuple[PolySpec, ...]:
    """Up to ``n`` solids: heaped round the dice (centres ``dice_mm`` (N, 2) in mm, edges
    ``dice_size`` (N,)) or at ``random_point()``s (table mm in view), kept where ``fits(p)``
    (in view, on the surface dice lie on); none touches a die or another solid."""
    ref = float(np.median(dice_size)) if len(dice_size) else 16.0
    taken = [(np.asarray(p, float), 0.75 * s) for p, s in zip(dice_mm, dice_size, strict=True)]
    heap = len(dice_mm) > 0 and rng.random() < 0.6
    out: list[PolySpec] = []
    for _ in range(n * 30):
        if len(out) >= n:
            break
        kind = _pick(rng, KIND_WEIGHTS)
        across = ref * (np.sqrt(3) * rng.uniform(0.9, 1.1) if kind == "d6n"
                        else rng.uniform(1.1, 1.6))
        r = across / 2
        if heap and rng.random() < 0.8:
            c, cr = taken[int(rng.integers(len(taken)))]
            ang = rng.uniform(0, 2 * np.pi)
            p = c + (cr + r) * rng.uniform(1.02, 1.5) * np.array([np.cos(ang), np.sin(ang)])
        else:
            p = random_point()
        if not fits(p):
            continue
        if any(np.linalg.norm(p - q) < (qr + r) * 1.02 for q, qr in taken):
            continue
        taken.append((p, r))
        out.append(PolySpec(kind=kind, x_mm=float(p[0]), y_mm=float(p[1]), size_mm=float(across),
                            yaw_deg=float(rng.uniform(0, 360)), down=int(rng.integers(20)),
                            seed=int(rng.integers(1 << 30)), **solid_look(rng)))
    return tuple(out)
