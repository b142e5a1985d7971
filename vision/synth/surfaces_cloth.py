"""Soft table surfaces: carpets, rugs, knitted and woven cloth, polka dots, checks, a mesh
dice bag, felt and mouse pads.

Each function is ``kind(h, w, mm_per_px, rng) -> (h, w, 3) uint8 BGR`` with its features
sized in millimetres (a carpet loop is 3 mm whatever the resolution). They are registered in
:mod:`vision.synth.surfaces`. The looks were set by eye against real photos of dice on carpets, on
black-and-white patterned fabric and on a mesh bag over polka-dot cloth: those are the tables
where a reader trained on plain renders boxed dozens of fibre tufts and dots.
"""

from __future__ import annotations

import logging

import cv2
import numpy as np

from vision.synth.surface_noise import (
    BGR,
    axes_px,
    grain,
    jitter_colour,
    mix,
    ramp,
    scaled,
    shade,
    smooth,
    smoothstep,
    soft_light,
    speckle,
)

logger = logging.getLogger(__name__)

#: Carpet and rug fibre colours (BGR): beige, light grey, mid grey, brown, dark brown.
CARPET_COLOURS: tuple[BGR, ...] = (
    (120.0, 145.0, 170.0), (150.0, 170.0, 195.0), (85.0, 100.0, 115.0),
    (120.0, 122.0, 125.0), (50.0, 72.0, 100.0), (40.0, 48.0, 60.0), (160.0, 160.0, 158.0),
)
#: Saturated cloth and felt colours (BGR).
CLOTH_COLOURS: tuple[BGR, ...] = (
    (60.0, 125.0, 35.0), (40.0, 40.0, 150.0), (120.0, 60.0, 25.0), (35.0, 35.0, 38.0),
    (60.0, 110.0, 20.0), (90.0, 30.0, 70.0), (30.0, 55.0, 95.0), (200.0, 200.0, 200.0),
    (20.0, 90.0, 160.0), (110.0, 100.0, 40.0),
)


def _pick(colours: tuple[BGR, ...], rng: np.random.Generator, amount: float = 8.0) -> BGR:
    return jitter_colour(colours[int(rng.integers(len(colours)))], rng, amount)


def _fibre_ramp(base: BGR, dark: float = 0.3, light: float = 1.2) -> list[tuple[float, BGR]]:
    """Crevice -> fibre body -> lit fibre tips, all in the fibre's own hue."""
    return [(0.0, scaled(base, dark)), (0.55, scaled(base, 0.8)), (0.85, base),
            (1.0, scaled(base, light))]


def _hex_bumps(h: int, w: int, pitch: float, stretch: float, wobble: float,
               rng: np.random.Generator) -> np.ndarray:
    """(h, w) tone in [0, 1] of round bumps on a hexagonal lattice ``pitch`` px apart.

    Three cosine waves 60 degrees apart peak together on a hexagonal grid of blobs: loops of
    alternate rows sit between each other, as in a loop pile. Coordinates pushed about by
    smooth noise (``wobble``, in pitches) and a per-blob brightness make them irregular
    tufts. Six cheap whole-image operations instead of drawing thousands of tufts.
    """
    y, x = axes_px(h, w)
    k = 2 * np.pi / pitch
    xs = x / stretch + wobble * pitch * smooth(h, w, pitch * 2.2, rng)
    ys = y + wobble * pitch * smooth(h, w, pitch * 2.2, rng)
    total = np.cos(k * xs)
    for ang in (np.pi / 3, 2 * np.pi / 3):
        total += np.cos(k * (xs * float(np.cos(ang)) + ys * float(np.sin(ang))))
    bump = np.clip((total + 1.5) / 4.5, 0, 1)
    return bump * np.clip(0.8 + 0.35 * smooth(h, w, pitch * 0.8, rng), 0.3, 1.3)


