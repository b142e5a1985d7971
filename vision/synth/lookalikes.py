"""Things on a table that look like dice but are not, drawn on a table image with a side and
a drop shadow (:mod:`vision.synth.lookalike_stamp`), each returning its footprint boxes so training
can cut "not a die" crops from them.

:data:`LOOKALIKE_KINDS` are laid on the table: keyboard keys (rounded squares with a glyph, in
rows), buttons (their 2 or 4 holes look like pips), coins, dominoes (pips), RPG dice and d6
with numerals (:mod:`vision.synth.lookalikes_rpg`), cards, game tokens, pips printed on a mat and
loose dots. :data:`EDGE_KINDS` come in from the frame's edge: hands, feet and furniture legs
(:mod:`vision.synth.lookalikes_edge`). Every draw is ``draw(img, centre_px, stage, rng) -> boxes``
((N, 4) float64 x0, y0, x1, y1 in ``img``'s pixels; edge kinds take the inward direction
too). Sizes are real ones in millimetres.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass

import cv2
import numpy as np

from vision.synth import lookalikes_edge as edge
from vision.synth import lookalikes_rpg as rpg
from vision.synth.lookalike_stamp import (
    Patch,
    Stage,
    blank_patch,
    cover,
    detail,
    disc,
    fill,
    glyph,
    lit,
    new_mask,
    rounded_rect,
    stamp,
)
from vision.synth.textures import PIP_LAYOUT

logger = logging.getLogger(__name__)

Boxes = np.ndarray
Draw = Callable[[np.ndarray, tuple[float, float], Stage, np.random.Generator], Boxes]

#: Opaque plastic colours of buttons, tokens and printed ink (BGR).
PLASTIC: tuple[tuple[float, float, float], ...] = (
    (230, 230, 230), (30, 30, 32), (40, 40, 190), (180, 90, 30), (40, 200, 230),
    (60, 150, 40), (130, 40, 110), (200, 225, 235), (30, 120, 230), (120, 120, 120),
)
_METALS = ((60, 160, 205), (185, 185, 190), (60, 100, 175))  # gold, silver, copper
_GLYPHS = "QWERTYASDFGHZXCVB1234567890"


def colour(rng: np.random.Generator, table=PLASTIC) -> tuple[float, float, float]:
    c = np.clip(np.asarray(table[int(rng.integers(len(table)))], np.float32)
                + rng.normal(0, 10, 3), 0, 255)
    return float(c[0]), float(c[1]), float(c[2])


def _boxes(found: list[np.ndarray | None]) -> Boxes:
    return np.array([b for b in found if b is not None], np.float64).reshape(-1, 4)


def _scatter(centre: tuple[float, float], spread_px: float, rng: np.random.Generator
             ) -> tuple[float, float]:
    return (centre[0] + rng.normal(0, spread_px), centre[1] + rng.normal(0, spread_px))


def _side(bgr: tuple[float, float, float], k: float = 0.55) -> tuple[float, float, float]:
    return bgr[0] * k, bgr[1] * k, bgr[2] * k


def keyboard(img: np.ndarray, centre: tuple[float, float], stage: Stage,
             rng: np.random.Generator) -> Boxes:
    """A block of keyboard keys: rounded caps with a letter or digit, 19 mm apart in rows."""
    px = stage.mm_per_px
    pitch = 19.0 / px
    zoom, s = detail(16.0, px)
    cap = rng.uniform(13.0, 16.0) / s
    rows, cols = int(rng.integers(2, 5)), int(rng.integers(3, 9))
    body = colour(rng, ((35, 35, 37), (225, 225, 222), (170, 170, 175), (40, 40, 45)))
    ink = (235.0, 235.0, 235.0) if sum(body) < 300 else (40.0, 40.0, 40.0)
    ang = rng.uniform(0, 360)
    dzoom, ds = detail(19.0 * (cols + 0.6), px)
    deck = blank_patch(int((cols + 0.6) * 19.0 / ds), int((rows + 0.6) * 19.0 / ds))
    rounded_rect(deck, 0, 0, deck.alpha.shape[1], deck.alpha.shape[0], 6.0 / ds,
                 _side(body, 0.4))
    if stamp(img, deck, centre, stage, angle_deg=ang, height_mm=6.0,
             side_bgr=_side(body, 0.3), zoom=dzoom) is None:
        return _boxes([])  # no room for the keyboard: no keys floating on the table
    rot = np.deg2rad(-ang)  # getRotationMatrix2D turns counter-clockwise on screen
    ux, uy = np.array([np.cos(rot), np.sin(rot)]), np.array([-np.sin(rot), np.cos(rot)])
    found = []
    for r in range(rows):
        for c in range(cols):
            off = (c - (cols - 1) / 2) * pitch * ux + (r - (rows - 1) / 2) * pitch * uy
            found.append(stamp(img, _key_cap(cap, body, ink, rng), tuple(np.add(centre, off)),
                               stage, angle_deg=ang, height_mm=14.0,
                               side_bgr=_side(body, 0.6), zoom=zoom))
    return _boxes(found)


def _key_cap(size: float, body, ink, rng: np.random.Generator) -> Patch:
    n = max(4, int(size + 2))
    p = blank_patch(n, n)
    rounded_rect(p, 1, 1, n - 1, n - 1, size * 0.18, _side(body, 0.8))
    inset = size * 0.12
    rounded_rect(p, 1 + inset, 1 + inset * 0.6, n - 1 - inset, n - 1 - inset * 1.4,
                 size * 0.15, body)
    ch = _GLYPHS[int(rng.integers(len(_GLYPHS)))]
    if rng.random() < 0.6:
        glyph(p, ch, n * 0.4, n * 0.4, size * 0.28, ink)
    else:
        glyph(p, ch, n / 2, n / 2, size * 0.4, ink)
    lit(p, rng.uniform(0, 360), 0.12)
    return p


def buttons(img: np.ndarray, centre: tuple[float, float], stage: Stage,
            rng: np.random.Generator) -> Boxes:
    """Sewing buttons: discs with a raised rim and 2 or 4 holes, the table seen through
    them (a 4-hole button is a die's 4 to a reader that counts dark dots)."""
    px = stage.mm_per_px  # image px, for placing
    zoom, s = detail(25.0, px)  # patch px, for drawing
    found = []
    for _ in range(int(rng.integers(1, 6))):
        d = rng.uniform(10.0, 25.0) / s
        n = max(5, int(d + 2))
        body = colour(rng)
        p = blank_patch(n, n)
        disc(p, n / 2, n / 2, d / 2, body)
        ring = new_mask(p.alpha.shape)
        cv2.circle(ring, (int(n / 2 * 16), int(n / 2 * 16)), int(d * 0.4 * 16), 255,
                   max(1, int(d * 0.08)), cv2.LINE_AA, shift=4)
        fill(p, cover(ring) * p.alpha, _side(body, 0.75))
        holes = 4 if rng.random() < 0.5 else 2
        gap = d * rng.uniform(0.1, 0.16)
        for k in range(holes):
            a = np.pi / 4 + k * 2 * np.pi / holes
            hx, hy = n / 2 + gap * np.cos(a) * 1.4, n / 2 + gap * np.sin(a) * 1.4
            hole = new_mask(p.alpha.shape)
            cv2.circle(hole, (int(hx * 16), int(hy * 16)), max(8, int(d * 0.07 * 16)), 255,
                       -1, cv2.LINE_AA, shift=4)
            p.alpha[:] = np.minimum(p.alpha, 1 - cover(hole))
        lit(p, rng.uniform(0, 360), 0.15)
        found.append(stamp(img, p, _scatter(centre, 25 / px, rng), stage, zoom=zoom,
                           angle_deg=rng.uniform(0, 360), height_mm=2.5,
                           side_bgr=_side(body)))
    return _boxes(found)


def coins(img: np.ndarray, centre: tuple[float, float], stage: Stage,
          rng: np.random.Generator) -> Boxes:
    """Coins: metal discs with a rim, a ring of dots and an embossed numeral."""
    px = stage.mm_per_px  # image px, for placing
    zoom, s = detail(28.0, px)  # patch px, for drawing
    found = []
    for _ in range(int(rng.integers(1, 6))):
        d = rng.uniform(15.0, 28.0) / s
        n = max(5, int(d + 2))
        metal = colour(rng, _METALS)
        p = blank_patch(n, n)
        disc(p, n / 2, n / 2, d / 2, _side(metal, 1.15))
        disc(p, n / 2, n / 2, d * 0.43, metal)
        for k in range(int(rng.integers(0, 16))):
            a = 2 * np.pi * k / 16
            disc(p, n / 2 + d * 0.36 * np.cos(a), n / 2 + d * 0.36 * np.sin(a), d * 0.02,
                 _side(metal, 0.8))
        glyph(p, str(int(rng.choice([1, 2, 5, 10, 20, 50]))), n / 2, n / 2, d * 0.3,
              _side(metal, 0.75), angle_deg=rng.uniform(0, 360))
        lit(p, rng.uniform(0, 360), 0.35)
        found.append(stamp(img, p, _scatter(centre, 20 / px, rng), stage, height_mm=2.0,
                           side_bgr=_side(metal, 0.7), zoom=zoom))
    return _boxes(found)


def _pips(p: Patch, value: int, x0: float, y0: float, side: float, r: float, ink) -> None:
    for px, py in PIP_LAYOUT[value]:
        disc(p, x0 + px * side, y0 + py * side, r, ink)


def dominoes(img: np.ndarray, centre: tuple[float, float], stage: Stage,
             rng: np.random.Generator) -> Boxes:
    """Dominoes: two squares of pips on one tile, a line between them."""
    px = stage.mm_per_px  # image px, for placing
    zoom, s = detail(52.0, px)  # patch px, for drawing
    found = []
    for _ in range(int(rng.integers(1, 4))):
        a = rng.uniform(18.0, 26.0) / s
        body = colour(rng, ((200, 225, 235), (235, 235, 235), (25, 25, 28)))
        ink = (30.0, 30.0, 30.0) if sum(body) > 300 else (235.0, 235.0, 235.0)
        if rng.random() < 0.3:
            ink = colour(rng)
        n, m = max(4, int(a + 2)), max(6, int(2 * a + 2))
        p = blank_patch(n, m)
        rounded_rect(p, 1, 1, n - 1, m - 1, a * 0.1, body)
        fill(p, (np.abs(np.arange(m, dtype=np.float32) - m / 2) < max(0.6, a * 0.03))[
            :, None] * np.ones((1, n), np.float32) * 0.8, _side(body, 0.5))
        for half in (0, 1):
            v = int(rng.integers(0, 7))
            if v:
                _pips(p, v, 1 + a * 0.08, 1 + half * a + a * 0.08, a * 0.84, a * 0.075, ink)
        lit(p, rng.uniform(0, 360), 0.1)
        found.append(stamp(img, p, _scatter(centre, 30 / px, rng), stage, zoom=zoom,
                           angle_deg=rng.uniform(0, 360), height_mm=rng.uniform(6, 10),
                           side_bgr=_side(body, 0.65)))
    return _boxes(found)


def cards(img: np.ndarray, centre: tuple[float, float], stage: Stage,
          rng: np.random.Generator) -> Boxes:
    """Playing or game cards, face up (indices, suit marks or art) or face down."""
    px = stage.mm_per_px  # image px, for placing
    zoom, s = detail(88.0, px)  # patch px, for drawing
    found = []
    for _ in range(int(rng.integers(1, 3))):
        w, h = (63.0 / s, 88.0 / s) if rng.random() < 0.7 else (44.0 / s, 67.0 / s)
        p = blank_patch(max(4, int(w + 2)), max(6, int(h + 2)))
        face = colour(rng, ((235, 238, 240), (235, 238, 240), (180, 60, 30), (40, 40, 170)))
        rounded_rect(p, 1, 1, w + 1, h + 1, 3.0 / s, face)
        ink = colour(rng, ((30, 30, 30), (40, 40, 200), (150, 70, 20)))
        kind = int(rng.integers(3))
        if kind == 0:  # suit marks: pips on a card, round or diamond
            for k in range(int(rng.integers(1, 7))):
                disc(p, w * rng.uniform(0.3, 0.7), h * (0.2 + 0.12 * k), w * 0.07, ink)
            glyph(p, str(int(rng.integers(2, 11))), w * 0.15, h * 0.1, h * 0.07, ink)
        elif kind == 1:  # game art: a framed picture and a line of text
            art = blank_patch(*p.alpha.shape[::-1])
            rounded_rect(art, w * 0.1, h * 0.12, w * 0.9, h * 0.6, 2, colour(rng))
            fill(p, art.alpha, art.bgr)
            glyph(p, "".join(rng.choice(list("ABCDEFGH"), 6)), w / 2, h * 0.75, h * 0.05, ink)
        else:  # the back: a lattice
            y, x = np.mgrid[0:p.alpha.shape[0], 0:p.alpha.shape[1]].astype(np.float32)
            q = max(2.0, 3.0 / s)
            lattice = (((x + y) // q + (x - y) // q) % 2).astype(np.float32)
            fill(p, lattice * (p.alpha > 0.5) * 0.6, ink)
        found.append(stamp(img, p, _scatter(centre, 20 / px, rng), stage, zoom=zoom,
                           angle_deg=rng.uniform(0, 360), height_mm=0.4,
                           side_bgr=_side(face, 0.8)))
    return _boxes(found)


def tokens(img: np.ndarray, centre: tuple[float, float], stage: Stage,
           rng: np.random.Generator) -> Boxes:
    """Cardboard game tokens: discs or hexagons printed with a ring and a number or mark."""
    px = stage.mm_per_px  # image px, for placing
    zoom, s = detail(35.0, px)  # patch px, for drawing
    found = []
    for _ in range(int(rng.integers(1, 5))):
        d = rng.uniform(18.0, 35.0) / s
        n = max(5, int(d + 2))
        body, ink = colour(rng), colour(rng)
        p = blank_patch(n, n)
        if rng.random() < 0.5:
            disc(p, n / 2, n / 2, d / 2, body)
        else:
            a = np.deg2rad(np.arange(6) * 60 + 30)
            hexagon = new_mask(p.alpha.shape)
            pts = np.stack([n / 2 + d / 2 * np.cos(a), n / 2 + d / 2 * np.sin(a)], 1)
            cv2.fillPoly(hexagon, [np.round(pts * 16).astype(np.int32)], 255, cv2.LINE_AA,
                         shift=4)
            fill(p, hexagon, body)
        ring = new_mask(p.alpha.shape)
        cv2.circle(ring, (int(n * 8), int(n * 8)), int(d * 0.38 * 16), 255,
                   max(1, int(d * 0.05)), cv2.LINE_AA, shift=4)
        fill(p, cover(ring) * p.alpha, ink)
        if rng.random() < 0.5:
            glyph(p, str(int(rng.integers(1, 13))), n / 2, n / 2, d * 0.35, ink)
        else:
            _pips(p, int(rng.integers(1, 7)), n * 0.3, n * 0.3, n * 0.4, d * 0.05, ink)
        found.append(stamp(img, p, _scatter(centre, 25 / px, rng), stage, zoom=zoom,
                           angle_deg=rng.uniform(0, 360), height_mm=2.0,
                           side_bgr=_side(body, 0.7)))
    return _boxes(found)


def printed_pips(img: np.ndarray, centre: tuple[float, float], stage: Stage,
                 rng: np.random.Generator) -> Boxes:
    """Die faces printed flat on a mat or a score sheet: pips, sometimes in a square."""
    px = stage.mm_per_px  # image px, for placing
    zoom, s = detail(22.0, px)  # patch px, for drawing
    ink = colour(rng)
    found = []
    for _ in range(int(rng.integers(1, 5))):
        a = rng.uniform(8.0, 22.0) / s
        n = max(4, int(a + 2))
        p = blank_patch(n, n)
        if rng.random() < 0.5:
            rounded_rect(p, 1, 1, n - 1, n - 1, a * 0.15, ink)
            rounded_rect(p, 1 + a * 0.06, 1 + a * 0.06, n - 1 - a * 0.06, n - 1 - a * 0.06,
                         a * 0.1, colour(rng, ((235, 238, 240), (200, 225, 235))))
        _pips(p, int(rng.integers(1, 7)), 1 + a * 0.05, 1 + a * 0.05, a * 0.9, a * 0.08, ink)
        found.append(stamp(img, p, _scatter(centre, 30 / px, rng), stage, zoom=zoom,
                           angle_deg=rng.uniform(0, 360)))
    return _boxes(found)


def loose_dots(img: np.ndarray, centre: tuple[float, float], stage: Stage,
               rng: np.random.Generator) -> Boxes:
    """A cluster of loose dots or sequins a few mm wide (pips with no die round them)."""
    px = stage.mm_per_px  # image px, for placing
    zoom, s = detail(30.0, px)  # patch px, for drawing
    size = rng.uniform(12.0, 30.0) / s
    n = max(5, int(size + 2))
    p = blank_patch(n, n)
    ink = colour(rng)
    for _ in range(int(rng.integers(2, 9))):
        disc(p, rng.uniform(0.15, 0.85) * n, rng.uniform(0.15, 0.85) * n,
             rng.uniform(0.8, 2.0) / s, ink)
    return _boxes([stamp(img, p, centre, stage, height_mm=float(rng.choice([0.0, 0.5])),
                         side_bgr=_side(ink), zoom=zoom)])


@dataclass(frozen=True, slots=True)
class LookalikeKind:
    """One kind of look-alike."""

    name: str
    draw: Callable[..., Boxes]
    """``draw(img, centre_px, stage, rng)`` (edge kinds: ``..., inward, rng``) -> boxes."""
    reach_mm: float
    """How far from its centre the kind's objects may reach (placement keeps it off dice)."""
    weight: float = 1.0
    min_eye_mm: float = 0.0
    """Lowest camera (height above the table) that sees this kind: no foot or keyboard
    under a camera a few centimetres above a die."""


LOOKALIKE_KINDS: tuple[LookalikeKind, ...] = (
    LookalikeKind("keyboard", keyboard, 110.0, 0.8, 120.0),
    LookalikeKind("buttons", buttons, 70.0),
    LookalikeKind("coins", coins, 60.0),
    LookalikeKind("dominoes", dominoes, 80.0),
    LookalikeKind("rpg_dice", rpg.rpg_dice, 70.0, 2.0),
    LookalikeKind("numeral_d6", rpg.numeral_d6, 50.0, 1.2),
    LookalikeKind("cards", cards, 80.0, 0.7),
    LookalikeKind("tokens", tokens, 70.0),
    LookalikeKind("printed_pips", printed_pips, 70.0),
    LookalikeKind("loose_dots", loose_dots, 20.0),
)
"""Look-alikes laid on the table, in a fixed order (append, never reorder)."""

EDGE_KINDS: tuple[LookalikeKind, ...] = (
    LookalikeKind("hand", edge.hand, 120.0, 1.0, 250.0),
    LookalikeKind("foot", edge.foot, 150.0, 1.0, 500.0),
    LookalikeKind("furniture_leg", edge.furniture_leg, 60.0, 1.0, 500.0),
)
"""Look-alikes that come in from the frame's edge, in a fixed order."""


def pick_kind(rng: np.random.Generator, kinds: tuple[LookalikeKind, ...]) -> LookalikeKind:
    p = np.array([k.weight for k in kinds], np.float64)
    return kinds[int(rng.choice(len(kinds), p=p / p.sum()))]
