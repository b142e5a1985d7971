"""Drawing die faces of any catalogued type: pips, colour patches, pictograms, symbols and
Quarriors faces (icon, numbers, burst marks).

:func:`face_texture` returns a (size, size, 4) float32 BGRA texture in [0, 1] like
:func:`vision.synth.textures.face_texture`, so the same compositing code draws either. Faces are
drawn large and shrunk, so thin strokes and digits stay anti-aliased at crop size.
"""

from __future__ import annotations

import logging

import cv2
import numpy as np

from vision.faces.dietypes import DieType, Face, hex_bgr
from vision.synth.textures import PIP_LAYOUT

logger = logging.getLogger(__name__)

_DRAW_PX = 96
#: Pyramid pictogram heights as a fraction of the face (S, M, L keep the real 25:31:37 ratio).
_PICTO = {"S": 0.34, "M": 0.46, "L": 0.58}


def _poly(mask: np.ndarray, pts: list[tuple[float, float]], fill: bool = True,
          thick: int = 4) -> None:
    arr = (np.array(pts) * 16).astype(np.int32)
    if fill:
        cv2.fillPoly(mask, [arr], 255, cv2.LINE_AA, shift=4)
    else:
        cv2.polylines(mask, [arr], True, 255, thick, cv2.LINE_AA, shift=4)


def _text(mask: np.ndarray, text: str, cx: float, cy: float, height: float,
          thick: int = 4) -> None:
    """Centred text whose cap height is `height` px."""
    font = cv2.FONT_HERSHEY_DUPLEX
    (w, h), _ = cv2.getTextSize(text, font, 1.0, thick)
    scale = height / max(h, 1)
    (w, h), _ = cv2.getTextSize(text, font, scale, thick)
    cv2.putText(mask, text, (int(cx - w / 2), int(cy + h / 2)), font, scale, 255, thick,
                cv2.LINE_AA)


def _star(mask: np.ndarray, cx: float, cy: float, r: float, points: int = 5) -> None:
    ang = np.linspace(0, 2 * np.pi, 2 * points + 1)[:-1] - np.pi / 2
    rad = np.where(np.arange(2 * points) % 2 == 0, r, r * 0.45)
    _poly(mask, list(zip(cx + rad * np.cos(ang), cy + rad * np.sin(ang), strict=True)))


def _symbol(mask: np.ndarray, name: str, cx: float, cy: float, r: float) -> None:
    t = max(2, int(r / 8))
    if name == "atom":
        for a in (0, 60, 120):
            cv2.ellipse(mask, (int(cx), int(cy)), (int(r), int(r * 0.36)), a, 0, 360, 255, t,
                        cv2.LINE_AA)
        cv2.circle(mask, (int(cx), int(cy)), int(r * 0.18), 255, -1, cv2.LINE_AA)
    elif name == "star":
        _star(mask, cx, cy, r)
    elif name == "skull":
        cv2.circle(mask, (int(cx), int(cy - r * 0.2)), int(r * 0.75), 255, -1, cv2.LINE_AA)
        cv2.rectangle(mask, (int(cx - r * 0.45), int(cy + r * 0.3)),
                      (int(cx + r * 0.45), int(cy + r * 0.85)), 255, -1)
        for dx in (-0.3, 0.3):
            cv2.circle(mask, (int(cx + dx * r), int(cy - r * 0.2)), int(r * 0.22), 0, -1,
                       cv2.LINE_AA)
    elif name == "shield":
        _poly(mask, [(cx - r, cy - r), (cx + r, cy - r), (cx + r, cy), (cx, cy + r),
                     (cx - r, cy)])
        cv2.circle(mask, (int(cx), int(cy - r * 0.2)), int(r * 0.35), 0, -1, cv2.LINE_AA)
    elif name == "swirl":
        turn = np.linspace(0, 4 * np.pi, 80)
        pts = np.stack([cx + turn / (4 * np.pi) * r * np.cos(turn), cy + turn / (4 * np.pi) *
                        r * np.sin(turn)], 1)
        cv2.polylines(mask, [(pts * 16).astype(np.int32)], False, 255, t + 2, cv2.LINE_AA,
                      shift=4)
    elif name == "diamond":
        _poly(mask, [(cx, cy - r), (cx + r * 0.7, cy), (cx, cy + r), (cx - r * 0.7, cy)])
    elif name == "card":
        cv2.rectangle(mask, (int(cx - r * 0.6), int(cy - r)), (int(cx + r * 0.6), int(cy + r)),
                      255, t + 1, cv2.LINE_AA)
    elif name == "reroll":
        cv2.ellipse(mask, (int(cx), int(cy)), (int(r * 0.8), int(r * 0.8)), 0, 30, 330, 255,
                    t + 2, cv2.LINE_AA)
        _poly(mask, [(cx + r * 0.55, cy - r * 0.75), (cx + r * 1.05, cy - r * 0.2),
                     (cx + r * 0.35, cy - r * 0.1)])
    else:  # an unknown name still draws something distinct: its initial
        _text(mask, name[:1].upper(), cx, cy, r * 1.4)


