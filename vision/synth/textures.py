"""Flat textures for the renderer: die faces (pips or a symbol) and table backgrounds.

Textures are float32 in [0, 1]; die faces carry an alpha channel (rounded corners are
transparent, translucent bodies are partly so). Everything takes a numpy Generator so a
scene is reproducible from its seed.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

import cv2
import numpy as np

logger = logging.getLogger(__name__)

FACE_TEXTURE_PX = 64

#: Pip centres on a unit face for each value (the usual Western layout).
PIP_LAYOUT: dict[int, tuple[tuple[float, float], ...]] = {
    1: ((0.5, 0.5),),
    2: ((0.27, 0.27), (0.73, 0.73)),
    3: ((0.27, 0.27), (0.5, 0.5), (0.73, 0.73)),
    4: ((0.27, 0.27), (0.73, 0.27), (0.27, 0.73), (0.73, 0.73)),
    5: ((0.27, 0.27), (0.73, 0.27), (0.5, 0.5), (0.27, 0.73), (0.73, 0.73)),
    6: ((0.27, 0.25), (0.73, 0.25), (0.27, 0.5), (0.73, 0.5), (0.27, 0.75), (0.73, 0.75)),
}
SYMBOLS = ("star", "ring", "skull", "triangle", "cross", "letter", "swirl", "shield")


@dataclass(frozen=True, slots=True)
class DieLook:
    """How one die looks, independent of where it lies."""

    body_bgr: tuple[float, float, float]
    """Body colour, BGR in [0, 255]."""
    pip_bgr: tuple[float, float, float]
    """Pip (and symbol) colour, BGR in [0, 255]."""
    style: str = "opaque"
    """"opaque", "translucent", "marbled" or "smoky" (translucent with dark veins)."""
    second_bgr: tuple[float, float, float] = (255.0, 255.0, 255.0)
    """Vein colour of a marbled body."""
    pip_scale: float = 1.0
    """Pip radius relative to the usual size."""
    corner: float = 0.16
    """Corner rounding radius as a fraction of the face."""
    symbol_face: int = 0
    """Face value (1 or 6) that shows a symbol instead of pips; 0 for none."""
    symbol: str = "star"
    """Which symbol (one of SYMBOLS)."""
    pattern_seed: int = 0
    """Seed of the marbling pattern."""
    gloss: float = 0.0
    """Strength of the lamp's reflection (0: matte): a glint on the face, light bevels and
    a light crescent in each engraved pip (``add_gloss``)."""
    see_through: float = 0.0
    """Opacity of the far face's pips seen through a translucent or smoky body (0: none)."""