def _pile(h: int, w: int, mm_per_px: float, pitch_mm: float, rows: bool,
          rng: np.random.Generator) -> np.ndarray:
    """Tone in [0, 1] of a pile of loops (``rows``) or tufts with fibre fuzz and flecks of
    lighter and darker yarn (real carpets are spun from several shades)."""
    pitch = pitch_mm / mm_per_px
    if pitch < 3.0:  # tufts finer than the pixels: only their noise survives
        tone = 0.6 + 0.18 * grain(h, w, rng, 0.6)
    else:
        bump = _hex_bumps(h, w, pitch, 1.25 if rows else 1.0, 0.12 if rows else 0.45, rng)
        tone = 0.3 + 0.62 * bump ** (0.6 if rows else 0.9)
        tone *= 1 + 0.2 * grain(h, w, rng, max(0.5, 0.12 / mm_per_px))
    size = max(1.0, 1.0 / mm_per_px)
    tone += 0.25 * speckle(h, w, rng.uniform(0.01, 0.06), size, rng)
    tone -= 0.25 * speckle(h, w, rng.uniform(0.01, 0.06), size, rng)
    return tone


def carpet_loop(h: int, w: int, mm_per_px: float, rng: np.random.Generator) -> np.ndarray:
    """Loop-pile carpet: rows of small round loops with dark gaps, speckled fibres."""
    base = _pick(CARPET_COLOURS, rng)
    tone = _pile(h, w, mm_per_px, rng.uniform(2.4, 4.5), True, rng)
    tone *= soft_light(h, w, mm_per_px, rng, 0.1)
    return ramp(np.clip(tone, 0, 1), _fibre_ramp(base, dark=0.4))


def carpet_cut(h: int, w: int, mm_per_px: float, rng: np.random.Generator) -> np.ndarray:
    """Cut-pile or shag carpet: soft tufts a few mm wide parted by dark crevices."""
    base = _pick(CARPET_COLOURS, rng)
    tone = _pile(h, w, mm_per_px, rng.uniform(3.0, 7.0), False, rng)
    # Pile brushed different ways reads as broad light and dark tracks.
    tone *= soft_light(h, w, mm_per_px, rng, 0.14)
    return ramp(np.clip(tone, 0, 1), _fibre_ramp(base, dark=0.35, light=1.15))