def _quarriors(mask: np.ndarray, look: dict, s: int) -> None:
    icon = look["icon"]
    c = s / 2
    if icon == "quiddity":
        _symbol(mask, "diamond", s * 0.3, c, s * 0.26)
        _text(mask, str(look["quiddity"]), s * 0.66, c, s * 0.4)
    elif icon == "creature":
        lv = int(look.get("level", 1))
        # level dots and burst marks drawn large enough to count at crop size (~35 px a
        # face): the faces of one die often differ by one dot or one burst only
        for i in range(lv):
            cv2.circle(mask, (int(c + (i - (lv - 1) / 2) * s * 0.19), int(s * 0.2)),
                       int(s * 0.072), 255, -1, cv2.LINE_AA)
        a, d = look.get("attack"), look.get("defense")
        stats = "?/?" if a is None or d is None else f"{a}/{d}"
        _text(mask, stats, c, s * 0.53, s * 0.3, thick=5)
    elif icon == "spell":
        _symbol(mask, "swirl", c, c, s * 0.3)
    elif icon == "draw":
        _symbol(mask, "card", s * 0.3, c, s * 0.24)
        _text(mask, str(look["draw"]), s * 0.66, c, s * 0.4)
    elif icon == "reroll":
        _symbol(mask, "reroll", c, c, s * 0.3)
    elif icon == "quiddity_and_draw":
        _symbol(mask, "diamond", s * 0.3, s * 0.33, s * 0.17)
        _symbol(mask, "card", s * 0.7, s * 0.62, s * 0.17)
        _text(mask, "+", c, c, s * 0.14)
    elif icon == "reroll_and_draw":
        _symbol(mask, "reroll", s * 0.3, s * 0.35, s * 0.17)
        _symbol(mask, "card", s * 0.7, s * 0.62, s * 0.17)
    elif icon == "quiddity_or_reroll":
        _symbol(mask, "diamond", s * 0.26, s * 0.32, s * 0.17)
        _text(mask, str(look.get("quiddity", "")), s * 0.26, s * 0.72, s * 0.22)
        cv2.line(mask, (int(s * 0.5), int(s * 0.2)), (int(s * 0.5), int(s * 0.8)), 255, 3,
                 cv2.LINE_AA)
        _symbol(mask, "reroll", s * 0.74, c, s * 0.17)
    for i in range(int(look.get("burst", 0))):
        _star(mask, s * (0.79 - 0.22 * i), s * 0.81, s * 0.105, points=4)


def _custom(mask: np.ndarray, seed: int, s: int, bold: bool = False) -> None:
    """A random but reproducible glyph: stands for a face nobody catalogued. ``bold``: one
    large centred symbol, as symbol dice print them; else one or two marks anywhere."""
    rng = np.random.default_rng(seed)
    for _ in range(1 if bold else int(rng.integers(1, 3))):
        cx, cy = (s / 2, s / 2) if bold else tuple(rng.uniform(0.3, 0.7, 2) * s)
        r = rng.uniform(0.28, 0.36) * s if bold else rng.uniform(0.15, 0.3) * s
        kind = int(rng.integers(4))
        if kind == 0:
            n = int(rng.integers(3, 8))
            ang = np.sort(rng.uniform(0, 2 * np.pi, n))
            rad = r * rng.uniform(0.5, 1.0, n)
            _poly(mask, list(zip(cx + rad * np.cos(ang), cy + rad * np.sin(ang), strict=True)))
        elif kind == 1:
            _text(mask, str(rng.choice(_GLYPHS)), cx, cy, r * 1.3,
                  thick=int(rng.integers(3, 7)))
        elif kind == 2:
            _symbol(mask, str(rng.choice(_SYMBOLS)), cx, cy, r)
        else:
            cv2.line(mask, (int(cx - r), int(cy - r * rng.uniform(-1, 1))),
                     (int(cx + r), int(cy + r * rng.uniform(-1, 1))), 255,
                     int(rng.integers(4, 10)), cv2.LINE_AA)