def _symbol(img: np.ndarray, kind: str, colour: tuple[float, ...], rng: np.random.Generator
            ) -> None:
    t = img.shape[0]
    c = (t // 2, t // 2)
    r = int(t * rng.uniform(0.26, 0.36))
    col = tuple(float(x) for x in colour)
    th = max(2, t // 16)
    if kind == "star":
        ang = np.linspace(0, 2 * np.pi, 11)[:-1] + rng.uniform(0, 1)
        rad = np.where(np.arange(10) % 2 == 0, r, r * 0.45)
        pts = np.stack([c[0] + rad * np.cos(ang), c[1] + rad * np.sin(ang)], 1).astype(np.int32)
        cv2.fillPoly(img, [pts], col, cv2.LINE_AA)
    elif kind == "ring":
        cv2.circle(img, c, r, col, th + 2, cv2.LINE_AA)
        cv2.circle(img, c, r // 3, col, -1, cv2.LINE_AA)
    elif kind == "skull":
        cv2.circle(img, (c[0], c[1] - r // 5), int(r * 0.8), col, -1, cv2.LINE_AA)
        cv2.rectangle(img, (c[0] - r // 2, c[1] + r // 3), (c[0] + r // 2, c[1] + r), col, -1)
        eye = tuple(float(255 - x) for x in colour)
        for dx in (-r // 3, r // 3):
            cv2.circle(img, (c[0] + dx, c[1] - r // 5), max(2, r // 4), eye, -1, cv2.LINE_AA)
    elif kind == "triangle":
        pts = np.array([[c[0], c[1] - r], [c[0] - r, c[1] + r * 3 // 4],
                        [c[0] + r, c[1] + r * 3 // 4]], np.int32)
        cv2.polylines(img, [pts], True, col, th, cv2.LINE_AA)
    elif kind == "cross":
        cv2.line(img, (c[0] - r, c[1] - r), (c[0] + r, c[1] + r), col, th + 1, cv2.LINE_AA)
        cv2.line(img, (c[0] - r, c[1] + r), (c[0] + r, c[1] - r), col, th + 1, cv2.LINE_AA)
    elif kind == "letter":
        ch = "ABDEGHKMRSWXZ"[int(rng.integers(13))]
        scale = t / 40
        _text(img, ch, (c[0] - int(11 * scale), c[1] + int(11 * scale)), scale, col, th)
    elif kind == "swirl":
        a = np.linspace(0, 4 * np.pi, 60)
        pts = np.stack([c[0] + a / (4 * np.pi) * r * np.cos(a),
                        c[1] + a / (4 * np.pi) * r * np.sin(a)], 1).astype(np.int32)
        cv2.polylines(img, [pts], False, col, th, cv2.LINE_AA)
    else:  # shield
        pts = np.array([[c[0] - r, c[1] - r], [c[0] + r, c[1] - r], [c[0] + r, c[1]],
                        [c[0], c[1] + r], [c[0] - r, c[1]]], np.int32)
        cv2.fillPoly(img, [pts], col, cv2.LINE_AA)


def _text(img: np.ndarray, text: str, org: tuple[int, int], scale: float,
          colour: tuple[float, ...], thickness: int) -> None:
    # putText only draws on 8-bit images: draw a mask, then blend into the float image.
    mask = np.zeros(img.shape[:2], np.uint8)
    cv2.putText(mask, text, org, cv2.FONT_HERSHEY_SIMPLEX, scale, 255, thickness, cv2.LINE_AA)
    a = (mask.astype(np.float32) / 255.0)
    if img.ndim == 3:
        img *= 1 - a[..., None]
        img += a[..., None] * np.asarray(colour, np.float32)[: img.shape[2]]
    else:
        img *= 1 - a
        img += a * colour[0]


def _marble(t: int, rng: np.random.Generator) -> np.ndarray:
    """A vein pattern in [0, 1]: sine of a coordinate plus smooth noise (turbulence)."""
    noise = cv2.resize(rng.standard_normal((6, 6)).astype(np.float32), (t, t),
                       interpolation=cv2.INTER_CUBIC)
    y, x = np.mgrid[0:t, 0:t].astype(np.float32) / t
    ang = rng.uniform(0, np.pi)
    phase = (x * np.cos(ang) + y * np.sin(ang)) * rng.uniform(4, 12) + noise * 3
    return (0.5 + 0.5 * np.sin(phase)) ** rng.uniform(2, 5)


def face_texture(value: int, look: DieLook, rng: np.random.Generator,
                 size: int = FACE_TEXTURE_PX) -> np.ndarray:
    """(size, size, 4) float32 BGRA texture of one face of a die."""
    t = size
    body = np.empty((t, t, 3), np.float32)
    body[:] = look.body_bgr
    if look.style in ("marbled", "smoky"):
        vein = _marble(t, np.random.default_rng(look.pattern_seed * 7 + value))
        if look.style == "smoky":
            vein = cv2.GaussianBlur(vein, (0, 0), t * 0.05) ** 0.7  # cloudy, not veined
        vein = vein[..., None]
        body = body * (1 - vein) + np.asarray(look.second_bgr, np.float32) * vein
    if look.see_through > 0:
        body = _ghost_pips(body, 7 - value, look, t)
    # Slightly darker bevel towards the edges: real dice are rounded there.
    y, x = np.mgrid[0:t, 0:t].astype(np.float32) / (t - 1)
    edge = np.minimum(np.minimum(x, 1 - x), np.minimum(y, 1 - y))
    body *= (0.8 + 0.2 * np.clip(edge / 0.12, 0, 1))[..., None]
    alpha = np.full((t, t), 0.62 if look.style in ("translucent", "smoky") else 0.95, np.float32)
    pips = np.zeros((t, t), np.float32)
    if value == look.symbol_face:
        _symbol(pips, look.symbol, (1.0,), rng)
    else:
        r = t * 0.085 * look.pip_scale * (1.25 if value == 1 else 1.0)
        for px, py in PIP_LAYOUT[value]:
            cv2.circle(pips, (int(px * t * 16), int(py * t * 16)), int(r * 16), 1.0, -1,
                       cv2.LINE_AA, shift=4)
    pips = pips[..., None]
    rgb = body * (1 - pips) + np.asarray(look.pip_bgr, np.float32) * pips
    if look.gloss > 0 and value != look.symbol_face:
        rgb = _pip_crescents(rgb, value, look, t)
    alpha = np.maximum(alpha, pips[..., 0])
    # Rounded corners: outside the rounded square the face is transparent.
    rad = look.corner * t
    cx = np.clip(x * (t - 1), rad, t - 1 - rad)
    cy = np.clip(y * (t - 1), rad, t - 1 - rad)
    dist = np.hypot(x * (t - 1) - cx, y * (t - 1) - cy)
    alpha *= np.clip(rad - dist + 0.5, 0, 1)
    return np.dstack([rgb / 255.0, alpha]).astype(np.float32)


def _ghost_pips(body: np.ndarray, value: int, look: DieLook, t: int) -> np.ndarray:
    """The far face's pips seen through the body: mirrored, shifted (parallax), blurred."""
    rng = np.random.default_rng(look.pattern_seed * 11 + value)
    ghost: np.ndarray = np.zeros((t, t), np.float32)
    shift = rng.uniform(-0.15, 0.15, 2)
    r = t * 0.085 * look.pip_scale
    for px, py in PIP_LAYOUT[value]:
        cx, cy = (1 - px + shift[0]) * t, (py + shift[1]) * t
        cv2.circle(ghost, (int(cx * 16), int(cy * 16)), int(r * 16), 1.0, -1, cv2.LINE_AA,
                   shift=4)
    ghost = cv2.GaussianBlur(ghost, (0, 0), t * rng.uniform(0.02, 0.05))[..., None]
    tint = np.asarray(look.pip_bgr, np.float32) * 0.5 + body.mean(axis=(0, 1)) * 0.5
    a = ghost * look.see_through
    return body * (1 - a) + tint * a


def _pip_crescents(rgb: np.ndarray, value: int, look: DieLook, t: int) -> np.ndarray:
    """Engraved pips catch the light on one rim: a thin light crescent in each."""
    rng = np.random.default_rng(look.pattern_seed * 13 + value)
    ang = rng.uniform(0, 2 * np.pi)
    r = t * 0.085 * look.pip_scale * (1.25 if value == 1 else 1.0)
    d = np.array([np.cos(ang), np.sin(ang)]) * r * 0.45
    rim = np.zeros((t, t), np.float32)
    cut = np.zeros((t, t), np.float32)
    for px, py in PIP_LAYOUT[value]:
        c = np.array([px * t, py * t])
        cv2.circle(rim, tuple(int(v * 16) for v in c), int(r * 16), 1.0, -1, cv2.LINE_AA,
                   shift=4)
        cv2.circle(cut, tuple(int(v * 16) for v in c - d), int(r * 0.9 * 16), 1.0, -1,
                   cv2.LINE_AA, shift=4)
    a = (np.clip(rim - cut, 0, 1) * look.gloss * 0.7)[..., None]
    return rgb * (1 - a) + 255.0 * a


def add_gloss(tex: np.ndarray, strength: float, seed: int) -> None:
    """The lamp's reflection on a glossy face, in place on a (t, t, 4) BGRA texture in [0, 1].

    A soft streak somewhere on the face and a lit bevel along one or two edges; ``strength``
    (0..1) already holds how squarely the face mirrors the lamp towards the camera. The
    reflection hides what is under it, so it raises the alpha of a translucent face too.
    """
    if strength <= 0.01:
        return
    rng = np.random.default_rng(seed)
    t = tex.shape[0]
    y, x = np.mgrid[0:t, 0:t].astype(np.float32) / (t - 1)
    c = rng.uniform(0.15, 0.85, 2)
    ang = rng.uniform(0, np.pi)
    u = (x - c[0]) * np.cos(ang) + (y - c[1]) * np.sin(ang)
    v = -(x - c[0]) * np.sin(ang) + (y - c[1]) * np.cos(ang)
    long = rng.uniform(0.08, 0.35)
    thin = long * rng.uniform(0.1, 0.5)
    light = np.exp(-0.5 * ((u / long) ** 2 + (v / thin) ** 2)) * rng.uniform(0.6, 1.4)
    edge = (x, 1 - x, y, 1 - y)
    for k in rng.choice(4, int(rng.integers(1, 3)), replace=False):
        light = np.maximum(light, np.exp(-edge[k] / rng.uniform(0.03, 0.07))
                           * rng.uniform(0.3, 0.8))
    a = np.clip(light * strength, 0, 1)
    tex[..., :3] += (1 - tex[..., :3]) * a[..., None]
    tex[..., 3] = np.maximum(tex[..., 3], a * (tex[..., 3] > 0))


def _noise_field(h: int, w: int, cells: int, rng: np.random.Generator) -> np.ndarray:
    small = rng.standard_normal((max(2, cells * h // max(h, w)), max(2, cells * w // max(h, w))))
    return cv2.resize(small.astype(np.float32), (w, h), interpolation=cv2.INTER_CUBIC)


def background(h: int, w: int, rng: np.random.Generator) -> np.ndarray:
    """A random table surface with clutter, (h, w, 3) float32 BGR in [0, 1]."""
    kind = rng.choice(["plain", "plain", "felt", "wood", "cloth", "blotch", "tiles"])
    if rng.random() < 0.4:
        base = np.array([rng.uniform(0.7, 0.95)] * 3) + rng.uniform(-0.04, 0.04, 3)
    else:
        base = rng.uniform(0.05, 0.9, 3)
    img = np.empty((h, w, 3), np.float32)
    img[:] = base
    if kind == "felt":
        img *= 1 + 0.08 * rng.standard_normal((h, w, 1)).astype(np.float32)
    elif kind == "wood":
        ang = rng.uniform(0, np.pi)
        y, x = np.mgrid[0:h, 0:w].astype(np.float32)
        u = x * np.cos(ang) + y * np.sin(ang)
        grain = np.sin(u / rng.uniform(3, 15) + 4 * _noise_field(h, w, 5, rng))
        img *= (1 + 0.12 * grain)[..., None]
    elif kind == "cloth":
        y, x = np.mgrid[0:h, 0:w].astype(np.float32)
        p = rng.uniform(2, 5)
        img *= (1 + 0.06 * np.sin(x * np.pi / p) * np.sin(y * np.pi / p))[..., None]
    elif kind == "blotch":
        img *= (1 + 0.25 * _noise_field(h, w, 8, rng))[..., None]
    elif kind == "tiles":
        s = int(rng.integers(40, 200))
        y, x = np.mgrid[0:h, 0:w]
        img *= (1 - 0.15 * (((x // s) + (y // s)) % 2))[..., None].astype(np.float32)
    _clutter(img, rng)
    # Uneven light across the table.
    grad = 1 + rng.uniform(-0.25, 0.25) * np.linspace(-1, 1, w)[None, :] \
        + rng.uniform(-0.25, 0.25) * np.linspace(-1, 1, h)[:, None]
    img *= grad[..., None].astype(np.float32)
    return np.clip(img, 0, 1)


def _clutter(img: np.ndarray, rng: np.random.Generator) -> None:
    """Things on a table that are not dice: tray rims, cards, coins, pens, text, dots."""
    h, w = img.shape[:2]
    for _ in range(int(rng.integers(0, 7))):
        col = tuple(float(v) for v in rng.uniform(0, 1, 3))
        kind = rng.integers(7)
        x, y = int(rng.integers(0, w)), int(rng.integers(0, h))
        s = int(rng.uniform(0.03, 0.4) * min(h, w))
        if kind == 0:
            cv2.rectangle(img, (x, y), (x + s, y + int(s * rng.uniform(0.3, 2))), col,
                          int(rng.choice([-1, 3, 8, 15])))
        elif kind == 1:
            cv2.circle(img, (x, y), max(3, s // 4), col, -1, cv2.LINE_AA)
        elif kind == 2:
            x2, y2 = int(rng.integers(0, w)), int(rng.integers(0, h))
            cv2.line(img, (x, y), (x2, y2), col, int(rng.integers(1, 12)), cv2.LINE_AA)
        elif kind == 3:
            _text(img, "".join(rng.choice(list("ABC123xyz#"), 5)), (x, y),
                  float(rng.uniform(0.5, 2.5)), col, 2)
        elif kind == 4:
            # Loose dots, so that pips alone are not mistaken for dice.
            for _ in range(int(rng.integers(1, 6))):
                cv2.circle(img, (x + int(rng.integers(-30, 30)), y + int(rng.integers(-30, 30))),
                           int(rng.integers(2, 7)), col, -1, cv2.LINE_AA)
        elif kind == 5:
            pts = rng.integers(0, max(h, w), (int(rng.integers(3, 7)), 2)).astype(np.int32)
            cv2.fillPoly(img, [cv2.convexHull(pts)], col, cv2.LINE_AA)
        else:
            # A card or paper: a light rectangle, sometimes rotated.
            rect = ((x, y), (s, s * rng.uniform(0.5, 1.6)), rng.uniform(0, 90))
            box = cv2.boxPoints(rect).astype(np.int32)
            cv2.fillPoly(img, [box], col, cv2.LINE_AA)