def _motif(rows: np.ndarray, cols: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """(h, w) bool: a two-colour motif over integer cell coordinates (stitches or tufts)."""
    kind = int(rng.integers(6))
    p = int(rng.integers(4, 14))
    if kind == 0:  # zigzag (chevron)
        return ((cols + np.abs(rows % (2 * p) - p)) % (2 * p)) < p
    if kind == 1:  # diamonds
        return (np.abs(cols % (2 * p) - p) + np.abs(rows % (2 * p) - p)) < p * 0.7
    if kind == 2:  # stripes
        return (rows % (2 * p)) < p
    if kind == 3:  # checks
        return ((rows // p) + (cols // p)) % 2 == 0
    if kind == 4:  # houndstooth-like broken checks
        return ((rows // p + cols // p) % 2 == 0) ^ (((rows + cols) % p) < p // 3)
    blocks = rng.random((32, 32)) < 0.5  # random blocks (a jacquard of pixels)
    return blocks[(rows // max(1, p // 3)) % 32, (cols // max(1, p // 3)) % 32]


def _two_colours(rng: np.random.Generator) -> tuple[BGR, BGR]:
    """Yarn pair: half the time black and white (the hardest real case), else any two."""
    if rng.random() < 0.5:
        return jitter_colour((28, 28, 30), rng, 6), jitter_colour((225, 225, 222), rng, 8)
    a, b = _pick(CLOTH_COLOURS + CARPET_COLOURS, rng), _pick(CLOTH_COLOURS, rng)
    return a, b


def knit(h: int, w: int, mm_per_px: float, rng: np.random.Generator) -> np.ndarray:
    """Knitted cloth: columns of V stitches, plain or with a two-colour jacquard motif."""
    sw = rng.uniform(2.5, 5.0) / mm_per_px
    sh = sw * rng.uniform(0.75, 1.0)
    y, x = axes_px(h, w)
    u = x / sw + 0.15 * smooth(h, w, sw * 6, rng)
    v = y / sh + 0.15 * smooth(h, w, sw * 6, rng)
    a, b = u - np.floor(u), v - np.floor(v)
    # Each stitch is two leaning lobes forming a V: distance to the lobe's axis.
    d = np.where(a < 0.5, np.abs(a - (0.06 + 0.36 * b)), np.abs(a - (0.94 - 0.36 * b)))
    lobe = np.sqrt(np.clip(1 - (d / 0.2) ** 2, 0, 1)) * (0.65 + 0.35 * np.sin(np.pi * b))
    tone = np.clip(0.15 + 0.8 * lobe + 0.08 * grain(h, w, rng), 0, 1)
    c1, c2 = _two_colours(rng)
    img = ramp(tone, _fibre_ramp(c1, 0.25, 1.15))
    if rng.random() < 0.75:
        motif = _motif(np.floor(v).astype(np.int32), np.floor(u).astype(np.int32), rng)
        img = mix(img, ramp(tone, _fibre_ramp(c2, 0.25, 1.1)), motif.astype(np.float32))
    return shade(img, soft_light(h, w, mm_per_px, rng, 0.15))


def woven(h: int, w: int, mm_per_px: float, rng: np.random.Generator) -> np.ndarray:
    """Woven upholstery: plain, twill or warp-faced weave of fleck yarns; with black and
    white yarns it gives the irregular white dashes on black that fooled the reader."""
    t = rng.uniform(0.6, 1.6) / mm_per_px
    y, x = axes_px(h, w)
    # Threads are never straight: wobble the coordinates by a fraction of a thread.
    xw = x / t + 0.25 * smooth(h, w, t * 8, rng)
    yw = y / t + 0.25 * smooth(h, w, t * 8, rng)
    i, j = np.floor(xw).astype(np.int32), np.floor(yw).astype(np.int32)
    weave = int(rng.integers(3))
    if weave == 0:  # plain
        warp_up = (i + j) % 2 == 0
    elif weave == 1:  # 2/2 twill
        warp_up = (i + j) % 4 < 2
    else:  # warp-faced: the warp floats over several wefts, so its flecks read as dashes
        n = int(rng.integers(3, 6))
        warp_up = (j + 2 * i) % n != 0
    dash = max(rng.uniform(1.5, 5.0) / mm_per_px, t * rng.uniform(2.0, 4.0))
    share = rng.uniform(0.0, 0.7)  # how much of the fleck yarn is dark
    rows, cols = np.arange(h)[:, None], np.arange(w)[None, :]
    i0, j0 = i - int(i.min()), j - int(j.min())
    warp_fleck = _thread_flecks(h, int(i0.max()) + 1, dash, rng)[rows, i0] > share
    weft_fleck = _thread_flecks(w, int(j0.max()) + 1, dash, rng)[cols, j0] > share + \
        rng.uniform(0.0, 1.0)
    light = np.where(warp_up, warp_fleck, weft_fleck)
    profile = np.where(warp_up, np.sin(np.pi * (xw - i)), np.sin(np.pi * (yw - j))) ** 0.7
    tone: np.ndarray = np.where(light, 0.55 + 0.45 * profile,
                                0.08 + 0.3 * profile).astype(np.float32)
    tone = cv2.GaussianBlur(tone, (0, 0), max(0.4, 0.15 * t))  # fuzzy yarn, soft ends
    tone = np.clip(tone + 0.06 * grain(h, w, rng), 0, 1)
    dark, pale = _two_colours(rng)
    tone *= soft_light(h, w, mm_per_px, rng, 0.12)
    return ramp(np.clip(tone, 0, 1), [(0.0, scaled(dark, 0.5)), (0.38, dark),
                                      (0.55, scaled(pale, 0.75)), (1.0, pale)])


def _thread_flecks(length: int, threads: int, dash: float, rng: np.random.Generator
                   ) -> np.ndarray:
    """(length, threads) noise, smooth along each thread and independent between threads:
    a fleck yarn's light and dark stretches (no blur across threads, or they merge)."""
    small = rng.standard_normal((max(2, int(length / dash) + 2), threads), dtype=np.float32)
    return cv2.resize(small, (threads, length), interpolation=cv2.INTER_LINEAR)


def rug_pattern(h: int, w: int, mm_per_px: float, rng: np.random.Generator) -> np.ndarray:
    """A patterned rug: a bold two-colour motif tens of mm across in a tufted pile."""
    cell = rng.uniform(4.0, 12.0) / mm_per_px
    y, x = axes_px(h, w)
    rows = np.floor((y + 0.4 * cell * smooth(h, w, cell * 5, rng)) / cell).astype(np.int32)
    cols = np.floor((x + 0.4 * cell * smooth(h, w, cell * 5, rng)) / cell).astype(np.int32)
    motif: np.ndarray = _motif(rows, cols, rng).astype(np.float32)
    motif = cv2.GaussianBlur(motif, (0, 0), max(0.5, 0.6 / mm_per_px))
    tone = np.clip(_pile(h, w, mm_per_px, rng.uniform(2.0, 4.0), False, rng), 0, 1)
    c1, c2 = _two_colours(rng)
    img = mix(ramp(tone, _fibre_ramp(c1)), ramp(tone, _fibre_ramp(c2)), motif)
    return shade(img, soft_light(h, w, mm_per_px, rng, 0.12))


def _cloth_weave(h: int, w: int, mm_per_px: float, rng: np.random.Generator) -> np.ndarray:
    """A fine plain-weave gain about 1: the texture under any printed cloth."""
    t = rng.uniform(0.3, 0.8) / mm_per_px
    y, x = axes_px(h, w)
    if t < 1.5:  # threads finer than the pixels: only their noise is seen
        return 1.0 + 0.06 * grain(h, w, rng)
    return 0.93 + 0.07 * np.sin(np.pi * x / t) * np.sin(np.pi * y / t) + 0.04 * grain(h, w, rng)


def _fold_warp(h: int, w: int, mm_per_px: float, rng: np.random.Generator, amount_mm: float
               ) -> tuple[np.ndarray, np.ndarray]:
    """Pixel coordinates pushed about by a cloth's folds (its print bends with it)."""
    y, x = axes_px(h, w)
    cell = 90.0 / mm_per_px
    a = amount_mm / mm_per_px
    return x + a * smooth(h, w, cell, rng), y + a * smooth(h, w, cell, rng)


def _fold_light(h: int, w: int, mm_per_px: float, rng: np.random.Generator) -> np.ndarray:
    """Light and shade of folds: a cloth tossed on a table is never flat."""
    cell = rng.uniform(80, 200) / mm_per_px
    return 1.0 + rng.uniform(0.03, 0.12) * smooth(h, w, cell, rng)


def polka_dots(h: int, w: int, mm_per_px: float, rng: np.random.Generator) -> np.ndarray:
    """Polka-dot cloth: small light dots on a dark ground (or the reverse), in a grid."""
    pitch = rng.uniform(4.0, 14.0) / mm_per_px
    r = max(0.8 / mm_per_px, pitch * rng.uniform(0.1, 0.3))
    x, y = _fold_warp(h, w, mm_per_px, rng, rng.uniform(0, 3))
    row = np.floor(y / pitch)
    hexa = rng.random() < 0.6  # dots of alternate rows offset by half a step
    u = x / pitch + (0.5 * (row % 2) if hexa else 0.0)
    du = (u - np.floor(u) - 0.5) * pitch
    dv = (y / pitch - row - 0.5) * pitch
    dot = np.clip(r + 0.5 - np.sqrt(du * du + dv * dv), 0, 1)
    ground = _pick(CLOTH_COLOURS + ((40.0, 45.0, 75.0), (30.0, 30.0, 30.0)), rng)
    ink = jitter_colour((225, 228, 230), rng, 8)
    if sum(ground) > 400:  # a light cloth: dark or coloured dots
        ink = _pick(CLOTH_COLOURS[:7], rng)
    img = ramp(dot.astype(np.float32), [(0.0, ground), (1.0, ink)])
    return shade(img, _cloth_weave(h, w, mm_per_px, rng) * _fold_light(h, w, mm_per_px, rng))


def checks(h: int, w: int, mm_per_px: float, rng: np.random.Generator) -> np.ndarray:
    """Gingham or tartan: stripes of two widths crossing, their crossings darker."""
    x, y = _fold_warp(h, w, mm_per_px, rng, rng.uniform(0, 4))
    p = rng.uniform(4.0, 25.0) / mm_per_px
    duty = rng.uniform(0.3, 0.6)
    sx = smoothstep(duty + 0.02, duty - 0.02, (x / p) % 1.0)
    sy = smoothstep(duty + 0.02, duty - 0.02, (y / p) % 1.0)
    tone = np.clip(0.5 * sx + 0.5 * sy, 0, 1).astype(np.float32)
    ink = _pick(CLOTH_COLOURS, rng)
    paper = jitter_colour((230, 232, 235), rng, 8) if rng.random() < 0.6 else \
        _pick(CLOTH_COLOURS, rng)
    mid = ((paper[0] + ink[0]) / 2, (paper[1] + ink[1]) / 2, (paper[2] + ink[2]) / 2)
    img = ramp(tone, [(0.0, paper), (0.5, mid), (1.0, scaled(ink, 0.8))])
    return shade(img, _cloth_weave(h, w, mm_per_px, rng) * _fold_light(h, w, mm_per_px, rng))


def mesh_bag(h: int, w: int, mm_per_px: float, rng: np.random.Generator) -> np.ndarray:
    """A mesh dice bag: a dark net of diamond holes over a darker lining, creased."""
    x, y = _fold_warp(h, w, mm_per_px, rng, rng.uniform(1, 4))
    p = rng.uniform(1.6, 3.5) / mm_per_px
    if p < 3.0:  # holes finer than the pixels: the net is seen as its mean, mottled
        net = np.clip(0.45 + 0.25 * grain(h, w, rng), 0, 1)
    else:
        a = (x + y) / p
        b = (x - y) / p
        thread = np.minimum(np.abs(a - np.floor(a) - 0.5), np.abs(b - np.floor(b) - 0.5))
        net = smoothstep(0.12, 0.28, thread)  # 1 inside a hole
    folds = _fold_light(h, w, mm_per_px, rng)
    sheen = np.clip(0.5 + 0.9 * (folds - 1) + 0.1 * grain(h, w, rng), 0, 1)
    tone = (1 - net) * (0.35 + 0.65 * sheen) + net * 0.08
    body = jitter_colour((45, 62, 58), rng, 10) if rng.random() < 0.6 else \
        _pick(CLOTH_COLOURS, rng)
    img = ramp(np.clip(tone, 0, 1).astype(np.float32),
               [(0.0, (10.0, 12.0, 14.0)), (0.35, scaled(body, 0.6)), (1.0, scaled(body, 1.6))])
    return shade(img, folds)


def felt(h: int, w: int, mm_per_px: float, rng: np.random.Generator) -> np.ndarray:
    """Felt or baize: one colour, matted fibres, faint mottling."""
    base = _pick(CLOTH_COLOURS, rng)
    tone = 0.5 + 0.12 * grain(h, w, rng, 0.35 / mm_per_px) + 0.06 * smooth(
        h, w, 12.0 / mm_per_px, rng)
    img = ramp(np.clip(tone, 0, 1), [(0.0, scaled(base, 0.6)), (0.5, base),
                                     (1.0, scaled(base, 1.4))])
    return shade(img, soft_light(h, w, mm_per_px, rng, 0.1))


def mouse_pad(h: int, w: int, mm_per_px: float, rng: np.random.Generator) -> np.ndarray:
    """A cloth mouse pad: dark fine weave, sometimes a printed swoosh and its stitched hem."""
    base = jitter_colour((35, 33, 32), rng, 8) if rng.random() < 0.6 else scaled(
        _pick(CLOTH_COLOURS, rng), 0.6)
    tone = 0.5 + 0.1 * grain(h, w, rng, 0.3 / mm_per_px)
    img = ramp(np.clip(tone, 0, 1), [(0.0, scaled(base, 0.6)), (1.0, scaled(base, 1.5))])
    if rng.random() < 0.6:  # printed graphics: broad arcs in an accent colour
        art = np.zeros((h, w), np.float32)
        for _ in range(int(rng.integers(1, 4))):
            c = (int(rng.uniform(0, w)), int(rng.uniform(0, h)))
            r = int(rng.uniform(0.2, 0.8) * max(h, w))
            cv2.circle(art, c, r, 1.0, max(2, int(rng.uniform(3, 25) / mm_per_px)),
                       cv2.LINE_AA)
        accent = np.full_like(img, 0) + np.array(_pick(CLOTH_COLOURS, rng), np.uint8)
        img = mix(img, accent, art * rng.uniform(0.4, 0.9))
    if rng.random() < 0.5:  # the hem: a stitched band at one edge of the pad
        edge = int(rng.uniform(0.05, 0.3) * w)
        hem = max(2, int(3.0 / mm_per_px))
        img[:, :edge] = (img[:, :edge] * 0.35).astype(np.uint8)
        img[:, edge:edge + hem] = np.array(scaled(base, 1.8), np.uint8)
    return shade(img, soft_light(h, w, mm_per_px, rng, 0.08))