_GLYPHS = list("ABDEFGHKMNPRSTUVWXYZ0123456789?&#@%")
_SYMBOLS = ["atom", "star", "skull", "shield", "swirl", "diamond", "card", "reroll"]
#: glyphs that are one another turned (seen from above at any yaw they are the same face)
_TURNED = {"W": "M", "Z": "N", "9": "6"}


def glyph_key(seed: int) -> str:
    """What the bold glyph of `seed` (:func:`_custom` with bold=True) is, up to a turn: two
    faces with the same key differ only by rotation, which no reader can see on a die lying
    at any yaw (e.g. two straight strokes, or M and W). Random polygons are their own key."""
    rng = np.random.default_rng(seed)
    rng.uniform(0.28, 0.36)
    kind = int(rng.integers(4))
    if kind == 0:
        return f"polygon:{seed}"
    if kind == 1:
        ch = str(rng.choice(_GLYPHS))
        return f"text:{_TURNED.get(ch, ch)}"
    if kind == 2:
        return f"symbol:{rng.choice(_SYMBOLS)}"
    return "stroke"


def ink_mask(face: Face, size: int = _DRAW_PX) -> np.ndarray:
    """(size, size) float32 in [0, 1]: where the face's ink (or colour patch) is."""
    s = _DRAW_PX
    mask = np.zeros((s, s), np.uint8)
    look = face.look_dict()
    kind = look["kind"]
    if kind == "pips":
        r = s * 0.085 * (1.25 if look["value"] == 1 else 1.0)
        for px, py in PIP_LAYOUT[int(look["value"])]:
            cv2.circle(mask, (int(px * s * 16), int(py * s * 16)), int(r * 16), 255, -1,
                       cv2.LINE_AA, shift=4)
    elif kind == "colour":
        if look.get("shape") == "disc":
            cv2.circle(mask, (s // 2, s // 2), int(s * 0.36), 255, -1, cv2.LINE_AA)
        else:
            cv2.rectangle(mask, (int(s * 0.12), int(s * 0.12)), (int(s * 0.88), int(s * 0.88)),
                          255, -1)
    elif kind == "pictogram":
        sizes = list(look["sizes"])
        slots = [s / 2] if len(sizes) == 1 else [s * 0.3, s * 0.7]
        for cx, name in zip(slots, sizes, strict=True):
            h = s * _PICTO[name] * (1.0 if len(sizes) == 1 else 0.8)
            base = s * 0.5 + h / 2
            _poly(mask, [(cx, base - h), (cx + h * 0.45, base), (cx - h * 0.45, base)])
    elif kind == "symbol":
        _symbol(mask, str(look["symbol"]), s / 2, s / 2, s * 0.32)
    elif kind == "quarriors":
        _quarriors(mask, look, s)
    elif kind == "custom":
        _custom(mask, int(look["seed"]), s, bool(look.get("bold", False)))
    out: np.ndarray = mask.astype(np.float32) / 255.0
    if size != s:
        out = cv2.resize(out, (size, size), interpolation=cv2.INTER_AREA)
    return out


def face_texture(dtype: DieType, face: Face, size: int = 64) -> np.ndarray:
    """(size, size, 4) float32 BGRA texture of one face of a die of type `dtype`."""
    ink = ink_mask(face, size)[..., None]
    look = face.look_dict()
    colour = hex_bgr(look["colour"]) if look["kind"] == "colour" else hex_bgr(dtype.ink)
    body = np.empty((size, size, 3), np.float32)
    body[:] = hex_bgr(dtype.body)
    y, x = np.mgrid[0:size, 0:size].astype(np.float32) / (size - 1)
    edge = np.minimum(np.minimum(x, 1 - x), np.minimum(y, 1 - y))
    body *= (0.8 + 0.2 * np.clip(edge / 0.12, 0, 1))[..., None]  # rounded edges darken
    rgb = body * (1 - ink) + np.asarray(colour, np.float32) * ink
    rad = 0.14 * size
    cx = np.clip(x * (size - 1), rad, size - 1 - rad)
    cy = np.clip(y * (size - 1), rad, size - 1 - rad)
    alpha = np.clip(rad - np.hypot(x * (size - 1) - cx, y * (size - 1) - cy) + 0.5, 0, 1)
    return np.dstack([rgb / 255.0, alpha]).astype(np.float32)
